// The table log (engine/table/table_log_format.h, table_log.h): its bytes,
// its addresses, the checks a reader makes, where a writer appends, when it
// rolls, and what a power loss leaves.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/escaping.h"
#include "base/failpoint.h"
#include "engine/table/table_log.h"
#include "engine/table/table_log_format.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using table::TableLogAddress;
using table::TableLogRecord;
using table::TableLogRecordKind;

TableLogRecord Record(uint64_t version, std::string_view payload) {
  return TableLogRecord{TableLogRecordKind::kDeletionVector, version, payload};
}

// A segment (header and records) as bytes.
std::string Segment(uint64_t segment, std::initializer_list<TableLogRecord> records) {
  std::string bytes = table::EncodeTableLogSegmentHeader(segment);
  for (const TableLogRecord& r : records) table::AppendTableLogRecord(segment, r, &bytes);
  return bytes;
}

TEST_CASE("table log: a segment's bytes are the golden bytes of format version 1") {
  std::string bytes = Segment(1, {Record(7, "abc")});
  CHECK(absl::BytesToHexString(bytes) ==
        // "LAKETLOG", version 1, zero, segment 1, XXH3-64 of the 24 bytes before
        "4c414b45544c4f47" "01000000" "00000000" "0100000000000000" "a2e55136f05b18bf"
        // "LKTR", kind 1, zeros, version 7, 3 payload bytes, seeded XXH3-64, "abc"
        "4c4b5452" "01000000" "0700000000000000" "0300000000000000" "f5d5a078e26ea1a2"
        "616263");
}

TEST_CASE("table log: an address formats as a table path and parses back") {
  TableLogAddress address{3, 4096, 76};
  std::string path = table::FormatTableLogAddress(address);
  CHECK(path == "_log/00000000000000000003.seg/00000000000000004096.00000000000000000076");
  absl::StatusOr<TableLogAddress> parsed = table::ParseTableLogAddress(path);
  LAKE_REQUIRE_OK(parsed);
  CHECK(*parsed == address);
  CHECK(table::TableFileOfPath(path) == "_log/00000000000000000003.seg");
  CHECK(table::TableFileOfPath("data/x.frag") == "data/x.frag");
  CHECK(*table::CheckedTableFileOfPath(path) == "_log/00000000000000000003.seg");
  CHECK(*table::CheckedTableFileOfPath("data/x.frag") == "data/x.frag");
}

TEST_CASE("table log: a malformed address is refused as damage") {
  for (std::string path :
       {"_log/00000000000000000003.seg/00000000000000004096.0000000000000000007",
        "_log/00000000000000000000.seg/00000000000000004096.00000000000000000076",
        "_log/00000000000000000003.seg/00000000000000000016.00000000000000000076",
        "_log/00000000000000000003.seg/00000000000000004096.00000000000000000000",
        "_log/00000000000000000003.seg/0000000000000000409a.00000000000000000076",
        "_log/00000000000000000003.sex/00000000000000004096.00000000000000000076"}) {
    CAPTURE(path);
    CHECK(absl::IsDataLoss(table::ParseTableLogAddress(path).status()));
    // Nor does the collector guess which segment it meant: it stops.
    CHECK(absl::IsDataLoss(table::CheckedTableFileOfPath(path).status()));
  }
}

TEST_CASE("table log: a record decodes at its address and nowhere else") {
  std::string bytes = Segment(2, {Record(5, "payload")});
  std::string_view record = std::string_view(bytes).substr(32);
  TableLogAddress address{2, 32, 7};
  absl::StatusOr<TableLogRecord> decoded = table::DecodeTableLogRecord(record, address);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->version == 5);
  CHECK(decoded->payload == "payload");
  // The same bytes claimed by another segment fail the seeded checksum.
  CHECK(absl::IsDataLoss(table::DecodeTableLogRecord(record, TableLogAddress{3, 32, 7}).status()));
  // Another length than the address's.
  CHECK(absl::IsDataLoss(table::DecodeTableLogRecord(record, TableLogAddress{2, 32, 6}).status()));
  // Cut short.
  CHECK(absl::IsDataLoss(
      table::DecodeTableLogRecord(record.substr(0, record.size() - 1), address).status()));
}

TEST_CASE("table log: a damaged record is refused") {
  std::string bytes = Segment(1, {Record(5, "payload")});
  for (size_t at : {size_t{32}, size_t{36}, size_t{37}, size_t{40}, size_t{48}, size_t{56},
                    bytes.size() - 1}) {
    CAPTURE(at);
    std::string damaged = bytes;
    damaged[at] ^= 0x01;
    CHECK(absl::IsDataLoss(
        table::DecodeTableLogRecord(std::string_view(damaged).substr(32), TableLogAddress{1, 32, 7})
            .status()));
  }
}

