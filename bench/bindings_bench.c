/*
 * bindings_bench — the C anchor of bench/bindings: what each language's
 * binding is compared with, through the same C ABI (lake.h) in-process.
 *
 *   bindings_bench put ROOT FILE                 upload FILE to ROOT's stage;
 *                                                prints its DataLocation JSON
 *   bindings_bench read ROOT LOCATION_FILE BUF   one verified full read of
 *                                                the location in LOCATION_FILE,
 *                                                BUF bytes per lake_reader_read
 *   bindings_bench calls ROOT LOCATION_FILE N    N calls of a cheap function
 *                                                that must reach the library:
 *                                                lake_cancel_token_is_cancelled
 *                                                (a token's state can change,
 *                                                so no binding may cache it)
 *
 * `read` prints "seconds=S bytes=B verified=1" (it fails unless the read
 * reached its verified end with exactly size_bytes); `calls` prints
 * "seconds=S calls=N". Every language lane (bench/bindings_lanes/) takes
 * the same arguments and prints the same fields, timing the same span:
 * from before the reader opens to after it closes, and the loop of calls.
 *
 * C99 plus POSIX; lake.h only.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lake.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const char* what, lake_status status, lake_error* err) {
  fprintf(stderr, "bindings_bench: %s: %s (%s)\n", what,
          err ? lake_error_message(err) : "no detail", lake_status_name(status));
  lake_error_free(err);
  return 1;
}

static lake_db* open_root(const char* root) {
  lake_db* db = NULL;
  lake_error* err = NULL;
  lake_status status = lake_db_open(root, NULL, &db, &err);
  if (status != LAKE_OK) {
    fail("open root", status, err);
    return NULL;
  }
  return db;
}

/* The location whose JSON is the whole of `path`, or NULL. */
static lake_location* read_location(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    perror(path);
    return NULL;
  }
  char text[8192];
  size_t len = fread(text, 1, sizeof text, f);
  fclose(f);
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) --len;
  lake_location* loc = NULL;
  lake_error* err = NULL;
  lake_status status = lake_location_from_json(text, len, &loc, &err);
  if (status != LAKE_OK) {
    fail("location JSON", status, err);
    return NULL;
  }
  return loc;
}

static int put(const char* root, const char* file) {
  lake_db* db = open_root(root);
  if (db == NULL) return 1;
  lake_location* loc = NULL;
  lake_error* err = NULL;
  lake_status status = lake_stage_upload_path(lake_db_stage(db), file, NULL, &loc, &err);
  if (status != LAKE_OK) {
    lake_db_free(db);
    return fail("upload", status, err);
  }
  printf("%s\n", lake_location_json(loc));
  lake_location_free(loc);
  lake_db_free(db);
  return 0;
}

static int read_whole(const char* root, const char* location_file, size_t buf_bytes) {
  lake_db* db = open_root(root);
  lake_location* loc = read_location(location_file);
  char* buf = malloc(buf_bytes);
  if (db == NULL || loc == NULL || buf == NULL || buf_bytes == 0) return 1;
  lake_error* err = NULL;
  lake_reader* reader = NULL;
  uint64_t total = 0;
  double began = now_seconds();
  lake_status status = lake_reader_open(lake_db_stage(db), loc, &reader, &err);
  if (status != LAKE_OK) return fail("open reader", status, err);
  for (;;) {
    size_t n = 0;
    status = lake_reader_read(reader, buf, buf_bytes, &n, &err);
    if (status != LAKE_OK) return fail("read", status, err);
    if (n == 0) break;
    total += n;
  }
  int verified = lake_reader_verified(reader);
  status = lake_reader_close(reader, &err);
  if (status != LAKE_OK) return fail("close reader", status, err);
  double seconds = now_seconds() - began;
  lake_reader_free(reader);
  if (!verified || total != lake_location_size_bytes(loc)) {
    fprintf(stderr, "bindings_bench: read %llu bytes, verified=%d\n",
            (unsigned long long)total, verified);
    return 1;
  }
  printf("seconds=%.6f bytes=%llu verified=1\n", seconds, (unsigned long long)total);
  free(buf);
  lake_location_free(loc);
  lake_db_free(db);
  return 0;
}

static int calls(const char* root, const char* location_file, unsigned long long n) {
  (void)root;
  (void)location_file;
  lake_cancel_token* token = lake_cancel_token_new();
  if (token == NULL) return 1;
  volatile int sink = 0;
  double began = now_seconds();
  for (unsigned long long i = 0; i < n; ++i) sink += lake_cancel_token_is_cancelled(token);
  double seconds = now_seconds() - began;
  lake_cancel_token_free(token);
  if (sink != 0) return 1;
  printf("seconds=%.6f calls=%llu\n", seconds, n);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "put") == 0) return put(argv[2], argv[3]);
  if (argc == 5 && strcmp(argv[1], "read") == 0) {
    return read_whole(argv[2], argv[3], strtoull(argv[4], NULL, 10));
  }
  if (argc == 5 && strcmp(argv[1], "calls") == 0) {
    return calls(argv[2], argv[3], strtoull(argv[4], NULL, 10));
  }
  fprintf(stderr,
          "usage: bindings_bench put ROOT FILE | read ROOT LOCATION_FILE BUF |"
          " calls ROOT LOCATION_FILE N\n");
  return 2;
}
