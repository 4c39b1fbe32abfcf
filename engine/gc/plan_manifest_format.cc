#include "engine/gc/plan_manifest_format.h"

#include "absl/strings/str_cat.h"
#include "base/hex.h"
#include "engine/gc/digested_json.h"
#include "engine/gc/plan_page_format.h"
#include "engine/operation_id.h"

namespace lake::gc {

using Json = nlohmann::json;

absl::Status ValidatePlanManifest(const PlanManifest& m) {
  auto invalid = [](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("invalid plan manifest: ", std::string(why)));
  };
  if (!ParseOperationId(m.plan_id).ok()) return invalid("the plan id is not a canonical UUIDv7");
  if (!ParseOperationId(m.root_id).ok()) return invalid("the root id is not a canonical UUIDv7");
  if (m.stage_descriptor.empty() || m.stage_descriptor.size() > kMaxManifestStageBytes) {
    return invalid("the stage descriptor is empty or too long");
  }
  for (const std::string* hex :
       {&m.fingerprint, &m.fingerprint_tables, &m.fingerprint_event_logs,
        &m.fingerprint_pending_appends, &m.fingerprint_pins}) {
    if (!IsLowerHexSha256(*hex)) return invalid("a fingerprint is not 64 lowercase hex");
  }
  if (m.listing_unix_micros > m.snapshot_unix_micros) {
    return invalid("the listing began after the snapshot");
  }
  if (m.cutoff_seconds > static_cast<uint64_t>(100) * 366 * 24 * 3600) {
    return invalid("the cutoff is longer than a century");
  }
  uint64_t candidates = m.objects + m.table_files;
  if (candidates < m.objects) return invalid("the totals overflow");
  uint64_t fewest_pages =
      candidates / kMaxPlanPageEntries + (candidates % kMaxPlanPageEntries != 0 ? 1 : 0);
  if (m.pages > candidates || m.pages < fewest_pages ||
      (m.pages == 0) != m.first_page_sha256.empty()) {
    return invalid("its pages cannot hold its totals");
  }
  if (m.pages > 0 && !IsLowerHexSha256(m.first_page_sha256)) {
    return invalid("the first page's sha256 is not 64 lowercase hex");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodePlanManifest(const PlanManifest& m) {
  if (absl::Status s = ValidatePlanManifest(m); !s.ok()) return s;
  Json json = {{"format", kPlanManifestFormatVersion},
               {"plan_id", m.plan_id},
               {"root_id", m.root_id},
               {"stage", m.stage_descriptor},
               {"cutoff_seconds", m.cutoff_seconds},
               {"created_unix_micros", m.created_unix_micros},
               {"listing_unix_micros", m.listing_unix_micros},
               {"snapshot_unix_micros", m.snapshot_unix_micros},
               {"fingerprint", m.fingerprint},
               {"fingerprint_tables", m.fingerprint_tables},
               {"fingerprint_event_logs", m.fingerprint_event_logs},
               {"fingerprint_pending_appends", m.fingerprint_pending_appends},
               {"fingerprint_pins", m.fingerprint_pins},
               {"objects", m.objects},
               {"object_bytes", m.object_bytes},
               {"table_files", m.table_files},
               {"table_file_bytes", m.table_file_bytes},
               {"pages", m.pages},
               {"first_page_sha256", m.first_page_sha256}};
  return SealJson(json);
}

absl::StatusOr<PlanManifest> DecodePlanManifest(std::string_view text) {
  constexpr std::string_view kWhat = "a plan manifest";
  absl::StatusOr<Json> json = OpenSealedJson(text, kWhat, kMaxPlanManifestBytes);
  if (!json.ok()) return json.status();
  DigestedJsonFields f(*json, kWhat);
  PlanManifest m;
  absl::StatusOr<uint64_t> format = f.Unsigned("format");
  if (!format.ok()) return format.status();
  if (*format != kPlanManifestFormatVersion) {
    return absl::DataLossError(absl::StrCat("a plan manifest is in format ", *format,
                                            "; this lake reads format ",
                                            kPlanManifestFormatVersion));
  }
  auto text_field = [&](std::string_view key, size_t max, std::string* out) -> absl::Status {
    absl::StatusOr<std::string> v = f.String(key, max);
    if (!v.ok()) return v.status();
    *out = std::move(*v);
    return absl::OkStatus();
  };
  auto unsigned_field = [&](std::string_view key, uint64_t* out) -> absl::Status {
    absl::StatusOr<uint64_t> v = f.Unsigned(key);
    if (!v.ok()) return v.status();
    *out = *v;
    return absl::OkStatus();
  };
  auto signed_field = [&](std::string_view key, int64_t* out) -> absl::Status {
    absl::StatusOr<int64_t> v = f.Signed(key);
    if (!v.ok()) return v.status();
    *out = *v;
    return absl::OkStatus();
  };
  for (absl::Status s : {text_field("plan_id", 64, &m.plan_id),
                         text_field("root_id", 64, &m.root_id),
                         text_field("stage", kMaxManifestStageBytes, &m.stage_descriptor),
                         unsigned_field("cutoff_seconds", &m.cutoff_seconds),
                         signed_field("created_unix_micros", &m.created_unix_micros),
                         signed_field("listing_unix_micros", &m.listing_unix_micros),
                         signed_field("snapshot_unix_micros", &m.snapshot_unix_micros),
                         text_field("fingerprint", 64, &m.fingerprint),
                         text_field("fingerprint_tables", 64, &m.fingerprint_tables),
                         text_field("fingerprint_event_logs", 64, &m.fingerprint_event_logs),
                         text_field("fingerprint_pending_appends", 64,
                                    &m.fingerprint_pending_appends),
                         text_field("fingerprint_pins", 64, &m.fingerprint_pins),
                         unsigned_field("objects", &m.objects),
                         unsigned_field("object_bytes", &m.object_bytes),
                         unsigned_field("table_files", &m.table_files),
                         unsigned_field("table_file_bytes", &m.table_file_bytes),
                         unsigned_field("pages", &m.pages),
                         text_field("first_page_sha256", 64, &m.first_page_sha256),
                         f.Finish()}) {
    if (!s.ok()) return s;
  }
  if (absl::Status s = ValidatePlanManifest(m); !s.ok()) {
    return absl::DataLossError(absl::StrCat("a plan manifest is damaged: ", s.message()));
  }
  return m;
}

}  // namespace lake::gc