// Checks `record` (one record's bytes) at `address` piece by piece, `piece`
// payload bytes at a time.
absl::Status CheckInPieces(std::string_view record, const TableLogAddress& address, size_t piece) {
  absl::StatusOr<table::TableLogRecordCheck> check =
      table::TableLogRecordCheck::Start(record, address);
  if (!check.ok()) return check.status();
  std::string_view payload = record.substr(std::min(record.size(), table::kTableLogRecordHeaderBytes));
  for (size_t at = 0; at < payload.size(); at += piece) check->Add(payload.substr(at, piece));
  return check->Finish();
}

TEST_CASE("table log: a record checked piece by piece passes whatever the pieces") {
  std::string payload(1000, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7);
  std::string bytes = Segment(2, {Record(5, payload)});
  std::string_view record = std::string_view(bytes).substr(32);
  TableLogAddress address{2, 32, payload.size()};
  for (size_t piece : {size_t{1}, size_t{7}, size_t{512}, size_t{1000}, size_t{4096}}) {
    CAPTURE(piece);
    LAKE_CHECK_OK(CheckInPieces(record, address, piece));
  }
  absl::StatusOr<table::TableLogRecordCheck> check = table::TableLogRecordCheck::Start(record, address);
  LAKE_REQUIRE_OK(check);
  CHECK(check->kind() == TableLogRecordKind::kDeletionVector);
  CHECK(check->version() == 5);
}

TEST_CASE("table log: a record checked piece by piece is refused as the whole decode refuses it") {
  std::string bytes = Segment(1, {Record(5, "payload")});
  TableLogAddress address{1, 32, 7};
  // A damaged header or payload byte.
  for (size_t at : {size_t{32}, size_t{36}, size_t{40}, size_t{48}, size_t{56}, bytes.size() - 1}) {
    CAPTURE(at);
    std::string damaged = bytes;
    damaged[at] ^= 0x01;
    CHECK(absl::IsDataLoss(CheckInPieces(std::string_view(damaged).substr(32), address, 3)));
  }
  std::string_view record = std::string_view(bytes).substr(32);
  // Another segment's seed, another length, a payload cut short.
  CHECK(absl::IsDataLoss(CheckInPieces(record, TableLogAddress{3, 32, 7}, 3)));
  CHECK(absl::IsDataLoss(CheckInPieces(record, TableLogAddress{1, 32, 6}, 3)));
  CHECK(absl::IsDataLoss(CheckInPieces(record.substr(0, record.size() - 1), address, 3)));
}

TEST_CASE("table log: a scan ends at the preallocated zeros") {
  std::string bytes = Segment(1, {Record(1, "one"), Record(2, "two!")});
  const uint64_t end = bytes.size();
  bytes.append(100, '\0');
  absl::StatusOr<table::TableLogScan> scan = table::ScanTableLogRecords(bytes, 1, 32);
  LAKE_REQUIRE_OK(scan);
  REQUIRE(scan->records.size() == 2);
  CHECK(scan->records[1] == TableLogAddress{1, 32 + 35, 4});
  CHECK(scan->valid_end == end);
  CHECK_FALSE(scan->dirty_tail);
}

TEST_CASE("table log: a scan ends at a torn record and marks the tail dirty") {
  std::string whole = Segment(1, {Record(1, "one"), Record(2, "two!")});
  std::string torn = whole.substr(0, whole.size() - 2) + std::string(64, '\0');
  absl::StatusOr<table::TableLogScan> scan = table::ScanTableLogRecords(torn, 1, 32);
  LAKE_REQUIRE_OK(scan);
  CHECK(scan->records.size() == 1);
  CHECK(scan->valid_end == 32 + 35);
  CHECK(scan->dirty_tail);
}

TEST_CASE("table log: a segment of another number or format is refused") {
  std::string bytes = Segment(1, {});
  CHECK(absl::IsDataLoss(table::ScanTableLogRecords(bytes, 2, 32).status()));
  bytes[8] = 2;
  CHECK(absl::IsDataLoss(table::CheckTableLogSegmentHeader(bytes, 1)));
}

