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
//    is read once more: EOF completes, more data is a typed error before
//    any 10,001st UploadPart, and the upload is aborted.
//  - A failed part (after the request layer's retries) cancels the others
//    and aborts the upload; so does the caller's cancellation, within 30 s.
//  - A DataLocation is produced only after completion is verified: HEAD
//    must report the size read and the multipart ETag (MD5 over the parts'
//    MD5s, "-N") of the parts sent. The parts' MD5s are the ETags the
//    server reported for them, which it could only compute over the bytes
//    whose signed SHA-256 it had verified. That same check settles a
//    CompleteMultipartUpload whose response was lost. If verification
//    fails, the object is deleted.
#ifndef LAKE_ENGINE_S3_S3_UPLOAD_H_
#define LAKE_ENGINE_S3_S3_UPLOAD_H_

#include <cstddef>

#include "engine/managed_object_store.h"
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

absl::StatusOr<StoredObject> UploadToS3(s3http::S3Client& client,
                                        const S3StageLayout& layout,
                                        const S3UploadTuning& tuning,
                                        UploadSource& source,
                                        const UploadOptions& options);

}  // namespace lake

#endif  // LAKE_ENGINE_S3_S3_UPLOAD_H_
