// Manifest chains (engine/table/manifest_chain.h): a version's manifest is a
// link to its parent's, holding only what the version changed, with a full
// checkpoint now and then; a read resolves a version by walking back to the
// nearest full list and fails closed on any broken link.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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

TEST_CASE("manifest chain: a link resolves to its parent's fragments with its changes applied") {
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

TEST_CASE("manifest chain: a removed entry leaves the list; a replaced one is removed and added under its path") {
  ChainDir chain;
  chain.Grow(20, 1);  // versions 1, 2
  chain.Commit({Fragment(3).path, Fragment(5).path}, {Fragment(3, 9)});  // version 3
  REQUIRE(chain.IsLink(3));
  absl::StatusOr<Manifest> m = chain.Resolve(3);
  LAKE_REQUIRE_OK(m);
  CHECK(m->fragments.size() == 20);
  CHECK(m->fragments.back() == Fragment(3, 9));
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

TEST_CASE("manifest chain: a checkpoint is written once the chain would reach its interval") {
  ChainDir chain;
  chain.interval = 4;
  chain.Grow(40, 8);  // versions 1..9
  std::vector<bool> links;
  for (uint64_t v = 1; v <= 9; ++v) links.push_back(chain.IsLink(v));
  CHECK(links == std::vector<bool>{false, true, true, true, false, true, true, true, false});
  ManifestChainReader reader(*chain.fs, chain.dir.path());
  absl::StatusOr<const ResolvedManifest*> v8 = reader.Resolve(8, ManifestRelativePath(8));
  LAKE_REQUIRE_OK(v8);
  CHECK((*v8)->chain_files == std::vector<std::string>{ManifestRelativePath(8), ManifestRelativePath(7),
                                                       ManifestRelativePath(6), ManifestRelativePath(5)});
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

TEST_CASE("manifest chain: a parent whose bytes changed since its child linked to it is refused") {
  ChainDir chain;
  chain.Grow(20, 3);  // versions 1..4, 2..4 links
  // Version 2 written again, valid but not the bytes version 3 names.
  ChainDir other;
  other.Grow(20, 0);
  other.Commit({}, {Fragment(20, 5)});
  REQUIRE(ReadBytes(other.PathOf(2)) != ReadBytes(chain.PathOf(2)));
  WriteBytes(chain.PathOf(2), ReadBytes(other.PathOf(2)));
  absl::Status status = chain.Resolve(4).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "does not match the digest its child names"));
  LAKE_CHECK_OK(chain.Resolve(1).status());
}

TEST_CASE("manifest chain: a missing parent is refused") {
  ChainDir chain;
  chain.Grow(20, 3);
  std::filesystem::remove(chain.PathOf(2));
  absl::Status status = chain.Resolve(4).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "is missing"));
}

TEST_CASE("manifest chain: a parent's file holding another version (a loop, a move) is refused") {
  ChainDir chain;
  chain.Grow(20, 3);
  WriteBytes(chain.PathOf(2), ReadBytes(chain.PathOf(4)));  // version 3's parent "is" 4
  absl::Status status = chain.Resolve(3).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "holds version 4, not 2"));
}

// Version 3 of `chain` written again as a link whose fields `change` alters;
// its parent digest is still version 2's.
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

TEST_CASE("manifest chain: a link that does not follow from its parent is refused") {
  auto refused = [](void (*change)(ManifestLink&), std::string_view text) {
    ChainDir chain;
    chain.Grow(20, 2);  // versions 1..3
    absl::Status status = ResolveAltered(chain, change);
    CHECK_MESSAGE(absl::IsDataLoss(status), status.ToString());
    CHECK_MESSAGE(Contains(status, text), status.ToString());
  };
  refused([](ManifestLink& l) { l.chain_length = 5; }, "do not follow from its parent's");
  refused([](ManifestLink& l) { l.chain_bytes += 1; }, "do not follow from its parent's");
  refused([](ManifestLink& l) { l.removed = {"data/nope.frag"}; }, "not listed by the parent");
  refused([](ManifestLink& l) { l.added = {Fragment(0)}; }, "listed twice");
  refused([](ManifestLink& l) { l.header.total_rows += 1; }, "total_rows");
  refused([](ManifestLink& l) { l.header.table_id = 8; }, "another table");
  refused([](ManifestLink& l) { l.header.schema.columns[0].name = "y"; }, "schema");
}

TEST_CASE("manifest chain: resolving versions in ascending order reads each link once") {
  ChainDir chain;
  chain.Grow(20, 5);  // versions 1..6
  ManifestChainReader reader(*chain.fs, chain.dir.path());
  LAKE_REQUIRE_OK(reader.Resolve(4, ManifestRelativePath(4)).status());
  // What version 4 resolved from is no longer read: version 5 builds on it.
  for (uint64_t v = 1; v <= 4; ++v) std::filesystem::remove(chain.PathOf(v));
  absl::StatusOr<const ResolvedManifest*> v5 = reader.Resolve(5, ManifestRelativePath(5));
  LAKE_REQUIRE_OK(v5);
  CHECK((*v5)->manifest.fragments.size() == 24);
  CHECK((*v5)->chain_files.size() == 5);  // 5, 4, 3, 2 and the full list of 1
  CHECK(absl::IsDataLoss(chain.Resolve(6).status()));  // a fresh reader walks back
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

}  // namespace
}  // namespace lake::table
