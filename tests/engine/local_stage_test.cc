// The local managed stage end to end (managed-objects.md, "the local
// backend"): uploads publish complete objects under objects/ after an
// atomic rename, reads are verified, ranges capped, and every location
// outside the stage is refused before any I/O.
#include <doctest/doctest.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "absl/strings/match.h"
#include "base/buffer_budget.h"
#include "engine/file_upload_source.h"
#include "engine/integrity_error.h"
#include "engine/local/local_upload.h"
#include "engine/local/shard_directories.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/syscall_refusal.h"

namespace lake {
namespace {

using testing::MemorySource;
using testing::StageFixture;

std::vector<uint8_t> ReadVerified(ManagedStage& stage, const DataLocation& location) {
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = stage.OpenVerified(location);
  REQUIRE_MESSAGE(reader.ok(), reader.status().ToString());
  std::vector<uint8_t> out;
  absl::Status status = testing::ReadAll(**reader, &out);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  CHECK((*reader)->verified());
  return out;
}

absl::Status ReadStatus(ManagedStage& stage, const DataLocation& location) {
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = stage.OpenVerified(location);
  if (!reader.ok()) return reader.status();
  std::vector<uint8_t> out;
  return testing::ReadAll(**reader, &out);
}

std::vector<uint8_t> ReadRange(ManagedStage& stage, const DataLocation& location,
                               uint64_t start, uint64_t end) {
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader =
      stage.OpenRange(location, ByteRange{start, end});
  REQUIRE_MESSAGE(reader.ok(), reader.status().ToString());
  std::vector<uint8_t> out;
  absl::Status status = testing::ReadAll(**reader, &out);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  return out;
}

DataLocation WithUri(const DataLocation& location, const std::string& uri) {
  return *MakeDataLocation(uri, location.content_type, location.size_bytes,
                           location.sha256);
}

TEST_CASE("an uploaded file comes back as a verified DataLocation") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(3 * 1024 * 1024 + 17, 1);
  testing::WriteFile(f.dir.Join("source.bin"), bytes);
  absl::StatusOr<DataLocation> location = f.UploadFile(f.dir.Join("source.bin"));
  LAKE_REQUIRE_OK(location);
  CHECK(location->size_bytes == bytes.size());
  CHECK(location->sha256 == testing::Sha256Hex(bytes));
  CHECK(location->content_type == "application/octet-stream");
  CHECK(absl::StartsWith(location->uri, "file://"));
  std::string real_root = std::filesystem::canonical(f.stage_root()).string();
  CHECK(IsStrictlyBeneath(f.PathOf(*location), real_root + "/objects"));
  CHECK(testing::ReadFile(f.PathOf(*location)) == bytes);
  CHECK(ReadVerified(*f.stage, *location) == bytes);
  CHECK(f.StagingFiles().empty());
}

// The shard directories beneath a stage's objects/ (objects/<xx>).
std::vector<std::string> ShardDirectoryNames(const std::string& objects) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(objects)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("a store's first upload makes every shard directory, 00 to ff") {
  StageFixture f;
  const std::string objects = std::filesystem::canonical(f.stage_root()).string() + "/objects";
  CHECK(ShardDirectoryNames(objects).empty());
  LAKE_REQUIRE_OK(f.UploadBytes(testing::RandomBytes(100, 1)));
  std::vector<std::string> shards = ShardDirectoryNames(objects);
  REQUIRE(shards.size() == kShardDirectoryCount);
  CHECK(shards.front() == "00");
  CHECK(shards.back() == "ff");
}

TEST_CASE("an upload into a shard directory removed since it was made makes it again") {
  StageFixture f;
  const std::string objects = std::filesystem::canonical(f.stage_root()).string() + "/objects";
  LAKE_REQUIRE_OK(f.UploadBytes(testing::RandomBytes(100, 1)));
  // Every empty shard goes: the next uploads land in removed ones.
  for (const std::string& shard : ShardDirectoryNames(objects)) {
    std::error_code ignored;
    std::filesystem::remove(objects + "/" + shard, ignored);  // fails if not empty
  }
  REQUIRE(ShardDirectoryNames(objects).size() == 1);
  for (int i = 0; i < 8; ++i) {
    std::vector<uint8_t> bytes = testing::RandomBytes(100, 10 + i);
    absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
    LAKE_REQUIRE_OK(location);
    CHECK(ReadVerified(*f.stage, *location) == bytes);
  }
  CHECK(f.ObjectFiles().size() == 9);
}

// A file read at offsets whose size hint is wrong, as when the file grew
// or shrank after it was measured.
class MisjudgedFileSource final : public UploadSource {
 public:
  MisjudgedFileSource(std::unique_ptr<FileUploadSource> file, uint64_t hint)
      : file_(std::move(file)), hint_(hint) {}
  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override { return file_->Read(dst, len); }
  io::File* positional_file() override { return file_->positional_file(); }
  std::optional<uint64_t> size_hint() const override { return hint_; }

