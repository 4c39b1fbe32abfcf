// Spill runs (spill/run_format.h): what the encoder writes, the decoder
// reads back, and every kind of damage the decoder refuses.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <xxhash.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "io/posix/posix_file_system.h"
#include "spill/run_decoder.h"
#include "spill/run_encoder.h"
#include "spill/run_format.h"
#include "spill/run_reader.h"
#include "spill/run_writer.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::spill {
namespace {

constexpr size_t kBlock = kMinBlockBytes;

// Sorted, distinct records like the ones garbage collection spills (URIs
// with a payload), with some random binary ones among them.
std::vector<std::string> SampleRecords(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::string> records;
  while (records.size() < n) {
    std::string r = "file:///lake/stage/objects/" + std::to_string(rng() % 100000) + "/" +
                    std::to_string(rng());
    if (rng() % 5 == 0) {
      r.assign(rng() % 40, '\0');
      for (char& c : r) c = static_cast<char>(rng());
    }
    r.push_back('\0');
    r += "kind";
    records.insert(r);
  }
  return {records.begin(), records.end()};
}

std::string Encode(const std::vector<std::string>& records, size_t block = kBlock) {
  absl::StatusOr<std::string> run = EncodeRun(records, block);
  REQUIRE_MESSAGE(run.ok(), run.status().ToString());
  return *run;
}

void CheckDataLoss(std::string_view bytes) {
  absl::StatusOr<std::vector<std::string>> decoded = DecodeRun(bytes);
  REQUIRE_FALSE(decoded.ok());
  CHECK_MESSAGE(absl::IsDataLoss(decoded.status()), decoded.status().ToString());
}

template <typename T>
void PutAt(std::string& bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(value));
}

// The offsets of each block's frame in a run.
std::vector<size_t> BlockOffsets(const std::string& run) {
  std::vector<size_t> offsets;
  size_t at = kRunHeaderBytes;
  while (at < run.size() - kRunTrailerBytes) {
    offsets.push_back(at);
    uint32_t stored;
    std::memcpy(&stored, run.data() + at + 4, sizeof(stored));
    at += kBlockFrameBytes + stored;
  }
  return offsets;
}

TEST_CASE("a run gives back its records in order, across many blocks") {
  std::vector<std::string> records = SampleRecords(5000, 1);
  records.insert(records.begin(), "");  // the empty record sorts first
  std::string run = Encode(records);
  CHECK(BlockOffsets(run).size() > 10);
  absl::StatusOr<std::vector<std::string>> decoded = DecodeRun(run);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == records);
}

TEST_CASE("an empty run holds no records") {
  std::string run = Encode({});
  CHECK(run.size() == kRunHeaderBytes + kRunTrailerBytes);
  absl::StatusOr<std::vector<std::string>> decoded = DecodeRun(run);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->empty());
}

TEST_CASE("a run's bytes are the documented format") {
  // Too small for zstd to shrink: one stored block, so the bytes are fixed.
  std::string run = Encode({"ab", "abc", "b"});
  std::string raw = std::string("\x00\x02" "ab" "\x02\x01" "c" "\x00\x01" "b", 10);
  std::string header = std::string("LAKESPIL") + std::string("\x01\x00\x00\x00", 4) +
                       std::string("\x00\x10\x00\x00", 4);
  uint64_t header_sum = XXH3_64bits(header.data(), header.size());
  header.append(reinterpret_cast<const char*>(&header_sum), 8);
  std::string frame = std::string("\x0a\x00\x00\x00" "\x0a\x00\x00\x00" "\x03\x00\x00\x00"
                                  "\x00\x00\x00\x00", 16);
  uint64_t block_sum =
      XXH3_64bits_withSeed(frame.data(), frame.size(), XXH3_64bits(raw.data(), raw.size()));
  frame.append(reinterpret_cast<const char*>(&block_sum), 8);
  std::string trailer;
  uint64_t fields[3] = {3, 1, XXH3_64bits_withSeed(&block_sum, 8, 0)};
  trailer.append(reinterpret_cast<const char*>(fields), sizeof(fields));
  uint64_t trailer_sum = XXH3_64bits(trailer.data(), trailer.size());
  trailer.append(reinterpret_cast<const char*>(&trailer_sum), 8);
  trailer += "SPILLEND";
  CHECK(absl::BytesToHexString(run) == absl::BytesToHexString(header + frame + raw + trailer));
}

TEST_CASE("the encoder refuses records out of order or repeated, and keeps its run") {
  std::string out;
  class Sink final : public RunByteSink {
   public:
    explicit Sink(std::string* out) : out_(out) {}
    absl::Status Append(absl::Span<const std::string_view> pieces) override {
      for (std::string_view p : pieces) out_->append(p);
      return absl::OkStatus();
    }
    std::string* out_;
  } sink(&out);
  SpillBudget budget(RunEncoder::BudgetBytes(kBlock, kDefaultRunZstdLevel));
  absl::StatusOr<std::unique_ptr<RunEncoder>> encoder =
      RunEncoder::Create(budget, kBlock, kDefaultRunZstdLevel, &sink);
  LAKE_REQUIRE_OK(encoder);
  LAKE_REQUIRE_OK((*encoder)->Add("b"));
  CHECK(absl::IsFailedPrecondition((*encoder)->Add("b")));
  CHECK(absl::IsFailedPrecondition((*encoder)->Add("a")));
  LAKE_REQUIRE_OK((*encoder)->Add("c"));
  LAKE_REQUIRE_OK((*encoder)->Finish());
  absl::StatusOr<std::vector<std::string>> decoded = DecodeRun(out);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == std::vector<std::string>{"b", "c"});
}

