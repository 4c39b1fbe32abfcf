/*
 * lake.h — the whole C ABI of lake, an embedded storage engine for large
 * immutable objects (videos, point clouds, model weights).
 *
 * Conventions (they hold for every function below unless its comment says
 * otherwise):
 *
 *  - Every fallible call returns a lake_status. LAKE_OK (0) is success. On
 *    failure, if `err` is not NULL, *err receives a new lake_error that the
 *    caller releases with lake_error_free(); on success *err is left
 *    untouched. Passing err == NULL is allowed: the status alone is returned.
 *  - Handles are opaque. A handle made by lake_X_new/lake_X_open is released
 *    by the matching lake_X_free. Free functions accept NULL.
 *  - Strings passed in are NUL-terminated UTF-8 and are copied; lake keeps no
 *    pointer to them after the call returns. Strings returned as
 *    `const char*` are owned by the handle they came from and live until that
 *    handle is freed.
 *  - No call blocks forever: long operations take a cancellation token and a
 *    progress callback through their options handle.
 *  - Thread safety is stated per handle type.
 *
 * Versioning: LAKE_ABI_VERSION is the major ABI version this header
 * describes; lake_abi_version() returns the one the loaded library
 * implements. They must be equal. Within one ABI version, functions are only
 * added, never changed or removed; structs declared here are frozen.
 */
#ifndef LAKE_H_
#define LAKE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LAKE_API __attribute__((visibility("default")))
#else
#define LAKE_API
#endif

#define LAKE_ABI_VERSION 1

/* The ABI major version implemented by the loaded library. */
LAKE_API uint32_t lake_abi_version(void);

/* The library's release version, e.g. "0.1.0". Static storage. */
LAKE_API const char* lake_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                   */
/* ------------------------------------------------------------------------ */

typedef enum lake_status {
  LAKE_OK = 0,
  /* Bad input: malformed location or range, containment refused, invalid
   * option. Nothing was touched. */
  LAKE_INVALID_ARGUMENT = 1,
  /* The object's bytes are not the ones its DataLocation names: short, long,
   * digest mismatch or premature EOF. See lake_error_integrity_kind(). */
  LAKE_INTEGRITY = 2,
  /* A concurrent change won (compare-and-set lost, lock held elsewhere). */
  LAKE_CONFLICT = 3,
  /* Storage or network failure (I/O error, full disk, S3 error). */
  LAKE_IO = 4,
  /* The object, table or namespace does not exist. */
  LAKE_NOT_FOUND = 5,
  /* The caller's cancellation token fired. */
  LAKE_CANCELLED = 6,
  /* A bug in lake or a broken invariant; please report it. */
  LAKE_INTERNAL = 7,
  /* The operation is not supported by this stage or build. */
  LAKE_UNSUPPORTED = 8
} lake_status;

/* A short constant name for a status ("LAKE_INTEGRITY"). Static storage. */
LAKE_API const char* lake_status_name(lake_status status);

/* Why an object failed verification. */
typedef enum lake_integrity_kind {
  LAKE_INTEGRITY_NONE = 0,          /* not an integrity failure */
  LAKE_INTEGRITY_SIZE_SHORT = 1,    /* object ended before size_bytes */
  LAKE_INTEGRITY_SIZE_LONG = 2,     /* object continues past size_bytes */
  LAKE_INTEGRITY_DIGEST_MISMATCH = 3,
  LAKE_INTEGRITY_PREMATURE_EOF = 4, /* a range ended before its end */
  LAKE_INTEGRITY_INVALID_LOCATION = 5, /* the DataLocation itself is invalid */
  /* The stored object changed while it was read: a GET pinned with If-Match
   * to the ETag the read began with was refused (412), or answered with
   * another ETag. Managed objects are immutable, so someone wrote the key
   * behind lake's back; no byte of the other object was delivered. */
  LAKE_INTEGRITY_OBJECT_CHANGED = 6
} lake_integrity_kind;

/* "SizeShort", "SizeLong", "DigestMismatch", "PrematureEof",
 * "InvalidLocation", "ObjectChanged", or "None". Static storage. */
LAKE_API const char* lake_integrity_kind_name(lake_integrity_kind kind);

/* An error. Immutable once returned; safe to read from any thread. */
typedef struct lake_error lake_error;

LAKE_API lake_status lake_error_code(const lake_error* err);
/* Human-readable, one line, never contains credentials. Owned by `err`. */
LAKE_API const char* lake_error_message(const lake_error* err);
LAKE_API lake_integrity_kind lake_error_integrity_kind(const lake_error* err);
/* For integrity failures: the expected and observed byte counts (size for
 * SizeShort/SizeLong/DigestMismatch, range length for PrematureEof). Zero
 * otherwise (ObjectChanged included). */
LAKE_API uint64_t lake_error_expected(const lake_error* err);
LAKE_API uint64_t lake_error_observed(const lake_error* err);
/* 1 if repeating the same call may succeed (transient I/O), else 0. Always
 * 0 for an error with a pending operation id. */
LAKE_API int lake_error_retryable(const lake_error* err);
/* The operation id (a UUIDv7, 36 characters) of an append that failed but
 * may still commit: its checkpoint is kept, and lake_db_recover settles it
 * (commits it once, or finds the version it committed). Repeating the
 * INSERT instead could append its rows twice. NULL for every other error
 * (a failed INSERT without one never commits). Owned by `err`. */
LAKE_API const char* lake_error_pending_operation_id(const lake_error* err);
LAKE_API void lake_error_free(lake_error* err);

/* ------------------------------------------------------------------------ */
/* Process-wide settings                                                     */
/* ------------------------------------------------------------------------ */

/* Caps the memory lake uses for in-flight data buffers in this process, over
 * all stages and operations together (default 1 GiB, minimum 4 MiB; an S3
 * upload holds concurrency x part size, 256 MiB by default, and gets fewer
 * parts in flight when the budget is short; a verified full read of a large
 * S3 object holds download streams x range size, 64 MiB by default, gets
 * fewer streams when the budget is short, and takes a single GET when it
 * cannot get two ranges' worth at once). An
 * operation that would exceed it waits for buffers to be released (and still
 * honours its cancellation token). Thread-safe. */
LAKE_API lake_status lake_set_buffer_budget(uint64_t bytes, lake_error** err);

/* ------------------------------------------------------------------------ */
/* Cancellation                                                              */
/* ------------------------------------------------------------------------ */

/* A cancellation token. Thread-safe: any thread may cancel while another
 * runs an operation that watches it. Free it only after every operation
 * using it has returned (a lake_writer's: after it is closed or freed). */
typedef struct lake_cancel_token lake_cancel_token;

LAKE_API lake_cancel_token* lake_cancel_token_new(void);
LAKE_API void lake_cancel_token_cancel(lake_cancel_token* token);
LAKE_API int lake_cancel_token_is_cancelled(const lake_cancel_token* token);
LAKE_API void lake_cancel_token_free(lake_cancel_token* token);

/* Progress: called with the bytes done so far and the total if known (0
 * when unknown), one call at a time, on the operation's thread — except
 * for a lake_writer on an S3 or host-store stage, whose upload runs on a
 * thread of lake's while the caller writes: there it may be called on that
 * thread, concurrently with the caller's lake_writer_write. Must not call
 * back into lake with the same handle. */
typedef void (*lake_progress_fn)(void* ctx, uint64_t done_bytes,
                                 uint64_t total_bytes);

/* ------------------------------------------------------------------------ */
/* DataLocation                                                              */
/* ------------------------------------------------------------------------ */

/* The immutable identity of one complete managed object:
 * {uri, content_type, size_bytes, sha256}. Immutable; thread-safe. */
typedef struct lake_location lake_location;

/* Parses the canonical JSON text form (any key order on input; exactly the
 * four keys). `len` is the text length in bytes. Errors are
 * LAKE_INVALID_ARGUMENT with integrity kind INVALID_LOCATION. */
LAKE_API lake_status lake_location_from_json(const char* json, size_t len,
                                             lake_location** out,
                                             lake_error** err);
/* Builds a location from its fields, with the same validation. */
LAKE_API lake_status lake_location_new(const char* uri,
                                       const char* content_type,
                                       uint64_t size_bytes, const char* sha256,
                                       lake_location** out, lake_error** err);
/* Canonical JSON: fixed key order, no whitespace. Owned by `loc`. */
LAKE_API const char* lake_location_json(const lake_location* loc);
LAKE_API const char* lake_location_uri(const lake_location* loc);
LAKE_API const char* lake_location_content_type(const lake_location* loc);
LAKE_API uint64_t lake_location_size_bytes(const lake_location* loc);
/* 64 lowercase hexadecimal characters. */
LAKE_API const char* lake_location_sha256(const lake_location* loc);
LAKE_API void lake_location_free(lake_location* loc);

/* ------------------------------------------------------------------------ */
/* Host-provided storage (the injection seam)                                */
/* ------------------------------------------------------------------------ */

/* A pull source: fill up to `cap` bytes of `buf`, return the count, 0 at
 * end of stream, or a negative value on failure. (The read lake hands a
 * host store's upload returns 0 for a `cap` of 0 without reading: only a
 * 0 for a positive `cap` is the end.) */
typedef int64_t (*lake_read_fn)(void* ctx, uint8_t* buf, size_t cap);

/* One entry of a listing. Pointers valid only during the callback. */
typedef struct lake_list_entry {
  const char* uri;
  uint64_t size_bytes;
  int64_t modified_unix_micros;
} lake_list_entry;

