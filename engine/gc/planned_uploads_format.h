// The incomplete multipart uploads a deletion plan aborts (issue 21,
// deliverable 5: nothing billed forever): uploads under the stage that no
// lease, pin or upload checkpoint protects and that were begun at or
// before the plan's listing time − its cutoff (orphan_uploads.h).
//
// Format (version 1): a sealed JSON record (digested_json.h), one line, at
// <root>/gc/plans/<plan id>/uploads.json, written durably before the
// manifest (a plan directory without a manifest is a draft):
//   {"format":1,"plan_id":"<uuidv7>",
//    "uploads":[{"bytes":N,"initiated_unix_micros":N,"upload_id":"…",
//                "uri":"s3://…"},…],
//    "sha256":"<64 hex>"}
// (keys in byte order as written). `bytes` is what the upload's parts held
// when planned. The decoder fails closed (DataLoss) on a digest that does
// not match, a missing, extra or mistyped field, another format, a plan id
// that is not a canonical UUIDv7, more than kMaxPlannedUploads uploads, a
// uri a plan page could not hold (ValidateCandidateUri), an upload id that
// is not 1..1,024 visible ASCII bytes, a size of 2^63 or more, or entries
// not strictly ascending by (uri, upload_id).
//
// The manifest does not name this record: a plan without it (made before
// it existed, or with it removed) aborts no upload, which is the safe side;
// a record of another plan is refused by its plan id.
#ifndef LAKE_ENGINE_GC_PLANNED_UPLOADS_FORMAT_H_
#define LAKE_ENGINE_GC_PLANNED_UPLOADS_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::gc {

inline constexpr uint64_t kPlannedUploadsFormatVersion = 1;
inline constexpr std::string_view kPlannedUploadsFile = "uploads.json";
// Uploads one plan aborts; any more wait for the next plan.
inline constexpr size_t kMaxPlannedUploads = 10000;
// 10,000 entries of a 4 KiB uri and a 1 KiB upload id, with room to spare.
inline constexpr size_t kMaxPlannedUploadsBytes = size_t{64} << 20;

struct PlannedUpload {
  std::string uri;
  std::string upload_id;
  int64_t initiated_unix_micros = 0;
  uint64_t bytes = 0;

  bool operator==(const PlannedUpload&) const = default;
};

struct PlannedUploads {
  std::string plan_id;
  std::vector<PlannedUpload> uploads;  // strictly ascending by (uri, upload_id)

  bool operator==(const PlannedUploads&) const = default;
};

// InvalidArgument when the record breaks a rule above.
absl::Status ValidatePlannedUploads(const PlannedUploads& planned);
absl::StatusOr<std::string> EncodePlannedUploads(const PlannedUploads& planned);
absl::StatusOr<PlannedUploads> DecodePlannedUploads(std::string_view text);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PLANNED_UPLOADS_FORMAT_H_
