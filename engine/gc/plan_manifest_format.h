// The manifest of a deletion plan: written last, it is what makes a plan a
// plan (pages without a manifest are a draft and authorise nothing). It
// binds the plan to its root and stage, the cutoff, the listing and
// snapshot times, the totals, the root's fingerprint when the live index
// was taken (root_fingerprint.h), and the identity of the first page of
// the chain (plan_page_format.h), which binds every page.
//
// Format (version 1): a sealed JSON record (digested_json.h), one line,
// at <root>/gc/plans/<plan id>/manifest.json:
//   {"format":1,"plan_id":"<uuidv7>","root_id":"<uuidv7>",
//    "stage":"<canonical stage descriptor JSON, as a string>",
//    "cutoff_seconds":N,"created_unix_micros":N,
//    "listing_unix_micros":N,"snapshot_unix_micros":N,
//    "fingerprint":"<64 hex>","fingerprint_tables":"<64 hex>",
//    "fingerprint_event_logs":"<64 hex>","fingerprint_pending_appends":"<64 hex>",
//    "fingerprint_pins":"<64 hex>",
//    "objects":N,"object_bytes":N,"table_files":N,"table_file_bytes":N,
//    "pages":N,"first_page_sha256":"<64 hex>" ("" when pages is 0),
//    "sha256":"<64 hex>"}
// (keys in byte order as written). The decoder fails closed (DataLoss) on
// a digest that does not match, a missing, extra or mistyped field, an id
// that is not a canonical UUIDv7, a digest field that is not 64 lowercase
// hex, listing time after snapshot time, or pages that cannot hold the
// totals (pages × kMaxPlanPageEntries < candidates, or pages > candidates).
#ifndef LAKE_ENGINE_GC_PLAN_MANIFEST_FORMAT_H_
#define LAKE_ENGINE_GC_PLAN_MANIFEST_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::gc {

inline constexpr uint64_t kPlanManifestFormatVersion = 1;
inline constexpr size_t kMaxPlanManifestBytes = 64 * 1024;
inline constexpr size_t kMaxManifestStageBytes = 32 * 1024;

struct PlanManifest {
  std::string plan_id;
  std::string root_id;
  std::string stage_descriptor;  // canonical JSON text
  uint64_t cutoff_seconds = 0;
  int64_t created_unix_micros = 0;
  int64_t listing_unix_micros = 0;   // when the inventory listing began
  int64_t snapshot_unix_micros = 0;  // when the live index's snapshot was taken
  std::string fingerprint;           // 64 lowercase hex
  std::string fingerprint_tables;
  std::string fingerprint_event_logs;
  std::string fingerprint_pending_appends;
  std::string fingerprint_pins;
  uint64_t objects = 0;
  uint64_t object_bytes = 0;
  uint64_t table_files = 0;
  uint64_t table_file_bytes = 0;
  uint64_t pages = 0;
  std::string first_page_sha256;  // "" when pages == 0

  uint64_t candidates() const { return objects + table_files; }
  bool operator==(const PlanManifest&) const = default;
};

// InvalidArgument when the manifest breaks a rule above.
absl::Status ValidatePlanManifest(const PlanManifest& manifest);
absl::StatusOr<std::string> EncodePlanManifest(const PlanManifest& manifest);
absl::StatusOr<PlanManifest> DecodePlanManifest(std::string_view text);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PLAN_MANIFEST_FORMAT_H_
