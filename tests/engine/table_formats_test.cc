// The table's file formats: fragments (engine/table/fragment_format.h),
// manifests (manifest_format.h) and reference deltas
// (reference_delta_format.h). Golden bytes pin each format: a change to
// one shows here, and must come with a new format version.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/sha256.h"
#include "engine/table/byte_codec.h"
#include "engine/table/deletion_vector_format.h"
#include "engine/table/fragment_blocks.h"
#include "engine/table/fragment_format.h"
#include "engine/table/manifest_format.h"
#include "engine/table/reference_delta_format.h"
#include "tests/support/sample_batch.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::table {
namespace {

// ---- Helpers ----

std::string Hex(std::string_view bytes) {
  return absl::BytesToHexString(absl::string_view(bytes.data(), bytes.size()));
}

std::string FromHex(std::string_view hex) {
  std::string compact;
  for (char c : hex) {
    if (c != ' ' && c != '\n') compact.push_back(c);
  }
  return absl::HexStringToBytes(compact);
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

bool Contains(const absl::Status& status, std::string_view text) {
  return Message(status).find(text) != std::string::npos;
}

DataLocation Location(std::string_view uri, std::string_view content_type, uint64_t size,
                      std::string_view sha256) {
  absl::StatusOr<DataLocation> location = MakeDataLocation(uri, content_type, size, sha256);
  REQUIRE_MESSAGE(location.ok(), location.status().ToString());
  return *location;
}

constexpr std::string_view kShaAbc =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr std::string_view kShaEmpty =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// Calls `decode` on every single-byte change of `bytes` (all 255 other
// values at every position) and on every proper prefix; returns a
// description of each one that was not refused with DataLoss.
template <typename Decode>
std::vector<std::string> DamageNotRefused(const std::string& bytes, Decode decode) {
  std::vector<std::string> missed;
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    for (int delta = 1; delta < 256; ++delta) {
      damaged[i] = static_cast<char>(static_cast<uint8_t>(bytes[i]) ^ delta);
      absl::Status status = decode(damaged);
      if (!absl::IsDataLoss(status)) {
        missed.push_back(absl::StrCat("byte ", i, " ^ ", delta, ": ", status.ToString()));
      }
    }
  }
  for (size_t n = 0; n < bytes.size(); ++n) {
    absl::Status status = decode(bytes.substr(0, n));
    if (!absl::IsDataLoss(status)) {
      missed.push_back(absl::StrCat("prefix of ", n, ": ", status.ToString()));
    }
  }
  return missed;
}

// ---- Fragments ----

Schema TinySchema() {
  return Schema{
      {{"name", ColumnType::kUtf8}, {"n", ColumnType::kInt64}, {"video", ColumnType::kFile}}};
}

// Two rows: ("a", 7, file), ("", null, null).
ColumnBatch TinyBatch() {
  ColumnBatch batch = ColumnBatch::Empty(TinySchema());
  LAKE_REQUIRE_OK(batch.AppendRow(
      {std::string("a"), int64_t{7}, Location("file:///s/objects/x", "text/plain", 3, kShaAbc)}));
  LAKE_REQUIRE_OK(batch.AppendRow({std::string(""), std::monostate{}, std::monostate{}}));
  return batch;
}

// EncodeFragment(TinyBatch()), format version 2. Every block is stored
// except the raw sha256s (one digest, then a null row's 32 zero bytes),
// which zstd shrinks (codec 01). (Another zstd release could compress that
// block differently; the decoding half must pass regardless.)
constexpr std::string_view kGoldenFragmentHex = R"(
4c414b45465241470200000002000000000000000300000001046e616d650201
6e0705766964656f000200000002000000f36568a7d6800d0701010008000000
080000002e79db643559bc2f01000000000000000001000000010000001f4e96
1eb632c6e661000200000002000000c07672ce0aac94ab010000100000001000
0000bedba8589911d34707000000000000000000000000000000000200000002
000000c07672ce0aac94ab01000008000000080000002e676d8aafbb6b141300
00000000000000130000001300000052b704f241983ff366696c653a2f2f2f73
2f6f626a656374732f78000800000008000000752897a8e91bade60a00000000
000000000a0000000a0000002384feb8e9b2aca4746578742f706c61696e0010
00000010000000cbea45ca59e12f6e0300000000000000000000000000000001
40000000310000000db578ff35a8fc6b28b52ffd20404501001402ba7816bf8f
01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad00010069c0
13da8d9ee5e3e1e0aad466eb48ae6372c3
)";

// EncodeFragment(TinyBatch()) as format version 1 wrote it: every block
// stored except the hex sha256 bytes (codec 01). Decoding these bytes is
// what keeps old files readable.
constexpr std::string_view kGoldenFragmentV1Hex = R"(
4c414b45465241470100000002000000000000000300000001046e616d650201
6e0705766964656f000200000002000000f36568a7d6800d0701010008000000
080000002e79db643559bc2f01000000000000000001000000010000001f4e96
1eb632c6e661000200000002000000c07672ce0aac94ab010000100000001000
0000bedba8589911d34707000000000000000000000000000000000200000002
000000c07672ce0aac94ab01000008000000080000002e676d8aafbb6b141300
00000000000000130000001300000052b704f241983ff366696c653a2f2f2f73
2f6f626a656374732f78000800000008000000752897a8e91bade60a00000000
000000000a0000000a0000002384feb8e9b2aca4746578742f706c61696e0010
00000010000000cbea45ca59e12f6e0300000000000000000000000000000000
08000000080000006796c5f512fe4586400000000000000001400000003b0000
00fa33cbf66e116abe28b52ffd204095010002840b0dc0eb248dab4cc94aca26
19e09cc6a124bdf6b3758558881a01ae01f200111d9b700cabd5f279293f7ed6
217c0100930f76295baf2e8dd50967c40f638e54
)";

absl::Status DecodeTinyFragment(std::string_view bytes) {
  return DecodeFragment(bytes, TinySchema()).status();
}

TEST_CASE("a sha256 converts between hex and raw bytes, every byte value both ways") {
  Sha256Raw raw;
  for (int start : {0, 32, 64, 96, 128, 160, 192, 224}) {
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(start + i);
    std::string hex = Sha256ToHex(raw);
    std::optional<Sha256Raw> back = Sha256FromHex(hex);
    REQUIRE(back.has_value());
    CHECK(*back == raw);
  }
  std::string hex = Sha256ToHex(raw);
  CHECK_FALSE(Sha256FromHex(hex.substr(0, 63)).has_value());
  for (char bad : {'A', 'F', 'g', ':', '/', '`', ' ', '\0'}) {
    std::string text = hex;
    text[17] = bad;
    CHECK_FALSE(Sha256FromHex(text).has_value());
  }
}

TEST_CASE("a sha256 decodes from hex the same with every byte value at every position") {
  for (size_t position = 0; position < kSha256RawBytes; ++position) {
    for (int value = 0; value < 256; ++value) {
      Sha256Raw raw;
      for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i * 37 + 11);
      raw[position] = static_cast<uint8_t>(value);
      std::optional<Sha256Raw> back = Sha256FromHex(Sha256ToHex(raw));
      REQUIRE(back.has_value());
      REQUIRE(*back == raw);
    }
  }
}

TEST_CASE("a fragment round-trips every column type with nulls") {
  ColumnBatch batch = testing::SampleBatch(0, 200);
  absl::StatusOr<std::string> bytes = EncodeFragment(batch);
  LAKE_REQUIRE_OK(bytes);
  CHECK(bytes->substr(0, 8) == "LAKEFRAG");
  absl::StatusOr<ColumnBatch> back = DecodeFragment(*bytes, batch.schema);
  LAKE_REQUIRE_OK(back);
  CHECK(back->num_rows == 200);
  CHECK(*back == batch);
  CHECK(back->Cell(3, 0) == CellValue{});
  CHECK(back->Cell(4, 0) == CellValue{std::string("row-4")});
  CHECK(back->Cell(2, 6) == CellValue{});
  CHECK(back->Cell(1, 6) ==
        CellValue{Location(testing::SampleUri(1), "video/mp4", 1001, testing::SampleSha256(1))});
}

// The rows of `batch` whose indexes `keep` accepts, appended cell by cell.
template <typename Keep>
ColumnBatch RowsCellByCell(const ColumnBatch& batch, Keep keep) {
  ColumnBatch out = ColumnBatch::Empty(batch.schema);
  for (size_t row = 0; row < batch.num_rows; ++row) {
    if (!keep(row)) continue;
    std::vector<CellValue> cells;
    for (size_t c = 0; c < batch.columns.size(); ++c) cells.push_back(batch.Cell(row, c));
    LAKE_REQUIRE_OK(out.AppendRow(cells));
  }
  return out;
}

TEST_CASE("rows appended by range equal the same rows appended cell by cell") {
  ColumnBatch batch = testing::SampleBatch(0, 50);
  ColumnBatch ranges = ColumnBatch::Empty(batch.schema);
  ranges.AppendRows(batch, 3, 17);
  ranges.AppendRows(batch, 17, 17);  // empty: nothing
  ranges.AppendRows(batch, 30, 50);
  CHECK(ranges.num_rows == 34);
  CHECK(ranges == RowsCellByCell(batch, [](size_t row) { return (row >= 3 && row < 17) || row >= 30; }));
  LAKE_CHECK_OK(ranges.Validate());
}

TEST_CASE("rows removed in place leave the batch built without them") {
  ColumnBatch batch = testing::SampleBatch(0, 60);
  const std::vector<uint32_t> removed = {0, 1, 2, 7, 8, 30, 58, 59};
  ColumnBatch expected = RowsCellByCell(batch, [&](size_t row) {
    return !std::binary_search(removed.begin(), removed.end(), static_cast<uint32_t>(row));
  });
  batch.RemoveRows(removed);
  CHECK(batch.num_rows == 52);
  CHECK(batch == expected);
  LAKE_CHECK_OK(batch.Validate());
  batch.RemoveRows({});
  CHECK(batch == expected);
}

TEST_CASE("removing every row in place leaves an empty batch of the schema") {
  ColumnBatch batch = testing::SampleBatch(0, 5);
  batch.RemoveRows(std::vector<uint32_t>{0, 1, 2, 3, 4});
  CHECK(batch == ColumnBatch::Empty(batch.schema));
}

TEST_CASE("a fragment keeps empty strings, empty binaries and zero rows") {
  Schema schema{{{"s", ColumnType::kUtf8}, {"b", ColumnType::kBinary}, {"t", ColumnType::kBool}}};
  ColumnBatch batch = ColumnBatch::Empty(schema);
  LAKE_REQUIRE_OK(batch.AppendRow({std::string(""), Binary{""}, false}));
  LAKE_REQUIRE_OK(batch.AppendRow({std::monostate{}, Binary{std::string("\0\xff", 2)}, true}));
  LAKE_REQUIRE_OK(batch.AppendRow({std::string("é"), std::monostate{}, std::monostate{}}));
  absl::StatusOr<ColumnBatch> back = DecodeFragment(*EncodeFragment(batch), schema);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == batch);
  CHECK(back->Cell(0, 0) == CellValue{std::string("")});
  CHECK(back->Cell(1, 0) == CellValue{});
  CHECK(back->Cell(0, 1) == CellValue{Binary{""}});

  ColumnBatch empty = ColumnBatch::Empty(schema);
  absl::StatusOr<ColumnBatch> empty_back = DecodeFragment(*EncodeFragment(empty), schema);
  LAKE_REQUIRE_OK(empty_back);
  CHECK(*empty_back == empty);
  CHECK(empty_back->num_rows == 0);
}

TEST_CASE("a fragment keeps extreme numbers bit for bit") {
  Schema schema{
      {{"i", ColumnType::kInt64}, {"f", ColumnType::kFloat64}, {"t", ColumnType::kTimestamp}}};
  ColumnBatch batch = ColumnBatch::Empty(schema);
  LAKE_REQUIRE_OK(batch.AppendRow({INT64_MIN, -0.0, TimestampMicros{INT64_MAX}}));
  LAKE_REQUIRE_OK(batch.AppendRow({INT64_MAX, 1e308, TimestampMicros{-1}}));
  LAKE_REQUIRE_OK(
      batch.AppendRow({int64_t{0}, std::numeric_limits<double>::infinity(), std::monostate{}}));
  absl::StatusOr<ColumnBatch> back = DecodeFragment(*EncodeFragment(batch), schema);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == batch);
  CHECK(std::signbit(back->columns[1].float64s[0]));
}

