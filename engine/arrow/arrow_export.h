// Query results as Arrow: a ColumnBatch exported through the Arrow C data
// interface, and a sequence of them as an ArrowArrayStream.
//
// A batch is one struct array ("+s", never null) whose children are the
// columns, named after them, every one nullable:
//   utf8 "u", int64 "l", float64 "g", bool "b" (bit-packed), binary "z",
//   timestamp "tsu:UTC" (int64 microseconds since the epoch, UTC),
//   file: the lake.file extension struct (lake_file_type.h).
// Validity bitmaps are bit-packed, least significant bit first; a column
// without nulls has a NULL validity buffer and null_count 0. Offsets are
// int32. Empty data buffers point at a static zero-length region, never
// NULL (some consumers mishandle NULL data buffers). Every offset is 0.
//
// Memory: every exported ArrowSchema and ArrowArray — the root and each
// child — owns its buffers through its own private_data, so a consumer may
// move children out and release them before or after the parent. A
// column's vectors are moved into its array, not copied (bit-packing and
// the file struct's per-child validity are the only copies).
#ifndef LAKE_ENGINE_ARROW_ARROW_EXPORT_H_
#define LAKE_ENGINE_ARROW_ARROW_EXPORT_H_

#include <functional>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/arrow/arrow_c_data.h"
#include "engine/table/column_batch.h"
#include "schema/table_schema.h"

namespace lake::arrow {

// The Arrow format string of a column type ("u", "l", …, "+s" for file).
std::string_view ArrowFormatOf(table::ColumnType type);

// Writes the schema of batches of `schema` into `*out`, which the caller
// then owns (release it once). InvalidArgument for a schema that
// ValidateSchema refuses; `*out` is untouched then.
absl::Status ExportArrowSchema(const table::Schema& schema, ArrowSchema* out);

// Moves `batch` into `*out`, which the caller then owns (release it once).
// The cells' content is its producer's to check (a decoded fragment's, or
// ColumnBatch::Validate's); this checks the shape the buffers are built
// from (ColumnBatch::CheckShape): InvalidArgument, `*out` untouched, when it
// breaks.
absl::Status ExportArrowArray(table::ColumnBatch batch, ArrowArray* out);

// The next batch of a result: a batch, nullopt at the end, or an error.
// Called from the consumer's thread, one call at a time; once it returned
// nullopt or an error it is destroyed (freeing what it holds) and not
// called again.
using BatchSource = std::function<absl::StatusOr<std::optional<table::ColumnBatch>>()>;

// A stream of the batches `source` yields, all of `schema`. The caller owns
// the stream and calls its release once; arrays and schemas it hands out
// live independently of it. Behaviour of the callbacks:
//   get_schema      a fresh ExportArrowSchema(schema); EINVAL for an
//                   invalid schema.
//   get_next        the next batch exported; at the end a released array
//                   (release == NULL), again on every later call. A failing
//                   source returns EINVAL for InvalidArgument and EIO for
//                   any other code; a batch whose schema differs from
//                   `schema` or that breaks the batch invariants returns
//                   EINVAL; out of memory returns ENOMEM. An error is
//                   final: later get_next calls return it again.
//   get_last_error  the message of the last error, NULL when none; valid
//                   until the stream is released.
ArrowArrayStream MakeArrowStream(table::Schema schema, BatchSource source);

}  // namespace lake::arrow

#endif  // LAKE_ENGINE_ARROW_ARROW_EXPORT_H_
