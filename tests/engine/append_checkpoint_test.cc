// Append checkpoints: operation ids, the checkpoint format, the checkpoint
// directory (publish, list, load, remove) and its durability under a
// simulated power loss, and the checks before a replay.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "base/failpoint.h"
#include "engine/managed_key.h"
#include "engine/operation_id.h"
#include "engine/sha256.h"
#include "engine/stage_descriptor.h"
#include "engine/table/append_checkpoint_format.h"
#include "engine/table/append_checkpoint_replay.h"
#include "engine/table/append_checkpoint_store.h"
#include "io/posix/posix_file_system.h"
#include "io/whole_file.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::table {
namespace {

constexpr std::string_view kLocalStage = R"({"version":1,"kind":"local"})";
constexpr std::string_view kGoldenId = "01890a5d-ac96-774b-bcce-b302099a8057";
constexpr uint64_t kGoldenMillis = 1688096058518;  // 0x01890a5dac96

// A canonical UUIDv7 made at `millis`, its random bits from `tail`.
std::string OperationIdAt(uint64_t millis, uint64_t tail) {
  return absl::StrFormat("%08x-%04x-7%03x-8%03x-%012x", millis >> 16, millis & 0xffff,
                         tail & 0xfff, (tail >> 12) & 0xfff, tail & 0xffffffffffffULL);
}

AppendCheckpoint Checkpoint(std::string operation_id, std::string batch) {
  AppendCheckpoint c;
  c.operation_id = std::move(operation_id);
  c.table_name = "ns.events";
  c.table_id = 7;
  c.base_version = 3;
  c.stage_identity = std::string(kLocalStage);
  c.batch_sha256 = Sha256Hex(batch);
  c.batch = std::move(batch);
  return c;
}

std::string Encoded(const AppendCheckpoint& c) {
  absl::StatusOr<std::string> bytes = EncodeAppendCheckpoint(c);
  REQUIRE_MESSAGE(bytes.ok(), bytes.status().ToString());
  return *bytes;
}

std::string FileText(const std::string& path) {
  std::vector<uint8_t> bytes = testing::ReadFile(path);
  return std::string(bytes.begin(), bytes.end());
}

// `bytes` with its trailing digest recomputed, as a forger would.
std::string Redigested(std::string bytes) {
  bytes.resize(bytes.size() - 64);
  return bytes + Sha256Hex(bytes);
}

// Forwards to a base file system but refuses to open any file for
// reading: what List does must not need it.
class ReadRefusingFileSystem final : public io::FileSystem {
 public:
  explicit ReadRefusingFileSystem(io::FileSystem& base) : base_(base) {}
  std::string_view name() const override { return "read-refusing"; }
  absl::StatusOr<std::unique_ptr<io::File>> OpenRead(const std::string& path) override {
    return absl::PermissionDeniedError("this test refuses to read " + path);
  }
  absl::StatusOr<std::unique_ptr<io::File>> OpenReadBeneath(const io::File&,
                                                            const std::string& relative) override {
    return absl::PermissionDeniedError("this test refuses to read " + relative);
  }
  absl::StatusOr<std::unique_ptr<io::File>> OpenDirectoryBeneath(
      const io::File& root, const std::string& relative) override {
    return base_.OpenDirectoryBeneath(root, relative);
  }
  absl::StatusOr<std::unique_ptr<io::File>> CreateNew(const std::string& path,
                                                      bool want_direct) override {
    return base_.CreateNew(path, want_direct);
  }
  absl::StatusOr<std::unique_ptr<io::File>> OpenForRewrite(const std::string& path) override {
    return base_.OpenForRewrite(path);
  }
  absl::StatusOr<std::unique_ptr<io::File>> OpenDirectory(const std::string& path) override {
    return base_.OpenDirectory(path);
  }
  absl::Status CreateDirectory(const std::string& path) override {
    return base_.CreateDirectory(path);
  }
  absl::Status RenameNoReplace(const std::string& from, const std::string& to) override {
    return base_.RenameNoReplace(from, to);
  }
  absl::Status Remove(const std::string& path) override { return base_.Remove(path); }
  absl::Status RemoveAt(const io::File& dir, const std::string& name) override {
    return base_.RemoveAt(dir, name);
  }
  absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& path) override {
    return base_.ListDirectory(path);
  }
  absl::StatusOr<io::FileInfo> Stat(const std::string& path) override { return base_.Stat(path); }
  absl::StatusOr<std::string> RealPath(const std::string& path) override {
    return base_.RealPath(path);
  }
  absl::StatusOr<std::unique_ptr<io::IoQueue>> NewIoQueue(unsigned depth) override {
    return base_.NewIoQueue(depth);
  }

 private:
  io::FileSystem& base_;
};

// ---- operation ids ----

TEST_CASE("a new UUIDv7 is a valid operation id made now") {
  absl::Time before = absl::Now();
  std::string text = NewUuidV7();
  absl::StatusOr<OperationId> id = ParseOperationId(text);
  LAKE_REQUIRE_OK(id);
  CHECK(id->text() == text);
  CHECK(OperationIdTime(*id) >= absl::FromUnixMillis(absl::ToUnixMillis(before)));
  CHECK(OperationIdTime(*id) <= absl::Now());
}

