// Resumable S3 uploads against the suite's RGW (issue 21; engine/s3/
// s3_upload.h): a process killed at each step of an upload, then a resume
// that yields the object a fresh upload would, sending again at most the
// window + 1 parts; and the checkpoint's endings and refusals.
//
// Parts are 1 MiB (failpoint builds let checkpoints record any size while
// kAnyPartSizeResumableFailpoint is set), the window 2, files 8 MiB + a
// little. Every request goes through a fault proxy, which counts the bytes
// sent and stalls the requests a test kills the uploader in. Each test
// deletes its objects, aborts its uploads and removes its bucket.
#include <doctest/doctest.h>

#include <signal.h>

#include <filesystem>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "base/failpoint.h"
#include "engine/file_upload_source.h"
#include "engine/gc/lease_store.h"
#include "engine/stage_descriptor.h"
#include "engine/gc/gc_layout.h"
#include "engine/gc/root_identity.h"
#include "engine/gc/plan_writer.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_reader.h"
#include "engine/gc/orphan_uploads.h"
#include "engine/location_uri.h"
#include "engine/s3/s3_upload.h"
#include "engine/s3/upload_checkpoint_dirs.h"
#include "engine/s3/upload_checkpoint_store.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/child_process.h"
#include "tests/support/fault_http_proxy.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/s3_fixture.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using testing::Fault;
using testing::FaultHttpProxy;
using testing::RequestMatcher;

constexpr size_t kPart = 1 << 20;
constexpr int kWindow = 2;
constexpr size_t kFileBytes = 8 * kPart + 12345;  // 9 parts

RequestMatcher PartPut(int number) {
  return {.method = "PUT", .query_contains = "partNumber=" + std::to_string(number) + "&"};
}
RequestMatcher Complete() { return {.method = "POST", .query_contains = "uploadId="}; }

class ResumeStage {
 public:
  // `checkpoint_dir`: where checkpoints go, when not the root's own.
  explicit ResumeStage(size_t part = kPart, size_t file_bytes = kFileBytes,
                       std::string checkpoint_dir = "")
      : checkpoint_dir_(std::move(checkpoint_dir)),
        part_(part),
        proxy_({testing::TestEndpoint(), testing::TestCredentials()}),
        fixture_(Options(proxy_.url())),
        bytes_(testing::RandomBytes(file_bytes, 21)) {
    testing::WriteFile(source(), bytes_);
    failpoint::ClearAll();
    failpoint::Set(kAnyPartSizeResumableFailpoint, failpoint::Action::kError);
  }
  ~ResumeStage() {
    failpoint::ClearAll();
    Cleanup();
  }

