// Deleting the entries of one plan page, each backend its way, in two
// steps: the removals, then (PendingSyncs::Sync) making them durable.
//   local stage  unlinkat of each object's name in its shard directory,
//                opened beneath the stage root (never leaving it), on up to
//                `threads` threads (directories split between them); the
//                directories touched are synced later, each once
//                (PendingSyncs);
//   S3 stage     DeleteObjects (quiet, Content-MD5) of the page's keys, cut
//                into up to `concurrency` requests sent at once (8 of 125
//                keys for a full page: 2.0x rclone's delete against RGW,
//                which one request of 1,000 keys per page did not reach); keys that
//                fail are retried (attempts in all), then reported;
//                optionally paced to max_deletes_per_second (one request at
//                a time then). Durable when acknowledged: nothing to sync;
//   table files  unlinkat beneath <root>/tables, their directories synced
//                later, each once.
// An object or file already gone counts as deleted (a repeated page).
#ifndef LAKE_ENGINE_GC_PAGE_DELETER_H_
#define LAKE_ENGINE_GC_PAGE_DELETER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/cancel_token.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/plan_page_format.h"
#include "io/file_system.h"

namespace lake::gc {

struct DeleteOptions {
  // S3: the most keys deleted per second (0: as fast as the server goes).
  uint64_t max_deletes_per_second = 0;
  // S3: tries per key before its failure is reported.
  int attempts = 4;
  // S3: DeleteObjects requests of one page in flight at once, each of at
  // least min_keys_per_request keys (a small page is one request).
  int concurrency = 8;
  size_t min_keys_per_request = 125;
  // Local: threads unlinking one page's names.
  int threads = 2;
  const CancelToken* cancel = nullptr;
};

// Directories whose removals are done but not yet durable, each held once
// however many pages touched it (an apply's checkpoint syncs the
// directories of many pages).
class PendingSyncs {
 public:
  PendingSyncs() = default;
  PendingSyncs(PendingSyncs&&) = default;
  PendingSyncs& operator=(PendingSyncs&&) = default;

  // `path` names the directory `handle` is open on; a directory already
  // held keeps its first handle (syncing either makes the same removals
  // durable).
  void Add(std::string path, std::unique_ptr<io::File> handle);
  void Absorb(PendingSyncs other);
  size_t size() const { return directories_.size(); }
  // Syncs each directory once, all at once; then there is nothing left to
  // sync.
  absl::Status Sync();

 private:
  std::map<std::string, std::unique_ptr<io::File>> directories_;
};

// Removes the stage objects among `entries`, which the caller checked the
// stage contains; the directories to sync go to `syncs`.
absl::Status RemoveStageObjects(const GcRoot& root, const std::vector<Candidate>& entries,
                                const DeleteOptions& options, PendingSyncs* syncs);

// Removes the table files among `entries`, each in a table directory of the
// root; the directories to sync go to `syncs`.
absl::Status RemoveTableFiles(const GcRoot& root, const std::vector<Candidate>& entries,
                              PendingSyncs* syncs);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PAGE_DELETER_H_
