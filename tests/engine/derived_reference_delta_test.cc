// An append's reference delta derived from its fragment record (reference
// delta formats 4 and 3, engine/table/derived_reference_delta_format.h):
// its bytes, what writes one and what does not, the registry's digest of
// each, and the lineage read through it.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "engine/table/derived_reference_delta_format.h"
#include "engine/table/reference_delta_format.h"
#include "engine/table/table_log.h"
#include "engine/table/table_log_format.h"
#include "engine/table/table_store.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/episodes_table.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake::table {
namespace {

using testing::TableRoot;

constexpr char kTable[] = "robots.episodes";

const DerivedReferenceDelta kDelta{4, 7, 2, 3, 4096, 50000};

TEST_CASE("derived reference delta: its bytes are the golden bytes of delta format version 4") {
  absl::StatusOr<std::string> bytes = EncodeDerivedReferenceDelta(kDelta);
  LAKE_REQUIRE_OK(bytes);
  CHECK(absl::BytesToHexString(*bytes) ==
        "4c414b4552454653" "04000000" "00000000" "0700000000000000" "0200000000000000"
        "0300000000000000" "0010000000000000" "50c3000000000000");
  CHECK(IsDerivedReferenceDelta(*bytes));
  absl::StatusOr<DerivedReferenceDelta> decoded = DecodeDerivedReferenceDelta(*bytes);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == kDelta);
}

TEST_CASE("derived reference delta: the golden bytes of format version 3 still decode") {
  std::string bytes = absl::HexStringToBytes(
      "4c414b4552454653" "03000000" "00000000" "0700000000000000" "0200000000000000"
      "0300000000000000" "0010000000000000" "50c3000000000000");
  CHECK(IsDerivedReferenceDelta(bytes));
  absl::StatusOr<DerivedReferenceDelta> decoded = DecodeDerivedReferenceDelta(bytes);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == DerivedReferenceDelta{3, 7, 2, 3, 4096, 50000});
  CHECK(*EncodeDerivedReferenceDelta(*decoded) == bytes);
}

TEST_CASE("derived reference delta: bytes of another length, version or shape are refused as damage") {
  std::string bytes = *EncodeDerivedReferenceDelta(kDelta);
  CHECK(absl::IsDataLoss(DecodeDerivedReferenceDelta(bytes.substr(0, 55)).status()));
  CHECK(absl::IsDataLoss(DecodeDerivedReferenceDelta(bytes + '\0').status()));
  auto with = [&](size_t at, char value) {
    std::string changed = bytes;
    changed[at] = value;
    return DecodeDerivedReferenceDelta(changed).status();
  };
  CHECK(absl::IsDataLoss(with(0, 'X')));  // not a delta's magic
  CHECK(absl::IsDataLoss(with(8, 2)));    // format version 2
  CHECK(absl::IsDataLoss(with(8, 5)));    // format version 5
  CHECK(absl::IsDataLoss(with(13, 1)));   // a reserved byte
  CHECK(absl::IsDataLoss(with(16, 0)));   // table id 0
  CHECK(absl::IsDataLoss(with(32, 2)));   // child version 2, not past its parent
  std::string no_fragment = bytes;
  std::fill(no_fragment.begin() + 48, no_fragment.end(), '\0');
  CHECK(absl::IsDataLoss(DecodeDerivedReferenceDelta(no_fragment).status()));
}

TEST_CASE("derived reference delta: a reader of whole deltas refuses one as damage, not as an empty delta") {
  std::string bytes = *EncodeDerivedReferenceDelta(kDelta);
  // (Its header's checksum field holds the fragment's size: the header
  // fails its checksum, or, where checksums are not compared, its format.)
  CHECK(absl::IsDataLoss(DecodeReferenceDelta(bytes).status()));
}

TEST_CASE("derived reference delta: what cannot be read back is not encoded") {
  CHECK(absl::IsInvalidArgument(EncodeDerivedReferenceDelta({4, 0, 2, 3, 4096, 1}).status()));
  CHECK(absl::IsInvalidArgument(EncodeDerivedReferenceDelta({4, 7, 3, 3, 4096, 1}).status()));
  CHECK(absl::IsInvalidArgument(EncodeDerivedReferenceDelta({4, 7, 2, 3, 4096, 0}).status()));
  CHECK(absl::IsInvalidArgument(EncodeDerivedReferenceDelta({2, 7, 2, 3, 4096, 1}).status()));
  CHECK(absl::IsInvalidArgument(EncodeDerivedReferenceDelta({5, 7, 2, 3, 4096, 1}).status()));
}