  std::string root() const { return dir_.path(); }
  testing::S3Fixture& fixture() { return fixture_; }
  std::string source() const { return dir_.Join("source.bin"); }
  std::string checkpoints() const {
    return checkpoint_dir_.empty() ? dir_.Join("checkpoints/uploads") : checkpoint_dir_;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  FaultHttpProxy& proxy() { return proxy_; }
  UploadCheckpointStore store() { return UploadCheckpointStore(fs_, checkpoints()); }
  std::vector<std::string>& notices() { return notices_; }

  testing::S3FixtureOptions Options(const std::string& endpoint, int page = 1000) const {
    testing::S3FixtureOptions options;
    options.tuning = S3UploadTuning{part_, kWindow};
    options.endpoint = endpoint;
    options.checkpoint_dir = checkpoints();
    options.list_parts_page = page;
    return options;
  }
  // A stage of its own (a forked child must not share the parent's).
  std::unique_ptr<ManagedStage> Open(int page = 1000) {
    return fixture_.OpenAnother(Options(proxy_.url(), page));
  }
  S3ObjectStore& store_of(ManagedStage& stage) { return static_cast<S3ObjectStore&>(stage.store()); }

  UploadOptions Noticing() {
    UploadOptions options;
    options.notice = [this](std::string_view line) { notices_.emplace_back(line); };
    return options;
  }
  absl::StatusOr<DataLocation> Put(ManagedStage& stage) {
    auto source = FileUploadSource::Open(fs_, this->source());
    if (!source.ok()) return source.status();
    return stage.Upload(**source, Noticing());
  }
  absl::StatusOr<DataLocation> Put() { return Put(fixture_.stage()); }
  absl::StatusOr<DataLocation> Resume(const std::string& id, ManagedStage* stage = nullptr) {
    ManagedStage& s = stage != nullptr ? *stage : fixture_.stage();
    absl::StatusOr<StoredObject> stored = store_of(s).ResumeUpload(id, Noticing());
    if (!stored.ok()) return stored.status();
    return LocationOfStored(*stored, kDefaultContentType);
  }

  // Runs a put in a forked child that `arm` sets up to die (SIGKILL) at
  // some step; returns once it is dead. With `kill_when`, the parent kills
  // it once that returns true.
  void PutInChildUntilKilled(const std::function<void()>& arm,
                             const std::function<bool()>& kill_when = nullptr) {
    testing::SteppedChild child([&](testing::ParentLink&) {
      arm();
      std::unique_ptr<ManagedStage> stage = Open();
      (void)Put(*stage);
      return 7;  // it was meant to die
    });
    if (kill_when) {
      absl::Time deadline = absl::Now() + absl::Seconds(60);
      while (!kill_when() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(5));
      REQUIRE(kill_when());
      int status = child.Kill();
      CHECK(WIFSIGNALED(status));
    } else {
      int status = child.Wait();
      REQUIRE(WIFSIGNALED(status));
      CHECK(WTERMSIG(status) == SIGKILL);
    }
    WaitForProxyQuiet();
  }
  // The proxy logs a request once it has read it whole: requests the dead
  // child had under way may still arrive. Waits until none has for 300 ms.
  void WaitForProxyQuiet() {
    size_t seen = proxy_.Requests().size();
    for (int quiet_ms = 0; quiet_ms < 300; quiet_ms += 50) {
      absl::SleepFor(absl::Milliseconds(50));
      size_t now = proxy_.Requests().size();
      if (now != seen) quiet_ms = -50;
      seen = now;
    }
  }

  // The one checkpoint in the directory.
  UploadCheckpoint OnlyCheckpoint() {
    auto listed = store().List(false);
    REQUIRE(listed.ok());
    REQUIRE(listed->size() == 1);
    LAKE_REQUIRE_OK((*listed)[0].checkpoint);
    return *(*listed)[0].checkpoint;
  }
  size_t CheckpointCount() {
    auto listed = store().List(false);
    REQUIRE(listed.ok());
    return listed->size();
  }
  uint64_t PartBytesSent() {
    uint64_t sent = 0;
    for (const testing::ProxiedRequest& r : proxy_.Requests()) {
      if (r.method == "PUT" && absl::StrContains(r.query, "partNumber=")) sent += r.body_bytes;
    }
    return sent;
  }
  int Requests(std::string_view method, std::string_view query) {
    int n = 0;
    for (const testing::ProxiedRequest& r : proxy_.Requests()) {
      n += r.method == method && absl::StrContains(r.query, std::string(query));
    }
    return n;
  }

  // The promise of a DataLocation: the stored object holds exactly the
  // source's bytes and verifies.
  void ExpectStoredSource(const DataLocation& location) {
    CHECK(location.size_bytes == bytes_.size());
    CHECK(location.sha256 == testing::Sha256Hex(bytes_));
    auto reader = fixture_.stage().OpenVerified(location);
    LAKE_REQUIRE_OK(reader);
    std::vector<uint8_t> out;
    LAKE_REQUIRE_OK(testing::ReadAll(**reader, &out));
    CHECK((*reader)->verified());
    CHECK(out == bytes_);
  }
  // Objects in the stage.
  size_t Listed() {
    size_t n = 0;
    LAKE_CHECK_OK(fixture_.stage().List([&n](const ListedObject&) {
      ++n;
      return true;
    }));
    return n;
  }
  // What a kill and a resume cost, counted over both attempts: parts sent
  // twice come to the window + 1 parts at most.
  void ExpectResentAtMostWindow() {
    CHECK(PartBytesSent() >= bytes_.size());
    CHECK(PartBytesSent() - bytes_.size() <= (kWindow + 1) * part_);
  }

 private:
  void Cleanup() {
    s3http::S3Client& client = fixture_.client();
    if (auto listed = store().List(false); listed.ok()) {
      for (const ListedUploadCheckpoint& entry : *listed) {
        if (entry.checkpoint.ok()) {
          (void)client.AbortMultipartUpload(fixture_.bucket(), entry.checkpoint->key,
                                            entry.checkpoint->upload_id, absl::Seconds(5));
        }
      }
    }
    // Every key of the bucket: objects, and the owner marker a collection
    // writes (tests here are small: one page).
    if (auto listed = client.ListObjectsV2(fixture_.bucket(), "", ""); listed.ok()) {
      for (const s3http::ListedObject& o : listed->contents) {
        (void)client.DeleteObject(fixture_.bucket(), o.key);
      }
    }
    // Uploads a test began by hand (orphans) go too.
    if (auto uploads = client.ListMultipartUploads(fixture_.bucket(), "", "", ""); uploads.ok()) {
      for (const s3http::ListedMultipartUpload& u : uploads->uploads) {
        (void)client.AbortMultipartUpload(fixture_.bucket(), u.key, u.upload_id, absl::Seconds(5));
      }
    }
    absl::Status deleted = client.DeleteBucket(fixture_.bucket());
    CHECK_MESSAGE(deleted.ok(), deleted.ToString());
  }

  std::string checkpoint_dir_;
  size_t part_;
  testing::TempDir dir_;
  io::PosixFileSystem fs_;
  FaultHttpProxy proxy_;
  testing::S3Fixture fixture_;
  std::vector<uint8_t> bytes_;
  std::vector<std::string> notices_;
};

bool AnyNoticeHas(const std::vector<std::string>& notices, std::string_view text) {
  for (const std::string& line : notices) {
    if (absl::StrContains(line, std::string(text))) return true;
  }
  return false;
}

void KillAtHit(std::string_view failpoint_name, int hit) {
  auto count = std::make_shared<int>(0);
  failpoint::Set(failpoint_name, failpoint::Action::kCallback, [count, hit] {
    if (++*count == hit) ::raise(SIGKILL);
    return absl::OkStatus();
  });
}

// Kills the process (SIGKILL) at the first checkpoint publication that
// lists at least `parts` parts. One publication may cover several parts,
// so how many publications that takes depends on when the parts finish.
void KillOncePublished(ResumeStage& s, size_t parts) {
  failpoint::Set(kUploadCheckpointFailpoints[0], failpoint::Action::kCallback, [&s, parts] {
    absl::StatusOr<std::vector<ListedUploadCheckpoint>> listed = s.store().List(false);
    if (listed.ok()) {
      for (const ListedUploadCheckpoint& c : *listed) {
        if (c.checkpoint.ok() && c.checkpoint->parts.size() >= parts) ::raise(SIGKILL);
      }
    }
    return absl::OkStatus();
  });
}

// Resumes the one checkpoint by putting the file again and checks the
// object and what was sent again.
void ExpectPutResumes(ResumeStage& s) {
  UploadCheckpoint before = s.OnlyCheckpoint();
  absl::StatusOr<DataLocation> location = s.Put();
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
  s.ExpectResentAtMostWindow();
  CHECK(location->uri.ends_with(before.key));
  CHECK(AnyNoticeHas(s.notices(), "resuming upload " + before.id));
  CHECK(s.CheckpointCount() == 0);
  CHECK(s.Listed() == 1);
}

TEST_CASE("S3 resume: killed between a part's completion and its checkpoint, a put resumes") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kS3UploadFailpoints[0], 4); });
  CHECK(s.OnlyCheckpoint().parts.size() <= 3);
  ExpectPutResumes(s);
}