TEST_CASE("the UUIDv7s of one process rise strictly, within a millisecond too") {
  // Far more than one millisecond holds, from two threads at once: each
  // thread's ids rise, and all of them are distinct, valid and of now.
  constexpr int kPerThread = 20000;
  absl::Time before = absl::Now();
  std::vector<std::string> ids[2];
  std::thread other([&] {
    for (int i = 0; i < kPerThread; ++i) ids[1].push_back(NewUuidV7());
  });
  for (int i = 0; i < kPerThread; ++i) ids[0].push_back(NewUuidV7());
  other.join();
  std::set<std::string> all;
  int same_millisecond = 0;
  for (const std::vector<std::string>& list : ids) {
    for (size_t i = 1; i < list.size(); ++i) {
      REQUIRE(list[i - 1] < list[i]);
      same_millisecond += list[i - 1].substr(0, 13) == list[i].substr(0, 13);
    }
    all.insert(list.begin(), list.end());
  }
  CHECK(all.size() == 2 * kPerThread);
  CHECK(same_millisecond > 0);  // the counter, not the clock, ordered some
  for (const std::string& text : {*all.begin(), *all.rbegin()}) {
    absl::StatusOr<OperationId> id = ParseOperationId(text);
    LAKE_REQUIRE_OK(id);
    CHECK(OperationIdTime(*id) >= absl::FromUnixMillis(absl::ToUnixMillis(before)));
    CHECK(OperationIdTime(*id) <= absl::Now());
  }
}

TEST_CASE("an operation id's time is its 48-bit millisecond prefix") {
  absl::StatusOr<OperationId> id = ParseOperationId(kGoldenId);
  LAKE_REQUIRE_OK(id);
  CHECK(id->unix_millis() == kGoldenMillis);
  CHECK(OperationIdTime(*id) == absl::FromUnixMillis(kGoldenMillis));
  CHECK(ParseOperationId(OperationIdAt(123456789, 42))->unix_millis() == 123456789);
}

TEST_CASE("operation ids order by creation time") {
  CHECK(*ParseOperationId(OperationIdAt(1000, 0xfff)) < *ParseOperationId(OperationIdAt(1001, 0)));
  CHECK(*ParseOperationId(OperationIdAt(1000, 5)) == *ParseOperationId(OperationIdAt(1000, 5)));
}

TEST_CASE("ParseOperationId accepts only the canonical lowercase UUIDv7 text") {
  std::string good(kGoldenId);
  LAKE_CHECK_OK(ParseOperationId(good));
  for (std::string bad : {
           std::string(""),
           good.substr(0, 35),                          // short
           good + "0",                                  // long
           std::string("01890A5D-AC96-774B-BCCE-B302099A8057"),  // uppercase
           std::string("01890a5d-ac96-474b-bcce-b302099a8057"),  // version 4
           std::string("01890a5d-ac96-774b-ccce-b302099a8057"),  // variant 110
           std::string("01890a5d-ac96-774b-7cce-b302099a8057"),  // variant 0
           std::string("01890a5dac96-774b-bcce-b302099a8057-"),  // hyphens moved
           std::string("01890a5d-ac96-774b-bcce_b302099a8057"),  // not a hyphen
           std::string("01890a5d-ac96-774b-bcce-b302099a805g"),  // not hex
           std::string("{1890a5d-ac96-774b-bcce-b302099a8057"),
           std::string("../../../../../../../../../etc/passw"),
       }) {
    CAPTURE(bad);
    absl::Status status = ParseOperationId(bad).status();
    CHECK(absl::IsInvalidArgument(status));
  }
}

TEST_CASE("the retention horizon parses whole positive seconds and nothing else") {
  CHECK(*ParseAppendOperationRetention("60") == absl::Seconds(60));
  CHECK(*ParseAppendOperationRetention("604800") == absl::Hours(168));
  CHECK(*ParseAppendOperationRetention("1") == absl::Seconds(1));
  for (std::string_view bad : {"", "0", "-5", "+60", " 60", "60 ", "7d", "1e3", "6.5", "0x10",
                               "99999999999999999999", "3162240001"}) {
    CAPTURE(std::string(bad));
    absl::Status status = ParseAppendOperationRetention(bad).status();
    CHECK(absl::IsInvalidArgument(status));
    CHECK(std::string(status.message()).find("LAKE_APPEND_OPERATION_RETENTION_SECS") !=
          std::string::npos);
  }
}

TEST_CASE("the retention horizon comes from the environment, 7 days by default") {
  ::unsetenv("LAKE_APPEND_OPERATION_RETENTION_SECS");
  CHECK(*AppendOperationRetention() == absl::Hours(7 * 24));
  ::setenv("LAKE_APPEND_OPERATION_RETENTION_SECS", "90", 1);
  CHECK(*AppendOperationRetention() == absl::Seconds(90));
  ::setenv("LAKE_APPEND_OPERATION_RETENTION_SECS", "-1", 1);
  CHECK(absl::IsInvalidArgument(AppendOperationRetention().status()));
  ::setenv("LAKE_APPEND_OPERATION_RETENTION_SECS", "", 1);
  CHECK(absl::IsInvalidArgument(AppendOperationRetention().status()));
  ::unsetenv("LAKE_APPEND_OPERATION_RETENTION_SECS");
}

TEST_CASE("an operation expires only once it is older than the horizon") {
  OperationId id = *ParseOperationId(kGoldenId);
  absl::Time made = absl::FromUnixMillis(kGoldenMillis);
  absl::Duration retention = absl::Hours(1);
  CHECK_FALSE(IsOperationExpired(id, made, retention));
  CHECK_FALSE(IsOperationExpired(id, made + retention, retention));
  CHECK(IsOperationExpired(id, made + retention + absl::Milliseconds(1), retention));
  CHECK_FALSE(IsOperationExpired(id, made - absl::Hours(24), retention));  // clock skew
}

