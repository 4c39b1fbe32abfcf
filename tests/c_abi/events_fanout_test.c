/* A two-level fan-out pipeline driven through the C ABI alone (C99):
 *
 *   prompt-N                      (root; step "expand", a MapReduce driver)
 *     prompt-N/expand:K           (children; a Router "route" picks a judge)
 *       prompt-N/expand:K/judge:0 (grandchildren, chosen by "route")
 *
 * Every item sets fields; each child appends a blob (one above the 64 KiB
 * inline threshold, offloaded to the stage); one grandchild fails and is
 * resumed in a second attempt. Then a second handle folds, walks the trees,
 * counts the roots and reads the blobs back verified.
 *
 *   events_fanout_test ROOT_DIR        (an experiment left by a run before
 *                                       is deleted first) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake.h"

static int failures = 0;

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                       \
    }                                                                   \
  } while (0)

#define OK(call)                                                        \
  do {                                                                  \
    lake_error* e_ = NULL;                                              \
    lake_error** ep_ = &e_;                                             \
    (void)ep_;                                                          \
    if ((call) != LAKE_OK) {                                            \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
              e_ ? lake_error_message(e_) : "?");                       \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

enum { kRoots = 3, kChildren = 2 };
#define BIG_BLOB (70 * 1024)

static lake_step Step(const char* name, int64_t index, const char* kind, const char* enclosing,
                      const char* selector) {
  lake_step s;
  s.name = name;
  s.index = index;
  s.kind = kind;
  s.enclosing_step = enclosing;
  s.selector_step = selector;
  return s;
}

static lake_value IntValue(int64_t v) {
  lake_value value;
  memset(&value, 0, sizeof value);
  value.kind = LAKE_VALUE_INT;
  value.i64 = v;
  return value;
}

static lake_value BytesValue(lake_value_kind kind, const void* bytes, size_t len) {
  lake_value value;
  memset(&value, 0, sizeof value);
  value.kind = kind;
  value.bytes = bytes;
  value.len = len;
  return value;
}

static void Fill(char* buf, size_t len, int seed) {
  size_t i;
  for (i = 0; i < len; ++i) buf[i] = (char)('a' + (int)((i * 7 + (size_t)seed) % 26));
}

static void WriteGrandchild(lake_event_log* log, const char* child, int root, int k) {
  char id[128];
  lake_event_writer* w = NULL;
  lake_step created = Step("judge", 0, "Leaf", "route", "route");
  lake_step judge = Step("judge", 0, "Leaf", "route", NULL);
  lake_value score = IntValue(root * 10 + k);
  sprintf(id, "%s/judge:0", child);
  OK(lake_event_writer_open(log, id, "writer-1", &created, &w, ep_));
  OK(lake_event_writer_field_set(w, "score", &score, &judge, ep_));
  if (root == 1 && k == 1) {
    OK(lake_event_writer_failed(w, "Timeout", "judge timed out", "trace", &judge, ep_));
  } else {
    OK(lake_event_writer_step_completed(w, &judge, ep_));
    OK(lake_event_writer_terminal(w, 0, NULL, ep_));
  }
  OK(lake_event_writer_commit(w, ep_));
  lake_event_writer_free(w);
}

static void WritePipeline(lake_event_log* log, char* big) {
  int root, k;
  for (root = 0; root < kRoots; ++root) {
    char root_id[64];
    lake_event_writer* w = NULL;
    lake_step expand = Step("expand", -1, "MapReduce", NULL, NULL);
    lake_value prompt;
    sprintf(root_id, "prompt-%d", root);
    OK(lake_event_writer_open(log, root_id, "writer-1", NULL, &w, ep_));
    prompt = BytesValue(LAKE_VALUE_STR, "a prompt", 8);
    OK(lake_event_writer_field_set(w, "prompt", &prompt, NULL, ep_));
    OK(lake_event_writer_step_started(w, &expand, ep_));
    OK(lake_event_writer_commit(w, ep_));
    for (k = 0; k < kChildren; ++k) {
      char child[96];
      lake_event_writer* cw = NULL;
      lake_step created = Step("expand", k, "MapReduce", NULL, NULL);
      lake_step route = Step("route", -1, "Router", "expand", NULL);
      lake_value blob;
      sprintf(child, "%s/expand:%d", root_id, k);
      OK(lake_event_writer_open(log, child, "writer-1", &created, &cw, ep_));
      OK(lake_event_writer_step_started(cw, &route, ep_));
      if (k == 0) {
        blob = BytesValue(LAKE_VALUE_BLOB, "tiny", 4);
      } else {
        Fill(big, BIG_BLOB, root);
        blob = BytesValue(LAKE_VALUE_BLOB, big, BIG_BLOB);
      }
      OK(lake_event_writer_field_append(cw, "frames", &blob, NULL, ep_));
      OK(lake_event_writer_commit(cw, ep_));
      WriteGrandchild(log, child, root, k);
      OK(lake_event_writer_step_completed(cw, &route, ep_));
      OK(lake_event_writer_terminal(cw, 0, NULL, ep_));
      OK(lake_event_writer_commit(cw, ep_));
      lake_event_writer_free(cw);
    }
    OK(lake_event_writer_step_completed(w, &expand, ep_));
    OK(lake_event_writer_terminal(w, 0, NULL, ep_));
    OK(lake_event_writer_commit(w, ep_));
    lake_event_writer_free(w);
  }
}

static size_t ReadBlob(lake_event_log* log, const lake_folded_item* item, const char* field,
                       char* out, size_t cap, int* verified) {
  lake_reader* reader = NULL;
  size_t total = 0, n = 0;
  OK(lake_folded_item_open_blob(log, item, field, 0, &reader, ep_));
  do {
    OK(lake_reader_read(reader, out + total, cap - total, &n, ep_));
    total += n;
  } while (n != 0 && total < cap);
  *verified = lake_reader_verified(reader);
  lake_reader_free(reader);
  return total;
}

int main(int argc, char** argv) {
  lake_db* db = NULL;
  lake_event_log* log = NULL;
  lake_event_log* reader = NULL;
  lake_folded_item* item = NULL;
  lake_event_writer* w = NULL;
  char* big = malloc(BIG_BLOB);
  char* back = malloc(BIG_BLOB + 16);
  char* json = NULL;
  lake_value v;
  int verified = 0;
  size_t n;
  if (argc != 2 || big == NULL || back == NULL) return 2;

  OK(lake_db_open(argv[1], NULL, &db, ep_));
  {
    lake_error* e = NULL;
    lake_status s = lake_experiment_delete(db, "datagen", "exp-1", &e);
    CHECK(s == LAKE_OK || s == LAKE_NOT_FOUND);
    if (e != NULL) lake_error_free(e);
  }
  OK(lake_experiment_create(db, "datagen", "exp-1", ep_));
  OK(lake_event_log_open(db, "datagen", "exp-1", 1, &log, ep_));
  WritePipeline(log, big);

  /* The failed grandchild resumes in attempt 1 and completes. */
  OK(lake_event_writer_resume(log, "prompt-1/expand:1/judge:0", "writer-2", &w, ep_));
  CHECK(lake_event_writer_attempt(w) == 1);
  /* NULL bytes with a length are refused, not taken for an empty value. */
  v = BytesValue(LAKE_VALUE_STR, NULL, 5);
  {
    lake_error* e = NULL;
    CHECK(lake_event_writer_field_set(w, "note", &v, NULL, &e) == LAKE_INVALID_ARGUMENT);
    if (e != NULL) lake_error_free(e);
  }
  v = IntValue(99);
  OK(lake_event_writer_field_set(w, "score", &v, NULL, ep_));
  OK(lake_event_writer_terminal(w, 0, NULL, ep_));
  OK(lake_event_writer_commit(w, ep_));
  lake_event_writer_free(w);

  /* A second, read-only handle sees everything acknowledged. */
  OK(lake_event_log_open(db, "datagen", "exp-1", 0, &reader, ep_));
  OK(lake_event_log_fold(reader, "prompt-1/expand:1/judge:0", &item, ep_));
  CHECK(item != NULL);
  if (item != NULL) {
    CHECK(strcmp(lake_folded_item_status(item), "completed") == 0);
    CHECK(lake_folded_item_last_attempt(item) == 1);
    CHECK(lake_folded_item_value_count(item, "score") == 1);
    OK(lake_folded_item_value(item, "score", 0, &v, ep_));
    CHECK(v.kind == LAKE_VALUE_INT && v.i64 == 99);
    CHECK(strstr(lake_folded_item_json(item), "\"selector_step\":\"route\"") != NULL);
    lake_folded_item_free(item);
  }
  OK(lake_event_log_fold(reader, "prompt-9", &item, ep_));
  CHECK(item == NULL); /* unknown item: no fold, no error */

  /* Blobs: inline and offloaded, both verified at EOF. */
  OK(lake_event_log_fold(reader, "prompt-2/expand:1", &item, ep_));
  CHECK(item != NULL);
  if (item != NULL) {
    OK(lake_folded_item_value(item, "frames", 0, &v, ep_));
    CHECK(v.kind == LAKE_VALUE_BLOB && v.bytes == NULL && v.len == BIG_BLOB);
    n = ReadBlob(reader, item, "frames", back, BIG_BLOB + 16, &verified);
    Fill(big, BIG_BLOB, 2);
    CHECK(n == BIG_BLOB && memcmp(back, big, BIG_BLOB) == 0 && verified);
    lake_folded_item_free(item);
  }
  OK(lake_event_log_fold(reader, "prompt-0/expand:0", &item, ep_));
  if (item != NULL) {
    n = ReadBlob(reader, item, "frames", back, 16, &verified);
    CHECK(n == 4 && memcmp(back, "tiny", 4) == 0 && verified);
    lake_folded_item_free(item);
  }

  /* The tree of a root: two children, each with its judge. */
  OK(lake_event_log_tree(reader, "prompt-0", &json, ep_));
  CHECK(strstr(json, "\"item_id\":\"prompt-0/expand:0/judge:0\"") != NULL);
  CHECK(strstr(json, "\"item_id\":\"prompt-0/expand:1/judge:0\"") != NULL);
  lake_string_free(json);
  OK(lake_event_log_roots(reader, &json, ep_));
  CHECK(strstr(json, "\"completed\":3") != NULL);
  lake_string_free(json);
  OK(lake_event_log_failures(reader, &json, ep_));
  CHECK(strstr(json, "\"error_type\":\"Timeout\"") != NULL);
  lake_string_free(json);
  OK(lake_event_log_events(reader, "prompt-2", &json, ep_));
  CHECK(strstr(json, "\"event_type\":\"ITEM_CREATED\"") != NULL);
  lake_string_free(json);
  OK(lake_experiment_describe(db, "datagen", "exp-1", &json, ep_));
  CHECK(strstr(json, "\"items\":15") != NULL);
  lake_string_free(json);

  lake_event_log_free(reader);
  lake_event_log_free(log);
  lake_db_free(db);
  free(big);
  free(back);
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("events fan-out through the C ABI: all checks passed\n");
  return 0;
}
