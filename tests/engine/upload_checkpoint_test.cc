// The checkpoint of a resumable S3 upload (engine/s3/upload_checkpoint_*):
// golden bytes of a V1 checkpoint with 5 MiB parts, a decoder that fails
// closed, and a store whose publication survives a power loss at any step.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/failpoint.h"
#include "engine/managed_key.h"
#include "engine/s3/upload_checkpoint_format.h"
#include "engine/s3/upload_checkpoint_store.h"
#include "io/posix/posix_file_system.h"
#include "io/whole_file.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

std::string Golden() {
  const char* dir = std::getenv("LAKE_TESTDATA");
  REQUIRE(dir != nullptr);
  std::ifstream in(std::string(dir) + "/upload_checkpoint/v1-5mib-parts.ckpt", std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// What tests/testdata/upload_checkpoint/v1-5mib-parts.ckpt records.
UploadCheckpoint GoldenCheckpoint() {
  UploadCheckpoint c;
  c.id = "0190a0b0-1234-7abc-8def-0123456789ab";
  c.key = "prefix/objects/4d/0190a0b0-0000-7000-8000-00000000004d";
  c.upload_id = "2~upload-id-of-the-golden-checkpoint";
  c.bucket = "lake-bucket";
  c.prefix = "prefix";
  c.endpoint = "http://127.0.0.1:7480";
  c.content_type = "application/octet-stream";
  c.source_path = "/srv/data/big.bin";
  c.source_device = 2049;
  c.source_inode = 131;
  c.source_size = 12 * 1024 * 1024 + 1000;
  c.source_mtime_micros = 1700000000123456;
  c.part_bytes = 5 << 20;
  c.window = 4;
  c.created_unix_micros = 1700000000000000;
  c.updated_unix_micros = 1700000100000000;
  c.parts = {{"ffc88b4ca90a355f8ddba6b2c3b2af5c",
              "59e0a3cc7a0c45f96735bf1f06325db90b4bb742f257df12b6b18df3d2126499"},
             {"d067a0fa9dc61a6e7195ca99696b5a89",
              "474d3c9a0b52b768b7c54affb2c386a921a6b33007109c70be7b536eba176bb4"}};
  return c;
}

UploadCheckpoint Fresh() {
  UploadCheckpoint c = GoldenCheckpoint();
  c.id = NewUuidV7();
  c.part_bytes = kS3CheckpointPartBytes;
  c.source_size = 200ull << 20;
  return c;
}

TEST_CASE("the golden V1 checkpoint with 5 MiB parts decodes to what it records") {
  absl::StatusOr<UploadCheckpoint> decoded = DecodeUploadCheckpoint(Golden());
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == GoldenCheckpoint());
  CHECK(decoded->bytes_done() == 10ull << 20);
}

TEST_CASE("encoding the golden checkpoint gives its exact bytes") {
  absl::StatusOr<std::string> bytes = EncodeUploadCheckpoint(GoldenCheckpoint());
  LAKE_REQUIRE_OK(bytes);
  CHECK(*bytes == Golden());
}

TEST_CASE("a checkpoint round-trips through its encoding") {
  UploadCheckpoint c = Fresh();
  c.tenant = "acme";
  absl::StatusOr<UploadCheckpoint> back = DecodeUploadCheckpoint(*EncodeUploadCheckpoint(c));
  LAKE_REQUIRE_OK(back);
  CHECK(*back == c);
}

TEST_CASE("only 5 MiB and 64 MiB parts are resumable sizes") {
  for (uint64_t size : {uint64_t{1} << 20, uint64_t{8} << 20, uint64_t{0}, uint64_t{128} << 20}) {
    UploadCheckpoint c = Fresh();
    c.part_bytes = size;
    CHECK(absl::IsInvalidArgument(EncodeUploadCheckpoint(c).status()));
  }
}

// The golden bytes with one change, their digest made right again, so
// only the decoder's field checks stand in the way.
std::string Resealed(std::string bytes) {
  bytes.resize(bytes.size() - 32);
  std::string digest;
  for (size_t i = 0; i < 64; i += 2) {
    digest.push_back(static_cast<char>(std::stoi(testing::Sha256Hex(
        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()).substr(i, 2), nullptr, 16)));
  }
  return bytes + digest;
}

TEST_CASE("the decoder refuses every flipped bit, cut and extension of the golden bytes") {
  const std::string golden = Golden();
  for (size_t i = 0; i < golden.size(); ++i) {
    for (int bit = 0; bit < 8; bit += 3) {
      std::string bytes = golden;
      bytes[i] = static_cast<char>(bytes[i] ^ (1 << bit));
      CHECK_MESSAGE(absl::IsDataLoss(DecodeUploadCheckpoint(bytes).status()), "byte ", i);
    }
  }
  for (size_t len = 0; len < golden.size(); len += 7) {
    CHECK(absl::IsDataLoss(DecodeUploadCheckpoint(golden.substr(0, len)).status()));
  }
  CHECK(absl::IsDataLoss(DecodeUploadCheckpoint(golden + "x").status()));
}

TEST_CASE("the decoder refuses an unknown version even with a right digest") {
  std::string bytes = Golden();
  bytes[8] = 2;
  absl::Status status = DecodeUploadCheckpoint(Resealed(bytes)).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(status.message().find("version 2") != std::string_view::npos);
}

TEST_CASE("the decoder refuses a recorded part size that is not resumable before anything else") {
  UploadCheckpoint c = GoldenCheckpoint();
  std::string bytes = *EncodeUploadCheckpoint(c);
  // part_bytes sits after the nine strings and the four source fields.
  size_t at = 12;
  for (const std::string* s : {&c.id, &c.key, &c.upload_id, &c.bucket, &c.prefix, &c.endpoint,
                               &c.tenant, &c.content_type, &c.source_path}) {
    at += 4 + s->size();
  }
  at += 32;
  uint64_t one_mib = 1 << 20;
  bytes.replace(at, 8, reinterpret_cast<const char*>(&one_mib), 8);
  absl::Status status = DecodeUploadCheckpoint(Resealed(bytes)).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(status.message().find("part size 1048576") != std::string_view::npos);
}

TEST_CASE("a checkpoint holds no credential or secret field") {
  // Every string field is listed here; none is a key, token or signature.
  std::string bytes = Golden();
  for (std::string_view word : {"AWS_", "Signature", "X-Amz-Credential", "secret", "token"}) {
    CHECK(bytes.find(word) == std::string::npos);
  }
}

// ---- the store ----

struct StoreFixture {
  testing::TempDir dir;
  io::PosixFileSystem base;
  std::unique_ptr<testing::FaultInjectionFileSystem> fs;
  std::string checkpoints = dir.Join("root/checkpoints/uploads");
  StoreFixture() {
    std::filesystem::create_directory(dir.Join("backups"));
    fs = std::make_unique<testing::FaultInjectionFileSystem>(base, dir.Join("backups"));
  }
};

TEST_CASE("a published checkpoint is what a later load returns, and its older files go") {
  StoreFixture f;
  UploadCheckpointStore store(f.base, f.checkpoints);
  UploadCheckpoint c = Fresh();
  c.parts.clear();
  absl::StatusOr<std::unique_ptr<HeldUploadCheckpoint>> held = store.Create(c);
  LAKE_REQUIRE_OK(held);
  c.parts = GoldenCheckpoint().parts;
  LAKE_REQUIRE_OK((*held)->Publish(c));
  absl::StatusOr<UploadCheckpoint> back = store.Load(c.id);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == c);
  // The lock file and one checkpoint file.
  CHECK(testing::FilesUnder(f.checkpoints).size() == 2);
  LAKE_REQUIRE_OK((*held)->Remove());
  CHECK(testing::FilesUnder(f.checkpoints).empty());
}

