// Manifest chains (engine/table/manifest_chain.h): a version's manifest is a
// link to a base version's (the one at chain position p - lowbit(p)),
// holding only the changes since it, with a full checkpoint now and then; a
// read resolves a version by walking back to the nearest full list and
// fails closed on any broken link.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/sha256.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/manifest_format.h"
#include "io/file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::table {
namespace {

const std::string kSha(64, 'a');

FragmentRef Fragment(int i, uint64_t rows = 1) {
  return FragmentRef{absl::StrCat("data/f", i, ".frag"), rows, 100, kSha};
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// A table directory whose versions a test commits one by one, as the
// table store does (NextManifest on the newest version, resolved).
struct ChainDir {
  testing::TempDir dir;
  io::FileSystem* fs = *io::DefaultFileSystem();
  ResolvedManifest head;
  uint32_t interval = kMaxManifestChainLength + 1;

  ChainDir() {
    std::filesystem::create_directories(dir.path() + "/" + std::string(kTableVersionsDir));
    head.manifest.table_id = 7;
    head.manifest.schema = Schema{{{"x", ColumnType::kInt64}}};
  }

  std::string PathOf(uint64_t version) const {
    return dir.path() + "/" + ManifestRelativePath(version);
  }

  // Commits the next version; returns its manifest's bytes.
  std::string Commit(const std::vector<std::string>& removed, std::vector<FragmentRef> added) {
    Manifest header;
    header.table_id = 7;
    header.version = head.manifest.version + 1;
    header.parent_version = head.manifest.version;
    header.schema = head.manifest.schema;
    header.reference_delta_path = absl::StrCat("_lake/object_refs/", header.version, ".refs");
    header.reference_delta_sha256 = kSha;
    header.created_unix_micros = 1700000000000000 + static_cast<int64_t>(header.version);
    absl::StatusOr<std::string> bytes = NextManifest(head, header, removed, std::move(added),
                                                     interval, ManifestRelativePath(header.version));
    LAKE_REQUIRE_OK(bytes);
    WriteBytes(PathOf(header.version), *bytes);
    return *bytes;
  }

  // Version 1 with `n` fragments, then one version per fragment in `more`.
  void Grow(int n, int more) {
    std::vector<FragmentRef> first;
    for (int i = 0; i < n; ++i) first.push_back(Fragment(i));
    Commit({}, first);
    for (int i = 0; i < more; ++i) Commit({}, {Fragment(n + i)});
  }

  bool IsLink(uint64_t version) const {
    absl::StatusOr<ManifestFile> file = DecodeManifestFile(ReadBytes(PathOf(version)));
    LAKE_REQUIRE_OK(file);
    return std::holds_alternative<ManifestLink>(*file);
  }

  ManifestLink LinkOf(uint64_t version) const {
    absl::StatusOr<ManifestFile> file = DecodeManifestFile(ReadBytes(PathOf(version)));
    LAKE_REQUIRE_OK(file);
    REQUIRE(std::holds_alternative<ManifestLink>(*file));
    return std::get<ManifestLink>(*file);
  }

  std::vector<std::string> ChainFiles(uint64_t version) const {
    ManifestChainReader reader(*fs, dir.path());
    absl::StatusOr<const ResolvedManifest*> resolved =
        reader.Resolve(version, ManifestRelativePath(version));
    LAKE_REQUIRE_OK(resolved);
    return (*resolved)->chain_files;
  }

  absl::StatusOr<Manifest> Resolve(uint64_t version) const {
    ManifestChainReader reader(*fs, dir.path());
    absl::StatusOr<const ResolvedManifest*> resolved =
        reader.Resolve(version, ManifestRelativePath(version));
    if (!resolved.ok()) return resolved.status();
    return (*resolved)->manifest;
  }
};

std::vector<std::string> Paths(const Manifest& m) {
  std::vector<std::string> paths;
  for (const FragmentRef& f : m.fragments) paths.push_back(f.path);
  return paths;
}

bool Contains(const absl::Status& status, std::string_view text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

TEST_CASE("manifest chain: a link resolves to its base's fragments with its changes applied") {
  ChainDir chain;
  chain.Grow(20, 4);  // versions 1..5
  REQUIRE(!chain.IsLink(1));
  for (uint64_t v = 2; v <= 5; ++v) CHECK(chain.IsLink(v));
  for (uint64_t v = 1; v <= 5; ++v) {
    CAPTURE(v);
    absl::StatusOr<Manifest> m = chain.Resolve(v);
    LAKE_REQUIRE_OK(m);
    CHECK(m->version == v);
    CHECK(m->fragments.size() == 19 + v);
    CHECK(m->total_rows == 19 + v);
    CHECK(m->fragments.back().path == Fragment(18 + static_cast<int>(v)).path);
  }
  CHECK(*chain.Resolve(5) == chain.head.manifest);  // as the writer resolved it
}

TEST_CASE("manifest chain: a removed entry leaves the list; a replaced one keeps its place") {
  ChainDir chain;
  chain.Grow(20, 1);  // versions 1, 2
  chain.Commit({Fragment(3).path, Fragment(5).path}, {Fragment(3, 9)});  // version 3
  REQUIRE(chain.IsLink(3));
  absl::StatusOr<Manifest> m = chain.Resolve(3);
  LAKE_REQUIRE_OK(m);
  CHECK(m->fragments.size() == 20);
  CHECK(m->fragments[3] == Fragment(3, 9));  // removed and added under its path: in place
  CHECK(m->total_rows == 19 + 9);
  std::vector<std::string> paths = Paths(*m);
  CHECK(std::find(paths.begin(), paths.end(), Fragment(5).path) == paths.end());
}

TEST_CASE("manifest chain: a link's size is what its version adds, not the table's") {
  ChainDir small;
  small.Grow(50, 0);
  std::string small_link = small.Commit({}, {Fragment(1000)});
  ChainDir large;
  large.Grow(5000, 0);
  std::string large_link = large.Commit({}, {Fragment(1000000)});
  REQUIRE(small.IsLink(2));
  REQUIRE(large.IsLink(2));
  // The same bytes but for the fragment name's digits.
  CHECK(large_link.size() == small_link.size() + 3);
}

TEST_CASE("manifest chain: a link's base is the version at chain position p - lowbit(p)") {
  ChainDir chain;
  chain.Grow(40, 15);  // versions 1..16 at positions 0..15
  for (uint64_t v = 2; v <= 16; ++v) {
    CAPTURE(v);
    ManifestLink link = chain.LinkOf(v);
    const uint64_t p = v - 1;
    CHECK(link.chain_position == p);
    CHECK(link.base_version == p - (p & -p) + 1);
    CHECK(link.header.parent_version == v - 1);
    CHECK(link.added.size() == (p & -p));  // every fragment since its base
  }
  // Version 15 (position 14 = 0b1110) reads from 13 (12), 9 (8) and 1 (0).
  CHECK(chain.ChainFiles(15) ==
        std::vector<std::string>{ManifestRelativePath(15), ManifestRelativePath(13),
                                 ManifestRelativePath(9), ManifestRelativePath(1)});
}

TEST_CASE("manifest chain: a checkpoint is written once a read would open more files than its interval") {
  ChainDir chain;
  chain.interval = 3;
  chain.Grow(40, 8);  // versions 1..9; version 8 is at position 7 (3 links and a full list)
  std::vector<bool> links;
  for (uint64_t v = 1; v <= 9; ++v) links.push_back(chain.IsLink(v));
  CHECK(links == std::vector<bool>{false, true, true, true, true, true, true, false, true});
  CHECK(chain.ChainFiles(7) == std::vector<std::string>{ManifestRelativePath(7), ManifestRelativePath(5),
                                                        ManifestRelativePath(1)});
}

TEST_CASE("manifest chain: a version resolves from its chain files alone") {
  ChainDir chain;
  chain.Grow(40, 14);  // versions 1..15
  const std::vector<std::string> files = chain.ChainFiles(15);
  REQUIRE(files.size() == 4);
  for (uint64_t v = 1; v <= 15; ++v) {
    std::string path = ManifestRelativePath(v);
    if (std::find(files.begin(), files.end(), path) == files.end()) {
      std::filesystem::remove(chain.PathOf(v));
    }
  }
  absl::StatusOr<Manifest> m = chain.Resolve(15);
  LAKE_REQUIRE_OK(m);
  CHECK(*m == chain.head.manifest);
}

TEST_CASE("manifest chain: a change that would read more than a full list is written as a checkpoint") {
  ChainDir chain;
  chain.Grow(40, 2);  // versions 1..3
  std::vector<std::string> all = Paths(chain.head.manifest);
  chain.Commit(all, {Fragment(999, 42)});  // version 4: a compaction
  CHECK(!chain.IsLink(4));
  absl::StatusOr<Manifest> m = chain.Resolve(4);
  LAKE_REQUIRE_OK(m);
  CHECK(m->fragments == std::vector<FragmentRef>{Fragment(999, 42)});
  // A small table's version is a checkpoint too: its list is shorter than a link.
  ChainDir tiny;
  tiny.Grow(1, 1);
  CHECK(!tiny.IsLink(2));
}

TEST_CASE("manifest chain: a removal the parent does not list is refused by the writer") {
  ChainDir chain;
  chain.Grow(5, 0);
  Manifest header = chain.head.manifest;
  header.version = 2;
  header.parent_version = 1;
  header.fragments.clear();
  absl::StatusOr<std::string> bytes =
      NextManifest(chain.head, header, {"data/nope.frag"}, {}, 64, ManifestRelativePath(2));
  CHECK(absl::IsInvalidArgument(bytes.status()));
}

TEST_CASE("manifest chain: a base whose bytes changed since a link named it is refused") {
  ChainDir chain;
  chain.Grow(20, 3);  // versions 1..4; 4 links to 3, 3 to 1
  // Version 3 written again, valid but not the bytes version 4 names.
  ChainDir other;
  other.Grow(20, 1);
  other.Commit({}, {Fragment(21, 5)});
  REQUIRE(ReadBytes(other.PathOf(3)) != ReadBytes(chain.PathOf(3)));
  WriteBytes(chain.PathOf(3), ReadBytes(other.PathOf(3)));
  absl::Status status = chain.Resolve(4).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "does not match the digest its link names"));
  LAKE_CHECK_OK(chain.Resolve(2).status());
}

TEST_CASE("manifest chain: a missing base is refused") {
  ChainDir chain;
  chain.Grow(20, 3);
  std::filesystem::remove(chain.PathOf(3));
  absl::Status status = chain.Resolve(4).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "is missing"));
}