 private:
  std::unique_ptr<FileUploadSource> file_;
  uint64_t hint_;
};

TEST_CASE("a file read at offsets uploads whole whatever size it was said to have") {
  StageFixture f;
  for (size_t size : {size_t{100}, kUploadChunkBytes, 3 * kUploadChunkBytes + 5}) {
    std::vector<uint8_t> bytes = testing::RandomBytes(size, size + 3);
    std::string path = f.dir.Join("misjudged-" + std::to_string(size));
    testing::WriteFile(path, bytes);
    for (uint64_t hint : {uint64_t{0}, uint64_t{1}, uint64_t{size / 2}, uint64_t{size - 1},
                          uint64_t{kUploadChunkBytes - 1}, uint64_t{kUploadChunkBytes},
                          uint64_t{size + 1}, uint64_t{size + 5 * kUploadChunkBytes}}) {
      CAPTURE(size);
      CAPTURE(hint);
      absl::StatusOr<std::unique_ptr<FileUploadSource>> file =
          FileUploadSource::Open(**io::DefaultFileSystem(), path);
      LAKE_REQUIRE_OK(file);
      REQUIRE((*file)->positional_file() != nullptr);
      MisjudgedFileSource source(*std::move(file), hint);
      absl::StatusOr<DataLocation> location = f.stage->Upload(source, {});
      LAKE_REQUIRE_OK(location);
      CHECK(location->size_bytes == size);
      CHECK(location->sha256 == testing::Sha256Hex(bytes));
      CHECK(ReadVerified(*f.stage, *location) == bytes);
    }
  }
}

TEST_CASE("an upload of a file allocates no more disk than the file's size") {
  StageFixture f;
  for (size_t size : {kUploadChunkBytes, kUploadChunkBytes + kUploadChunkBytes / 2,
                      2 * kUploadChunkBytes, 3 * kUploadChunkBytes + 5}) {
    CAPTURE(size);
    std::vector<uint8_t> bytes = testing::RandomBytes(size, size + 7);
    const std::string path = f.dir.Join("sized-" + std::to_string(size));
    testing::WriteFile(path, bytes);
    // Measured when the last byte is handed to the disk: the staging file
    // as allocated before it is trimmed and synced.
    int staging_files = 0;
    uint64_t allocated = 0;
    UploadOptions options;
    options.progress = [&](uint64_t done, uint64_t) {
      if (done != size) return;
      for (const std::string& name : f.StagingFiles()) {
        struct stat st;
        if (!absl::EndsWith(name, ".uploading")) continue;
        REQUIRE(::stat((f.stage_root() + "/.staging/" + name).c_str(), &st) == 0);
        ++staging_files;
        allocated = uint64_t(st.st_blocks) * 512;
      }
    };
    LAKE_REQUIRE_OK(f.UploadFile(path, options));
    REQUIRE(staging_files == 1);
    CHECK(allocated <= (size + 4095) / 4096 * 4096);
  }
}

TEST_CASE("every chunk and direct-I/O boundary size round-trips, from each kind of source") {
  const std::vector<size_t> sizes = {
      0,    1,    4095, 4096, 4097, kUploadChunkBytes - 1, kUploadChunkBytes,
      kUploadChunkBytes + 1, 9 * kUploadChunkBytes + 4097};
  StageFixture f;
  for (size_t size : sizes) {
    CAPTURE(size);
    std::vector<uint8_t> bytes = testing::RandomBytes(size, size + 7);
    std::string path = f.dir.Join("src-" + std::to_string(size));
    testing::WriteFile(path, bytes);

    absl::StatusOr<DataLocation> from_file = f.UploadFile(path);
    LAKE_REQUIRE_OK(from_file);
    CHECK(from_file->sha256 == testing::Sha256Hex(bytes));
    CHECK(from_file->size_bytes == size);
    CHECK(ReadVerified(*f.stage, *from_file) == bytes);

    MemorySource odd_reads(bytes, 12345);  // reads that straddle chunks
    absl::StatusOr<DataLocation> from_stream = f.stage->Upload(odd_reads, {});
    LAKE_REQUIRE_OK(from_stream);
    CHECK(from_stream->sha256 == from_file->sha256);
    CHECK(from_stream->uri != from_file->uri);  // every upload is a new object

    absl::StatusOr<std::unique_ptr<LocationWriter>> writer = f.stage->NewWriter({});
    LAKE_REQUIRE_OK(writer);
    for (size_t offset = 0; offset < size; offset += 7777) {
      LAKE_REQUIRE_OK((*writer)->Write(bytes.data() + offset, std::min<size_t>(7777, size - offset)));
    }
    absl::StatusOr<DataLocation> pushed = (*writer)->Commit();
    LAKE_REQUIRE_OK(pushed);
    CHECK(pushed->sha256 == from_file->sha256);
    CHECK(ReadVerified(*f.stage, *pushed) == bytes);
  }
  CHECK(f.StagingFiles().empty());
}

TEST_CASE("a pipe is uploaded as a sequential source") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(2 * 1024 * 1024 + 5, 2);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::thread feeder([&] {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = ::write(fds[1], bytes.data() + off, std::min<size_t>(65536, bytes.size() - off));
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  absl::StatusOr<DataLocation> location =
      f.UploadFile("/proc/self/fd/" + std::to_string(fds[0]));
  feeder.join();
  ::close(fds[0]);
  LAKE_REQUIRE_OK(location);
  CHECK(location->sha256 == testing::Sha256Hex(bytes));
}

TEST_CASE("the content type is kept, and an invalid one is refused before any I/O") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(10, 3);
  UploadOptions options;
  options.content_type = "video/mp4";
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes, options);
  LAKE_REQUIRE_OK(location);
  CHECK(location->content_type == "video/mp4");

