// Event-log frames and shards: the frame scan, the seal rules, shard locks,
// group commit, and a SIGKILL or power loss in the middle of an append.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include <xxhash.h>

#include "absl/strings/str_cat.h"

#include "base/failpoint.h"
#include "engine/events/event_log_frame.h"
#include "engine/events/shard_log.h"
#include "engine/table/byte_codec.h"
#include "io/durable_paths.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::events {
namespace {

// The frame seed of the segments these tests build by hand.
constexpr uint64_t kTestSeed = 0x5eed5eed5eed5eedull;

// The seal opening a segment 1 whose frames are checksummed with `seed`.
std::string SealOf(uint64_t seed = kTestSeed) {
  return EncodeSegmentSeal(SegmentSeal{0, 0, seed});
}

std::string EventsFrame(std::string_view payload, uint32_t records = 1,
                        uint64_t seed = kTestSeed, bool prior_synced = true) {
  std::string frame;
  AppendFrame(FrameKind::kEvents, records, payload, seed, &frame, prior_synced);
  return frame;
}

std::vector<std::string> Payloads(const ShardContents& contents) {
  std::vector<std::string> out;
  for (const Frame& f : contents.event_frames) out.emplace_back(f.payload);
  return out;
}

// The contents of every shard under `shards_dir`.
std::vector<ShardContents> AllShards(io::FileSystem& fs, const std::string& shards_dir) {
  std::vector<ShardContents> all;
  absl::StatusOr<std::vector<std::string>> shards = ListShards(fs, shards_dir);
  REQUIRE(shards.ok());
  for (const std::string& id : *shards) {
    absl::StatusOr<ShardContents> contents = ReadShard(fs, shards_dir + "/" + id);
    LAKE_REQUIRE_OK(contents);
    all.push_back(std::move(*contents));
  }
  return all;
}

std::vector<std::string> PayloadsOfAllShards(io::FileSystem& fs, const std::string& shards_dir) {
  std::vector<std::string> out;
  for (const ShardContents& contents : AllShards(fs, shards_dir)) {
    for (std::string& p : Payloads(contents)) out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Fixed-width payloads of one record each, for the tests of concurrent
// appends: a group commit writes its frames as one, their payloads back to
// back, which RecordsOfAllShards splits again.
constexpr size_t kRecordWidth = 8;
std::string Record(int n) {
  std::string digits = std::to_string(n);
  return std::string(kRecordWidth - digits.size(), '0') + digits;
}

std::vector<std::string> RecordsOfAllShards(io::FileSystem& fs, const std::string& shards_dir) {
  std::vector<std::string> out;
  for (const ShardContents& contents : AllShards(fs, shards_dir)) {
    for (const Frame& f : contents.event_frames) {
      REQUIRE(f.payload.size() == f.records * kRecordWidth);
      for (size_t r = 0; r < f.records; ++r) {
        out.emplace_back(f.payload.substr(r * kRecordWidth, kRecordWidth));
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string OnlyShardDir(io::FileSystem& fs, const std::string& shards_dir) {
  absl::StatusOr<std::vector<std::string>> shards = ListShards(fs, shards_dir);
  REQUIRE(shards.ok());
  REQUIRE(shards->size() == 1);
  return shards_dir + "/" + shards->front();
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x40);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

// Waits for the child `pid`, which must have died of SIGKILL.
void ExpectKilled(pid_t pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

// A shards directory whose writers go through a fault-injecting file system
// (for power losses) while the checks after one read the disk as it is.
struct FaultyShards {
  FaultyShards() : shards(dir.Join("shards")) {
    std::filesystem::create_directory(dir.Join("backups"));
    fs.emplace(base, dir.Join("backups"));
  }
  std::unique_ptr<ShardWriter> OpenWriter() {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(*fs, shards);
    LAKE_REQUIRE_OK(w);
    return std::move(*w);
  }
  // The shard as the disk holds it (after the power loss).
  std::vector<std::string> PayloadsOnDisk() {
    absl::StatusOr<ShardContents> contents = ReadShard(base, OnlyShardDir(base, shards));
    LAKE_REQUIRE_OK(contents);
    return Payloads(*contents);
  }
  testing::TempDir dir;
  std::string shards;
  io::PosixFileSystem base;
  std::optional<testing::FaultInjectionFileSystem> fs;
};

TEST_CASE("frames scan back in order with their kinds, counts and payloads") {
  const std::string seal = SealOf();
  std::string segment = seal + EventsFrame("alpha", 2) + EventsFrame("", 0) + EventsFrame("gamma", 7);
  absl::StatusOr<SegmentScan> scan = ScanSegment(segment, "s");
  LAKE_REQUIRE_OK(scan);
  CHECK(scan->version == kFrameFormatVersion);
  CHECK(scan->frame_seed == kTestSeed);
  REQUIRE(scan->frames.size() == 4);
  CHECK(scan->frames[0].kind == FrameKind::kSegmentSeal);
  CHECK(scan->frames[1].payload == "alpha");
  CHECK(scan->frames[1].records == 2);
  CHECK(scan->frames[2].payload.empty());
  CHECK(scan->frames[3].payload == "gamma");
  CHECK(scan->frames[3].records == 7);
  CHECK(scan->frames[3].offset == seal.size() + 2 * kFrameHeaderBytes + 5);
  CHECK(scan->valid_bytes == segment.size());
  CHECK_FALSE(scan->torn_tail);
  // From the end of a frame read before: the frames after it.
  absl::StatusOr<SegmentScan> rest = ScanSegment(segment, "s", scan->frames[2].offset);
  LAKE_REQUIRE_OK(rest);
  REQUIRE(rest->frames.size() == 2);
  CHECK(rest->frames[1].offset == scan->frames[3].offset);
}

TEST_CASE("a frame cut anywhere at the end is a torn tail: the frames before it stand") {
  std::string good = SealOf() + EventsFrame("first") + EventsFrame("second");
  std::string last = EventsFrame("third, cut short");
  for (size_t cut = 1; cut < last.size(); ++cut) {
    std::string segment = good + last.substr(0, cut);
    absl::StatusOr<SegmentScan> scan = ScanSegment(segment, "s");
    LAKE_REQUIRE_OK(scan);
    CHECK(scan->frames.size() == 3);
    CHECK(scan->valid_bytes == good.size());
    CHECK(scan->torn_tail);
  }
  absl::StatusOr<SegmentScan> zeros = ScanSegment(good + std::string(4096, '\0'), "s");
  LAKE_REQUIRE_OK(zeros);
  CHECK(zeros->frames.size() == 3);
  CHECK(zeros->torn_tail);
}

TEST_CASE("a damaged frame followed by a valid one is data loss naming the offset") {
  std::string first = SealOf() + EventsFrame("first");
  std::string segment = first + EventsFrame("second") + EventsFrame("third");
  for (size_t at : {first.size() + 2, first.size() + kFrameHeaderBytes + 1}) {
    std::string damaged = segment;
    damaged[at] ^= 0x01;
    absl::StatusOr<SegmentScan> scan = ScanSegment(damaged, "seg-x");
    REQUIRE_FALSE(scan.ok());
    CHECK(absl::IsDataLoss(scan.status()));
    CHECK(std::string(scan.status().message()).find("seg-x") != std::string::npos);
    CHECK(std::string(scan.status().message())
              .find("offset " + std::to_string(first.size())) != std::string::npos);
  }
}

TEST_CASE("only the segment's own frames count: a frame inside an event's value is not one") {
  // A torn frame whose value holds a whole frame of another segment (or one
  // built to match): checksummed with another seed, it is not taken for a
  // frame that follows, so the torn frame is a torn tail, not damage.
  std::string before = SealOf() + EventsFrame("acknowledged");
  std::string inner = EventsFrame("a frame as data", 1, kTestSeed + 1);
  std::string torn = EventsFrame("value: " + inner + " and more");
  std::fill_n(torn.begin(), 8, '\0');  // its header never reached the disk
  absl::StatusOr<SegmentScan> scan = ScanSegment(before + torn, "s");
  LAKE_REQUIRE_OK(scan);
  CHECK(scan->frames.size() == 2);
  CHECK(scan->valid_bytes == before.size());
  CHECK(scan->torn_tail);
  // A frame of the segment's own seed after the torn one is damage.
  CHECK(absl::IsDataLoss(ScanSegment(before + torn + EventsFrame("later"), "s").status()));
}

TEST_CASE("a seal that does not check is a torn opening, or damage when frames follow it") {
  std::string seal = SealOf();
  std::string damaged_seal = seal;
  damaged_seal[kFrameHeaderBytes] ^= 0x01;  // the previous segment's number
  absl::StatusOr<SegmentScan> opening = ScanSegment(damaged_seal + std::string(4096, '\0'), "s");
  LAKE_REQUIRE_OK(opening);
  CHECK(opening->frames.empty());
  CHECK(opening->valid_bytes == 0);
  absl::StatusOr<SegmentScan> damaged = ScanSegment(damaged_seal + EventsFrame("x"), "s");
  CHECK(absl::IsDataLoss(damaged.status()));
}

TEST_CASE("frames grouped as one hold their records in order and are all or nothing") {
  std::string synced = SealOf() + EventsFrame("synced");
  const std::string a_records(5000, 'a'), b_records(5000, 'b');
  std::string group;
  const RecordBatch batches[] = {{3, a_records}, {4, b_records}};
  AppendEventsFrame(batches, kTestSeed, &group);
  const std::string segment = synced + group;
  absl::StatusOr<SegmentScan> whole = ScanSegment(segment, "s");
  LAKE_REQUIRE_OK(whole);
  REQUIRE(whole->frames.size() == 3);
  CHECK(whole->frames[2].kind == FrameKind::kEvents);
  CHECK(whole->frames[2].records == 7);
  CHECK((whole->frames[2].payload == a_records + b_records));
  // A power loss before the group's sync may keep its later pages and not
  // its first (zeros ahead stay zeros): as one frame the group is a torn
  // tail and the synced frame stands.
  std::string lost_start = segment;
  std::fill_n(lost_start.begin() + static_cast<ptrdiff_t>(synced.size()), 4096, '\0');
  absl::StatusOr<SegmentScan> torn = ScanSegment(lost_start, "s");
  LAKE_REQUIRE_OK(torn);
  CHECK(torn->frames.size() == 2);
  CHECK(torn->valid_bytes == synced.size());
  CHECK(torn->torn_tail);
  // Written as two frames, the same loss would leave the second whole after
  // the torn first: indistinguishable from damage.
  std::string two = synced + EventsFrame(a_records, 3) + EventsFrame(b_records, 4);
  std::fill_n(two.begin() + static_cast<ptrdiff_t>(synced.size()), 4096, '\0');
  CHECK(absl::IsDataLoss(ScanSegment(two, "s").status()));
}

// A frame with every header field chosen, checksummed as a writer would;
// `flags` by default as a writer of `version` sets them ("prior synced" in
// version 3, none before).
std::string HandFrame(uint32_t version, uint8_t kind, std::string_view payload,
                      uint64_t seed = kTestSeed, int flags = -1) {
  std::string frame;
  table::ByteWriter w(&frame);
  w.Bytes(kFrameMagic);
  w.U32(version);
  w.U8(kind);
  w.U8(static_cast<uint8_t>(flags >= 0 ? flags : version == kFrameFormatVersion ? 1 : 0));
  w.U8(0);
  w.U8(0);
  w.U32(kind == 2 ? 0 : 1);
  w.U64(payload.size());
  std::string covered = frame + std::string(payload);
  w.U64(XXH3_64bits_withSeed(covered.data(), covered.size(), seed));
  w.Bytes(payload);
  return frame;
}

TEST_CASE("a checksummed frame of another format version, kind or flag is refused, not guessed") {
  CHECK(HandFrame(kFrameFormatVersion, 1, "x") == EventsFrame("x"));
  CHECK(HandFrame(kFrameFormatVersion, 1, "x", kTestSeed, 0) ==
        EventsFrame("x", 1, kTestSeed, /*prior_synced=*/false));
  for (std::string bad :
       {HandFrame(kFrameFormatVersion1, 1, "x"), HandFrame(kFrameFormatVersion2, 1, "x"),
        HandFrame(4, 1, "x"), HandFrame(kFrameFormatVersion, 9, "x"),
        HandFrame(kFrameFormatVersion, 1, "x", kTestSeed, 0x03)}) {
    absl::StatusOr<SegmentScan> scan = ScanSegment(SealOf() + EventsFrame("before") + bad, "s");
    REQUIRE_FALSE(scan.ok());
    CHECK(absl::IsDataLoss(scan.status()));
  }
}

TEST_CASE("segments of frame format version 1 still read: no seed, no seal in segment 1") {
  std::string v1_events = HandFrame(kFrameFormatVersion1, 1, "old", 0);
  const std::string segment = v1_events + v1_events;  // the frames view it
  absl::StatusOr<SegmentScan> first = ScanSegment(segment, "s");
  LAKE_REQUIRE_OK(first);
  CHECK(first->version == kFrameFormatVersion1);
  REQUIRE(first->frames.size() == 2);
  CHECK(first->frames[1].payload == "old");
  // A later version 1 segment opens with a 16-byte seal.
  std::string seal_payload;
  table::ByteWriter w(&seal_payload);
  w.U64(1);
  w.U64(first->valid_bytes);
  std::string sealed = HandFrame(kFrameFormatVersion1, 2, seal_payload, 0) + v1_events;
  absl::StatusOr<SegmentScan> second = ScanSegment(sealed, "s");
  LAKE_REQUIRE_OK(second);
  REQUIRE(second->frames.size() == 2);
  absl::StatusOr<SegmentSeal> seal = DecodeSegmentSeal(second->frames[0]);
  LAKE_REQUIRE_OK(seal);
  CHECK(seal->previous_valid_bytes == first->valid_bytes);
  CHECK(seal->frame_seed == 0);
  // Version 3 frames in a version 1 segment are refused.
  CHECK(absl::IsDataLoss(ScanSegment(v1_events + EventsFrame("new", 1, 0), "s").status()));
}

TEST_CASE("segments of frame format version 2 still read: every frame counts as prior synced") {
  std::string seal_payload;
  table::ByteWriter w(&seal_payload);
  w.U64(0);
  w.U64(0);
  w.U64(kTestSeed);
  const std::string seal = HandFrame(kFrameFormatVersion2, 2, seal_payload, 0);
  const std::string one = HandFrame(kFrameFormatVersion2, 1, "one");
  const std::string two = HandFrame(kFrameFormatVersion2, 1, "two");
  const std::string segment = seal + one + two;  // the frames view it
  absl::StatusOr<SegmentScan> scan = ScanSegment(segment, "s");
  LAKE_REQUIRE_OK(scan);
  CHECK(scan->version == kFrameFormatVersion2);
  CHECK(scan->frame_seed == kTestSeed);
  REQUIRE(scan->frames.size() == 3);
  for (const Frame& f : scan->frames) CHECK(f.prior_synced);
  CHECK(scan->frames[2].payload == "two");
  // Damage before a version 2 frame is damage, as it always was.
  std::string damaged = segment;
  damaged[seal.size() + kFrameHeaderBytes] ^= 0x01;
  CHECK(absl::IsDataLoss(ScanSegment(damaged, "s").status()));
  // A version 2 frame with a flag, or a version 3 one, is refused there.
  CHECK(absl::IsDataLoss(
      ScanSegment(seal + HandFrame(kFrameFormatVersion2, 1, "x", kTestSeed, 1), "s").status()));
  CHECK(absl::IsDataLoss(ScanSegment(seal + EventsFrame("x"), "s").status()));
}

TEST_CASE("bytes that do not scan, followed only by frames without prior synced, are a torn tail") {
  // A power loss after relaxed appends: the first unsynced frame is torn,
  // later ones survived whole; none of them was ever durable.
  const std::string seal = SealOf();
  const std::string synced = EventsFrame("synced");
  const std::string first = EventsFrame("relaxed one", 1, kTestSeed, false);
  const std::string later = EventsFrame("relaxed two", 1, kTestSeed, false) +
                            EventsFrame("relaxed three", 1, kTestSeed, false);
  for (size_t at : {size_t{0}, size_t{5}, kFrameHeaderBytes + 3}) {
    CAPTURE(at);
    std::string segment = seal + synced + first + later;
    segment[seal.size() + synced.size() + at] ^= 0x20;
    absl::StatusOr<SegmentScan> scan = ScanSegment(segment, "s");
    LAKE_REQUIRE_OK(scan);
    REQUIRE(scan->frames.size() == 2);
    CHECK(scan->frames[1].payload == "synced");
    CHECK(scan->torn_tail);
    CHECK(scan->valid_bytes == seal.size() + synced.size());
  }
  // Zeros where the torn frame was (its pages never reached the disk).
  std::string zeroed = seal + synced + std::string(first.size(), '\0') + later;
  absl::StatusOr<SegmentScan> scan = ScanSegment(zeroed, "s");
  LAKE_REQUIRE_OK(scan);
  CHECK(scan->frames.size() == 2);
  CHECK(scan->valid_bytes == seal.size() + synced.size());
}

TEST_CASE("bytes that do not scan, followed by a frame with prior synced, are damage") {
  // The later frame's writer knew everything before it durable.
  const std::string seal = SealOf();
  const std::string relaxed = EventsFrame("relaxed", 1, kTestSeed, false);
  const std::string durable = EventsFrame("durable after a sync");
  std::string segment = seal + relaxed + EventsFrame("relaxed too", 1, kTestSeed, false) + durable;
  segment[seal.size() + 2] ^= 0x20;
  absl::StatusOr<SegmentScan> scan = ScanSegment(segment, "s");
  REQUIRE_FALSE(scan.ok());
  CHECK(absl::IsDataLoss(scan.status()));
  CHECK(std::string(scan.status().message()).find(absl::StrCat("offset ", seal.size())) !=
        std::string::npos);
  // Undamaged, every frame reads, whatever its flag.
  segment[seal.size() + 2] ^= 0x20;
  scan = ScanSegment(segment, "s");
  LAKE_REQUIRE_OK(scan);
  REQUIRE(scan->frames.size() == 4);
  CHECK(scan->frames[0].prior_synced);
  CHECK_FALSE(scan->frames[1].prior_synced);
  CHECK_FALSE(scan->frames[2].prior_synced);
  CHECK(scan->frames[3].prior_synced);
}

TEST_CASE("a seal names the segment before, its valid length and the frame seed") {
  std::string sealed = EncodeSegmentSeal(SegmentSeal{1, 64, 99});  // the frames view it
  absl::StatusOr<SegmentScan> scan = ScanSegment(sealed, "s");
  LAKE_REQUIRE_OK(scan);
  REQUIRE(scan->frames.size() == 1);
  CHECK(scan->frames[0].kind == FrameKind::kSegmentSeal);
  absl::StatusOr<SegmentSeal> decoded = DecodeSegmentSeal(scan->frames[0]);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->previous_segment == 1);
  CHECK(decoded->previous_valid_bytes == 64);
  CHECK(decoded->frame_seed == 99);
  std::string events = SealOf() + EventsFrame("x");
  CHECK(absl::IsDataLoss(DecodeSegmentSeal(ScanSegment(events, "s")->frames[1]).status()));
}

TEST_CASE("segment names are 20-digit numbers and nothing else") {
  CHECK(SegmentFileName(7) == "segment-00000000000000000007.log");
  CHECK(ParseSegmentFileName(SegmentFileName(7)) == 7);
  CHECK(ParseSegmentFileName("segment-7.log") == std::nullopt);
  CHECK(ParseSegmentFileName("segment-0000000000000000000x.log") == std::nullopt);
  CHECK(ParseSegmentFileName("segment-00000000000000000007.tmp") == std::nullopt);
}

TEST_CASE("a shard keeps every acknowledged frame across writer sessions") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    LAKE_REQUIRE_OK((*w)->AppendDurably("a", 1));
    LAKE_REQUIRE_OK((*w)->AppendDurably("b", 1));
  }
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    CHECK(Payloads((*w)->recovered()) == std::vector<std::string>{"a", "b"});
    LAKE_REQUIRE_OK((*w)->AppendDurably("c", 1));
  }
  std::string shard = OnlyShardDir(fs, shards);
  CHECK(std::filesystem::exists(shard + "/" + SegmentFileName(2)));
  absl::StatusOr<ShardContents> contents = ReadShard(fs, shard);
  LAKE_REQUIRE_OK(contents);
  CHECK(Payloads(*contents) == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("a shard written with frame format version 1 takes version 2 segments after it") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  std::string shard = shards + "/old-shard";
  std::filesystem::create_directories(shard);
  {
    std::ofstream v1(shard + "/" + SegmentFileName(1), std::ios::binary);
    v1 << HandFrame(kFrameFormatVersion1, 1, "old", 0);
  }
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    CHECK((*w)->shard_id() == "old-shard");
    LAKE_REQUIRE_OK((*w)->AppendDurably("new", 1));
  }
  absl::StatusOr<ShardContents> contents = ReadShard(fs, shard);
  LAKE_REQUIRE_OK(contents);
  CHECK(contents->last_segment == 2);
  CHECK(Payloads(*contents) == std::vector<std::string>{"old", "new"});
}

TEST_CASE("a writer that closes cleanly leaves no zeros ahead of its frames") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, dir.Join("shards"));
  LAKE_REQUIRE_OK(w);
  LAKE_REQUIRE_OK((*w)->AppendDurably("only", 1));
  const std::string segment = OnlyShardDir(fs, dir.Join("shards")) + "/" + SegmentFileName(1);
  CHECK(std::filesystem::file_size(segment) >= kSegmentZeroAheadBytes);
  w->reset();  // closes
  const std::vector<uint8_t> bytes = testing::ReadFile(segment);
  absl::StatusOr<SegmentScan> scan = ScanSegment(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "s");
  LAKE_REQUIRE_OK(scan);
  CHECK_FALSE(scan->torn_tail);
  CHECK(std::filesystem::file_size(segment) == scan->valid_bytes);
}

TEST_CASE("a writer rolls to a sealed new segment past the roll size, dropping its zeros") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  // Frames under kZeroAheadLowBytes, so the writer keeps zeros ahead.
  const size_t payload_bytes = 60 << 10;
  const size_t appends = kSegmentRollBytes / (payload_bytes + kFrameHeaderBytes) + 2;
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    for (size_t i = 0; i < appends; ++i) {
      const std::string payload(payload_bytes, static_cast<char>('a' + i % 26));
      LAKE_REQUIRE_OK((*w)->AppendDurably(payload, 1));
    }
  }
  std::string shard = OnlyShardDir(fs, shards);
  absl::StatusOr<ShardContents> contents = ReadShard(fs, shard);
  LAKE_REQUIRE_OK(contents);
  CHECK(contents->last_segment == 2);
  REQUIRE(contents->event_frames.size() == appends);
  for (size_t i = 0; i < appends; ++i) {
    CHECK(contents->event_frames[i].payload[0] == static_cast<char>('a' + i % 26));
  }
  // Segment 2's seal names segment 1's valid bytes (ReadShard checked it),
  // which are the whole file: the zeros ahead were dropped at the roll.
  CHECK(std::filesystem::file_size(shard + "/" + SegmentFileName(1)) ==
        contents->previous_valid_bytes);
  CHECK(std::filesystem::file_size(shard + "/" + SegmentFileName(2)) ==
        contents->last_valid_bytes);
}