TEST_CASE("a fragment keeps a NaN's bits, payload and sign included") {
  Schema schema{{{"f", ColumnType::kFloat64}}};
  ColumnBatch batch = ColumnBatch::Empty(schema);
  const uint64_t bits[] = {0x7ff8000000000000ull, 0xfff0000000000123ull, 0x7ff4000000abcdefull};
  for (uint64_t b : bits) {
    double nan;
    std::memcpy(&nan, &b, sizeof nan);
    LAKE_REQUIRE_OK(batch.AppendRow({nan}));
  }
  absl::StatusOr<ColumnBatch> back = DecodeFragment(*EncodeFragment(batch), schema);
  LAKE_REQUIRE_OK(back);
  REQUIRE(back->columns[0].float64s.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    uint64_t b;
    std::memcpy(&b, &back->columns[0].float64s[i], sizeof b);
    CHECK(b == bits[i]);
  }
}

TEST_CASE("a large fragment compresses its blocks and decodes back") {
  ColumnBatch batch = testing::SampleBatch(0, 5000);
  absl::StatusOr<std::string> bytes = EncodeFragment(batch);
  LAKE_REQUIRE_OK(bytes);
  size_t raw = 0;
  for (const ColumnData& c : batch.columns) {
    raw += c.valid.size() + c.strings.bytes.size() + 4 * c.strings.size() +
           c.content_types.bytes.size() + c.sha256s.bytes.size() + 8 * c.int64s.size() +
           8 * c.float64s.size() + c.bools.size();
  }
  CHECK(bytes->size() < raw / 2);
  absl::StatusOr<ColumnBatch> back = DecodeFragment(*bytes, batch.schema);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == batch);
  CHECK(*EncodeFragment(*back) == *bytes);  // deterministic
}

TEST_CASE("the fragment format matches its golden bytes") {
  absl::StatusOr<std::string> bytes = EncodeFragment(TinyBatch());
  LAKE_REQUIRE_OK(bytes);
  INFO("encoded: ", Hex(*bytes));
  CHECK(Hex(*bytes) == Hex(FromHex(kGoldenFragmentHex)));
  absl::StatusOr<ColumnBatch> golden = DecodeFragment(FromHex(kGoldenFragmentHex), TinySchema());
  LAKE_REQUIRE_OK(golden);
  CHECK(*golden == TinyBatch());
}

TEST_CASE("a format 1 fragment, hex sha256s and all, still decodes to its batch") {
  absl::StatusOr<ColumnBatch> old = DecodeFragment(FromHex(kGoldenFragmentV1Hex), TinySchema());
  LAKE_REQUIRE_OK(old);
  CHECK(*old == TinyBatch());
  // FragmentBlocks borrows its bytes and schema: both outlive it.
  std::string bytes = FromHex(kGoldenFragmentV1Hex);
  Schema schema = TinySchema();
  absl::StatusOr<FragmentBlocks> blocks = FragmentBlocks::Open(bytes, schema);
  LAKE_REQUIRE_OK(blocks);
  ColumnData cells;
  LAKE_REQUIRE_OK(blocks->DecodeFileCells(2, {0, 1}, &cells));
  CHECK(cells == TinyBatch().columns[2]);
  std::vector<std::string> missed =
      DamageNotRefused(FromHex(kGoldenFragmentV1Hex), DecodeTinyFragment);
  CHECK_MESSAGE(missed.empty(), missed.size(),
                " not refused, first: ", missed.empty() ? "" : missed[0]);
}

// A stored (uncompressed) fragment block holding `bytes`.
void AppendStoredBlock(std::string& out, std::string_view bytes) {
  ByteWriter w(&out);
  w.U8(0);
  w.U32(static_cast<uint32_t>(bytes.size()));
  w.U32(static_cast<uint32_t>(bytes.size()));
  w.U64(Checksum64(bytes));
  w.Bytes(bytes);
}

// A format 1 fragment of one file column "video" and two rows, the second
// null, as format 1 could hold it: the null row's cells are whatever was
// written there, a 64-digit sha256 included.
std::string Format1FragmentWithNullPlaceholders() {
  std::string out;
  ByteWriter w(&out);
  w.Bytes("LAKEFRAG");
  w.U32(1);
  w.U64(2);
  w.U32(1);
  w.U8(static_cast<uint8_t>(ColumnType::kFile));
  w.U8(5);
  w.Bytes("video");
  auto lengths = [](uint32_t a, uint32_t b) {
    std::string bytes;
    ByteWriter(&bytes).U32(a);
    ByteWriter(&bytes).U32(b);
    return bytes;
  };
  const std::string uri0 = "file:///s/objects/x";
  const std::string uri1 = "file:///s/objects/y";
  AppendStoredBlock(out, std::string("\x01\x00", 2));
  AppendStoredBlock(out, lengths(uri0.size(), uri1.size()));
  AppendStoredBlock(out, uri0 + uri1);
  AppendStoredBlock(out, lengths(10, 10));
  AppendStoredBlock(out, "text/plaintext/plain");
  std::string sizes;
  ByteWriter(&sizes).U64(3);
  ByteWriter(&sizes).U64(3);
  AppendStoredBlock(out, sizes);
  AppendStoredBlock(out, lengths(64, 64));
  AppendStoredBlock(out, std::string(kShaAbc) + std::string(kShaEmpty));
  out += Checksum128(out);
  return out;
}

TEST_CASE("a format 1 null file cell's sha256 decodes empty, as format 2's does") {
  Schema schema{{{"video", ColumnType::kFile}}};
  absl::StatusOr<ColumnBatch> old =
      DecodeFragment(Format1FragmentWithNullPlaceholders(), schema, FragmentCheck::kFull);
  LAKE_REQUIRE_OK(old);
  const ColumnData& video = old->columns[0];
  CHECK(video.sha256s.At(0) == kShaAbc);
  CHECK(video.sha256s.At(1).empty());
  absl::StatusOr<ColumnBatch> again =
      DecodeFragment(*EncodeFragment(*old), schema, FragmentCheck::kFull);
  LAKE_REQUIRE_OK(again);
  CHECK(*again == *old);
}

TEST_CASE("a fragment of a format version this lake does not know is refused") {
  std::string bytes = *EncodeFragment(TinyBatch());
  for (uint32_t version : {0u, kFragmentFormatVersion + 1}) {
    std::string other = bytes.substr(0, bytes.size() - kChecksum128Bytes);
    std::string field;
    ByteWriter(&field).U32(version);
    other.replace(8, 4, field);
    other += Checksum128(other);
    absl::Status status = DecodeFragment(other, TinySchema()).status();
    CHECK(absl::IsDataLoss(status));
    CHECK(Contains(status, "unknown format version"));
  }
}

TEST_CASE("every single-byte change and every truncation of a fragment is refused") {
  std::string bytes = *EncodeFragment(TinyBatch());
  std::vector<std::string> missed = DamageNotRefused(bytes, DecodeTinyFragment);
  CHECK_MESSAGE(missed.empty(), missed.size(),
                " not refused, first: ", missed.empty() ? "" : missed[0]);
  CHECK(absl::IsDataLoss(DecodeTinyFragment(bytes + "x")));
}

TEST_CASE("a fragment decoded in parts gives the batch it decodes to whole") {
  ColumnBatch batch = testing::SampleBatch(0, 300);
  std::string bytes = *EncodeFragment(batch);
  const size_t n = batch.schema.columns.size();
  REQUIRE(n >= 3);
  // One column first: it alone is filled, the others stay empty.
  std::vector<bool> first(n, false);
  first[1] = true;
  ColumnBatch parts;  // another schema: reset to the fragment's
  LAKE_REQUIRE_OK(DecodeFragmentColumns(bytes, batch.schema, first, &parts));
  CHECK(parts.num_rows == 300);
  CHECK(parts.schema == batch.schema);
  for (size_t i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(parts.columns[i].type == batch.schema.columns[i].type);
    CHECK(parts.columns[i].size() == (i == 1 ? 300u : 0u));
  }
  CHECK(parts.columns[1] == batch.columns[1]);
  // The rest second: the whole batch.
  std::vector<bool> rest = first;
  rest.flip();
  LAKE_REQUIRE_OK(DecodeFragmentColumns(bytes, batch.schema, rest, &parts));
  CHECK(parts == batch);
  // One flag per column, and the checks of a whole decode on every part.
  CHECK(absl::IsInvalidArgument(DecodeFragmentColumns(bytes, batch.schema, {true}, &parts)));
  std::string tiny = *EncodeFragment(TinyBatch());
  std::vector<std::string> missed =
      DamageNotRefused(tiny, [](std::string_view damaged) {
        ColumnBatch only_n;
        return DecodeFragmentColumns(damaged, TinySchema(), {false, true, false}, &only_n);
      });
  CHECK_MESSAGE(missed.empty(), missed.size(),
                " not refused, first: ", missed.empty() ? "" : missed[0]);
}

TEST_CASE("a fragment of another schema is refused") {
  std::string bytes = *EncodeFragment(TinyBatch());
  Schema renamed = TinySchema();
  renamed.columns[1].name = "m";
  Schema retyped = TinySchema();
  retyped.columns[1].type = ColumnType::kTimestamp;
  Schema wider = TinySchema();
  wider.columns.push_back({"extra", ColumnType::kBool});
  for (const Schema& schema : {renamed, retyped, wider}) {
    absl::Status status = DecodeFragment(bytes, schema).status();
    CHECK(absl::IsDataLoss(status));
    CHECK(Contains(status, "schema is not the table's"));
  }
}

