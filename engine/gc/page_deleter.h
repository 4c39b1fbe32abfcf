// Deleting the entries of one plan page, durably, each backend its way:
//   local stage  unlinkat of each object's name in its shard directory,
//                opened beneath the stage root (never leaving it), then one
//                fsync per directory touched;
//   S3 stage     DeleteObjects (quiet, Content-MD5) of up to 1,000 keys;
//                keys that fail are retried (attempts in all), then reported;
//                optionally paced to max_deletes_per_second;
//   table files  unlinkat beneath <root>/tables, one fsync per directory.
// An object or file already gone counts as deleted (a repeated page).
#ifndef LAKE_ENGINE_GC_PAGE_DELETER_H_
#define LAKE_ENGINE_GC_PAGE_DELETER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "base/cancel_token.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/plan_page_format.h"

namespace lake::gc {

struct DeleteOptions {
  // S3: the most keys deleted per second (0: as fast as the server goes).
  uint64_t max_deletes_per_second = 0;
  // S3: tries per key before its failure is reported.
  int attempts = 4;
  const CancelToken* cancel = nullptr;
};

// The stage objects among `entries`, which the caller checked the stage
// contains.
absl::Status DeleteStageObjects(const GcRoot& root, const std::vector<Candidate>& entries,
                                const DeleteOptions& options);

// The table files among `entries`, each in a table directory of the root.
absl::Status DeleteTableFiles(const GcRoot& root, const std::vector<Candidate>& entries);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PAGE_DELETER_H_
