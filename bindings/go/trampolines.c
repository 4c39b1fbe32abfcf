#include "trampolines.h"
#include "_cgo_export.h"

void* lk_ctx(uintptr_t handle) { return (void*)handle; }

static int64_t read_tramp(void* ctx, uint8_t* buf, size_t cap) {
  return lakeGoRead(ctx, buf, cap);
}
static void progress_tramp(void* ctx, uint64_t done, uint64_t total) {
  lakeGoProgress(ctx, done, total);
}
static void notice_tramp(void* ctx, const char* line) { lakeGoNotice(ctx, (char*)line); }
static int list_tramp(void* ctx, const lake_list_entry* e) {
  return lakeGoListEntry(ctx, (char*)e->uri, e->size_bytes, e->modified_unix_micros);
}
static int upload_info_tramp(void* ctx, const lake_upload_info* info) {
  return lakeGoUploadInfo(ctx, (lake_upload_info*)info);
}
static void gc_progress_tramp(void* ctx, const char* phase, uint64_t done, uint64_t total) {
  lakeGoGcProgress(ctx, (char*)phase, done, total);
}
static int gc_candidate_tramp(void* ctx, const lake_gc_candidate* c) {
  return lakeGoGcCandidate(ctx, (lake_gc_candidate*)c);
}
static int gc_problem_tramp(void* ctx, const lake_gc_problem* p) {
  return lakeGoGcProblem(ctx, (lake_gc_problem*)p);
}

lake_read_fn lk_read_fn(void) { return read_tramp; }
lake_progress_fn lk_progress_fn(void) { return progress_tramp; }
lake_notice_fn lk_notice_fn(void) { return notice_tramp; }
lake_list_fn lk_list_fn(void) { return list_tramp; }
lake_upload_info_fn lk_upload_info_fn(void) { return upload_info_tramp; }
lake_gc_progress_fn lk_gc_progress_fn(void) { return gc_progress_tramp; }
lake_gc_candidate_fn lk_gc_candidate_fn(void) { return gc_candidate_tramp; }
lake_gc_problem_fn lk_gc_problem_fn(void) { return gc_problem_tramp; }

static lake_status host_upload(void* ctx, const char* uri, const char* content_type,
                               lake_read_fn read, void* read_ctx, char* message,
                               size_t message_cap) {
  return (lake_status)lakeGoHostUpload(ctx, (char*)uri, (char*)content_type, read, read_ctx,
                                       message, message_cap);
}
static lake_status host_open(void* ctx, const char* uri, uint64_t start, void** stream,
                             char* message, size_t message_cap) {
  uintptr_t handle = 0;
  lake_status st = (lake_status)lakeGoHostOpen(ctx, (char*)uri, start, &handle, message,
                                               message_cap);
  *stream = (void*)handle;
  return st;
}
static lake_status host_read(void* ctx, void* stream, uint8_t* buf, size_t cap, size_t* n,
                             char* message, size_t message_cap) {
  return (lake_status)lakeGoHostRead(ctx, (uintptr_t)stream, buf, cap, n, message,
                                     message_cap);
}
static void host_close(void* ctx, void* stream) { lakeGoHostClose(ctx, (uintptr_t)stream); }
static lake_status host_list(void* ctx, const char* prefix, lake_list_fn emit, void* emit_ctx,
                             char* message, size_t message_cap) {
  return (lake_status)lakeGoHostList(ctx, (char*)prefix, emit, emit_ctx, message, message_cap);
}
static lake_status host_remove(void* ctx, const char* uri, char* message, size_t message_cap) {
  return (lake_status)lakeGoHostRemove(ctx, (char*)uri, message, message_cap);
}
static void host_destroy(void* ctx) { lakeGoHostDestroy(ctx); }

lake_host_store* lk_host_store_new(uintptr_t handle, const char* root_uri) {
  lake_host_store* s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->version = LAKE_HOST_STORE_VERSION;
  s->ctx = (void*)handle;
  s->root_uri = root_uri;
  s->upload = host_upload;
  s->open_stream = host_open;
  s->read_stream = host_read;
  s->close_stream = host_close;
  s->list = host_list;
  s->remove = host_remove;
  s->destroy = host_destroy;
  return s;
}

int64_t lk_call_read(lake_read_fn fn, void* ctx, uint8_t* buf, size_t cap) {
  return fn(ctx, buf, cap);
}
int lk_call_list_emit(lake_list_fn fn, void* ctx, const char* uri, uint64_t size,
                      int64_t modified) {
  lake_list_entry e = {uri, size, modified};
  return fn(ctx, &e);
}

int lk_stream_get_schema(struct ArrowArrayStream* s, struct ArrowSchema* out) {
  return s->get_schema(s, out);
}
int lk_stream_get_next(struct ArrowArrayStream* s, struct ArrowArray* out) {
  return s->get_next(s, out);
}
const char* lk_stream_last_error(struct ArrowArrayStream* s) { return s->get_last_error(s); }
void lk_stream_release(struct ArrowArrayStream* s) {
  if (s->release) s->release(s);
}
void lk_schema_release(struct ArrowSchema* s) {
  if (s->release) s->release(s);
}
void lk_array_release(struct ArrowArray* a) {
  if (a->release) a->release(a);
}