/* Receives entries; return 0 to continue, non-zero to stop the listing. */
typedef int (*lake_list_fn)(void* ctx, const lake_list_entry* entry);

/* A host may hand lake its own object store as a table of callbacks. lake
 * keeps its policy on top: it hashes every uploaded byte, builds the
 * DataLocation, verifies full reads at EOF, caps ranges and checks
 * containment against `root_uri`. The host only moves bytes.
 *
 * Each callback returns a lake_status; on failure it may write a
 * NUL-terminated message of at most `message_cap` bytes into `message`.
 * Callbacks may be called from any thread that uses the stage, concurrently;
 * a stream is used by one thread at a time. Frozen layout: version 1. */
#define LAKE_HOST_STORE_VERSION 1
typedef struct lake_host_store {
  int version; /* LAKE_HOST_STORE_VERSION */
  void* ctx;
  /* The stage root as a URI ("s3://bucket/prefix" or "file:///abs/dir");
   * every location this store produces or accepts lies beneath it. */
  const char* root_uri;
  /* Store the bytes pulled from `read(read_ctx, …)` until it returns 0, under
   * `uri` (chosen by lake, beneath root_uri). Must not publish a partial
   * object: on any failure, nothing may remain under `uri`. */
  lake_status (*upload)(void* ctx, const char* uri, const char* content_type,
                        lake_read_fn read, void* read_ctx, char* message,
                        size_t message_cap);
  /* Open a stream of the object's bytes starting at `start` (0 for a full
   * read). *stream is passed back to read_stream and close_stream. */
  lake_status (*open_stream)(void* ctx, const char* uri, uint64_t start,
                             void** stream, char* message, size_t message_cap);
  /* Read up to `cap` bytes; *n = 0 means end of object. */
  lake_status (*read_stream)(void* ctx, void* stream, uint8_t* buf,
                             size_t cap, size_t* n, char* message,
                             size_t message_cap);
  void (*close_stream)(void* ctx, void* stream);
  /* Every object whose URI starts with `prefix_uri`, in any order. */
  lake_status (*list)(void* ctx, const char* prefix_uri, lake_list_fn emit,
                      void* emit_ctx, char* message, size_t message_cap);
  /* Remove the object; removing an absent object succeeds. */
  lake_status (*remove)(void* ctx, const char* uri, char* message,
                        size_t message_cap);
  /* Called once when the stage opened with this table is freed (not when
   * lake_stage_open fails: the host keeps ctx then); may be NULL. Each
   * successful lake_stage_open with the table calls it once. */
  void (*destroy)(void* ctx);
} lake_host_store;

/* ------------------------------------------------------------------------ */
/* Stage: where managed objects live                                         */
/* ------------------------------------------------------------------------ */

/* Options to open a stage. Not thread-safe; may be freed after open. */
typedef struct lake_stage_options lake_stage_options;

LAKE_API lake_stage_options* lake_stage_options_new(void);
/* A local stage rooted at `dir` (created if missing). Objects go under
 * dir/objects, unpublished uploads under dir/.staging. */
LAKE_API lake_status lake_stage_options_set_local_root(lake_stage_options* opts,
                                                       const char* dir,
                                                       lake_error** err);
/* Restrict the stage to one tenant: uploads go under, and reads are refused
 * outside, the tenant's child prefix, also where a symlink in the tenant's
 * tree leads out of it (LAKE_INTEGRITY_INVALID_LOCATION). A tenant is a
 * non-empty name of at most 128 bytes of UTF-8 with no '/', control
 * character, or NUL, and not "." or "..". */
LAKE_API lake_status lake_stage_options_set_tenant(lake_stage_options* opts,
                                                   const char* tenant,
                                                   lake_error** err);
/* An S3 stage: `stage_uri` is "s3://BUCKET" or "s3://BUCKET/PREFIX" (the
 * prefix is taken literally, any UTF-8). Region, endpoint and addressing
 * default to AWS_REGION (else AWS_DEFAULT_REGION, else us-east-1),
 * AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL, else
 * https://s3.REGION.amazonaws.com) and virtual-hosted style. Credentials
 * come from the process's AWS default chain, never from options. An https
 * endpoint is verified against AWS_CA_BUNDLE when it is set. */
LAKE_API lake_status lake_stage_options_set_s3(lake_stage_options* opts,
                                               const char* stage_uri,
                                               lake_error** err);
LAKE_API lake_status lake_stage_options_set_s3_endpoint(lake_stage_options* opts,
                                                        const char* url,
                                                        lake_error** err);
LAKE_API lake_status lake_stage_options_set_s3_region(lake_stage_options* opts,
                                                      const char* region,
                                                      lake_error** err);
/* Path-style addressing (http://host/bucket/key), for S3-compatible
 * servers; a dotted bucket name always uses it. */
LAKE_API void lake_stage_options_set_s3_path_style(lake_stage_options* opts,
                                                   int path_style);
/* UploadPart requests in flight per upload: 1..16 (default 4). Memory per
 * upload is at most concurrency x part size. */
LAKE_API lake_status lake_stage_options_set_s3_concurrency(lake_stage_options* opts,
                                                           uint32_t concurrency,
                                                           lake_error** err);
/* Testing and tuning only: the multipart part size (default 64 MiB). The
 * server's own minimum (5 MiB on S3) still applies to every part but the
 * last. */
LAKE_API lake_status lake_stage_options_set_s3_part_size(lake_stage_options* opts,
                                                         uint64_t bytes,
                                                         lake_error** err);
/* Where path-backed uploads to an S3 stage keep their checkpoints, which
 * make a killed upload resumable (see "Resumable uploads" below): an
 * operator-owned local directory, created when first needed; "" for none.
 * A stage opened with lake_stage_open keeps none unless this is set; a
 * root's stage (lake_db_open) keeps them in <root>/checkpoints/uploads
 * unless this names another directory or "". */
LAKE_API lake_status lake_stage_options_set_upload_checkpoint_dir(lake_stage_options* opts,
                                                                  const char* dir,
                                                                  lake_error** err);
/* Verified full reads of large S3 objects: the ranges fetched at once
 * (1..16, default 4; 1 reads every object with a single GET). An object of
 * at least two ranges is read as one HEAD (its size and ETag) and then GETs
 * of consecutive ranges, each pinned with If-Match to that ETag and checked
 * like a range read, `streams` of them in flight; the bytes are delivered
 * and hashed in order, so verification at EOF is unchanged. A range whose
 * connection breaks or stalls is resumed alone. A smaller object, or one
 * whose HEAD disagrees with the DataLocation's size, is read with one GET.
 * Memory: streams x range size, lent by the process buffer budget
 * (lake_set_buffer_budget); when it cannot lend two ranges at once, the
 * read takes the single GET instead of waiting. */
LAKE_API lake_status lake_stage_options_set_s3_download_streams(lake_stage_options* opts,
                                                                uint32_t streams,
                                                                lake_error** err);
/* The length of each range of such a read: 64 KiB .. 1 GiB (default
 * 16 MiB). */
LAKE_API lake_status lake_stage_options_set_s3_download_range_size(lake_stage_options* opts,
                                                                   uint64_t bytes,
                                                                   lake_error** err);
/* Opens the stage a descriptor names (see lake_stage_descriptor). A local
 * descriptor still needs lake_stage_options_set_local_root. */
LAKE_API lake_status lake_stage_options_set_descriptor(lake_stage_options* opts,
                                                       const char* json,
                                                       size_t len,
                                                       lake_error** err);

/* Use a host-provided store instead of a lake backend. The table is copied;
 * `ctx` must stay valid until `destroy` is called. */
LAKE_API lake_status lake_stage_options_set_host_store(
    lake_stage_options* opts, const lake_host_store* store, lake_error** err);
/* The host store's stable identity, chosen by the host: 1..128 bytes of
 * UTF-8 without control characters, the same at every open of the same
 * store (e.g. "warehouse-7"). It makes the store's descriptor
 * {"version":1,"kind":"host","host_id":…}, and a root (lake_db_open) needs
 * it. Given without a host store, the open fails with
 * LAKE_INVALID_ARGUMENT. */
LAKE_API lake_status lake_stage_options_set_host_id(lake_stage_options* opts,
                                                    const char* host_id,
                                                    lake_error** err);
LAKE_API void lake_stage_options_free(lake_stage_options* opts);

/* A stage. Thread-safe: any number of threads may upload and read through
 * one stage at once. Free it after every reader, writer and call using it
 * has finished. */
typedef struct lake_stage lake_stage;

LAKE_API lake_status lake_stage_open(const lake_stage_options* opts,
                                     lake_stage** out, lake_error** err);
LAKE_API void lake_stage_free(lake_stage* stage);

/* The stage's descriptor: its credential-free topology as canonical JSON,
 * {"version":1,"kind":"local"} or {"version":1,"kind":"s3","bucket":…,
 * "prefix":…,"region":…,"endpoint":…,"path_style":…}, or
 * {"version":1,"kind":"host","host_id":…} for a host store given a host id;
 * "" for a host store without one. Owned by the stage. A host descriptor
 * given to lake_stage_options_set_descriptor sets the host id; the store
 * itself still comes from lake_stage_options_set_host_store. */
LAKE_API const char* lake_stage_descriptor(const lake_stage* stage);

/* A GET URL for a contained object, valid for `ttl_seconds` (1..3600),
 * usable with an additional Range header. S3 stages only
 * (LAKE_UNSUPPORTED otherwise, for a location the stage contains; one it
 * does not contain is refused first, as on every stage). The URL is a bearer credential: lake never
 * logs it and never stores it in a DataLocation. *url is freed with
 * lake_string_free. */