struct LogDir {
  testing::TempDir dir;
  std::string table_dir = dir.Join("table");
  std::string backups = dir.Join("backups");
  io::PosixFileSystem posix;
  LogDir() {
    std::filesystem::create_directories(table_dir);
    std::filesystem::create_directories(backups);
  }
  std::string Read(io::FileSystem& fs, const TableLogAddress& address) {
    absl::StatusOr<std::string> bytes =
        table::ReadTablePath(fs, table_dir, table::FormatTableLogAddress(address), 64 << 20, table::TableLogRecordKind::kDeletionVector);
    LAKE_REQUIRE_OK(bytes);
    return *bytes;
  }
  size_t Segments() {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(table_dir + "/_log")) {
      n += table::ParseTableLogSegmentName(e.path().filename().string()).has_value();
    }
    return n;
  }
};

TEST_CASE("table log: one version's records go to one segment, read back by address") {
  LogDir d;
  table::TableLogWriter writer(d.posix);
  absl::StatusOr<std::vector<TableLogAddress>> first =
      writer.AppendDurably(d.table_dir, {Record(1, "alpha"), Record(1, "beta")});
  LAKE_REQUIRE_OK(first);
  absl::StatusOr<std::vector<TableLogAddress>> second =
      writer.AppendDurably(d.table_dir, {Record(2, "gamma")});
  LAKE_REQUIRE_OK(second);
  REQUIRE(first->size() == 2);
  CHECK((*first)[0] == TableLogAddress{1, 32, 5});
  CHECK((*first)[1] == TableLogAddress{1, 32 + 37, 4});
  CHECK((*second)[0] == TableLogAddress{1, 32 + 37 + 36, 5});
  CHECK(d.Read(d.posix, (*first)[0]) == "alpha");
  CHECK(d.Read(d.posix, (*first)[1]) == "beta");
  CHECK(d.Read(d.posix, (*second)[0]) == "gamma");
  CHECK(d.Segments() == 1);
  // Preallocated: the segment is as large as the roll bound already.
  CHECK(std::filesystem::file_size(d.table_dir + "/" + table::TableLogSegmentRelativePath(1)) >=
        table::kTableLogSegmentBytes);
}

TEST_CASE("table log: an append into unwritten blocks writes zeros ahead, and the next lands on written ones") {
  LogDir d;
  table::TableLogWriter writer(d.posix);
  // Past the segment header's block, into the preallocation.
  const std::string payload(8000, 'p');
  absl::StatusOr<std::vector<TableLogAddress>> first = writer.AppendDurably(d.table_dir, {Record(1, payload)});
  LAKE_REQUIRE_OK(first);
  const std::string path = d.table_dir + "/" + table::TableLogSegmentRelativePath(1);
  absl::StatusOr<std::unique_ptr<io::File>> file = d.posix.OpenRead(path);
  LAKE_REQUIRE_OK(file);
  const uint64_t end = (*first)[0].offset + table::TableLogRecordBytes(payload.size());
  absl::StatusOr<uint64_t> written = (*file)->NextUnwritten(end);
  LAKE_REQUIRE_OK(written);
  absl::StatusOr<io::FileInfo> info = (*file)->Stat();
  LAKE_REQUIRE_OK(info);
  // Written through at least the minimum stretch ahead (through the size,
  // where the file system cannot tell written blocks from preallocated).
  CHECK(*written >= end + table::kTableLogZeroAheadMinBytes - 4096);
  CHECK(*written <= info->size);
  absl::StatusOr<std::vector<TableLogAddress>> second = writer.AppendDurably(d.table_dir, {Record(2, payload)});
  LAKE_REQUIRE_OK(second);
  CHECK((*second)[0].offset == end);
  CHECK(d.Read(d.posix, (*second)[0]) == payload);
  absl::StatusOr<uint64_t> still = (*file)->NextUnwritten(end);
  LAKE_REQUIRE_OK(still);
  CHECK(*still == *written);  // no second stretch: the record fit in the first
  // The stretch is zeros: a scan still ends right after the records.
  const uint64_t records_end = end + table::TableLogRecordBytes(payload.size());
  std::string ahead(static_cast<size_t>(*written - records_end), 'x');
  absl::StatusOr<size_t> got =
      (*file)->PRead(reinterpret_cast<uint8_t*>(ahead.data()), ahead.size(), records_end);
  LAKE_REQUIRE_OK(got);
  CHECK(*got == ahead.size());
  CHECK(ahead == std::string(ahead.size(), '\0'));
}