  for (std::string bad : {std::string(), std::string(256, 'x'), std::string("a\nb")}) {
    options.content_type = bad;
    absl::StatusOr<DataLocation> refused = f.UploadBytes(bytes, options);
    CHECK(absl::IsInvalidArgument(refused.status()));
  }
  CHECK(f.ObjectFiles().size() == 1);
  CHECK(f.StagingFiles().empty());
}

TEST_CASE("tampering on disk is caught: flipped byte, truncation, appended byte") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(2 * 1024 * 1024 + 3, 4);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  std::string path = f.PathOf(*location);

  std::vector<uint8_t> flipped = bytes;
  flipped[1 << 20] ^= 0x80;
  testing::WriteFile(path, flipped);
  CHECK(testing::KindOf(ReadStatus(*f.stage, *location)) == IntegrityKind::kDigestMismatch);

  testing::WriteFile(path, std::vector<uint8_t>(bytes.begin(), bytes.end() - 1));
  CHECK(testing::KindOf(ReadStatus(*f.stage, *location)) == IntegrityKind::kSizeShort);

  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  testing::WriteFile(path, longer);
  CHECK(testing::KindOf(ReadStatus(*f.stage, *location)) == IntegrityKind::kSizeLong);

  testing::WriteFile(path, bytes);
  CHECK(ReadVerified(*f.stage, *location) == bytes);
}

TEST_CASE("views of a local object's read-ahead chunks verify and stay put until the next call") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(5 * 1024 * 1024 + 77, 24);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  for (bool range : {false, true}) {
    CAPTURE(range);
    absl::StatusOr<std::unique_ptr<ObjectReader>> reader =
        range ? f.stage->OpenRange(*location, {1000, bytes.size() - 1000})
              : f.stage->OpenVerified(*location);
    LAKE_REQUIRE_OK(reader);
    std::vector<uint8_t> out;
    for (;;) {
      absl::StatusOr<absl::Span<const uint8_t>> view = (*reader)->ReadView(3 << 20);
      LAKE_REQUIRE_OK(view);
      if (view->empty()) break;
      out.insert(out.end(), view->begin(), view->end());
    }
    std::vector<uint8_t> expected =
        range ? std::vector<uint8_t>(bytes.begin() + 1000, bytes.end() - 1000) : bytes;
    CHECK(out == expected);
    CHECK((*reader)->verified() == !range);
  }
}

TEST_CASE("range edge cases: first byte, last byte, whole, across chunks") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(3 * 1024 * 1024 + 11, 5);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  auto slice = [&](uint64_t a, uint64_t b) {
    return std::vector<uint8_t>(bytes.begin() + static_cast<long>(a),
                                bytes.begin() + static_cast<long>(b));
  };
  uint64_t n = bytes.size();
  for (auto [a, b] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 1}, {n - 1, n}, {0, n}, {1, n - 1}, {(1 << 20) - 3, (1 << 20) + 3},
           {100, 200}, {512 * 1024 - 1, 2 * 1024 * 1024 + 1}}) {
    CAPTURE(a);
    CAPTURE(b);
    CHECK(ReadRange(*f.stage, *location, a, b) == slice(a, b));
  }
}

TEST_CASE("bad ranges are refused against size_bytes before the object is opened") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(100, 6);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  // Remove the object: if validation came after opening, these would be
  // NotFound instead.
  REQUIRE(::unlink(f.PathOf(*location).c_str()) == 0);
  for (ByteRange r : {ByteRange{5, 5}, ByteRange{6, 5}, ByteRange{0, 101}, ByteRange{100, 101}}) {
    CHECK(absl::IsInvalidArgument(f.stage->OpenRange(*location, r).status()));
  }
  CHECK(absl::IsNotFound(f.stage->OpenRange(*location, {0, 100}).status()));
}

TEST_CASE("a range cut short by storage ends with PrematureEof") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(1 << 20, 7);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  REQUIRE(::truncate(f.PathOf(*location).c_str(), 700000) == 0);
  for (ByteRange r : {ByteRange{600000, 800000}, ByteRange{0, 1 << 20}}) {
    absl::StatusOr<std::unique_ptr<ObjectReader>> reader = f.stage->OpenRange(*location, r);
    LAKE_REQUIRE_OK(reader);
    std::vector<uint8_t> out;
    absl::Status status = testing::ReadAll(**reader, &out);
    std::optional<IntegrityDetail> detail = GetIntegrityDetail(status);
    REQUIRE(detail.has_value());
    CHECK(detail->kind == IntegrityKind::kPrematureEof);
    CHECK(detail->expected == r.length());
    CHECK(detail->observed == 700000 - r.start);
  }
}

