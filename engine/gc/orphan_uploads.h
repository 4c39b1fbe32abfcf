// Orphan multipart uploads (issue 21, deliverable 5: nothing billed
// forever, without relying on a bucket lifecycle rule).
//
// An incomplete upload of the root's stage (ManagedObjectStore::
// ListIncompleteUploads: S3's ListMultipartUploads under the stage prefix)
// is an orphan when
//   - it was begun at or before the plan's listing time − its cutoff, and
//   - no protected URI (ForEachProtectedUri: a live process's lease, a dead
//     process's unexpired lease, a pin, and every registered source — the
//     upload checkpoints that are not stale, in the root's checkpoint
//     directory and in every directory recorded for the root,
//     engine/s3/upload_checkpoint_dirs.h) is the URI its object would have.
// A live upload holds a lease on its key from before its upload id exists
// until it returns, and a resumable one's checkpoint protects the key once
// the lease is released (the checkpoint is written first), so neither is
// ever an orphan. An upload's key is never referenced before it completes
// (a reference is made from the DataLocation a completed upload returns).
//
// Planning (PlanOrphanUploads, before the manifest is published): the
// listing first, then the protected URIs; each orphan's bytes from its
// parts (ListParts); at most kMaxPlannedUploads, in listing order — any
// more wait for the next plan. Recorded in the plan
// (planned_uploads_format.h).
//
// Applying (AbortPlannedUploads, after the whole plan is verified and
// before its first page is deleted, each time apply runs until the plan is
// done, so a crash resumes it): the protected URIs are read again, and each
// planned upload that is still unprotected is aborted (one gone already is
// not an error). An upload protected since the plan — a resume that took a
// lease on its key — is kept. A resume that starts between that read and
// the abort finds its upload gone and fails with NotFound, its checkpoint
// kept (s3_upload.h): never a wrong object.
#ifndef LAKE_ENGINE_GC_ORPHAN_UPLOADS_H_
#define LAKE_ENGINE_GC_ORPHAN_UPLOADS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/cancel_token.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/planned_uploads_format.h"

namespace lake::gc {

struct OrphanUploadTotals {
  uint64_t listed = 0;   // incomplete uploads of the stage
  uint64_t planned = 0;  // orphans recorded in the plan
  uint64_t bytes = 0;    // their parts' bytes
  uint64_t left = 0;     // orphans beyond kMaxPlannedUploads (next plan)
};

// Lists the orphans at `listing_time` − `cutoff` and writes them durably
// to <plan_dir>/uploads.json (a plan with none gets no record).
absl::StatusOr<OrphanUploadTotals> PlanOrphanUploads(const GcRoot& root,
                                                     std::string_view plan_id,
                                                     const std::string& plan_dir,
                                                     absl::Time listing_time,
                                                     absl::Duration cutoff,
                                                     absl::Duration lease_expiry,
                                                     const CancelToken* cancel);

// The uploads plan `plan_id` aborts: none (an empty record) when it has no
// record; DataLoss when the record is damaged, names another plan, or an
// upload outside the root's stage.
absl::StatusOr<PlannedUploads> ReadPlannedUploads(const GcRoot& root, std::string_view plan_id);

// Aborts every planned upload still unprotected; returns how many.
absl::StatusOr<uint64_t> AbortPlannedUploads(const GcRoot& root, const PlannedUploads& planned,
                                             absl::Duration lease_expiry,
                                             const CancelToken* cancel);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_ORPHAN_UPLOADS_H_
