#include "engine/gc/planned_uploads_format.h"

#include "absl/strings/str_cat.h"
#include "engine/gc/digested_json.h"
#include "engine/gc/plan_page_format.h"
#include "engine/operation_id.h"

namespace lake::gc {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxUploadIdBytes = 1024;

bool IsUploadId(std::string_view id) {
  if (id.empty() || id.size() > kMaxUploadIdBytes) return false;
  for (char c : id) {
    if (c <= 0x20 || c >= 0x7F) return false;
  }
  return true;
}

bool Before(const PlannedUpload& a, const PlannedUpload& b) {
  return a.uri != b.uri ? a.uri < b.uri : a.upload_id < b.upload_id;
}

}  // namespace

absl::Status ValidatePlannedUploads(const PlannedUploads& planned) {
  auto invalid = [](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid planned uploads record: ", std::string(why)));
  };
  if (!ParseOperationId(planned.plan_id).ok()) {
    return invalid("the plan id is not a canonical UUIDv7");
  }
  if (planned.uploads.size() > kMaxPlannedUploads) {
    return invalid(absl::StrCat("more than ", kMaxPlannedUploads, " uploads"));
  }
  for (size_t i = 0; i < planned.uploads.size(); ++i) {
    const PlannedUpload& u = planned.uploads[i];
    if (absl::Status s = ValidateCandidateUri(u.uri); !s.ok()) return invalid(std::string(s.message()));
    if (!IsUploadId(u.upload_id)) {
      return invalid(absl::StrCat("upload ", i + 1, "'s id is not 1 to ", kMaxUploadIdBytes,
                                  " visible ASCII bytes"));
    }
    if (u.bytes > static_cast<uint64_t>(INT64_MAX)) {
      return invalid(absl::StrCat("upload ", i + 1, " is 2^63 bytes or more"));
    }
    if (i > 0 && !Before(planned.uploads[i - 1], u)) {
      return invalid("uploads are not strictly ascending by uri and upload id");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodePlannedUploads(const PlannedUploads& planned) {
  if (absl::Status s = ValidatePlannedUploads(planned); !s.ok()) return s;
  Json uploads = Json::array();
  for (const PlannedUpload& u : planned.uploads) {
    uploads.push_back({{"uri", u.uri},
                       {"upload_id", u.upload_id},
                       {"initiated_unix_micros", u.initiated_unix_micros},
                       {"bytes", u.bytes}});
  }
  return SealJson(Json{{"format", kPlannedUploadsFormatVersion},
                       {"plan_id", planned.plan_id},
                       {"uploads", std::move(uploads)}});
}

absl::StatusOr<PlannedUploads> DecodePlannedUploads(std::string_view text) {
  constexpr std::string_view kWhat = "a plan's uploads record";
  absl::StatusOr<Json> json = OpenSealedJson(text, kWhat, kMaxPlannedUploadsBytes);
  if (!json.ok()) return json.status();
  auto damaged = [&](std::string_view why) {
    return absl::DataLossError(absl::StrCat(std::string(kWhat), " is damaged: ", std::string(why)));
  };
  DigestedJsonFields fields(*json, kWhat);
  absl::StatusOr<uint64_t> format = fields.Unsigned("format");
  if (!format.ok()) return format.status();
  if (*format != kPlannedUploadsFormatVersion) {
    return damaged(absl::StrCat("format ", *format, " is not ", kPlannedUploadsFormatVersion));
  }
  PlannedUploads planned;
  absl::StatusOr<std::string> plan_id = fields.String("plan_id", 64);
  if (!plan_id.ok()) return plan_id.status();
  planned.plan_id = std::move(*plan_id);
  absl::StatusOr<const Json*> uploads = fields.Array("uploads");
  if (!uploads.ok()) return uploads.status();
  if (absl::Status s = fields.Finish(); !s.ok()) return s;
  if ((*uploads)->size() > kMaxPlannedUploads) {
    return damaged(absl::StrCat("more than ", kMaxPlannedUploads, " uploads"));
  }
  for (const Json& entry : **uploads) {
    if (!entry.is_object()) return damaged("an upload is not an object");
    DigestedJsonFields upload_fields(entry, kWhat);
    PlannedUpload u;
    absl::StatusOr<std::string> uri = upload_fields.String("uri", kMaxPlanUriBytes);
    if (!uri.ok()) return uri.status();
    absl::StatusOr<std::string> id = upload_fields.String("upload_id", kMaxUploadIdBytes);
    if (!id.ok()) return id.status();
    absl::StatusOr<int64_t> initiated = upload_fields.Signed("initiated_unix_micros");
    if (!initiated.ok()) return initiated.status();
    absl::StatusOr<uint64_t> bytes = upload_fields.Unsigned("bytes");
    if (!bytes.ok()) return bytes.status();
    if (absl::Status s = upload_fields.Finish(); !s.ok()) return s;
    u.uri = std::move(*uri);
    u.upload_id = std::move(*id);
    u.initiated_unix_micros = *initiated;
    u.bytes = *bytes;
    planned.uploads.push_back(std::move(u));
  }
  if (absl::Status s = ValidatePlannedUploads(planned); !s.ok()) return damaged(std::string(s.message()));
  return planned;
}

}  // namespace lake::gc