LAKE_API lake_status lake_stage_presign(lake_stage* stage,
                                        const lake_location* loc,
                                        uint32_t ttl_seconds, char** url,
                                        lake_error** err);
LAKE_API void lake_string_free(char* text);

/* "io_uring" or "sync" for local stages (LAKE_IO=sync forces the plain
 * pread/pwrite backend), "s3", or "host" for host stores. Owned by the
 * stage. */
LAKE_API const char* lake_stage_io_backend(const lake_stage* stage);

/* Removes leftovers of uploads whose process died before publishing
 * (files named .staging/<uuid>.uploading that no live upload holds).
 * Published objects are never touched. *removed (may be NULL) receives the
 * count. Safe to run while other processes upload to the same stage. */
LAKE_API lake_status lake_stage_clean_staging(lake_stage* stage,
                                              uint64_t* removed,
                                              lake_error** err);

/* Lists every published object in the stage (or tenant). */
LAKE_API lake_status lake_stage_list(lake_stage* stage, lake_list_fn emit,
                                     void* ctx, lake_error** err);

/* Deletes a managed object after the containment check. Deleting an absent
 * object succeeds. A local stage removes the entry beneath the stage (the
 * tenant's directory, with a tenant): a symlink that leads out is refused
 * with LAKE_INTEGRITY_INVALID_LOCATION and removes nothing. The deletion is
 * durable when the call returns. Normally garbage collection does this. */
LAKE_API lake_status lake_stage_delete(lake_stage* stage,
                                       const lake_location* loc,
                                       lake_error** err);

/* ------------------------------------------------------------------------ */
/* A lake root: one directory that records its stage                         */
/* ------------------------------------------------------------------------ */

/* A lake root (the embedded default: ./lake-data in the CLI). Thread-safe. */
typedef struct lake_db lake_db;

/* Opens the root at `dir`, creating it if needed. A new root records its
 * format version (dir/format.json) and the stage `stage_opts` names (an S3 stage via lake_stage_options_set_s3 and
 * friends; NULL or no stage: a local stage in dir/stage). An existing root
 * uses the stage it recorded; stage options given for it must agree with
 * the record (bucket, prefix, and whichever of endpoint, region and path
 * style were set, which may also be set without lake_stage_options_set_s3
 * to check an existing S3 root) or the open fails with
 * LAKE_INVALID_ARGUMENT, as it does for a new root given an endpoint,
 * region or path style without a stage URI. A root whose format version
 * this lake does not know (one written by a newer lake) is refused with
 * LAKE_UNSUPPORTED, naming both versions, before anything else of it is
 * read; a root without a format record (created before lake recorded one)
 * opens as version 1 and is left without one. A tenant in
 * `stage_opts` applies to this handle only. `stage_opts` may be freed after
 * the call.
 *
 * A root's stage may be a host store (lake_stage_options_set_host_store
 * with lake_stage_options_set_host_id; a host store without a host id is
 * refused with LAKE_INVALID_ARGUMENT). The root records the host id, and
 * every later open must give a host store with the same id: another id, or
 * a host store for a root with a local or S3 stage, fails with
 * LAKE_INVALID_ARGUMENT naming both; an open without a host store of a
 * root whose stage is one (the lake CLI's, a follower's) fails with
 * LAKE_INVALID_ARGUMENT saying only the program that supplies the store
 * can open it. The writer's first open writes the owner marker through the
 * store's upload callback at <root_uri>/_lake/owner (outside objects/),
 * and garbage collection reads it back through open_stream, lists the
 * objects through list (their size and modification time) and deletes
 * through remove, one page at a time (see "Garbage collection"). The
 * store's destroy runs when the db is freed, not when the open fails. */
LAKE_API lake_status lake_db_open(const char* dir,
                                  const lake_stage_options* stage_opts,
                                  lake_db** out, lake_error** err);
/* The root's stage, owned by the db (do not free it). Uploads through it
 * are leased: from before an upload stores its first byte until it returns
 * its location (or its failure was cleaned up), garbage collection of the
 * root keeps the object whatever its age, whichever process collects (an
 * INSERT's uploads stay leased until its append checkpoint is published or
 * its commit made them referenced). A lease is recorded durably in
 * <root>/gc/leases/, one file per process; a dead process's leases expire
 * after the append retention horizon (LAKE_APPEND_OPERATION_RETENTION_SECS,
 * default 7 days). Once returned, an object no table or event log
 * references and no pin keeps is protected by the collection's cutoff
 * alone. */
LAKE_API lake_stage* lake_db_stage(lake_db* db);
LAKE_API void lake_db_free(lake_db* db);

/* Pins an existing object of the root's stage: garbage collection keeps it,
 * whatever its age and whether or not anything in lake references it, until
 * it is unpinned (for objects referenced outside lake). The location must
 * lie in the stage (and in this handle's tenant, if it has one) and name a
 * stored object of exactly its size_bytes, checked as an INSERT's existing
 * location is: LAKE_INTEGRITY with LAKE_INTEGRITY_INVALID_LOCATION outside
 * the stage or tenant, LAKE_NOT_FOUND with no object, LAKE_INTEGRITY with
 * LAKE_INTEGRITY_SIZE_SHORT / _SIZE_LONG for another size. The pin is
 * durable when the call returns (<root>/gc/pins/); pinning a pinned object
 * again succeeds. No collection can delete the object between the check and
 * the pin. `loc` stays the caller's. Thread-safe. */
LAKE_API lake_status lake_db_pin(lake_db* db, const lake_location* loc, lake_error** err);
/* Removes the pin of `loc` durably (the object need not exist any more):
 * from then on the object is collected like any other once nothing
 * references it and it is older than the cutoff. LAKE_NOT_FOUND when it is
 * not pinned; LAKE_INTEGRITY (invalid location) outside the stage or
 * tenant. Thread-safe. */
LAKE_API lake_status lake_db_unpin(lake_db* db, const lake_location* loc, lake_error** err);

/* ------------------------------------------------------------------------ */
/* Upload                                                                    */
/* ------------------------------------------------------------------------ */

/* Options for one upload. Not thread-safe; may be freed after the call. */
typedef struct lake_upload_options lake_upload_options;

LAKE_API lake_upload_options* lake_upload_options_new(void);
/* Default "application/octet-stream". Non-empty printable ASCII, at most
 * 255 bytes. */
LAKE_API lake_status lake_upload_options_set_content_type(
    lake_upload_options* opts, const char* content_type, lake_error** err);
/* The token is borrowed: keep it alive until the upload returns (for a
 * lake_writer, until it is closed or freed). */
LAKE_API void lake_upload_options_set_cancel_token(lake_upload_options* opts,
                                                   lake_cancel_token* token);
LAKE_API void lake_upload_options_set_progress(lake_upload_options* opts,
                                               lake_progress_fn fn, void* ctx);
/* One line for a person, about what a resumable upload did: the parts a
 * resume reused and verified, a stale or unreadable checkpoint, a
 * checkpoint not written. Called on the upload's threads, one call at a
 * time; `line` is valid during the call. Must not call back into lake. */
typedef void (*lake_notice_fn)(void* ctx, const char* line);
LAKE_API void lake_upload_options_set_notice(lake_upload_options* opts, lake_notice_fn fn,
                                             void* ctx);
LAKE_API void lake_upload_options_free(lake_upload_options* opts);

/* Uploads the file at `path`. `opts` may be NULL for defaults. On success
 * *out is the new object's location (free with lake_location_free). On any
 * failure or cancellation, no object is published and no staging file is
 * left behind. */
LAKE_API lake_status lake_stage_upload_path(lake_stage* stage, const char* path,
                                            const lake_upload_options* opts,
                                            lake_location** out,
                                            lake_error** err);

/* Uploads the bytes pulled from `read(ctx, …)` until it returns 0. A
 * negative return fails the upload with LAKE_IO. */
LAKE_API lake_status lake_stage_upload_reader(lake_stage* stage,
                                              lake_read_fn read, void* ctx,
                                              const lake_upload_options* opts,
                                              lake_location** out,
                                              lake_error** err);

/* A push-style upload: open, write any number of times, then close to
 * publish. Freeing a writer that was not closed successfully discards the
 * upload. One thread at a time. */
typedef struct lake_writer lake_writer;

LAKE_API lake_status lake_writer_open(lake_stage* stage,
                                      const lake_upload_options* opts,
                                      lake_writer** out, lake_error** err);
LAKE_API lake_status lake_writer_write(lake_writer* writer, const void* buf,
                                       size_t len, lake_error** err);
/* Publishes the object: makes it durable, then visible, and returns its
 * location. Fallible; after a failure nothing is published. */
LAKE_API lake_status lake_writer_close(lake_writer* writer, lake_location** out,
                                       lake_error** err);
LAKE_API void lake_writer_free(lake_writer* writer);

/* ------------------------------------------------------------------------ */
/* Resumable uploads                                                         */
/* ------------------------------------------------------------------------ */