TEST_CASE("a second writer takes a shard of its own while the first holds its lock") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  absl::StatusOr<std::unique_ptr<ShardWriter>> first = ShardWriter::Open(fs, shards);
  LAKE_REQUIRE_OK(first);
  absl::StatusOr<std::unique_ptr<ShardWriter>> second = ShardWriter::Open(fs, shards);
  LAKE_REQUIRE_OK(second);
  CHECK((*first)->shard_id() != (*second)->shard_id());
  LAKE_REQUIRE_OK((*first)->AppendDurably("one", 1));
  LAKE_REQUIRE_OK((*second)->AppendDurably("two", 1));
  std::string freed = (*first)->shard_id();
  first->reset();
  absl::StatusOr<std::unique_ptr<ShardWriter>> third = ShardWriter::Open(fs, shards);
  LAKE_REQUIRE_OK(third);
  CHECK((*third)->shard_id() == freed);  // a free shard is reused, not multiplied
  CHECK(PayloadsOfAllShards(fs, shards) == std::vector<std::string>{"one", "two"});
}

TEST_CASE("concurrent appends from four threads are all durable and readable") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
  LAKE_REQUIRE_OK(w);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        if (!(*w)->AppendDurably(Record(t * 1000 + i), 1).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures == 0);
  std::vector<std::string> want;
  for (int t = 0; t < 4; ++t) {
    for (int i = 0; i < 50; ++i) want.push_back(Record(t * 1000 + i));
  }
  std::sort(want.begin(), want.end());
  CHECK(RecordsOfAllShards(fs, shards) == want);
}

