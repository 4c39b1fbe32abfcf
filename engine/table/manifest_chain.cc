// Resolving and extending manifest chains; the rules are in manifest_chain.h.
#include "engine/table/manifest_chain.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/sha256.h"
#include "io/whole_file.h"

namespace lake::table {
namespace {

absl::Status BrokenChain(uint64_t version, std::string_view why) {
  return absl::DataLossError(
      absl::StrCat("the manifest chain of version ", version, " is broken: ", std::string(why)));
}

uint64_t EntriesBytes(const std::vector<FragmentRef>& fragments, const Schema& schema) {
  uint64_t bytes = 0;
  for (const FragmentRef& fragment : fragments) {
    bytes += ManifestEntryBytes(fragment, kManifestFormatVersion, schema);
  }
  return bytes;
}

// `m`'s fragments less `removed`, then `added`; `entries_bytes` follows.
// An entry added under a path `removed` names takes the removed entry's
// place (a fragment given a deletion vector keeps its place in the scan
// order); the other additions follow, in order. InvalidArgument when a
// removed path is not listed. Returns how many leading fragments are
// unchanged (all valid before: the caller's ValidateManifest trusts them).
absl::StatusOr<size_t> ApplyChanges(Manifest& m, const std::vector<std::string>& removed,
                                    std::vector<FragmentRef> added, uint64_t& entries_bytes) {
  size_t unchanged = m.fragments.size();
  if (!removed.empty()) {
    absl::flat_hash_set<std::string_view> gone(removed.begin(), removed.end());
    absl::flat_hash_map<std::string_view, size_t> replacing;  // path -> index in `added`
    for (size_t i = 0; i < added.size(); ++i) {
      if (gone.contains(added[i].path)) replacing.emplace(added[i].path, i);
    }
    std::vector<bool> placed(added.size(), false);
    std::vector<FragmentRef> kept;
    kept.reserve(m.fragments.size());
    size_t matched = 0;
    for (FragmentRef& fragment : m.fragments) {
      if (!gone.contains(fragment.path)) {
        kept.push_back(std::move(fragment));
        continue;
      }
      ++matched;
      unchanged = std::min(unchanged, kept.size());
      entries_bytes -= ManifestEntryBytes(fragment, kManifestFormatVersion, m.schema);
      auto replacement = replacing.find(fragment.path);
      if (replacement == replacing.end()) continue;
      placed[replacement->second] = true;
      entries_bytes += ManifestEntryBytes(added[replacement->second], kManifestFormatVersion,
                                          m.schema);
      kept.push_back(std::move(added[replacement->second]));
    }
    if (matched != gone.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(gone.size() - matched, " removed fragments are not listed by the parent"));
    }
    m.fragments = std::move(kept);
    std::vector<FragmentRef> rest;
    for (size_t i = 0; i < added.size(); ++i) {
      if (!placed[i]) rest.push_back(std::move(added[i]));
    }
    added = std::move(rest);
  }
  unchanged = std::min(unchanged, m.fragments.size());
  for (FragmentRef& fragment : added) {
    entries_bytes += ManifestEntryBytes(fragment, kManifestFormatVersion, m.schema);
    m.fragments.push_back(std::move(fragment));
  }
  uint64_t rows = 0;
  for (const FragmentRef& fragment : m.fragments) rows += fragment.live_rows();
  m.total_rows = rows;
  return unchanged;
}

// The header fields of `from` onto `to` (its fragments stay).
void CopyHeader(const Manifest& from, Manifest& to) {
  to.format_version = from.format_version;
  to.table_id = from.table_id;
  to.version = from.version;
  to.parent_version = from.parent_version;
  to.schema = from.schema;
  to.reference_delta_path = from.reference_delta_path;
  to.reference_delta_sha256 = from.reference_delta_sha256;
  to.created_unix_micros = from.created_unix_micros;
}

// A link read on the walk back, with its file's identity.
struct ReadLink {
  ManifestLink link;
  std::string sha256;
  uint64_t bytes = 0;
  std::string path;
};

// `resolved` (the link's parent) becomes the link's version, every check
// of the header's list made.
absl::Status FollowLink(const ReadLink& read, ResolvedManifest& resolved) {
  const ManifestLink& link = read.link;
  const uint64_t version = link.header.version;
  const ResolvedManifest& parent = resolved;
  if (link.header.parent_version != parent.manifest.version) {
    return BrokenChain(version, absl::StrCat("its parent is version ", link.header.parent_version,
                                             ", not ", parent.manifest.version));
  }
  if (link.header.table_id != parent.manifest.table_id) {
    return BrokenChain(version, "its parent belongs to another table");
  }
  if (!(link.header.schema == parent.manifest.schema)) {
    return BrokenChain(version, "its schema is not its parent's");
  }
  if (link.parent_manifest_sha256 != parent.file_sha256) {
    return BrokenChain(version, absl::StrCat("the manifest of version ", parent.manifest.version,
                                             " does not match the digest its child names"));
  }
  const uint64_t chain_bytes =
      parent.chain_length == 0 ? 0 : parent.chain_bytes + parent.file_bytes;
  if (link.chain_length != parent.chain_length + 1 || link.chain_bytes != chain_bytes) {
    return BrokenChain(version, absl::StrCat("its chain_length ", link.chain_length,
                                             " and chain_bytes ", link.chain_bytes,
                                             " do not follow from its parent's (",
                                             parent.chain_length, ", ", parent.chain_bytes, ")"));
  }
  absl::StatusOr<size_t> kept =
      ApplyChanges(resolved.manifest, link.removed, link.added, resolved.entries_bytes);
  if (!kept.ok()) return BrokenChain(version, std::string(kept.status().message()));
  const uint64_t rows = resolved.manifest.total_rows;
  CopyHeader(link.header, resolved.manifest);
  resolved.manifest.total_rows = link.header.total_rows;
  if (rows != link.header.total_rows) {
    return BrokenChain(version, absl::StrCat("total_rows is ", link.header.total_rows,
                                             " but the fragments hold ", rows));
  }
  if (absl::Status s = ValidateManifest(resolved.manifest, *kept); !s.ok()) {
    return BrokenChain(version, std::string(s.message()));
  }
  resolved.file_sha256 = read.sha256;
  resolved.file_bytes = read.bytes;
  resolved.chain_length = link.chain_length;
  resolved.chain_bytes = link.chain_bytes;
  resolved.chain_files.insert(resolved.chain_files.begin(), read.path);
  return absl::OkStatus();
}

}  // namespace