/* A path-backed upload (lake_stage_upload_path) to an S3 stage with a
 * checkpoint directory writes a checkpoint once its multipart upload
 * exists, and publishes it again (fsync, atomic rename, directory sync) as
 * parts complete in order. It records no credentials: the upload's random
 * key and id, the stage, the source file's identity (real path, device,
 * inode, size, modification time), the part size, the window of parts
 * that may have been sent beyond what it records, and each recorded part's
 * ETag and SHA-256. Only 64 MiB parts are checkpointed (a part size set
 * with lake_stage_options_set_s3_part_size writes none, and says so in a
 * notice); checkpoints of the former 5 MiB parts stay resumable.
 *
 * A later lake_stage_upload_path of the same unchanged file resumes it:
 * it locks the checkpoint (one locked by a live process is left alone: the
 * upload goes on its own), reconciles with S3's part list, rereads and
 * verifies the recorded parts against their SHA-256s, sends the rest, and
 * returns the DataLocation a fresh upload would have. A changed file
 * starts afresh (the stale checkpoint is reported in a notice). Success,
 * cancellation and the part-count limit abort what is unfinished and
 * remove the checkpoint; other failures keep it. While it exists, the
 * checkpoint keeps its key from garbage collection; one untouched for
 * longer than the append retention horizon is stale, and `lake gc apply`
 * aborts its upload and removes it. */

/* One checkpoint, as lake_db_uploads_list reports it. Pointers are valid
 * during the callback only. `error` is NULL, or why the checkpoint cannot
 * be read (the other fields are then zero or empty, but `id`). */
typedef struct lake_upload_info {
  const char* id;            /* what resume and abort take */
  const char* source_path;
  const char* uri;           /* the object it will publish */
  uint64_t parts_done;
  uint64_t bytes_done;
  uint64_t size_bytes;       /* the source's */
  uint64_t part_bytes;
  int64_t updated_unix_micros;
  int stale;                 /* expired: gc apply removes it */
  int locked;                /* an upload in progress holds it now */
  const char* error;
} lake_upload_info;
/* Return 0 to continue, non-zero to stop. */
typedef int (*lake_upload_info_fn)(void* ctx, const lake_upload_info* info);

/* The checkpoints of the root's stage, in id order. None (LAKE_OK) for a
 * stage without checkpoints. */
LAKE_API lake_status lake_db_uploads_list(lake_db* db, lake_upload_info_fn emit, void* ctx,
                                          lake_error** err);
/* Resumes upload `id` from its source file, with `opts`' progress,
 * cancellation and notices (its content type is the checkpoint's).
 * LAKE_NOT_FOUND without such a checkpoint, or when its multipart upload
 * is gone from S3 and no completed object settles it (abort it, then put
 * afresh); LAKE_CONFLICT when another process holds it or the source
 * changed since (the checkpoint is kept); LAKE_INTEGRITY when it is
 * damaged or S3 disagrees with it. */
LAKE_API lake_status lake_db_uploads_resume(lake_db* db, const char* id,
                                            const lake_upload_options* opts,
                                            lake_location** out, lake_error** err);
/* Aborts upload `id` on S3 and removes its checkpoint (also a damaged
 * one). LAKE_CONFLICT when another process holds it. */
LAKE_API lake_status lake_db_uploads_abort(lake_db* db, const char* id, lake_error** err);

/* ------------------------------------------------------------------------ */
/* Verified and range readers                                                */
/* ------------------------------------------------------------------------ */

/* A reader. One thread at a time. */
typedef struct lake_reader lake_reader;

/* Opens a verified full read. The location is validated (SHA-256 must be 64
 * hex characters; containment) before storage is touched. Reads deliver the
 * object's bytes; the read that reaches the end returns *n = 0 only when the
 * object is exactly size_bytes long and its SHA-256 matches, and otherwise
 * fails with LAKE_INTEGRITY and the kind. Stopping early claims nothing. */
LAKE_API lake_status lake_reader_open(lake_stage* stage,
                                      const lake_location* loc,
                                      lake_reader** out, lake_error** err);

/* Opens the half-open byte range [start, end) of the object. Empty,
 * reversed or out-of-bounds ranges (end > size_bytes) are refused with
 * LAKE_INVALID_ARGUMENT before the object is opened. The reader yields
 * exactly end - start bytes or fails with LAKE_INTEGRITY / PREMATURE_EOF.
 * A range read does not verify the object's SHA-256. */
LAKE_API lake_status lake_reader_open_range(lake_stage* stage,
                                            const lake_location* loc,
                                            uint64_t start, uint64_t end,
                                            lake_reader** out,
                                            lake_error** err);

/* Reads up to `cap` bytes into `buf`; *n receives the count. *n == 0 with
 * LAKE_OK means the end, verified (full read) or complete (range). After a
 * failure every further read returns the same failure. A `cap` of 0 is
 * LAKE_INVALID_ARGUMENT, which reads nothing and is not such a failure. */
LAKE_API lake_status lake_reader_read(lake_reader* reader, void* buf,
                                      size_t cap, size_t* n, lake_error** err);

/* lake_reader_read without the copy: *data points at up to `max_len`
 * bytes (*n of them) in the reader's own memory. They stay valid until the
 * next call on this reader (any read, close or free). Verification, caps
 * and errors are exactly those of lake_reader_read: *n == 0 with LAKE_OK
 * is the (verified) end. */
LAKE_API lake_status lake_reader_read_view(lake_reader* reader,
                                           const void** data, size_t max_len,
                                           size_t* n, lake_error** err);

/* 1 once a full reader has reached its verified end; 0 before, after a
 * failure, and always for range readers. */
LAKE_API int lake_reader_verified(const lake_reader* reader);

/* Releases the underlying storage stream and reports a failure to do so.
 * Closing early is allowed and claims nothing. */
LAKE_API lake_status lake_reader_close(lake_reader* reader, lake_error** err);
/* Frees the handle (closing it first if needed, ignoring errors). */
LAKE_API void lake_reader_free(lake_reader* reader);

/* ------------------------------------------------------------------------ */
/* Batched range reads                                                       */
/* ------------------------------------------------------------------------ */

/* One range of a batch. Frozen layout. The caller fills the inputs; lake
 * fills the outputs. */
typedef struct lake_range {
  /* in */
  const lake_location* location;
  uint64_t start;  /* half-open [start, end) */
  uint64_t end;
  void* buffer;    /* at least end - start bytes */
  /* out */
  lake_status status;  /* LAKE_OK when exactly end - start bytes were read */
  uint64_t bytes_read;
  lake_error* error;   /* non-NULL on failure; the caller frees it */
} lake_range;

/* Reads many ranges, across one or several locations, submitted together.
 * Every range is validated before any is read; an invalid range fails alone
 * (its status says why) and the others proceed. Returns LAKE_OK when every
 * range succeeded, otherwise the status of the first failed range; the
 * per-range statuses are filled either way. Does not verify SHA-256. */
LAKE_API lake_status lake_stage_read_ranges(lake_stage* stage,
                                            lake_range* ranges, size_t count,
                                            lake_error** err);


/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

/* Query results cross the ABI as the Arrow C stream interface: the structs
 * below are Arrow's C data interface, declared from its public
 * specification under its own guard macros, so a host that includes
 * another declaration of them (nanoarrow, Arrow C++, DuckDB) compiles.
 * Ownership (the specification's release rules): whoever receives a struct
 * owns it and calls its `release` exactly once; a released struct has
 * `release` == NULL. Releasing a parent releases the children it still
 * holds; a consumer may move a child out and release it later. A stream's
 * get_schema/get_next results live independently of the stream. */
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

/* Tables are append-only and versioned; each lives in a lake root (a
 * lake_db). Column types, as the schema DSL writes them: utf8, int64,
 * float64, bool, binary, timestamp (UTC microseconds), file (a DataLocation
 * of the root's stage). Every column may hold nulls.
 *
 * Any number of lake_db handles, in any processes, may write a root's
 * tables at once. Uploads and reads need no lock; commits go one at a time:
 * a table write holds the root's commit lock (<root>/commit.lock) only
 * around its commit, and a write that finds it held waits for it, at most
 * the busy timeout (lake_db_set_busy_timeout), then fails with
 * LAKE_CONFLICT. Concurrent INSERTs into one table never conflict: each
 * appends on the version current when it commits. (The first writer owns
 * the root's registry and the others forward their commits to it over
 * <root>/writer.sock; when it closes or dies, another takes over.) A
 * writer's reads see every commit made before them. A root opened with
 * lake_db_open_follower reads tables from a view at most
 * `max_staleness_ms` old. */

/* Opens the root at `dir` (which must exist and have a stage) to read its
 * tables as a follower of its writers: before each read its view
 * catches up when older than max_staleness_ms (0: 1000). Writes through it
 * fail with LAKE_INVALID_ARGUMENT. A root of an unknown format version is
 * LAKE_UNSUPPORTED, as for lake_db_open. Free with lake_db_free. */
LAKE_API lake_status lake_db_open_follower(const char* dir, uint32_t max_staleness_ms,
                                           lake_db** out, lake_error** err);
/* A follower's view age in microseconds (0 for the writer); -1 if no table
 * call has opened the registry yet. */
LAKE_API int64_t lake_db_view_age_micros(lake_db* db);
/* How long a table write of this db (an INSERT's commit, a table creation,
 * compaction, drop, tag, untag or expiry, recovery) waits for another
 * writer's commit to finish before failing with LAKE_CONFLICT ("the root
 * is busy ..."), as SQLite's busy timeout. Default 5000 ms; 0 fails at
 * once when another commit is under way. Applies to calls that start
 * after it returns; thread-safe. */
LAKE_API lake_status lake_db_set_busy_timeout(lake_db* db, uint32_t busy_timeout_ms,
                                              lake_error** err);

