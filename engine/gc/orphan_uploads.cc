#include "engine/gc/orphan_uploads.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "engine/gc/gc_layout.h"
#include "engine/gc/lease_store.h"
#include "engine/gc/plan_page_format.h"
#include "engine/gc/stage_keys.h"
#include "engine/managed_key.h"
#include "io/whole_file.h"

namespace lake::gc {
namespace {

absl::StatusOr<absl::flat_hash_set<std::string>> ProtectedUris(const GcRoot& root,
                                                               absl::Duration lease_expiry) {
  absl::flat_hash_set<std::string> uris;
  absl::Status read = ForEachProtectedUri(root.fs, root.root_dir, absl::Now(), lease_expiry,
                                          [&](std::string_view uri) {
                                            uris.emplace(uri);
                                            return absl::OkStatus();
                                          });
  if (!read.ok()) return read;
  return uris;
}

// The parts' bytes of each upload (IncompleteUploadBytes), up to
// kSizeWindow requests at once over the store's shared transport: one
// ListParts each, which would otherwise make a plan over many orphans wait
// on one round trip after another.
constexpr size_t kSizeWindow = 8;

std::vector<absl::StatusOr<uint64_t>> SizesOf(const GcRoot& root,
                                              const std::vector<IncompleteUpload>& uploads,
                                              const CancelToken* cancel) {
  std::vector<absl::StatusOr<uint64_t>> sizes(uploads.size(), uint64_t{0});
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= uploads.size()) return;
      absl::Status cancelled = CheckCancelled(cancel);
      sizes[i] = cancelled.ok() ? root.stage.store().IncompleteUploadBytes(uploads[i])
                                : absl::StatusOr<uint64_t>(cancelled);
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min(kSizeWindow, uploads.size()); ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  return sizes;
}

std::string RecordPath(const std::string& plan_dir) {
  return absl::StrCat(plan_dir, "/", std::string(kPlannedUploadsFile));
}

}  // namespace

absl::StatusOr<OrphanUploadTotals> PlanOrphanUploads(const GcRoot& root,
                                                     std::string_view plan_id,
                                                     const std::string& plan_dir,
                                                     absl::Time listing_time,
                                                     absl::Duration cutoff,
                                                     absl::Duration lease_expiry,
                                                     const CancelToken* cancel) {
  OrphanUploadTotals totals;
  const int64_t begun_by = absl::ToUnixMicros(listing_time - cutoff);
  std::vector<IncompleteUpload> old;
  absl::Status listed = root.stage.store().ListIncompleteUploads(
      [&](const IncompleteUpload& upload) -> absl::Status {
        ++totals.listed;
        if (upload.initiated_unix_micros <= begun_by) old.push_back(upload);
        return CheckCancelled(cancel);
      });
  if (!listed.ok()) return listed;
  if (old.empty()) return totals;
  absl::StatusOr<absl::flat_hash_set<std::string>> protected_uris =
      ProtectedUris(root, lease_expiry);
  if (!protected_uris.ok()) return protected_uris.status();
  std::vector<IncompleteUpload> orphans;
  for (IncompleteUpload& upload : old) {
    if (protected_uris->contains(upload.uri)) continue;
    if (!ValidateCandidateUri(upload.uri).ok()) continue;  // not a managed key's
    if (orphans.size() >= kMaxPlannedUploads) {
      ++totals.left;
      continue;
    }
    orphans.push_back(std::move(upload));
  }
  std::vector<absl::StatusOr<uint64_t>> bytes = SizesOf(root, orphans, cancel);
  PlannedUploads planned;
  planned.plan_id = std::string(plan_id);
  for (size_t i = 0; i < orphans.size(); ++i) {
    if (absl::IsNotFound(bytes[i].status())) continue;  // completed or aborted since
    if (!bytes[i].ok()) return bytes[i].status();
    const IncompleteUpload& upload = orphans[i];
    planned.uploads.push_back(
        PlannedUpload{upload.uri, upload.upload_id, upload.initiated_unix_micros, *bytes[i]});
    totals.bytes += *bytes[i];
  }
  if (planned.uploads.empty()) return totals;
  std::sort(planned.uploads.begin(), planned.uploads.end(),
            [](const PlannedUpload& a, const PlannedUpload& b) {
              return a.uri != b.uri ? a.uri < b.uri : a.upload_id < b.upload_id;
            });
  planned.uploads.erase(
      std::unique(planned.uploads.begin(), planned.uploads.end(),
                  [](const PlannedUpload& a, const PlannedUpload& b) {
                    return a.uri == b.uri && a.upload_id == b.upload_id;
                  }),
      planned.uploads.end());
  totals.planned = planned.uploads.size();
  absl::StatusOr<std::string> text = EncodePlannedUploads(planned);
  if (!text.ok()) return text.status();
  std::string path = RecordPath(plan_dir);
  if (absl::Status s = io::WriteWholeFileDurably(root.fs, path,
                                                 absl::StrCat(path, ".", NewUuidV7(), ".tmp"),
                                                 *text);
      !s.ok()) {
    return s;
  }
  return totals;
}

absl::StatusOr<PlannedUploads> ReadPlannedUploads(const GcRoot& root, std::string_view plan_id) {
  PlannedUploads planned;
  planned.plan_id = std::string(plan_id);
  absl::StatusOr<std::string> text = io::ReadWholeFile(
      root.fs, RecordPath(PlanDirOf(root.root_dir, plan_id)), kMaxPlannedUploadsBytes);
  if (absl::IsNotFound(text.status())) return planned;
  if (!text.ok()) return text.status();
  absl::StatusOr<PlannedUploads> decoded = DecodePlannedUploads(*text);
  if (!decoded.ok()) return decoded.status();
  if (decoded->plan_id != plan_id) {
    return absl::DataLossError(absl::StrCat("the uploads record of plan ", std::string(plan_id),
                                            " names plan ", decoded->plan_id));
  }
  for (const PlannedUpload& u : decoded->uploads) {
    if (!StageRelativeKey(root.stage.store(), u.uri).ok()) {
      return absl::DataLossError(absl::StrCat("plan ", std::string(plan_id), " names the upload ",
                                              u.upload_id, " of ", u.uri,
                                              ", which this root may not abort"));
    }
  }
  return decoded;
}

absl::StatusOr<uint64_t> AbortPlannedUploads(const GcRoot& root, const PlannedUploads& planned,
                                             absl::Duration lease_expiry,
                                             const CancelToken* cancel) {
  if (planned.uploads.empty()) return uint64_t{0};
  absl::StatusOr<absl::flat_hash_set<std::string>> protected_uris =
      ProtectedUris(root, lease_expiry);
  if (!protected_uris.ok()) return protected_uris.status();
  uint64_t aborted = 0;
  for (const PlannedUpload& u : planned.uploads) {
    if (absl::Status s = CheckCancelled(cancel); !s.ok()) return s;
    if (protected_uris->contains(u.uri)) continue;
    absl::Status s = root.stage.store().AbortIncompleteUpload(
        IncompleteUpload{u.uri, u.upload_id, u.initiated_unix_micros});
    if (!s.ok() && !absl::IsNotFound(s)) return s;
    ++aborted;
  }
  return aborted;
}

}  // namespace lake::gc
