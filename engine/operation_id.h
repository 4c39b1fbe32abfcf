// Operation ids: the identity of one append from its checkpoint to its
// commit, so a replay after a crash is recognised as the same operation.
//
// An operation id is an RFC 9562 UUIDv7 in its canonical text form — 36
// lowercase characters, "xxxxxxxx-xxxx-7xxx-[89ab]xxx-xxxxxxxxxxxx" — made
// by NewUuidV7() (engine/managed_key.h). Its first 48 bits are the Unix
// time in milliseconds at which it was made, so ids sort by age as text
// and the age of an operation is known from its id alone.
//
// Operations older than the retention horizon are not replayed: a table
// may have been compacted or its stage cleaned since, so replaying them
// could no longer be recognised as a duplicate.
#ifndef LAKE_ENGINE_OPERATION_ID_H_
#define LAKE_ENGINE_OPERATION_ID_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace lake {

inline constexpr size_t kOperationIdLength = 36;

// How long an unfinished append stays replayable, unless the environment
// variable below says otherwise (a positive whole number of seconds).
inline constexpr absl::Duration kDefaultAppendOperationRetention = absl::Hours(7 * 24);
inline constexpr std::string_view kAppendOperationRetentionEnv =
    "LAKE_APPEND_OPERATION_RETENTION_SECS";

// A valid operation id; made only by ParseOperationId.
class OperationId {
 public:
  const std::string& text() const { return text_; }
  // The 48-bit Unix-millisecond prefix.
  uint64_t unix_millis() const { return unix_millis_; }

  bool operator==(const OperationId& other) const { return text_ == other.text_; }
  // Text order, which is creation order to the millisecond.
  auto operator<=>(const OperationId& other) const { return text_ <=> other.text_; }

 private:
  friend absl::StatusOr<OperationId> ParseOperationId(std::string_view text);
  OperationId(std::string text, uint64_t unix_millis)
      : text_(std::move(text)), unix_millis_(unix_millis) {}

  std::string text_;
  uint64_t unix_millis_ = 0;
};

// Accepts only the canonical text form: 36 characters, hyphens at 8, 13,
// 18 and 23, lowercase hex elsewhere, version nibble 7, variant bits 10.
// Anything else is InvalidArgument naming the text.
absl::StatusOr<OperationId> ParseOperationId(std::string_view text);

// When the operation id was made (its millisecond prefix).
absl::Time OperationIdTime(const OperationId& id);

// The retention horizon from `text`, the value of
// LAKE_APPEND_OPERATION_RETENTION_SECS: 1 or more decimal digits, no sign,
// no spaces, at most 100 years. Anything else (empty, "-5", "0", "7d",
// " 60") is InvalidArgument — never silently the default.
absl::StatusOr<absl::Duration> ParseAppendOperationRetention(std::string_view text);

// The retention horizon of this process: the environment variable when
// set (parsed as above), else kDefaultAppendOperationRetention.
absl::StatusOr<absl::Duration> AppendOperationRetention();

// True when the operation was made more than `retention` before `now`. An
// id from the future (clock skew) is never expired.
bool IsOperationExpired(const OperationId& id, absl::Time now, absl::Duration retention);

}  // namespace lake

#endif  // LAKE_ENGINE_OPERATION_ID_H_