TEST_CASE("threads that append one frame after another share syncs (group commit)") {
  REQUIRE(failpoint::Enabled());
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
  LAKE_REQUIRE_OK(w);
  // A window far beyond a scheduler's delay: on a loaded machine a joined
  // thread may take longer than kGroupCommitWindow to queue its frame, and
  // what is tested here is how frames group, not how fast.
  (*w)->SetGroupCommitWindowForTest(absl::Milliseconds(50));
  std::atomic<int> syncs{0};
  failpoint::Set(kShardAppendSynced, failpoint::Action::kCallback, [&] {
    ++syncs;
    return absl::OkStatus();
  });
  constexpr int kThreads = 4, kFrames = 50;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Joined for all its frames: between one frame's result and the next
      // frame the thread stays counted, however long the scheduler keeps
      // it (EventLog::Append joins per batch; bench/events measures that).
      ShardWriter::AppenderScope appender(**w);
      for (int i = 0; i < kFrames; ++i) {
        const std::string record = Record(t * 1000 + i);
        if (!(*w)->AppendDurably(record, 1).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  failpoint::ClearAll();
  CHECK(failures == 0);
  // A leader waits for the frame of each joined thread, so syncs carry
  // about four frames (~51 syncs here); threads that did not join split
  // into cohorts of about two that take turns (~94 syncs).
  CAPTURE(syncs.load());
  CHECK(syncs.load() * 8 <= kThreads * kFrames * 3);
  CHECK(RecordsOfAllShards(fs, shards).size() == size_t{kThreads * kFrames});
  // Each sync wrote one frame: a group is one frame, all or nothing.
  absl::StatusOr<ShardContents> contents = ReadShard(fs, OnlyShardDir(fs, shards));
  LAKE_REQUIRE_OK(contents);
  CHECK(contents->event_frames.size() == static_cast<size_t>(syncs.load()));
}

TEST_CASE("a crashed session's torn tail is sealed off by the next session") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    LAKE_REQUIRE_OK((*w)->AppendDurably("kept", 1));
  }
  std::string shard = OnlyShardDir(fs, shards);
  {
    // Right after the acknowledged frame, over the zeros written ahead.
    absl::StatusOr<ShardContents> before = ReadShard(fs, shard);
    LAKE_REQUIRE_OK(before);
    std::fstream torn(shard + "/" + SegmentFileName(1),
                      std::ios::in | std::ios::out | std::ios::binary);
    torn.seekp(static_cast<std::streamoff>(before->last_valid_bytes));
    torn << EventsFrame("never acknowledged").substr(0, 20);
  }
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    LAKE_REQUIRE_OK((*w)->AppendDurably("after", 1));
  }
  absl::StatusOr<ShardContents> contents = ReadShard(fs, shard);
  LAKE_REQUIRE_OK(contents);
  CHECK(Payloads(*contents) == std::vector<std::string>{"kept", "after"});
}