TEST_CASE("table log: another writer (another process) appends after what it finds") {
  LogDir d;
  table::TableLogWriter one(d.posix);
  table::TableLogWriter two(d.posix);
  absl::StatusOr<std::vector<TableLogAddress>> a = one.AppendDurably(d.table_dir, {Record(1, "a")});
  absl::StatusOr<std::vector<TableLogAddress>> b = two.AppendDurably(d.table_dir, {Record(2, "bb")});
  absl::StatusOr<std::vector<TableLogAddress>> c = one.AppendDurably(d.table_dir, {Record(3, "c")});
  LAKE_REQUIRE_OK(a);
  LAKE_REQUIRE_OK(b);
  LAKE_REQUIRE_OK(c);
  CHECK(d.Read(d.posix, (*a)[0]) == "a");
  CHECK(d.Read(d.posix, (*b)[0]) == "bb");
  CHECK(d.Read(d.posix, (*c)[0]) == "c");
  CHECK((*c)[0].offset > (*b)[0].offset);
}

TEST_CASE("table log: records that do not fit under the bound roll to a new segment") {
  LogDir d;
  table::TableLogWriter writer(d.posix);
  std::string big(table::kTableLogSegmentBytes / 2, 'x');
  absl::StatusOr<std::vector<TableLogAddress>> a = writer.AppendDurably(d.table_dir, {Record(1, big)});
  absl::StatusOr<std::vector<TableLogAddress>> b = writer.AppendDurably(d.table_dir, {Record(2, big)});
  LAKE_REQUIRE_OK(a);
  LAKE_REQUIRE_OK(b);
  CHECK((*a)[0].segment == 1);
  CHECK((*b)[0].segment == 2);
  CHECK(d.Read(d.posix, (*a)[0]) == big);
  CHECK(d.Read(d.posix, (*b)[0]) == big);
  CHECK(d.Segments() == 2);
}

TEST_CASE("table log: a torn tail is never overwritten: the writer rolls past it") {
  LogDir d;
  table::TableLogAddress kept;
  {
    table::TableLogWriter writer(d.posix);
    absl::StatusOr<std::vector<TableLogAddress>> a =
        writer.AppendDurably(d.table_dir, {Record(1, "kept")});
    LAKE_REQUIRE_OK(a);
    kept = (*a)[0];
  }
  // A crashed writer's half record after it.
  {
    std::string path = d.table_dir + "/" + table::TableLogSegmentRelativePath(1);
    std::string half = Segment(1, {Record(2, "torn record")}).substr(32, 20);
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(kept.offset + 36));
    f.write(half.data(), static_cast<std::streamsize>(half.size()));
  }
  table::TableLogWriter writer(d.posix);
  absl::StatusOr<std::vector<TableLogAddress>> b = writer.AppendDurably(d.table_dir, {Record(2, "new")});
  LAKE_REQUIRE_OK(b);
  CHECK((*b)[0].segment == 2);
  CHECK(d.Read(d.posix, kept) == "kept");
  CHECK(d.Read(d.posix, (*b)[0]) == "new");
}

TEST_CASE("table log: a damaged or missing record fails closed") {
  LogDir d;
  table::TableLogWriter writer(d.posix);
  absl::StatusOr<std::vector<TableLogAddress>> a = writer.AppendDurably(d.table_dir, {Record(1, "data")});
  LAKE_REQUIRE_OK(a);
  std::string path = d.table_dir + "/" + table::TableLogSegmentRelativePath(1);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>((*a)[0].offset + 33));
    f.write("X", 1);
  }
  std::string address = table::FormatTableLogAddress((*a)[0]);
  CHECK(absl::IsDataLoss(table::ReadTablePath(d.posix, d.table_dir, address, 1 << 20, table::TableLogRecordKind::kDeletionVector).status()));
  // An address past the records (the zeros) and a segment that is not there.
  TableLogAddress past{1, (*a)[0].offset + 36, 4};
  CHECK(absl::IsDataLoss(
      table::ReadTablePath(d.posix, d.table_dir, table::FormatTableLogAddress(past), 1 << 20, table::TableLogRecordKind::kDeletionVector)
          .status()));
  TableLogAddress elsewhere{9, 32, 4};
  CHECK(absl::IsDataLoss(
      table::ReadTablePath(d.posix, d.table_dir, table::FormatTableLogAddress(elsewhere), 1 << 20, table::TableLogRecordKind::kDeletionVector)
          .status()));
  // Larger than the caller allows.
  CHECK(absl::IsDataLoss(table::ReadTablePath(d.posix, d.table_dir,
                                              table::FormatTableLogAddress(TableLogAddress{1, 32, 4}), 3,
                                              table::TableLogRecordKind::kDeletionVector)
                             .status()));
}

