// A test-only FileSystem that simulates power loss, in the manner of
// RocksDB's FaultInjectionTestFS and SQLite's crash-test VFS.
//
// It forwards every call to a base file system and remembers what has not
// been made durable:
//   - file data: a file's durable size is its size at its last Sync(), and
//     its durable content the bytes it held then. What was written after
//     that is lost at a crash: the file is cut back to its durable size, and
//     bytes overwritten below that size get their synced content back
//     (newest write undone first). A file opened
//     with OpenForRewrite has no durable content until its next Sync: a
//     crash before then scribbles over every byte it holds;
//   - directory entries: creating, renaming or removing an entry is durable
//     only once the directory that holds the new name has been synced.
// Crash() is the power loss: from that moment every operation fails with
// an I/O error, every file is cut back to its durable size, and every
// non-durable directory change is undone, newest first. What remains on
// disk is what a real machine could have kept in the worst case, and a
// recovery opened on the base file system sees exactly that.
//
// Its I/O queue performs each operation inline through the wrapped files,
// so no write can land after Crash().
#ifndef LAKE_TESTS_SUPPORT_FAULT_INJECTION_FILE_SYSTEM_H_
#define LAKE_TESTS_SUPPORT_FAULT_INJECTION_FILE_SYSTEM_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "io/file_system.h"

namespace lake::testing {

class FaultInjectionFileSystem final : public io::FileSystem {
 public:
  // `backup_dir` (on the same file system as the data) keeps hard links of
  // removed files until their removal is durable.
  FaultInjectionFileSystem(io::FileSystem& base, std::string backup_dir);

  void Crash();
  // The same power loss, but pages reach the disk in any order before a
  // sync: each 4 KiB page of a file holding bytes no sync covered survives
  // whole or is lost, independently of the others, as `seed` picks — so a
  // later write may survive where an earlier one is lost. A lost page keeps
  // its synced bytes; past the file's synced size it reads as zeros, and
  // the file ends after its last page past that size that survived (at its
  // synced size when none did).
  void CrashTorn(uint64_t seed);
  bool crashed() const;
  // From now on every File::Allocate fails the way fallocate does when the
  // disk fills at the range's last extent: mode 0 reserves and extends the
  // file extent by extent, so the range up to its last 4 KiB page is
  // reserved and the file extended over it; then ResourceExhausted.
  void FailAllocationsPartway();
  bool allocations_fail_partway() const;

  std::string_view name() const override { return "fault"; }
  absl::StatusOr<std::unique_ptr<io::File>> OpenRead(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<io::File>> OpenReadBeneath(
      const io::File& root, const std::string& relative) override;
  absl::StatusOr<std::unique_ptr<io::File>> OpenDirectoryBeneath(
      const io::File& root, const std::string& relative) override;
  absl::StatusOr<std::unique_ptr<io::File>> CreateNew(const std::string& path,
                                                      bool want_direct) override;
  absl::StatusOr<std::unique_ptr<io::File>> OpenForRewrite(const std::string& path) override;
  // What the file held is durable as it was (only writes through the new
  // handle are undone by a crash), unlike OpenForRewrite.
  absl::StatusOr<std::unique_ptr<io::File>> OpenForAppend(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<io::File>> OpenDirectory(const std::string& path) override;
  absl::Status CreateDirectory(const std::string& path) override;
  absl::Status RenameNoReplace(const std::string& from, const std::string& to) override;
  absl::Status Remove(const std::string& path) override;
  absl::Status RemoveAt(const io::File& dir, const std::string& name) override;
  absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& path) override;
  absl::StatusOr<io::FileInfo> Stat(const std::string& path) override;
  absl::StatusOr<std::string> RealPath(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<io::IoQueue>> NewIoQueue(unsigned depth) override;

  // Called by the files it hands out.
  absl::Status CheckAlive() const;
  // A sync of a file begins (the mark to hand to FileSynced), and has
  // returned: it covers what was written before it began — `size` bytes,
  // and the synced bytes overwritten before the mark. (A write racing with
  // it from another thread stays undone by a crash: the worst case.)
  uint64_t FileSyncBegins();
  void FileSynced(const std::string& path, uint64_t size, uint64_t mark);
  // Before the file open as `file_id` writes [offset, offset + len): keeps
  // the synced bytes that write overwrites, so a crash can put them back.
  absl::Status BeforeWrite(uint64_t file_id, uint64_t offset, size_t len);
  void DirectorySynced(const std::string& path);
  // The current path of a file opened as `path` (renames move it).
  std::string CurrentPath(uint64_t file_id) const;
  uint64_t RegisterFile(const std::string& path);

 private:
  static constexpr uint64_t kPageBytes = 4096;
  void CrashWith(const uint64_t* torn_seed);
  // Removes `path` by `remove`, keeping a backup until the removal is
  // durable.
  absl::Status RemoveKeepingBackup(const std::string& path,
                                   const std::function<absl::Status()>& remove);
  enum class EntryOp { kCreateFile, kCreateDirectory, kRename, kRemove };
  struct PendingEntry {
    EntryOp op;
    std::string path;         // the new name (or the removed one)
    std::string from;         // kRename: the old name
    std::string backup;       // kRemove: hard link holding the old file
  };

  io::FileSystem& base_;
  std::string backup_dir_;
  mutable std::mutex mu_;
  bool crashed_ = false;
  bool allocations_fail_partway_ = false;
  uint64_t next_file_id_ = 1;
  uint64_t next_backup_ = 1;
  std::map<uint64_t, std::string> file_paths_;      // open files → path
  std::map<std::string, uint64_t> durable_sizes_;   // path → synced size
  std::set<std::string> rewritten_;  // opened for rewrite, not synced since
  struct Overwritten {
    uint64_t offset;
    std::string synced_bytes;
    uint64_t mark;  // FileSyncBegins' count when it was kept
  };
  uint64_t next_mark_ = 0;
  // path → the mark of the latest-begun sync that has returned (an earlier
  // sync returning after it covers less, and changes nothing).
  std::map<std::string, uint64_t> synced_marks_;
  // path → synced bytes overwritten since the last sync, oldest first.
  std::map<std::string, std::vector<Overwritten>> overwritten_;
  std::vector<PendingEntry> pending_;               // oldest first
};

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_FAULT_INJECTION_FILE_SYSTEM_H_
