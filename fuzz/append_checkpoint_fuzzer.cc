// Fuzzes lake::table::DecodeAppendCheckpoint, the reader of the append
// checkpoints recovery finds on disk, with the operation id and retention
// parsers it relies on.
//
// Properties checked (a violation traps):
//   1. Any input, as checkpoint bytes and as those bytes followed by their
//      own SHA-256 (so the field parser is reached past the outer digest):
//      no crash, leak, ASan or UBSan finding.
//   2. Accepted checkpoints are canonical: encoding the decoded checkpoint
//      gives back the input bytes exactly, every field is within its bound,
//      and the batch digest matches the batch.
//   3. Any input split at NUL bytes into operation id, table name, stage
//      identity and batch: encoding either refuses (InvalidArgument) or
//      produces bytes that decode to the same checkpoint.
//   4. An accepted operation id prints back as itself and its time is its
//      first 12 hex digits; an accepted retention is positive.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/operation_id.h"
#include "engine/sha256.h"
#include "engine/table/append_checkpoint_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::table::AppendCheckpoint;

using lake::fuzz::Check;

void CheckDecode(std::string_view bytes) {
  absl::StatusOr<AppendCheckpoint> decoded = lake::table::DecodeAppendCheckpoint(bytes);
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return;
  }
  Check(decoded->operation_id.size() == lake::kOperationIdLength);
  Check(!decoded->stage_identity.empty() &&
        decoded->stage_identity.size() <= lake::table::kMaxStageIdentityBytes);
  Check(decoded->batch.size() <= lake::table::kMaxCheckpointedBatchBytes);
  Check(decoded->batch_sha256 == lake::Sha256Hex(decoded->batch));
  absl::StatusOr<std::string> again = lake::table::EncodeAppendCheckpoint(*decoded);
  Check(again.ok());
  Check(*again == bytes);
}

void CheckBuilt(std::string_view text) {
  std::vector<std::string> parts(4);
  size_t part = 0;
  for (char c : text) {
    if (c == '\0' && part < 3) {
      ++part;
    } else {
      parts[part].push_back(c);
    }
  }
  AppendCheckpoint c;
  c.operation_id = parts[0];
  c.table_name = parts[1];
  c.table_id = text.size();
  c.base_version = part;
  c.stage_identity = parts[2];
  c.batch = parts[3];
  c.batch_sha256 = lake::Sha256Hex(c.batch);
  absl::StatusOr<std::string> bytes = lake::table::EncodeAppendCheckpoint(c);
  if (!bytes.ok()) {
    Check(absl::IsInvalidArgument(bytes.status()));
    return;
  }
  absl::StatusOr<AppendCheckpoint> back = lake::table::DecodeAppendCheckpoint(*bytes);
  Check(back.ok());
  Check(*back == c);
}

int HexValue(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

void CheckIds(std::string_view text) {
  absl::StatusOr<lake::OperationId> id = lake::ParseOperationId(text);
  if (id.ok()) {
    Check(id->text() == text);
    uint64_t millis = 0;
    for (char c : text.substr(0, 13)) {
      if (c != '-') millis = (millis << 4) | static_cast<uint64_t>(HexValue(c));
    }
    Check(id->unix_millis() == millis);
    Check(lake::OperationIdTime(*id) == absl::FromUnixMillis(static_cast<int64_t>(millis)));
  } else {
    Check(absl::IsInvalidArgument(id.status()));
  }
  absl::StatusOr<absl::Duration> retention = lake::ParseAppendOperationRetention(text);
  Check(retention.ok() ? *retention > absl::ZeroDuration()
                       : absl::IsInvalidArgument(retention.status()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckDecode(input);
  CheckDecode(std::string(input) + lake::Sha256Hex(input));
  CheckBuilt(input);
  CheckIds(input);
  return 0;
}