TEST_CASE("damage to an acknowledged frame is data loss, even at the end of a sealed segment") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  for (int session = 0; session < 2; ++session) {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    LAKE_REQUIRE_OK((*w)->AppendDurably("first-" + std::to_string(session), 1));
    LAKE_REQUIRE_OK((*w)->AppendDurably("last-" + std::to_string(session), 1));
  }
  std::string shard = OnlyShardDir(fs, shards);
  // The last frame of segment 1: its bytes are sealed by segment 2.
  FlipByte(shard + "/" + SegmentFileName(1), SealOf().size() + EventsFrame("first-0").size() + 3);
  absl::StatusOr<ShardContents> contents = ReadShard(fs, shard);
  REQUIRE_FALSE(contents.ok());
  CHECK(absl::IsDataLoss(contents.status()));
  CHECK(std::string(contents.status().message()).find("seals segment 1") != std::string::npos);
  CHECK(absl::IsDataLoss(ShardWriter::Open(fs, shards).status()));
}

TEST_CASE("a missing segment is data loss") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  for (int session = 0; session < 3; ++session) {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    LAKE_REQUIRE_OK((*w)->AppendDurably("x", 1));
  }
  std::string shard = OnlyShardDir(fs, shards);
  std::filesystem::remove(shard + "/" + SegmentFileName(2));
  CHECK(absl::IsDataLoss(ReadShard(fs, shard).status()));
}