TEST_CASE("locations outside the stage are refused before any I/O") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(100, 8);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  std::string root = std::filesystem::canonical(f.stage_root()).string();

  // Another directory, a sibling whose name extends the root's, the
  // staging area, the root itself, an S3 URI.
  for (std::string uri : {std::string("file:///etc/passwd"),
                          FormatFileUri(root + "-evil/objects/00/x"),
                          FormatFileUri(root + "/.staging/x.uploading"),
                          FormatFileUri(root + "/x"),
                          std::string("s3://bucket/objects/00/x")}) {
    CAPTURE(uri);
    absl::Status status = f.stage->OpenVerified(WithUri(*location, uri)).status();
    CHECK(absl::IsInvalidArgument(status));
    CHECK(testing::KindOf(status) == IntegrityKind::kInvalidLocation);
    CHECK(testing::KindOf(f.stage->OpenRange(WithUri(*location, uri), {0, 1}).status()) ==
          IntegrityKind::kInvalidLocation);
  }
  // Dot segments, hosts and encoded tricks never become a DataLocation.
  for (std::string uri : {FormatFileUri(root) + "/objects/../../etc/passwd",
                          "file://localhost" + FormatFileUri(root).substr(7) + "/objects/00/x",
                          FormatFileUri(root) + "/objects/%2E%2E/%2E%2E/etc/passwd",
                          FormatFileUri(root) + "/objects/00%2Fx"}) {
    CAPTURE(uri);
    CHECK(testing::KindOf(MakeDataLocation(uri, "a/b", 1, location->sha256).status()) ==
          IntegrityKind::kInvalidLocation);
  }
}

TEST_CASE("a symlink inside the stage that leads out is refused") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(100, 9);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  std::string outside = f.dir.Join("outside.bin");
  testing::WriteFile(outside, bytes);
  std::string root = std::filesystem::canonical(f.stage_root()).string();

  // A symlinked object file, and a symlinked shard directory. Every shard
  // exists once the stage has published; the symlinked one replaces an
  // empty one (not the one the upload went to: its UUID's last two digits).
  std::string link_file = root + "/objects/ff/link";
  std::filesystem::create_symlink(outside, link_file);
  std::string linked_shard = root + "/objects/ee";
  if (!std::filesystem::is_empty(linked_shard)) linked_shard = root + "/objects/ed";
  REQUIRE(std::filesystem::remove(linked_shard));
  std::filesystem::create_directory_symlink(f.dir.path(), linked_shard);
  for (std::string uri : {FormatFileUri(link_file), FormatFileUri(linked_shard + "/outside.bin")}) {
    CAPTURE(uri);
    absl::Status status = ReadStatus(*f.stage, WithUri(*location, uri));
    CHECK(testing::KindOf(status) == IntegrityKind::kInvalidLocation);
  }
}

TEST_CASE("where seccomp answers openat2 with EPERM, reads still work and still refuse symlinks that lead out") {
  // Container runtimes' seccomp profiles that predate openat2 answer EPERM.
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(100, 12);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  testing::WriteFile(f.dir.Join("outside.bin"), bytes);
  std::string root = std::filesystem::canonical(f.stage_root()).string();
  std::filesystem::create_directories(root + "/objects/ff");
  std::filesystem::create_symlink(f.dir.Join("outside.bin"), root + "/objects/ff/link");
  DataLocation via_link = WithUri(*location, FormatFileUri(root + "/objects/ff/link"));
  int result = testing::RunWithSyscallRefused(SYS_openat2, EPERM, [&] {
    std::vector<uint8_t> out;
    absl::StatusOr<std::unique_ptr<ObjectReader>> reader = f.stage->OpenVerified(*location);
    if (!reader.ok() || !testing::ReadAll(**reader, &out).ok() || out != bytes) return 1;
    std::vector<uint8_t> buf(10);
    std::vector<RangeRead> ranges = {{&*location, 0, 10, buf.data()}};
    f.stage->ReadRanges(absl::MakeSpan(ranges));
    if (!ranges[0].status.ok() || !std::equal(buf.begin(), buf.end(), bytes.begin())) return 2;
    if (testing::KindOf(ReadStatus(*f.stage, via_link)) != IntegrityKind::kInvalidLocation) return 3;
    return 0;
  });
  CHECK(result == 0);
}

TEST_CASE("an object file the process may not open is a storage error, not an invalid location") {
  // As root no file mode refuses a read; the kernel's EACCES comes from a
  // seccomp filter instead.
  StageFixture f;
  absl::StatusOr<DataLocation> location = f.UploadBytes(testing::RandomBytes(100, 13));
  LAKE_REQUIRE_OK(location);
  int result = testing::RunWithSyscallRefused(SYS_openat2, EACCES, [&] {
    absl::Status status = ReadStatus(*f.stage, *location);
    if (testing::KindOf(status) == IntegrityKind::kInvalidLocation) return 1;
    return absl::IsPermissionDenied(status) ? 0 : 2;
  });
  CHECK(result == 0);
}