TEST_CASE("table log: a record larger than the piece read is checked whole, failing closed as a read does") {
  LogDir d;
  table::TableLogWriter writer(d.posix);
  std::string payload(3000, 'p');
  absl::StatusOr<std::vector<TableLogAddress>> a =
      writer.AppendDurably(d.table_dir, {Record(1, payload)});
  LAKE_REQUIRE_OK(a);
  const std::string address = table::FormatTableLogAddress((*a)[0]);
  const auto kind = TableLogRecordKind::kDeletionVector;
  LAKE_CHECK_OK(table::CheckTableLogRecord(d.posix, d.table_dir, address, kind, 512));
  // Of another kind than the caller expects.
  CHECK(absl::IsDataLoss(table::CheckTableLogRecord(d.posix, d.table_dir, address,
                                                    TableLogRecordKind::kFragment, 512)));
  // An address past the records (the zeros) and a segment that is not there.
  TableLogAddress past{1, (*a)[0].offset + table::TableLogRecordBytes(payload.size()), 4};
  CHECK(absl::IsDataLoss(table::CheckTableLogRecord(
      d.posix, d.table_dir, table::FormatTableLogAddress(past), kind, 512)));
  CHECK(absl::IsDataLoss(table::CheckTableLogRecord(
      d.posix, d.table_dir, table::FormatTableLogAddress(TableLogAddress{9, 32, 4}), kind, 512)));
  // A byte damaged in the payload's last piece.
  std::string path = d.table_dir + "/" + table::TableLogSegmentRelativePath(1);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>((*a)[0].offset + table::kTableLogRecordHeaderBytes + 2900));
    f.write("X", 1);
  }
  absl::Status damaged = table::CheckTableLogRecord(d.posix, d.table_dir, address, kind, 512);
  CHECK(absl::IsDataLoss(damaged));
  CHECK(std::string(damaged.message()).find("checksum") != std::string::npos);
}

TEST_CASE("table log: a power loss before the sync loses that version's records only") {
  REQUIRE(failpoint::Enabled());
  for (bool torn : {false, true}) {
    CAPTURE(torn);
    LogDir d;
    TableLogAddress synced;
    {
      table::TableLogWriter writer(d.posix);
      absl::StatusOr<std::vector<TableLogAddress>> a =
          writer.AppendDurably(d.table_dir, {Record(1, "synced")});
      LAKE_REQUIRE_OK(a);
      synced = (*a)[0];
    }
    {
      testing::FaultInjectionFileSystem fs(d.posix, d.backups);
      table::TableLogWriter writer(fs);
      failpoint::ClearAll();
      failpoint::Set(table::kTableLogWrittenFailpoint, failpoint::Action::kCallback, [&] {
        if (torn) {
          fs.CrashTorn(7);
        } else {
          fs.Crash();
        }
        return absl::UnavailableError("power lost");
      });
      std::string big(10000, 'y');
      CHECK_FALSE(writer.AppendDurably(d.table_dir, {Record(2, big)}).ok());
      failpoint::ClearAll();
    }
    // The synced record is there; the next append (a new process) goes on.
    CHECK(d.Read(d.posix, synced) == "synced");
    table::TableLogWriter writer(d.posix);
    absl::StatusOr<std::vector<TableLogAddress>> b =
        writer.AppendDurably(d.table_dir, {Record(2, "after")});
    LAKE_REQUIRE_OK(b);
    CHECK(d.Read(d.posix, (*b)[0]) == "after");
    CHECK(d.Read(d.posix, synced) == "synced");
  }
}

TEST_CASE("table log: a power loss before the first record's sync keeps the segment, not the record") {
  REQUIRE(failpoint::Enabled());
  LogDir d;
  {
    testing::FaultInjectionFileSystem fs(d.posix, d.backups);
    table::TableLogWriter writer(fs);
    failpoint::ClearAll();
    failpoint::Set(table::kTableLogWrittenFailpoint, failpoint::Action::kCallback, [&] {
      fs.Crash();
      return absl::UnavailableError("power lost");
    });
    CHECK_FALSE(writer.AppendDurably(d.table_dir, {Record(1, "lost")}).ok());
    failpoint::ClearAll();
  }
  // The segment was published (its creation synced), its record was not:
  // the next append finds segment 1 empty and writes at its start.
  CHECK(d.Segments() == 1);
  table::TableLogWriter writer(d.posix);
  absl::StatusOr<std::vector<TableLogAddress>> a = writer.AppendDurably(d.table_dir, {Record(1, "x")});
  LAKE_REQUIRE_OK(a);
  CHECK((*a)[0] == TableLogAddress{1, 32, 1});
  CHECK(d.Read(d.posix, (*a)[0]) == "x");
}

}  // namespace
}  // namespace lake
