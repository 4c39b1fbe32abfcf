// The Arrow C data interface and C stream interface: the three structs by
// which a query result crosses into another library (DuckDB, pyarrow,
// polars, …) without either side linking Arrow.
//
// Declared from the layout the public Arrow specification documents (the
// field order and types are the ABI; nothing here is Arrow's code). The
// guard names are the specification's own, kept exactly, so a program that
// includes another project's copy of these declarations compiles once. The
// block between the first `#ifndef ARROW_C_DATA_INTERFACE` and the last
// `#endif` is C99 and is pasted unchanged into include/lake.h.
//
// Ownership, in short (the specification's release rules):
//   - whoever receives a struct owns it and calls its `release` exactly
//     once; `release` then sets `release` to NULL, and a struct whose
//     `release` is NULL is released (or empty) and must not be used;
//   - releasing a parent releases the children it still holds; a consumer
//     may move a child out (copy the struct, set the original's `release`
//     to NULL) and release it later, after the parent;
//   - a stream's `get_schema`/`get_next` results are owned by the caller
//     and live independently of the stream.
#ifndef LAKE_ENGINE_ARROW_ARROW_C_DATA_H_
#define LAKE_ENGINE_ARROW_ARROW_C_DATA_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

/* ArrowSchema.flags bits. */
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

/* The type of one array (and of its children): a format string ("l" int64,
 * "u" utf8, "+s" struct, …), an optional field name, optional key/value
 * metadata in Arrow's binary encoding, flags, and child types. */
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  void (*release)(struct ArrowSchema*);
  void* private_data;
};

/* The data of one array: `length` logical values starting at `offset`
 * within the buffers, `null_count` of them null (-1: not computed); the
 * buffers a format defines (validity bitmap first), then children. */
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

/* A pull-style source of arrays of one schema. Each callback returns 0 or
 * an errno value; after a non-zero return, get_last_error gives a message
 * (or NULL) valid until the next call on the stream. get_next signals the
 * end by writing a released array (release == NULL). Callbacks are not
 * thread-safe: one caller at a time. */
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  // LAKE_ENGINE_ARROW_ARROW_C_DATA_H_