// robots.episodes in the table log with e1..e6 in versions 1 and 2.
// Appends write derived deltas of `format` for its lifetime.
class ScopedDerivedDeltaFormat {
 public:
  explicit ScopedDerivedDeltaFormat(uint32_t format)
      : was_(testing::DefaultTableStoreOptions().derived_delta_format) {
    testing::DefaultTableStoreOptions().derived_delta_format = format;
  }
  ~ScopedDerivedDeltaFormat() { testing::DefaultTableStoreOptions().derived_delta_format = was_; }
  ScopedDerivedDeltaFormat(const ScopedDerivedDeltaFormat&) = delete;
  ScopedDerivedDeltaFormat& operator=(const ScopedDerivedDeltaFormat&) = delete;

 private:
  uint32_t was_;
};

struct DerivedFixture {
  testing::ScopedVersionsInTableLog in_log;
  testing::TempDir dir;
  io::PosixFileSystem posix;
  std::string root_dir = dir.Join("root");
  std::string table_dir = root_dir + "/tables/robots/episodes";
  std::unique_ptr<TableRoot> root;
  std::vector<DataLocation> videos;

  DerivedFixture() : root(testing::OpenTableRootOrStop(posix, root_dir)) {
    absl::StatusOr<std::vector<DataLocation>> created = testing::CreateSixEpisodes(*root);
    LAKE_REQUIRE_OK(created);
    videos = *std::move(created);
  }
  // On the root `existing_root`, whose table is there already.
  explicit DerivedFixture(const std::string& existing_root)
      : root_dir(existing_root),
        table_dir(existing_root + "/tables/robots/episodes"),
        root(testing::OpenTableRootOrStop(posix, existing_root)) {}
  // Whether the delta record version `version`'s manifest names is a
  // derived one (it is a reference delta record either way).
  bool DeltaIsDerived(uint64_t version) { return DerivedRecord(version).has_value(); }
  // The derived delta version `version`'s manifest names, if it is one.
  std::optional<DerivedReferenceDelta> DerivedRecord(uint64_t version) {
    std::string path = testing::ManifestOf(*root, kTable, version).reference_delta_path;
    REQUIRE(IsTableLogPath(path));
    absl::StatusOr<TableLogRecordRead> record =
        ReadTableLogRecord(posix, table_dir, path, kMaxTableLogPayloadBytes);
    LAKE_REQUIRE_OK(record);
    REQUIRE(record->kind == TableLogRecordKind::kReferenceDelta);
    if (!IsDerivedReferenceDelta(record->payload)) return std::nullopt;
    absl::StatusOr<DerivedReferenceDelta> derived = DecodeDerivedReferenceDelta(record->payload);
    LAKE_REQUIRE_OK(derived);
    return *derived;
  }
};

TEST_CASE("derived reference delta: an append's delta names its fragment, and its references read back") {
  DerivedFixture f;
  CHECK(f.DeltaIsDerived(1));
  CHECK(f.DeltaIsDerived(2));
  // The record names the fragment the version added, in its segment.
  Manifest v1 = testing::ManifestOf(*f.root, kTable, 1);
  absl::StatusOr<TableLogRecordRead> record =
      ReadTableLogRecord(f.posix, f.table_dir, v1.reference_delta_path, kMaxTableLogPayloadBytes);
  LAKE_REQUIRE_OK(record);
  absl::StatusOr<DerivedReferenceDelta> derived = DecodeDerivedReferenceDelta(record->payload);
  LAKE_REQUIRE_OK(derived);
  absl::StatusOr<TableLogAddress> fragment = ParseTableLogAddress(v1.fragments.at(0).path);
  LAKE_REQUIRE_OK(fragment);
  CHECK(derived->fragment_offset == fragment->offset);
  CHECK(derived->fragment_payload_bytes == fragment->payload_bytes);
  CHECK(derived->parent_version == 0);
  CHECK(derived->child_version == 1);
  // The lineage read through both: every video, checked against the
  // registry's digests.
  absl::StatusOr<std::vector<DataLocation>> references = f.root->CurrentReferences(kTable);
  LAKE_REQUIRE_OK(references);
  CHECK(testing::Uris(*references) == testing::Uris(f.videos));
}

TEST_CASE("derived reference delta: a DELETE and a compaction write their delta whole") {
  DerivedFixture f;
  absl::StatusOr<DeleteOutcome> deleted =
      f.root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{2}}});
  LAKE_REQUIRE_OK(deleted);
  CHECK(!f.DeltaIsDerived(deleted->version));
  absl::StatusOr<std::optional<AppendOutcome>> compacted =
      f.root->tables->Compact(*ParseTableName(kTable));
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK(!f.DeltaIsDerived((*compacted)->version));
  absl::StatusOr<std::vector<DataLocation>> references = f.root->CurrentReferences(kTable);
  LAKE_REQUIRE_OK(references);
  CHECK(references->size() == 5);
}

TEST_CASE("derived reference delta: a damaged fragment fails the lineage closed, naming the version") {
  DerivedFixture f;
  testing::TablePathBytes at = testing::LocateTablePath(
      f.table_dir, testing::ManifestOf(*f.root, kTable, 2).fragments.at(1).path);
  testing::DamageTableByte(at, static_cast<std::streamoff>(at.size / 2), std::ios::beg);
  absl::StatusOr<std::vector<DataLocation>> references = f.root->CurrentReferences(kTable);
  CHECK(absl::IsDataLoss(references.status()));
  CHECK(std::string(references.status().message()).find("version 2") != std::string::npos);
}