TEST_CASE("a fragment summary gives the rows, size and SHA-256 of the file") {
  std::string bytes = *EncodeFragment(testing::SampleBatch(0, 30));
  absl::StatusOr<FragmentSummary> summary = SummarizeFragment(bytes);
  LAKE_REQUIRE_OK(summary);
  CHECK(summary->rows == 30);
  CHECK(summary->schema == testing::SampleSchema());
  CHECK(summary->size_bytes == bytes.size());
  CHECK(summary->sha256 ==
        testing::Sha256Hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  bytes[20] ^= 1;
  CHECK(absl::IsDataLoss(SummarizeFragment(bytes).status()));
}

TEST_CASE("an invalid batch is not encoded as a fragment") {
  ColumnBatch batch = TinyBatch();
  batch.columns[1].int64s.pop_back();
  CHECK(absl::IsInvalidArgument(EncodeFragment(batch).status()));
  ColumnBatch bad_utf8 = TinyBatch();
  bad_utf8.columns[0].strings = StringColumn{};
  bad_utf8.columns[0].strings.Append("\xff");
  bad_utf8.columns[0].strings.Append("");
  CHECK(absl::IsInvalidArgument(EncodeFragment(bad_utf8).status()));
}

// A fragment written by hand per the format note: one column of `type`
// named "c", `rows` rows, then `blocks`, then the digest.
std::string HandFragment(ColumnType type, uint64_t rows, std::string_view blocks) {
  std::string out;
  ByteWriter w(&out);
  w.Bytes("LAKEFRAG");
  w.U32(1);
  w.U64(rows);
  w.U32(1);
  w.U8(static_cast<uint8_t>(type));
  w.U8(1);
  w.Bytes("c");
  w.Bytes(blocks);
  out += Checksum128(out);
  return out;
}

std::string HandBlock(uint8_t codec, uint32_t raw_bytes, std::string_view stored,
                      uint32_t stored_bytes_field = UINT32_MAX) {
  std::string out;
  ByteWriter w(&out);
  w.U8(codec);
  w.U32(raw_bytes);
  w.U32(stored_bytes_field == UINT32_MAX ? static_cast<uint32_t>(stored.size())
                                         : stored_bytes_field);
  w.U64(Checksum64(stored));
  w.Bytes(stored);
  return out;
}

std::string Le64(uint64_t v) {
  std::string out;
  ByteWriter(&out).U64(v);
  return out;
}

TEST_CASE("a hand-written fragment per the format note decodes") {
  Schema schema{{{"c", ColumnType::kInt64}}};
  std::string bytes =
      HandFragment(ColumnType::kInt64, 2,
                   HandBlock(0, 2, std::string("\1\0", 2)) + HandBlock(0, 16, Le64(5) + Le64(0)));
  absl::StatusOr<ColumnBatch> batch = DecodeFragment(bytes, schema);
  LAKE_REQUIRE_OK(batch);
  CHECK(batch->Cell(0, 0) == CellValue{int64_t{5}});
  CHECK(batch->Cell(1, 0) == CellValue{});
}

std::string Lengths(std::initializer_list<uint32_t> lengths) {
  std::string out;
  ByteWriter w(&out);
  for (uint32_t n : lengths) w.U32(n);
  return out;
}

// One file cell, by hand: the blocks of a file column of one row.
std::string HandFileBlocks(std::string_view uri, std::string_view content_type, uint64_t size,
                           std::string_view sha256) {
  auto strings = [](std::string_view cell) {
    return HandBlock(0, 4, Lengths({static_cast<uint32_t>(cell.size())})) +
           HandBlock(0, static_cast<uint32_t>(cell.size()), cell);
  };
  return HandBlock(0, 1, "\1") + strings(uri) + strings(content_type) +
         HandBlock(0, 8, Le64(size)) + strings(sha256);
}

TEST_CASE("a fragment's cheap checks catch broken file cells, the full check every location") {
  Schema files{{{"c", ColumnType::kFile}}};
  std::string good =
      HandFragment(ColumnType::kFile, 1, HandFileBlocks("file:///a/b", "a/b", 1, kShaAbc));
  absl::StatusOr<ColumnBatch> batch = DecodeFragment(good, files, FragmentCheck::kFull);
  LAKE_REQUIRE_OK(batch);
  CHECK(batch->Cell(0, 0) == CellValue{Location("file:///a/b", "a/b", 1, kShaAbc)});

  for (std::string bad :
       {HandFileBlocks("file:///a/b", "a/b", 1, std::string(64, 'A')),
        // Each byte just outside '0'-'9' and 'a'-'f', last or first; 63 digits.
        HandFileBlocks("file:///a/b", "a/b", 1, std::string(kShaAbc).substr(1) + "g"),
        HandFileBlocks("file:///a/b", "a/b", 1, std::string(kShaAbc).substr(1) + ":"),
        HandFileBlocks("file:///a/b", "a/b", 1, "/" + std::string(kShaAbc).substr(1)),
        HandFileBlocks("file:///a/b", "a/b", 1, "`" + std::string(kShaAbc).substr(1)),
        HandFileBlocks("file:///a/b", "a/b", 1, std::string(kShaAbc).substr(1)),
        // Content types with DEL, a byte above 0x7f, and 256 bytes.
        HandFileBlocks("file:///a/b", "a/b\x7f", 1, kShaAbc),
        HandFileBlocks("file:///a/b", "a/\xc3\xa9", 1, kShaAbc),
        HandFileBlocks("file:///a/b", std::string(256, 'a'), 1, kShaAbc),
        HandFileBlocks("file:///a/b", "", 1, kShaAbc),
        HandFileBlocks("file:///a/b", "a\tb", 1, kShaAbc), HandFileBlocks("", "a/b", 1, kShaAbc),
        HandFileBlocks("file:///a/b", "a/b", uint64_t{1} << 63, kShaAbc)}) {
    absl::Status status = DecodeFragment(HandFragment(ColumnType::kFile, 1, bad), files).status();
    CHECK(absl::IsDataLoss(status));
    CHECK(Contains(status, "row 0 is not a valid location"));
  }
  // A uri in another spelling than the canonical one passes the cheap
  // checks; only the full check parses it.
  std::string odd =
      HandFragment(ColumnType::kFile, 1, HandFileBlocks("file:///a/%7e", "a/b", 1, kShaAbc));
  LAKE_CHECK_OK(DecodeFragment(odd, files, FragmentCheck::kFast));
  CHECK(absl::IsDataLoss(DecodeFragment(odd, files, FragmentCheck::kFull).status()));
}

TEST_CASE("a fragment's file cells decoded into reused buffers are its whole decode's") {
  ColumnBatch large = testing::SampleBatch(0, 300);
  ColumnBatch small = testing::SampleBatch(1000, 40);
  const size_t video = large.schema.columns.size() - 1;
  REQUIRE(large.schema.columns[video].type == ColumnType::kFile);
  ColumnData cells;
  // Larger, then smaller, then larger again: the buffers shrink and grow.
  for (const ColumnBatch* batch : {&large, &small, &large}) {
    std::string bytes = *EncodeFragment(*batch);
    absl::StatusOr<FragmentBlocks> blocks = FragmentBlocks::Open(bytes, batch->schema);
    LAKE_REQUIRE_OK(blocks);
    CHECK(blocks->rows() == batch->num_rows);
    LAKE_REQUIRE_OK(blocks->DecodeFileCells(video, {0, 2}, &cells));
    CHECK(cells == batch->columns[video]);
  }
  std::string bytes = *EncodeFragment(small);
  absl::StatusOr<FragmentBlocks> blocks = FragmentBlocks::Open(bytes, small.schema);
  LAKE_REQUIRE_OK(blocks);
  CHECK(absl::IsInvalidArgument(blocks->DecodeFileCells(0, {}, &cells)));
  CHECK(absl::IsInvalidArgument(blocks->DecodeFileCells(video, {40}, &cells)));
}

TEST_CASE("a fragment's file cells decoded in part check the rows read whole, every validity") {
  Schema files{{{"c", ColumnType::kFile}}};
  auto two = [](std::string_view validity, std::string_view second_sha256) {
    auto strings = [](std::string_view a, std::string_view b) {
      return HandBlock(0, 8,
                       Lengths({static_cast<uint32_t>(a.size()), static_cast<uint32_t>(b.size())})) +
             HandBlock(0, static_cast<uint32_t>(a.size() + b.size()), std::string(a) + std::string(b));
    };
    return HandFragment(ColumnType::kFile, 2,
                        HandBlock(0, 2, validity) + strings("file:///a/b", "file:///a/c") +
                            strings("a/b", "a/b") + HandBlock(0, 16, Le64(1) + Le64(2)) +
                            strings(kShaAbc, second_sha256));
  };
  // Row 1's sha256 is upper case: not a location.
  std::string bytes = two("\1\1", std::string(64, 'A'));
  absl::StatusOr<FragmentBlocks> blocks = FragmentBlocks::Open(bytes, files);
  LAKE_REQUIRE_OK(blocks);
  ColumnData cells;
  LAKE_CHECK_OK(blocks->DecodeFileCells(0, {0}, &cells));
  CHECK(cells.strings.At(1) == "file:///a/c");
  absl::Status row_1 = blocks->DecodeFileCells(0, {0, 1}, &cells);
  CHECK(absl::IsDataLoss(row_1));
  CHECK(Contains(row_1, "row 1 is not a valid location"));
  CHECK(absl::IsDataLoss(DecodeFragment(bytes, files).status()));
  // A null row is never a location to check; a validity flag of 2 is
  // refused whichever rows are read.
  std::string null_second = two(std::string("\1\0", 2), std::string(64, 'A'));
  blocks = FragmentBlocks::Open(null_second, files);
  LAKE_REQUIRE_OK(blocks);
  LAKE_CHECK_OK(blocks->DecodeFileCells(0, {0, 1}, &cells));
  std::string two_flag = two("\1\2", kShaAbc);
  blocks = FragmentBlocks::Open(two_flag, files);
  LAKE_REQUIRE_OK(blocks);
  CHECK(absl::IsDataLoss(blocks->DecodeFileCells(0, {}, &cells)));
}

TEST_CASE("a fragment's lengths are bounded before anything is allocated") {
  Schema ints{{{"c", ColumnType::kInt64}}};
  Schema texts{{{"c", ColumnType::kUtf8}}};
  // More rows than a fragment may hold.
  absl::Status too_many =
      DecodeFragment(HandFragment(ColumnType::kInt64, kMaxFragmentRows + 1, ""), ints).status();
  CHECK(absl::IsDataLoss(too_many));
  CHECK(Contains(too_many, "16777217 rows"));
  // A 16 MiB validity buffer claimed from one stored byte.
  absl::Status expands = DecodeFragment(HandFragment(ColumnType::kInt64, kMaxFragmentRows,
                                                     HandBlock(1, kMaxFragmentRows, "x")),
                                        ints)
                             .status();
  CHECK(absl::IsDataLoss(expands));
  CHECK(Contains(expands, "more bytes than zstd can expand to"));
  // A block whose stored bytes run past the file.
  absl::Status past_end =
      DecodeFragment(HandFragment(ColumnType::kInt64, 1,
                                  HandBlock(0, 1, "\1") + HandBlock(0, 8, "", 1u << 30)),
                     ints)
          .status();
  CHECK(absl::IsDataLoss(past_end));
  CHECK(Contains(past_end, "ends early"));
  // A block of the wrong size for the rows.
  absl::Status wrong_size =
      DecodeFragment(HandFragment(ColumnType::kInt64, 1, HandBlock(0, 2, std::string("\1\1"))),
                     ints)
          .status();
  CHECK(absl::IsDataLoss(wrong_size));
  CHECK(Contains(wrong_size, "holds 2 bytes, not 1"));
  // String lengths adding up past 2 GiB.
  std::string lengths = Lengths({0x7FFFFFFF, 2});
  absl::Status huge_strings =
      DecodeFragment(
          HandFragment(ColumnType::kUtf8, 2, HandBlock(0, 2, "\1\1") + HandBlock(0, 8, lengths)),
          texts)
          .status();
  CHECK(absl::IsDataLoss(huge_strings));
  CHECK(Contains(huge_strings, "pass 2 GiB"));
  // A decoded batch that breaks an invariant (text that is not UTF-8).
  absl::Status not_utf8 =
      DecodeFragment(HandFragment(ColumnType::kUtf8, 1,
                                  HandBlock(0, 1, "\1") + HandBlock(0, 4, Lengths({1})) +
                                      HandBlock(0, 1, "\xff")),
                     texts)
          .status();
  CHECK(absl::IsDataLoss(not_utf8));
  CHECK(Contains(not_utf8, "UTF-8"));
}

// ---- Manifests ----

// A format 1 manifest: as lakes before statistics wrote it.
Manifest TinyManifest() {
  Manifest m;
  m.format_version = kManifestFormatVersionV1;
  m.table_id = 42;
  m.version = 3;
  m.parent_version = 2;
  m.schema = TinySchema();
  m.fragments = {FragmentRef{"data/00000000000000000001.frag", 2, 400, std::string(kShaAbc)},
                 FragmentRef{"data/00000000000000000003.frag", 5, 900, std::string(kShaEmpty)}};
  m.total_rows = 7;
  m.reference_delta_path = "_lake/object_refs/00000000000000000003.refs";
  m.reference_delta_sha256 = std::string(kShaEmpty);
  m.created_unix_micros = 1700000000000000;
  return m;
}

// EncodeManifest(TinyManifest()), format version 1.
constexpr std::string_view kGoldenManifestHex = R"(
4c414b454d4e4654010000002a00000000000000030000000000000002000000
0000000000401e18240a060007000000000000000300000001046e616d650201
6e0705766964656f2b005f6c616b652f6f626a6563745f726566732f30303030
303030303030303030303030303030332e72656673e3b0c44298fc1c149afbf4
c8996fb92427ae41e4649b934ca495991b7852b855020000001e00646174612f
30303030303030303030303030303030303030312e6672616702000000000000
009001000000000000ba7816bf8f01cfea414140de5dae2223b00361a396177a
9cb410ff61f20015ad1e00646174612f30303030303030303030303030303030
303030332e6672616705000000000000008403000000000000e3b0c44298fc1c
149afbf4c8996fb92427ae41e4649b934ca495991b7852b8558887536ef43914
e0f6b64240a3c7d29d
)";

