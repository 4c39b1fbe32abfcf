#include "engine/gc/apply_progress_format.h"

#include "absl/strings/str_cat.h"
#include "base/hex.h"
#include "engine/gc/digested_json.h"
#include "engine/operation_id.h"

namespace lake::gc {

using Json = nlohmann::json;

std::string_view ApplyStateName(ApplyProgress::State state) {
  switch (state) {
    case ApplyProgress::State::kApplying:
      return "applying";
    case ApplyProgress::State::kDone:
      return "done";
    case ApplyProgress::State::kVoided:
      return "voided";
  }
  return "unknown";
}

absl::Status ValidateApplyProgress(const ApplyProgress& p) {
  auto invalid = [](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid apply progress record: ", std::string(why)));
  };
  if (!ParseOperationId(p.plan_id).ok()) return invalid("the plan id is not a canonical UUIDv7");
  bool applying = p.state == ApplyProgress::State::kApplying;
  if (applying != !p.next_page_sha256.empty()) {
    return invalid("only an apply in progress names a next page");
  }
  if (applying && !IsLowerHexSha256(p.next_page_sha256)) {
    return invalid("the next page's sha256 is not 64 lowercase hex");
  }
  if (p.reason.size() > kMaxVoidReasonBytes) return invalid("the reason is too long");
  if (p.objects_deleted + p.table_files_deleted < p.objects_deleted) {
    return invalid("the counts overflow");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeApplyProgress(const ApplyProgress& p) {
  if (absl::Status s = ValidateApplyProgress(p); !s.ok()) return s;
  Json json = {{"format", kApplyProgressFormatVersion},
               {"plan_id", p.plan_id},
               {"seq", p.seq},
               {"state", std::string(ApplyStateName(p.state))},
               {"pages_done", p.pages_done},
               {"next_page_sha256", p.next_page_sha256},
               {"objects_deleted", p.objects_deleted},
               {"bytes_deleted", p.bytes_deleted},
               {"table_files_deleted", p.table_files_deleted},
               {"updated_unix_micros", p.updated_unix_micros},
               {"reason", p.reason}};
  return SealJson(json);
}

absl::StatusOr<ApplyProgress> DecodeApplyProgress(std::string_view text) {
  constexpr std::string_view kWhat = "an apply progress record";
  absl::StatusOr<Json> json = OpenSealedJson(text, kWhat, kMaxApplyProgressBytes);
  if (!json.ok()) return json.status();
  DigestedJsonFields f(*json, kWhat);
  ApplyProgress p;
  absl::StatusOr<uint64_t> format = f.Unsigned("format");
  if (!format.ok()) return format.status();
  if (*format != kApplyProgressFormatVersion) {
    return absl::DataLossError(absl::StrCat("an apply progress record is in format ", *format,
                                            "; this lake reads format ",
                                            kApplyProgressFormatVersion));
  }
  absl::StatusOr<std::string> plan_id = f.String("plan_id", 64);
  absl::StatusOr<uint64_t> seq = f.Unsigned("seq");
  absl::StatusOr<std::string> state = f.String("state", 16);
  absl::StatusOr<uint64_t> pages_done = f.Unsigned("pages_done");
  absl::StatusOr<std::string> next = f.String("next_page_sha256", 64);
  absl::StatusOr<uint64_t> objects = f.Unsigned("objects_deleted");
  absl::StatusOr<uint64_t> bytes = f.Unsigned("bytes_deleted");
  absl::StatusOr<uint64_t> table_files = f.Unsigned("table_files_deleted");
  absl::StatusOr<int64_t> updated = f.Signed("updated_unix_micros");
  absl::StatusOr<std::string> reason = f.String("reason", kMaxVoidReasonBytes);
  for (const absl::Status& s :
       {plan_id.status(), seq.status(), state.status(), pages_done.status(), next.status(),
        objects.status(), bytes.status(), table_files.status(), updated.status(),
        reason.status(), f.Finish()}) {
    if (!s.ok()) return s;
  }
  if (*state == "applying") {
    p.state = ApplyProgress::State::kApplying;
  } else if (*state == "done") {
    p.state = ApplyProgress::State::kDone;
  } else if (*state == "voided") {
    p.state = ApplyProgress::State::kVoided;
  } else {
    return absl::DataLossError("an apply progress record is damaged: unknown state");
  }
  p.plan_id = *plan_id;
  p.seq = *seq;
  p.pages_done = *pages_done;
  p.next_page_sha256 = *next;
  p.objects_deleted = *objects;
  p.bytes_deleted = *bytes;
  p.table_files_deleted = *table_files;
  p.updated_unix_micros = *updated;
  p.reason = *reason;
  if (absl::Status s = ValidateApplyProgress(p); !s.ok()) {
    return absl::DataLossError(
        absl::StrCat("an apply progress record is damaged: ", s.message()));
  }
  return p;
}

}  // namespace lake::gc
