/*
 * s3_download_bench — one verified full read of an S3 object through the C
 * ABI, with a chosen number of parallel range streams and range size (the
 * sweep of bench/s3 that chose the defaults).
 *
 *   s3_download_bench STAGE_URI LOCATION_FILE [--streams N] [--range-kib K]
 *                     [--out FILE]
 *
 * STAGE_URI is s3://BUCKET[/PREFIX]; the endpoint and credentials come from
 * the environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...), addressing is
 * path-style. LOCATION_FILE holds the DataLocation JSON printed by
 * `lake put`. The object is read with lake_reader_read_view to its verified
 * end and, with --out, written to FILE as `lake cat -o` would (otherwise
 * the bytes are only hashed by the reader). Without --streams/--range-kib
 * the stage's defaults apply. The last line of output is machine-readable:
 *   mib_per_s=… seconds=… bytes=… streams=… range_kib=… verified=1
 *
 * Uses lake.h only (C99 plus POSIX).
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lake.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char* what) {
  fprintf(stderr, "s3_download_bench: %s\n", what);
  exit(1);
}

static void die_lake(const char* what, lake_status status, lake_error* err) {
  fprintf(stderr, "s3_download_bench: %s: %s: %s\n", what, lake_status_name(status),
          err ? lake_error_message(err) : "");
  lake_error_free(err);
  exit(1);
}

static uint64_t parse_count(const char* text, const char* flag) {
  char* end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (end == text || *end != '\0') {
    fprintf(stderr, "s3_download_bench: %s needs a number, got %s\n", flag, text);
    exit(2);
  }
  return (uint64_t)value;
}

/* The whole location file (the JSON line `lake put` printed). */
static lake_location* load_location(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) die("cannot open the location file");
  char text[8192];
  size_t len = fread(text, 1, sizeof text, f);
  fclose(f);
  if (len == 0 || len == sizeof text) die("location file empty or too long");
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) --len;
  lake_location* loc = NULL;
  lake_error* err = NULL;
  lake_status status = lake_location_from_json(text, len, &loc, &err);
  if (status != LAKE_OK) die_lake("parsing the location", status, err);
  return loc;
}

static void write_all(int fd, const uint8_t* data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) die("write failed");
    data += n;
    len -= (size_t)n;
  }
}

int main(int argc, char** argv) {
  const char* stage_uri = NULL;
  const char* location_file = NULL;
  const char* out_file = NULL;
  uint64_t streams = 0, range_kib = 0; /* 0: the stage's default */
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (arg[0] == '-' && arg[1] == '-' && i + 1 < argc) {
      const char* value = argv[++i];
      if (strcmp(arg, "--streams") == 0) streams = parse_count(value, arg);
      else if (strcmp(arg, "--range-kib") == 0) range_kib = parse_count(value, arg);
      else if (strcmp(arg, "--out") == 0) out_file = value;
      else die("unknown option");
    } else if (positional == 0) { stage_uri = arg; ++positional; }
    else if (positional == 1) { location_file = arg; ++positional; }
    else die("too many arguments");
  }
  if (positional != 2) {
    fputs("usage: s3_download_bench STAGE_URI LOCATION_FILE [--streams N] "
          "[--range-kib K] [--out FILE]\n", stderr);
    return 2;
  }

  lake_location* loc = load_location(location_file);
  lake_stage_options* opts = lake_stage_options_new();
  lake_error* err = NULL;
  lake_status status = lake_stage_options_set_s3(opts, stage_uri, &err);
  lake_stage_options_set_s3_path_style(opts, 1);
  if (status == LAKE_OK && streams != 0) {
    status = lake_stage_options_set_s3_download_streams(opts, (uint32_t)streams, &err);
  }
  if (status == LAKE_OK && range_kib != 0) {
    status = lake_stage_options_set_s3_download_range_size(opts, range_kib << 10, &err);
  }
  lake_stage* stage = NULL;
  if (status == LAKE_OK) status = lake_stage_open(opts, &stage, &err);
  lake_stage_options_free(opts);
  if (status != LAKE_OK) die_lake("opening the stage", status, err);

  int fd = -1;
  if (out_file != NULL) {
    fd = open(out_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("cannot create the output file");
  }
  double t0 = now_seconds();
  lake_reader* reader = NULL;
  status = lake_reader_open(stage, loc, &reader, &err);
  if (status != LAKE_OK) die_lake("opening the reader", status, err);
  uint64_t total = 0;
  for (;;) {
    const void* data = NULL;
    size_t n = 0;
    status = lake_reader_read_view(reader, &data, (size_t)8 << 20, &n, &err);
    if (status != LAKE_OK) die_lake("reading", status, err);
    if (n == 0) break;
    if (fd >= 0) write_all(fd, data, n);
    total += n;
  }
  int verified = lake_reader_verified(reader);
  lake_reader_free(reader);
  if (fd >= 0 && close(fd) != 0) die("close failed");
  double seconds = now_seconds() - t0;
  if (!verified) die("the read ended unverified");
  printf("mib_per_s=%.1f seconds=%.3f bytes=%" PRIu64 " streams=%" PRIu64
         " range_kib=%" PRIu64 " verified=%d\n",
         (double)total / (1 << 20) / seconds, seconds, total, streams, range_kib, verified);
  lake_stage_free(stage);
  lake_location_free(loc);
  return 0;
}
