// A version's fragment list, resolved from its manifest file: a full list
// (formats 1 and 2, a format 3 or 4 checkpoint) is the list; a link is its
// base's list with the link's changes, so a read walks back from the
// version, link by link, to the nearest full list, and applies the links
// forward (manifest_format.h has the format and its invariants).
//
// Every step of the walk fails closed with DataLoss: a manifest missing, a
// file damaged, a file that holds another version than the path names, a
// base whose bytes do not match the digest its link names, a
// chain_position or chain_bytes that does not follow from the base's (a
// format 4 link's base at position p - lowbit(p), a format 3 link's at
// p - 1; a format 3 link after a format 4 file, or a format 4 link after a
// format 3 link), a table id or schema that changes along the chain, a
// removal of a fragment the base does not list or an addition of one it
// does, a total_rows that the resolved list does not hold, or a walk past
// kMaxManifestChainLength links. A cycle cannot be walked: each step goes
// to a lower version (base_version <= parent_version < version) and the
// file read must hold exactly that version.
//
// The writer (NextManifest) writes a format 4 link whose base is the
// version at position p - lowbit(p) of the chain, its changes the
// composition of the changes since that base: n appends write O(n log n)
// bytes of links, and a read opens popcount(p) + 1 <= log2(n) + 2 files. It
// writes a checkpoint instead when the read would open more files than
// its checkpoint interval, when the walk's links would read more bytes
// than a full list (as after a compaction, which removes every fragment),
// when the base's list cannot express the changes (a path removed and
// later added again, which lake never writes), or when the parent is a
// format 3 link. A base is always a file the parent resolves from, so it
// exists while the parent is retained.
#ifndef LAKE_ENGINE_TABLE_MANIFEST_CHAIN_H_
#define LAKE_ENGINE_TABLE_MANIFEST_CHAIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/table/manifest_format.h"
#include "io/file_system.h"

namespace lake::table {

// The subdirectory of a table directory that holds its manifests.
inline constexpr std::string_view kTableVersionsDir = "_versions";
// A manifest file is read whole, at most this size: a full list of
// kMaxManifestFragments fragments with statistics fits.
inline constexpr size_t kMaxManifestBytes = size_t{256} << 20;
// "_versions/<version as 20 digits>.manifest": a version's manifest, relative
// to the table directory. A link's parent is the manifest of its
// parent_version at this path.
std::string ManifestRelativePath(uint64_t version);

// One link a resolved version's read opens: what a later link that takes
// it (or the full list below it) as its base needs of it.
struct ChainLink {
  uint32_t format_version = kManifestFormatVersion;
  uint64_t version = 0;
  uint64_t chain_position = 0;
  uint64_t chain_bytes = 0;
  std::string file_sha256;
  uint64_t file_bytes = 0;
  // Its changes against its own base.
  std::vector<std::string> removed;
  std::vector<FragmentRef> added;

  bool operator==(const ChainLink&) const = default;
};

// A version's manifest resolved, with what a link to it records of it.
struct ResolvedManifest {
  Manifest manifest;  // the version's full fragment list
  // The version's own manifest file: the SHA-256 of its bytes (what a
  // link names) and its size.
  std::string file_sha256;
  uint64_t file_bytes = 0;
  // The file's chain_position and chain_bytes; 0 for a full list.
  uint64_t chain_position = 0;
  uint64_t chain_bytes = 0;
  // What a checkpoint's entries of this list take, in the format lake
  // writes: what a link chain is weighed against.
  uint64_t entries_bytes = 0;
  // The links a read of the version opens, its own first (none for a full
  // list), and the full list they start from.
  std::vector<ChainLink> links;
  uint64_t full_list_version = 0;
  std::string full_list_sha256;
  // Every manifest file the version resolves from, relative to the table
  // directory: the links' files in the order of `links`, then the full
  // list (at most kMaxManifestChainLength + 1). A collector keeps them all
  // while the version is retained.
  std::vector<std::string> chain_files;

