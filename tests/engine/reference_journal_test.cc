// A table's reference journal (engine/table/reference_journal.h): one
// delta file per version, written durably, and the fail-closed walk of the
// lineage the registry records.
#include "engine/table/reference_journal.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/sample_batch.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::table {
namespace {

DataLocation Location(int i) {
  absl::StatusOr<DataLocation> location =
      MakeDataLocation(absl::StrCat("file:///stage/objects/", i), "video/mp4",
                       static_cast<uint64_t>(i), absl::StrFormat("%064x", i));
  REQUIRE_MESSAGE(location.ok(), location.status().ToString());
  return *location;
}

std::vector<DataLocation> Locations(int first, int count) {
  std::vector<DataLocation> out;
  for (int i = first; i < first + count; ++i) out.push_back(Location(i));
  CanonicalizeReferences(&out);
  return out;
}

bool Contains(const absl::Status& status, std::string_view text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

// A table directory with three versions: 1 appends references 0..2, 2
// appends 3..4, 3 is a compaction (adds nothing).
struct JournalFixture {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string table_dir = dir.Join("t");
  std::vector<LineageEdge> edges;

  JournalFixture() {
    Write(ReferenceDelta{7, 0, 1, Locations(0, 3), {}});
    Write(ReferenceDelta{7, 1, 2, Locations(3, 2), {}});
    Write(ReferenceDelta{7, 2, 3, {}, {}});
  }
  void Write(const ReferenceDelta& delta) {
    absl::StatusOr<std::string> digest = WriteReferenceDelta(fs, table_dir, delta);
    REQUIRE_MESSAGE(digest.ok(), digest.status().ToString());
    edges.push_back(LineageEdge{delta.parent_version, delta.child_version, *digest});
  }
  std::string PathOf(uint64_t version) const {
    return absl::StrCat(table_dir, "/", ReferenceDeltaRelativePath(version));
  }
  // Every version's references, or the walk's error.
  absl::StatusOr<std::map<uint64_t, std::vector<DataLocation>>> Enumerate(
      const std::vector<LineageEdge>& walk) {
    std::map<uint64_t, std::vector<DataLocation>> seen;
    absl::Status status = EnumerateReferences(
        fs, table_dir, walk, [&](uint64_t version, const std::vector<DataLocation>& chunk) {
          seen[version].insert(seen[version].end(), chunk.begin(), chunk.end());
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
    return seen;
  }
};

TEST_CASE("reference deltas are written per version and enumerated along the lineage") {
  JournalFixture f;
  CHECK(ReferenceDeltaRelativePath(3) == "_lake/object_refs/00000000000000000003.refs");
  std::vector<std::string> files = testing::FilesUnder(f.table_dir);
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"_lake/object_refs/00000000000000000001.refs",
                                          "_lake/object_refs/00000000000000000002.refs",
                                          "_lake/object_refs/00000000000000000003.refs"});
  CHECK(f.edges[0].delta_sha256 ==
        EncodeReferenceDelta(ReferenceDelta{7, 0, 1, Locations(0, 3), {}})->digest);
  absl::StatusOr<std::map<uint64_t, std::vector<DataLocation>>> seen = f.Enumerate(f.edges);
  LAKE_REQUIRE_OK(seen);
  CHECK(seen->size() == 2);  // the compaction adds nothing, so it is never visited
  CHECK((*seen)[1] == Locations(0, 3));
  CHECK((*seen)[2] == Locations(3, 2));
  // A retained lineage may start after version 1.
  absl::StatusOr<std::map<uint64_t, std::vector<DataLocation>>> tail =
      f.Enumerate({f.edges[1], f.edges[2]});
  LAKE_REQUIRE_OK(tail);
  CHECK(tail->size() == 1);
  CHECK((*tail)[2] == Locations(3, 2));
  LAKE_CHECK_OK(f.Enumerate({}));
}

TEST_CASE("a delta is built from appended batches and written") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  ColumnBatch batch = testing::SampleBatch(0, 9);
  absl::StatusOr<ReferenceDelta> delta =
      BuildReferenceDelta(1, 0, 1, testing::SampleSchema(), {batch});
  LAKE_REQUIRE_OK(delta);
  absl::StatusOr<std::string> digest = WriteReferenceDelta(fs, dir.path(), *delta);
  LAKE_REQUIRE_OK(digest);
  std::vector<DataLocation> seen;
  LAKE_REQUIRE_OK(EnumerateReferences(fs, dir.path(), {LineageEdge{0, 1, *digest}},
                                      [&](uint64_t, const std::vector<DataLocation>& chunk) {
                                        seen.insert(seen.end(), chunk.begin(), chunk.end());
                                        return absl::OkStatus();
                                      }));
  CHECK(seen.size() == 6);  // rows 0..8 without the null video rows 2, 5, 8
  CHECK(seen == delta->added);
}

TEST_CASE("a large delta reaches the visitor one chunk at a time") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  ReferenceDelta delta{
      1, 4, 5, Locations(0, static_cast<int>(kReferenceDeltaChunkEntries) + 10), {}};
  absl::StatusOr<std::string> digest = WriteReferenceDelta(fs, dir.path(), delta);
  LAKE_REQUIRE_OK(digest);
  std::vector<size_t> chunks;
  LAKE_REQUIRE_OK(
      EnumerateReferences(fs, dir.path(), {LineageEdge{4, 5, *digest}},
                          [&](uint64_t version, const std::vector<DataLocation>& chunk) {
                            CHECK(version == 5);
                            chunks.push_back(chunk.size());
                            return absl::OkStatus();
                          }));
  CHECK(chunks == std::vector<size_t>{4096, 10});
}