TEST_CASE("a writer SIGKILLed mid-append loses only the unacknowledged batch") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : {kShardAppendWritten, kShardAppendSynced}) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    io::PosixFileSystem fs;
    std::string shards = dir.Join("shards");
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
      if (!w.ok() || !(*w)->AppendDurably("acknowledged", 1).ok()) ::_exit(10);
      failpoint::Set(step, failpoint::Action::kKill);
      (void)(*w)->AppendDurably("in flight", 1);
      ::_exit(13);
    }
    ExpectKilled(pid);
    // The killed batch was written in full: without a power loss it may be
    // there. Either way the log reads whole and a new session goes on.
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    std::vector<std::string> seen = Payloads((*w)->recovered());
    REQUIRE(!seen.empty());
    CHECK(seen[0] == "acknowledged");
    CHECK(seen.size() <= 2);
    if (seen.size() == 2) CHECK(seen[1] == "in flight");
    LAKE_REQUIRE_OK((*w)->AppendDurably("next", 1));
    w->reset();
    absl::StatusOr<ShardContents> contents = ReadShard(fs, OnlyShardDir(fs, shards));
    LAKE_REQUIRE_OK(contents);
    CHECK(Payloads(*contents).back() == "next");
  }
}

TEST_CASE("a power loss mid-append keeps acknowledged batches and the synced one, nothing torn") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : {kShardAppendWritten, kShardAppendSynced}) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    std::filesystem::create_directory(dir.Join("backups"));
    std::string shards = dir.Join("shards");
    io::PosixFileSystem base;
    {
      testing::FaultInjectionFileSystem fs(base, dir.Join("backups"));
      absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
      LAKE_REQUIRE_OK(w);
      LAKE_REQUIRE_OK((*w)->AppendDurably("acknowledged", 1));
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      CHECK_FALSE((*w)->AppendDurably("in flight", 1).ok());
      failpoint::ClearAll();
      // The writer is broken after an I/O error: it refuses more.
      CHECK_FALSE((*w)->AppendDurably("refused", 1).ok());
    }
    // Lost at "written" (never synced); kept at "synced" (durable, only the
    // acknowledgement was lost).
    std::vector<std::string> want = {"acknowledged"};
    if (step == kShardAppendSynced) want.push_back("in flight");
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(base, shards);
    LAKE_REQUIRE_OK(w);
    CHECK(Payloads((*w)->recovered()) == want);
    LAKE_REQUIRE_OK((*w)->AppendDurably("next", 1));
    w->reset();
    want.push_back("next");
    absl::StatusOr<ShardContents> contents = ReadShard(base, OnlyShardDir(base, shards));
    LAKE_REQUIRE_OK(contents);
    CHECK(Payloads(*contents) == want);
  }
}

// ---- Relaxed appends: written at once, durable at the next sync ----

// Payloads of relaxed batches of varied sizes, several spanning pages.
std::vector<std::string> RelaxedPayloads(size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back(absl::StrCat("relaxed-", i, "-", std::string(700 + (i * 2311) % 9000, 'r')));
  }
  return out;
}

TEST_CASE("relaxed appends are written without a sync, flagged, and made durable by Sync") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
  LAKE_REQUIRE_OK(w);
  LAKE_REQUIRE_OK((*w)->Append("first relaxed", 1, Durability::kRelaxed));
  LAKE_REQUIRE_OK((*w)->Append("second relaxed", 1, Durability::kRelaxed));
  CHECK((*w)->sync_stats().syncs == 0);
  CHECK((*w)->sync_stats().frames == 2);
  LAKE_REQUIRE_OK((*w)->Sync());
  CHECK((*w)->sync_stats().syncs == 1);
  LAKE_REQUIRE_OK((*w)->Sync());  // nothing left to sync
  CHECK((*w)->sync_stats().syncs == 1);
  LAKE_REQUIRE_OK((*w)->Append("after the sync", 1, Durability::kRelaxed));
  // A durable batch after a relaxed one syncs it first, then itself.
  LAKE_REQUIRE_OK((*w)->AppendDurably("durable", 1));
  CHECK((*w)->sync_stats().syncs == 3);
  LAKE_REQUIRE_OK((*w)->AppendDurably("durable again", 1));
  CHECK((*w)->sync_stats().syncs == 4);
  absl::StatusOr<ShardContents> contents = ReadShard(fs, OnlyShardDir(fs, shards));
  LAKE_REQUIRE_OK(contents);
  CHECK(Payloads(*contents) == std::vector<std::string>{"first relaxed", "second relaxed",
                                                        "after the sync", "durable",
                                                        "durable again"});
  // "Prior synced" exactly when nothing unsynced came before the frame.
  std::vector<bool> flags;
  for (const Frame& f : contents->event_frames) flags.push_back(f.prior_synced);
  CHECK(flags == std::vector<bool>{true, false, true, true, true});
}

