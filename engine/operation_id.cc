#include "engine/operation_id.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace lake {
namespace {

// A century of seconds: far beyond any sensible horizon, and small enough
// that no time arithmetic with it can overflow.
constexpr int64_t kMaxRetentionSeconds = int64_t{100} * 366 * 24 * 3600;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool IsHyphenPosition(size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }

absl::Status NotAnOperationId(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("operation id \"", std::string(text),
                                                 "\" is not a canonical UUIDv7: ",
                                                 std::string(why)));
}

}  // namespace

absl::StatusOr<OperationId> ParseOperationId(std::string_view text) {
  if (text.size() != kOperationIdLength) {
    return NotAnOperationId(text.substr(0, 64), "it must be 36 characters");
  }
  uint64_t millis = 0;
  int nibbles = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsHyphenPosition(i)) {
      if (text[i] != '-') return NotAnOperationId(text, "hyphens belong at 8, 13, 18 and 23");
      continue;
    }
    int value = HexValue(text[i]);
    if (value < 0) return NotAnOperationId(text, "digits must be lowercase hex");
    if (nibbles < 12) millis = (millis << 4) | static_cast<uint64_t>(value);
    ++nibbles;
  }
  if (text[14] != '7') return NotAnOperationId(text, "its version nibble is not 7");
  if (HexValue(text[19]) < 8 || HexValue(text[19]) > 11) {
    return NotAnOperationId(text, "its variant bits are not 10");
  }
  return OperationId(std::string(text), millis);
}

absl::Time OperationIdTime(const OperationId& id) {
  return absl::FromUnixMillis(static_cast<int64_t>(id.unix_millis()));
}

absl::StatusOr<absl::Duration> ParseAppendOperationRetention(std::string_view text) {
  auto invalid = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(kAppendOperationRetentionEnv), "=\"", std::string(text.substr(0, 64)),
                     "\" must be a positive whole number of seconds, at most ",
                     kMaxRetentionSeconds));
  };
  if (text.empty() || text.size() > 19) return invalid();
  int64_t seconds = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return invalid();
    seconds = seconds * 10 + (c - '0');  // bounded by the check below: no overflow
    if (seconds > kMaxRetentionSeconds) return invalid();
  }
  if (seconds == 0) return invalid();
  return absl::Seconds(seconds);
}

absl::StatusOr<absl::Duration> AppendOperationRetention() {
  const char* value = std::getenv(std::string(kAppendOperationRetentionEnv).c_str());
  if (value == nullptr) return kDefaultAppendOperationRetention;
  return ParseAppendOperationRetention(value);
}

bool IsOperationExpired(const OperationId& id, absl::Time now, absl::Duration retention) {
  return now - OperationIdTime(id) > retention;
}

}  // namespace lake