// ---- the format ----

TEST_CASE("a checkpoint round-trips through its encoding") {
  AppendCheckpoint c = Checkpoint(NewUuidV7(), std::string("\0batch\xff", 7));
  c.table_id = UINT64_MAX;
  c.base_version = 0x0102030405060708;
  StageDescriptor s3;
  s3.kind = StageDescriptor::Kind::kS3;
  s3.bucket = "bucket";
  s3.prefix = "a/b";
  s3.region = "eu-west-1";
  s3.endpoint = "http://127.0.0.1:7480";
  absl::StatusOr<StageDescriptor> valid = ValidateStageDescriptor(s3);
  LAKE_REQUIRE_OK(valid);
  c.stage_identity = StageDescriptorToJson(*valid);
  absl::StatusOr<AppendCheckpoint> back = DecodeAppendCheckpoint(Encoded(c));
  LAKE_REQUIRE_OK(back);
  CHECK(*back == c);

  AppendCheckpoint empty = Checkpoint(NewUuidV7(), "");
  CHECK(*DecodeAppendCheckpoint(Encoded(empty)) == empty);
}

TEST_CASE("golden bytes of a small checkpoint") {
  // Written by an independent encoder (Python struct + hashlib).
  std::string expected = absl::HexStringToBytes(
      "4c414b454150434b010000002400000030313839306135642d616339362d3737"
      "34622d626363652d623330323039396138303537090000006e732e6576656e74"
      "73070000000000000003000000000000001c0000007b2276657273696f6e223a"
      "312c226b696e64223a226c6f63616c227d626137383136626638663031636665"
      "6134313431343064653564616532323233623030333631613339363137376139"
      "6362343130666636316632303031356164030000000000000061626336303261"
      "6438383734666136626137376536653665373665626432636630663339646535"
      "33646535313061373137363863383936643138323065633038626239");
  AppendCheckpoint c = Checkpoint(std::string(kGoldenId), "abc");
  CHECK(Encoded(c).size() == 252);
  CHECK(Encoded(c) == expected);
  CHECK(*DecodeAppendCheckpoint(expected) == c);
}

TEST_CASE("every single-byte change of an encoded checkpoint is refused") {
  std::string good = Encoded(Checkpoint(std::string(kGoldenId), "abc"));
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      absl::Status status = DecodeAppendCheckpoint(bad).status();
      CAPTURE(i);
      CAPTURE(static_cast<int>(flip));
      CHECK(absl::IsDataLoss(status));
    }
  }
}

TEST_CASE("every truncation or extension of an encoded checkpoint is refused") {
  std::string good = Encoded(Checkpoint(std::string(kGoldenId), "abc"));
  for (size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    CHECK(absl::IsDataLoss(DecodeAppendCheckpoint(good.substr(0, n)).status()));
  }
  CHECK(absl::IsDataLoss(DecodeAppendCheckpoint(good + "x").status()));
  CHECK(absl::IsDataLoss(DecodeAppendCheckpoint(Redigested(good + "x" + std::string(64, '0'))).status()));
}

TEST_CASE("an unknown format version is refused even with a matching digest") {
  std::string bytes = Encoded(Checkpoint(std::string(kGoldenId), "abc"));
  bytes[8] = 2;
  absl::Status status = DecodeAppendCheckpoint(Redigested(bytes)).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(std::string(status.message()).find("unknown format version 2") != std::string::npos);
}

TEST_CASE("a field that does not validate is refused even with matching digests") {
  // Table name "ns.events" → "ns events": same length, not a table name.
  std::string bytes = Encoded(Checkpoint(std::string(kGoldenId), "abc"));
  size_t at = bytes.find("ns.events");
  bytes[at + 2] = ' ';
  absl::Status status = DecodeAppendCheckpoint(Redigested(bytes)).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(std::string(status.message()).find("table_name") != std::string::npos);
  // The batch digest no longer matching the batch.
  bytes = Encoded(Checkpoint(std::string(kGoldenId), "abc"));
  bytes[bytes.size() - 64 - 1] = 'd';
  status = DecodeAppendCheckpoint(Redigested(bytes)).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(std::string(status.message()).find("batch_sha256") != std::string::npos);
}

TEST_CASE("encoding refuses fields that could not be decoded, or would carry secrets") {
  auto refused = [](const AppendCheckpoint& c, std::string_view field) {
    absl::Status status = EncodeAppendCheckpoint(c).status();
    CHECK(absl::IsInvalidArgument(status));
    CHECK(std::string(status.message()).find(std::string(field)) != std::string::npos);
  };
  AppendCheckpoint c = Checkpoint(std::string(kGoldenId), "abc");
  AppendCheckpoint bad = c;
  bad.format_version = 2;
  refused(bad, "format_version");
  bad = c;
  bad.operation_id = "01890A5D-AC96-774B-BCCE-B302099A8057";
  refused(bad, "operation id");
  bad = c;
  bad.table_name = "events";
  refused(bad, "table_name");
  bad = c;
  bad.stage_identity = R"({"kind":"local","version":1})";  // valid, not canonical
  refused(bad, "stage_identity");
  bad = c;
  bad.stage_identity = R"({"version":1,"kind":"local","secret_access_key":"AKIA"})";
  refused(bad, "stage_identity");
  bad = c;
  bad.stage_identity = "";
  refused(bad, "stage_identity");
  bad = c;
  bad.batch_sha256 = Sha256Hex("abd");
  refused(bad, "batch_sha256");
  bad = Checkpoint(std::string(kGoldenId), std::string(kMaxCheckpointedBatchBytes + 1, 'x'));
  refused(bad, "batch");
}

