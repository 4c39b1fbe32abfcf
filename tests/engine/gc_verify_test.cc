// Scrubbing a root (engine/gc/live_verifier.h): every referenced object is
// checked to exist with its size (--deep: its SHA-256 too), and every
// problem names what references the object.
#include <doctest/doctest.h>

#include <filesystem>

#include "engine/gc/live_verifier.h"
#include "engine/table/table_log_format.h"
#include "tests/support/gc_fixture.h"
#include "tests/support/status_checks.h"

namespace lake::gc {
namespace {

using testing::GcTestRoot;

absl::StatusOr<VerifySummary> Verify(GcTestRoot& root, bool deep,
                                     std::vector<VerifyProblem>* problems) {
  VerifyOptions options;
  options.deep = deep;
  options.memory_budget = uint64_t{16} << 20;
  return VerifyLiveIndex(root.View(), options, [&](const VerifyProblem& p) {
    problems->push_back(p);
    return absl::OkStatus();
  });
}

TEST_CASE("gc verify: a sound root has no problems") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  root.InsertLocation("ns.t", "a", root.Put());
  root.InsertLocation("ns.t", "b", root.Put());
  root.Put();  // an orphan is nobody's problem
  for (bool deep : {false, true}) {
    std::vector<VerifyProblem> problems;
    absl::StatusOr<VerifySummary> summary = Verify(root, deep, &problems);
    LAKE_REQUIRE_OK(summary);
    CHECK(problems.empty());
    CHECK(summary->objects_checked == 2);
    CHECK(summary->table_files_checked > 0);
    CHECK(summary->bytes_verified == (deep ? 200u : 0u));
  }
}

TEST_CASE("gc verify: a DELETE's deletion vectors count as their table log segment, found") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  LAKE_REQUIRE_OK(root.tables().Insert(
      "INSERT INTO ns.t (id, f) VALUES (?, ?), (?, ?)",
      {table::CellValue{std::string("a")}, table::CellValue{root.Put()},
       table::CellValue{std::string("b")}, table::CellValue{root.Put()}}));
  LAKE_REQUIRE_OK(root.tables().Delete("DELETE FROM ns.t WHERE id = ?",
                                       {table::CellValue{std::string("a")}}));
  REQUIRE(std::filesystem::exists(root.root_dir() + "/tables/ns/t/_log"));
  std::vector<VerifyProblem> problems;
  absl::StatusOr<VerifySummary> summary = Verify(root, false, &problems);
  LAKE_REQUIRE_OK(summary);
  CHECK(problems.empty());
}

TEST_CASE("gc verify: a missing object is reported with every table version naming it") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  root.CreateTable("ns.u");
  DataLocation shared = root.Put();
  root.InsertLocation("ns.t", "a", shared);
  root.InsertLocation("ns.u", "b", root.Put());
  root.InsertLocation("ns.u", "c", shared);
  std::filesystem::remove(testing::PathOfFileUri(shared.uri));
  std::vector<VerifyProblem> problems;
  absl::StatusOr<VerifySummary> summary = Verify(root, false, &problems);
  LAKE_REQUIRE_OK(summary);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].kind == VerifyProblem::Kind::kMissing);
  CHECK(problems[0].uri == shared.uri);
  CHECK(problems[0].referrers ==
        std::vector<std::string>{"table ns.t version 1", "table ns.u version 2"});
}

TEST_CASE("gc verify: --deep finds a damaged object of the right size; the plain check does not") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  DataLocation damaged = root.Put(1000);
  root.InsertLocation("ns.t", "a", damaged);
  std::string path = testing::PathOfFileUri(damaged.uri);
  std::vector<uint8_t> bytes = testing::ReadFile(path);
  bytes[500] ^= 1;
  std::filesystem::permissions(path, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  testing::WriteFile(path, bytes);
  std::vector<VerifyProblem> plain;
  LAKE_REQUIRE_OK(Verify(root, false, &plain));
  CHECK(plain.empty());
  std::vector<VerifyProblem> deep;
  LAKE_REQUIRE_OK(Verify(root, true, &deep));
  REQUIRE(deep.size() == 1);
  CHECK(deep[0].kind == VerifyProblem::Kind::kDigestMismatch);
  CHECK(deep[0].referrers == std::vector<std::string>{"table ns.t version 1"});
}

