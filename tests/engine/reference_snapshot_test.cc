// The reference snapshot format (engine/table/reference_snapshot_format.h):
// it round-trips, its layout is the one its note describes, and every
// damage is refused (DataLoss) — readers fail closed; and a lineage walk
// from a snapshot (reference_journal.h).
#include "engine/table/reference_snapshot_format.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/table/byte_codec.h"
#include "engine/table/reference_journal.h"
#include "io/posix/posix_file_system.h"
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

ReferenceSnapshot Sample(int count) {
  ReferenceSnapshot snapshot{7, 12, {}};
  // Out of order and duplicated: the encoder canonicalizes.
  for (int i = count; i >= 1; --i) snapshot.references.push_back(Location(i));
  if (count > 0) snapshot.references.push_back(Location(1));
  return snapshot;
}

TEST_CASE("a reference snapshot round-trips, canonical, with its delta's digest") {
  for (int count : {0, 1, 3, 5000}) {
    CAPTURE(count);
    absl::StatusOr<EncodedReferenceSnapshot> encoded = EncodeReferenceSnapshot(Sample(count));
    LAKE_REQUIRE_OK(encoded);
    std::string digest;
    absl::StatusOr<ReferenceSnapshot> decoded = DecodeReferenceSnapshot(encoded->bytes, &digest);
    LAKE_REQUIRE_OK(decoded);
    ReferenceSnapshot expected = Sample(count);
    CanonicalizeReferences(&expected.references);
    CHECK(*decoded == expected);
    CHECK(digest == encoded->digest);
    // The digest is the delta 0 -> version's: a pure function of the content.
    absl::StatusOr<EncodedReferenceDelta> delta =
        EncodeReferenceDelta(ReferenceDelta{7, 0, 12, expected.references, {}});
    LAKE_REQUIRE_OK(delta);
    CHECK(encoded->digest == delta->digest);
    CHECK(encoded->bytes.substr(kReferenceSnapshotHeaderBytes) == delta->bytes);
  }
}

TEST_CASE("a reference snapshot's header is laid out as its note says") {
  absl::StatusOr<EncodedReferenceSnapshot> encoded = EncodeReferenceSnapshot(Sample(2));
  LAKE_REQUIRE_OK(encoded);
  const std::string& b = encoded->bytes;
  CHECK(b.substr(0, 8) == "LAKESNAP");
  // u32 format version 1, u64 table id 7, u64 version 12, u64 delta bytes,
  // then the XXH3-64 of those 36 bytes.
  CHECK(absl::BytesToHexString(b.substr(8, 20)) ==
        "01000000" "0700000000000000" "0c00000000000000");
  std::string delta_bytes;
  ByteWriter(&delta_bytes).U64(b.size() - kReferenceSnapshotHeaderBytes);
  CHECK(b.substr(28, 8) == delta_bytes);
  std::string checksum;
  ByteWriter(&checksum).U64(Checksum64(b.substr(0, 36)));
  CHECK(b.substr(36, 8) == checksum);
  absl::StatusOr<ReferenceSnapshotHeader> header = DecodeReferenceSnapshotHeader(b);
  LAKE_REQUIRE_OK(header);
  CHECK(header->table_id == 7);
  CHECK(header->version == 12);
  CHECK(header->delta_bytes == b.size() - kReferenceSnapshotHeaderBytes);
}

TEST_CASE("every truncation, extension and byte change of a reference snapshot is DataLoss") {
  absl::StatusOr<EncodedReferenceSnapshot> encoded = EncodeReferenceSnapshot(Sample(3));
  LAKE_REQUIRE_OK(encoded);
  const std::string& good = encoded->bytes;
  for (size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    CHECK(absl::IsDataLoss(DecodeReferenceSnapshot(good.substr(0, n)).status()));
  }
  CHECK(absl::IsDataLoss(DecodeReferenceSnapshot(good + "x").status()));
  for (size_t i = 0; i < good.size(); ++i) {
    CAPTURE(i);
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    CHECK(absl::IsDataLoss(DecodeReferenceSnapshot(bad).status()));
  }
}