TEST_CASE("a tenant uploads beneath its prefix and cannot read another tenant's objects") {
  StageFixture alice("alice");
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 10);
  absl::StatusOr<DataLocation> location = alice.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  std::string root = std::filesystem::canonical(alice.stage_root()).string();
  CHECK(IsStrictlyBeneath(alice.PathOf(*location), root + "/tenants/alice/objects"));

  std::unique_ptr<ManagedStage> bob = alice.OpenAnother("bob");
  absl::Status refused = bob->OpenVerified(*location).status();
  CHECK(testing::KindOf(refused) == IntegrityKind::kInvalidLocation);
  CHECK(testing::KindOf(bob->OpenRange(*location, {0, 1}).status()) ==
        IntegrityKind::kInvalidLocation);

  // A tenant name that only shares a prefix is another tenant.
  std::unique_ptr<ManagedStage> alic = alice.OpenAnother("alic");
  CHECK(testing::KindOf(alic->OpenVerified(*location).status()) ==
        IntegrityKind::kInvalidLocation);

  // The whole stage (no tenant) reads every tenant's objects.
  std::unique_ptr<ManagedStage> whole = alice.OpenAnother("");
  CHECK(ReadVerified(*whole, *location) == bytes);
  // And a tenant's stage refuses objects outside any tenant.
  absl::StatusOr<DataLocation> plain = [&] {
    MemorySource source(bytes);
    return whole->Upload(source, {});
  }();
  LAKE_REQUIRE_OK(plain);
  CHECK(testing::KindOf(alice.stage->OpenVerified(*plain).status()) ==
        IntegrityKind::kInvalidLocation);
}

TEST_CASE("a symlink in one tenant's tree neither reads nor deletes another tenant's objects") {
  StageFixture alice("alice");
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 11);
  absl::StatusOr<DataLocation> location = alice.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  std::unique_ptr<ManagedStage> bob = alice.OpenAnother("bob");
  // Bob links a shard directory of his to Alice's: the link stays inside
  // the stage, but leaves Bob's tenant.
  std::string root = std::filesystem::canonical(alice.stage_root()).string();
  std::string alice_path = alice.PathOf(*location);
  std::string shard = std::filesystem::path(alice_path).parent_path().filename().string();
  std::string name = std::filesystem::path(alice_path).filename().string();
  std::filesystem::create_directory_symlink("../../alice/objects/" + shard,
                                            root + "/tenants/bob/objects/" + shard);
  DataLocation via_link = WithUri(
      *location, FormatFileUri(root + "/tenants/bob/objects/" + shard + "/" + name));

  CHECK(testing::KindOf(ReadStatus(*bob, via_link)) == IntegrityKind::kInvalidLocation);
  CHECK(testing::KindOf(bob->OpenRange(via_link, {0, 10}).status()) ==
        IntegrityKind::kInvalidLocation);
  std::vector<uint8_t> buf(10);
  std::vector<RangeRead> ranges = {{&via_link, 0, 10, buf.data()}};
  bob->ReadRanges(absl::MakeSpan(ranges));
  CHECK(testing::KindOf(ranges[0].status) == IntegrityKind::kInvalidLocation);
  CHECK(testing::KindOf(bob->Delete(via_link)) == IntegrityKind::kInvalidLocation);
  CHECK(testing::ReadFile(alice_path) == bytes);
}

TEST_CASE("deleting through a symlink that leads out of the stage removes nothing") {
  StageFixture f;
  std::string root = std::filesystem::canonical(f.stage_root()).string();
  std::filesystem::create_directory(f.dir.Join("outside"));
  testing::WriteFile(f.dir.Join("outside/victim"), {1, 2, 3});
  std::string linked_shard = root + "/objects/zz";  // no upload makes a shard "zz"
  std::filesystem::create_directory_symlink(f.dir.Join("outside"), linked_shard);
  DataLocation victim = *MakeDataLocation(FormatFileUri(linked_shard + "/victim"), "a/b", 3,
                                          testing::Sha256Hex({1, 2, 3}));
  CHECK(testing::KindOf(f.stage->Delete(victim)) == IntegrityKind::kInvalidLocation);
  CHECK(testing::PathExists(f.dir.Join("outside/victim")));
}

TEST_CASE("tenant names are validated") {
  for (std::string bad : {std::string(), std::string("."), std::string(".."), std::string("a/b"),
                          std::string("a\nb"), std::string(129, 'x'), std::string("\xC3")}) {
    CHECK(absl::IsInvalidArgument(ValidateTenant(bad)));
  }
  LAKE_CHECK_OK(ValidateTenant("team-a.b_c"));
  LAKE_CHECK_OK(ValidateTenant("équipe 7"));
}