TEST_CASE("a held checkpoint cannot be locked again until it is released") {
  StoreFixture f;
  UploadCheckpointStore store(f.base, f.checkpoints);
  UploadCheckpoint c = Fresh();
  auto held = store.Create(c);
  LAKE_REQUIRE_OK(held);
  auto second = store.TryLock(c.id);
  LAKE_REQUIRE_OK(second);
  CHECK_FALSE(second->has_value());
  auto listed = store.List(true);
  LAKE_REQUIRE_OK(listed);
  REQUIRE(listed->size() == 1);
  CHECK((*listed)[0].locked);
  held->reset();  // the process let go (a crash does the same)
  auto third = store.TryLock(c.id);
  LAKE_REQUIRE_OK(third);
  CHECK(third->has_value());
}

TEST_CASE("a removed checkpoint cannot be locked") {
  StoreFixture f;
  UploadCheckpointStore store(f.base, f.checkpoints);
  UploadCheckpoint c = Fresh();
  auto held = store.Create(c);
  LAKE_REQUIRE_OK(held);
  LAKE_REQUIRE_OK((*held)->Remove());
  CHECK(absl::IsNotFound(store.TryLock(c.id).status()));
  CHECK(absl::IsNotFound(store.Load(c.id).status()));
}

TEST_CASE("a tampered current checkpoint is DataLoss, never an older one") {
  StoreFixture f;
  UploadCheckpointStore store(f.base, f.checkpoints);
  UploadCheckpoint c = Fresh();
  auto held = store.Create(c);
  LAKE_REQUIRE_OK(held);
  c.parts = GoldenCheckpoint().parts;
  LAKE_REQUIRE_OK((*held)->Publish(c));
  for (const std::string& name : testing::FilesUnder(f.checkpoints)) {
    if (name.ends_with(".ckpt")) {
      std::vector<uint8_t> bytes = testing::ReadFile(f.checkpoints + "/" + name);
      bytes[40] ^= 1;
      std::filesystem::remove(f.checkpoints + "/" + name);
      testing::WriteFile(f.checkpoints + "/" + name, bytes);
    }
  }
  CHECK(absl::IsDataLoss(store.Load(c.id).status()));
  auto listed = store.List(false);
  LAKE_REQUIRE_OK(listed);
  REQUIRE(listed->size() == 1);
  CHECK(absl::IsDataLoss((*listed)[0].checkpoint.status()));
}