/* Creates the table "ns.table" with `column_count` columns, each "name:type"
 * (e.g. "video:file"). LAKE_CONFLICT when it exists. */
LAKE_API lake_status lake_table_create(lake_db* db, const char* table,
                                       const char* const* columns, size_t column_count,
                                       lake_error** err);
/* JSON text the caller frees with lake_string_free:
 *   lake_table_list      [{"name":"ns.t","table_id":1,"version":3,
 *                          "columns":[{"name":"c","type":"utf8"},…]},…]
 *   lake_table_describe  one such object, plus "total_rows" and "fragments"
 *                        of the current version, "expired_versions":N and
 *                        "tags":[{"tag":"…","version":N,"created_at":"…Z",
 *                          "exclusive_files":N,"exclusive_bytes":N},…]
 *                        (the table files only that tag keeps alive),
 *                        "log_segments":[{"segment":N,"file_bytes":N,
 *                          "live_bytes":N,"mostly_dead":B},…] (the table
 *                        log's rolled segments, the active one not listed:
 *                        the bytes retained versions still need, and
 *                        whether lake_table_compact_segments rewrites it)
 *   lake_table_versions  [{"version":1,"parent_version":0,"operation_id":…,
 *                          "committed_at":"…Z","reference_delta_sha256":…,
 *                          "tags":["…"],"expired_at":"…Z" (when expired)},…]
 * LAKE_NOT_FOUND for an unknown table. */
LAKE_API lake_status lake_table_list(lake_db* db, char** json_out, lake_error** err);
LAKE_API lake_status lake_table_describe(lake_db* db, const char* table, char** json_out,
                                         lake_error** err);
LAKE_API lake_status lake_table_versions(lake_db* db, const char* table, char** json_out,
                                         lake_error** err);
/* Merges the current version's fragments into one new version (the same
 * rows). *version_out: the new version, or the current one when there was
 * nothing to merge. */
LAKE_API lake_status lake_table_compact(lake_db* db, const char* table, uint64_t* version_out,
                                        lake_error** err);
/* Rewrites the table log's mostly-dead segments: a rolled segment file
 * whose live records (those a retained version still needs) take under
 * half its size. A new version lists the same fragments in the same order
 * with the same rows (deleted rows stay deleted), those with a record in
 * such a segment copied verbatim into the active one, and references
 * nothing new; it copies those records and writes a full manifest, never
 * reading the rows. Once the versions before it expire (lake_table_expire),
 * garbage collection takes those segments. A crash leaves the table at the old version or the new.
 * *json_out (may be NULL; free with lake_string_free):
 *   {"compacted":true,"version":N,"rewritten_segments":[{"segment":N,
 *    "file_bytes":N,"live_bytes":N},…],"copied_fragments":N,
 *    "copied_vectors":N,"copied_bytes":N}
 * or {"compacted":false,"version":N} (N the current version) when no
 * rolled segment is mostly dead or the current version names no record in
 * one. LAKE_NOT_FOUND for an unknown table. */
LAKE_API lake_status lake_table_compact_segments(lake_db* db, const char* table,
                                                 char** json_out, lake_error** err);
/* Drops the table: it leaves every listing and lookup at once and its name
 * is free for a new table. Its files, and the objects only it referenced,
 * become garbage collection's once the plan's cutoff has passed since the
 * drop (not since the objects were written). An INSERT into it that has not
 * committed yet fails with LAKE_NOT_FOUND. LAKE_NOT_FOUND for an unknown
 * table. */
LAKE_API lake_status lake_table_drop(lake_db* db, const char* table, lake_error** err);
/* Tags pin versions: no expiry retires a tagged version. lake_table_tag
 * names `version` of the table `tag` (an identifier, unique per table):
 * LAKE_CONFLICT when the table has that tag already (untag it first),
 * LAKE_NOT_FOUND for a version the table never had or one already expired.
 * lake_table_untag removes a tag: LAKE_NOT_FOUND when absent. */
LAKE_API lake_status lake_table_tag(lake_db* db, const char* table, const char* tag,
                                    uint64_t version, lake_error** err);
LAKE_API lake_status lake_table_untag(lake_db* db, const char* table, const char* tag,
                                      lake_error** err);
/* Retires old versions of the table: those that are none of the newest
 * `keep_last` (0: no such bound) and were committed more than
 * `older_than_seconds` ago (negative: no such bound), never the current
 * version nor a tagged one; at least one bound must be given. A retired
 * version can no longer be read (a scan AS OF it is LAKE_NOT_FOUND); its
 * manifest and the fragments no retained version lists become garbage
 * collection's once the plan's cutoff has passed since the expiry.
 * *json_out (may be NULL; free with lake_string_free):
 *   {"retired":[1,2,…],"current_version":N}   (retired may be empty) */
LAKE_API lake_status lake_table_expire(lake_db* db, const char* table, uint64_t keep_last,
                                       int64_t older_than_seconds, char** json_out,
                                       lake_error** err);

/* A statement of the SQL subset, prepared against a table:
 *   INSERT INTO ns.t (c1, …) VALUES (?, …)[, (?, …)]
 *   INSERT INTO ns.t REPLACE WHERE predicate (c1, …) VALUES (?, …)[, …]
 *   SELECT cols|*|count(*) FROM ns.t [AS OF VERSION n] [WHERE predicate]
 *          [ORDER BY c [ASC|DESC], …] [LIMIT n]
 *   DELETE FROM ns.t [WHERE predicate]
 *   DROP TABLE ns.t
 *   ALTER TABLE ns.t CREATE TAG name AS OF VERSION n
 *   ALTER TABLE ns.t DROP TAG name
 *   ALTER TABLE ns.t EXPIRE VERSIONS [KEEP LAST n]
 *                                    [OLDER THAN n SECONDS|MINUTES|HOURS|DAYS]
 * where a predicate combines c = ?, !=, <>, <, <=, >, >=, c [NOT] IN
 * (?, …) and c IS [NOT] NULL with AND, OR, NOT and parentheses (SQL's
 * three-valued logic; nulls sort last in ASC). Keywords are not reserved;
 * "name" in double quotes is always a column name. count(*) gives one
 * int64 column named count. ORDER BY without a small LIMIT sorts through
 * temporary files under <root>/sort/, removed when the stream ends or is
 * released.
 * A replace-where deletes the rows its predicate matches and appends its
 * VALUES in one new version: readers see both or neither. Its placeholders
 * are numbered in text order, the predicate's first.
 * Values are only ever `?` placeholders, bound by 1-based index. Binding
 * checks the value against its column's type at once. A statement runs any
 * number of times and each binding stays until bound again — except a FILE
 * bound to a reader, which its upload reads to the end: that binding is
 * cleared when a run starts uploading it. Not thread-safe; the db must
 * outlive it. */
typedef struct lake_statement lake_statement;

/* LAKE_INVALID_ARGUMENT (naming the offending token) for SQL outside the
 * subset, unknown columns or a bad placeholder layout; LAKE_NOT_FOUND for
 * an unknown table. Nothing is opened or uploaded. */
LAKE_API lake_status lake_db_prepare(lake_db* db, const char* sql, lake_statement** out,
                                     lake_error** err);
LAKE_API size_t lake_statement_parameter_count(const lake_statement* stmt);
LAKE_API lake_status lake_statement_bind_null(lake_statement* stmt, size_t index,
                                              lake_error** err);
LAKE_API lake_status lake_statement_bind_int64(lake_statement* stmt, size_t index,
                                               int64_t value, lake_error** err);
LAKE_API lake_status lake_statement_bind_float64(lake_statement* stmt, size_t index,
                                                 double value, lake_error** err);
LAKE_API lake_status lake_statement_bind_bool(lake_statement* stmt, size_t index, int value,
                                              lake_error** err);
/* UTF-8 text of `len` bytes (validated). */
LAKE_API lake_status lake_statement_bind_utf8(lake_statement* stmt, size_t index,
                                              const char* text, size_t len, lake_error** err);
LAKE_API lake_status lake_statement_bind_binary(lake_statement* stmt, size_t index,
                                                const void* bytes, size_t len, lake_error** err);
LAKE_API lake_status lake_statement_bind_timestamp_micros(lake_statement* stmt, size_t index,
                                                          int64_t micros, lake_error** err);
/* Text parsed by the column's type, as the CLI's --param: decimal numbers,
 * true/false, ISO-8601 with a zone or integer microseconds, base64 for
 * binary, NULL for null. */
LAKE_API lake_status lake_statement_bind_text(lake_statement* stmt, size_t index,
                                              const char* text, lake_error** err);
/* A FILE value uploaded from `path` when the INSERT runs (content_type NULL:
 * application/octet-stream). */
LAKE_API lake_status lake_statement_bind_file_path(lake_statement* stmt, size_t index,
                                                   const char* path, const char* content_type,
                                                   lake_error** err);
/* A FILE value uploaded from `read` (see lake_read_fn) when the INSERT runs;
 * `read_ctx` must stay valid until then. */
LAKE_API lake_status lake_statement_bind_file_reader(lake_statement* stmt, size_t index,
                                                     lake_read_fn read, void* read_ctx,
                                                     const char* content_type, lake_error** err);
/* An existing object of the root's stage: nothing is uploaded; containment
 * is checked now and the stored size when the INSERT runs. `loc` may be
 * freed after the call. */
LAKE_API lake_status lake_statement_bind_location(lake_statement* stmt, size_t index,
                                                  const lake_location* loc, lake_error** err);