TEST_CASE("S3 resume: killed right after k parts were checkpointed, a put resumes") {
  ResumeStage s;
  // Publication 1 is the empty checkpoint; each later one records one part
  // or more (parts complete out of order).
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 4); });
  CHECK(s.OnlyCheckpoint().parts.size() >= 3);
  ExpectPutResumes(s);
}

TEST_CASE("S3 resume: killed in the middle of a part, a put resumes") {
  ResumeStage s;
  int stalled = s.proxy().AddRule(PartPut(5), Fault::Stall(absl::Seconds(30), 0), 1);
  s.PutInChildUntilKilled([] {}, [&] { return s.proxy().matched(stalled) == 1; });
  s.proxy().ClearRules();
  CHECK(s.OnlyCheckpoint().parts.size() >= 2);
  ExpectPutResumes(s);
}

TEST_CASE("S3 resume: killed while Complete was on its way, a put settles it by HEAD") {
  ResumeStage s;
  int stalled = s.proxy().AddRule(Complete(), Fault::Stall(absl::Seconds(30), 0), 1);
  s.PutInChildUntilKilled([] {}, [&] { return s.proxy().matched(stalled) == 1; });
  s.proxy().ClearRules();
  // The server completed the upload; only its answer was withheld.
  CHECK(s.OnlyCheckpoint().parts.size() == 9);
  s.proxy().ClearLog();
  absl::StatusOr<DataLocation> location = s.Put();
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
  CHECK(s.PartBytesSent() == 0);
  CHECK(s.CheckpointCount() == 0);
  CHECK(s.Listed() == 1);
}

TEST_CASE("S3 resume: killed before Complete, lake uploads resume completes it") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kS3UploadFailpoints[1], 1); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  s.proxy().ClearLog();
  absl::StatusOr<DataLocation> location = s.Resume(c.id);
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
  CHECK(s.PartBytesSent() == 0);
  CHECK(s.CheckpointCount() == 0);
}

TEST_CASE("S3 resume: a lost Complete answer is settled and the checkpoint removed") {
  ResumeStage s;
  int lost = s.proxy().AddRule(Complete(), Fault::LoseResponse(), 1);
  absl::StatusOr<DataLocation> location = s.Put();
  LAKE_REQUIRE_OK(location);
  CHECK(s.proxy().fired(lost) == 1);
  s.ExpectStoredSource(*location);
  CHECK(s.CheckpointCount() == 0);
}

TEST_CASE("S3 resume: ListParts is read over several pages") {
  ResumeStage s;
  // With a window of 2, part 9 waits for a publication of 7 parts.
  s.PutInChildUntilKilled([&s] { KillOncePublished(s, 6); });
  CHECK(s.OnlyCheckpoint().parts.size() >= 6);
  std::unique_ptr<ManagedStage> paging = s.Open(/*page=*/2);
  absl::StatusOr<DataLocation> location = s.Put(*paging);
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
  CHECK(s.Requests("GET", "max-parts=2") >= 3);
  s.ExpectResentAtMostWindow();
}

TEST_CASE("S3 resume: a checkpoint another process holds is left alone; the put uploads on its own") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  UploadCheckpointStore store = s.store();
  auto held = store.TryLock(c.id);  // the other process
  LAKE_REQUIRE_OK(held);
  REQUIRE(held->has_value());
  absl::StatusOr<DataLocation> location = s.Put();
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
  CHECK_FALSE(location->uri.ends_with(c.key));
  CHECK(AnyNoticeHas(s.notices(), "in progress in another process"));
  CHECK(absl::IsAborted(s.Resume(c.id).status()));
  held->reset();
  // The held one is still there, and resumable.
  CHECK(s.CheckpointCount() == 1);
  LAKE_CHECK_OK(s.Resume(c.id));
  CHECK(s.CheckpointCount() == 0);
}

TEST_CASE("S3 resume: two processes resuming at once make one object each, both verified") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  std::unique_ptr<ManagedStage> other = s.Open();
  absl::StatusOr<DataLocation> first, second;
  std::thread t([&] { second = s.Put(*other); });
  first = s.Put();
  t.join();
  LAKE_REQUIRE_OK(first);
  LAKE_REQUIRE_OK(second);
  s.ExpectStoredSource(*first);
  s.ExpectStoredSource(*second);
  CHECK(first->uri != second->uri);
  CHECK(s.CheckpointCount() == 0);
}