// A source that cancels its upload's token after `after` bytes.
class CancellingSource final : public UploadSource {
 public:
  CancellingSource(const std::vector<uint8_t>& bytes, CancelToken* token, size_t after)
      : source_(bytes), token_(token), after_(after) {}
  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
    if (source_.delivered() >= after_) token_->Cancel();
    return source_.Read(dst, len);
  }

 private:
  MemorySource source_;
  CancelToken* token_;
  size_t after_;
};

TEST_CASE("cancellation mid-upload leaves no staging file and no object") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(6 * 1024 * 1024, 11);
  CancelToken token;
  UploadOptions options;
  options.cancel = &token;
  CancellingSource source(bytes, &token, 3 * 1024 * 1024);
  absl::StatusOr<DataLocation> location = f.stage->Upload(source, options);
  CHECK(absl::IsCancelled(location.status()));
  CHECK(f.StagingFiles().empty());
  CHECK(f.ObjectFiles().empty());
  CHECK(BufferBudget::Process().in_use() == 0);  // no source bytes kept
}

TEST_CASE("cancelling a file upload from its progress callback stops it cleanly") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(8 * 1024 * 1024, 12);
  testing::WriteFile(f.dir.Join("big.bin"), bytes);
  CancelToken token;
  UploadOptions options;
  options.cancel = &token;
  options.progress = [&](uint64_t done, uint64_t) {
    if (done >= 2 * kUploadChunkBytes) token.Cancel();
  };
  absl::StatusOr<DataLocation> location = f.UploadFile(f.dir.Join("big.bin"), options);
  CHECK(absl::IsCancelled(location.status()));
  CHECK(f.StagingFiles().empty());
  CHECK(f.ObjectFiles().empty());
}

TEST_CASE("an already-cancelled token uploads nothing") {
  StageFixture f;
  CancelToken token;
  token.Cancel();
  UploadOptions options;
  options.cancel = &token;
  CHECK(absl::IsCancelled(f.UploadBytes(testing::RandomBytes(10, 13), options).status()));
  CHECK(f.StagingFiles().empty());
  CHECK(f.ObjectFiles().empty());
}

TEST_CASE("a writer dropped before commit discards its upload") {
  StageFixture f;
  {
    absl::StatusOr<std::unique_ptr<LocationWriter>> writer = f.stage->NewWriter({});
    LAKE_REQUIRE_OK(writer);
    std::vector<uint8_t> bytes = testing::RandomBytes(3 * 1024 * 1024, 14);
    LAKE_REQUIRE_OK((*writer)->Write(bytes.data(), bytes.size()));
    CHECK(f.StagingFiles().size() == 1);
  }
  CHECK(f.StagingFiles().empty());
  CHECK(f.ObjectFiles().empty());
}

TEST_CASE("progress is reported in order up to the total") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(5 * 1024 * 1024 + 1, 15);
  testing::WriteFile(f.dir.Join("p.bin"), bytes);
  std::vector<uint64_t> seen;
  UploadOptions options;
  options.progress = [&](uint64_t done, uint64_t total) {
    CHECK(total == bytes.size());
    seen.push_back(done);
  };
  LAKE_REQUIRE_OK(f.UploadFile(f.dir.Join("p.bin"), options));
  REQUIRE_FALSE(seen.empty());
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(seen.back() == bytes.size());
}

TEST_CASE("listing shows published objects; delete removes one and is idempotent") {
  StageFixture f;
  absl::StatusOr<DataLocation> a = f.UploadBytes(testing::RandomBytes(10, 16));
  absl::StatusOr<DataLocation> b = f.UploadBytes(testing::RandomBytes(20, 17));
  LAKE_REQUIRE_OK(a);
  LAKE_REQUIRE_OK(b);
  std::map<std::string, uint64_t> listed;
  LAKE_REQUIRE_OK(f.stage->List([&](const ListedObject& o) {
    listed[o.uri] = o.size_bytes;
    return true;
  }));
  CHECK(listed == std::map<std::string, uint64_t>{{a->uri, 10}, {b->uri, 20}});

  LAKE_CHECK_OK(f.stage->Delete(*a));
  LAKE_CHECK_OK(f.stage->Delete(*a));
  CHECK(absl::IsNotFound(ReadStatus(*f.stage, *a)));
  CHECK(ReadVerified(*f.stage, *b).size() == 20);
}

TEST_CASE("staging cleanup removes dead uploads' leftovers but not live uploads") {
  StageFixture f;
  std::string leftover = f.stage_root() + "/.staging/" + NewUuidV7() + ".uploading";
  testing::WriteFile(leftover, testing::RandomBytes(100, 18));
  std::string unrelated = f.stage_root() + "/.staging/notes.txt";
  testing::WriteFile(unrelated, {});

  absl::StatusOr<std::unique_ptr<LocationWriter>> live = f.stage->NewWriter({});
  LAKE_REQUIRE_OK(live);
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 19);
  LAKE_REQUIRE_OK((*live)->Write(bytes.data(), bytes.size()));
  absl::StatusOr<DataLocation> published = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(published);

  absl::StatusOr<uint64_t> removed = f.stage->CleanStaging();
  LAKE_REQUIRE_OK(removed);
  CHECK(*removed == 1);
  CHECK_FALSE(testing::PathExists(leftover));
  CHECK(testing::PathExists(unrelated));
  // The live upload still publishes, and the published object is intact.
  absl::StatusOr<DataLocation> committed = (*live)->Commit();
  LAKE_REQUIRE_OK(committed);
  CHECK(ReadVerified(*f.stage, *committed) == bytes);
  CHECK(ReadVerified(*f.stage, *published) == bytes);
}