TEST_CASE("manifest chain: a base's file holding another version (a loop, a move) is refused") {
  ChainDir chain;
  chain.Grow(20, 3);
  WriteBytes(chain.PathOf(3), ReadBytes(chain.PathOf(4)));  // version 4's base "is" 4
  absl::Status status = chain.Resolve(4).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "holds version 4, not 3"));
}

TEST_CASE("manifest chain: damage to any file a read opens fails the read closed") {
  ChainDir chain;
  chain.Grow(40, 14);  // version 15 reads 15, 13, 9 and 1
  const std::vector<std::string> files = chain.ChainFiles(15);
  REQUIRE(files.size() == 4);
  for (const std::string& file : files) {
    CAPTURE(file);
    const std::string path = chain.dir.path() + "/" + file;
    const std::string intact = ReadBytes(path);
    for (size_t at : {size_t{20}, intact.size() / 2, intact.size() - 1}) {
      std::string damaged = intact;
      damaged[at] = static_cast<char>(damaged[at] ^ 0x40);
      WriteBytes(path, damaged);
      CHECK(absl::IsDataLoss(chain.Resolve(15).status()));
    }
    WriteBytes(path, intact.substr(0, intact.size() - 1));
    CHECK(absl::IsDataLoss(chain.Resolve(15).status()));
    WriteBytes(path, intact);
  }
  LAKE_CHECK_OK(chain.Resolve(15).status());
}

