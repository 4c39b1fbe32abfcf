// Resolving and extending manifest chains; the rules are in manifest_chain.h.
#include "engine/table/manifest_chain.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/sha256.h"
#include "engine/table/table_log.h"

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

// Changes against one base list, composed from the changes of the
// versions after it in turn (each against the list before it): paths of
// the base removed, and entries added, those under a removed path in the
// base entry's place, the rest at the end in order, as a link holds them.
class ComposedChanges {
 public:
  // The changes that follow the ones so far. False when the result cannot
  // be written against the base: a path of the base removed and later
  // added again would take its old place rather than the end's (lake
  // never does this: every new fragment gets a fresh name), or changes
  // that do not apply.
  bool Then(const std::vector<std::string>& removed, const std::vector<FragmentRef>& added) {
    absl::flat_hash_set<std::string_view> gone(removed.begin(), removed.end());
    absl::flat_hash_map<std::string_view, const FragmentRef*> replacing;
    for (const FragmentRef& fragment : added) {
      if (gone.contains(fragment.path)) replacing.emplace(fragment.path, &fragment);
    }
    for (const std::string& path : removed) {
      auto replacement = replacing.find(path);
      if (auto at = added_at_.find(path); at != added_at_.end()) {
        // An entry the changes so far added: replaced where it is, or gone
        // (a base path it replaced stays removed).
        if (replacement != replacing.end()) {
          added_[at->second] = *replacement->second;
        } else {
          added_[at->second].reset();
          added_at_.erase(at);
        }
        continue;
      }
      if (!base_removed_.insert(path).second) return false;  // already gone
      removed_.push_back(path);
      if (replacement != replacing.end()) Add(*replacement->second);
    }
    for (const FragmentRef& fragment : added) {
      if (gone.contains(fragment.path)) continue;
      if (base_removed_.contains(fragment.path) || added_at_.contains(fragment.path)) return false;
      Add(fragment);
    }
    return true;
  }

  std::vector<std::string> TakeRemoved() { return std::move(removed_); }
  std::vector<FragmentRef> TakeAdded() {
    std::vector<FragmentRef> added;
    added.reserve(added_at_.size());
    for (std::optional<FragmentRef>& fragment : added_) {
      if (fragment) added.push_back(*std::move(fragment));
    }
    return added;
  }

 private:
  void Add(const FragmentRef& fragment) {
    added_at_[fragment.path] = added_.size();
    added_.push_back(fragment);
  }

  std::vector<std::string> removed_;
  absl::flat_hash_set<std::string> base_removed_;
  std::vector<std::optional<FragmentRef>> added_;  // empty: removed again
  absl::flat_hash_map<std::string, size_t> added_at_;  // the entries in added_
};

// A link read on the walk back, with its file's identity.
struct ReadLink {
  ManifestLink link;
  std::string sha256;
  uint64_t bytes = 0;
  std::string path;
};

bool IsFormat3Link(const ResolvedManifest& resolved) {
  return !resolved.links.empty() && resolved.links.front().format_version == kManifestFormatVersionV3;
}

// Where a link's base stands in the chain: a format 3 link's base is its
// parent, a format 4 link's the version at p - lowbit(p).
uint64_t BasePosition(const ManifestLink& link) {
  if (link.header.format_version == kManifestFormatVersionV3) return link.chain_position - 1;
  return link.chain_position - ManifestChainLowBit(link.chain_position);
}

// What chain_bytes a link to `base` holds.
uint64_t ChainBytesAfter(const ResolvedManifest& base) {
  return base.chain_position == 0 ? 0 : base.chain_bytes + base.file_bytes;
}