TEST_CASE("a missing delta fails the walk naming its version") {
  JournalFixture f;
  std::filesystem::remove(f.PathOf(2));
  absl::Status status = f.Enumerate(f.edges).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "version 2"));
  CHECK(Contains(status, "missing"));
}

TEST_CASE("a corrupted byte anywhere in a delta fails the walk naming its version") {
  JournalFixture f;
  std::vector<uint8_t> original = testing::ReadFile(f.PathOf(1));
  for (size_t i = 0; i < original.size(); ++i) {
    CAPTURE(i);
    std::vector<uint8_t> damaged = original;
    damaged[i] ^= 0x20;
    std::filesystem::remove(f.PathOf(1));
    testing::WriteFile(f.PathOf(1), damaged);
    absl::Status status = f.Enumerate(f.edges).status();
    CHECK(absl::IsDataLoss(status));
    CHECK(Contains(status, "version 1"));
  }
}

TEST_CASE("a truncated or extended delta fails the walk") {
  JournalFixture f;
  std::vector<uint8_t> original = testing::ReadFile(f.PathOf(2));
  std::vector<uint8_t> shorter(original.begin(), original.end() - 1);
  std::filesystem::remove(f.PathOf(2));
  testing::WriteFile(f.PathOf(2), shorter);
  absl::Status cut = f.Enumerate(f.edges).status();
  CHECK(absl::IsDataLoss(cut));
  CHECK(Contains(cut, "version 2"));
  std::vector<uint8_t> longer = original;
  longer.push_back(0);
  std::filesystem::remove(f.PathOf(2));
  testing::WriteFile(f.PathOf(2), longer);
  absl::Status extended = f.Enumerate(f.edges).status();
  CHECK(absl::IsDataLoss(extended));
  CHECK(Contains(extended, "bytes follow"));
}

TEST_CASE("a delta whose digest is not the registry's fails the walk") {
  JournalFixture f;
  std::vector<LineageEdge> edges = f.edges;
  edges[1].delta_sha256 = edges[0].delta_sha256;
  absl::Status status = f.Enumerate(edges).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "version 2"));
  CHECK(Contains(status, "not the registry's"));
  // A delta swapped for another valid delta of the same edge is caught the same way.
  std::filesystem::remove(f.PathOf(2));
  absl::StatusOr<std::string> other =
      WriteReferenceDelta(f.fs, f.table_dir, ReferenceDelta{7, 1, 2, Locations(100, 1), {}});
  LAKE_REQUIRE_OK(other);
  CHECK(absl::IsDataLoss(f.Enumerate(f.edges).status()));
}

TEST_CASE("a non-monotonic or broken lineage fails before any delta is read") {
  JournalFixture f;
  const std::vector<LineageEdge>& e = f.edges;
  struct Case {
    std::vector<LineageEdge> edges;
    std::string_view text;
  };
  std::vector<Case> cases = {
      {{e[0], e[2]}, "version 3: its parent 2 is not the previous version 1"},  // a gap
      {{e[1], e[0]}, "version 1: its parent 0 is not the previous version 2"},  // out of order
      {{e[0], e[0]}, "version 1: its parent 0 is not the previous version 1"},  // repeated
      {{LineageEdge{2, 2, e[1].delta_sha256}}, "version 2: its parent 2 is not before it"},
      {{e[0], LineageEdge{1, 0, e[1].delta_sha256}}, "version 0: its parent 1 is not before it"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.text));
    int visits = 0;
    absl::Status status = EnumerateReferences(f.fs, f.table_dir, c.edges,
                                              [&](uint64_t, const std::vector<DataLocation>&) {
                                                ++visits;
                                                return absl::OkStatus();
                                              });
    CHECK(absl::IsDataLoss(status));
    CHECK_MESSAGE(Contains(status, c.text), status.ToString());
    CHECK(visits == 0);
  }
}