TEST_CASE("gc verify, versions as files: a short object and a missing fragment file are reported") {
  testing::ScopedVersionsAsFiles as_files;
  GcTestRoot root;
  root.CreateTable("ns.t");
  DataLocation cut = root.Put(1000);
  root.InsertLocation("ns.t", "a", cut);
  std::filesystem::resize_file(testing::PathOfFileUri(cut.uri), 10);
  for (const auto& e : std::filesystem::directory_iterator(root.root_dir() + "/tables/ns/t/data")) {
    std::filesystem::remove(e.path());
  }
  std::vector<VerifyProblem> problems;
  LAKE_REQUIRE_OK(Verify(root, false, &problems));
  REQUIRE(problems.size() == 2);
  bool short_found = false, fragment_found = false;
  for (const VerifyProblem& p : problems) {
    if (p.uri == cut.uri) {
      short_found = p.kind == VerifyProblem::Kind::kSizeShort && p.observed_size == 10;
    } else {
      fragment_found = p.kind == VerifyProblem::Kind::kMissing &&
                       p.uri.find("/tables/ns/t/data/") != std::string::npos;
    }
  }
  CHECK(short_found);
  CHECK(fragment_found);
}

// A fragment record of the table log: its address, and where its payload lies.
struct FragmentRecord {
  std::string path;
  testing::TablePathBytes bytes;
};

// ns.t in the table log holding one row whose object is `object`:
// version 1, its fragment a record of segment 1, from which the version's
// reference delta derives (derived_reference_delta_format.h).
FragmentRecord OneRowInTheTableLog(GcTestRoot& root, const DataLocation& object) {
  root.CreateTable("ns.t");
  root.InsertLocation("ns.t", "a", object);
  std::string path = testing::ManifestOf(root.tables(), "ns.t", 1).fragments.at(0).path;
  REQUIRE(table::IsTableLogPath(path));
  return {path, testing::LocateTablePath(root.root_dir() + "/tables/ns/t", path)};
}

// ns.t in the table log whose version 3, a compaction of two one-row
// appends (the first row's object `object`), holds both rows in one
// fragment record: one that no reference delta derives from (a
// compaction's delta adds nothing), so damage to it leaves every
// version's references readable.
FragmentRecord CompactedRowsInTheTableLog(GcTestRoot& root, const DataLocation& object) {
  root.CreateTable("ns.t");
  root.InsertLocation("ns.t", "a", object);
  root.InsertLocation("ns.t", "b", root.Put());
  absl::StatusOr<std::optional<table::AppendOutcome>> compacted =
      root.tables().tables->Compact(*table::ParseTableName("ns.t"));
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  REQUIRE((*compacted)->version == 3);
  std::string path = testing::ManifestOf(root.tables(), "ns.t", 3).fragments.at(0).path;
  REQUIRE(table::IsTableLogPath(path));
  return {path, testing::LocateTablePath(root.root_dir() + "/tables/ns/t", path)};
}

// Whether `p` reports the compacted fragment record `fragment_path` of
// ns.t as `kind`, named by its address and with the version naming it.
bool ReportsFragmentRecord(const VerifyProblem& p, VerifyProblem::Kind kind,
                           const std::string& fragment_path) {
  return p.kind == kind && p.uri.find("/tables/ns/t/" + fragment_path) != std::string::npos &&
         p.referrers == std::vector<std::string>{"table ns.t version 3 (a table file)"};
}