std::string ManifestRelativePath(uint64_t version) {
  return absl::StrFormat("%s/%020u.manifest", std::string(kTableVersionsDir), version);
}

ResolvedManifest ResolveFullList(Manifest manifest, std::string_view bytes,
                                 const std::string& path) {
  ResolvedManifest resolved;
  resolved.entries_bytes = EntriesBytes(manifest.fragments, manifest.schema);
  resolved.manifest = std::move(manifest);
  resolved.file_sha256 = Sha256Hex(bytes);
  resolved.file_bytes = bytes.size();
  resolved.chain_files = {path};
  return resolved;
}

absl::StatusOr<std::string> NextManifest(ResolvedManifest& resolved, const Manifest& header,
                                         const std::vector<std::string>& removed,
                                         std::vector<FragmentRef> added,
                                         uint32_t checkpoint_interval, const std::string& path) {
  if (checkpoint_interval == 0 || checkpoint_interval > kMaxManifestChainLength + 1) {
    return absl::InvalidArgumentError(absl::StrCat("a checkpoint interval is 1..",
                                                   kMaxManifestChainLength + 1, ", not ",
                                                   checkpoint_interval));
  }
  const bool has_parent = resolved.manifest.version != 0;
  ManifestLink link;
  link.header = header;
  link.header.fragments.clear();
  link.parent_manifest_sha256 = resolved.file_sha256;
  link.chain_length = resolved.chain_length + 1;
  link.chain_bytes = resolved.chain_length == 0 ? 0 : resolved.chain_bytes + resolved.file_bytes;
  link.removed = removed;
  if (has_parent && link.chain_length < checkpoint_interval) link.added = added;

  Manifest& m = resolved.manifest;
  absl::StatusOr<size_t> kept = ApplyChanges(m, removed, std::move(added), resolved.entries_bytes);
  if (!kept.ok()) return kept.status();
  const uint64_t rows = m.total_rows;
  CopyHeader(header, m);
  m.total_rows = rows;
  link.header.total_rows = rows;

  std::optional<std::string> bytes;
  if (has_parent && link.chain_length < checkpoint_interval) {
    if (absl::Status s = ValidateManifest(m, *kept); !s.ok()) return s;
    absl::StatusOr<std::string> link_bytes = EncodeManifestLink(link);
    if (!link_bytes.ok()) return link_bytes.status();
    // A reader reads the chain's links and a full list either way: a link
    // is worth it while the links read no more than a checkpoint would.
    if (link.chain_bytes + link_bytes->size() <= resolved.entries_bytes) {
      bytes = *std::move(link_bytes);
    }
  }
  const bool is_link = bytes.has_value();
  if (!is_link) {
    absl::StatusOr<std::string> checkpoint = EncodeManifest(m, *kept);
    if (!checkpoint.ok()) return checkpoint.status();
    bytes = *std::move(checkpoint);
  }
  resolved.file_sha256 = Sha256Hex(*bytes);
  resolved.file_bytes = bytes->size();
  resolved.chain_length = is_link ? link.chain_length : 0;
  resolved.chain_bytes = is_link ? link.chain_bytes : 0;
  if (!is_link) resolved.chain_files.clear();
  resolved.chain_files.insert(resolved.chain_files.begin(), path);
  return *std::move(bytes);
}

