// ManagedObjectStore: the one storage boundary inside the engine.
//
// A backend (local, S3, or a host's callback table) moves bytes and reports
// what it stored. Policy — validating locations and ranges before any I/O,
// verifying full reads, capping ranges, building DataLocations — belongs to
// ManagedStage on top, so every backend gets the same guarantees.
#ifndef LAKE_ENGINE_MANAGED_OBJECT_STORE_H_
#define LAKE_ENGINE_MANAGED_OBJECT_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "base/cancel_token.h"
#include "engine/data_location.h"
#include "engine/object_stream.h"
#include "engine/upload_source.h"

namespace lake {

// Called with (bytes done, total or 0 when unknown).
using ProgressFn = std::function<void(uint64_t, uint64_t)>;

struct UploadOptions {
  std::string content_type{kDefaultContentType};
  const CancelToken* cancel = nullptr;
  ProgressFn progress;
  // Called by the backend exactly once per upload that gets that far, with
  // the URI the upload will publish, once the key is chosen and before the
  // first byte is stored (the lease seam, engine/upload_lease.h). An error
  // fails the upload with it, before anything is stored; the upload is
  // cleaned as any failed one.
  std::function<absl::Status(const std::string& uri)> key_chosen;
  // Told, one line at a time, what the caller should hear about a
  // resumable upload (what was reused, a stale checkpoint, a checkpoint
  // not written). May be empty.
  std::function<void(std::string_view line)> notice;
};

// What a backend stored: the bytes it received, counted and hashed by the
// backend as they passed through (never trusted from the source).
struct StoredObject {
  std::string uri;
  uint64_t size_bytes = 0;
  std::string sha256;  // 64 lowercase hex
  // Set only by an upload whose content type is not the options' (a
  // resumed one keeps its checkpoint's).
  std::string content_type = {};
};

// A push-style upload. Destroying a writer that was not committed discards
// everything it wrote; nothing becomes visible before Commit() succeeds.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  virtual absl::Status Write(const uint8_t* data, size_t len) = 0;
  virtual absl::StatusOr<StoredObject> Commit() = 0;
};

// One range of a batched read. The location and range were validated by
// the caller; the backend fills `status` and `bytes_read`.
struct RangeRead {
  const DataLocation* location = nullptr;
  uint64_t start = 0;
  uint64_t end = 0;
  uint8_t* buffer = nullptr;
  absl::Status status;
  uint64_t bytes_read = 0;
};

struct ListedObject {
  std::string uri;
  uint64_t size_bytes = 0;
  int64_t modified_unix_micros = 0;
};

// A multipart upload begun in the stage and neither completed nor aborted
// (S3's; other stores keep none: a local upload's leftovers are staging
// files, CleanStaging's). It is billed until someone aborts it.
struct IncompleteUpload {
  std::string uri;  // the URI its object would have once completed
  std::string upload_id;
  int64_t initiated_unix_micros = 0;

  bool operator==(const IncompleteUpload&) const = default;
};

class ManagedObjectStore {
 public:
  virtual ~ManagedObjectStore() = default;

  // "io_uring", "sync", "host", …
  virtual std::string_view backend_name() const = 0;

  virtual absl::StatusOr<StoredObject> Upload(UploadSource& source,
                                              const UploadOptions& options) = 0;
  virtual absl::StatusOr<std::unique_ptr<ObjectWriter>> NewWriter(
      const UploadOptions& options) = 0;
  // Whether an upload cut short by a crash may later be resumed on the
  // same key (an S3 multipart upload with its checkpoint): its key's lease
  // must then outlive a power loss (engine/upload_lease.h). True unless a
  // store knows better.
  virtual bool ResumesUploads() const { return true; }

  // OK when `location` lies inside this stage (and its tenant). Pure: it
  // touches no storage.
  virtual absl::Status CheckContainment(const DataLocation& location) = 0;

  // The raw stream of a contained location's bytes from `start` on. The
  // caller reads at most `limit` bytes from it, so a backend may fetch no
  // more than that.
  virtual absl::StatusOr<std::unique_ptr<ObjectStream>> Open(
      const DataLocation& location, uint64_t start, uint64_t limit) = 0;