  bool operator==(const ResolvedManifest&) const = default;
};

// The resolved view of a full list read from `path` (`bytes`, decoded as
// `manifest`).
ResolvedManifest ResolveFullList(Manifest manifest, std::string_view bytes,
                                 const std::string& path);

// `resolved` (a version, or, for a table's first version, an empty list
// of version 0 with the table's schema) becomes the version `header`
// describes: its fragments less `removed` (paths it lists), then `added`,
// in order; total_rows is recomputed. Returns the bytes of the new
// version's manifest, to be written at `path` (ManifestRelativePath of
// header.version): a link to a base `resolved` resolves from (the header
// note), or a checkpoint when a read would open more than
// `checkpoint_interval` files (1..kMaxManifestChainLength + 1; 1 writes
// only checkpoints) or more bytes than a checkpoint, or when there is no
// parent. InvalidArgument for a removal the parent does not list, a
// repeated path, or any invalid field; `resolved` is then unspecified.
absl::StatusOr<std::string> NextManifest(ResolvedManifest& resolved, const Manifest& header,
                                         const std::vector<std::string>& removed,
                                         std::vector<FragmentRef> added,
                                         uint32_t checkpoint_interval, const std::string& path);

// `resolved` becomes the version `header` describes, whose fragment list
// is `fragments`, whatever its parent listed: a full list (a checkpoint),
// to be written at `path`, whose bytes are returned (a rewrite that moves
// entries to new paths in place, which a link cannot express: a link adds
// what is not in its base at the end). InvalidArgument for a repeated path
// or any invalid field; `resolved` is then unspecified.
absl::StatusOr<std::string> NextFullManifest(ResolvedManifest& resolved, const Manifest& header,
                                             std::vector<FragmentRef> fragments,
                                             const std::string& path);

// `resolved` (a version of the table in `table_dir`, resolved) becomes
// version `version` (its file `manifest_path`, a version any writer
// committed after it) by reading only the links of `version`'s walk above
// the newest version both walks pass, when every change between them adds
// fragments and removes none: the list at that version is a prefix of
// `resolved`'s, and each link read appends its additions. Each link read
// is checked against its base as a full read checks it; the versions
// below are trusted as `resolved` holds them. Returns false, with
// `resolved` unspecified, when it cannot: a removal, a format 3 link or a
// full list on the way, or any read or check that fails. The caller then
// resolves afresh (ManifestChainReader), which fails closed as the header
// says. This is how a writer builds on a version another process appended
// without reading the table's whole list.
bool AdvanceByAppends(io::FileSystem& fs, const std::string& table_dir, ResolvedManifest& resolved,
                      uint64_t version, const std::string& manifest_path);

// Resolves the versions of one table directory. Its first call resolves
// in place (one list in memory); from the second on it keeps the last
// version resolved and the bases its walk passed (at most
// kMaxManifestChainLength + 1 lists), so resolving the next version (as a
// collector walking versions in ascending order does) reads one file.
//
// Not thread-safe: one reader per thread.
class ManifestChainReader {
 public:
  ManifestChainReader(io::FileSystem& fs, std::string table_dir)
      : fs_(fs), table_dir_(std::move(table_dir)) {}

  // The manifest of `version`, whose file is `manifest_path` (relative, as
  // the registry records it). DataLoss as the header says; another code
  // for a storage failure. The result stays valid until the next call.
  absl::StatusOr<const ResolvedManifest*> Resolve(uint64_t version,
                                                  const std::string& manifest_path);
  // The last version resolved, handed over (nullopt when none).
  std::optional<ResolvedManifest> TakeLast();

 private:
  io::FileSystem& fs_;
  const std::string table_dir_;
  // The last version resolved (back) and the bases its walk passed, from
  // its full list (front) up: each level the base of the next.
  std::vector<ResolvedManifest> levels_;
};

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_MANIFEST_CHAIN_H_
