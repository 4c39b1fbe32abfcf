// The references of an experiment's event log to offloaded blobs, kept in
// the reference-journal format tables use (reference_delta_format.h), so
// garbage collection counts those objects live until the experiment is
// deleted.
//
// Layout: per shard, one delta per appended batch that offloads blobs,
//   <shard_dir>/_lake/object_refs/<step as 20 decimal digits>.refs
// with parent step n-1, child step n (steps from 1, without gaps) and
// table_id the shard's journal id (XXH3-64 of the shard id).
//
// Invariant: a delta is durable before the batch naming its locations is
// appended, so every blob an acknowledged event names is recorded. A crash
// in between leaves a recorded blob that no event names; it stays live
// until the experiment is deleted — never the reverse.
#ifndef LAKE_ENGINE_EVENTS_BLOB_REFERENCES_H_
#define LAKE_ENGINE_EVENTS_BLOB_REFERENCES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/data_location.h"
#include "engine/table/reference_journal.h"
#include "io/file_system.h"

namespace lake::events {

uint64_t ShardJournalId(std::string_view shard_id);

// The journal of one shard, owned by its writer. Thread-safe.
class ShardBlobJournal {
 public:
  // Continues after the shard's last recorded step.
  static absl::StatusOr<std::unique_ptr<ShardBlobJournal>> Open(io::FileSystem& fs,
                                                                std::string shard_dir,
                                                                std::string_view shard_id);

  // Records `locations` durably as the next step (nothing for none).
  absl::Status Record(std::vector<DataLocation> locations);

 private:
  ShardBlobJournal(io::FileSystem& fs, std::string shard_dir, uint64_t journal_id,
                   uint64_t last_step);

  io::FileSystem& fs_;
  const std::string shard_dir_;
  const uint64_t journal_id_;
  absl::Mutex mu_;
  uint64_t last_step_ ABSL_GUARDED_BY(mu_);
};

// Hands every location the blob journal of one shard recorded to `visit`
// (per delta; child_version is the step), with the checks below.
absl::Status EnumerateShardBlobReferences(io::FileSystem& fs, const std::string& shard_dir,
                                          std::string_view shard_id,
                                          table::ReferenceVisitor visit);

// Hands every location recorded by the log under `shards_dir` to `visit`
// (per delta; child_version is the step). Fails closed — DataLoss naming
// the shard and step — on a missing step, a damaged delta, or a delta of
// another shard or step.
absl::Status EnumerateEventLogReferences(io::FileSystem& fs, const std::string& shards_dir,
                                         table::ReferenceVisitor visit);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_BLOB_REFERENCES_H_