TEST_CASE("S3 resume: a source modified since its checkpoint starts a fresh put; resume refuses it") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  std::vector<uint8_t> changed = s.bytes();
  changed[10] ^= 1;
  std::filesystem::remove(s.source());
  testing::WriteFile(s.source(), changed);
  absl::Status refused = s.Resume(c.id).status();
  CHECK(absl::IsAborted(refused));
  CHECK(absl::StrContains(refused.message(), "changed"));
  absl::StatusOr<DataLocation> location = s.Put();
  LAKE_REQUIRE_OK(location);
  CHECK(location->sha256 == testing::Sha256Hex(changed));
  CHECK(AnyNoticeHas(s.notices(), "is stale"));
  CHECK(s.CheckpointCount() == 1);  // the stale one, until aborted
  LAKE_CHECK_OK(s.store_of(*s.Open()).AbortUpload(c.id));
  CHECK(s.CheckpointCount() == 0);
}

TEST_CASE("S3 resume: a tampered checkpoint is refused, and a put goes on afresh") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  for (const std::string& name : testing::FilesUnder(s.checkpoints())) {
    if (!name.ends_with(".ckpt")) continue;
    std::string path = s.checkpoints() + "/" + name;
    std::vector<uint8_t> bytes = testing::ReadFile(path);
    bytes[bytes.size() / 2] ^= 0x20;
    std::filesystem::remove(path);
    testing::WriteFile(path, bytes);
  }
  CHECK(absl::IsDataLoss(s.Resume(c.id).status()));
  absl::StatusOr<DataLocation> location = s.Put();
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
  CHECK(AnyNoticeHas(s.notices(), "cannot be resumed"));
  // Aborting forgets a damaged checkpoint; its upload is aborted by hand.
  std::unique_ptr<ManagedStage> stage = s.Open();
  LAKE_CHECK_OK(s.store_of(*stage).AbortUpload(c.id));
  CHECK(s.CheckpointCount() == 0);
  LAKE_CHECK_OK(s.store_of(*stage).client().AbortMultipartUpload(c.bucket, c.key, c.upload_id,
                                                                 absl::Seconds(5)));
}

TEST_CASE("S3 resume: an upload aborted behind lake's back is a clear error; abort then put starts afresh") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  std::unique_ptr<ManagedStage> stage = s.Open();
  LAKE_REQUIRE_OK(s.store_of(*stage).client().AbortMultipartUpload(c.bucket, c.key, c.upload_id,
                                                                    absl::Seconds(5)));
  absl::Status gone = s.Resume(c.id).status();
  CHECK(absl::IsNotFound(gone));
  CHECK(absl::StrContains(gone.message(), "lake uploads abort " + c.id));
  CHECK(absl::IsNotFound(s.Put().status()));
  LAKE_REQUIRE_OK(s.store_of(*stage).AbortUpload(c.id));
  absl::StatusOr<DataLocation> location = s.Put();
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
}

TEST_CASE("S3 resume: cancelling a checkpointed upload aborts it and removes its checkpoint") {
  ResumeStage s;
  CancelToken cancel;
  failpoint::Set(kUploadCheckpointFailpoints[0], failpoint::Action::kCallback, [&cancel] {
    cancel.Cancel();
    return absl::OkStatus();
  });
  UploadOptions options = s.Noticing();
  options.cancel = &cancel;
  auto source = FileUploadSource::Open(*io::DefaultFileSystem().value(), s.source());
  LAKE_REQUIRE_OK(source);
  std::unique_ptr<ManagedStage> stage = s.Open();
  CHECK(absl::IsCancelled(stage->Upload(**source, options).status()));
  CHECK(s.CheckpointCount() == 0);
  CHECK(s.Requests("DELETE", "uploadId=") == 1);
}

TEST_CASE("S3 resume: without the test switch, parts other than 64 MiB write no checkpoint and say so") {
  ResumeStage s;
  failpoint::ClearAll();
  absl::StatusOr<DataLocation> location = s.Put();
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
  CHECK(AnyNoticeHas(s.notices(), "no upload checkpoint is written"));
  CHECK(testing::FilesUnder(s.checkpoints()).empty());
}

// The 10,001st-part ending, reached with kS3FailpointMaxParts (4) parts of
// 1 MiB: the source needs a fifth.
TEST_CASE("S3 resume: a source one part over the maximum fails OutOfRange, aborts and leaves nothing") {
  ResumeStage s(kPart, kS3FailpointMaxParts * kPart + 1);
  failpoint::Set(kSmallMaxPartsFailpoint, failpoint::Action::kError);
  absl::Status failed = s.Put().status();
  CHECK(absl::IsOutOfRange(failed));
  CHECK(absl::StrContains(failed.message(), "does not fit in 4 parts"));
  CHECK(absl::StrContains(failed.message(), "no part 5 is sent"));
  // No fifth part went out, the upload was aborted, and nothing is left:
  // no object, no incomplete upload, no checkpoint file (nor its lock).
  CHECK(s.Requests("PUT", "partNumber=5&") == 0);
  CHECK(s.Requests("DELETE", "uploadId=") == 1);
  CHECK(s.Listed() == 0);
  auto uploads = s.fixture().client().ListMultipartUploads(s.fixture().bucket(), "", "", "");
  LAKE_REQUIRE_OK(uploads);
  CHECK(uploads->uploads.empty());
  CHECK(testing::FilesUnder(s.checkpoints()).empty());
  // As documented (s3_upload.h): there is nothing to resume, and a put
  // starts afresh — no "resuming" — and ends the same way.
  CHECK(s.Requests("POST", "uploads") == 1);
  absl::Status again = s.Put().status();
  CHECK(absl::IsOutOfRange(again));
  CHECK_FALSE(AnyNoticeHas(s.notices(), "resuming upload"));
  CHECK(s.Requests("POST", "uploads") == 2);
  CHECK(testing::FilesUnder(s.checkpoints()).empty());
  // One byte less fits: the same switch, four parts, a verified object.
  ResumeStage fits(kPart, kS3FailpointMaxParts * kPart);
  failpoint::Set(kSmallMaxPartsFailpoint, failpoint::Action::kError);
  absl::StatusOr<DataLocation> location = fits.Put();
  LAKE_REQUIRE_OK(location);
  fits.ExpectStoredSource(*location);
  CHECK(fits.CheckpointCount() == 0);
}

