// Fuzzes lake::table::DecodeManifest, the reader of the manifest a scan
// opens for a table version (engine/table/manifest_format.h): formats 1
// and 2 and a format 3 or 4 checkpoint (a link is refused:
// manifest_link_fuzzer covers it); from 2 on the per-fragment statistics
// (fragment_statistics.h), from 3 on the per-fragment deletion vector
// references.
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the field parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted manifest is valid (ValidateManifest), and every path in
//      it is relative without an empty, "." or ".." segment; a format 1
//      manifest holds no statistics, and every fragment's statistics are
//      valid for the schema and its rows; only a format 3 or 4 manifest
//      holds deletion vectors, each a safe path deleting 1..rows rows.
//   3. Accepted input is canonical: encoding the decoded manifest gives
//      back the input's bytes before the digest exactly, and those bytes
//      decode to the same manifest.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/table/byte_codec.h"
#include "engine/table/manifest_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::table::Manifest;

using lake::fuzz::Check;
using lake::fuzz::IsSafeRelativePath;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Manifest> decoded = lake::table::DecodeManifest(bytes);
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  Check(lake::table::ValidateManifest(*decoded).ok());
  Check(IsSafeRelativePath(decoded->reference_delta_path));
  for (const lake::table::FragmentRef& fragment : decoded->fragments) {
    Check(IsSafeRelativePath(fragment.path));
    if (fragment.deletion_vector) {
      Check(decoded->format_version >= lake::table::kManifestFormatVersionV3);
      Check(IsSafeRelativePath(fragment.deletion_vector->path));
      Check(fragment.deletion_vector->deleted_rows >= 1 &&
            fragment.deletion_vector->deleted_rows <= fragment.rows);
    }
    if (!fragment.statistics) continue;
    Check(decoded->format_version != lake::table::kManifestFormatVersionV1);
    Check(lake::table::ValidateFragmentStatistics(*fragment.statistics, decoded->schema, fragment.rows).ok());
  }

  absl::StatusOr<std::string> encoded = lake::table::EncodeManifest(*decoded);
  Check(encoded.ok());
  Check(encoded->size() == size);
  size_t body = size - lake::table::kChecksum128Bytes;
  Check(encoded->substr(0, body) == bytes.substr(0, body));
  absl::StatusOr<Manifest> again = lake::table::DecodeManifest(*encoded);
  Check(again.ok() && *again == *decoded);
  return 0;
}