TEST_CASE("a record longer than a block holds is refused; the longest that fits round-trips") {
  std::string longest(MaxRecordBytes(kBlock), 'x');
  CHECK(absl::IsInvalidArgument(EncodeRun({longest + "x"}, kBlock).status()));
  std::vector<std::string> records = {"a", longest, "y"};
  absl::StatusOr<std::vector<std::string>> decoded = DecodeRun(Encode(records));
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == records);
}

TEST_CASE("a damaged byte anywhere in a run is data loss") {
  std::string run = Encode(SampleRecords(300, 2));
  // Every byte of a small run: the header, frames, stored bytes, trailer.
  for (size_t i = 0; i < run.size(); ++i) {
    std::string damaged = run;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x20);
    CAPTURE(i);
    CheckDataLoss(damaged);
  }
}

TEST_CASE("a run cut short anywhere is data loss") {
  std::string run = Encode(SampleRecords(300, 3));
  for (size_t size = 0; size < run.size(); ++size) {
    CAPTURE(size);
    CheckDataLoss(std::string_view(run).substr(0, size));
  }
}

TEST_CASE("a run with a block lost, repeated or moved is data loss") {
  std::string run = Encode(SampleRecords(3000, 4));
  std::vector<size_t> at = BlockOffsets(run);
  REQUIRE(at.size() >= 3);
  const size_t body_end = run.size() - kRunTrailerBytes;
  std::string header = run.substr(0, at[0]);
  std::string first = run.substr(at[0], at[1] - at[0]);
  std::string second = run.substr(at[1], at[2] - at[1]);
  std::string rest = run.substr(at[2], body_end - at[2]);
  std::string trailer = run.substr(body_end);
  CheckDataLoss(header + second + rest + trailer);           // lost
  CheckDataLoss(header + first + first + second + rest + trailer);  // repeated
  CheckDataLoss(header + second + first + rest + trailer);   // moved
}

TEST_CASE("a run of an unknown format version is data loss") {
  std::string run = Encode({"a"});
  PutAt<uint32_t>(run, 8, kRunFormatVersion + 1);
  PutAt<uint64_t>(run, 16, XXH3_64bits(run.data(), 16));  // a well-formed header
  absl::StatusOr<std::vector<std::string>> decoded = DecodeRun(run);
  REQUIRE(absl::IsDataLoss(decoded.status()));
  CHECK(absl::StrContains(decoded.status().message(), "version 2"));
}

TEST_CASE("a run of blocks larger than the reader planned for is data loss") {
  std::string run = Encode({"a", "b"}, 2 * kBlock);
  CHECK(DecodeRun(run, 2 * kBlock).ok());
  absl::StatusOr<std::vector<std::string>> decoded = DecodeRun(run, kBlock);
  REQUIRE(absl::IsDataLoss(decoded.status()));
}

TEST_CASE("a block holding records out of order is data loss, checksums notwithstanding") {
  // A well-formed stored block whose second record sorts before the first.
  std::string raw = std::string("\x00\x01" "b" "\x00\x01" "a", 6);
  std::string run = EncodeRunHeader(kBlock);
  BlockFrame frame{6, 6, 2, BlockCodec::kStored, 0};
  std::string frame_bytes = EncodeBlockFrame(frame, raw);
  std::memcpy(&frame.checksum, frame_bytes.data() + 16, 8);
  run += frame_bytes + raw;
  run += EncodeRunTrailer({2, 1, NextBlocksDigest(0, frame.checksum)});
  absl::StatusOr<std::vector<std::string>> decoded = DecodeRun(run);
  REQUIRE(absl::IsDataLoss(decoded.status()));
  CHECK(absl::StrContains(decoded.status().message(), "order"));
}

TEST_CASE("a run written to a file reads back, and a damaged file is data loss") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::vector<std::string> records = SampleRecords(2000, 5);
  SpillBudget budget(1 << 20);
  std::string path = dir.Join("run");
  {
    absl::StatusOr<std::unique_ptr<RunWriter>> writer =
        RunWriter::Create(fs, path, budget, kBlock, kDefaultRunZstdLevel);
    LAKE_REQUIRE_OK(writer);
    for (const std::string& r : records) LAKE_REQUIRE_OK((*writer)->Add(r));
    absl::StatusOr<RunFile> run = (*writer)->Finish();
    LAKE_REQUIRE_OK(run);
    CHECK(run->records == records.size());
    CHECK(run->bytes == testing::ReadFile(path).size());
  }
  CHECK(budget.in_use() == 0);
  auto read_all = [&]() -> absl::StatusOr<std::vector<std::string>> {
    absl::StatusOr<std::unique_ptr<BlockInflater>> inflater = BlockInflater::Create(budget, kBlock);
    if (!inflater.ok()) return inflater.status();
    absl::StatusOr<std::unique_ptr<RunReader>> reader =
        RunReader::Open(fs, path, inflater->get(), budget);
    if (!reader.ok()) return reader.status();
    std::vector<std::string> out;
    for (;;) {
      absl::StatusOr<bool> more = (*reader)->Next();
      if (!more.ok()) return more.status();
      if (!*more) return out;
      out.emplace_back((*reader)->record());
    }
  };
  absl::StatusOr<std::vector<std::string>> read = read_all();
  LAKE_REQUIRE_OK(read);
  CHECK(*read == records);

  std::vector<uint8_t> bytes = testing::ReadFile(path);
  bytes[bytes.size() / 2] ^= 1;
  testing::WriteFile(path, bytes);
  read = read_all();
  REQUIRE(absl::IsDataLoss(read.status()));
  CHECK(absl::StrContains(read.status().message(), path));
  CHECK(budget.in_use() == 0);
}

}  // namespace
}  // namespace lake::spill