// Every check of a link against its base but its fragment changes.
absl::Status CheckLinkFollowsBase(const ManifestLink& link, const ResolvedManifest& base) {
  const uint64_t version = link.header.version;
  if (link.base_version != base.manifest.version) {
    return BrokenChain(version, absl::StrCat("its base is version ", link.base_version, ", not ",
                                             base.manifest.version));
  }
  if (link.header.table_id != base.manifest.table_id) {
    return BrokenChain(version, "its base belongs to another table");
  }
  if (!(link.header.schema == base.manifest.schema)) {
    return BrokenChain(version, "its schema is not its base's");
  }
  if (link.base_manifest_sha256 != base.file_sha256) {
    return BrokenChain(version, absl::StrCat("the manifest of version ", base.manifest.version,
                                             " does not match the digest its link names"));
  }
  const uint32_t format = link.header.format_version;
  const bool formats_follow = format == kManifestFormatVersionV3
                                  ? base.manifest.format_version <= kManifestFormatVersionV3
                                  : !IsFormat3Link(base);
  if (!formats_follow) {
    return BrokenChain(version, absl::StrCat("a format ", format, " link cannot follow a format ",
                                             base.manifest.format_version,
                                             base.chain_position == 0 ? " full list" : " link"));
  }
  if (base.chain_position != BasePosition(link) || link.chain_bytes != ChainBytesAfter(base)) {
    return BrokenChain(version, absl::StrCat("its chain_position ", link.chain_position,
                                             " and chain_bytes ", link.chain_bytes,
                                             " do not follow from its base's (",
                                             base.chain_position, ", ", base.chain_bytes, ")"));
  }
  return absl::OkStatus();
}

// `resolved` (the link's base) becomes the link's version, every check
// of the header's list made.
absl::Status FollowLink(ReadLink read, ResolvedManifest& resolved) {
  ManifestLink& link = read.link;
  const uint64_t version = link.header.version;
  if (absl::Status s = CheckLinkFollowsBase(link, resolved); !s.ok()) return s;
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
  resolved.chain_position = link.chain_position;
  resolved.chain_bytes = link.chain_bytes;
  resolved.links.insert(resolved.links.begin(),
                        ChainLink{link.header.format_version, version, link.chain_position,
                                  link.chain_bytes, read.sha256, read.bytes,
                                  std::move(link.removed), std::move(link.added)});
  resolved.chain_files.insert(resolved.chain_files.begin(), std::move(read.path));
  return absl::OkStatus();
}