// TinyManifest in format 2: the first fragment has statistics (TinyBatch's:
// name in ["", "a"], n in [7, 7] with one null, video all but one null),
// the second has none (written before statistics, carried on).
Manifest TinyManifestV2() {
  Manifest m = TinyManifest();
  m.format_version = kManifestFormatVersionV2;
  FragmentStatistics statistics;
  statistics.columns.resize(3);
  statistics.columns[0].has_bounds = true;
  statistics.columns[0].min_text = "";
  statistics.columns[0].max_text = "a";
  statistics.columns[1].null_count = 1;
  statistics.columns[1].has_bounds = true;
  statistics.columns[1].min_integer = 7;
  statistics.columns[1].max_integer = 7;
  statistics.columns[2].null_count = 1;
  m.fragments[0].statistics = statistics;
  return m;
}

// EncodeManifest(TinyManifestV2()), format version 2.
constexpr std::string_view kGoldenManifestV2Hex = R"(
4c414b454d4e4654020000002a00000000000000030000000000000002000000
0000000000401e18240a060007000000000000000300000001046e616d650201
6e0705766964656f2b005f6c616b652f6f626a6563745f726566732f30303030
303030303030303030303030303030332e72656673e3b0c44298fc1c149afbf4
c8996fb92427ae41e4649b934ca495991b7852b855020000001e00646174612f
30303030303030303030303030303030303030312e6672616702000000000000
009001000000000000ba7816bf8f01cfea414140de5dae2223b00361a396177a
9cb410ff61f20015ad0102000001006103010000000000000007000000000000
0007000000000000000101000000000000001e00646174612f30303030303030
303030303030303030303030332e667261670500000000000000840300000000
0000e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852
b85500a9614649ec09e0a642ab081a1163db81
)";

absl::Status DecodeManifestStatus(std::string_view bytes) { return DecodeManifest(bytes).status(); }

TEST_CASE("a manifest round-trips") {
  absl::StatusOr<std::string> bytes = EncodeManifest(TinyManifest());
  LAKE_REQUIRE_OK(bytes);
  absl::StatusOr<Manifest> back = DecodeManifest(*bytes);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == TinyManifest());

  Manifest first;  // a table's first, empty version
  first.table_id = 1;
  first.version = 1;
  first.schema = Schema{{{"x", ColumnType::kBool}}};
  first.reference_delta_path = "_lake/object_refs/00000000000000000001.refs";
  first.reference_delta_sha256 = std::string(kShaAbc);
  absl::StatusOr<Manifest> first_back = DecodeManifest(*EncodeManifest(first));
  LAKE_REQUIRE_OK(first_back);
  CHECK(*first_back == first);
}

TEST_CASE("a format 1 manifest holds no statistics, and a format 6 one is refused") {
  Manifest v1 = TinyManifestV2();
  v1.format_version = kManifestFormatVersionV1;
  CHECK(absl::IsInvalidArgument(EncodeManifest(v1).status()));
  Manifest v6 = TinyManifest();
  v6.format_version = 6;
  CHECK(absl::IsInvalidArgument(EncodeManifest(v6).status()));
}

// TinyManifestV2 in format 3: the second fragment's rows 1 and 3 are
// deleted, so 5 rows are live.
Manifest TinyManifestV3() {
  Manifest m = TinyManifestV2();
  m.format_version = kManifestFormatVersionV3;
  m.fragments[1].deletion_vector =
      DeletionVectorRef{"data/00000000000000000003.frag.00000000000000000004.del",
                        std::string(kShaAbc), 2};
  m.total_rows = 5;
  return m;
}

// EncodeManifest(TinyManifestV3()): a format 3 checkpoint.
constexpr std::string_view kGoldenManifestV3Hex = R"(
4c414b454d4e4654030000002a00000000000000030000000000000002000000
0000000000401e18240a060005000000000000000300000001046e616d650201
6e0705766964656f2b005f6c616b652f6f626a6563745f726566732f30303030
303030303030303030303030303030332e72656673e3b0c44298fc1c149afbf4
c8996fb92427ae41e4649b934ca495991b7852b85500020000001e0064617461
2f30303030303030303030303030303030303030312e66726167020000000000
00009001000000000000ba7816bf8f01cfea414140de5dae2223b00361a39617
7a9cb410ff61f20015ad01020000010061030100000000000000070000000000
00000700000000000000010100000000000000001e00646174612f3030303030
3030303030303030303030303030332e66726167050000000000000084030000
00000000e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b
7852b85500013700646174612f30303030303030303030303030303030303030
332e667261672e30303030303030303030303030303030303030342e64656cba
7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad02
00000000000000af4943250056a181e74d170751562976
)";

TEST_CASE("only a format 3 manifest holds deletion vectors, each deleting 1..rows rows") {
  Manifest v2 = TinyManifestV3();
  v2.format_version = kManifestFormatVersionV2;
  CHECK(absl::IsInvalidArgument(EncodeManifest(v2).status()));
  Manifest too_many = TinyManifestV3();
  too_many.fragments[1].deletion_vector->deleted_rows = 6;
  CHECK(absl::IsInvalidArgument(EncodeManifest(too_many).status()));
  Manifest none = TinyManifestV3();
  none.fragments[1].deletion_vector->deleted_rows = 0;
  none.total_rows = 7;
  CHECK(absl::IsInvalidArgument(EncodeManifest(none).status()));
  Manifest stale_total = TinyManifestV3();
  stale_total.total_rows = 7;  // the deleted rows still counted
  CHECK(absl::IsInvalidArgument(EncodeManifest(stale_total).status()));
  Manifest shared_path = TinyManifestV3();
  shared_path.fragments[1].deletion_vector->path = shared_path.fragments[0].path;
  CHECK(absl::IsInvalidArgument(EncodeManifest(shared_path).status()));
}

TEST_CASE("every single-byte change and every truncation of a format 3 manifest is refused") {
  std::string bytes = *EncodeManifest(TinyManifestV3());
  std::vector<std::string> missed = DamageNotRefused(bytes, DecodeManifestStatus);
  CHECK_MESSAGE(missed.empty(), missed.size());
}

// ---- Deletion vectors ----

DeletionVector TinyDeletionVector() {
  return DeletionVector{std::string(kShaAbc), 5, {1, 3}};
}

// EncodeDeletionVector(TinyDeletionVector()), format version 1.
constexpr std::string_view kGoldenDeletionVectorHex = R"(
4c414b4544454c5601000000ba7816bf8f01cfea414140de5dae2223b00361a3
96177a9cb410ff61f20015ad0500000000000000020000000000000001000000
03000000165253852551662582621699495c54e0
)";

absl::Status DecodeDeletionVectorStatus(std::string_view bytes) {
  return DecodeDeletionVector(bytes).status();
}

TEST_CASE("the deletion vector format matches its golden bytes") {
  absl::StatusOr<std::string> bytes = EncodeDeletionVector(TinyDeletionVector());
  LAKE_REQUIRE_OK(bytes);
  INFO("encoded: ", Hex(*bytes));
  CHECK(Hex(*bytes) == Hex(FromHex(kGoldenDeletionVectorHex)));
  absl::StatusOr<DeletionVector> golden = DecodeDeletionVector(FromHex(kGoldenDeletionVectorHex));
  LAKE_REQUIRE_OK(golden);
  CHECK(*golden == TinyDeletionVector());
}

TEST_CASE("a deletion vector's size is its header, a u32 per row and its digest") {
  CHECK(EncodeDeletionVector(TinyDeletionVector())->size() ==
        EncodedDeletionVectorBytes(TinyDeletionVector().deleted_rows.size()));
}

TEST_CASE("a deletion vector's rows are ascending, below the fragment's rows, at least one") {
  DeletionVector unordered = TinyDeletionVector();
  unordered.deleted_rows = {3, 1};
  CHECK(absl::IsInvalidArgument(EncodeDeletionVector(unordered).status()));
  DeletionVector repeated = TinyDeletionVector();
  repeated.deleted_rows = {1, 1};
  CHECK(absl::IsInvalidArgument(EncodeDeletionVector(repeated).status()));
  DeletionVector past = TinyDeletionVector();
  past.deleted_rows = {5};
  CHECK(absl::IsInvalidArgument(EncodeDeletionVector(past).status()));
  DeletionVector empty = TinyDeletionVector();
  empty.deleted_rows.clear();
  CHECK(absl::IsInvalidArgument(EncodeDeletionVector(empty).status()));
}

TEST_CASE("every single-byte change and every truncation of a deletion vector is refused") {
  std::string bytes = *EncodeDeletionVector(TinyDeletionVector());
  std::vector<std::string> missed = DamageNotRefused(bytes, DecodeDeletionVectorStatus);
  CHECK_MESSAGE(missed.empty(), missed.size(),
                " not refused, first: ", missed.empty() ? "" : missed[0]);
  CHECK(absl::IsDataLoss(DecodeDeletionVectorStatus(bytes + "x")));
}

TEST_CASE("merged deletion vectors hold every row of both once, ascending") {
  CHECK(MergeDeletedRows({1, 3, 7}, {0, 3, 9}) == std::vector<uint32_t>{0, 1, 3, 7, 9});
}

TEST_CASE("every single-byte change and every truncation of a format 2 manifest is refused") {
  std::string bytes = *EncodeManifest(TinyManifestV2());
  std::vector<std::string> missed = DamageNotRefused(bytes, DecodeManifestStatus);
  CHECK_MESSAGE(missed.empty(), missed.size());
}

TEST_CASE("fragment statistics hold null counts and bounds of the types that have them") {
  ColumnBatch batch = TinyBatch();
  FragmentStatistics statistics = ComputeFragmentStatistics(batch);
  CHECK(statistics == *TinyManifestV2().fragments[0].statistics);
  LAKE_CHECK_OK(ValidateFragmentStatistics(statistics, batch.schema, batch.num_rows));
  CHECK(absl::IsInvalidArgument(ValidateFragmentStatistics(statistics, batch.schema, 0)));
}

TEST_CASE("a long utf8 bound is cut: min to a prefix, max to a raised prefix") {
  Schema schema{{{"s", ColumnType::kUtf8}}};
  ColumnBatch batch = ColumnBatch::Empty(schema);
  REQUIRE(batch.AppendRow({std::string(100, 'b')}).ok());
  REQUIRE(batch.AppendRow({std::string(70, 'c') + "x"}).ok());
  const ColumnStatistics s = ComputeFragmentStatistics(batch).columns[0];
  CHECK(s.has_bounds);
  CHECK(s.min_text == std::string(64, 'b'));
  CHECK(s.max_text == std::string(63, 'c') + "d");
  ColumnBatch high = ColumnBatch::Empty(schema);
  REQUIRE(high.AppendRow({std::string(70, '\x7f')}).ok());
  CHECK(ComputeFragmentStatistics(high).columns[0].max_text == std::string(63, '\x7f') + "\x80");
}

TEST_CASE("a float64 column with a NaN, and a column of nulls, have no bounds") {
  Schema schema{{{"f", ColumnType::kFloat64}, {"i", ColumnType::kInt64}}};
  ColumnBatch batch = ColumnBatch::Empty(schema);
  REQUIRE(batch.AppendRow({1.0, std::monostate{}}).ok());
  REQUIRE(batch.AppendRow({std::numeric_limits<double>::quiet_NaN(), std::monostate{}}).ok());
  FragmentStatistics statistics = ComputeFragmentStatistics(batch);
  CHECK(!statistics.columns[0].has_bounds);
  CHECK(!statistics.columns[1].has_bounds);
  CHECK(statistics.columns[1].null_count == 2);
}

TEST_CASE("every single-byte change and every truncation of a manifest is refused") {
  std::string bytes = *EncodeManifest(TinyManifest());
  std::vector<std::string> missed = DamageNotRefused(bytes, DecodeManifestStatus);
  CHECK_MESSAGE(missed.empty(), missed.size(),
                " not refused, first: ", missed.empty() ? "" : missed[0]);
  CHECK(absl::IsDataLoss(DecodeManifestStatus(bytes + "x")));
}