// Version 3 of `chain` (position 2, base version 1) written again as a link
// whose fields `change` alters; its base digest is still version 1's.
absl::Status ResolveAltered(ChainDir& chain, void (*change)(ManifestLink&)) {
  absl::StatusOr<ManifestFile> file = DecodeManifestFile(ReadBytes(chain.PathOf(3)));
  LAKE_REQUIRE_OK(file);
  ManifestLink link = std::get<ManifestLink>(*file);
  change(link);
  absl::StatusOr<std::string> bytes = EncodeManifestLink(link);
  LAKE_REQUIRE_OK(bytes);
  WriteBytes(chain.PathOf(3), *bytes);
  return chain.Resolve(3).status();
}

TEST_CASE("manifest chain: a link that does not follow from its base is refused") {
  auto refused = [](void (*change)(ManifestLink&), std::string_view text) {
    ChainDir chain;
    chain.Grow(20, 2);  // versions 1..3
    absl::Status status = ResolveAltered(chain, change);
    CHECK_MESSAGE(absl::IsDataLoss(status), status.ToString());
    CHECK_MESSAGE(Contains(status, text), status.ToString());
  };
  refused([](ManifestLink& l) { l.chain_position = 5; }, "do not follow from its base's");
  refused([](ManifestLink& l) { l.chain_position = 3; }, "do not follow from its base's");
  refused([](ManifestLink& l) { l.chain_bytes += 1; }, "do not follow from its base's");
  refused(
      [](ManifestLink& l) {
        l.base_version = 2;
        l.base_manifest_path = ManifestRelativePath(2);
      },
      "does not match the digest");
  // Version 3's base is version 1's full list: a path to another manifest
  // is refused by the version that file holds.
  refused([](ManifestLink& l) { l.base_manifest_path = ManifestRelativePath(2); },
          "holds version 2, not 1");
  refused([](ManifestLink& l) { l.removed = {"data/nope.frag"}; }, "not listed by the parent");
  refused([](ManifestLink& l) { l.added.back() = Fragment(0); }, "listed twice");
  refused([](ManifestLink& l) { l.header.total_rows += 1; }, "total_rows");
  refused([](ManifestLink& l) { l.header.table_id = 8; }, "another table");
  refused([](ManifestLink& l) { l.base_manifest_sha256 = std::string(64, 'b'); },
          "does not match the digest");
  refused([](ManifestLink& l) { l.header.schema.columns[0].name = "y"; }, "schema");
}