// The link NextManifest writes for the version after `resolved`, its
// fields but total_rows set: to the base at position p - lowbit(p), with
// every change since it. `above` is set to how many of resolved.links
// the new version's walk skips. nullopt when a checkpoint must be
// written instead (the header note of manifest_chain.h).
std::optional<ManifestLink> SkipLink(const ResolvedManifest& resolved, const Manifest& header,
                                     const std::vector<std::string>& removed,
                                     const std::vector<FragmentRef>& added,
                                     uint32_t checkpoint_interval, size_t& above) {
  const uint64_t position = resolved.chain_position + 1;
  const uint64_t base_position = position - ManifestChainLowBit(position);
  if (resolved.manifest.version == 0 || IsFormat3Link(resolved) ||
      static_cast<uint32_t>(std::popcount(position)) + 1 > checkpoint_interval) {
    return std::nullopt;
  }
  const std::vector<ChainLink>& links = resolved.links;
  above = 0;
  while (above < links.size() && links[above].chain_position > base_position) ++above;
  ComposedChanges changes;
  for (size_t i = above; i-- > 0;) {
    if (!changes.Then(links[i].removed, links[i].added)) return std::nullopt;
  }
  if (!changes.Then(removed, added)) return std::nullopt;
  ManifestLink link;
  link.header = header;
  link.header.fragments.clear();
  link.chain_position = position;
  if (base_position == 0) {
    link.base_version = resolved.full_list_version;
    link.base_manifest_sha256 = resolved.full_list_sha256;
    link.base_manifest_path = resolved.chain_files.back();
  } else {
    if (above == links.size() || links[above].chain_position != base_position) return std::nullopt;
    const ChainLink& base = links[above];
    link.base_version = base.version;
    link.base_manifest_sha256 = base.file_sha256;
    if (above >= resolved.chain_files.size()) return std::nullopt;
    link.base_manifest_path = resolved.chain_files[above];
    link.chain_bytes = base.chain_bytes + base.file_bytes;
  }
  link.removed = changes.TakeRemoved();
  link.added = changes.TakeAdded();
  return link;
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
  resolved.full_list_version = resolved.manifest.version;
  resolved.full_list_sha256 = resolved.file_sha256;
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
  size_t above = 0;
  std::optional<ManifestLink> link =
      SkipLink(resolved, header, removed, added, checkpoint_interval, above);

  Manifest& m = resolved.manifest;
  absl::StatusOr<size_t> kept = ApplyChanges(m, removed, std::move(added), resolved.entries_bytes);
  if (!kept.ok()) return kept.status();
  const uint64_t rows = m.total_rows;
  CopyHeader(header, m);
  m.total_rows = rows;

  std::optional<std::string> bytes;
  if (link) {
    link->header.total_rows = rows;
    if (absl::Status s = ValidateManifest(m, *kept); !s.ok()) return s;
    absl::StatusOr<std::string> link_bytes = EncodeManifestLink(*link);
    if (!link_bytes.ok()) return link_bytes.status();
    // A reader reads the walk's links and a full list either way: a link
    // is worth it while the links read no more than a checkpoint would.
    if (link->chain_bytes + link_bytes->size() <= resolved.entries_bytes) {
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
  if (is_link) {
    resolved.chain_position = link->chain_position;
    resolved.chain_bytes = link->chain_bytes;
    resolved.links.erase(resolved.links.begin(), resolved.links.begin() + above);
    resolved.chain_files.erase(resolved.chain_files.begin(),
                               resolved.chain_files.begin() + above);
    resolved.links.insert(resolved.links.begin(),
                          ChainLink{kManifestFormatVersion, header.version, link->chain_position,
                                    link->chain_bytes, resolved.file_sha256, resolved.file_bytes,
                                    std::move(link->removed), std::move(link->added)});
  } else {
    resolved.chain_position = 0;
    resolved.chain_bytes = 0;
    resolved.links.clear();
    resolved.chain_files.clear();
    resolved.full_list_version = header.version;
    resolved.full_list_sha256 = resolved.file_sha256;
  }
  resolved.chain_files.insert(resolved.chain_files.begin(), path);
  return *std::move(bytes);
}

absl::StatusOr<std::string> NextFullManifest(ResolvedManifest& resolved, const Manifest& header,
                                             std::vector<FragmentRef> fragments,
                                             const std::string& path) {
  Manifest& m = resolved.manifest;
  m.fragments = std::move(fragments);
  CopyHeader(header, m);
  m.total_rows = 0;
  for (const FragmentRef& fragment : m.fragments) m.total_rows += fragment.live_rows();
  absl::StatusOr<std::string> bytes = EncodeManifest(m);
  if (!bytes.ok()) return bytes.status();
  resolved.entries_bytes = EntriesBytes(m.fragments, m.schema);
  resolved.file_sha256 = Sha256Hex(*bytes);
  resolved.file_bytes = bytes->size();
  resolved.chain_position = 0;
  resolved.chain_bytes = 0;
  resolved.links.clear();
  resolved.full_list_version = header.version;
  resolved.full_list_sha256 = resolved.file_sha256;
  resolved.chain_files = {path};
  return bytes;
}

namespace {

// A base as CheckLinkFollowsBase sees it, without its fragments: a
// version `table`'s walk passes, or a link just read.
ResolvedManifest BaseView(const Manifest& table, uint64_t version, const std::string& sha256,
                          uint64_t bytes, uint64_t chain_position, uint64_t chain_bytes) {
  ResolvedManifest base;
  base.manifest.table_id = table.table_id;
  base.manifest.schema = table.schema;
  base.manifest.version = version;
  base.file_sha256 = sha256;
  base.file_bytes = bytes;
  base.chain_position = chain_position;
  base.chain_bytes = chain_bytes;
  return base;
}

}  // namespace

bool AdvanceByAppends(io::FileSystem& fs, const std::string& table_dir, ResolvedManifest& resolved,
                      uint64_t version, const std::string& manifest_path) {
  const std::vector<ChainLink>& walk = resolved.links;
  if (resolved.chain_files.size() != walk.size() + 1) return false;
  // Where a version read from `path` stands on `resolved`'s walk: a link
  // (0 is `resolved` itself when it is one) or its full list (last).
  auto on_walk = [&](uint64_t v, const std::string& path) -> std::optional<size_t> {
    for (size_t i = 0; i <= walk.size(); ++i) {
      const uint64_t at = i < walk.size() ? walk[i].version : resolved.full_list_version;
      if (at == v && resolved.chain_files[i] == path) return i;
    }
    return std::nullopt;
  };
  std::vector<ReadLink> read;  // from `version` down
  std::string path = manifest_path;
  uint64_t expected = version;
  std::optional<size_t> met;
  while (!(met = on_walk(expected, path))) {
    if (read.size() >= kMaxManifestChainLength || expected < resolved.full_list_version) {
      return false;
    }
    absl::StatusOr<std::string> bytes =
        ReadTablePath(fs, table_dir, path, kMaxManifestBytes, TableLogRecordKind::kManifest);
    if (!bytes.ok()) return false;
    absl::StatusOr<ManifestFile> file = DecodeManifestFile(*bytes);
    if (!file.ok() || !std::holds_alternative<ManifestLink>(*file)) return false;
    ManifestLink& link = std::get<ManifestLink>(*file);
    if (link.header.version != expected || link.header.format_version == kManifestFormatVersionV3 ||
        !link.removed.empty()) {
      return false;
    }
    expected = link.base_version;
    std::string base_path =
        link.base_manifest_path.empty() ? ManifestRelativePath(expected) : link.base_manifest_path;
    read.push_back(ReadLink{std::move(link), Sha256Hex(*bytes), bytes->size(), path});
    path = std::move(base_path);
  }
  const size_t met_at = *met;
  if (read.empty()) return met_at == 0;  // `version` is `resolved`'s own
  // The list at the version met: `resolved`'s less what the links above
  // it appended, at the end.
  size_t appended_above = 0;
  for (size_t i = 0; i < met_at; ++i) {
    if (!walk[i].removed.empty()) return false;
    appended_above += walk[i].added.size();
  }
  Manifest& m = resolved.manifest;
  if (appended_above > m.fragments.size()) return false;
  // Each link read follows its base: the version met, then the link read
  // before it.
  ResolvedManifest base =
      met_at < walk.size()
          ? BaseView(m, walk[met_at].version, walk[met_at].file_sha256, walk[met_at].file_bytes,
                     walk[met_at].chain_position, walk[met_at].chain_bytes)
          : BaseView(m, resolved.full_list_version, resolved.full_list_sha256, 0, 0, 0);
  if (met_at < walk.size() && walk[met_at].format_version == kManifestFormatVersionV3) return false;
  for (auto link = read.rbegin(); link != read.rend(); ++link) {
    if (!CheckLinkFollowsBase(link->link, base).ok()) return false;
    base = BaseView(m, link->link.header.version, link->sha256, link->bytes,
                    link->link.chain_position, link->link.chain_bytes);
  }
  // From here on `resolved` changes.
  const size_t kept = m.fragments.size() - appended_above;
  for (size_t i = kept; i < m.fragments.size(); ++i) {
    resolved.entries_bytes -= ManifestEntryBytes(m.fragments[i], kManifestFormatVersion, m.schema);
  }
  m.fragments.resize(kept);
  for (auto link = read.rbegin(); link != read.rend(); ++link) {
    for (const FragmentRef& fragment : link->link.added) {
      resolved.entries_bytes += ManifestEntryBytes(fragment, kManifestFormatVersion, m.schema);
      m.fragments.push_back(fragment);
    }
  }
  const ManifestLink& top = read.front().link;
  uint64_t rows = 0;
  for (const FragmentRef& fragment : m.fragments) rows += fragment.live_rows();
  CopyHeader(top.header, m);
  m.total_rows = rows;
  if (rows != top.header.total_rows || !ValidateManifest(m, kept).ok()) return false;
  resolved.file_sha256 = read.front().sha256;
  resolved.file_bytes = read.front().bytes;
  resolved.chain_position = top.chain_position;
  resolved.chain_bytes = top.chain_bytes;
  std::vector<ChainLink> links;
  std::vector<std::string> files;
  for (ReadLink& link : read) {
    links.push_back(ChainLink{link.link.header.format_version,
                              link.link.header.version,
                              link.link.chain_position,
                              link.link.chain_bytes,
                              std::move(link.sha256),
                              link.bytes,
                              {},
                              std::move(link.link.added)});
    files.push_back(std::move(link.path));
  }
  links.insert(links.end(), std::make_move_iterator(resolved.links.begin() + met_at),
               std::make_move_iterator(resolved.links.end()));
  files.insert(files.end(), std::make_move_iterator(resolved.chain_files.begin() + met_at),
               std::make_move_iterator(resolved.chain_files.end()));
  resolved.links = std::move(links);
  resolved.chain_files = std::move(files);
  return true;
}

absl::StatusOr<const ResolvedManifest*> ManifestChainReader::Resolve(
    uint64_t version, const std::string& manifest_path) {
  // The level holding `v` read from `path`, if any.
  auto level_of = [&](uint64_t v, const std::string& path) -> std::optional<size_t> {
    for (size_t i = levels_.size(); i-- > 0;) {
      if (levels_[i].manifest.version == v && levels_[i].chain_files.front() == path) return i;
    }
    return std::nullopt;
  };
  // A reader used once resolves in place; from its second call on (a
  // collector's walk in ascending order) it keeps every base it passes.
  const bool keep_bases = !levels_.empty();
  std::vector<ReadLink> links;  // from the version down
  std::string path = manifest_path;
  uint64_t expected = version;
  std::optional<size_t> base_level;
  std::optional<ResolvedManifest> full_list;
  for (;;) {
    base_level = level_of(expected, path);
    if (base_level) break;
    if (links.size() > kMaxManifestChainLength) {
      return BrokenChain(version, absl::StrCat("it passes ", kMaxManifestChainLength,
                                               " links without reaching a full list"));
    }
    absl::StatusOr<std::string> bytes =
        ReadTablePath(fs_, table_dir_, path, kMaxManifestBytes, TableLogRecordKind::kManifest);
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
      full_list = ResolveFullList(std::get<Manifest>(*std::move(file)), *bytes, path);
      break;
    }
    ManifestLink& link = std::get<ManifestLink>(*file);
    expected = link.base_version;
    std::string base_path = link.base_manifest_path.empty() ? ManifestRelativePath(expected)
                                                            : link.base_manifest_path;
    links.push_back(ReadLink{std::move(link), Sha256Hex(*bytes), bytes->size(), path});
    path = std::move(base_path);
  }
  if (base_level) {
    levels_.resize(*base_level + 1);
  } else {
    levels_.clear();
    levels_.push_back(*std::move(full_list));
  }
  for (auto link = links.rbegin(); link != links.rend(); ++link) {
    // A format 3 link is the base of its child only: its level replaces
    // its base's.
    const bool replaces = link->link.header.format_version == kManifestFormatVersionV3;
    if (keep_bases && !replaces) {
      ResolvedManifest base = levels_.back();
      levels_.push_back(std::move(base));
    }
    if (absl::Status s = FollowLink(std::move(*link), levels_.back()); !s.ok()) {
      levels_.clear();
      return s;
    }
  }
  return &levels_.back();
}

std::optional<ResolvedManifest> ManifestChainReader::TakeLast() {
  if (levels_.empty()) return std::nullopt;
  std::optional<ResolvedManifest> last = std::move(levels_.back());
  levels_.clear();
  return last;
}

}  // namespace lake::table
