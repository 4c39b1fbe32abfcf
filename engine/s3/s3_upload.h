// One upload into an S3 stage (managed-objects.md, the S3 backend).
//
//  - The key is fresh and random, chosen first (UploadOptions::key_chosen
//    is told its URI before any request). An empty object is one
//    PutObject. Anything else is a multipart upload under that key: the caller's thread reads the source in
//    order into part buffers, hashing the whole object on the fly, while
//    up to `concurrency` UploadPart requests are in flight, each owning one
//    part buffer and signing its own part's SHA-256 (so the server refuses
//    any part that changed in transit). Memory: concurrency × part size,
//    drawn from the process BufferBudget.
//  - The completed part list is ordered by part number whatever order the
//    responses came back in; the whole-object SHA-256 is of the source's
//    bytes in order.
//  - Part numbers run 1..10,000. After a non-empty 10,000th part the source
//    is read once more: EOF completes, more data is a typed error
//    (OutOfRange) before any 10,001st UploadPart, and the upload is aborted
//    (its checkpoint removed: a resume finds none, a put starts afresh and
//    ends the same way).
//  - A failed part (after the request layer's retries) cancels the others
//    and aborts the upload; so does the caller's cancellation, within 30 s.
//  - A DataLocation is produced only after completion is verified: HEAD
//    must report the size read and the multipart ETag (MD5 over the parts'
//    MD5s, "-N") of the parts sent. The parts' MD5s are the ETags the
//    server reported for them, which it could only compute over the bytes
//    whose signed SHA-256 it had verified. Where the server's ETag is not
//    that composite MD5 (SSE-KMS), the object is streamed once and its
//    size and SHA-256 must match instead. That same check settles a
//    CompleteMultipartUpload whose response was lost. If verification
//    fails, the object is deleted.
//
// Resumable uploads (issue 21; managed-objects.md, "Path-backed uploads
// become resumable"). A regular-file source uploaded with a checkpoint
// store writes a checkpoint (upload_checkpoint_format.h) once its upload
// id exists, and publishes it again each time the in-order prefix of
// completed parts grows. A part is sent only while its number is at most
// the published prefix + the window (the concurrency), so the parts that
// may exist remotely beyond what a checkpoint trusts are bounded by its
// window. Only 64 MiB parts are checkpointed (and resumed 5 MiB ones);
// another part size writes no checkpoint and says so, except in failpoint
// builds with kAnyPartSizeResumableFailpoint set (crash tests, 1 MiB).
//
// A later upload of the same source (same real path and stage) takes the
// checkpoint's lock — one locked by a live process is left alone and the
// upload goes on its own — and resumes when the file is unchanged (device,
// inode, size, modification time): ListParts (every page) must show each
// recorded part with its recorded ETag and no part beyond prefix + window;
// the source's recorded parts are reread and must match their SHA-256s
// (rebuilding the whole-object SHA-256); then the upload continues at the
// first unrecorded part, re-sending the window's parts from the source.
// A changed source is stale: the upload starts afresh and says so. A
// checkpoint whose upload is gone (completed with its answer lost, or
// aborted) is settled by the object at its key: verified as above, or
// NotFound when there is none.
//
// Endings: success, cancellation, the 10,001st part and a verification
// failure abort (when unfinished) and remove the checkpoint; any other
// failure keeps it for a later resume.
#ifndef LAKE_ENGINE_S3_S3_UPLOAD_H_
#define LAKE_ENGINE_S3_S3_UPLOAD_H_

#include <array>
#include <cstddef>
#include <string_view>

#include "engine/managed_object_store.h"
#include "engine/s3/upload_checkpoint_store.h"
#include "engine/s3/s3_stage_layout.h"
#include "io/s3http/s3_client.h"

namespace lake {

// 64 MiB parts: few requests per object, and 10,000 of them reach 625 GiB.
inline constexpr size_t kS3PartBytes = 64ull << 20;
inline constexpr int kS3DefaultConcurrency = 4;
inline constexpr int kS3MaxConcurrency = 16;
inline constexpr int kS3MaxParts = 10000;
// How long a cancelled or failed upload may spend aborting.
inline constexpr absl::Duration kS3AbortBudget = absl::Seconds(30);

struct S3UploadTuning {
  size_t part_bytes = kS3PartBytes;  // smaller only for tests and tuning
  int concurrency = kS3DefaultConcurrency;
};

// Set (failpoint builds only) to let checkpoints record any part size.
inline constexpr std::string_view kAnyPartSizeResumableFailpoint =
    "s3_upload.any_part_size_resumable";
// Set (failpoint builds only) to lower the most parts an upload may have
// from kS3MaxParts to kS3FailpointMaxParts, so that a test reaches the
// 10,001st-part ending with a few small parts instead of 10,000 of them.
// Nothing else changes: the same check, error, abort and cleanup run.
inline constexpr std::string_view kSmallMaxPartsFailpoint = "s3_upload.small_max_parts";
inline constexpr int kS3FailpointMaxParts = 4;
// The steps of a checkpointed upload (failpoints), in order: a part's
// UploadPart answered, before the checkpoint records it; CompleteMultipart
// is about to be sent.
inline constexpr std::array<std::string_view, 2> kS3UploadFailpoints = {
    "s3_upload.part_done_unrecorded",
    "s3_upload.before_complete",
};

// Where an S3 stage keeps its upload checkpoints; no store: none.
struct S3UploadCheckpointing {
  UploadCheckpointStore* store = nullptr;
  std::string endpoint;  // the stage's endpoint URL, part of its identity
  // ListParts page size (1..1000); smaller only to test paging.
  int list_parts_page = 1000;
};

// True when an upload with these parts may write a checkpoint.
bool CheckpointsPartBytes(uint64_t part_bytes);

absl::StatusOr<StoredObject> UploadToS3(s3http::S3Client& client,
                                        const S3StageLayout& layout,
                                        const S3UploadTuning& tuning,
                                        UploadSource& source,
                                        const UploadOptions& options,
                                        const S3UploadCheckpointing& checkpointing = {});

// Resumes the upload of checkpoint `id` from its source (lake uploads
// resume): NotFound without such a checkpoint, Aborted when another
// process holds it or its source changed (the checkpoint is kept), and
// otherwise as a resuming UploadToS3.
absl::StatusOr<StoredObject> ResumeS3Upload(s3http::S3Client& client,
                                            const S3StageLayout& layout,
                                            const S3UploadTuning& tuning, io::FileSystem& fs,
                                            std::string_view id, const UploadOptions& options,
                                            const S3UploadCheckpointing& checkpointing);

// Garbage collection's expiry (lake gc apply): aborts the upload of, and
// removes, every checkpoint of the stage `layout` names (its bucket, prefix
// and endpoint, any tenant) untouched for longer than `horizon` at `now`
// (IsStaleUploadCheckpoint) that no live upload holds. Checkpoints of other
// stages (a shared directory) and damaged ones are left alone (the
// collector refuses to plan past a damaged one). Returns how many were
// expired.
absl::StatusOr<uint64_t> ExpireStaleS3Uploads(s3http::S3Client& client,
                                              const S3StageLayout& layout,
                                              const S3UploadCheckpointing& checkpointing,
                                              absl::Time now, absl::Duration horizon);

// Aborts the multipart upload of checkpoint `id` and removes the
// checkpoint (lake uploads abort, and garbage collection's expiry).
// Aborted when another process holds it.
absl::Status AbortS3Upload(s3http::S3Client& client, std::string_view id,
                           const S3UploadCheckpointing& checkpointing);

}  // namespace lake

#endif  // LAKE_ENGINE_S3_S3_UPLOAD_H_