TEST_CASE("manifest chain: resolving versions in ascending order reads each link once") {
  ChainDir chain;
  chain.Grow(20, 16);  // versions 1..17
  ManifestChainReader reader(*chain.fs, chain.dir.path());
  LAKE_REQUIRE_OK(reader.Resolve(1, ManifestRelativePath(1)).status());
  LAKE_REQUIRE_OK(reader.Resolve(2, ManifestRelativePath(2)).status());
  // Each later version is read alone: its base is one the reader passed.
  for (uint64_t v = 3; v <= 17; ++v) {
    CAPTURE(v);
    std::filesystem::rename(chain.PathOf(v - 1), chain.PathOf(v - 1) + ".away");
    absl::StatusOr<const ResolvedManifest*> read = reader.Resolve(v, ManifestRelativePath(v));
    LAKE_REQUIRE_OK(read);
    CHECK((*read)->manifest.fragments.size() == 19 + v);
  }
  // A fresh reader walks back (17 to its base, 1).
  std::filesystem::rename(chain.PathOf(1), chain.PathOf(1) + ".away");
  CHECK(absl::IsDataLoss(chain.Resolve(17).status()));
}

TEST_CASE("manifest chain: a link to a format 1 or 2 full list resolves") {
  ChainDir chain;
  chain.Grow(20, 0);
  Manifest v1 = chain.head.manifest;
  v1.format_version = kManifestFormatVersionV1;
  absl::StatusOr<std::string> old = EncodeManifest(v1);
  LAKE_REQUIRE_OK(old);
  WriteBytes(chain.PathOf(1), *old);
  chain.head = ResolveFullList(v1, *old, ManifestRelativePath(1));
  chain.Commit({}, {Fragment(20)});
  REQUIRE(chain.IsLink(2));
  absl::StatusOr<Manifest> m = chain.Resolve(2);
  LAKE_REQUIRE_OK(m);
  CHECK(m->fragments.size() == 21);
  CHECK(m->format_version == kManifestFormatVersion);
}