TEST_CASE("derived reference delta: an append's is format 4, the registry's digest its fragment's") {
  DerivedFixture f;
  for (uint64_t version : {1, 2}) {
    std::optional<DerivedReferenceDelta> derived = f.DerivedRecord(version);
    REQUIRE(derived.has_value());
    CHECK(derived->format_version == 4);
    Manifest manifest = testing::ManifestOf(*f.root, kTable, version);
    CHECK(manifest.reference_delta_sha256 == manifest.fragments.back().sha256);
  }
}

TEST_CASE("derived reference delta: a table written with format 3 reads on, and appends as format 4") {
  testing::ScopedVersionsInTableLog in_log;
  testing::TempDir dir;
  io::PosixFileSystem posix;
  const std::string root_dir = dir.Join("root");
  std::vector<DataLocation> videos;
  {
    ScopedDerivedDeltaFormat as_before(3);
    std::unique_ptr<TableRoot> root = testing::OpenTableRootOrStop(posix, root_dir);
    absl::StatusOr<std::vector<DataLocation>> created = testing::CreateSixEpisodes(*root);
    LAKE_REQUIRE_OK(created);
    videos = *std::move(created);
  }
  DerivedFixture f{root_dir};
  std::optional<DerivedReferenceDelta> old = f.DerivedRecord(2);
  REQUIRE(old.has_value());
  CHECK(old->format_version == 3);
  Manifest v2 = testing::ManifestOf(*f.root, kTable, 2);
  CHECK(v2.reference_delta_sha256 != v2.fragments.back().sha256);  // the delta's own
  std::vector<uint8_t> bytes = testing::RandomBytes(300, 7);
  testing::MemorySource source(bytes);
  LAKE_REQUIRE_OK(f.root->Insert("INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, ?, ?)",
                                 {CellValue{std::string("e7")}, CellValue{int64_t{7}},
                                  sql::FileFromSource{&source, "video/mp4"}}));
  std::optional<DerivedReferenceDelta> added = f.DerivedRecord(3);
  REQUIRE(added.has_value());
  CHECK(added->format_version == 4);
  absl::StatusOr<std::vector<DataLocation>> references = f.root->CurrentReferences(kTable);
  LAKE_REQUIRE_OK(references);
  CHECK(references->size() == 7);
  std::vector<std::string> got = testing::Uris(*references);
  for (const std::string& uri : testing::Uris(videos)) {
    CHECK(std::find(got.begin(), got.end(), uri) != got.end());
  }
}

TEST_CASE("derived reference delta: a format 4 delta naming another fragment fails closed") {
  DerivedFixture f;
  // Version 2's delta rewritten, whole and checksummed, to name version
  // 1's fragment: a record that passes every check of its own, whose
  // fragment is not the one the registry's digest names.
  Manifest v1 = testing::ManifestOf(*f.root, kTable, 1);
  Manifest v2 = testing::ManifestOf(*f.root, kTable, 2);
  absl::StatusOr<TableLogAddress> delta_at = ParseTableLogAddress(v2.reference_delta_path);
  absl::StatusOr<TableLogAddress> other = ParseTableLogAddress(v1.fragments.at(0).path);
  LAKE_REQUIRE_OK(delta_at);
  LAKE_REQUIRE_OK(other);
  REQUIRE(delta_at->segment == other->segment);
  std::optional<DerivedReferenceDelta> derived = f.DerivedRecord(2);
  REQUIRE(derived.has_value());
  derived->fragment_offset = other->offset;
  derived->fragment_payload_bytes = other->payload_bytes;
  absl::StatusOr<std::string> payload = EncodeDerivedReferenceDelta(*derived);
  LAKE_REQUIRE_OK(payload);
  std::string record;
  AppendTableLogRecord(delta_at->segment,
                       TableLogRecord{TableLogRecordKind::kReferenceDelta, 2, *payload}, &record);
  {
    std::fstream segment(f.table_dir + "/" + TableLogSegmentRelativePath(delta_at->segment),
                         std::ios::in | std::ios::out | std::ios::binary);
    segment.seekp(static_cast<std::streamoff>(delta_at->offset));
    segment.write(record.data(), static_cast<std::streamsize>(record.size()));
    REQUIRE(segment.good());
  }
  absl::StatusOr<std::vector<DataLocation>> references = f.root->CurrentReferences(kTable);
  CHECK(absl::IsDataLoss(references.status()));
  CHECK(std::string(references.status().message()).find("version 2") != std::string::npos);
  CHECK(std::string(references.status().message()).find("registry") != std::string::npos);
}

}  // namespace
}  // namespace lake::table
