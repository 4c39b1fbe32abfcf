/* A C99 host of lake: compiled with -std=c99 -Wall -Wextra -Werror -pedantic
 * against include/lake.h alone, linked against liblake.so, and run. It
 * walks the main path of the ABI and exits non-zero on any surprise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake.h"

static int failures = 0;

#define EXPECT(cond)                                                   \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                      \
    }                                                                  \
  } while (0)

struct source {
  const unsigned char* data;
  size_t size;
  size_t offset;
};

static int64_t read_source(void* ctx, uint8_t* buf, size_t cap) {
  struct source* s = (struct source*)ctx;
  size_t n = s->size - s->offset < cap ? s->size - s->offset : cap;
  memcpy(buf, s->data + s->offset, n);
  s->offset += n;
  return (int64_t)n;
}

int main(int argc, char** argv) {
  const char* root = argc > 1 ? argv[1] : "./lake-c99-stage";
  lake_stage_options* opts;
  lake_stage* stage = NULL;
  lake_location* loc = NULL;
  lake_location* parsed = NULL;
  lake_reader* reader = NULL;
  lake_error* err = NULL;
  unsigned char* data;
  unsigned char buf[4096];
  size_t n = 0, total = 0, i;
  struct source src;
  lake_range ranges[2];
  const size_t size = 1000003;

  EXPECT(lake_abi_version() == LAKE_ABI_VERSION);

  opts = lake_stage_options_new();
  EXPECT(lake_stage_options_set_local_root(opts, root, &err) == LAKE_OK);
  EXPECT(lake_stage_open(opts, &stage, &err) == LAKE_OK);
  lake_stage_options_free(opts);
  if (stage == NULL) {
    fprintf(stderr, "cannot open the stage: %s\n", lake_error_message(err));
    return 1;
  }

  data = (unsigned char*)malloc(size);
  for (i = 0; i < size; ++i) data[i] = (unsigned char)(i * 31 + 7);
  src.data = data;
  src.size = size;
  src.offset = 0;
  EXPECT(lake_stage_upload_reader(stage, read_source, &src, NULL, &loc, &err) == LAKE_OK);
  EXPECT(lake_location_size_bytes(loc) == size);
  EXPECT(strlen(lake_location_sha256(loc)) == 64);
  EXPECT(strncmp(lake_location_uri(loc), "file:///", 8) == 0);

  /* The JSON text form round-trips. */
  EXPECT(lake_location_from_json(lake_location_json(loc), strlen(lake_location_json(loc)),
                                 &parsed, &err) == LAKE_OK);
  EXPECT(parsed != NULL && strcmp(lake_location_uri(parsed), lake_location_uri(loc)) == 0);

  /* A verified read returns every byte, then a verified end. */
  EXPECT(lake_reader_open(stage, parsed, &reader, &err) == LAKE_OK);
  for (;;) {
    if (lake_reader_read(reader, buf, sizeof buf, &n, &err) != LAKE_OK) {
      fprintf(stderr, "read failed: %s\n", lake_error_message(err));
      ++failures;
      break;
    }
    if (n == 0) break;
    EXPECT(memcmp(buf, data + total, n) == 0);
    total += n;
  }
  EXPECT(total == size);
  EXPECT(lake_reader_verified(reader) == 1);
  EXPECT(lake_reader_close(reader, &err) == LAKE_OK);
  lake_reader_free(reader);

  /* Two ranges in one batch. */
  memset(ranges, 0, sizeof ranges);
  ranges[0].location = loc;
  ranges[0].start = 0;
  ranges[0].end = 100;
  ranges[0].buffer = buf;
  ranges[1].location = loc;
  ranges[1].start = size - 100;
  ranges[1].end = size;
  ranges[1].buffer = buf + 100;
  EXPECT(lake_stage_read_ranges(stage, ranges, 2, &err) == LAKE_OK);
  EXPECT(ranges[0].status == LAKE_OK && ranges[1].status == LAKE_OK);
  EXPECT(memcmp(buf, data, 100) == 0);
  EXPECT(memcmp(buf + 100, data + size - 100, 100) == 0);

  /* A refused range is a typed error. */
  EXPECT(lake_reader_open_range(stage, loc, 10, 5, &reader, &err) == LAKE_INVALID_ARGUMENT);
  EXPECT(err != NULL && lake_error_code(err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);

  lake_location_free(parsed);
  lake_location_free(loc);
  lake_stage_free(stage);
  free(data);
  if (failures == 0) printf("abi_c99_check: ok\n");
  return failures == 0 ? 0 : 1;
}