/* Runs an INSERT: every placeholder must be bound. Opens every file and
 * checks every location first, then uploads each FILE (streaming, hashed),
 * then appends the rows in one new version (*version_out), which this db
 * sees at once. On failure the table's version is unchanged and, unless
 * the error has a pending operation id, the rows will never be appended
 * (running the INSERT again appends them once); LAKE_CONFLICT when another
 * writer's commit held the root past the busy timeout (the uploads stay
 * unreferenced). The rows go on the version current when the INSERT
 * commits: another writer's INSERT in between is no conflict. An error with a
 * pending operation id (lake_error_pending_operation_id; LAKE_IO, not
 * retryable) may still commit: settle it with lake_db_recover, not by
 * running the INSERT again. An append interrupted by a crash after its
 * uploads is replayed by lake_db_recover.
 * `opts` (may be NULL) gives the cancellation token and progress callback
 * of the uploads; its content type is not used. A replace-where, DELETE,
 * DROP TABLE or ALTER TABLE runs with lake_statement_execute instead
 * (LAKE_INVALID_ARGUMENT here). */
LAKE_API lake_status lake_statement_insert(lake_statement* stmt, const lake_upload_options* opts,
                                           uint64_t* version_out, lake_error** err);
/* Runs a SELECT: *out receives an Arrow C stream of the result's batches
 * (the caller releases it; it stays valid after the statement is freed,
 * and the db must outlive it). FILE columns are
 * structs {uri, content_type, size_bytes, sha256} with the Arrow extension
 * name "lake.file". The stream's callbacks fail with EBADMSG when stored
 * data is damaged or missing (a fragment fails its checks), EINVAL for an
 * invalid request, ENOMEM, or EIO for any other storage failure. */
LAKE_API lake_status lake_statement_query(lake_statement* stmt, struct ArrowArrayStream* out,
                                          lake_error** err);
/* Runs a DELETE: every placeholder must be bound (a value of the wrong type
 * is LAKE_INVALID_ARGUMENT before anything is read). The rows its WHERE
 * matches — every row without one — are deleted in one new version
 * (*version_out), which this db sees at once; *rows_out (may be NULL) is
 * how many rows it deleted. Rows already deleted are not counted again;
 * when nothing matched no version is committed, *version_out is the
 * current version and *rows_out 0. Older versions still hold the rows (AS
 * OF VERSION). On failure the table's version is unchanged, unless a
 * storage error left the commit's outcome unknown (then the version says
 * whether it happened); running the DELETE again converges either way.
 * LAKE_CONFLICT when another writer's commit held the root past the busy
 * timeout; LAKE_NOT_FOUND when the table was dropped; LAKE_INVALID_ARGUMENT
 * when it changed since the statement was prepared, for an unbound
 * placeholder, and for an INSERT or SELECT.
 * Runs a replace-where too: its WHERE values checked, the table's version
 * read (the base), each FILE uploaded as an INSERT does, then in one new
 * version (*version_out) the matching rows deleted (*rows_out, may be NULL)
 * and the VALUES appended (lake_statement_changes gives both counts). Any
 * commit to the table after the base was read — an INSERT of this db on
 * another thread, another process's — fails it with LAKE_CONFLICT and
 * nothing of it is committed (run it again: it reads the new base). Like a
 * DELETE it leaves no pending operation: after a failure the table's
 * version says whether it committed.
 * Runs DROP TABLE and ALTER TABLE (no placeholders) as lake_table_drop,
 * lake_table_tag, lake_table_untag and lake_table_expire do (at least one
 * of KEEP LAST, at least 1, and OLDER THAN): *version_out is the table's
 * version (the tagged one; for DROP TABLE its last), *rows_out the number
 * of versions EXPIRE VERSIONS retired (0 for the others). Their errors are
 * those functions': LAKE_NOT_FOUND for an unknown table, tag or version,
 * LAKE_CONFLICT for a tag the table has already. */
LAKE_API lake_status lake_statement_execute(lake_statement* stmt, uint64_t* version_out,
                                            uint64_t* rows_out, lake_error** err);
/* The rows the statement's last successful run deleted and inserted (each
 * pointer may be NULL): an INSERT's inserted rows, a DELETE's deleted ones,
 * a replace-where's both; 0 and 0 before a successful run. */
LAKE_API void lake_statement_changes(const lake_statement* stmt, uint64_t* deleted_out,
                                     uint64_t* inserted_out);
LAKE_API void lake_statement_free(lake_statement* stmt);

/* The DataLocation in row `row` of FILE column `column` of a result batch
 * (as given by a stream of lake_statement_query), for the verified and
 * range readers. LAKE_INVALID_ARGUMENT for a column that is no lake.file or
 * a row out of range; LAKE_NOT_FOUND for a null cell. Free with
 * lake_location_free. */
LAKE_API lake_status lake_location_from_arrow(const struct ArrowSchema* schema,
                                              const struct ArrowArray* batch, int64_t column,
                                              int64_t row, lake_location** out,
                                              lake_error** err);

/* Append checkpoints (kept under <root>/checkpoints/): an INSERT persists one
 * after its uploads and before its commit, and removes it once the commit
 * succeeded or failed for certain. lake_db_pending_appends lists those left
 * by a crash or a failure that may still commit, oldest first, each read
 * and judged as lake_db_recover would (nothing changes), as JSON the caller
 * frees with lake_string_free:
 *   [{"operation_id":"…","age_seconds":12.5,"size_bytes":123,
 *     "state":"replayable|already-committed|expired|stuck|failed",
 *     "table":"ns.t","version":3,"reason":"…"},…]
 * ("table" when the checkpoint could be read, "version" for
 * already-committed, "reason" for every state but replayable; "stuck": kept
 * and never replayed — damaged, written for another stage, or its table
 * gone — until it expires or is discarded.)
 * lake_db_recover settles every one, however many are stuck: each converges
 * to the version its operation produced (never a second row or upload), or
 * is rejected (older than LAKE_APPEND_OPERATION_RETENTION_SECS, default 7
 * days, dated by its operation id even when damaged: removed; stuck: kept).
 * It reports
 *   [{"operation_id":"…","table":"ns.t","result":"committed|already-committed|
 *     expired|rejected|failed","version":3,"message":"…"},…]
 * Both give LAKE_INVALID_ARGUMENT when LAKE_APPEND_OPERATION_RETENTION_SECS
 * is set but invalid. */
LAKE_API lake_status lake_db_pending_appends(lake_db* db, char** json_out, lake_error** err);
LAKE_API lake_status lake_db_recover(lake_db* db, char** json_out, lake_error** err);
/* On an operator's word: moves the pending checkpoint of `operation_id`
 * aside to <root>/checkpoints/discarded/<operation_id>.append (durably; its
 * bytes are kept, never deleted by lake), so its append is never replayed.
 * *path_out (may be NULL) receives that path, freed with lake_string_free.
 * LAKE_INVALID_ARGUMENT for an id that is not an operation id or a follower;
 * LAKE_NOT_FOUND when there is no such pending checkpoint; LAKE_CONFLICT
 * when one of that id was discarded before. */
LAKE_API lake_status lake_db_discard_append(lake_db* db, const char* operation_id,
                                            char** path_out, lake_error** err);

/* ------------------------------------------------------------------------ */
/* Garbage collection of a root's stage                                      */
/* ------------------------------------------------------------------------ */

/* A collection covers a whole root: every tenant of its stage and its table
 * directories. It deletes only what nothing keeps alive — no retained table
 * version, event log, pending append checkpoint, lease or pin references it
 * — and only objects older than a cutoff (default 7 days; a `lake put`
 * never inserted nor pinned is protected by the cutoff alone). It works in
 * two steps: lake_gc_plan writes a plan (a verified, content-addressed
 * list of candidates) and deletes nothing; lake_gc_apply deletes exactly a
 * plan's candidates, page by page, and stops — the plan void — as soon as
 * the root changed since the plan (a commit, a new table, an event log
 * recording blobs, a pending append, a pin). A root marks its stage as its
 * own (an owner marker under the stage's "_lake/") when a writer first opens
 * it; plan and apply refuse a stage whose marker is missing or names
 * another root (LAKE_INVALID_ARGUMENT), and a db handle opened with a tenant
 * (LAKE_INVALID_ARGUMENT). One plan or apply runs per root at a time
 * (LAKE_CONFLICT otherwise). Plans live under <root>/gc/plans/; the newest
 * five are kept.
 *
 * Every call here is thread-safe on one db and may run while other threads
 * and processes upload, insert and append: a writer process keeps its lock,
 * and a collection in another process reads the tables as a follower. */

/* Options for plan, apply and verify. Not thread-safe; may be freed after
 * the call that used it. */
typedef struct lake_gc_options lake_gc_options;

/* Called with a phase ("listing", "indexing", "merging", "sealing",
 * "verifying", "deleting"), the work done and the total (0 when unknown),
 * one call at a time, on the calling thread. Must not call back into lake
 * with the same db. */
typedef void (*lake_gc_progress_fn)(void* ctx, const char* phase, uint64_t done,
                                    uint64_t total);

LAKE_API lake_gc_options* lake_gc_options_new(void);
/* Objects modified less than `seconds` before the listing are never
 * planned. Default 604800 (7 days). Under 86400 (24 hours) lake_gc_plan
 * refuses it (LAKE_INVALID_ARGUMENT) unless short cutoffs are allowed. */