TEST_CASE("a torn power loss after relaxed appends keeps a prefix of them, never a gap or damage") {
  // Each seed loses a different set of unsynced pages; whatever survives,
  // the shard opens, holds every durable batch, and of the relaxed ones a
  // prefix in order.
  const std::vector<std::string> relaxed = RelaxedPayloads(12);
  std::set<size_t> prefixes_seen;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    FaultyShards f;
    {
      std::unique_ptr<ShardWriter> w = f.OpenWriter();
      LAKE_REQUIRE_OK(w->AppendDurably("durable", 1));
      for (const std::string& p : relaxed) LAKE_REQUIRE_OK(w->Append(p, 1, Durability::kRelaxed));
      f.fs->CrashTorn(seed);
    }
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(f.base, f.shards);
    LAKE_REQUIRE_OK(w);
    std::vector<std::string> seen = Payloads((*w)->recovered());
    REQUIRE(!seen.empty());
    CHECK(seen[0] == "durable");
    REQUIRE(seen.size() <= relaxed.size() + 1);
    for (size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] == relaxed[i - 1]);
    prefixes_seen.insert(seen.size() - 1);
    // The next session seals the old segment at what survived and goes on.
    LAKE_REQUIRE_OK((*w)->AppendDurably("next session", 1));
    w->reset();
    seen.push_back("next session");
    CHECK(f.PayloadsOnDisk() == seen);
  }
  // The seeds lost different amounts (not always all, not always none).
  CHECK(prefixes_seen.size() >= 3);
}

TEST_CASE("a torn power loss keeps every relaxed batch a sync or durable append covered") {
  const std::vector<std::string> relaxed = RelaxedPayloads(6);
  for (bool by_durable_append : {false, true}) {
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      CAPTURE(by_durable_append);
      CAPTURE(seed);
      FaultyShards f;
      std::vector<std::string> want = relaxed;
      {
        std::unique_ptr<ShardWriter> w = f.OpenWriter();
        for (const std::string& p : relaxed) LAKE_REQUIRE_OK(w->Append(p, 1, Durability::kRelaxed));
        if (by_durable_append) {
          LAKE_REQUIRE_OK(w->AppendDurably("durable", 1));
          want.push_back("durable");
        } else {
          LAKE_REQUIRE_OK(w->Sync());
        }
        // Unsynced again: may be lost, alone.
        LAKE_REQUIRE_OK(w->Append("unsynced", 1, Durability::kRelaxed));
        f.fs->CrashTorn(seed);
      }
      std::vector<std::string> seen = f.PayloadsOnDisk();
      if (seen.size() == want.size() + 1) CHECK(seen.back() == "unsynced");
      seen.resize(std::min(seen.size(), want.size()));
      CHECK(seen == want);
    }
  }
}

TEST_CASE("a power loss during a durable append after relaxed ones keeps them all, nothing torn") {
  // The durable batch's frame is written only after the relaxed ones are
  // synced: its flag may not vouch for bytes a power loss can still tear.
  REQUIRE(failpoint::Enabled());
  const std::vector<std::string> relaxed = RelaxedPayloads(6);
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    CAPTURE(seed);
    FaultyShards f;
    {
      std::unique_ptr<ShardWriter> w = f.OpenWriter();
      for (const std::string& p : relaxed) LAKE_REQUIRE_OK(w->Append(p, 1, Durability::kRelaxed));
      failpoint::Set(kShardAppendWritten, failpoint::Action::kCallback, [&] {
        f.fs->CrashTorn(seed);
        return absl::UnavailableError("power lost");
      });
      CHECK_FALSE(w->AppendDurably("durable in flight", 1).ok());
      failpoint::ClearAll();
    }
    std::vector<std::string> seen = f.PayloadsOnDisk();
    if (seen.size() == relaxed.size() + 1) {
      CHECK(seen.back() == "durable in flight");
      seen.pop_back();
    }
    CHECK(seen == relaxed);
  }
}

TEST_CASE("damage to relaxed batches a later frame knew synced is data loss") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    LAKE_REQUIRE_OK((*w)->Append("relaxed one", 1, Durability::kRelaxed));
    LAKE_REQUIRE_OK((*w)->Append("relaxed two", 1, Durability::kRelaxed));
    LAKE_REQUIRE_OK((*w)->Sync());
    LAKE_REQUIRE_OK((*w)->Append("after the sync", 1, Durability::kRelaxed));
  }
  std::string shard = OnlyShardDir(fs, shards);
  absl::StatusOr<ShardContents> contents = ReadShard(fs, shard);
  LAKE_REQUIRE_OK(contents);
  REQUIRE(contents->event_frames.size() == 3);
  // A byte of "relaxed two": the frame after the sync is flagged.
  FlipByte(shard + "/" + SegmentFileName(1), contents->event_frames[1].offset + kFrameHeaderBytes);
  absl::StatusOr<ShardContents> damaged = ReadShard(fs, shard);
  REQUIRE_FALSE(damaged.ok());
  CHECK(absl::IsDataLoss(damaged.status()));
}

TEST_CASE("relaxed batches survive a SIGKILL, and a clean close makes them durable") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    if (!w.ok()) ::_exit(10);
    for (const std::string& p : RelaxedPayloads(5)) {
      if (!(*w)->Append(p, 1, Durability::kRelaxed).ok()) ::_exit(11);
    }
    ::kill(::getpid(), SIGKILL);
    ::_exit(13);
  }
  ExpectKilled(pid);
  // Written to the page cache: a killed process loses none of them.
  absl::StatusOr<ShardContents> contents = ReadShard(fs, OnlyShardDir(fs, shards));
  LAKE_REQUIRE_OK(contents);
  CHECK(Payloads(*contents) == RelaxedPayloads(5));

  // A clean close syncs: a power loss right after keeps every batch.
  FaultyShards f;
  {
    std::unique_ptr<ShardWriter> w = f.OpenWriter();
    for (const std::string& p : RelaxedPayloads(5)) {
      LAKE_REQUIRE_OK(w->Append(p, 1, Durability::kRelaxed));
    }
  }
  f.fs->CrashTorn(7);
  CHECK(f.PayloadsOnDisk() == RelaxedPayloads(5));
}

TEST_CASE("a roll syncs the relaxed batches of the segment it leaves") {
  // Bulk-sized relaxed batches (appended past the zeros), through one roll.
  const size_t payload_bytes = 1 << 20;
  const size_t appends = kSegmentRollBytes / (payload_bytes + kFrameHeaderBytes) + 3;
  FaultyShards f;
  {
    std::unique_ptr<ShardWriter> w = f.OpenWriter();
    for (size_t i = 0; i < appends; ++i) {
      const std::string payload(payload_bytes, static_cast<char>('a' + i % 26));
      LAKE_REQUIRE_OK(w->Append(payload, 1, Durability::kRelaxed));
    }
    f.fs->CrashTorn(3);
  }
  // Segment 1 was synced at the roll: all of its batches stand, and the
  // seal of segment 2 agrees with it; segment 2 keeps a prefix.
  absl::StatusOr<ShardContents> contents = ReadShard(f.base, OnlyShardDir(f.base, f.shards));
  LAKE_REQUIRE_OK(contents);
  CHECK(contents->last_segment == 2);
  const size_t in_first = kSegmentRollBytes / (payload_bytes + kFrameHeaderBytes) + 1;
  REQUIRE(contents->event_frames.size() >= in_first);
  for (size_t i = 0; i < contents->event_frames.size(); ++i) {
    CHECK(contents->event_frames[i].payload[0] == static_cast<char>('a' + i % 26));
  }
}

