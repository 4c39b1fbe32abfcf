// The byte string a row sorts by under ORDER BY: the keys' values encoded
// so that comparing two strings bytewise (memcmp, then the shorter first)
// orders the rows as the keys do. A sort of such strings (spill/ sorts
// bytes) then needs no comparator that knows types.
//
// Encoding, key by key, concatenated:
//   a value     0x01, then the value:
//                 int64, timestamp  8 bytes big-endian with the sign bit
//                                   flipped (so negatives come first)
//                 float64           8 bytes big-endian of the IEEE bits,
//                                   all inverted when negative, else the
//                                   sign bit flipped; -0.0 is encoded as
//                                   0.0 and every NaN as one NaN, which
//                                   sorts above +infinity
//                 bool              0x00 false, 0x01 true
//                 utf8, binary      the bytes with each 0x00 written 0x00
//                                   0xFF, then 0x00 0x00 (so a prefix
//                                   sorts first, and no key is a prefix of
//                                   another)
//   a null      0x02: above every value, as PostgreSQL orders nulls (last
//               in ASC, first in DESC)
//   DESC        the key's bytes inverted (each b becomes 0xFF - b)
// Every key's encoding is prefix-free, so the concatenation compares key by
// key. FILE columns have no order and are never keys (BindSelect).
#ifndef LAKE_ENGINE_SQL_SORT_KEY_H_
#define LAKE_ENGINE_SQL_SORT_KEY_H_

#include <cstddef>
#include <string>

#include "absl/types/span.h"
#include "engine/sql/sql_binding.h"
#include "engine/table/column_batch.h"

namespace lake::sql {

// Appends the sort key of row `row` of `batch` to `out`. Preconditions:
// row < batch.num_rows; each key's column is decoded and of the key's
// type, never FILE.
void AppendSortKey(const table::ColumnBatch& batch, size_t row, absl::Span<const BoundOrderKey> keys,
                   std::string* out);

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_SORT_KEY_H_