TEST_CASE("S3 resume: a V1 checkpoint of 5 MiB parts resumes at that size") {
  ResumeStage s(5 << 20, (12 << 20) + 777);
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 2); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  CHECK(c.part_bytes == 5 << 20);
  REQUIRE(c.parts.size() >= 1);
  failpoint::ClearAll();  // 5 MiB needs no test switch to resume
  s.proxy().ClearLog();
  absl::StatusOr<DataLocation> location = s.Resume(c.id);
  LAKE_REQUIRE_OK(location);
  s.ExpectStoredSource(*location);
  CHECK(s.PartBytesSent() == (12 << 20) + 777 - c.parts.size() * (5 << 20));
  CHECK(s.CheckpointCount() == 0);
}

// Nothing billed forever (lake gc apply's expiry; the collector's view).

std::vector<std::string> ProtectedUris(ResumeStage& s, absl::Time now) {
  RegisterUploadCheckpointKeys();
  io::PosixFileSystem fs;
  std::vector<std::string> uris;
  LAKE_CHECK_OK(gc::ForEachProtectedUri(fs, s.root(), now, absl::Hours(24 * 7),
                                        [&uris](std::string_view uri) {
                                          uris.emplace_back(uri);
                                          return absl::OkStatus();
                                        }));
  return uris;
}

TEST_CASE("S3 resume: a checkpoint protects its key until stale; expiry aborts a stale one not held") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  std::string uri = FormatS3Uri(c.bucket, c.key);
  absl::Time now = absl::Now();
  absl::Time later = now + absl::Hours(24 * 8);
  const absl::Duration horizon = absl::Hours(24 * 7);
  std::unique_ptr<ManagedStage> stage = s.Open();
  S3ObjectStore& store = s.store_of(*stage);

  CHECK(ProtectedUris(s, now) == std::vector<std::string>{uri});
  CHECK(ProtectedUris(s, later).empty());
  CHECK(*store.ExpireStaleUploads(now, horizon) == 0);
  {
    auto held = s.store().TryLock(c.id);  // an upload resuming it now
    LAKE_REQUIRE_OK(held);
    REQUIRE(held->has_value());
    CHECK(*store.ExpireStaleUploads(later, horizon) == 0);
  }
  CHECK(s.CheckpointCount() == 1);
  CHECK(*store.ExpireStaleUploads(later, horizon) == 1);
  CHECK(s.CheckpointCount() == 0);
  CHECK(absl::IsNotFound(store.client().ListParts(c.bucket, c.key, c.upload_id, 0).status()));
}

// Orphan multipart uploads: lake gc plan lists them, apply aborts them
// (engine/gc/orphan_uploads.h). Ages are real: an orphan is begun, the test
// waits 2 s, and the plan's cutoff is 1 s.

constexpr absl::Duration kOrphanCutoff = absl::Seconds(1);
constexpr absl::Duration kOrphanAge = absl::Seconds(2);

struct OrphanGc {
  // Its stage reaches RGW directly: the proxy counts only the uploader's
  // requests.
  explicit OrphanGc(ResumeStage& s)
      : s(s), stage(s.fixture().OpenAnother(s.Options(testing::TestEndpoint()))) {
    RegisterUploadCheckpointKeys();
    absl::StatusOr<std::string> id = gc::EnsureRootIdentity(fs, s.root(), stage->store());
    REQUIRE(id.ok());
    root_id = *id;
  }
  gc::GcRoot View() {
    StageDescriptor descriptor;
    descriptor.kind = StageDescriptor::Kind::kS3;
    descriptor.bucket = s.fixture().bucket();
    descriptor.prefix = "lake-data";
    return gc::GcRoot{view_fs != nullptr ? *view_fs : fs, s.root(), *stage, nullptr,
                      StageDescriptorToJson(descriptor), root_id};
  }
  S3ObjectStore& store() { return s.store_of(*stage); }
  // A multipart upload begun by hand under the stage, with one part of
  // `bytes` bytes: what a process that died mid-upload leaves.
  IncompleteUpload Begin(size_t bytes) {
    std::string key = store().layout().NewObjectKey();
    absl::StatusOr<std::string> id =
        store().client().CreateMultipartUpload(s.fixture().bucket(), key, "application/octet-stream");
    REQUIRE(id.ok());
    std::vector<uint8_t> part = testing::RandomBytes(bytes, 5);
    std::string sha256 = s3http::PayloadSha256Hex(
        std::string_view(reinterpret_cast<const char*>(part.data()), part.size()));
    REQUIRE(store().client().UploadPart(s.fixture().bucket(), key, *id, 1, part, sha256).ok());
    return IncompleteUpload{store().layout().UriOfKey(key), *id, 0};
  }
  std::set<std::string> UploadIds() {
    std::set<std::string> ids;
    LAKE_CHECK_OK(store().ListIncompleteUploads([&](const IncompleteUpload& u) {
      ids.insert(u.upload_id);
      return absl::OkStatus();
    }));
    return ids;
  }
  gc::PlanSummary Plan() {
    gc::PlanOptions options;
    options.cutoff = kOrphanCutoff;
    options.allow_short_cutoff = true;
    options.memory_budget = uint64_t{16} << 20;
    absl::StatusOr<gc::PlanSummary> plan = gc::WritePlan(View(), options);
    REQUIRE_MESSAGE(plan.ok(), plan.status().ToString());
    return *plan;
  }
  absl::StatusOr<gc::ApplyProgress> Apply(const std::string& plan_id, uint64_t* aborted) {
    gc::ApplyOptions options;
    options.uploads_aborted = aborted;
    return gc::ApplyPlan(View(), plan_id, options);
  }