  // The size of the stored object a contained location names (NotFound
  // when there is none). The default reads the location's last byte
  // through Open, which proves at least size_bytes; backends that can stat
  // return the exact size.
  virtual absl::StatusOr<uint64_t> StoredSize(const DataLocation& location);

  // Fills every range that has an OK status on entry (the others were
  // refused by validation and are left alone). The default opens one stream
  // per range; backends override it to submit ranges together.
  virtual void ReadRanges(absl::Span<RangeRead> ranges);

  // Every published object of the stage (or tenant). `emit` returns false
  // to stop early.
  virtual absl::Status List(
      const std::function<bool(const ListedObject&)>& emit) = 0;
  // Every published object as List, but in no order: a backend may list
  // parts of its key space on up to `streams` concurrent requests (an S3
  // stage does). `emit` runs on one thread at a time. By default, List.
  virtual absl::Status ListUnordered(size_t streams,
                                     const std::function<bool(const ListedObject&)>& emit) {
    (void)streams;
    return List(emit);
  }

  // Removes a contained object; an absent object is not an error.
  virtual absl::Status Delete(const DataLocation& location) = 0;

  // Removes leftovers of uploads whose owner died; returns how many.
  virtual absl::StatusOr<uint64_t> CleanStaging() = 0;

  // Every incomplete upload of the stage (or tenant), in URI order (a URI
  // may have several). `emit` returning an error stops the listing with it.
  // The default: none.
  virtual absl::Status ListIncompleteUploads(
      const std::function<absl::Status(const IncompleteUpload&)>& emit);
  // The bytes its parts hold so far; NotFound when it is gone (completed or
  // aborted since).
  virtual absl::StatusOr<uint64_t> IncompleteUploadBytes(const IncompleteUpload& upload);
  // Aborts it (its parts are freed); one gone already is not an error. A
  // URI outside the stage is refused before any I/O.
  virtual absl::Status AbortIncompleteUpload(const IncompleteUpload& upload);

  // A URL that GETs a contained object without credentials, for `ttl`.
  // Unimplemented by stores that have no such thing (local, host).
  virtual absl::StatusOr<std::string> Presign(const DataLocation& location,
                                              absl::Duration ttl);

  // What the collector needs of a backend it knows only through this
  // interface (a host's store; engine/gc/stage_keys.h reads local and S3
  // stages directly): the decoded key of a contained URI relative to the
  // stage root ("objects/ab/<uuid>", "tenants/<t>/objects/ab/<uuid>";
  // InvalidLocation for one it does not contain), and the tenant the handle
  // is scoped to ("" for the whole stage). Unimplemented by default.
  virtual absl::StatusOr<std::string> StageRelativeKey(std::string_view uri);
  virtual absl::StatusOr<std::string> ScopedTenant() const;

  // Small records the stage keeps for lake itself beside its objects, never
  // listed as objects (the collector's owner marker and claims, under
  // "_lake/"). `name` is relative to the stage root or prefix (never the
  // tenant's): "_lake/owner". Unimplemented by stores without them (host).
  //
  // The record's bytes; nullopt when there is none; DataLoss when it is
  // longer than `max_bytes` (it is never read further).
  virtual absl::StatusOr<std::optional<std::string>> ReadStageRecord(std::string_view name,
                                                                     size_t max_bytes);
  // Creates the record durably unless one of that name exists
  // (AlreadyExists then, whatever it holds). Never replaces a record.
  virtual absl::Status CreateStageRecord(std::string_view name, std::string_view bytes);
  // The names (last path segment) of the records beneath the record
  // directory `dir` ("_lake/claims"), in no order; empty when none.
  virtual absl::StatusOr<std::vector<std::string>> ListStageRecords(std::string_view dir);

 protected:
  // One range through Open, with the status of every step (open, each
  // read, close): the default ReadRanges' step, for backends that run
  // several at once. Thread-safe when Open is.
  void ReadRange(RangeRead& range);
};

}  // namespace lake

#endif  // LAKE_ENGINE_MANAGED_OBJECT_STORE_H_