LAKE_API void lake_gc_options_set_cutoff_seconds(lake_gc_options* opts, uint64_t seconds);
LAKE_API void lake_gc_options_set_allow_short_cutoff(lake_gc_options* opts, int allow);
/* The memory the collection's sorts may hold (default 64 MiB: half for
 * the listing, half for the live index); what does not fit spills to the
 * temporary directory. The process holds a few MiB besides. Under the
 * least that works (a few MiB; the error names it): LAKE_INVALID_ARGUMENT. */
LAKE_API lake_status lake_gc_options_set_memory_budget(lake_gc_options* opts, uint64_t bytes,
                                                       lake_error** err);
/* Where sorts spill (default <root>/gc/tmp): lake works in a directory of
 * its own in it, DIR/lake-gc-spill, created as needed; what it wrote there
 * goes when the call returns (a crashed run's, with the next run). */
LAKE_API lake_status lake_gc_options_set_temp_dir(lake_gc_options* opts, const char* dir,
                                                  lake_error** err);
LAKE_API void lake_gc_options_set_progress(lake_gc_options* opts, lake_gc_progress_fn fn,
                                           void* ctx);
/* The token is borrowed: keep it alive until the call returns. A cancelled
 * plan publishes nothing; a cancelled apply stops between pages (apply the
 * plan again to go on). */
LAKE_API void lake_gc_options_set_cancel_token(lake_gc_options* opts, lake_cancel_token* token);
/* Apply on an S3 stage: at most this many deletes per second (0, the
 * default: as fast as the server goes). */
LAKE_API void lake_gc_options_set_max_deletes_per_second(lake_gc_options* opts,
                                                         uint64_t per_second);
LAKE_API void lake_gc_options_free(lake_gc_options* opts);

/* Writes a plan and returns its summary as JSON (free with
 * lake_string_free):
 *   {"plan_id":"…","objects":N,"bytes":N,"table_files":N,"table_file_bytes":N,
 *    "pages":N,"cutoff_seconds":N,"created_at":"…Z","listed_objects":N,
 *    "listed_table_files":N,"live_references":N,
 *    "listed_multipart_uploads":N,"multipart_uploads":N,
 *    "multipart_upload_bytes":N,"multipart_uploads_left":N,
 *    "tenants":[{"tenant":"","objects":N,"bytes":N},…]}
 * ("tenant" "" is the stage's own objects). "multipart_uploads" are the
 * orphans of an S3 stage the plan aborts: incomplete multipart uploads
 * under the stage prefix begun more than the cutoff ago whose key no
 * running upload's lease, dead process's unexpired lease, pin or valid
 * upload checkpoint (in the root's checkpoint directory or any other a
 * writer of the root chose) protects; their bytes are their parts' sizes
 * when planned; at most 10,000 per plan ("multipart_uploads_left" wait for
 * the next). Nothing is deleted. Besides the
 * errors above: LAKE_INTEGRITY (naming what) when a reference, event log
 * journal or pending checkpoint cannot be read — a plan is never made from
 * a partial view; LAKE_CONFLICT when the root changed while it was read
 * (plan again). `opts` may be NULL for the defaults. */
LAKE_API lake_status lake_gc_plan(lake_db* db, const lake_gc_options* opts, char** json_out,
                                  lake_error** err);

/* One candidate of a plan. Pointers are valid only during the callback. */
typedef struct lake_gc_candidate {
  const char* uri;     /* s3://… or file://… */
  const char* kind;    /* "object" (of the stage), "table_file", or
                          "multipart_upload" (an orphan the plan aborts:
                          uri is its key's, size its parts' bytes when
                          planned, modified its initiation time) */
  uint64_t size_bytes; /* as listed */
  int64_t modified_unix_micros;
  const char* tenant;  /* an object's tenant, "" for none */
} lake_gc_candidate;

/* Return 0 to go on, non-zero to stop (the call then returns
 * LAKE_CANCELLED). */
typedef int (*lake_gc_candidate_fn)(void* ctx, const lake_gc_candidate* candidate);

/* Streams every candidate of plan `plan_id` in URI order — the whole plan,
 * verified page by page as apply would — then its multipart uploads, and
 * returns its status as JSON (*json_out may be NULL; the format of
 * lake_gc_status's entries, with "multipart_uploads":N).
 * LAKE_NOT_FOUND for no such plan; LAKE_INTEGRITY for a damaged one. */
LAKE_API lake_status lake_gc_show(lake_db* db, const char* plan_id, lake_gc_candidate_fn emit,
                                  void* ctx, char** json_out, lake_error** err);

/* The kept plans (plan_id NULL), oldest first, or one plan, as a JSON array
 * (free with lake_string_free) of
 *   {"plan_id":"…","state":"planned|applying|done|voided","created_at":"…Z",
 *    "cutoff_seconds":N,"objects":N,"bytes":N,"table_files":N,
 *    "table_file_bytes":N,"pages":N,"pages_done":N,"objects_deleted":N,
 *    "bytes_deleted":N,"table_files_deleted":N,"reason":"…"}
 * ("reason": why a voided plan is void). */
LAKE_API lake_status lake_gc_status(lake_db* db, const char* plan_id, char** json_out,
                                    lake_error** err);

/* Deletes plan `plan_id`'s candidates: the whole plan is verified first (a
 * damaged or tampered plan deletes nothing: LAKE_INTEGRITY); then, page by
 * page, the root is checked unchanged (else the plan is void: LAKE_CONFLICT,
 * and nothing more is deleted) and the page deleted durably. After a crash
 * or failure the same call resumes (at most two pages are repeated, the
 * one in flight and the one before it; deleting what is gone succeeds). A finished plan returns at once.
 * Before the first page, the plan's multipart uploads still unprotected
 * are aborted (again on each call until the plan is done; an upload that a
 * resume protects since the plan is kept).
 * *json_out (may be NULL) receives the final status entry (as
 * lake_gc_status) with "multipart_uploads_aborted":N (by this call) and
 * "upload_checkpoints_expired":N: once the plan is applied, every upload
 * checkpoint of an S3 root — in the root's checkpoint directory or any
 * other recorded for it — untouched for longer than the append retention
 * horizon and held by no running upload has its multipart upload aborted
 * and is removed (its key no longer protected).
 * Runs in the process that writes the root too: its inserts wait while a
 * page is deleted. */
LAKE_API lake_status lake_gc_apply(lake_db* db, const char* plan_id, const lake_gc_options* opts,
                                   char** json_out, lake_error** err);

/* One problem lake_gc_verify found. Valid only during the callback. */
typedef struct lake_gc_problem {
  const char* uri;
  /* "missing", "size-short", "size-long", "digest-mismatch", "unreadable" */
  const char* problem;
  uint64_t expected_size;
  uint64_t observed_size;
  const char* message;
  /* What references it: "table ns.t version 3", "event log p/x (blob
   * journal step 2)", "pending append <id>", at most 16 of them; the
   * rest are counted in more_referrers. */
  const char* const* referrers;
  size_t referrer_count;
  uint64_t more_referrers;
} lake_gc_problem;

typedef int (*lake_gc_problem_fn)(void* ctx, const lake_gc_problem* problem);

/* Scrubs the root: every object something references is checked to exist
 * with its size — with `deep`, read whole and verified (size and SHA-256)
 * — and every table file a committed version names to exist; each problem
 * goes to `emit` (may be NULL). Returns LAKE_OK whether or not problems
 * were found; *json_out (may be NULL) receives
 *   {"objects_checked":N,"table_files_checked":N,"bytes_verified":N,
 *    "skipped":N,"problems":N}
 * Changes nothing. */
LAKE_API lake_status lake_gc_verify(lake_db* db, int deep, const lake_gc_options* opts,
                                    lake_gc_problem_fn emit, void* ctx, char** json_out,
                                    lake_error** err);

/* ------------------------------------------------------------------------ */
/* Event logs of data-generation pipelines (EVENT-LOG.md, schema version 2)  */
/* ------------------------------------------------------------------------ */

/* Experiments live under <root>/datagen/<pipeline>/<experiment>/. Names are
 * 1..128 bytes of [A-Za-z0-9._-] not starting with '.'. Create:
 * LAKE_CONFLICT when it exists; delete (the log and its blob references):
 * LAKE_NOT_FOUND when it does not. list (pipeline NULL: every pipeline) and
 * describe give JSON the caller frees with lake_string_free:
 *   [{"pipeline":"p","experiment":"x","created_at":"…Z"},…]
 *   {… one such object …,"shards":2,"items":10,"events":95} */
LAKE_API lake_status lake_experiment_create(lake_db* db, const char* pipeline,
                                            const char* experiment, lake_error** err);
LAKE_API lake_status lake_experiment_delete(lake_db* db, const char* pipeline,
                                            const char* experiment, lake_error** err);
LAKE_API lake_status lake_experiment_list(lake_db* db, const char* pipeline, char** json_out,
                                          lake_error** err);
LAKE_API lake_status lake_experiment_describe(lake_db* db, const char* pipeline,
                                              const char* experiment, char** json_out,
                                              lake_error** err);
/* Merges the shards no live writer holds into one, without changing any
 * fold, tree or lens result; a crash at any step leaves the log as it was
 * or compacted. JSON (lake_string_free):
 *   {"compacted":true,"shard":"…","merged_shards":3,"skipped_shards":1,
 *    "events":1200}
 * LAKE_CONFLICT when the shards conflict (a split brain or a fencing
 * violation across them; nothing is changed) or another compaction runs. */
LAKE_API lake_status lake_experiment_compact(lake_db* db, const char* pipeline,
                                             const char* experiment, char** json_out,
                                             lake_error** err);