TEST_CASE("a table path is relative and stays inside the table directory") {
  for (std::string_view good :
       std::vector<std::string_view>{"a", "data/x.frag", "_lake/object_refs/1.refs", "a-b_c.d/e"}) {
    CAPTURE(std::string(good));
    LAKE_CHECK_OK(ValidateTablePath(good, "path"));
  }
  for (std::string_view bad : std::vector<std::string_view>{
           "", "/etc/passwd", "../x", "a/../b", "a/..", "./a", "a//b", "a/", "a\\b", "a b",
           "caf\xc3\xa9", std::string_view("a\0b", 3)}) {
    CAPTURE(std::string(bad));
    CHECK(absl::IsInvalidArgument(ValidateTablePath(bad, "path")));
  }
  CHECK(
      absl::IsInvalidArgument(ValidateTablePath(std::string(kMaxTablePathBytes + 1, 'a'), "path")));
  LAKE_CHECK_OK(ValidateTablePath(std::string(kMaxTablePathBytes, 'a'), "path"));
}

TEST_CASE("an invalid manifest is not encoded") {
  auto refused = [](void (*change)(Manifest&), std::string_view text) {
    Manifest m = TinyManifest();
    change(m);
    absl::Status status = EncodeManifest(m).status();
    CHECK_MESSAGE(absl::IsInvalidArgument(status), status.ToString());
    CHECK_MESSAGE(Contains(status, text), status.ToString());
  };
  refused([](Manifest& m) { m.fragments[0].path = "/abs/x.frag"; }, "empty segment");
  refused([](Manifest& m) { m.fragments[1].path = "data/../x"; }, "'..' segment");
  refused([](Manifest& m) { m.reference_delta_path = "../refs"; }, "reference delta path");
  refused([](Manifest& m) { m.fragments[1].path = m.fragments[0].path; }, "listed twice");
  refused([](Manifest& m) { m.total_rows = 8; }, "total_rows is 8");
  refused([](Manifest& m) { m.parent_version = 3; }, "version 3");
  refused(
      [](Manifest& m) {
        m.version = 0;
        m.parent_version = 0;
      },
      "above 0");
  refused([](Manifest& m) { m.fragments[0].sha256 = std::string(64, 'A'); }, "lowercase hex");
  refused([](Manifest& m) { m.reference_delta_sha256 = "abc"; }, "reference_delta_sha256");
  refused([](Manifest& m) { m.format_version = 6; }, "format version 6");
  refused([](Manifest& m) { m.schema.columns.clear(); }, "needs a column");
  refused([](Manifest& m) { m.created_unix_micros = -1; }, "created_unix_micros");
  refused(
      [](Manifest& m) {
        m.fragments[0].rows = kMaxFragmentRows + 1;
        m.total_rows += kMaxFragmentRows - 1;
      },
      "more than");
}

TEST_CASE("a manifest extending a valid one checks its new fragments in full") {
  // A parent of 20 fragments, then one or twelve more (the two ways
  // repeats are found).
  Manifest parent = TinyManifest();
  parent.fragments.clear();
  parent.total_rows = 0;
  auto add = [](Manifest& m, int i) {
    m.fragments.push_back(FragmentRef{absl::StrCat("data/f", i, ".frag"), 2, 100,
                                      std::string(kShaAbc)});
    m.total_rows += 2;
  };
  for (int i = 0; i < 20; ++i) add(parent, i);
  LAKE_REQUIRE_OK(ValidateManifest(parent));
  for (int added : {1, 12}) {
    CAPTURE(added);
    Manifest m = parent;
    for (int i = 0; i < added; ++i) add(m, 100 + i);
    LAKE_CHECK_OK(ValidateManifest(m, parent.fragments.size()));
    CHECK(*EncodeManifest(m, parent.fragments.size()) == *EncodeManifest(m));
    auto refused = [&](void (*change)(FragmentRef&, const Manifest&), std::string_view text) {
      Manifest bad = m;
      change(bad.fragments.back(), parent);
      absl::Status status = EncodeManifest(bad, parent.fragments.size()).status();
      CHECK_MESSAGE(absl::IsInvalidArgument(status), status.ToString());
      CHECK_MESSAGE(Contains(status, text), status.ToString());
    };
    refused([](FragmentRef& f, const Manifest& p) { f.path = p.fragments[7].path; },
            "listed twice");
    refused([](FragmentRef& f, const Manifest&) { f.path = "data/../x"; }, "'..' segment");
    refused([](FragmentRef& f, const Manifest&) { f.sha256 = std::string(64, 'A'); },
            "lowercase hex");
    refused([](FragmentRef& f, const Manifest&) { f.rows = 3; }, "total_rows");
    refused([](FragmentRef& f, const Manifest&) { f.rows = kMaxFragmentRows + 1; }, "more than");
    // Two new fragments repeating each other.
    Manifest twice = m;
    add(twice, 100);
    CHECK(absl::IsInvalidArgument(ValidateManifest(twice, parent.fragments.size())));
  }
  // The trusted fragments are not checked one by one again (the caller
  // vouches that a valid manifest listed them), but still count.
  Manifest trusted = parent;
  trusted.fragments[3].sha256 = std::string(64, 'A');
  add(trusted, 100);
  LAKE_CHECK_OK(ValidateManifest(trusted, parent.fragments.size()));
  CHECK(absl::IsInvalidArgument(ValidateManifest(trusted)));
  trusted.total_rows += 1;
  CHECK(absl::IsInvalidArgument(ValidateManifest(trusted, parent.fragments.size())));
}

// The manifest per the format note, written by hand (`fragment_count`
// may lie); the digest recomputed.
std::string HandManifest(const Manifest& m, uint32_t fragment_count) {
  std::string out;
  ByteWriter w(&out);
  w.Bytes("LAKEMNFT");
  w.U32(m.format_version);
  w.U64(m.table_id);
  w.U64(m.version);
  w.U64(m.parent_version);
  w.U64(static_cast<uint64_t>(m.created_unix_micros));
  w.U64(m.total_rows);
  WriteSchema(w, m.schema);
  w.U16(static_cast<uint16_t>(m.reference_delta_path.size()));
  w.Bytes(m.reference_delta_path);
  w.Sha256(*Sha256FromHex(m.reference_delta_sha256));
  w.U32(fragment_count);
  for (const FragmentRef& f : m.fragments) {
    w.U16(static_cast<uint16_t>(f.path.size()));
    w.Bytes(f.path);
    w.U64(f.rows);
    w.U64(f.size_bytes);
    w.Sha256(*Sha256FromHex(f.sha256));
  }
  out += Checksum128(out);
  return out;
}

TEST_CASE("the manifest encoder writes what the format note says") {
  CHECK(Hex(HandManifest(TinyManifest(), 2)) == Hex(*EncodeManifest(TinyManifest())));
}

TEST_CASE("a manifest with an intact digest but broken content is refused") {
  Manifest m = TinyManifest();
  absl::Status huge_count = DecodeManifestStatus(HandManifest(m, UINT32_MAX));
  CHECK(absl::IsDataLoss(huge_count));
  CHECK(Contains(huge_count, "4294967295 fragments cannot fit"));
  CHECK(absl::IsDataLoss(DecodeManifestStatus(HandManifest(m, 1))));  // trailing bytes
  m.total_rows = 6;
  absl::Status wrong_total = DecodeManifestStatus(HandManifest(m, 2));
  CHECK(absl::IsDataLoss(wrong_total));
  CHECK(Contains(wrong_total, "total_rows is 6"));
  m = TinyManifest();
  m.fragments[0].path = "../../escape";
  absl::Status escape = DecodeManifestStatus(HandManifest(m, 2));
  CHECK(absl::IsDataLoss(escape));
  CHECK(Contains(escape, "'..' segment"));
  m = TinyManifest();
  m.format_version = 6;
  absl::Status version = DecodeManifestStatus(HandManifest(m, 2));
  CHECK(absl::IsDataLoss(version));
  CHECK(Contains(version, "unknown format version 6"));
}

// A format 3 link: version 4 of TinyManifestV2's table, removing its second
// fragment and adding one with statistics.
ManifestLink TinyLinkV3() {
  ManifestLink link;
  link.header = TinyManifestV2();
  link.header.format_version = kManifestFormatVersionV3;
  link.header.version = 4;
  link.header.parent_version = 3;
  link.header.fragments.clear();
  link.header.total_rows = 3;
  link.header.reference_delta_path = "_lake/object_refs/00000000000000000004.refs";
  link.base_version = 3;
  link.base_manifest_sha256 = std::string(kShaAbc);
  link.chain_position = 2;
  link.chain_bytes = 321;
  link.removed = {"data/00000000000000000003.frag"};
  FragmentRef added{"data/00000000000000000004.frag", 1, 77, std::string(kShaEmpty)};
  added.statistics = TinyManifestV2().fragments[0].statistics;
  added.statistics->columns[1].null_count = 0;
  link.added = {added};
  return link;
}

// TinyLinkV3 in format 4: version 6 at chain position 6, so its base is the
// version at position 4, version 4.
ManifestLink TinyLink() {
  ManifestLink link = TinyLinkV3();
  link.header.format_version = kManifestFormatVersionV4;
  link.header.version = 6;
  link.header.parent_version = 5;
  link.header.reference_delta_path = "_lake/object_refs/00000000000000000006.refs";
  link.base_version = 4;
  link.chain_position = 6;
  return link;
}

absl::Status DecodeManifestFileStatus(std::string_view bytes) {
  return DecodeManifestFile(bytes).status();
}

TEST_CASE("a manifest link round-trips") {
  absl::StatusOr<std::string> bytes = EncodeManifestLink(TinyLink());
  LAKE_REQUIRE_OK(bytes);
  absl::StatusOr<ManifestFile> back = DecodeManifestFile(*bytes);
  LAKE_REQUIRE_OK(back);
  REQUIRE(std::holds_alternative<ManifestLink>(*back));
  CHECK(std::get<ManifestLink>(*back) == TinyLink());
}

// TinyLink in format 5: its base's manifest named by a table log address.
ManifestLink TinyLinkV5() {
  ManifestLink link = TinyLink();
  link.header.format_version = kManifestFormatVersion;
  link.base_manifest_path =
      "_log/00000000000000000001.seg/00000000000000000032.00000000000000000200";
  return link;
}

TEST_CASE("a format 5 manifest link round-trips, naming its base's manifest") {
  absl::StatusOr<std::string> bytes = EncodeManifestLink(TinyLinkV5());
  LAKE_REQUIRE_OK(bytes);
  absl::StatusOr<ManifestFile> back = DecodeManifestFile(*bytes);
  LAKE_REQUIRE_OK(back);
  REQUIRE(std::holds_alternative<ManifestLink>(*back));
  CHECK(std::get<ManifestLink>(*back) == TinyLinkV5());
}

// EncodeManifestLink(TinyLinkV5()): a format 5 link.
constexpr std::string_view kGoldenManifestLinkV5Hex = R"(
4c414b454d4e4654050000002a00000000000000060000000000000005000000
0000000000401e18240a060003000000000000000300000001046e616d650201
6e0705766964656f2b005f6c616b652f6f626a6563745f726566732f30303030
303030303030303030303030303030362e72656673e3b0c44298fc1c149afbf4
c8996fb92427ae41e4649b934ca495991b7852b8550104000000000000004700
5f6c6f672f30303030303030303030303030303030303030312e7365672f3030
3030303030303030303030303030303033322e30303030303030303030303030
30303030323030ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb4
10ff61f20015ad06000000000000004101000000000000010000001e00646174
612f30303030303030303030303030303030303030332e66726167010000001e
00646174612f30303030303030303030303030303030303030342e6672616701
000000000000004d00000000000000e3b0c44298fc1c149afbf4c8996fb92427
ae41e4649b934ca495991b7852b8550102000001006102070000000000000007
00000000000000010100000000000000008de3053453cd365a905f5cf2df58fa
9d
)";