TEST_CASE("a reference snapshot of an unknown format version, or whose delta is another's, is DataLoss") {
  absl::StatusOr<EncodedReferenceSnapshot> encoded = EncodeReferenceSnapshot(Sample(2));
  LAKE_REQUIRE_OK(encoded);
  // Format version 2, with a header checksum that matches.
  std::string v2 = encoded->bytes;
  v2[8] = 2;
  std::string header = v2.substr(0, kReferenceSnapshotHeaderBytes - 8);
  std::string rest = v2.substr(kReferenceSnapshotHeaderBytes);
  std::string rebuilt = header;
  ByteWriter(&rebuilt).U64(Checksum64(header));
  absl::Status refused = DecodeReferenceSnapshot(rebuilt + rest).status();
  CHECK(absl::IsDataLoss(refused));
  CHECK(std::string(refused.message()).find("unknown format version 2") != std::string::npos);
  // A header for version 12 around the references of version 11.
  absl::StatusOr<EncodedReferenceDelta> other =
      EncodeReferenceDelta(ReferenceDelta{7, 0, 11, {Location(1)}, {}});
  LAKE_REQUIRE_OK(other);
  std::string mixed = encoded->bytes.substr(0, kReferenceSnapshotHeaderBytes - 16);
  ByteWriter w(&mixed);
  w.U64(other->bytes.size());
  w.U64(Checksum64(mixed));
  CHECK(absl::IsDataLoss(DecodeReferenceSnapshot(mixed + other->bytes).status()));
  // Version 0 is refused when encoding.
  CHECK(absl::IsInvalidArgument(EncodeReferenceSnapshot(ReferenceSnapshot{7, 0, {}}).status()));
}

// Every reference a walk from `base` over `edges` visits, or its failure.
absl::StatusOr<std::vector<DataLocation>> Walk(io::FileSystem& fs, const std::string& dir,
                                               const LineageBase& base,
                                               const std::vector<LineageEdge>& edges) {
  std::vector<DataLocation> out;
  absl::Status walked = EnumerateReferencesFrom(
      fs, dir, base, edges, [&](uint64_t, const std::vector<DataLocation>& chunk) {
        out.insert(out.end(), chunk.begin(), chunk.end());
        return absl::OkStatus();
      });
  if (!walked.ok()) return walked;
  return out;
}

TEST_CASE("a walk from a written snapshot visits its references, then the deltas after it") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  absl::StatusOr<std::string> digest =
      WriteReferenceSnapshot(fs, dir.path(), ReferenceSnapshot{7, 3, {Location(1), Location(2)}});
  LAKE_REQUIRE_OK(digest);
  // The same snapshot again is OK; another of that version is refused.
  CHECK(*WriteReferenceSnapshot(fs, dir.path(), ReferenceSnapshot{7, 3, {Location(1), Location(2)}}) ==
        *digest);
  CHECK(absl::IsAlreadyExists(
      WriteReferenceSnapshot(fs, dir.path(), ReferenceSnapshot{7, 3, {Location(9)}}).status()));
  absl::StatusOr<std::string> delta =
      WriteReferenceDelta(fs, dir.path(), ReferenceDelta{7, 3, 4, {Location(3)}, {}});
  LAKE_REQUIRE_OK(delta);
  std::vector<LineageEdge> edges = {{3, 4, *delta}};
  absl::StatusOr<std::vector<DataLocation>> all = Walk(fs, dir.path(), {3, *digest}, edges);
  LAKE_REQUIRE_OK(all);
  CHECK(*all == std::vector<DataLocation>{Location(1), Location(2), Location(3)});
  // Fails closed: another digest, another base version, a first edge not
  // from the base, a missing snapshot.
  CHECK(absl::IsDataLoss(Walk(fs, dir.path(), {3, std::string(64, 'a')}, edges).status()));
  CHECK(absl::IsDataLoss(Walk(fs, dir.path(), {2, *digest}, {}).status()));
  CHECK(absl::IsDataLoss(Walk(fs, dir.path(), {2, *digest}, edges).status()));
  std::filesystem::remove(dir.path() + "/" + ReferenceSnapshotRelativePath(3));
  CHECK(absl::IsDataLoss(Walk(fs, dir.path(), {3, *digest}, edges).status()));
}

}  // namespace
}  // namespace lake::table
