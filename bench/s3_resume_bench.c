/*
 * s3_resume_bench — one path upload to an S3 root through the C ABI, for
 * bench/s3-resume (issue 21, deliverable 10: resumable uploads).
 *
 *   s3_resume_bench ROOT STAGE_URI FILE put [--no-checkpoints] [--delete]
 *   s3_resume_bench ROOT STAGE_URI FILE kill-at PERCENT
 *   s3_resume_bench ROOT STAGE_URI FILE resume [--delete]
 *
 * ROOT is a lake root (created on first use, recording STAGE_URI,
 * s3://BUCKET[/PREFIX]); the endpoint and credentials come from the
 * environment, addressing is path-style, parts are lake's 64 MiB default.
 *   put      uploads FILE (checkpointed unless --no-checkpoints)
 *   kill-at  uploads FILE and SIGKILLs itself once PERCENT of it was read
 *            (the checkpoint is then as a crash leaves it)
 *   resume   uploads FILE again: it resumes the killed upload's checkpoint
 * --delete removes the object afterwards. The last line of output is
 * machine-readable:
 *   seconds=… bytes=… reused_bytes=… notices=…
 * where reused_bytes is what a resume reported reusing (its notice).
 *
 * Uses lake.h only (C99 plus POSIX).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <signal.h>
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

static void die_lake(const char* what, lake_status status, lake_error* err) {
  fprintf(stderr, "s3_resume_bench: %s: %s: %s\n", what, lake_status_name(status),
          err ? lake_error_message(err) : "");
  lake_error_free(err);
  exit(1);
}

static double kill_fraction = 2.0;  /* never */
static uint64_t reused_bytes = 0;
static int notices = 0;

static void on_progress(void* ctx, uint64_t done, uint64_t total) {
  (void)ctx;
  if (total > 0 && (double)done >= kill_fraction * (double)total) raise(SIGKILL);
}

/* "resuming upload ID: N parts (X MiB of Y MiB) reused …": X, in bytes. */
static void on_notice(void* ctx, const char* line) {
  (void)ctx;
  ++notices;
  fprintf(stderr, "notice: %s\n", line);
  const char* open = strchr(line, '(');
  if (strncmp(line, "resuming upload ", 16) == 0 && open != NULL) {
    reused_bytes = (uint64_t)(strtod(open + 1, NULL) * 1048576.0 + 0.5);
  }
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: s3_resume_bench ROOT STAGE_URI FILE put|kill-at PERCENT|resume "
                    "[--no-checkpoints] [--delete]\n");
    return 2;
  }
  const char* root = argv[1];
  const char* stage_uri = argv[2];
  const char* file = argv[3];
  const char* mode = argv[4];
  int no_checkpoints = 0, delete_after = 0;
  for (int i = 5; i < argc; ++i) {
    if (strcmp(argv[i], "--no-checkpoints") == 0) no_checkpoints = 1;
    else if (strcmp(argv[i], "--delete") == 0) delete_after = 1;
    else if (strcmp(mode, "kill-at") == 0 && i == 5) kill_fraction = atof(argv[i]) / 100.0;
    else {
      fprintf(stderr, "s3_resume_bench: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  lake_error* err = NULL;
  lake_stage_options* opts = lake_stage_options_new();
  lake_status status = lake_stage_options_set_s3(opts, stage_uri, &err);
  if (status != LAKE_OK) die_lake("stage", status, err);
  lake_stage_options_set_s3_path_style(opts, 1);
  if (no_checkpoints) {
    status = lake_stage_options_set_upload_checkpoint_dir(opts, "", &err);
    if (status != LAKE_OK) die_lake("checkpoint dir", status, err);
  }
  lake_db* db = NULL;
  status = lake_db_open(root, opts, &db, &err);
  lake_stage_options_free(opts);
  if (status != LAKE_OK) die_lake("open", status, err);

  lake_upload_options* upload = lake_upload_options_new();
  lake_upload_options_set_notice(upload, on_notice, NULL);
  if (strcmp(mode, "kill-at") == 0) lake_upload_options_set_progress(upload, on_progress, NULL);
  lake_location* loc = NULL;
  double start = now_seconds();
  status = lake_stage_upload_path(lake_db_stage(db), file, upload, &loc, &err);
  double seconds = now_seconds() - start;
  lake_upload_options_free(upload);
  if (status != LAKE_OK) die_lake("upload", status, err);
  uint64_t bytes = lake_location_size_bytes(loc);
  if (delete_after) {
    status = lake_stage_delete(lake_db_stage(db), loc, &err);
    if (status != LAKE_OK) die_lake("delete", status, err);
  }
  lake_location_free(loc);
  lake_db_free(db);
  printf("seconds=%.3f bytes=%" PRIu64 " reused_bytes=%" PRIu64 " notices=%d\n", seconds, bytes,
         reused_bytes, notices);
  return 0;
}
