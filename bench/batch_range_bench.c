/*
 * batch_range_bench — IOPS of random 4 KiB reads through the batched C API
 * lake_stage_read_ranges (figure (c) of bench/run).
 *
 *   batch_range_bench STAGE_DIR LOCATION_FILE OBJECT_FILE
 *                     [--ranges N] [--batch N] [--seed S] [--verify N]
 *
 * STAGE_DIR is the local stage of a lake root (<root>/stage), LOCATION_FILE
 * holds the DataLocation JSON printed by `lake put`, OBJECT_FILE is the file
 * that location names (used only to check the bytes lake returned).
 *
 * It draws N (default 100,000) 4 KiB-aligned offsets from a fixed-seed
 * generator, submits them in calls of --batch ranges (default: all in one
 * call), and times only the lake_stage_read_ranges calls with
 * CLOCK_MONOTONIC. Every range's status and byte count are checked, and
 * --verify ranges (default 1,024, drawn at random; 0 means all) are compared
 * with pread() of OBJECT_FILE, so the figure cannot come from a read that
 * did not happen. The last line of output is machine-readable:
 *   iops=… seconds=… ranges=… batch=… calls=… verified=…
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

enum { kRangeBytes = 4096 };

typedef struct options {
  const char* stage_dir;
  const char* location_file;
  const char* object_file;
  size_t ranges;
  size_t batch; /* ranges per lake_stage_read_ranges call */
  uint64_t seed;
  size_t verify; /* sampled ranges checked against pread; 0 = all */
} options;

/* splitmix64: a small, well-distributed generator with a fixed seed, so
 * every run reads the same offsets on every machine. */
static uint64_t next_random(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char* what) {
  fprintf(stderr, "batch_range_bench: %s\n", what);
  exit(1);
}

static void die_lake(const char* what, lake_status status, lake_error* err) {
  fprintf(stderr, "batch_range_bench: %s: %s: %s\n", what,
          lake_status_name(status), err ? lake_error_message(err) : "");
  lake_error_free(err);
  exit(1);
}

static size_t parse_count(const char* text, const char* flag) {
  char* end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (end == text || *end != '\0') {
    fprintf(stderr, "batch_range_bench: %s needs a number, got %s\n", flag, text);
    exit(2);
  }
  return (size_t)value;
}

static options parse_options(int argc, char** argv) {
  options o = {NULL, NULL, NULL, 100000, 0, 20240601u, 1024};
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (arg[0] == '-' && arg[1] == '-' && i + 1 < argc) {
      size_t value = parse_count(argv[++i], arg);
      if (strcmp(arg, "--ranges") == 0) o.ranges = value;
      else if (strcmp(arg, "--batch") == 0) o.batch = value;
      else if (strcmp(arg, "--seed") == 0) o.seed = value;
      else if (strcmp(arg, "--verify") == 0) o.verify = value;
      else die("unknown option");
    } else if (positional == 0) { o.stage_dir = arg; ++positional; }
    else if (positional == 1) { o.location_file = arg; ++positional; }
    else if (positional == 2) { o.object_file = arg; ++positional; }
    else die("too many arguments");
  }
  if (positional != 3) {
    fputs("usage: batch_range_bench STAGE_DIR LOCATION_FILE OBJECT_FILE "
          "[--ranges N] [--batch N] [--seed S] [--verify N]\n", stderr);
    exit(2);
  }
  if (o.ranges == 0) die("--ranges must be positive");
  if (o.batch == 0 || o.batch > o.ranges) o.batch = o.ranges;
  return o;
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

static lake_stage* open_stage(const char* dir) {
  lake_stage_options* opts = lake_stage_options_new();
  lake_stage* stage = NULL;
  lake_error* err = NULL;
  lake_status status = lake_stage_options_set_local_root(opts, dir, &err);
  if (status == LAKE_OK) status = lake_stage_open(opts, &stage, &err);
  lake_stage_options_free(opts);
  if (status != LAKE_OK) die_lake("opening the stage", status, err);
  return stage;
}

/* Fills the ranges with random 4 KiB-aligned offsets inside the object, each
 * with its own buffer. The buffers are touched first so the timed call pays
 * for reads, not for first-touch page faults (fio preallocates its buffers
 * too). */