// A power loss: Crash() for seed 0, else CrashTorn(seed).
void LosePower(testing::FaultInjectionFileSystem& fs, uint64_t seed) {
  if (seed == 0) {
    fs.Crash();
  } else {
    fs.CrashTorn(seed);
  }
}

// Appends a durable batch and then `relaxed` ones to a new shard, and
// abandons the writer as its process's death would: its relaxed frames
// are in the page cache, no sync covered them. Returns the shard's dir.
std::string WriterDiesAfterRelaxedAppends(FaultyShards& f,
                                          const std::vector<std::string>& relaxed) {
  std::unique_ptr<ShardWriter> dead = f.OpenWriter();
  LAKE_REQUIRE_OK(dead->AppendDurably("durable", 1));
  for (const std::string& p : relaxed) LAKE_REQUIRE_OK(dead->Append(p, 1, Durability::kRelaxed));
  dead->AbandonForTest();
  return dead->shard_dir();
}

// The next session: it opens the shard, appends a durable batch, and then
// the power fails (LosePower's `seed`). Returns what it recovered.
ShardContents NextSessionBeforePowerLoss(FaultyShards& f, uint64_t seed) {
  std::unique_ptr<ShardWriter> next = f.OpenWriter();
  LAKE_REQUIRE_OK(next->AppendDurably("next session", 1));
  LosePower(*f.fs, seed);
  return next->recovered();
}

// Every batch of both sessions, in order: all were acknowledged.
std::vector<std::string> BothSessions(const std::vector<std::string>& relaxed) {
  std::vector<std::string> all = {"durable"};
  all.insert(all.end(), relaxed.begin(), relaxed.end());
  all.push_back("next session");
  return all;
}

TEST_CASE("a new session syncs the segment its seal names: a dead writer's batches outlive a power loss") {
  // The next session reads the dead writer's segment through the page
  // cache and seals it at that length; a power loss after its durable
  // append must not cut the segment below the seal.
  const std::vector<std::string> relaxed = RelaxedPayloads(8);
  for (uint64_t seed = 0; seed <= 16; ++seed) {
    CAPTURE(seed);
    FaultyShards f;
    WriterDiesAfterRelaxedAppends(f, relaxed);
    CHECK(NextSessionBeforePowerLoss(f, seed).last_segment == 1);
    CHECK(f.PayloadsOnDisk() == BothSessions(relaxed));
  }
}

TEST_CASE("a session rewriting an empty last segment syncs the segment its seal names") {
  // A session died after creating segment 2 (its entry durable) and before
  // writing its seal; the next one rewrites segment 2, sealing segment 1 at
  // what it reads of the dead writer's frames there.
  const std::vector<std::string> relaxed = RelaxedPayloads(8);
  for (uint64_t seed = 0; seed <= 16; ++seed) {
    CAPTURE(seed);
    FaultyShards f;
    const std::string shard_dir = WriterDiesAfterRelaxedAppends(f, relaxed);
    absl::StatusOr<std::unique_ptr<io::File>> empty =
        f.fs->CreateNew(shard_dir + "/" + SegmentFileName(2), false);
    LAKE_REQUIRE_OK(empty);
    LAKE_REQUIRE_OK((*empty)->Close());
    LAKE_REQUIRE_OK(io::SyncDirectory(*f.fs, shard_dir));
    const ShardContents recovered = NextSessionBeforePowerLoss(f, seed);
    CHECK(recovered.last_segment == 2);
    CHECK_FALSE(recovered.last_has_frames);
    CHECK(f.PayloadsOnDisk() == BothSessions(relaxed));
    absl::StatusOr<ShardContents> contents = ReadShard(f.base, shard_dir);
    LAKE_REQUIRE_OK(contents);
    CHECK(contents->last_segment == 2);  // rewritten, not a segment 3
  }
}

TEST_CASE("a roll by a bulk group writes no zeros ahead; the first small group does") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
  LAKE_REQUIRE_OK(w);
  const std::string second = (*w)->shard_dir() + "/" + SegmentFileName(2);
  const std::string payload(1 << 20, 'b');
  size_t appends = 0;
  while (!std::filesystem::exists(second)) {
    REQUIRE(appends < kSegmentRollBytes / payload.size() + 2);
    LAKE_REQUIRE_OK((*w)->Append(payload, 1, Durability::kRelaxed));
    ++appends;
  }
  // The seal and the group that rolled: no zeros after them.
  CHECK(std::filesystem::file_size(second) < payload.size() + kZeroAheadLowBytes);
  LAKE_REQUIRE_OK((*w)->AppendDurably("small", 1));
  CHECK(std::filesystem::file_size(second) >= payload.size() + kSegmentZeroAheadBytes);
  w->reset();
  absl::StatusOr<ShardContents> contents = ReadShard(fs, OnlyShardDir(fs, shards));
  LAKE_REQUIRE_OK(contents);
  std::vector<std::string> seen = Payloads(*contents);
  REQUIRE(seen.size() == appends + 1);
  CHECK(seen.back() == "small");
}

// ---- Syncs ahead: relaxed frames synced in the background ----

// Relaxed payloads that reach kSyncAheadBytes with the last of them (their
// frames included), so the append of the last starts a sync ahead of all.
std::vector<std::string> PayloadsPastSyncAhead() {
  const size_t payload_bytes = 512 << 10;
  std::vector<std::string> out;
  for (size_t i = 0; out.size() * (payload_bytes + kFrameHeaderBytes) < kSyncAheadBytes; ++i) {
    out.push_back(std::string(payload_bytes, static_cast<char>('a' + i % 26)));
  }
  return out;
}

