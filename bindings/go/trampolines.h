/* The C half of the binding's callbacks: getters of the Go trampolines as
 * lake's function pointer types, the host store table, and calls through
 * function pointers cgo cannot make. Contexts are runtime/cgo.Handle
 * values (integers), never Go pointers. */
#ifndef LAKE_GO_TRAMPOLINES_H_
#define LAKE_GO_TRAMPOLINES_H_
#include <stdint.h>
#include <stdlib.h>
#include "lake.h"

void* lk_ctx(uintptr_t handle);
lake_read_fn lk_read_fn(void);
lake_progress_fn lk_progress_fn(void);
lake_notice_fn lk_notice_fn(void);
lake_list_fn lk_list_fn(void);
lake_upload_info_fn lk_upload_info_fn(void);
lake_gc_progress_fn lk_gc_progress_fn(void);
lake_gc_candidate_fn lk_gc_candidate_fn(void);
lake_gc_problem_fn lk_gc_problem_fn(void);
/* A host store table whose callbacks are the Go trampolines, ctx the
 * handle. Freed by the caller (lake copies it). */
lake_host_store* lk_host_store_new(uintptr_t handle, const char* root_uri);

int64_t lk_call_read(lake_read_fn fn, void* ctx, uint8_t* buf, size_t cap);
int lk_call_list_emit(lake_list_fn fn, void* ctx, const char* uri, uint64_t size,
                      int64_t modified);

int lk_stream_get_schema(struct ArrowArrayStream* s, struct ArrowSchema* out);
int lk_stream_get_next(struct ArrowArrayStream* s, struct ArrowArray* out);
const char* lk_stream_last_error(struct ArrowArrayStream* s);
void lk_stream_release(struct ArrowArrayStream* s);
void lk_schema_release(struct ArrowSchema* s);
void lk_array_release(struct ArrowArray* a);
#endif