TEST_CASE("the manifest format 5 link matches its golden bytes") {
  absl::StatusOr<std::string> bytes = EncodeManifestLink(TinyLinkV5());
  LAKE_REQUIRE_OK(bytes);
  INFO("encoded: ", Hex(*bytes));
  CHECK(Hex(*bytes) == Hex(FromHex(kGoldenManifestLinkV5Hex)));
  absl::StatusOr<ManifestFile> golden = DecodeManifestFile(FromHex(kGoldenManifestLinkV5Hex));
  LAKE_REQUIRE_OK(golden);
  REQUIRE(std::holds_alternative<ManifestLink>(*golden));
  CHECK(std::get<ManifestLink>(*golden) == TinyLinkV5());
}

TEST_CASE("a format 5 link needs a base manifest path, and a format 4 link has none") {
  ManifestLink without = TinyLinkV5();
  without.base_manifest_path.clear();
  CHECK(absl::IsInvalidArgument(EncodeManifestLink(without).status()));
  ManifestLink escaping = TinyLinkV5();
  escaping.base_manifest_path = "../other/_versions/1.manifest";
  CHECK(absl::IsInvalidArgument(EncodeManifestLink(escaping).status()));
  ManifestLink v4 = TinyLink();
  v4.base_manifest_path = "_versions/00000000000000000004.manifest";
  CHECK(absl::IsInvalidArgument(EncodeManifestLink(v4).status()));
}

TEST_CASE("a format 3 manifest link round-trips, its base its parent") {
  absl::StatusOr<std::string> bytes = EncodeManifestLink(TinyLinkV3());
  LAKE_REQUIRE_OK(bytes);
  absl::StatusOr<ManifestFile> back = DecodeManifestFile(*bytes);
  LAKE_REQUIRE_OK(back);
  REQUIRE(std::holds_alternative<ManifestLink>(*back));
  CHECK(std::get<ManifestLink>(*back) == TinyLinkV3());
}

// EncodeManifestLink(TinyLink()): a format 4 link.
constexpr std::string_view kGoldenManifestLinkV4Hex = R"(
4c414b454d4e4654040000002a00000000000000060000000000000005000000
0000000000401e18240a060003000000000000000300000001046e616d650201
6e0705766964656f2b005f6c616b652f6f626a6563745f726566732f30303030
303030303030303030303030303030362e72656673e3b0c44298fc1c149afbf4
c8996fb92427ae41e4649b934ca495991b7852b855010400000000000000ba78
16bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad0600
0000000000004101000000000000010000001e00646174612f30303030303030
303030303030303030303030332e66726167010000001e00646174612f303030
30303030303030303030303030303030342e6672616701000000000000004d00
000000000000e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495
991b7852b8550102000001006102070000000000000007000000000000000101
00000000000000002ba7c14f1589522f48b50b0d72102f64
)";

TEST_CASE("the manifest format 4 link matches its golden bytes") {
  absl::StatusOr<std::string> bytes = EncodeManifestLink(TinyLink());
  LAKE_REQUIRE_OK(bytes);
  INFO("encoded: ", Hex(*bytes));
  CHECK(Hex(*bytes) == Hex(FromHex(kGoldenManifestLinkV4Hex)));
  absl::StatusOr<ManifestFile> golden = DecodeManifestFile(FromHex(kGoldenManifestLinkV4Hex));
  LAKE_REQUIRE_OK(golden);
  REQUIRE(std::holds_alternative<ManifestLink>(*golden));
  CHECK(std::get<ManifestLink>(*golden) == TinyLink());
}

// EncodeManifest of TinyManifestV3() in format 4: a format 4 checkpoint.
constexpr std::string_view kGoldenManifestV4Hex = R"(
4c414b454d4e4654040000002a00000000000000030000000000000002000000
0000000000401e18240a060005000000000000000300000001046e616d650201
6e0705766964656f2b005f6c616b652f6f626a6563745f726566732f30303030
303030303030303030303030303030332e72656673e3b0c44298fc1c149afbf4
c8996fb92427ae41e4649b934ca495991b7852b85500020000001e0064617461
2f30303030303030303030303030303030303030312e66726167020000000000
00009001000000000000ba7816bf8f01cfea414140de5dae2223b00361a39617
7a9cb410ff61f20015ad01020000010061030100000000000000070000000000
00000700000000000000010100000000000000001e00646174612f3030303030
3030303030303030303030303030332e66726167050000000000000084030000
00000000e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b
7852b85500013700646174612f30303030303030303030303030303030303030
332e667261672e30303030303030303030303030303030303030342e64656cba
7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad02
000000000000008dd97fd2f578271cdc43a1c8ec3bac86
)";

Manifest TinyManifestV4() {
  Manifest m = TinyManifestV3();
  m.format_version = kManifestFormatVersionV4;
  return m;
}

// Each checkpoint format a reader still meets, with what it added: every
// one must encode to its golden bytes and decode back.
TEST_CASE("the manifest checkpoint formats 1 to 4 match their golden bytes") {
  struct Golden {
    uint32_t format;
    Manifest manifest;
    std::string_view hex;
  };
  const Golden goldens[] = {
      {1, TinyManifest(), kGoldenManifestHex},
      {2, TinyManifestV2(), kGoldenManifestV2Hex},    // statistics
      {3, TinyManifestV3(), kGoldenManifestV3Hex},    // deletion vectors
      {4, TinyManifestV4(), kGoldenManifestV4Hex},    // a chain's checkpoint
  };
  for (const Golden& golden : goldens) {
    CAPTURE(golden.format);
    REQUIRE(golden.manifest.format_version == golden.format);
    absl::StatusOr<std::string> bytes = EncodeManifest(golden.manifest);
    LAKE_REQUIRE_OK(bytes);
    INFO("encoded: ", Hex(*bytes));
    CHECK(Hex(*bytes) == Hex(FromHex(golden.hex)));
    absl::StatusOr<Manifest> decoded = DecodeManifest(FromHex(golden.hex));
    LAKE_REQUIRE_OK(decoded);
    CHECK(*decoded == golden.manifest);
  }
}

TEST_CASE("a format 3 checkpoint round-trips as a full list") {
  Manifest m = TinyManifestV2();
  m.format_version = kManifestFormatVersionV3;
  absl::StatusOr<std::string> bytes = EncodeManifest(m);
  LAKE_REQUIRE_OK(bytes);
  absl::StatusOr<Manifest> back = DecodeManifest(*bytes);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == m);
  absl::StatusOr<ManifestFile> file = DecodeManifestFile(*bytes);
  LAKE_REQUIRE_OK(file);
  CHECK(std::holds_alternative<Manifest>(*file));
}

TEST_CASE("a link alone is no version's fragment list: DecodeManifest refuses it") {
  absl::Status status = DecodeManifestStatus(*EncodeManifestLink(TinyLink()));
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "a link to a base version"));
}

// The link per the format note, written by hand; the digest recomputed.
std::string HandManifestLink(const ManifestLink& link) {
  std::string out;
  ByteWriter w(&out);
  const Manifest& m = link.header;
  w.Bytes("LAKEMNFT");
  w.U32(m.format_version);
  w.U64(m.table_id);
  w.U64(m.version);
  w.U64(m.parent_version);
  w.U64(static_cast<uint64_t>(m.created_unix_micros));
  w.U64(m.total_rows);
  WriteSchema(w, m.schema);
  w.U16(static_cast<uint16_t>(m.reference_delta_path.size()));
  w.Bytes(m.reference_delta_path);
  w.Sha256(*Sha256FromHex(m.reference_delta_sha256));
  w.U8(1);  // a link
  if (m.format_version == 3) {
    w.Sha256(*Sha256FromHex(link.base_manifest_sha256));
    w.U32(static_cast<uint32_t>(link.chain_position));
  } else {
    w.U64(link.base_version);
    w.Sha256(*Sha256FromHex(link.base_manifest_sha256));
    w.U64(link.chain_position);
  }
  w.U64(link.chain_bytes);
  w.U32(static_cast<uint32_t>(link.removed.size()));
  for (const std::string& path : link.removed) {
    w.U16(static_cast<uint16_t>(path.size()));
    w.Bytes(path);
  }
  w.U32(static_cast<uint32_t>(link.added.size()));
  for (const FragmentRef& f : link.added) {
    w.U16(static_cast<uint16_t>(f.path.size()));
    w.Bytes(f.path);
    w.U64(f.rows);
    w.U64(f.size_bytes);
    w.Sha256(*Sha256FromHex(f.sha256));
    w.U8(f.statistics ? 1 : 0);
    if (f.statistics) WriteFragmentStatistics(w, *f.statistics, m.schema);
    w.U8(f.deletion_vector ? 1 : 0);
    if (f.deletion_vector) {
      w.U16(static_cast<uint16_t>(f.deletion_vector->path.size()));
      w.Bytes(f.deletion_vector->path);
      w.Sha256(*Sha256FromHex(f.deletion_vector->sha256));
      w.U64(f.deletion_vector->deleted_rows);
    }
  }
  out += Checksum128(out);
  return out;
}

TEST_CASE("the manifest link encoder writes what the format note says") {
  CHECK(Hex(HandManifestLink(TinyLink())) == Hex(*EncodeManifestLink(TinyLink())));
  CHECK(Hex(HandManifestLink(TinyLinkV3())) == Hex(*EncodeManifestLink(TinyLinkV3())));
}

TEST_CASE("an invalid manifest link is not encoded") {
  auto refused = [](void (*change)(ManifestLink&), std::string_view text) {
    ManifestLink link = TinyLink();
    change(link);
    absl::Status status = EncodeManifestLink(link).status();
    CHECK_MESSAGE(absl::IsInvalidArgument(status), status.ToString());
    CHECK_MESSAGE(Contains(status, text), status.ToString());
  };
  refused([](ManifestLink& l) { l.chain_position = 0; }, "chain_position 0");
  refused([](ManifestLink& l) { l.chain_position = ~uint64_t{0}; }, "bits set");
  refused([](ManifestLink& l) { l.base_version = 0; }, "base_version 0");
  refused([](ManifestLink& l) { l.base_version = 6; }, "base_version 6");
  refused([](ManifestLink& l) { l.removed.push_back(l.removed[0]); }, "removed twice");
  refused([](ManifestLink& l) { l.added.push_back(l.added[0]); }, "added twice");
  refused([](ManifestLink& l) { l.removed[0] = "../x"; }, "'..' segment");
  refused([](ManifestLink& l) { l.added[0].sha256 = "abc"; }, "lowercase hex");
  refused([](ManifestLink& l) { l.base_manifest_sha256 = "abc"; }, "base_manifest_sha256");
  refused(
      [](ManifestLink& l) {
        l.header.version = 1;
        l.header.parent_version = 0;
      },
      "no link");
  refused([](ManifestLink& l) { l.header.format_version = kManifestFormatVersionV2; },
          "format version");
  refused([](ManifestLink& l) { l.header.fragments.push_back(l.added[0]); }, "lists no fragments");
}

TEST_CASE("an invalid format 3 manifest link is not encoded") {
  auto refused = [](void (*change)(ManifestLink&), std::string_view text) {
    ManifestLink link = TinyLinkV3();
    change(link);
    absl::Status status = EncodeManifestLink(link).status();
    CHECK_MESSAGE(absl::IsInvalidArgument(status), status.ToString());
    CHECK_MESSAGE(Contains(status, text), status.ToString());
  };
  refused([](ManifestLink& l) { l.chain_position = 0; }, "chain_length 0");
  refused([](ManifestLink& l) { l.chain_position = kMaxManifestChainLength + 1; }, "chain_length");
  refused([](ManifestLink& l) { l.base_version = 2; }, "base is its parent");
}

TEST_CASE("every single-byte change and every truncation of a manifest link is refused") {
  for (const ManifestLink& link : {TinyLink(), TinyLinkV3()}) {
    CAPTURE(link.header.format_version);
    std::string bytes = *EncodeManifestLink(link);
    std::vector<std::string> missed = DamageNotRefused(bytes, DecodeManifestFileStatus);
    CHECK_MESSAGE(missed.empty(), missed.size(),
                  " not refused, first: ", missed.empty() ? "" : missed[0]);
    CHECK(absl::IsDataLoss(DecodeManifestFileStatus(bytes + "x")));
  }
}