TEST_CASE("an existing location is checked against the stored size, remembered or not") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(4000, 11);
  MemorySource source(bytes);
  absl::StatusOr<DataLocation> uploaded = f.stage->Upload(source, {});
  LAKE_REQUIRE_OK(uploaded);
  // Remembered from the upload: the right size passes, a wrong one is typed.
  LAKE_CHECK_OK(f.stage->CheckExisting(*uploaded));
  DataLocation longer = *uploaded;
  longer.size_bytes = 4001;
  std::optional<IntegrityDetail> detail = GetIntegrityDetail(f.stage->CheckExisting(longer));
  REQUIRE(detail.has_value());
  CHECK(detail->kind == IntegrityKind::kSizeShort);
  // A second stage on the same root has remembered nothing: it stats.
  std::unique_ptr<ManagedStage> other = f.OpenAnother("");
  DataLocation shorter = *uploaded;
  shorter.size_bytes = 3999;
  detail = GetIntegrityDetail(other->CheckExisting(shorter));
  REQUIRE(detail.has_value());
  CHECK(detail->kind == IntegrityKind::kSizeLong);
  LAKE_CHECK_OK(other->CheckExisting(*uploaded));
  // A deleted object is forgotten: checking it again finds it gone.
  LAKE_REQUIRE_OK(f.stage->Delete(*uploaded));
  CHECK(absl::IsNotFound(f.stage->CheckExisting(*uploaded)));
}

TEST_CASE("checking existing locations at once returns the first failure, in order") {
  StageFixture f;
  absl::StatusOr<DataLocation> uploaded = f.UploadBytes(testing::RandomBytes(4000, 12));
  LAKE_REQUIRE_OK(uploaded);
  DataLocation longer = *uploaded;
  longer.size_bytes = 4001;
  DataLocation outside = *uploaded;
  outside.uri = "file:///elsewhere/" + NewUuidV7();
  std::vector<const DataLocation*> locations = {&*uploaded, &longer, &outside};
  std::optional<IntegrityDetail> detail =
      GetIntegrityDetail(f.stage->CheckExistingAll(locations).status());
  REQUIRE(detail.has_value());
  CHECK(detail->kind == IntegrityKind::kSizeShort);
  locations = {&*uploaded, &outside, &longer};
  CHECK(testing::KindOf(f.stage->CheckExistingAll(locations).status()) ==
        IntegrityKind::kInvalidLocation);
  locations = {&*uploaded, &*uploaded};
  LAKE_CHECK_OK(f.stage->CheckExistingAll(locations));
}

TEST_CASE("what a check of existing locations passed stays true until something is forgotten") {
  StageFixture f;
  absl::StatusOr<DataLocation> kept = f.UploadBytes(testing::RandomBytes(4000, 13));
  LAKE_REQUIRE_OK(kept);
  absl::StatusOr<DataLocation> deleted = f.UploadBytes(testing::RandomBytes(4000, 14));
  LAKE_REQUIRE_OK(deleted);
  const DataLocation* one = &*kept;
  absl::StatusOr<uint64_t> generation = f.stage->CheckExistingAll(absl::MakeConstSpan(&one, 1));
  LAKE_REQUIRE_OK(generation);
  // The same deletion epoch observed again, another check: nothing forgotten.
  f.stage->ObserveDeletionEpoch(0);
  LAKE_REQUIRE_OK(f.stage->CheckExistingAll(absl::MakeConstSpan(&one, 1)));
  CHECK(f.stage->RememberedSince(*generation));
  // A delete forgets.
  LAKE_REQUIRE_OK(f.stage->Delete(*deleted));
  CHECK_FALSE(f.stage->RememberedSince(*generation));
  generation = f.stage->CheckExistingAll(absl::MakeConstSpan(&one, 1));
  LAKE_REQUIRE_OK(generation);
  CHECK(f.stage->RememberedSince(*generation));
  // So does a collection's new deletion epoch.
  f.stage->ObserveDeletionEpoch(1);
  CHECK_FALSE(f.stage->RememberedSince(*generation));
}