// The total size of the manifest files of versions 1..n of `chain`.
uint64_t ManifestBytes(const ChainDir& chain, uint64_t n) {
  uint64_t bytes = 0;
  for (uint64_t v = 1; v <= n; ++v) bytes += std::filesystem::file_size(chain.PathOf(v));
  return bytes;
}

TEST_CASE("manifest chain: n single-fragment appends write O(n log n) bytes of manifests") {
  constexpr uint64_t kAppends = 4096;
  ChainDir chain;
  chain.Grow(1, kAppends);  // versions 1..4097
  const uint64_t versions = kAppends + 1;
  const uint64_t total = ManifestBytes(chain, versions);
  // One entry here is 67 bytes, a link's header and digest about 200. A
  // link at position p holds lowbit(p) entries, lowbit summing to about
  // n/2 log2 n + n over n positions; with a checkpoint every 64 versions
  // (format 3) the same appends wrote about n^2/128 entries: 8.8 MB.
  const uint64_t entry = 67;
  const uint64_t bound = entry * (kAppends / 2 * 12 + kAppends) + 300 * kAppends +
                         /* checkpoints while the list is short */ 64 * 1024;
  CHECK(total < bound);
  CHECK(bound < entry * kAppends * kAppends / 128);
  // A read of the newest version still opens at most log2(n) + 2 files.
  CHECK(chain.ChainFiles(versions).size() <= 14);
  absl::StatusOr<Manifest> newest = chain.Resolve(versions);
  LAKE_REQUIRE_OK(newest);
  CHECK(newest->fragments.size() == kAppends + 1);
}

TEST_CASE("manifest chain: a version's own manifest holds what changed since its base, not the table") {
  ChainDir chain;
  chain.Grow(1, 1024);
  // Beyond the first checkpoints, every manifest is a link of lowbit(p) entries.
  for (uint64_t v = 513; v <= 1025; ++v) {
    CAPTURE(v);
    ManifestLink link = chain.LinkOf(v);
    CHECK(link.added.size() == ManifestChainLowBit(link.chain_position));
    CHECK(link.removed.empty());
  }
}

// A table's fragment list kept by hand: what every version must resolve to.
struct ModelTable {
  std::vector<FragmentRef> fragments;
  int next_name = 0;
};

TEST_CASE("manifest chain: reads resolve the right list after appends, deletes and compactions") {
  std::mt19937_64 random(22);
  ChainDir chain;
  ModelTable model;
  std::vector<std::vector<FragmentRef>> expected = {{}};  // by version
  for (int i = 0; i < 30; ++i) model.fragments.push_back(Fragment(model.next_name++));
  chain.Commit({}, model.fragments);
  expected.push_back(model.fragments);
  for (int step = 0; step < 400; ++step) {
    std::vector<std::string> removed;
    std::vector<FragmentRef> added;
    const uint64_t roll = random() % 100;
    if (roll < 70 || model.fragments.empty()) {  // an append of 1..3 fragments
      for (uint64_t n = 1 + random() % 3; n > 0; --n) {
        added.push_back(Fragment(model.next_name++, 1 + random() % 5));
      }
      for (const FragmentRef& f : added) model.fragments.push_back(f);
    } else if (roll < 90) {  // a DELETE: fragments given fewer rows, in place
      for (uint64_t n = 1 + random() % 3; n > 0; --n) {
        FragmentRef& f = model.fragments[random() % model.fragments.size()];
        if (std::find(removed.begin(), removed.end(), f.path) != removed.end()) continue;
        removed.push_back(f.path);
        f.size_bytes += 1;  // another entry under the same path
        added.push_back(f);
      }
    } else if (roll < 97) {  // a fragment dropped
      size_t at = random() % model.fragments.size();
      removed.push_back(model.fragments[at].path);
      model.fragments.erase(model.fragments.begin() + static_cast<std::ptrdiff_t>(at));
    } else {  // a compaction
      for (const FragmentRef& f : model.fragments) removed.push_back(f.path);
      model.fragments = {Fragment(model.next_name++, 7)};
      added = model.fragments;
    }
    chain.Commit(removed, added);
    expected.push_back(model.fragments);
    REQUIRE(chain.head.manifest.fragments == model.fragments);
  }
  const uint64_t versions = expected.size() - 1;
  size_t links = 0;
  for (uint64_t v = 1; v <= versions; ++v) links += chain.IsLink(v) ? 1 : 0;
  CHECK(links > versions / 2);
  // A fresh read of each version, and one reader in ascending order.
  ManifestChainReader ascending(*chain.fs, chain.dir.path());
  for (uint64_t v = 1; v <= versions; ++v) {
    CAPTURE(v);
    absl::StatusOr<Manifest> fresh = chain.Resolve(v);
    LAKE_REQUIRE_OK(fresh);
    CHECK(fresh->fragments == expected[v]);
    absl::StatusOr<const ResolvedManifest*> read = ascending.Resolve(v, ManifestRelativePath(v));
    LAKE_REQUIRE_OK(read);
    CHECK((*read)->manifest.fragments == expected[v]);
  }
}