TEST_CASE("the largest batch fits under the checkpoint ceiling") {
  AppendCheckpoint c = Checkpoint(std::string(kGoldenId), std::string(kMaxCheckpointedBatchBytes, 'x'));
  std::string bytes = Encoded(c);
  CHECK(bytes.size() <= kMaxAppendCheckpointBytes);
  CHECK(DecodeAppendCheckpoint(bytes)->batch.size() == kMaxCheckpointedBatchBytes);
  CHECK(absl::IsDataLoss(
      DecodeAppendCheckpoint(std::string(kMaxAppendCheckpointBytes + 1, 'x')).status()));
}

// ---- the store ----

struct StoreFixture {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string checkpoints = dir.Join("root/checkpoints");
  AppendCheckpointStore store = *AppendCheckpointStore::Open(fs, checkpoints);
};

TEST_CASE("a published checkpoint loads back, at its operation id's name") {
  StoreFixture f;
  CHECK(std::filesystem::is_directory(f.checkpoints));
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "batch");
  absl::StatusOr<std::string> path = f.store.Publish(c);
  LAKE_REQUIRE_OK(path);
  CHECK(*path == f.checkpoints + "/" + c.operation_id + ".append");
  CHECK(*path == f.store.PathOf(c.operation_id));
  CHECK(testing::FilesUnder(f.checkpoints) == std::vector<std::string>{c.operation_id + ".append"});
  absl::StatusOr<AppendCheckpoint> back = f.store.Load(c.operation_id);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == c);
}

TEST_CASE("a removed checkpoint becomes a spare, rewritten in place once its rename is durable") {
  StoreFixture f;
  AppendCheckpoint first = Checkpoint(NewUuidV7(), std::string(5000, 'a'));
  LAKE_REQUIRE_OK(f.store.Publish(first));
  struct stat spare_stat;
  REQUIRE(::stat(f.store.PathOf(first.operation_id).c_str(), &spare_stat) == 0);
  LAKE_REQUIRE_OK(f.store.Remove(first.operation_id));
  // Not pending any more: a spare is a temporary, never listed or loaded.
  std::vector<std::string> files = testing::FilesUnder(f.checkpoints);
  REQUIRE(files.size() == 1);
  CHECK(files[0].starts_with(".spare-"));
  CHECK(f.store.List()->entries.empty());
  CHECK(absl::IsNotFound(f.store.Load(first.operation_id).status()));
  // Its rename is not durable yet: the next publish creates a file (and
  // its directory sync makes the spare durable).
  AppendCheckpoint second = Checkpoint(NewUuidV7(), "b");
  LAKE_REQUIRE_OK(f.store.Publish(second));
  struct stat st;
  REQUIRE(::stat(f.store.PathOf(second.operation_id).c_str(), &st) == 0);
  CHECK(st.st_ino != spare_stat.st_ino);
  // The one after takes the spare's inode, with exactly its own bytes.
  AppendCheckpoint third = Checkpoint(NewUuidV7(), "c");
  LAKE_REQUIRE_OK(f.store.Publish(third));
  REQUIRE(::stat(f.store.PathOf(third.operation_id).c_str(), &st) == 0);
  CHECK(st.st_ino == spare_stat.st_ino);
  CHECK(testing::FilesUnder(f.checkpoints).size() == 2);
  absl::StatusOr<AppendCheckpoint> back = f.store.Load(third.operation_id);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == third);
  // At most kMaxSpareCheckpoints spares; the rest are unlinked. Cleaning
  // removes them all.
  std::vector<std::string> ids = {second.operation_id, third.operation_id};
  for (size_t i = 0; i < kMaxSpareCheckpoints + 1; ++i) {
    ids.push_back(NewUuidV7());
    LAKE_REQUIRE_OK(f.store.Publish(Checkpoint(ids.back(), "d")));
  }
  for (const std::string& id : ids) LAKE_REQUIRE_OK(f.store.Remove(id));
  CHECK(testing::FilesUnder(f.checkpoints).size() == kMaxSpareCheckpoints);
  CHECK(*f.store.CleanTemporaryFiles() == kMaxSpareCheckpoints);
  CHECK(testing::FilesUnder(f.checkpoints).empty());
  // With no spare left a publish creates a file again.
  AppendCheckpoint last = Checkpoint(NewUuidV7(), "e");
  LAKE_REQUIRE_OK(f.store.Publish(last));
  CHECK(*f.store.Load(last.operation_id) == last);
}

TEST_CASE("a spare removed behind the store's back: publish creates a file instead") {
  StoreFixture f;
  AppendCheckpoint first = Checkpoint(NewUuidV7(), "a");
  LAKE_REQUIRE_OK(f.store.Publish(first));
  LAKE_REQUIRE_OK(f.store.Remove(first.operation_id));
  AppendCheckpoint second = Checkpoint(NewUuidV7(), "b");
  LAKE_REQUIRE_OK(f.store.Publish(second));  // makes the spare durable
  for (const std::string& name : testing::FilesUnder(f.checkpoints)) {
    if (name.starts_with(".spare-")) std::filesystem::remove(f.checkpoints + "/" + name);
  }
  AppendCheckpoint third = Checkpoint(NewUuidV7(), "c");
  LAKE_REQUIRE_OK(f.store.Publish(third));
  CHECK(*f.store.Load(third.operation_id) == third);
  CHECK(testing::FilesUnder(f.checkpoints).size() == 2);
}