// Waits until `done` holds, polling each millisecond (false after 60 s).
template <typename Done>
bool Await(Done done) {
  for (int i = 0; i < 60000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// Waits until the writer has counted `want` syncs ahead (false after 60 s).
bool AwaitSyncsAhead(ShardWriter& w, uint64_t want) {
  return Await([&] { return w.sync_stats().syncs_ahead >= want; });
}

TEST_CASE("relaxed batches past kSyncAheadBytes are synced ahead: a power loss keeps them") {
  const std::vector<std::string> ahead = PayloadsPastSyncAhead();
  const std::vector<std::string> after = RelaxedPayloads(8);
  std::set<size_t> kept_after;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    FaultyShards f;
    {
      std::unique_ptr<ShardWriter> w = f.OpenWriter();
      for (size_t i = 0; i + 1 < ahead.size(); ++i) {
        LAKE_REQUIRE_OK(w->Append(ahead[i], 1, Durability::kRelaxed));
      }
      CHECK(w->sync_stats().syncs_ahead == 0);  // not yet kSyncAheadBytes
      LAKE_REQUIRE_OK(w->Append(ahead.back(), 1, Durability::kRelaxed));
      REQUIRE(AwaitSyncsAhead(*w, 1));
      CHECK(w->sync_stats().syncs == 0);  // no sync of an append's own
      for (const std::string& p : after) LAKE_REQUIRE_OK(w->Append(p, 1, Durability::kRelaxed));
      f.fs->CrashTorn(seed);
    }
    // Every batch the sync ahead covered, then a prefix of those after it.
    std::vector<std::string> seen = f.PayloadsOnDisk();
    REQUIRE(seen.size() >= ahead.size());
    REQUIRE(seen.size() <= ahead.size() + after.size());
    for (size_t i = 0; i < seen.size(); ++i) {
      CHECK(seen[i] == (i < ahead.size() ? ahead[i] : after[i - ahead.size()]));
    }
    kept_after.insert(seen.size() - ahead.size());
  }
  CHECK(kept_after.size() >= 2);  // the later batches were not synced ahead too
}

TEST_CASE("a sync ahead's result is taken by the next append: its end durable, its error fatal") {
  REQUIRE(failpoint::Enabled());
  const std::vector<std::string> ahead = PayloadsPastSyncAhead();
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string shards = dir.Join("shards");
  {
    // Taken: a durable append right after needs one sync, its own (the
    // relaxed bytes before it are durable), and its frame is flagged so.
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    for (const std::string& p : ahead) LAKE_REQUIRE_OK((*w)->Append(p, 1, Durability::kRelaxed));
    REQUIRE(AwaitSyncsAhead(**w, 1));
    LAKE_REQUIRE_OK((*w)->AppendDurably("durable", 1));
    CHECK((*w)->sync_stats().syncs == 1);
  }
  absl::StatusOr<ShardContents> contents = ReadShard(fs, OnlyShardDir(fs, shards));
  LAKE_REQUIRE_OK(contents);
  REQUIRE(contents->event_frames.size() == ahead.size() + 1);
  CHECK(contents->event_frames.back().prior_synced);
  CHECK_FALSE(contents->event_frames[1].prior_synced);

  // An error of a sync ahead (as of an fdatasync that failed) breaks the
  // writer: what it had acknowledged may not be durable.
  std::atomic<bool> failed{false};
  size_t acknowledged_in_gap = 0;
  failpoint::Set(kShardSyncedAhead, failpoint::Action::kCallback, [&] {
    failed = true;
    return absl::DataLossError("sync ahead failed");
  });
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    for (const std::string& p : ahead) LAKE_REQUIRE_OK((*w)->Append(p, 1, Durability::kRelaxed));
    REQUIRE(Await([&] { return failed.load(); }));
    // The failpoint returns just before the sync ahead does: the first
    // append that begins after it returned takes the error (appends in
    // that gap are acknowledged as usual).
    absl::Status next;
    for (int i = 0; i < 60000; ++i) {
      next = (*w)->Append("in the gap", 1, Durability::kRelaxed);
      if (!next.ok()) break;
      ++acknowledged_in_gap;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(absl::IsDataLoss(next));
    CHECK(absl::IsDataLoss((*w)->Append("refused", 1, Durability::kRelaxed)));
    CHECK(absl::IsDataLoss((*w)->Sync()));
    CHECK((*w)->sync_stats().syncs_ahead == 0);
  }
  failpoint::ClearAll();
  // A new session recovers every acknowledged batch (no power was lost).
  absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
  LAKE_REQUIRE_OK(w);
  CHECK(Payloads((*w)->recovered()).size() == 2 * ahead.size() + 1 + acknowledged_in_gap);
}

TEST_CASE("a durable append racing a sync ahead that fails takes its error, not a sync of its own") {
  // A failed writeback is reported to one fdatasync only: had the append
  // synced beside the failing sync ahead, its sync could succeed over bytes
  // the sync ahead lost, and the append be acknowledged as durable.
  REQUIRE(failpoint::Enabled());
  const std::vector<std::string> ahead = PayloadsPastSyncAhead();
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::atomic<bool> entered{false};
  failpoint::Set(kShardSyncedAhead, failpoint::Action::kCallback, [&] {
    entered = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return absl::DataLossError("sync ahead failed");
  });
  {
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, dir.Join("shards"));
    LAKE_REQUIRE_OK(w);
    for (const std::string& p : ahead) LAKE_REQUIRE_OK((*w)->Append(p, 1, Durability::kRelaxed));
    REQUIRE(Await([&] { return entered.load(); }));
    // Past the sync ahead's end, so it alone would not cover the append.
    LAKE_REQUIRE_OK((*w)->Append("relaxed after it began", 1, Durability::kRelaxed));
    CHECK(absl::IsDataLoss((*w)->AppendDurably("durable", 1)));
    CHECK((*w)->sync_stats().syncs == 0);
  }
  failpoint::ClearAll();
}

TEST_CASE("a writer SIGKILLed as its sync ahead returns, or losing power then, keeps its batches") {
  REQUIRE(failpoint::Enabled());
  const std::vector<std::string> ahead = PayloadsPastSyncAhead();
  {
    testing::TempDir dir;
    io::PosixFileSystem fs;
    std::string shards = dir.Join("shards");
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      failpoint::Set(kShardSyncedAhead, failpoint::Action::kKill);
      absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
      if (!w.ok()) ::_exit(10);
      for (const std::string& p : ahead) {
        if (!(*w)->Append(p, 1, Durability::kRelaxed).ok()) ::_exit(11);
      }
      std::this_thread::sleep_for(std::chrono::seconds(60));
      ::_exit(13);
    }
    ExpectKilled(pid);
    absl::StatusOr<std::unique_ptr<ShardWriter>> w = ShardWriter::Open(fs, shards);
    LAKE_REQUIRE_OK(w);
    CHECK(Payloads((*w)->recovered()) == ahead);
    LAKE_REQUIRE_OK((*w)->AppendDurably("next", 1));
  }
  // The power lost as the sync ahead returns: what it covered is durable.
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    FaultyShards f;
    std::atomic<bool> crashed{false};
    failpoint::Set(kShardSyncedAhead, failpoint::Action::kCallback, [&] {
      f.fs->CrashTorn(seed);
      crashed = true;
      return absl::UnavailableError("power lost");
    });
    {
      std::unique_ptr<ShardWriter> w = f.OpenWriter();
      for (const std::string& p : ahead) LAKE_REQUIRE_OK(w->Append(p, 1, Durability::kRelaxed));
      REQUIRE(Await([&] { return crashed.load(); }));
      CHECK_FALSE(w->Append("after", 1, Durability::kRelaxed).ok());
    }
    failpoint::ClearAll();
    CHECK(f.PayloadsOnDisk() == ahead);
  }
}

}  // namespace
}  // namespace lake::events