TEST_CASE("manifest chain: a path removed and later added again is written as a checkpoint") {
  ChainDir chain;
  chain.Grow(20, 1);                          // versions 1, 2 (position 1)
  chain.Commit({Fragment(5).path}, {});       // version 3 (position 2, base 1)
  chain.Commit({}, {Fragment(5, 3)});         // version 4 (position 3, base 3)
  chain.Commit({}, {Fragment(40)});           // version 5: position 4 would hold all since 1
  CHECK(chain.IsLink(4));
  CHECK(!chain.IsLink(5));
  for (uint64_t v : {4, 5}) {
    absl::StatusOr<Manifest> m = chain.Resolve(v);
    LAKE_REQUIRE_OK(m);
    CHECK(m->fragments[20] == Fragment(5, 3));  // at the end, where it was added again
  }
}

// Version `version` of `chain`'s table written as a format 3 link to the
// previous one (as lake before format 4 wrote it), with `added` appended.
void WriteFormat3Link(ChainDir& chain, uint32_t chain_length, std::vector<FragmentRef> added) {
  ManifestLink link;
  link.header = chain.head.manifest;
  link.header.format_version = kManifestFormatVersionV3;
  link.header.version = chain.head.manifest.version + 1;
  link.header.parent_version = chain.head.manifest.version;
  link.header.fragments.clear();
  link.header.total_rows = chain.head.manifest.total_rows + added.size();
  link.base_version = link.header.parent_version;
  link.base_manifest_sha256 = chain.head.file_sha256;
  link.chain_position = chain_length;
  link.chain_bytes = chain_length == 1 ? 0 : chain.head.chain_bytes + chain.head.file_bytes;
  link.added = added;
  absl::StatusOr<std::string> bytes = EncodeManifestLink(link);
  LAKE_REQUIRE_OK(bytes);
  WriteBytes(chain.PathOf(link.header.version), *bytes);
  ManifestChainReader reader(*chain.fs, chain.dir.path());
  LAKE_REQUIRE_OK(reader.Resolve(link.header.version, ManifestRelativePath(link.header.version)));
  chain.head = *reader.TakeLast();
}

// Versions 1 (a format 3 checkpoint) and 2..3 (format 3 links).
void GrowFormat3(ChainDir& chain) {
  Manifest v1 = chain.head.manifest;
  v1.format_version = kManifestFormatVersionV3;
  v1.version = 1;
  v1.reference_delta_path = "_lake/object_refs/1.refs";
  v1.reference_delta_sha256 = kSha;
  for (int i = 0; i < 20; ++i) v1.fragments.push_back(Fragment(i));
  v1.total_rows = 20;
  absl::StatusOr<std::string> bytes = EncodeManifest(v1);
  LAKE_REQUIRE_OK(bytes);
  WriteBytes(chain.PathOf(1), *bytes);
  chain.head = ResolveFullList(v1, *bytes, ManifestRelativePath(1));
  WriteFormat3Link(chain, 1, {Fragment(20)});
  WriteFormat3Link(chain, 2, {Fragment(21)});
}

