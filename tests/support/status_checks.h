// doctest checks for absl::Status and absl::StatusOr that print the status.
#ifndef LAKE_TESTS_SUPPORT_STATUS_CHECKS_H_
#define LAKE_TESTS_SUPPORT_STATUS_CHECKS_H_

#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "engine/integrity_error.h"

namespace lake::testing {

inline absl::Status StatusOf(const absl::Status& status) { return status; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// The integrity kind a status carries, if any.
inline std::optional<IntegrityKind> KindOf(const absl::Status& status) {
  std::optional<IntegrityDetail> detail = GetIntegrityDetail(status);
  if (!detail) return std::nullopt;
  return detail->kind;
}

}  // namespace lake::testing

#define LAKE_CHECK_OK(expr)                                       \
  do {                                                            \
    absl::Status lake_status_ = ::lake::testing::StatusOf(expr);  \
    CHECK_MESSAGE(lake_status_.ok(), lake_status_.ToString());    \
  } while (0)

#define LAKE_REQUIRE_OK(expr)                                     \
  do {                                                            \
    absl::Status lake_status_ = ::lake::testing::StatusOf(expr);  \
    REQUIRE_MESSAGE(lake_status_.ok(), lake_status_.ToString());  \
  } while (0)

#endif  // LAKE_TESTS_SUPPORT_STATUS_CHECKS_H_