TEST_CASE("memory: an upload holds at most its chunk ring, a reader a constant") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(40 * 1024 * 1024, 20);
  testing::WriteFile(f.dir.Join("m.bin"), bytes);
  BufferBudget& budget = BufferBudget::Process();
  uint64_t before = budget.in_use();
  uint64_t peak = 0;
  UploadOptions options;
  options.progress = [&](uint64_t, uint64_t) { peak = std::max(peak, budget.in_use()); };
  absl::StatusOr<DataLocation> location = f.UploadFile(f.dir.Join("m.bin"), options);
  LAKE_REQUIRE_OK(location);
  CHECK(peak - before <= kUploadMaxChunks * kUploadChunkBytes);
  CHECK(budget.in_use() == before);

  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = f.stage->OpenVerified(*location);
  LAKE_REQUIRE_OK(reader);
  std::vector<uint8_t> buf(1 << 20);
  uint64_t reader_peak = 0;
  for (;;) {
    absl::StatusOr<size_t> n = (*reader)->Read(buf.data(), buf.size());
    LAKE_REQUIRE_OK(n);
    reader_peak = std::max(reader_peak, budget.in_use());
    if (*n == 0) break;
  }
  CHECK((*reader)->verified());
  CHECK(reader_peak - before <= 4 * 512 * 1024);
}

TEST_CASE("a full buffer budget makes an upload wait, and cancellation ends the wait") {
  StageFixture f;
  BufferBudget& budget = BufferBudget::Process();
  uint64_t limit = budget.limit();
  LAKE_REQUIRE_OK(budget.SetLimit(BufferBudget::kMinimumLimitBytes));
  {
    // Hold the whole budget, so the next upload cannot get its chunks.
    absl::StatusOr<BufferLease> hog = budget.Acquire(
        kUploadChunkBytes, BufferBudget::kMinimumLimitBytes / kUploadChunkBytes,
        BufferBudget::kMinimumLimitBytes / kUploadChunkBytes, nullptr);
    LAKE_REQUIRE_OK(hog);
    CancelToken token;
    UploadOptions options;
    options.cancel = &token;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      token.Cancel();
    });
    absl::StatusOr<DataLocation> waited = f.UploadBytes(testing::RandomBytes(10, 21), options);
    canceller.join();
    CHECK(absl::IsCancelled(waited.status()));
    CHECK(f.StagingFiles().empty());
  }
  LAKE_CHECK_OK(f.UploadBytes(testing::RandomBytes(10, 22)));
  LAKE_REQUIRE_OK(budget.SetLimit(limit));
}

// Proves 64-bit offsets end to end. The source is sparse, the stored object
// is not; runs in the release pass only (LAKE_TEST_LARGE=1) and only with
// room on the disk.
TEST_CASE("an object over 4 GiB uploads, verifies and serves ranges past 4 GiB") {
  const char* large = std::getenv("LAKE_TEST_LARGE");
  if (large == nullptr || std::string(large) != "1") {
    MESSAGE("skipped: set LAKE_TEST_LARGE=1 (the release pass of scripts/test does)");
    return;
  }
  StageFixture f;
  const uint64_t size = (uint64_t{4} << 30) + 4099;
  std::filesystem::space_info space = std::filesystem::space(f.dir.path());
  if (space.available < 2 * size + (uint64_t{2} << 30)) {
    MESSAGE("skipped: not enough free disk for a 4 GiB object");
    return;
  }
  std::string path = f.dir.Join("sparse.bin");
  std::vector<uint8_t> tail = testing::RandomBytes(8192, 23);
  {
    std::ofstream out(path, std::ios::binary);
    out.seekp(static_cast<std::streamoff>(size - tail.size()));
    out.write(reinterpret_cast<const char*>(tail.data()), static_cast<std::streamsize>(tail.size()));
  }
  REQUIRE(std::filesystem::file_size(path) == size);
  absl::StatusOr<DataLocation> location = f.UploadFile(path);
  LAKE_REQUIRE_OK(location);
  CHECK(location->size_bytes == size);

  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = f.stage->OpenVerified(*location);
  LAKE_REQUIRE_OK(reader);
  std::vector<uint8_t> buf(4 << 20);
  uint64_t total = 0;
  for (;;) {
    absl::StatusOr<size_t> n = (*reader)->Read(buf.data(), buf.size());
    LAKE_REQUIRE_OK(n);
    if (*n == 0) break;
    total += *n;
  }
  CHECK(total == size);
  CHECK((*reader)->verified());

  // A range straddling 4 GiB (inside the written tail), and the last bytes.
  uint64_t four_gib = uint64_t{1} << 32;
  uint64_t tail_start = size - tail.size();
  REQUIRE(tail_start < four_gib - 10);
  std::vector<uint8_t> across = ReadRange(*f.stage, *location, four_gib - 10, four_gib + 10);
  CHECK(across == std::vector<uint8_t>(tail.begin() + static_cast<long>(four_gib - 10 - tail_start),
                                       tail.begin() + static_cast<long>(four_gib + 10 - tail_start)));
  CHECK(ReadRange(*f.stage, *location, 4096, 4196) == std::vector<uint8_t>(100, 0));
  std::vector<uint8_t> last = ReadRange(*f.stage, *location, size - 100, size);
  CHECK(last == std::vector<uint8_t>(tail.end() - 100, tail.end()));
  RangeRead batch{&*location, size - 4096, size, buf.data()};
  f.stage->ReadRanges(absl::MakeSpan(&batch, 1));
  LAKE_CHECK_OK(batch.status);
  CHECK(std::equal(buf.begin(), buf.begin() + 4096, tail.end() - 4096));
}

}  // namespace
}  // namespace lake