TEST_CASE("manifest chain: a format 3 chain stays readable; the next version is a format 4 checkpoint") {
  ChainDir chain;
  GrowFormat3(chain);
  absl::StatusOr<Manifest> v3 = chain.Resolve(3);
  LAKE_REQUIRE_OK(v3);
  CHECK(v3->fragments.size() == 22);
  CHECK(v3->format_version == kManifestFormatVersionV3);
  chain.Commit({}, {Fragment(22)});  // version 4
  CHECK(!chain.IsLink(4));
  chain.Commit({}, {Fragment(23)});  // version 5
  CHECK(chain.LinkOf(5).header.format_version == kManifestFormatVersion);
  absl::StatusOr<Manifest> v5 = chain.Resolve(5);
  LAKE_REQUIRE_OK(v5);
  CHECK(v5->fragments.size() == 24);
}

TEST_CASE("manifest chain: a format 4 link whose base is a format 3 link is refused") {
  ChainDir chain;
  GrowFormat3(chain);  // version 3 is a format 3 link at position 2
  ManifestLink link;
  link.header = chain.head.manifest;
  link.header.format_version = kManifestFormatVersionV4;
  link.header.version = 4;
  link.header.parent_version = 3;
  link.header.fragments.clear();
  link.header.total_rows = 23;
  link.base_version = 3;
  link.base_manifest_sha256 = chain.head.file_sha256;
  link.chain_position = 3;  // base position 2
  link.chain_bytes = chain.head.chain_bytes + chain.head.file_bytes;
  link.added = {Fragment(22)};
  absl::StatusOr<std::string> bytes = EncodeManifestLink(link);
  LAKE_REQUIRE_OK(bytes);
  WriteBytes(chain.PathOf(4), *bytes);
  absl::Status status = chain.Resolve(4).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "a format 4 link cannot follow a format 3 link"));
}

// Version `v` of `chain` as a fresh read resolves it.
ResolvedManifest FreshlyResolved(const ChainDir& chain, uint64_t v) {
  ManifestChainReader reader(*chain.fs, chain.dir.path());
  absl::StatusOr<const ResolvedManifest*> resolved = reader.Resolve(v, ManifestRelativePath(v));
  LAKE_REQUIRE_OK(resolved);
  return *reader.TakeLast();
}

// The bytes of the version after `resolved` that a writer would write.
std::string NextAfter(ResolvedManifest resolved, int fragment) {
  Manifest header;
  header.table_id = resolved.manifest.table_id;
  header.version = resolved.manifest.version + 1;
  header.parent_version = resolved.manifest.version;
  header.schema = resolved.manifest.schema;
  header.reference_delta_path = "_lake/object_refs/next.refs";
  header.reference_delta_sha256 = kSha;
  absl::StatusOr<std::string> bytes =
      NextManifest(resolved, header, {}, {Fragment(fragment)}, kMaxManifestChainLength + 1,
                   ManifestRelativePath(header.version));
  LAKE_REQUIRE_OK(bytes);
  return *bytes;
}

// Version `from` of `chain`, advanced to `to`.
bool Advance(const ChainDir& chain, uint64_t from, uint64_t to) {
  ResolvedManifest resolved = FreshlyResolved(chain, from);
  return AdvanceByAppends(*chain.fs, chain.dir.path(), resolved, to, ManifestRelativePath(to));
}