TEST_CASE("publish never replaces a checkpoint") {
  StoreFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "first");
  LAKE_REQUIRE_OK(f.store.Publish(c));
  AppendCheckpoint again = Checkpoint(c.operation_id, "second");
  absl::Status status = f.store.Publish(again).status();
  CHECK(absl::IsAlreadyExists(status));
  CHECK_FALSE(GetPendingAppend(status).has_value());
  CHECK(f.store.Load(c.operation_id)->batch == "first");
  CHECK(testing::FilesUnder(f.checkpoints).size() == 1);  // no temporary left
}

TEST_CASE("publish refuses an invalid checkpoint and writes nothing") {
  StoreFixture f;
  AppendCheckpoint c = Checkpoint("../escape", "batch");
  CHECK(absl::IsInvalidArgument(f.store.Publish(c).status()));
  CHECK(testing::FilesUnder(f.dir.path()).empty());
}

TEST_CASE("a checkpoint whose content names another operation is refused") {
  StoreFixture f;
  AppendCheckpoint a = Checkpoint(OperationIdAt(1000, 1), "a");
  std::string b = OperationIdAt(2000, 2);
  LAKE_REQUIRE_OK(f.store.Publish(a));
  std::filesystem::rename(f.store.PathOf(a.operation_id), f.store.PathOf(b));
  absl::Status status = f.store.Load(b).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(std::string(status.message()).find(a.operation_id) != std::string::npos);
}

TEST_CASE("load refuses a bad id, reports a missing checkpoint, and refuses damage") {
  StoreFixture f;
  CHECK(absl::IsInvalidArgument(f.store.Load("../../stage.json").status()));
  CHECK(absl::IsNotFound(f.store.Load(OperationIdAt(1, 1)).status()));
  AppendCheckpoint c = Checkpoint(OperationIdAt(5, 5), "abc");
  LAKE_REQUIRE_OK(f.store.Publish(c));
  std::filesystem::resize_file(f.store.PathOf(c.operation_id), 100);
  CHECK(absl::IsDataLoss(f.store.Load(c.operation_id).status()));
  // Over the ceiling: refused without decoding (a sparse file, cheap here).
  std::filesystem::resize_file(f.store.PathOf(c.operation_id), kMaxAppendCheckpointBytes + 1);
  absl::Status status = f.store.Load(c.operation_id).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(std::string(status.message()).find("ceiling") != std::string::npos);
}

TEST_CASE("remove unlinks a checkpoint; one already gone is fine") {
  StoreFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "abc");
  LAKE_REQUIRE_OK(f.store.Publish(c));
  LAKE_CHECK_OK(f.store.Remove(c.operation_id));
  CHECK_FALSE(testing::PathExists(f.store.PathOf(c.operation_id)));
  LAKE_CHECK_OK(f.store.Remove(c.operation_id));
  CHECK(absl::IsInvalidArgument(f.store.Remove("not-an-id")));
}

TEST_CASE("list returns the oldest N by name and stat, never reading a payload") {
  StoreFixture f;
  std::vector<std::string> ids;
  for (uint64_t i = 0; i < 5; ++i) {
    // Published newest first, so order comes from the ids, not the disk.
    ids.insert(ids.begin(), OperationIdAt(1'700'000'000'000 - i * 1000, i));
    LAKE_REQUIRE_OK(f.store.Publish(Checkpoint(ids.front(), std::string(i + 1, 'b'))));
  }
  // Damage every payload and add what is not a checkpoint.
  for (const std::string& id : ids) testing::WriteFile(f.store.PathOf(id), {1, 2, 3});
  testing::WriteFile(f.checkpoints + "/." + ids[0] + ".append.tmp", {1});
  testing::WriteFile(f.checkpoints + "/notes.txt", {1});
  testing::WriteFile(f.checkpoints + "/not-an-id.append", {1});
  std::filesystem::create_directory(f.checkpoints + "/" + OperationIdAt(1, 1) + ".append");

  ReadRefusingFileSystem no_reads(f.fs);
  AppendCheckpointStore store = *AppendCheckpointStore::Open(no_reads, f.checkpoints);
  CHECK(absl::IsPermissionDenied(store.Load(ids[0]).status()));  // the refusal works
  absl::Time now = absl::FromUnixMillis(1'700'000'100'000);
  absl::StatusOr<PendingCheckpointList> list = store.List(3, now);
  LAKE_REQUIRE_OK(list);
  // The directory entry named like a checkpoint is the oldest "id": it
  // counts towards the limit but is not listed, being no regular file.
  REQUIRE(list->entries.size() == 2);
  CHECK(list->more == 3);
  for (size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const PendingCheckpointEntry& e = list->entries[i];
    CHECK(e.operation_id == ids[i]);
    CHECK(e.path == f.store.PathOf(ids[i]));
    CHECK(e.size_bytes == 3);
    CHECK(e.operation_time == absl::FromUnixMillis(ParseOperationId(ids[i])->unix_millis()));
    CHECK(e.age == now - e.operation_time);
  }
  CHECK(list->entries[0].age == absl::Seconds(100 + 4));

  std::filesystem::remove(f.checkpoints + "/" + OperationIdAt(1, 1) + ".append");
  list = store.List(kMaxListedAppendCheckpoints, now);
  LAKE_REQUIRE_OK(list);
  CHECK(list->more == 0);
  REQUIRE(list->entries.size() == 5);
  for (size_t i = 0; i < 5; ++i) CHECK(list->entries[i].operation_id == ids[i]);
}