TEST_CASE("a delta holding another edge or another table fails the walk") {
  JournalFixture f;
  // The registry says 0 -> 2, the file holds 1 -> 2.
  absl::Status edge = f.Enumerate({LineageEdge{0, 2, f.edges[1].delta_sha256}}).status();
  CHECK(absl::IsDataLoss(edge));
  CHECK(Contains(edge, "holds the edge 1 -> 2, not 0 -> 2"));
  // Version 4 written for table 8 after table 7's versions.
  f.Write(ReferenceDelta{8, 3, 4, Locations(9, 1), {}});
  absl::Status table = f.Enumerate(f.edges).status();
  CHECK(absl::IsDataLoss(table));
  CHECK(Contains(table, "belongs to table 8, not 7"));
}

TEST_CASE("a visitor's error stops the walk and is returned") {
  JournalFixture f;
  int visits = 0;
  absl::Status status = EnumerateReferences(f.fs, f.table_dir, f.edges,
                                            [&](uint64_t, const std::vector<DataLocation>&) {
                                              ++visits;
                                              return absl::CancelledError("enough");
                                            });
  CHECK(absl::IsCancelled(status));
  CHECK(visits == 1);
}

TEST_CASE("a delta with removals is written and read back with them") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  ReferenceDelta delta{1, 0, 1, Locations(0, 2), Locations(5, 1)};
  LAKE_REQUIRE_OK(WriteReferenceDelta(fs, dir.path(), delta));
  std::vector<uint8_t> bytes =
      testing::ReadFile(dir.path() + "/" + ReferenceDeltaRelativePath(1));
  absl::StatusOr<ReferenceDelta> back = DecodeReferenceDelta(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  LAKE_REQUIRE_OK(back);
  CHECK(*back == delta);
}

TEST_CASE("writing a version's delta again is idempotent, a different one is refused") {
  JournalFixture f;
  absl::StatusOr<std::string> again =
      WriteReferenceDelta(f.fs, f.table_dir, ReferenceDelta{7, 1, 2, Locations(3, 2), {}});
  LAKE_REQUIRE_OK(again);
  CHECK(*again == f.edges[1].delta_sha256);
  ReferenceDelta different{7, 1, 2, Locations(3, 3), {}};
  CHECK(absl::IsAlreadyExists(WriteReferenceDelta(f.fs, f.table_dir, different).status()));
  CHECK(testing::FilesUnder(f.table_dir).size() == 3);  // no temporary left behind
  LAKE_REQUIRE_OK(RemoveUncommittedReferenceDelta(f.fs, f.table_dir, 2));
  LAKE_CHECK_OK(RemoveUncommittedReferenceDelta(f.fs, f.table_dir, 2));  // absent is fine
  absl::StatusOr<std::string> replaced = WriteReferenceDelta(f.fs, f.table_dir, different);
  LAKE_REQUIRE_OK(replaced);
  CHECK(*replaced == EncodeReferenceDelta(different)->digest);
}

TEST_CASE("a written delta survives a power loss") {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.Join("backups"));
  io::PosixFileSystem base;
  std::string table_dir = dir.Join("t");
  std::filesystem::create_directory(table_dir);
  ReferenceDelta delta{3, 0, 1, Locations(0, 4), {}};
  std::string digest;
  {
    testing::FaultInjectionFileSystem fs(base, dir.Join("backups"));
    absl::StatusOr<std::string> written = WriteReferenceDelta(fs, table_dir, delta);
    LAKE_REQUIRE_OK(written);
    digest = *written;
    fs.Crash();
  }
  std::vector<DataLocation> seen;
  LAKE_REQUIRE_OK(EnumerateReferences(base, table_dir, {LineageEdge{0, 1, digest}},
                                      [&](uint64_t, const std::vector<DataLocation>& chunk) {
                                        seen.insert(seen.end(), chunk.begin(), chunk.end());
                                        return absl::OkStatus();
                                      }));
  CHECK(seen == delta.added);
}

}  // namespace
}  // namespace lake::table
