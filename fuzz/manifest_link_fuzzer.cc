// Fuzzes lake::table::DecodeManifestFile, the reader of every manifest file
// a chain walk opens (engine/table/manifest_format.h): format 5 and 4
// links (the base version, format 5's base manifest path, the digest,
// chain_position and chain_bytes, removed paths, added entries), format 3 links (the base is the parent) and checkpoints
// of both, and the full lists of formats 1 and 2.
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the field parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted link is valid (ValidateManifestLink): a parent above
//      version 0 and a base in 1..parent (format 3: the parent), a
//      chain_position of 1..kMaxManifestChainLength (format 3) or with at
//      most kMaxManifestChainLength bits set (formats 4 and 5), a base
//      manifest path (format 5 only) that is a safe relative path, every removed
//      and added path relative without an empty, "." or ".." segment, none
//      repeated within its list, every added entry's statistics valid for
//      the schema and its rows. An accepted full list is valid
//      (ValidateManifest).
//   3. Accepted input is canonical: encoding what was decoded gives back
//      the input's bytes before the digest exactly, and those bytes decode
//      to the same file.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "absl/container/flat_hash_set.h"
#include "engine/table/byte_codec.h"
#include "engine/table/manifest_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::table::Manifest;
using lake::table::ManifestFile;
using lake::table::ManifestLink;

using lake::fuzz::Check;
using lake::fuzz::IsSafeRelativePath;

void CheckLink(const ManifestLink& link) {
  Check(lake::table::ValidateManifestLink(link).ok());
  Check(link.header.parent_version > 0 && link.header.parent_version < link.header.version);
  Check(link.base_version > 0 && link.base_version <= link.header.parent_version);
  Check(link.chain_position >= 1);
  if (link.header.format_version == lake::table::kManifestFormatVersionV3) {
    Check(link.base_version == link.header.parent_version);
    Check(link.chain_position <= lake::table::kMaxManifestChainLength);
  } else {
    Check(link.header.format_version == lake::table::kManifestFormatVersionV4 ||
          link.header.format_version == lake::table::kManifestFormatVersion);
    Check(std::popcount(link.chain_position) <=
          static_cast<int>(lake::table::kMaxManifestChainLength));
  }
  // Format 5 names its base's manifest by a table path; format 4 by version.
  if (link.header.format_version == lake::table::kManifestFormatVersion) {
    Check(IsSafeRelativePath(link.base_manifest_path));
  } else {
    Check(link.base_manifest_path.empty());
  }
  Check(link.header.fragments.empty());
  absl::flat_hash_set<std::string> removed;
  for (const std::string& path : link.removed) {
    Check(IsSafeRelativePath(path));
    Check(removed.insert(path).second);
  }
  absl::flat_hash_set<std::string> added;
  for (const lake::table::FragmentRef& fragment : link.added) {
    Check(IsSafeRelativePath(fragment.path));
    Check(added.insert(fragment.path).second);
    if (fragment.statistics) {
      Check(lake::table::ValidateFragmentStatistics(*fragment.statistics, link.header.schema,
                                                    fragment.rows)
                .ok());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ManifestFile> decoded = lake::table::DecodeManifestFile(bytes);
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  absl::StatusOr<std::string> encoded;
  if (const ManifestLink* link = std::get_if<ManifestLink>(&*decoded)) {
    CheckLink(*link);
    encoded = lake::table::EncodeManifestLink(*link);
  } else {
    const Manifest& manifest = std::get<Manifest>(*decoded);
    Check(lake::table::ValidateManifest(manifest).ok());
    encoded = lake::table::EncodeManifest(manifest);
  }
  Check(encoded.ok());
  Check(encoded->size() == size);
  size_t body = size - lake::table::kChecksum128Bytes;
  Check(encoded->substr(0, body) == bytes.substr(0, body));
  absl::StatusOr<ManifestFile> again = lake::table::DecodeManifestFile(*encoded);
  Check(again.ok() && *again == *decoded);
  return 0;
}