/* An experiment's event log. With `writable` the handle also takes a shard
 * of its own (its own files and lock, never the tables' writer lock), so
 * several processes may append to one experiment at once. Reads see every
 * batch acknowledged when the handle was opened or last refreshed, plus the
 * handle's own. Thread-safe; the db must outlive it. LAKE_NOT_FOUND for an
 * unknown experiment; LAKE_INTEGRITY (naming the shard) for a damaged log. */
typedef struct lake_event_log lake_event_log;

LAKE_API lake_status lake_event_log_open(lake_db* db, const char* pipeline,
                                         const char* experiment, int writable,
                                         lake_event_log** out, lake_error** err);
/* Batches other writers acknowledged since the open or the last refresh
 * become visible: only what the shards gained is read (everything again
 * after a compaction replaced shards). */
LAKE_API lake_status lake_event_log_refresh(lake_event_log* log, lake_error** err);
LAKE_API void lake_event_log_free(lake_event_log* log);

/* Raw append of events as JSONL (CLI.md, "Event JSONL"): events sharing a
 * checkpoint_id form one atomic batch; batches are appended in the order of
 * their first event. Events already in the log are absorbed (counted in
 * *duplicates_out), never written twice. LAKE_INVALID_ARGUMENT (naming the
 * line) for a malformed event; LAKE_CONFLICT for a fencing violation, a
 * stale attempt or a split brain — that batch and the ones after it are
 * not appended. A blob_location must name an existing object of the root's
 * stage and the db's tenant, as lake_statement_bind_location's does: every
 * event's is checked before anything is appended, and a refused one
 * appends nothing (LAKE_INVALID_ARGUMENT with integrity kind
 * INVALID_LOCATION outside them; LAKE_NOT_FOUND for no object;
 * LAKE_INTEGRITY, SIZE_SHORT or SIZE_LONG, for another size). Every batch
 * appended is durable when the call returns (the batches are written as
 * one bulk load, synced once at the end). Either count pointer may be NULL;
 * on failure they count what was appended before it. */
LAKE_API lake_status lake_event_log_append_jsonl(lake_event_log* log, const char* jsonl,
                                                 size_t len, uint64_t* appended_out,
                                                 uint64_t* duplicates_out, lake_error** err);

/* A step's provenance. Frozen layout. NULL strings are empty; index < 0 is
 * none; kind is a step kind name ("Root", "Leaf", "Sequence", "Loop",
 * "MapReduce", "Branch", "SubPipeline", "Conditional", "Router") or NULL. */
typedef struct lake_step {
  const char* name;
  int64_t index;
  const char* kind;
  const char* enclosing_step;
  const char* selector_step; /* the Router/Conditional that chose the item */
} lake_step;

typedef enum lake_value_kind {
  LAKE_VALUE_INT = 1,
  LAKE_VALUE_FLOAT = 2,
  LAKE_VALUE_BOOL = 3,
  LAKE_VALUE_STR = 4,  /* UTF-8 in bytes/len */
  LAKE_VALUE_JSON = 5, /* JSON text in bytes/len */
  LAKE_VALUE_BLOB = 6  /* bytes/len */
} lake_value_kind;

/* A field value. Frozen layout. Only the member of `kind` is read; bytes
 * may be NULL only when len is 0 (LAKE_INVALID_ARGUMENT otherwise). */
typedef struct lake_value {
  lake_value_kind kind;
  int64_t i64;
  double f64;
  int boolean;
  const void* bytes;
  size_t len;
} lake_value;

/* A stream writer for one item: it stamps item_seq, attempt, checkpoint_id,
 * event_id, writer_epoch, event_ts and schema_version; the caller passes
 * meaning. Events gather in a checkpoint batch until commit, which appends
 * them atomically; a failed commit keeps the batch so a retry writes the
 * same events. Blobs above 64 KiB are uploaded to the root's stage and the
 * event keeps their location. One thread at a time; the log must outlive
 * it. */
typedef struct lake_event_writer lake_event_writer;

/* A new item: attempt 0, item_seq from 1, its ITEM_CREATED pending.
 * `created_by` (NULL for a root) is the fan-out step that created it. */
LAKE_API lake_status lake_event_writer_open(lake_event_log* log, const char* item_id,
                                            const char* writer_epoch,
                                            const lake_step* created_by,
                                            lake_event_writer** out, lake_error** err);
/* An existing item in a new attempt (the last + 1), item_seq continuing.
 * LAKE_NOT_FOUND for an unknown item; LAKE_INVALID_ARGUMENT for one that
 * completed or was filtered. */
LAKE_API lake_status lake_event_writer_resume(lake_event_log* log, const char* item_id,
                                              const char* writer_epoch,
                                              lake_event_writer** out, lake_error** err);
/* Only driver kinds (not Leaf) start steps. */
LAKE_API lake_status lake_event_writer_step_started(lake_event_writer* w, const lake_step* step,
                                                    lake_error** err);
LAKE_API lake_status lake_event_writer_step_completed(lake_event_writer* w,
                                                      const lake_step* step, lake_error** err);
/* FIELD_SET (last writer wins) and FIELD_APPEND (accumulates); `step` may
 * be NULL. */
LAKE_API lake_status lake_event_writer_field_set(lake_event_writer* w, const char* field,
                                                 const lake_value* value, const lake_step* step,
                                                 lake_error** err);
LAKE_API lake_status lake_event_writer_field_append(lake_event_writer* w, const char* field,
                                                    const lake_value* value,
                                                    const lake_step* step, lake_error** err);
/* TERMINAL: `filtered` 0 → completed, else filtered. */
LAKE_API lake_status lake_event_writer_terminal(lake_event_writer* w, int filtered,
                                                const lake_step* step, lake_error** err);
LAKE_API lake_status lake_event_writer_failed(lake_event_writer* w, const char* error_type,
                                              const char* error_dump, const char* traceback,
                                              const lake_step* step, lake_error** err);
LAKE_API lake_status lake_event_writer_commit(lake_event_writer* w, lake_error** err);
LAKE_API uint32_t lake_event_writer_attempt(const lake_event_writer* w);
LAKE_API void lake_event_writer_free(lake_event_writer* w);

/* An item folded from its events. Immutable; free with
 * lake_folded_item_free. */
typedef struct lake_folded_item lake_folded_item;

/* *out is NULL (and LAKE_OK) when the item has no ITEM_CREATED.
 * LAKE_CONFLICT when its events conflict (fencing, split brain);
 * LAKE_INVALID_ARGUMENT for SET and APPEND on one field, and for an
 * `item_id` that is no item id (EVENT-LOG.md, "Identity"). */
LAKE_API lake_status lake_event_log_fold(lake_event_log* log, const char* item_id,
                                         lake_folded_item** out, lake_error** err);
/* The whole folded item as JSON (fields, steps, open frames, failure…),
 * owned by the item. */
LAKE_API const char* lake_folded_item_json(const lake_folded_item* item);
/* "running", "completed", "filtered" or "failed"; owned by the item. */
LAKE_API const char* lake_folded_item_status(const lake_folded_item* item);
LAKE_API uint32_t lake_folded_item_last_attempt(const lake_folded_item* item);
LAKE_API uint64_t lake_folded_item_next_item_seq(const lake_folded_item* item);
/* The number of values of `field` (1 for a set field, the list's length
 * for an appended one, 0 when absent). */
LAKE_API size_t lake_folded_item_value_count(const lake_folded_item* item, const char* field);
/* Value `index` of `field` into *out; bytes point into the item. For a
 * blob offloaded to the stage, bytes is NULL and len its size: read it
 * with lake_folded_item_open_blob. LAKE_NOT_FOUND when absent. */
LAKE_API lake_status lake_folded_item_value(const lake_folded_item* item, const char* field,
                                            size_t index, lake_value* out, lake_error** err);
/* A verified reader over blob value `index` of `field`, inline or
 * offloaded: the read that reaches the end checks its size and SHA-256. */
LAKE_API lake_status lake_folded_item_open_blob(lake_event_log* log,
                                                const lake_folded_item* item,
                                                const char* field, size_t index,
                                                lake_reader** out, lake_error** err);
LAKE_API void lake_folded_item_free(lake_folded_item* item);

/* Derived reads as JSON (free with lake_string_free):
 *   tree      {"root":NODE|null,"orphans":[NODE…]},
 *             NODE = {"item":{…folded…},"created_by_step":…,"selector_step":…,
 *                     "children":[NODE…]}
 *   roots     {"roots":[{"item_id":…,"status":…}…],"counts":{"running":n,…}}
 *   failures  [{"item_id":…,"item_seq":…,"attempt":…,"step_name":…,
 *               "error_type":…,…}…]
 *   events    the raw events of a root and its descendants, JSONL.
 * tree and events refuse (LAKE_INVALID_ARGUMENT) a `root_item_id` that is
 * no root item id; tree finds no root as LAKE_NOT_FOUND, events as "". */
LAKE_API lake_status lake_event_log_tree(lake_event_log* log, const char* root_item_id,
                                         char** json_out, lake_error** err);
LAKE_API lake_status lake_event_log_roots(lake_event_log* log, char** json_out,
                                          lake_error** err);
LAKE_API lake_status lake_event_log_failures(lake_event_log* log, char** json_out,
                                             lake_error** err);
LAKE_API lake_status lake_event_log_events(lake_event_log* log, const char* root_item_id,
                                           char** jsonl_out, lake_error** err);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* LAKE_H_ */
