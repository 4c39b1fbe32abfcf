// From an Arrow cell back to a DataLocation: how a consumer of a query
// result (lake's own stream or any Arrow batch carrying lake.file columns)
// gets the handle that the verified and range readers take.
#ifndef LAKE_ENGINE_ARROW_ARROW_LOCATION_H_
#define LAKE_ENGINE_ARROW_ARROW_LOCATION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "engine/arrow/arrow_c_data.h"
#include "engine/data_location.h"

namespace lake::arrow {

// The DataLocation in row `row` of column `column` of `batch`, a struct
// array of `schema` (a record batch, as ArrowArrayStream.get_next yields).
// Reads only; takes no ownership. Offsets are honoured at every level
// (the batch's, the column's and each child's), so a sliced batch works.
//
// Errors:
//   InvalidArgument  a released schema or array; `schema` is not a struct
//                    or its child count differs from the array's; `column`
//                    or `row` out of range; the column is not a lake.file
//                    struct (by its ARROW:extension:name) or lacks one of
//                    uri "u", content_type "u", size_bytes "l", sha256 "u";
//                    a child shorter than the struct, missing a buffer, or
//                    null or negative where the struct is not null;
//                    undecodable field metadata; and whatever
//                    MakeDataLocation refuses (with IntegrityKind
//                    kInvalidLocation).
//   NotFound         the cell is null (the row has no file) — a valid
//                    cell, distinct from a malformed one.
absl::StatusOr<DataLocation> DataLocationFromArrow(const ArrowSchema& schema,
                                                   const ArrowArray& batch, int64_t column,
                                                   int64_t row);

}  // namespace lake::arrow

#endif  // LAKE_ENGINE_ARROW_ARROW_LOCATION_H_
