// A stream of records in strictly ascending bytewise order: a run being
// read, a sorted run still in memory, or a merge of them.
#ifndef LAKE_SPILL_RECORD_SOURCE_H_
#define LAKE_SPILL_RECORD_SOURCE_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace lake::spill {

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  // Moves to the next record: true when there is one (record() is it),
  // false at the end. After false or an error, Next must not be called.
  virtual absl::StatusOr<bool> Next() = 0;
  // The current record, valid until the next call of Next.
  virtual std::string_view record() const = 0;
};

}  // namespace lake::spill

#endif  // LAKE_SPILL_RECORD_SOURCE_H_