TEST_CASE("every single-byte change and every truncation of a format 4 checkpoint is refused") {
  std::string bytes = *EncodeManifest(TinyManifestV4());
  std::vector<std::string> missed = DamageNotRefused(bytes, DecodeManifestStatus);
  CHECK_MESSAGE(missed.empty(), missed.size());
}

TEST_CASE("a manifest link with an intact digest but an unknown kind or a lying count is refused") {
  ManifestLink link = TinyLinkV3();
  link.removed.clear();
  std::string bytes = HandManifestLink(link);
  std::string body = bytes.substr(0, bytes.size() - kChecksum128Bytes);
  // The kind byte: 1 right before the base's digest (format 3).
  const Sha256Raw parent = *Sha256FromHex(std::string(kShaAbc));
  size_t kind = body.find(std::string(1, '\x01') +
                          std::string(reinterpret_cast<const char*>(parent.data()), parent.size()));
  REQUIRE(kind != std::string::npos);
  std::string unknown = body;
  unknown[kind] = '\x02';
  absl::Status status = DecodeManifestFileStatus(unknown + Checksum128(unknown));
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "unknown kind 2"));
  // removed_count follows chain_length (u32) and chain_bytes (u64).
  size_t removed_count = kind + 1 + 32 + 4 + 8;
  std::string lying = body;
  lying[removed_count] = '\x7f';
  status = DecodeManifestFileStatus(lying + Checksum128(lying));
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "cannot fit"));
}

// ---- Reference deltas ----

ReferenceDelta TinyDelta() {
  ReferenceDelta delta;
  delta.table_id = 42;
  delta.parent_version = 2;
  delta.child_version = 3;
  delta.added = {Location("file:///s/objects/a", "text/plain", 3, kShaAbc),
                 Location("s3://bucket/objects/b", "video/mp4", 0, kShaEmpty)};
  return delta;
}

// EncodeReferenceDelta(TinyDelta()), format version 1: header, one chunk of
// two entries, and the trailer (the digest).
constexpr std::string_view kGoldenDeltaHex = R"(
4c414b455245465301000000000000002a000000000000000200000000000000
030000000000000002000000000000002d7d428e42ecf06f0200000091000000
50dbeceab2e30727130066696c653a2f2f2f732f6f626a656374732f610a7465
78742f706c61696e0300000000000000ba7816bf8f01cfea414140de5dae2223
b00361a396177a9cb410ff61f20015ad150073333a2f2f6275636b65742f6f62
6a656374732f6209766964656f2f6d70340000000000000000e3b0c44298fc1c
149afbf4c8996fb92427ae41e4649b934ca495991b7852b8556ea553d1b87f5e
3d6b6f8d17299b35dc0d8f1d8c78a81651db3f9608321fae97
)";

absl::Status DecodeDeltaStatus(std::string_view bytes) {
  return DecodeReferenceDelta(bytes).status();
}

std::vector<DataLocation> ManyLocations(size_t n) {
  std::vector<DataLocation> out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back(Location(absl::StrCat("file:///stage/objects/", i), "application/octet-stream", i,
                           absl::StrFormat("%064x", i)));
  }
  return out;
}

TEST_CASE("a reference delta is built from the file cells of the appended batches") {
  ColumnBatch first = testing::SampleBatch(0, 6);
  ColumnBatch again = testing::SampleBatch(3, 4);  // rows 3..6: 3, 4 and 6 repeat
  absl::StatusOr<ReferenceDelta> delta =
      BuildReferenceDelta(9, 4, 5, testing::SampleSchema(), {first, again});
  LAKE_REQUIRE_OK(delta);
  CHECK(delta->table_id == 9);
  CHECK(delta->parent_version == 4);
  CHECK(delta->child_version == 5);
  CHECK(delta->removed.empty());
  // Non-null video cells are rows with row % 3 != 2: 0, 1, 3, 4, 6.
  std::vector<DataLocation> expected;
  for (int64_t row : {0, 1, 3, 4, 6}) {
    expected.push_back(Location(testing::SampleUri(row), "video/mp4",
                                static_cast<uint64_t>(1000 + row), testing::SampleSha256(row)));
  }
  CanonicalizeReferences(&expected);
  CHECK(delta->added == expected);
  CHECK(std::is_sorted(delta->added.begin(), delta->added.end(), ReferenceLess));

  CHECK(absl::IsInvalidArgument(
      BuildReferenceDelta(9, 5, 5, testing::SampleSchema(), {first}).status()));
  CHECK(absl::IsInvalidArgument(BuildReferenceDelta(9, 4, 5, TinySchema(), {first}).status()));
}

TEST_CASE("a batch's reference delta encodes as the delta built from it, read in place") {
  // Two batches sharing rows 3..6, then a table of one file column with more
  // than one chunk of entries, repeats and nulls among them.
  ColumnBatch first = testing::SampleBatch(0, 6);
  ColumnBatch again = testing::SampleBatch(3, 4);
  auto same_as_built = [](uint64_t table_id, const Schema& schema,
                          std::vector<ColumnBatch> batches) {
    absl::StatusOr<ReferenceDelta> built = BuildReferenceDelta(table_id, 4, 5, schema, batches);
    LAKE_REQUIRE_OK(built);
    absl::StatusOr<EncodedReferenceDelta> expected = EncodeReferenceDelta(*built);
    LAKE_REQUIRE_OK(expected);
    absl::StatusOr<EncodedReferenceDelta> encoded =
        EncodeBatchReferenceDelta(table_id, 4, 5, schema, batches);
    LAKE_REQUIRE_OK(encoded);
    CHECK(encoded->bytes == expected->bytes);
    CHECK(encoded->digest == expected->digest);
    absl::StatusOr<ReferenceDelta> decoded = DecodeReferenceDelta(encoded->bytes);
    LAKE_REQUIRE_OK(decoded);
    CHECK(*decoded == *built);
    return built->added.size();
  };
  CHECK(same_as_built(9, testing::SampleSchema(), {first, again}) == 5);

  Schema files{{{"name", ColumnType::kUtf8}, {"video", ColumnType::kFile}}};
  ColumnBatch many = ColumnBatch::Empty(files);
  std::vector<DataLocation> locations = ManyLocations(kReferenceDeltaChunkEntries + 300);
  // Every location once in reverse, nulls between, then a few again.
  for (size_t i = locations.size(); i-- > 0;) {
    LAKE_REQUIRE_OK(many.AppendRow({std::string("r"), locations[i]}));
    if (i % 97 == 0) LAKE_REQUIRE_OK(many.AppendRow({std::string("null"), std::monostate{}}));
  }
  for (size_t i = 0; i < 50; ++i) {
    LAKE_REQUIRE_OK(many.AppendRow({std::string("again"), locations[i * 7]}));
  }
  LAKE_REQUIRE_OK(many.Validate());
  CHECK(same_as_built(3, files, {many}) == locations.size());
  CHECK(same_as_built(3, files, {ColumnBatch::Empty(files)}) == 0);

  CHECK(absl::IsInvalidArgument(
      EncodeBatchReferenceDelta(9, 5, 5, testing::SampleSchema(), {first}).status()));
  CHECK(absl::IsInvalidArgument(
      EncodeBatchReferenceDelta(9, 4, 5, TinySchema(), {first}).status()));
  // The one check of its own: the uri bound of this format.
  ColumnBatch long_uri = ColumnBatch::Empty(files);
  LAKE_REQUIRE_OK(long_uri.AppendRow(
      {std::string("long"),
       Location("file:///" + std::string(kMaxReferenceUriBytes, 'a'), "a/b", 1, kShaAbc)}));
  absl::Status status = EncodeBatchReferenceDelta(3, 4, 5, files, {long_uri}).status();
  CHECK(absl::IsInvalidArgument(status));
  CHECK(Contains(status, "longer than 4096"));
}

TEST_CASE("a batch's delta orders URIs sharing a long prefix as the built delta does") {
  // The encoder keys each URI by the 8 bytes after the prefix all share:
  // URIs that differ only past those bytes, one the prefix of another, the
  // same URI with other fields, all in the order ReferenceLess gives.
  const std::string root = "file:///var/lake/stage/objects/";
  std::vector<DataLocation> refs = {
      Location(root + "ab/0123456789z", "a/b", 1, kShaAbc),
      Location(root + "ab/0123456789a", "a/b", 1, kShaAbc),
      Location(root + "ab/01234567", "a/b", 1, kShaAbc),
      Location(root + "ab/0123456", "a/b", 1, kShaAbc),
      Location(root + "ab/01234567", "z/z", 1, kShaAbc),
      Location(root + "ab/01234567", "a/b", 1, kShaEmpty),
      Location(root + "aa/9", "a/b", 1, kShaAbc),
      Location(root + "ab/0123456789a", "a/b", 1, kShaAbc)};
  Schema files{{{"video", ColumnType::kFile}}};
  ColumnBatch batch = ColumnBatch::Empty(files);
  for (const DataLocation& ref : refs) LAKE_REQUIRE_OK(batch.AppendRow({ref}));
  LAKE_REQUIRE_OK(batch.Validate());
  absl::StatusOr<EncodedReferenceDelta> encoded = EncodeBatchReferenceDelta(3, 4, 5, files, {batch});
  LAKE_REQUIRE_OK(encoded);
  absl::StatusOr<ReferenceDelta> decoded = DecodeReferenceDelta(encoded->bytes);
  LAKE_REQUIRE_OK(decoded);
  CanonicalizeReferences(&refs);
  CHECK(refs.size() == 7);
  CHECK(decoded->added == refs);
}

TEST_CASE("the canonical order is uri, then content type, size and sha256") {
  std::vector<DataLocation> refs = {
      Location("file:///b", "a/b", 1, kShaAbc), Location("file:///a", "z/z", 1, kShaAbc),
      Location("file:///a", "a/b", 2, kShaAbc), Location("file:///a", "a/b", 1, kShaEmpty),
      Location("file:///a", "a/b", 1, kShaAbc), Location("file:///a", "a/b", 1, kShaAbc)};
  CanonicalizeReferences(&refs);
  REQUIRE(refs.size() == 5);
  CHECK(refs[0] == Location("file:///a", "a/b", 1, kShaAbc));
  CHECK(refs[1] == Location("file:///a", "a/b", 1, kShaEmpty));
  CHECK(refs[2] == Location("file:///a", "a/b", 2, kShaAbc));
  CHECK(refs[3] == Location("file:///a", "z/z", 1, kShaAbc));
  CHECK(refs[4] == Location("file:///b", "a/b", 1, kShaAbc));
}

TEST_CASE("a reference delta round-trips and its digest is the SHA-256 before the trailer") {
  absl::StatusOr<EncodedReferenceDelta> encoded = EncodeReferenceDelta(TinyDelta());
  LAKE_REQUIRE_OK(encoded);
  const std::string& bytes = encoded->bytes;
  std::string before_trailer = bytes.substr(0, bytes.size() - 32);
  CHECK(encoded->digest ==
        testing::Sha256Hex(reinterpret_cast<const uint8_t*>(before_trailer.data()),
                           before_trailer.size()));
  CHECK(Hex(bytes.substr(bytes.size() - 32)) == encoded->digest);
  absl::StatusOr<ReferenceDelta> back = DecodeReferenceDelta(bytes);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == TinyDelta());
}

TEST_CASE("a reference delta's digest is a pure function of its canonical content") {
  ReferenceDelta shuffled = TinyDelta();
  std::reverse(shuffled.added.begin(), shuffled.added.end());
  shuffled.added.push_back(shuffled.added[0]);  // a duplicate
  EncodedReferenceDelta a = *EncodeReferenceDelta(TinyDelta());
  EncodedReferenceDelta b = *EncodeReferenceDelta(shuffled);
  CHECK(a.bytes == b.bytes);
  CHECK(a.digest == b.digest);
  ReferenceDelta other_table = TinyDelta();
  other_table.table_id = 43;
  CHECK(EncodeReferenceDelta(other_table)->digest != a.digest);
  ReferenceDelta other_size = TinyDelta();
  other_size.added[0].size_bytes = 4;
  CHECK(EncodeReferenceDelta(other_size)->digest != a.digest);
}