static lake_range* make_ranges(const options* o, const lake_location* loc,
                               uint8_t** buffers_out) {
  uint64_t pages = lake_location_size_bytes(loc) / kRangeBytes;
  if (pages == 0) die("object smaller than one range");
  lake_range* ranges = calloc(o->ranges, sizeof *ranges);
  uint8_t* buffers = malloc(o->ranges * (size_t)kRangeBytes);
  if (ranges == NULL || buffers == NULL) die("out of memory");
  memset(buffers, 0xA5, o->ranges * (size_t)kRangeBytes);
  uint64_t state = o->seed;
  for (size_t i = 0; i < o->ranges; ++i) {
    uint64_t start = (next_random(&state) % pages) * kRangeBytes;
    ranges[i].location = loc;
    ranges[i].start = start;
    ranges[i].end = start + kRangeBytes;
    ranges[i].buffer = buffers + i * (size_t)kRangeBytes;
  }
  *buffers_out = buffers;
  return ranges;
}

/* Times the lake_stage_read_ranges calls only; returns the seconds. */
static double read_all(lake_stage* stage, lake_range* ranges, const options* o,
                       size_t* calls) {
  double total = 0;
  *calls = 0;
  for (size_t first = 0; first < o->ranges; first += o->batch) {
    size_t count = o->ranges - first < o->batch ? o->ranges - first : o->batch;
    lake_error* err = NULL;
    double t0 = now_seconds();
    lake_status status = lake_stage_read_ranges(stage, ranges + first, count, &err);
    total += now_seconds() - t0;
    ++*calls;
    if (status != LAKE_OK) die_lake("lake_stage_read_ranges", status, err);
  }
  return total;
}

/* Every range must report LAKE_OK and exactly 4 KiB. */
static void check_statuses(const lake_range* ranges, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (ranges[i].status != LAKE_OK || ranges[i].bytes_read != kRangeBytes ||
        ranges[i].error != NULL) {
      fprintf(stderr, "batch_range_bench: range %zu: status %s, %" PRIu64 " bytes\n",
              i, lake_status_name(ranges[i].status), ranges[i].bytes_read);
      exit(1);
    }
  }
}

/* Compares sampled ranges (or all) with pread() of the object file. */
static size_t verify_sample(const lake_range* ranges, const options* o) {
  int fd = open(o->object_file, O_RDONLY);
  if (fd < 0) die("cannot open the object file");
  size_t checks = o->verify == 0 || o->verify > o->ranges ? o->ranges : o->verify;
  uint64_t state = o->seed ^ 0x5EEDu;
  uint8_t expected[kRangeBytes];
  for (size_t k = 0; k < checks; ++k) {
    size_t i = checks == o->ranges ? k : (size_t)(next_random(&state) % o->ranges);
    ssize_t n = pread(fd, expected, kRangeBytes, (off_t)ranges[i].start);
    if (n != kRangeBytes) die("short pread of the object file");
    if (memcmp(expected, ranges[i].buffer, kRangeBytes) != 0) {
      fprintf(stderr, "batch_range_bench: range %zu at %" PRIu64
              " differs from the file\n", i, ranges[i].start);
      exit(1);
    }
  }
  close(fd);
  return checks;
}

int main(int argc, char** argv) {
  if (lake_abi_version() != LAKE_ABI_VERSION) die("liblake ABI mismatch");
  options o = parse_options(argc, argv);
  lake_location* loc = load_location(o.location_file);
  lake_stage* stage = open_stage(o.stage_dir);
  uint8_t* buffers = NULL;
  lake_range* ranges = make_ranges(&o, loc, &buffers);

  size_t calls = 0;
  double seconds = read_all(stage, ranges, &o, &calls);
  check_statuses(ranges, o.ranges);
  size_t verified = verify_sample(ranges, &o);

  printf("backend=%s\n", lake_stage_io_backend(stage));
  printf("iops=%.0f seconds=%.6f ranges=%zu batch=%zu calls=%zu verified=%zu\n",
         (double)o.ranges / seconds, seconds, o.ranges, o.batch, calls, verified);
  free(ranges);
  free(buffers);
  lake_stage_free(stage);
  lake_location_free(loc);
  return 0;
}