TEST_CASE("a power loss at any step of a publication leaves the old or the new checkpoint") {
  for (std::string_view step : {io::kWholeFileFailpoints[0], io::kWholeFileFailpoints[1],
                                io::kWholeFileFailpoints[2], io::kWholeFileFailpoints[3],
                                kUploadCheckpointFailpoints[0], kUploadCheckpointFailpoints[1]}) {
    CAPTURE(step);
    StoreFixture f;
    UploadCheckpoint before = Fresh();
    UploadCheckpoint after = before;
    after.parts = GoldenCheckpoint().parts;
    {
      UploadCheckpointStore store(*f.fs, f.checkpoints);
      auto held = store.Create(before);
      LAKE_REQUIRE_OK(held);
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kCallback, [&f] {
        f.fs->Crash();
        return absl::UnavailableError("power lost");
      });
      absl::Status published = (*held)->Publish(after);
      failpoint::ClearAll();
      CHECK(f.fs->crashed());
      CHECK_FALSE(published.ok());
    }
    UploadCheckpointStore recovered(f.base, f.checkpoints);
    absl::StatusOr<UploadCheckpoint> back = recovered.Load(before.id);
    LAKE_REQUIRE_OK(back);
    CHECK((*back == before || *back == after));
    // Once the rename's directory sync happened, the new one is kept.
    if (step == io::kWholeFileFailpoints[3] || step.starts_with("upload_checkpoint")) {
      CHECK(*back == after);
    }
    // And it can be taken over and published again.
    auto again = recovered.TryLock(before.id);
    LAKE_REQUIRE_OK(again);
    REQUIRE(again->has_value());
    LAKE_CHECK_OK((**again)->Publish(after));
    CHECK(*recovered.Load(before.id) == after);
  }
}

}  // namespace
}  // namespace lake