TEST_CASE("the reference delta format matches its golden bytes") {
  absl::StatusOr<EncodedReferenceDelta> encoded = EncodeReferenceDelta(TinyDelta());
  LAKE_REQUIRE_OK(encoded);
  INFO("encoded: ", Hex(encoded->bytes));
  CHECK(Hex(encoded->bytes) == Hex(FromHex(kGoldenDeltaHex)));
  absl::StatusOr<ReferenceDelta> golden = DecodeReferenceDelta(FromHex(kGoldenDeltaHex));
  LAKE_REQUIRE_OK(golden);
  CHECK(*golden == TinyDelta());
}

TEST_CASE("every single-byte change and every truncation of a reference delta is refused") {
  std::string bytes = EncodeReferenceDelta(TinyDelta())->bytes;
  std::vector<std::string> missed = DamageNotRefused(bytes, DecodeDeltaStatus);
  CHECK_MESSAGE(missed.empty(), missed.size(),
                " not refused, first: ", missed.empty() ? "" : missed[0]);
  CHECK(absl::IsDataLoss(DecodeDeltaStatus(bytes + "x")));
}

TEST_CASE("a compaction's delta adds nothing and still records its edge") {
  ReferenceDelta compaction{42, 7, 8, {}, {}};
  absl::StatusOr<EncodedReferenceDelta> encoded = EncodeReferenceDelta(compaction);
  LAKE_REQUIRE_OK(encoded);
  CHECK(encoded->bytes.size() ==
        ReferenceDeltaReader::kHeaderBytes + ReferenceDeltaReader::kTrailerBytes);
  absl::StatusOr<ReferenceDelta> back = DecodeReferenceDelta(encoded->bytes);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == compaction);
}

TEST_CASE("a reference delta is read one chunk at a time") {
  ReferenceDelta delta{1, 0, 1, ManyLocations(2 * kReferenceDeltaChunkEntries + 5), {}};
  CanonicalizeReferences(&delta.added);
  absl::StatusOr<EncodedReferenceDelta> encoded = EncodeReferenceDelta(delta);
  LAKE_REQUIRE_OK(encoded);
  ReferenceDeltaReader reader;
  std::vector<size_t> chunk_sizes;
  std::vector<DataLocation> all;
  std::vector<DataLocation> entries;
  size_t offset = 0;
  size_t largest_piece = 0;
  while (!reader.done()) {
    size_t n = reader.next_piece_bytes();
    largest_piece = std::max(largest_piece, n);
    LAKE_REQUIRE_OK(reader.Next(std::string_view(encoded->bytes).substr(offset, n), &entries));
    offset += n;
    if (!entries.empty()) chunk_sizes.push_back(entries.size());
    all.insert(all.end(), entries.begin(), entries.end());
  }
  CHECK(offset == encoded->bytes.size());
  CHECK(chunk_sizes == std::vector<size_t>{4096, 4096, 5});
  CHECK(all == delta.added);
  CHECK(reader.digest() == encoded->digest);
  CHECK(reader.header().added_count == delta.added.size());
  CHECK(largest_piece < encoded->bytes.size() / 2);
  CHECK(absl::IsFailedPrecondition(reader.Next("", &entries)));
}

TEST_CASE("a reference delta with removals round-trips in format 2") {
  ReferenceDelta delta = TinyDelta();
  delta.removed = {delta.added[1]};
  delta.added.pop_back();
  absl::StatusOr<EncodedReferenceDelta> encoded = EncodeReferenceDelta(delta);
  LAKE_REQUIRE_OK(encoded);
  uint32_t format_version = 0;
  std::memcpy(&format_version, encoded->bytes.data() + 8, 4);
  CHECK(format_version == kReferenceDeltaFormatVersion);
  absl::StatusOr<ReferenceDelta> back = DecodeReferenceDelta(encoded->bytes);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == delta);
}

TEST_CASE("a reference delta without removals is still written in format 1") {
  absl::StatusOr<EncodedReferenceDelta> encoded = EncodeReferenceDelta(TinyDelta());
  LAKE_REQUIRE_OK(encoded);
  uint32_t format_version = 0;
  std::memcpy(&format_version, encoded->bytes.data() + 8, 4);
  CHECK(format_version == kReferenceDeltaFormatVersionV1);
}

TEST_CASE("every single-byte change and every truncation of a delta with removals is refused") {
  ReferenceDelta delta = TinyDelta();
  delta.removed = {delta.added[0]};
  std::string bytes = EncodeReferenceDelta(delta)->bytes;
  std::vector<std::string> missed = DamageNotRefused(bytes, DecodeDeltaStatus);
  CHECK_MESSAGE(missed.empty(), missed.size(),
                " not refused, first: ", missed.empty() ? "" : missed[0]);
}

TEST_CASE("a reference delta of invalid entries or versions is not encoded") {
  ReferenceDelta backwards = TinyDelta();
  backwards.child_version = 2;
  CHECK(absl::IsInvalidArgument(EncodeReferenceDelta(backwards).status()));
  ReferenceDelta upper = TinyDelta();
  upper.added[0].sha256 = std::string(64, 'A');
  CHECK(absl::IsInvalidArgument(EncodeReferenceDelta(upper).status()));
  ReferenceDelta long_uri = TinyDelta();
  long_uri.added[0] =
      Location("file:///" + std::string(kMaxReferenceUriBytes, 'a'), "a/b", 1, kShaAbc);
  absl::Status status = EncodeReferenceDelta(long_uri).status();
  CHECK(absl::IsInvalidArgument(status));
  CHECK(Contains(status, "longer than 4096"));
  ReferenceDelta bad_uri = TinyDelta();
  bad_uri.added[0].uri = "file:///a/../b";
  CHECK(absl::IsInvalidArgument(EncodeReferenceDelta(bad_uri).status()));
}

// Chunks of `entries` per the format note, every checksum right.
void HandChunks(ByteWriter& w, const std::vector<DataLocation>& entries) {
  for (size_t start = 0; start < entries.size(); start += kReferenceDeltaChunkEntries) {
    std::string payload;
    ByteWriter p(&payload);
    size_t end = std::min(entries.size(), start + kReferenceDeltaChunkEntries);
    for (size_t i = start; i < end; ++i) {
      p.U16(static_cast<uint16_t>(entries[i].uri.size()));
      p.Bytes(entries[i].uri);
      p.U8(static_cast<uint8_t>(entries[i].content_type.size()));
      p.Bytes(entries[i].content_type);
      p.U64(entries[i].size_bytes);
      p.Sha256(*Sha256FromHex(entries[i].sha256));
    }
    w.U32(static_cast<uint32_t>(end - start));
    w.U32(static_cast<uint32_t>(payload.size()));
    w.U64(Checksum64(payload));
    w.Bytes(payload);
  }
}

// A delta per the format note, written by hand with every checksum right:
// the entries in the order given, `removed_count` as given (in format 1,
// with no removed entries following, unless `removed` is given: then
// format 2).
std::string HandDelta(uint64_t parent, uint64_t child, const std::vector<DataLocation>& entries,
                      uint32_t removed_count = 0, const std::vector<DataLocation>& removed = {}) {
  std::string out;
  ByteWriter w(&out);
  w.Bytes("LAKEREFS");
  w.U32(removed.empty() ? 1 : 2);
  w.U32(removed.empty() ? removed_count : static_cast<uint32_t>(removed.size()));
  w.U64(42);
  w.U64(parent);
  w.U64(child);
  w.U64(entries.size());
  w.U64(Checksum64(out));
  HandChunks(w, entries);
  HandChunks(w, removed);
  w.Sha256(*Sha256FromHex(Sha256Hex(out)));
  return out;
}

TEST_CASE("the reference delta encoder writes what the format note says") {
  ReferenceDelta delta = TinyDelta();
  CHECK(Hex(HandDelta(2, 3, delta.added)) == Hex(EncodeReferenceDelta(delta)->bytes));
  ReferenceDelta big{42, 2, 3, ManyLocations(kReferenceDeltaChunkEntries + 1), {}};
  CanonicalizeReferences(&big.added);
  CHECK(HandDelta(2, 3, big.added) == EncodeReferenceDelta(big)->bytes);
  ReferenceDelta removing{42, 2, 3, {TinyDelta().added[0]}, big.added};
  CHECK(HandDelta(2, 3, removing.added, 0, big.added) == EncodeReferenceDelta(removing)->bytes);
}

TEST_CASE("a delta's removals are in order of their own, after its additions") {
  std::vector<DataLocation> sorted = TinyDelta().added;
  // The removals start again from the smallest entry: no order across lists.
  LAKE_CHECK_OK(DecodeDeltaStatus(HandDelta(2, 3, sorted, 0, sorted)));
  std::vector<DataLocation> reversed(sorted.rbegin(), sorted.rend());
  CHECK(Contains(DecodeDeltaStatus(HandDelta(2, 3, sorted, 0, reversed)), "out of order"));
  std::string no_removal = HandDelta(2, 3, sorted);
  no_removal[8] = 2;  // format 2 that removes nothing: not canonical
  uint64_t checksum = Checksum64(std::string_view(no_removal).substr(0, 48));
  std::memcpy(no_removal.data() + 48, &checksum, 8);
  CHECK(absl::IsDataLoss(DecodeDeltaStatus(no_removal)));
}

TEST_CASE("a reference delta file with intact checksums but broken content is refused") {
  std::vector<DataLocation> sorted = TinyDelta().added;
  absl::Status removal = DecodeDeltaStatus(HandDelta(2, 3, sorted, 1));
  CHECK(absl::IsDataLoss(removal));
  CHECK(Contains(removal, "removes 1 references"));
  std::vector<DataLocation> reversed(sorted.rbegin(), sorted.rend());
  absl::Status order = DecodeDeltaStatus(HandDelta(2, 3, reversed));
  CHECK(absl::IsDataLoss(order));
  CHECK(Contains(order, "out of order"));
  std::vector<DataLocation> repeated = {sorted[0], sorted[0]};
  CHECK(Contains(DecodeDeltaStatus(HandDelta(2, 3, repeated)), "out of order or repeated"));
  absl::Status backwards = DecodeDeltaStatus(HandDelta(3, 3, sorted));
  CHECK(absl::IsDataLoss(backwards));
  CHECK(Contains(backwards, "parent version 3 is not before it"));
  std::vector<DataLocation> upper = {sorted[0]};
  upper[0].uri = "file:///s/objects/%7e";  // percent-encodes an unreserved byte
  absl::Status non_canonical = DecodeDeltaStatus(HandDelta(2, 3, upper));
  CHECK(absl::IsDataLoss(non_canonical));
  // Order across chunks is checked too: the second chunk starts before the first ends.
  std::vector<DataLocation> many = ManyLocations(kReferenceDeltaChunkEntries + 1);
  CanonicalizeReferences(&many);
  std::swap(many[kReferenceDeltaChunkEntries - 1], many[kReferenceDeltaChunkEntries]);
  CHECK(Contains(DecodeDeltaStatus(HandDelta(2, 3, many)), "entry 4096 is out of order"));
}

TEST_CASE("a reference delta chunk's size is bounded before it is read") {
  std::string bytes = HandDelta(2, 3, TinyDelta().added);
  // The payload_bytes field of the first chunk, at 56 + 4.
  std::string huge = bytes;
  uint32_t too_big = static_cast<uint32_t>(kMaxReferenceChunkBytes + 1);
  std::memcpy(huge.data() + 60, &too_big, 4);
  ReferenceDeltaReader reader;
  std::vector<DataLocation> entries;
  LAKE_REQUIRE_OK(reader.Next(std::string_view(huge).substr(0, 56), &entries));
  absl::Status status = reader.Next(std::string_view(huge).substr(56, 16), &entries);
  CHECK(absl::IsDataLoss(status));
  CHECK(Contains(status, "too large"));
  CHECK(reader.next_piece_bytes() == 0);
}
}  // namespace
}  // namespace lake::table