absl::StatusOr<const ResolvedManifest*> ManifestChainReader::Resolve(
    uint64_t version, const std::string& manifest_path) {
  if (last_ && last_->manifest.version == version && last_->chain_files.front() == manifest_path) {
    return &*last_;
  }
  std::vector<ReadLink> links;  // from the version down
  std::string path = manifest_path;
  uint64_t expected = version;
  std::optional<ResolvedManifest> base;
  for (;;) {
    if (!links.empty() && last_ && last_->manifest.version == expected &&
        last_->chain_files.front() == path) {
      base = std::move(last_);
      break;
    }
    if (links.size() > kMaxManifestChainLength) {
      return BrokenChain(version, absl::StrCat("it passes ", kMaxManifestChainLength,
                                               " links without reaching a full list"));
    }
    absl::StatusOr<std::string> bytes =
        io::ReadWholeFile(fs_, absl::StrCat(table_dir_, "/", path), kMaxManifestBytes);
    if (absl::IsNotFound(bytes.status())) {
      if (links.empty()) return absl::DataLossError(absl::StrCat("manifest ", path, " is missing"));
      return BrokenChain(version, absl::StrCat("manifest ", path, " of version ", expected,
                                               " is missing"));
    }
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<ManifestFile> file = DecodeManifestFile(*bytes);
    if (!file.ok()) {
      return absl::DataLossError(absl::StrCat("manifest ", path, ": ", file.status().message()));
    }
    const Manifest& header = std::holds_alternative<Manifest>(*file)
                                 ? std::get<Manifest>(*file)
                                 : std::get<ManifestLink>(*file).header;
    if (header.version != expected) {
      return BrokenChain(version, absl::StrCat("manifest ", path, " holds version ",
                                               header.version, ", not ", expected));
    }
    if (std::holds_alternative<Manifest>(*file)) {
      base = ResolveFullList(std::get<Manifest>(*std::move(file)), *bytes, path);
      break;
    }
    ManifestLink& link = std::get<ManifestLink>(*file);
    expected = link.header.parent_version;
    links.push_back(ReadLink{std::move(link), Sha256Hex(*bytes), bytes->size(), path});
    path = ManifestRelativePath(expected);
  }
  last_.reset();
  for (auto link = links.rbegin(); link != links.rend(); ++link) {
    if (absl::Status s = FollowLink(*link, *base); !s.ok()) return s;
  }
  last_ = std::move(base);
  return &*last_;
}

std::optional<ResolvedManifest> ManifestChainReader::TakeLast() {
  std::optional<ResolvedManifest> last = std::move(last_);
  last_.reset();
  return last;
}

}  // namespace lake::table