  ResumeStage& s;
  io::PosixFileSystem fs;
  io::FileSystem* view_fs = nullptr;  // the root's files through another (a crash test's)
  std::unique_ptr<ManagedStage> stage;
  std::string root_id;
};

TEST_CASE("gc on S3: an orphan upload older than the cutoff is planned and aborted; a younger one is kept") {
  ResumeStage s;
  OrphanGc gc(s);
  IncompleteUpload old = gc.Begin(1234);
  absl::SleepFor(kOrphanAge);
  IncompleteUpload young = gc.Begin(10);
  gc::PlanSummary plan = gc.Plan();
  CHECK(plan.listed_uploads == 2);
  CHECK(plan.orphan_uploads == 1);
  CHECK(plan.orphan_upload_bytes == 1234);
  absl::StatusOr<gc::PlannedUploads> planned =
      gc::ReadPlannedUploads(gc.View(), plan.manifest.plan_id);
  LAKE_REQUIRE_OK(planned);
  REQUIRE(planned->uploads.size() == 1);
  CHECK(planned->uploads[0].uri == old.uri);
  CHECK(planned->uploads[0].upload_id == old.upload_id);
  CHECK(planned->uploads[0].bytes == 1234);
  // Planning aborted nothing.
  CHECK(gc.UploadIds() == std::set<std::string>{old.upload_id, young.upload_id});
  uint64_t aborted = 0;
  absl::StatusOr<gc::ApplyProgress> done = gc.Apply(plan.manifest.plan_id, &aborted);
  LAKE_REQUIRE_OK(done);
  CHECK(done->state == gc::ApplyProgress::State::kDone);
  CHECK(aborted == 1);
  CHECK(gc.UploadIds() == std::set<std::string>{young.upload_id});
}

TEST_CASE("gc on S3: a checkpointed upload survives gc apply, then resumes and completes") {
  ResumeStage s;
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  OrphanGc gc(s);
  IncompleteUpload orphan = gc.Begin(100);
  absl::SleepFor(kOrphanAge);
  gc::PlanSummary plan = gc.Plan();
  CHECK(plan.listed_uploads == 2);
  CHECK(plan.orphan_uploads == 1);  // the one without a checkpoint
  uint64_t aborted = 0;
  LAKE_REQUIRE_OK(gc.Apply(plan.manifest.plan_id, &aborted));
  CHECK(aborted == 1);
  CHECK(gc.UploadIds() == std::set<std::string>{c.upload_id});
  CHECK(s.CheckpointCount() == 1);
  ExpectPutResumes(s);
  CHECK(gc.UploadIds().empty());
}

TEST_CASE("an S3 stage resumes uploads, so their leases are synced") {
  ResumeStage s;
  CHECK(s.fixture().store().ResumesUploads());
}

TEST_CASE("gc on S3: an upload a live lease protects is never planned") {
  ResumeStage s;
  OrphanGc gc(s);
  IncompleteUpload upload = gc.Begin(100);
  absl::SleepFor(kOrphanAge);
  std::shared_ptr<gc::LeaseStore> leases = gc::LeaseStore::Open(gc.fs, s.root());
  absl::StatusOr<std::unique_ptr<KeyLease>> lease =
      leases->Lease(upload.uri, LeaseDurability::kSynced);
  LAKE_REQUIRE_OK(lease);
  CHECK(gc.Plan().orphan_uploads == 0);
  lease->reset();  // the upload's process let go of it
  CHECK(gc.Plan().orphan_uploads == 1);
}

TEST_CASE("gc on S3: apply keeps a planned upload that a lease protects since the plan") {
  ResumeStage s;
  OrphanGc gc(s);
  IncompleteUpload upload = gc.Begin(100);
  absl::SleepFor(kOrphanAge);
  gc::PlanSummary plan = gc.Plan();
  REQUIRE(plan.orphan_uploads == 1);
  // A resume took it up between the plan and the apply.
  std::shared_ptr<gc::LeaseStore> leases = gc::LeaseStore::Open(gc.fs, s.root());
  absl::StatusOr<std::unique_ptr<KeyLease>> lease =
      leases->Lease(upload.uri, LeaseDurability::kSynced);
  LAKE_REQUIRE_OK(lease);
  uint64_t aborted = 0;
  LAKE_REQUIRE_OK(gc.Apply(plan.manifest.plan_id, &aborted));
  CHECK(aborted == 0);
  CHECK(gc.UploadIds() == std::set<std::string>{upload.upload_id});
}