TEST_CASE("gc verify, versions in the table log: a short object and a damaged fragment record are reported") {
  testing::ScopedVersionsInTableLog in_log;
  GcTestRoot root;
  DataLocation cut = root.Put(1000);
  FragmentRecord fragment = CompactedRowsInTheTableLog(root, cut);
  std::filesystem::resize_file(testing::PathOfFileUri(cut.uri), 10);
  testing::DamageTableByte(fragment.bytes, static_cast<std::streamoff>(fragment.bytes.size / 2),
                           std::ios::beg);
  std::vector<VerifyProblem> problems;
  LAKE_REQUIRE_OK(Verify(root, false, &problems));
  REQUIRE(problems.size() == 2);
  bool short_found = false, fragment_found = false;
  for (const VerifyProblem& p : problems) {
    CAPTURE(p.uri);
    CAPTURE(p.message);
    if (p.uri == cut.uri) {
      short_found = p.kind == VerifyProblem::Kind::kSizeShort && p.observed_size == 10;
    } else {
      fragment_found = ReportsFragmentRecord(p, VerifyProblem::Kind::kUnreadable, fragment.path);
    }
  }
  CHECK(short_found);
  CHECK(fragment_found);
}

TEST_CASE("gc verify, versions in the table log: plain and --deep alike report a fragment record whose header is damaged") {
  testing::ScopedVersionsInTableLog in_log;
  for (bool deep : {false, true}) {
    CAPTURE(deep);
    GcTestRoot root;
    FragmentRecord fragment = CompactedRowsInTheTableLog(root, root.Put());
    // The record's magic, the first byte of its header.
    testing::DamageTableByte(fragment.bytes,
                             -static_cast<std::streamoff>(table::kTableLogRecordHeaderBytes),
                             std::ios::beg);
    std::vector<VerifyProblem> problems;
    LAKE_REQUIRE_OK(Verify(root, deep, &problems));
    REQUIRE(problems.size() == 1);
    CAPTURE(problems[0].message);
    CHECK(ReportsFragmentRecord(problems[0], VerifyProblem::Kind::kUnreadable, fragment.path));
  }
}

TEST_CASE("gc verify, versions in the table log: a damaged fragment an append's delta derives from fails the verify closed, naming its record") {
  testing::ScopedVersionsInTableLog in_log;
  GcTestRoot root;
  FragmentRecord fragment = OneRowInTheTableLog(root, root.Put());
  testing::DamageTableByte(fragment.bytes, static_cast<std::streamoff>(fragment.bytes.size / 2),
                           std::ios::beg);
  // The version's references cannot be known: nothing is taken as
  // unreferenced, and the record is named.
  std::vector<VerifyProblem> problems;
  absl::StatusOr<VerifySummary> summary = Verify(root, false, &problems);
  CHECK(absl::IsDataLoss(summary.status()));
  CHECK(std::string(summary.status().message()).find("table ns.t") != std::string::npos);
  CHECK(std::string(summary.status().message()).find("version 1") != std::string::npos);
  CHECK(std::string(summary.status().message()).find("checksum") != std::string::npos);
}

TEST_CASE("gc verify, versions in the table log: a removed or cut segment fails the verify closed, naming the table") {
  testing::ScopedVersionsInTableLog in_log;
  for (bool removed : {true, false}) {
    CAPTURE(removed);
    GcTestRoot root;
    FragmentRecord fragment = OneRowInTheTableLog(root, root.Put());
    // The version's manifest record comes after its fragment's: cutting
    // the segment inside the fragment takes the manifest too.
    if (removed) {
      REQUIRE(std::filesystem::remove(fragment.bytes.file));
    } else {
      std::filesystem::resize_file(fragment.bytes.file,
                                   fragment.bytes.offset + fragment.bytes.size / 2);
    }
    std::vector<VerifyProblem> problems;
    absl::StatusOr<VerifySummary> summary = Verify(root, false, &problems);
    CHECK(absl::IsDataLoss(summary.status()));
    CHECK(std::string(summary.status().message()).find("table ns.t") != std::string::npos);
  }
}

}  // namespace
}  // namespace lake::gc