TEST_CASE("manifest chain: an older version advanced by appends is the newer one as read afresh") {
  ChainDir chain;
  chain.Grow(30, 39);  // versions 1..40, each after the first one fragment more
  for (uint64_t from = 1; from <= 40; ++from) {
    for (uint64_t to = from; to <= 40; ++to) {
      CAPTURE(from);
      CAPTURE(to);
      ResolvedManifest advanced = FreshlyResolved(chain, from);
      REQUIRE(
          AdvanceByAppends(*chain.fs, chain.dir.path(), advanced, to, ManifestRelativePath(to)));
      const ResolvedManifest fresh = FreshlyResolved(chain, to);
      CHECK(advanced == fresh);
      // What a writer builds on it is what it would build on a fresh read.
      CHECK(NextAfter(advanced, 1000) == NextAfter(fresh, 1000));
    }
  }
}

TEST_CASE("manifest chain: an advance across a version that removes fragments declines") {
  ChainDir chain;
  chain.Grow(10, 5);                                                  // versions 1..6
  chain.Commit({Fragment(3).path}, {});                               // version 7
  for (int i = 0; i < 5; ++i) chain.Commit({}, {Fragment(100 + i)});  // versions 8..12
  CHECK(!Advance(chain, 6, 7));
  CHECK(!Advance(chain, 2, 12));
  // Past the removal, on lists that hold it, an advance is a fresh read.
  size_t advanced_past = 0;
  for (uint64_t from = 7; from <= 12; ++from) {
    for (uint64_t to = from; to <= 12; ++to) {
      ResolvedManifest advanced = FreshlyResolved(chain, from);
      if (!AdvanceByAppends(*chain.fs, chain.dir.path(), advanced, to, ManifestRelativePath(to))) {
        continue;
      }
      ++advanced_past;
      CHECK(advanced == FreshlyResolved(chain, to));
    }
  }
  CHECK(advanced_past > 6);
}

TEST_CASE("manifest chain: an advance declines at a full list on the way") {
  ChainDir chain;
  chain.interval = 3;
  chain.Grow(40, 8);  // versions 1..9; version 8 is a full list
  CHECK(Advance(chain, 2, 7));
  CHECK(!Advance(chain, 7, 8));
  CHECK(!Advance(chain, 5, 9));
  CHECK(Advance(chain, 8, 9));
}

TEST_CASE("manifest chain: an advance declines when a link on its way is damaged or missing") {
  ChainDir chain;
  chain.Grow(20, 11);  // versions 1..12; 12 links to 11, 11 to 9
  const std::string path = chain.PathOf(11);
  const std::string intact = ReadBytes(path);
  std::string damaged = intact;
  damaged[intact.size() / 2] = static_cast<char>(damaged[intact.size() / 2] ^ 0x40);
  WriteBytes(path, damaged);
  CHECK(!Advance(chain, 9, 12));
  CHECK(absl::IsDataLoss(chain.Resolve(12).status()));  // what the caller reads afresh
  std::filesystem::remove(path);
  CHECK(!Advance(chain, 9, 12));
  WriteBytes(path, intact);
  CHECK(Advance(chain, 9, 12));
}

TEST_CASE("manifest chain: an advance declines when a base's bytes are not those its link names") {
  ChainDir chain;
  chain.Grow(20, 3);  // versions 1..4; 4 links to 3, 3 to 1
  ChainDir other;
  other.Grow(20, 1);
  other.Commit({}, {Fragment(50)});  // as many rows as version 3's own
  ResolvedManifest resolved = FreshlyResolved(chain, 2);
  // Version 3 written again, valid, holding as many rows, but not the
  // bytes version 4 names. The advance from 2 reads 4 and 3 down to
  // version 1, which 2's walk passes.
  WriteBytes(chain.PathOf(3), ReadBytes(other.PathOf(3)));
  CHECK(!AdvanceByAppends(*chain.fs, chain.dir.path(), resolved, 4, ManifestRelativePath(4)));
}

TEST_CASE("manifest chain: an advance to a version read from another path declines") {
  ChainDir chain;
  chain.Grow(20, 4);  // versions 1..5
  ResolvedManifest resolved = FreshlyResolved(chain, 3);
  CHECK(
      !AdvanceByAppends(*chain.fs, chain.dir.path(), resolved, 5, "_versions/elsewhere.manifest"));
}

}  // namespace
}  // namespace lake::table