TEST_CASE("gc on S3: an apply that failed after aborting the uploads resumes and finishes") {
  ResumeStage s;
  OrphanGc gc(s);
  IncompleteUpload upload = gc.Begin(100);
  // An unreferenced object too, so that the plan has a page to fail in.
  absl::StatusOr<DataLocation> object = s.fixture().UploadBytes(testing::RandomBytes(64, 9));
  LAKE_REQUIRE_OK(object);
  absl::SleepFor(kOrphanAge);
  gc::PlanSummary plan = gc.Plan();
  REQUIRE(plan.orphan_uploads == 1);
  REQUIRE(plan.manifest.objects == 1);
  failpoint::Set(gc::kApplyFailpoints[1], failpoint::Action::kError);
  uint64_t aborted = 0;
  CHECK_FALSE(gc.Apply(plan.manifest.plan_id, &aborted).ok());
  CHECK(aborted == 1);
  CHECK(gc.UploadIds().empty());
  CHECK(s.Listed() == 1);
  failpoint::Set(gc::kApplyFailpoints[1], failpoint::Action::kOff);
  absl::StatusOr<gc::ApplyProgress> done = gc.Apply(plan.manifest.plan_id, &aborted);
  LAKE_REQUIRE_OK(done);
  CHECK(done->state == gc::ApplyProgress::State::kDone);
  CHECK(s.Listed() == 0);
}

TEST_CASE("gc on S3: a power loss once a plan is published keeps its uploads record") {
  REQUIRE(failpoint::Enabled());
  for (bool torn : {false, true}) {
    CAPTURE(torn);
    ResumeStage s;
    OrphanGc gc(s);
    IncompleteUpload upload = gc.Begin(100);
    absl::SleepFor(kOrphanAge);
    testing::TempDir backups;
    {
      testing::FaultInjectionFileSystem fs(gc.fs, backups.path());
      gc.view_fs = &fs;
      failpoint::Set(gc::kPlanFailpoints[5], failpoint::Action::kCallback, [&] {
        if (torn) {
          fs.CrashTorn(7);
        } else {
          fs.Crash();
        }
        return absl::UnavailableError("power lost");
      });
      gc::PlanOptions options;
      options.cutoff = kOrphanCutoff;
      options.allow_short_cutoff = true;
      CHECK_FALSE(gc::WritePlan(gc.View(), options).ok());
      CHECK(fs.crashed());
      gc.view_fs = nullptr;
    }
    failpoint::Set(gc::kPlanFailpoints[5], failpoint::Action::kOff);
    absl::StatusOr<std::vector<std::string>> plans = gc::ListPlans(gc.fs, s.root());
    LAKE_REQUIRE_OK(plans);
    REQUIRE(plans->size() == 1);
    absl::StatusOr<gc::PlannedUploads> planned = gc::ReadPlannedUploads(gc.View(), plans->front());
    LAKE_REQUIRE_OK(planned);
    REQUIRE(planned->uploads.size() == 1);
    CHECK(planned->uploads[0].upload_id == upload.upload_id);
    uint64_t aborted = 0;
    LAKE_REQUIRE_OK(gc.Apply(plans->front(), &aborted));
    CHECK(aborted == 1);
    CHECK(gc.UploadIds().empty());
  }
}

TEST_CASE("gc on S3: a damaged uploads record makes apply refuse the plan, deleting nothing") {
  ResumeStage s;
  OrphanGc gc(s);
  IncompleteUpload upload = gc.Begin(100);
  absl::SleepFor(kOrphanAge);
  gc::PlanSummary plan = gc.Plan();
  REQUIRE(plan.orphan_uploads == 1);
  std::string path = gc::PlanDirOf(s.root(), plan.manifest.plan_id) + "/uploads.json";
  std::vector<uint8_t> bytes = testing::ReadFile(path);
  bytes[bytes.size() / 2] ^= 1;
  std::filesystem::remove(path);
  testing::WriteFile(path, bytes);
  uint64_t aborted = 0;
  CHECK(absl::IsDataLoss(gc.Apply(plan.manifest.plan_id, &aborted).status()));
  CHECK(gc.UploadIds() == std::set<std::string>{upload.upload_id});
}

TEST_CASE("S3 uploads: ListMultipartUploads pages with both markers and keeps to the prefix") {
  ResumeStage s;
  OrphanGc gc(s);
  std::set<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.insert(gc.Begin(10).upload_id);
  // Two uploads of one key, across a page boundary, and one outside the prefix.
  std::string key = gc.store().layout().NewObjectKey();
  s3http::S3Client& client = gc.store().client();
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::string> id = client.CreateMultipartUpload(s.fixture().bucket(), key, "x/y");
    LAKE_REQUIRE_OK(id);
    ids.insert(*id);
  }
  LAKE_REQUIRE_OK(client.CreateMultipartUpload(s.fixture().bucket(), "elsewhere/k", "x/y"));
  std::set<std::string> paged;
  std::string key_marker, upload_id_marker;
  int pages = 0;
  for (;;) {
    absl::StatusOr<s3http::ListMultipartUploadsResult> page = client.ListMultipartUploads(
        s.fixture().bucket(), "lake-data/", key_marker, upload_id_marker, /*max_uploads=*/2);
    LAKE_REQUIRE_OK(page);
    ++pages;
    CHECK(page->uploads.size() <= 2);
    for (const auto& u : page->uploads) {
      CHECK(u.key.starts_with("lake-data/"));
      CHECK(paged.insert(u.upload_id).second);
    }
    if (!page->is_truncated) break;
    key_marker = page->next_key_marker;
    upload_id_marker = page->next_upload_id_marker;
  }
  CHECK(pages >= 4);
  CHECK(paged == ids);
  CHECK(gc.UploadIds() == ids);
}

