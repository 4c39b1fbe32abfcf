// Leases (issue 20, deliverable 5): what keeps an upload in flight, and an
// INSERT's uploaded-but-uncommitted objects, from being collected whatever
// their age — and the one list garbage collection reads of everything it
// must keep besides references: leased keys and pinned objects.
//
//   <root>/gc/leases/<uuidv7>.lease   one file per leasing process
//                                     (lease_file_format.h), flock-held
//                                     (LOCK_EX on the file) while it lives
//
// A lease is taken before an upload stores its first byte, on the key the
// store chose (UploadOptions::key_chosen, engine/upload_lease.h): its
// record is appended, in a file whose directory entry is durable, and
// synced when the lease must outlive a power loss (LeaseDurability). It is
// released by overwriting the record's state byte in place (not synced: a
// release lost to a power loss only keeps a dead process's key protected
// until its leases expire).
// Who releases when:
//   - a plain upload (lake_stage_upload_*, lake put): when it returns its
//     DataLocation, or when the failed upload has been cleaned;
//   - an INSERT's FILE uploads: once its append checkpoint is published or
//     its commit made them referenced (when AppendBatch returns);
//   - an event writer's offloaded blob: once the batch naming it is
//     appended (its blob journal records it first).
//
// A live process's leases never expire: its file is locked. Once the
// process is dead (the lock is free), each lease it held expires
// `lease_expiry` after it was taken (the append retention horizon,
// LAKE_APPEND_OPERATION_RETENTION_SECS). A dead process's file whose
// leases are all released or expired is removed (RemoveDeadLeaseFiles,
// run when a process starts leasing, and by a collection).
//
// A file is retired once it passes kRetireLeaseFileBytes: new leases go
// to a new file, and the retired one is removed when its last lease is
// released. A file is removed only when it holds no held lease, so a
// reader that lists a file and finds it gone missed nothing.
//
// What garbage collection must read, and in which order: the protected
// URIs (ForEachProtectedUri) before the pending append checkpoints, and
// those before the registry's references. A lease is released only after
// the checkpoint or the commit that takes over its protection exists, so
// reading in this order never misses an object in between.
#ifndef LAKE_ENGINE_GC_LEASE_STORE_H_
#define LAKE_ENGINE_GC_LEASE_STORE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/upload_lease.h"
#include "io/file_system.h"

namespace lake::gc {

inline constexpr std::string_view kLeasesDir = "leases";
inline constexpr std::string_view kLeaseFileSuffix = ".lease";
// About 7,000 leases of local URIs per file before it is retired.
inline constexpr uint64_t kRetireLeaseFileBytes = uint64_t{1} << 20;
// A file is zeroed this far ahead of its records, so that a lease's sync
// writes into allocated, written blocks and changes no metadata (no
// journal commit): about 400 leases per zeroing.
inline constexpr uint64_t kLeaseZeroAheadBytes = uint64_t{64} << 10;
// A reader refuses (DataLoss) a lease file larger than this: no writer
// makes one (retired at 1 MiB, plus one record and the zeros ahead).
inline constexpr size_t kMaxLeaseFileBytes = size_t{4} << 20;

// The steps of taking and releasing a lease, in order (failpoints).
inline constexpr std::array<std::string_view, 4> kLeaseStoreFailpoints = {
    "lease_store.file_created",     // a new lease file: locked, its name durable, empty
    "lease_store.lease_written",    // the lease's record is written, not yet synced
    "lease_store.lease_synced",     // the lease is taken (synced if kSynced)
    "lease_store.release_written",  // the release is written in place (not synced)
};

// <root>/gc/leases
std::string LeasesDir(const std::string& root_dir);

// The leases of this process on one root. Thread-safe. Each lease keeps
// the store alive; the store removes its files when the last lease is
// released and the store is destroyed.
class LeaseStore final : public KeyLeaser, public std::enable_shared_from_this<LeaseStore> {
 public:
  // No I/O until the first lease. `retire_bytes`: smaller only in tests.
  static std::shared_ptr<LeaseStore> Open(io::FileSystem& fs, std::string root_dir,
                                          uint64_t retire_bytes = kRetireLeaseFileBytes);
  ~LeaseStore() override;

  absl::StatusOr<std::unique_ptr<KeyLease>> Lease(std::string_view uri,
                                                  LeaseDurability durability) override;

  // The paths of the files this store holds now (for tests and operators).
  std::vector<std::string> FilePaths();

 private:
  struct LeaseFile;
  class HeldLease;
  LeaseStore(io::FileSystem& fs, std::string root_dir, uint64_t retire_bytes)
      : fs_(fs), root_dir_(std::move(root_dir)), retire_bytes_(retire_bytes) {}

  void Release(const std::shared_ptr<LeaseFile>& file, uint64_t state_offset);
  absl::Status StartFileLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Zeroes `file` ahead so that a record ending at `end` (and the next)
  // lands in written blocks (kLeaseZeroAheadBytes at a time).
  static absl::Status ZeroAhead(LeaseFile& file, uint64_t end);
  // No more records go to the current file; it goes when it holds none.
  void RetireCurrentLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveFile(LeaseFile& file);

  io::FileSystem& fs_;
  const std::string root_dir_;
  const uint64_t retire_bytes_;
  absl::Mutex mu_;
  std::shared_ptr<LeaseFile> current_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<LeaseFile>> retired_ ABSL_GUARDED_BY(mu_);
  bool swept_dead_files_ ABSL_GUARDED_BY(mu_) = false;
};

// Removes the lease files of dead processes whose leases are all released
// or expired at `now`; returns how many. A damaged file is left alone (and
// ForEachProtectedUri refuses it).
absl::StatusOr<uint64_t> RemoveDeadLeaseFiles(io::FileSystem& fs, const std::string& root_dir,
                                              absl::Time now, absl::Duration lease_expiry);

// Everything GC must keep whatever its age: the keys (full DataLocation
// URIs) leased by live processes and by dead processes whose leases have not
// expired (append retention horizon), every pinned URI, and what every
// registered source protects (below). Emitted in bytewise URI order, each
// once. DataLoss naming the file for a damaged lease file or pin record:
// nothing is skipped. Memory: every protected URI at once (leases are few;
// pins are an operator's).
absl::Status ForEachProtectedUri(io::FileSystem& fs, const std::string& root_dir,
                                 absl::Time now, absl::Duration lease_expiry,
                                 const std::function<absl::Status(std::string_view uri)>& visit);

// A fingerprint component: a digest of the pin set (pins change the plan).
// SHA-256 (hex) over the pinned URIs in bytewise order, each as its length
// (u64, little-endian) and bytes.
absl::StatusOr<std::string> PinSetDigest(io::FileSystem& fs, const std::string& root_dir);

// The registration point of other keepers of keys (issue 21: a resumable
// S3 upload's checkpoint leases its key until the checkpoint is removed or
// expires). A source emits the URIs it protects on `root_dir`, in any
// order; ForEachProtectedUri calls every registered source and fails with
// the first error one returns (naming it). Register once per process,
// before any collection runs; sources stay registered.
using ProtectedUriSource = std::function<absl::Status(
    io::FileSystem& fs, const std::string& root_dir, absl::Time now,
    const std::function<absl::Status(std::string_view uri)>& emit)>;
void RegisterProtectedUriSource(std::string name, ProtectedUriSource source);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_LEASE_STORE_H_