TEST_CASE("list caps a flooded directory at 1,024 entries and counts the rest") {
  StoreFixture f;
  for (uint64_t i = 0; i < kMaxListedAppendCheckpoints + 6; ++i) {
    testing::WriteFile(f.store.PathOf(OperationIdAt(10'000 + i, i)), {7});
  }
  absl::StatusOr<PendingCheckpointList> list = f.store.List();
  LAKE_REQUIRE_OK(list);
  CHECK(kMaxListedAppendCheckpoints == 1024);
  REQUIRE(list->entries.size() == 1024);
  CHECK(list->more == 6);
  CHECK(list->entries.front().operation_id == OperationIdAt(10'000, 0));
  CHECK(list->entries.back().operation_id == OperationIdAt(10'000 + 1023, 1023));
}

TEST_CASE("list pages through a flooded directory after the last id it took in") {
  StoreFixture f;
  for (uint64_t i = 0; i < kMaxListedAppendCheckpoints + 6; ++i) {
    testing::WriteFile(f.store.PathOf(OperationIdAt(10'000 + i, i)), {7});
  }
  // A name no regular file holds still moves the page on.
  std::filesystem::create_directory(f.store.PathOf(OperationIdAt(10'000 + 2000, 1)));
  absl::StatusOr<PendingCheckpointList> first = f.store.List();
  LAKE_REQUIRE_OK(first);
  CHECK(first->last_considered == OperationIdAt(10'000 + 1023, 1023));
  absl::StatusOr<PendingCheckpointList> second =
      f.store.List(kMaxListedAppendCheckpoints, absl::Now(), first->last_considered);
  LAKE_REQUIRE_OK(second);
  REQUIRE(second->entries.size() == 6);
  CHECK(second->entries.front().operation_id == OperationIdAt(10'000 + 1024, 1024));
  CHECK(second->more == 0);
  CHECK(second->last_considered == OperationIdAt(10'000 + 2000, 1));
  absl::StatusOr<PendingCheckpointList> past =
      f.store.List(kMaxListedAppendCheckpoints, absl::Now(), second->last_considered);
  LAKE_REQUIRE_OK(past);
  CHECK(past->entries.empty());
  CHECK(past->last_considered.empty());
}

TEST_CASE("discard moves a checkpoint aside, kept and no longer listed; never twice") {
  StoreFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "abc");
  LAKE_REQUIRE_OK(f.store.Publish(c));
  absl::StatusOr<std::string> moved = f.store.Discard(c.operation_id);
  LAKE_REQUIRE_OK(moved);
  CHECK(*moved == f.checkpoints + "/discarded/" + c.operation_id + ".append");
  CHECK(*DecodeAppendCheckpoint(FileText(*moved)) == c);
  CHECK(f.store.List()->entries.empty());
  CHECK(absl::IsNotFound(f.store.Load(c.operation_id).status()));
  LAKE_CHECK_OK(f.store.CleanTemporaryFiles());  // leaves discarded/ alone
  CHECK(testing::PathExists(*moved));
  CHECK(absl::IsNotFound(f.store.Discard(c.operation_id).status()));
  // The same id published again cannot be discarded over the first.
  LAKE_REQUIRE_OK(f.store.Publish(c));
  CHECK(absl::IsAlreadyExists(f.store.Discard(c.operation_id).status()));
  CHECK(absl::IsInvalidArgument(f.store.Discard("../../etc").status()));
}

TEST_CASE("cleaning removes only temporary files") {
  StoreFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "abc");
  LAKE_REQUIRE_OK(f.store.Publish(c));
  testing::WriteFile(f.checkpoints + "/." + NewUuidV7() + ".append.tmp", {1});
  testing::WriteFile(f.checkpoints + "/." + c.operation_id + ".append.tmp", {1});
  testing::WriteFile(f.checkpoints + "/keep.tmp", {1});
  absl::StatusOr<uint64_t> removed = f.store.CleanTemporaryFiles();
  LAKE_REQUIRE_OK(removed);
  CHECK(*removed == 2);
  std::vector<std::string> left = testing::FilesUnder(f.checkpoints);
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{c.operation_id + ".append", "keep.tmp"});
  CHECK(*f.store.CleanTemporaryFiles() == 0);
}

TEST_CASE("a leftover temporary of the same operation makes publish fail, untouched") {
  StoreFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "abc");
  std::string temp = f.checkpoints + "/." + c.operation_id + ".append.tmp";
  testing::WriteFile(temp, {9});
  CHECK(absl::IsAlreadyExists(f.store.Publish(c).status()));
  CHECK(testing::ReadFile(temp) == std::vector<uint8_t>{9});
  CHECK_FALSE(testing::PathExists(f.store.PathOf(c.operation_id)));
}

TEST_CASE("the pending-append payload reads back only from its own error") {
  CHECK_FALSE(GetPendingAppend(absl::OkStatus()).has_value());
  CHECK_FALSE(GetPendingAppend(absl::UnavailableError("x")).has_value());
  absl::Status wrong_code = absl::InternalError("x");
  wrong_code.SetPayload(std::string(kPendingAppendPayload),
                        absl::Cord(std::string(kGoldenId) + "\n/p"));
  CHECK_FALSE(GetPendingAppend(wrong_code).has_value());
}

// ---- durability ----

struct FaultFixture {
  testing::TempDir dir;
  io::PosixFileSystem base;
  std::unique_ptr<testing::FaultInjectionFileSystem> fs;
  std::string checkpoints = dir.Join("root/checkpoints");

  FaultFixture() {
    std::filesystem::create_directory(dir.Join("backups"));
    fs = std::make_unique<testing::FaultInjectionFileSystem>(base, dir.Join("backups"));
  }
  // Publishes `c` through `store` with the power lost at `step`.
  absl::Status PublishLosingPowerAt(AppendCheckpointStore& store, std::string_view step,
                                    const AppendCheckpoint& c) {
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kCallback, [this] {
      fs->Crash();
      return absl::UnavailableError("power lost");
    });
    absl::Status published = store.Publish(c).status();
    failpoint::ClearAll();
    CHECK(fs->crashed());
    return published;
  }
};

TEST_CASE("after publish returns, a power loss keeps the checkpoint") {
  FaultFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "batch");
  {
    absl::StatusOr<AppendCheckpointStore> store = AppendCheckpointStore::Open(*f.fs, f.checkpoints);
    LAKE_REQUIRE_OK(store);
    LAKE_REQUIRE_OK(store->Publish(c));
    f.fs->Crash();
  }
  absl::StatusOr<AppendCheckpointStore> recovered = AppendCheckpointStore::Open(f.base, f.checkpoints);
  LAKE_REQUIRE_OK(recovered);
  absl::StatusOr<AppendCheckpoint> back = recovered->Load(c.operation_id);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == c);
}

TEST_CASE("a withdrawn checkpoint stays gone through a power loss") {
  FaultFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "withdrawn");
  {
    absl::StatusOr<AppendCheckpointStore> store = AppendCheckpointStore::Open(*f.fs, f.checkpoints);
    LAKE_REQUIRE_OK(store);
    LAKE_REQUIRE_OK(store->Publish(c));
    LAKE_REQUIRE_OK(store->Withdraw(c.operation_id));
    LAKE_CHECK_OK(store->Withdraw(c.operation_id));  // gone already: fine
    CHECK(absl::IsInvalidArgument(store->Withdraw("not-an-id")));
    f.fs->Crash();
  }
  AppendCheckpointStore recovered = *AppendCheckpointStore::Open(f.base, f.checkpoints);
  CHECK(absl::IsNotFound(recovered.Load(c.operation_id).status()));
  CHECK(recovered.List()->entries.empty());
}

TEST_CASE("a discarded checkpoint is in its new place after a power loss") {
  FaultFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "batch");
  std::string moved;
  {
    absl::StatusOr<AppendCheckpointStore> store = AppendCheckpointStore::Open(*f.fs, f.checkpoints);
    LAKE_REQUIRE_OK(store);
    LAKE_REQUIRE_OK(store->Publish(c));
    absl::StatusOr<std::string> discarded = store->Discard(c.operation_id);
    LAKE_REQUIRE_OK(discarded);
    moved = *discarded;
    f.fs->Crash();
  }
  AppendCheckpointStore recovered = *AppendCheckpointStore::Open(f.base, f.checkpoints);
  CHECK(recovered.List()->entries.empty());
  CHECK(*DecodeAppendCheckpoint(FileText(moved)) == c);
}

TEST_CASE("a power loss at each step of publish leaves the checkpoint absent or whole") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : io::kWholeFileFailpoints) {
    CAPTURE(std::string(step));
    FaultFixture f;
    AppendCheckpoint c = Checkpoint(NewUuidV7(), std::string(100'000, 'r'));
    absl::Status published;
    {
      absl::StatusOr<AppendCheckpointStore> store =
          AppendCheckpointStore::Open(*f.fs, f.checkpoints);
      LAKE_REQUIRE_OK(store);
      published = f.PublishLosingPowerAt(*store, step, c);
    }
    CHECK_FALSE(published.ok());
    bool renamed = step == "whole_file.renamed" || step == "whole_file.published";
    CHECK(GetPendingAppend(published).has_value() == renamed);
    AppendCheckpointStore recovered = *AppendCheckpointStore::Open(f.base, f.checkpoints);
    LAKE_REQUIRE_OK(recovered.CleanTemporaryFiles());
    absl::StatusOr<AppendCheckpoint> back = recovered.Load(c.operation_id);
    // Only the directory sync makes the name durable; before it the power
    // loss takes the checkpoint away whole, after it the checkpoint stays.
    if (step == "whole_file.published") {
      LAKE_REQUIRE_OK(back);
      CHECK(*back == c);
    } else {
      CHECK(absl::IsNotFound(back.status()));
    }
    CHECK(testing::FilesUnder(f.checkpoints).size() == (step == "whole_file.published" ? 1u : 0u));
  }
}

TEST_CASE("a power loss at each step of a publish that rewrites a spare") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : io::kWholeFileFailpoints) {
    CAPTURE(std::string(step));
    FaultFixture f;
    AppendCheckpoint retired = Checkpoint(NewUuidV7(), std::string(200'000, 'o'));
    AppendCheckpoint kept = Checkpoint(NewUuidV7(), "kept");
    AppendCheckpoint c = Checkpoint(NewUuidV7(), std::string(100'000, 'r'));
    absl::Status published;
    {
      absl::StatusOr<AppendCheckpointStore> store =
          AppendCheckpointStore::Open(*f.fs, f.checkpoints);
      LAKE_REQUIRE_OK(store);
      LAKE_REQUIRE_OK(store->Publish(retired));
      LAKE_REQUIRE_OK(store->Remove(retired.operation_id));  // a spare, not yet durable
      LAKE_REQUIRE_OK(store->Publish(kept));                  // now durable
      published = f.PublishLosingPowerAt(*store, step, c);   // rewrites the spare
    }
    CHECK_FALSE(published.ok());
    AppendCheckpointStore recovered = *AppendCheckpointStore::Open(f.base, f.checkpoints);
    LAKE_REQUIRE_OK(recovered.CleanTemporaryFiles());
    // The retired checkpoint never comes back holding anything; the kept
    // one is whole; the new one is absent or whole.
    CHECK(absl::IsNotFound(recovered.Load(retired.operation_id).status()));
    CHECK(*recovered.Load(kept.operation_id) == kept);
    absl::StatusOr<AppendCheckpoint> back = recovered.Load(c.operation_id);
    if (step == "whole_file.published") {
      LAKE_REQUIRE_OK(back);
      CHECK(*back == c);
    } else {
      CHECK(absl::IsNotFound(back.status()));
    }
    CHECK(recovered.List()->entries.size() == (step == "whole_file.published" ? 2u : 1u));
    CHECK(testing::FilesUnder(f.checkpoints).size() == recovered.List()->entries.size());
  }
}

TEST_CASE("a directory sync failure after the rename hands back the pending append") {
  REQUIRE(failpoint::Enabled());
  FaultFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "batch");
  absl::StatusOr<AppendCheckpointStore> store = AppendCheckpointStore::Open(*f.fs, f.checkpoints);
  LAKE_REQUIRE_OK(store);
  // The machine dies right after the rename: the directory sync itself fails.
  failpoint::ClearAll();
  failpoint::Set("whole_file.renamed", failpoint::Action::kCallback, [&] {
    f.fs->Crash();
    return absl::OkStatus();
  });
  absl::Status status = store->Publish(c).status();
  failpoint::ClearAll();
  CHECK(absl::IsUnavailable(status));
  std::optional<PendingAppendInfo> pending = GetPendingAppend(status);
  REQUIRE(pending.has_value());
  CHECK(pending->operation_id == c.operation_id);
  CHECK(pending->published_path == f.checkpoints + "/" + c.operation_id + ".append");
  CHECK(std::string(status.message()).find("simulated power loss") != std::string::npos);
}

TEST_CASE("a pending append's published checkpoint is complete while the machine runs") {
  REQUIRE(failpoint::Enabled());
  StoreFixture f;
  AppendCheckpoint c = Checkpoint(NewUuidV7(), "batch");
  failpoint::ClearAll();
  failpoint::Set("whole_file.renamed", failpoint::Action::kError);
  absl::Status status = f.store.Publish(c).status();
  failpoint::ClearAll();
  std::optional<PendingAppendInfo> pending = GetPendingAppend(status);
  REQUIRE(pending.has_value());
  CHECK(pending->published_path == f.store.PathOf(c.operation_id));
  CHECK(*f.store.Load(pending->operation_id) == c);
}

// ---- before a replay ----

TEST_CASE("a checkpoint of this stage within the horizon may be replayed") {
  AppendCheckpoint c = Checkpoint(std::string(kGoldenId), "abc");
  absl::Time made = absl::FromUnixMillis(kGoldenMillis);
  LAKE_CHECK_OK(ValidateForReplay(c, kLocalStage, made + absl::Hours(1), absl::Hours(1)));
}

TEST_CASE("a checkpoint of another stage is not replayed, and not called expired") {
  AppendCheckpoint c = Checkpoint(std::string(kGoldenId), "abc");
  absl::Time made = absl::FromUnixMillis(kGoldenMillis);
  absl::Status status = ValidateForReplay(
      c, R"({"version":1,"kind":"s3","bucket":"b","prefix":"","region":"r","endpoint":"","path_style":false})",
      made, absl::Hours(1));
  CHECK(absl::IsFailedPrecondition(status));
  CHECK_FALSE(IsExpiredOperation(status));
}

TEST_CASE("an operation past the horizon is rejected with a typed error") {
  AppendCheckpoint c = Checkpoint(std::string(kGoldenId), "abc");
  absl::Time made = absl::FromUnixMillis(kGoldenMillis);
  absl::Status status =
      ValidateForReplay(c, kLocalStage, made + absl::Hours(2), absl::Hours(1));
  CHECK(absl::IsFailedPrecondition(status));
  CHECK(IsExpiredOperation(status));
  CHECK(std::string(status.message()).find(std::string(kGoldenId)) != std::string::npos);
  CHECK_FALSE(IsExpiredOperation(absl::FailedPreconditionError("other")));
}

TEST_CASE("a hand-made checkpoint with a bad operation id is damage") {
  AppendCheckpoint c = Checkpoint("not-an-id", "abc");
  CHECK(absl::IsDataLoss(ValidateForReplay(c, kLocalStage, absl::Now(), absl::Hours(1))));
}

}  // namespace
}  // namespace lake::table