// Checkpoints kept outside the root (engine/s3/upload_checkpoint_dirs.h).

TEST_CASE("gc on S3: a checkpoint in another directory protects its upload once recorded for the root") {
  testing::TempDir elsewhere;
  ResumeStage s(kPart, kFileBytes, elsewhere.Join("ckpt"));
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  OrphanGc gc(s);
  absl::SleepFor(kOrphanAge);
  // Unrecorded, the directory is unknown to the collector: its upload,
  // dead and unleased, looks like an orphan. That is why a db opened with
  // its own directory records it (lake_db_open).
  CHECK(gc.Plan().orphan_uploads == 1);
  absl::StatusOr<std::string> recorded =
      RecordUploadCheckpointDir(gc.fs, s.root(), elsewhere.Join("ckpt"));
  LAKE_REQUIRE_OK(recorded);
  absl::StatusOr<std::vector<std::string>> dirs = UploadCheckpointDirsOfRoot(gc.fs, s.root());
  LAKE_REQUIRE_OK(dirs);
  CHECK(dirs->size() == 2);
  CHECK(dirs->back() == *recorded);
  // Recording again changes nothing.
  LAKE_REQUIRE_OK(RecordUploadCheckpointDir(gc.fs, s.root(), elsewhere.Join("ckpt")));
  CHECK(UploadCheckpointDirsOfRoot(gc.fs, s.root())->size() == 2);
  gc::PlanSummary plan = gc.Plan();
  CHECK(plan.orphan_uploads == 0);
  uint64_t aborted = 0;
  LAKE_REQUIRE_OK(gc.Apply(plan.manifest.plan_id, &aborted));
  CHECK(aborted == 0);
  CHECK(gc.UploadIds() == std::set<std::string>{c.upload_id});
  ExpectPutResumes(s);
}

TEST_CASE("gc on S3: a stale checkpoint in a recorded directory is expired like the root's own") {
  testing::TempDir elsewhere;
  ResumeStage s(kPart, kFileBytes, elsewhere.Join("ckpt"));
  s.PutInChildUntilKilled([] { KillAtHit(kUploadCheckpointFailpoints[0], 3); });
  UploadCheckpoint c = s.OnlyCheckpoint();
  OrphanGc gc(s);  // its stage keeps no checkpoints of its own
  LAKE_REQUIRE_OK(RecordUploadCheckpointDir(gc.fs, s.root(), elsewhere.Join("ckpt")));
  absl::StatusOr<std::vector<std::string>> dirs = UploadCheckpointDirsOfRoot(gc.fs, s.root());
  LAKE_REQUIRE_OK(dirs);
  const absl::Duration horizon = absl::Hours(24 * 7);
  absl::Time later = absl::Now() + absl::Hours(24 * 8);
  // The checkpoint records the proxy's endpoint: a stage of that identity
  // expires it; the direct stage leaves another stage's checkpoint alone.
  CHECK(*gc.store().ExpireStaleUploads(later, horizon, *dirs) == 0);
  std::unique_ptr<ManagedStage> same = s.Open();
  CHECK(*s.store_of(*same).ExpireStaleUploads(absl::Now(), horizon, *dirs) == 0);
  CHECK(s.CheckpointCount() == 1);
  CHECK(*s.store_of(*same).ExpireStaleUploads(later, horizon, *dirs) == 1);
  CHECK(s.CheckpointCount() == 0);
  CHECK(gc.UploadIds().empty());
  CHECK(absl::IsNotFound(s.Resume(c.id).status()));
}

TEST_CASE("a damaged checkpoint directory record fails the collection's read of protected keys") {
  testing::TempDir root;
  testing::TempDir elsewhere;
  io::PosixFileSystem fs;
  absl::StatusOr<std::string> recorded =
      RecordUploadCheckpointDir(fs, root.path(), elsewhere.Join("ckpt"));
  LAKE_REQUIRE_OK(recorded);
  std::vector<std::string> names = testing::FilesUnder(root.Join("checkpoints/upload-dirs"));
  REQUIRE(names.size() == 1);
  std::string path = root.Join("checkpoints/upload-dirs/" + names[0]);
  std::vector<uint8_t> bytes = testing::ReadFile(path);
  bytes.back() = 'x';
  std::filesystem::remove(path);
  testing::WriteFile(path, bytes);
  CHECK(absl::IsDataLoss(UploadCheckpointDirsOfRoot(fs, root.path()).status()));
  RegisterUploadCheckpointKeys();
  absl::Status read = gc::ForEachProtectedUri(fs, root.path(), absl::Now(), absl::Hours(1),
                                              [](std::string_view) { return absl::OkStatus(); });
  CHECK(absl::IsDataLoss(read));
}

}  // namespace
}  // namespace lake
