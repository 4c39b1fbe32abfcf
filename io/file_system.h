// The one local file interface of lake, and its I/O queue.
//
// Three backends implement it (ARCHITECTURE.md): io_uring (the default),
// plain pread/pwrite ("sync": chosen when io_uring is unavailable, or forced
// with LAKE_IO=sync), and a test-only fault-injecting file system that drops
// unsynced writes at a simulated crash (tests/support/).
//
// Metadata operations (open, rename, fsync of a directory) are ordinary
// calls. Data moves through an IoQueue: a caller prepares reads and writes
// tagged with its own ids, submits them together and reaps completions in
// any order. The queue never owns buffers; a buffer must stay valid until
// its completion has been reaped (an IoQueue's destructor waits for every
// in-flight operation for this reason).
#ifndef LAKE_IO_FILE_SYSTEM_H_
#define LAKE_IO_FILE_SYSTEM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace lake::io {

struct FileInfo {
  uint64_t size = 0;
  bool is_regular = false;
  bool is_directory = false;
  int64_t modified_unix_micros = 0;
  uint64_t link_count = 0;  // 0 once the file has been unlinked
  // Which file this is. An inode number is reused once its file is gone;
  // with the birth time (0 where the file system does not record one)
  // the three name one file for good.
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t birth_unix_nanos = 0;
};

// The most pieces one File::PWriteV takes (Linux's IOV_MAX).
inline constexpr size_t kMaxWritePieces = 1024;

// An open file or directory. Not thread-safe unless stated.
class File {
 public:
  virtual ~File() = default;  // closes, ignoring errors; use Close() to see them

  virtual const std::string& path() const = 0;
  virtual int fd() const = 0;
  // Opened for direct I/O: buffers, lengths and offsets of data transfers
  // must be multiples of kDirectIoAlignment.
  virtual bool direct() const = 0;

  // One positioned transfer; may be short.
  virtual absl::StatusOr<size_t> PRead(uint8_t* buf, size_t len,
                                       uint64_t offset) = 0;
  virtual absl::StatusOr<size_t> PWrite(const uint8_t* buf, size_t len,
                                        uint64_t offset) = 0;
  // One positioned gathering transfer: `pieces` back to back from `offset`
  // (at most kMaxWritePieces); may be short.
  virtual absl::StatusOr<size_t> PWriteV(absl::Span<const std::string_view> pieces,
                                         uint64_t offset) = 0;
  // One sequential read from the current position (pipes, terminals).
  virtual absl::StatusOr<size_t> Read(uint8_t* buf, size_t len) = 0;

  // Makes the file's data and size durable (directory: its entries).
  virtual absl::Status Sync() = 0;
  virtual absl::Status Truncate(uint64_t size) = 0;
  // Reserves blocks for [offset, offset + len) and extends the size to
  // cover it (fallocate mode 0). Unimplemented where the file system has no
  // fallocate; callers treat it as an optimisation.
  virtual absl::Status Allocate(uint64_t offset, uint64_t len) = 0;
  // The first offset at or after `offset` with no written data behind it:
  // a hole, or blocks allocated and never written (a write there still
  // changes the block map, so its sync writes the inode too) — the size
  // when the rest is written (lseek SEEK_HOLE; `offset` itself when at or
  // past the end). A file system that cannot tell reports the size.
  virtual absl::StatusOr<uint64_t> NextUnwritten(uint64_t offset) = 0;
  virtual absl::StatusOr<FileInfo> Stat() = 0;
  // An advisory exclusive lock on this open file (flock), without waiting.
  // Returns false when another open file holds it.
  virtual absl::StatusOr<bool> TryLockExclusive() = 0;
  // The same lock, waiting for it.
  virtual absl::Status LockExclusive() = 0;
  // A shared lock (flock LOCK_SH) on this open file, waiting while another
  // open file holds the exclusive one. (Linux grants it while an exclusive
  // request only waits, so shared holders never queue behind one.)
  virtual absl::Status LockShared() = 0;
  virtual absl::Status Close() = 0;
};

inline constexpr size_t kDirectIoAlignment = 4096;

struct IoCompletion {
  uint64_t tag = 0;
  int64_t result = 0;  // bytes transferred (>= 0) or -errno
};

// Whether a prepared read should leave the caller's thread: an offloaded
// read runs on a kernel worker so it overlaps the caller's CPU work (used
// when the caller hashes while the next chunk loads). Inline reads are
// cheaper per operation (used for many small random reads).
enum class ReadHint { kInline, kOffload };

class IoQueue {
 public:
  virtual ~IoQueue() = default;

  // The most operations that may be prepared or in flight at once.
  virtual unsigned depth() const = 0;
  // Prepared or submitted, and not yet reaped.
  virtual unsigned in_flight() const = 0;

  // Precondition: in_flight() < depth(). The file must come from the file
  // system that made this queue and outlive the operation.
  virtual void PrepareRead(File& file, uint8_t* buf, size_t len,
                           uint64_t offset, uint64_t tag,
                           ReadHint hint = ReadHint::kInline) = 0;
  virtual void PrepareWrite(File& file, const uint8_t* buf, size_t len,
                            uint64_t offset, uint64_t tag) = 0;

  // A transfer may complete short (as pread/pwrite may); the caller
  // continues it. Submits everything prepared, waits until at least `wait_for`
  // completions are ready (wait_for <= in_flight()), and appends every ready
  // completion to *out. A failed operation is a completion with a negative
  // result; a non-OK status means the queue itself failed.
  virtual absl::Status SubmitAndReap(unsigned wait_for,
                                     std::vector<IoCompletion>* out) = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // "io_uring", "sync" or "fault".
  virtual std::string_view name() const = 0;

  // Opens for reading, following symlinks (upload sources).
  virtual absl::StatusOr<std::unique_ptr<File>> OpenRead(
      const std::string& path) = 0;
  // Opens `relative` for reading strictly beneath the directory `root`: a
  // path or symlink that would leave it is refused with LeavesRootError,
  // atomically (no check-then-open race). A file the process may not open
  // is PermissionDenied without that mark.
  virtual absl::StatusOr<std::unique_ptr<File>> OpenReadBeneath(
      const File& root, const std::string& relative) = 0;
  // The directory `relative` names, opened as OpenReadBeneath opens files
  // (NotFound when it is absent or not a directory).
  virtual absl::StatusOr<std::unique_ptr<File>> OpenDirectoryBeneath(
      const File& root, const std::string& relative) = 0;
  // Creates a new file for writing (AlreadyExists if present). With
  // `want_direct` the file is opened for direct I/O when the file system
  // supports it; File::direct() tells.
  virtual absl::StatusOr<std::unique_ptr<File>> CreateNew(
      const std::string& path, bool want_direct) = 0;
  // Opens an existing regular file for writing, without truncating it and
  // without following a final symlink (NotFound when absent): for reusing
  // a spare file instead of creating one.
  virtual absl::StatusOr<std::unique_ptr<File>> OpenForRewrite(
      const std::string& path) = 0;
  // Opens an existing regular file for writing more to it (past its
  // records, or over the zeros preallocated for them), without truncating
  // it and without following a final symlink (NotFound when absent): what
  // it held stays as it was, and only what is written through the new
  // handle needs its Sync (the table log's segments). The same open as
  // OpenForRewrite; the fault-injecting file system tells the two apart (a
  // rewrite's earlier content is not relied on, an append's is).
  virtual absl::StatusOr<std::unique_ptr<File>> OpenForAppend(const std::string& path) {
    return OpenForRewrite(path);
  }
  virtual absl::StatusOr<std::unique_ptr<File>> OpenDirectory(
      const std::string& path) = 0;
  // AlreadyExists when the directory is present.
  virtual absl::Status CreateDirectory(const std::string& path) = 0;
  // Atomic rename that never replaces an existing `to` (AlreadyExists).
  virtual absl::Status RenameNoReplace(const std::string& from,
                                       const std::string& to) = 0;
  virtual absl::Status Remove(const std::string& path) = 0;
  // Removes the entry `name` (one path component) of the open directory
  // `dir`: a file, or a symlink itself, never what it points to, and never
  // a directory. Not durable until `dir` is synced.
  virtual absl::Status RemoveAt(const File& dir, const std::string& name) = 0;
  // Names in the directory, without "." and "..", in no particular order.
  virtual absl::StatusOr<std::vector<std::string>> ListDirectory(
      const std::string& path) = 0;
  // Does not follow a final symlink.
  virtual absl::StatusOr<FileInfo> Stat(const std::string& path) = 0;
  virtual absl::StatusOr<std::string> RealPath(const std::string& path) = 0;

  virtual absl::StatusOr<std::unique_ptr<IoQueue>> NewIoQueue(
      unsigned depth) = 0;
};

// The refusal of a *Beneath call for a path or symlink that would leave
// its root: PermissionDenied, marked so that IsLeavesRoot tells it apart
// from a file the process may not open.
absl::Status LeavesRootError(std::string_view path);
bool IsLeavesRoot(const absl::Status& status);

// The process default, which lives forever: io_uring unless LAKE_IO=sync or
// io_uring is not usable here (seccomp profiles often block it).
// LAKE_IO=io_uring insists on io_uring (Unavailable without it); any other
// LAKE_IO value is InvalidArgument.
absl::StatusOr<FileSystem*> DefaultFileSystem();

}  // namespace lake::io

#endif  // LAKE_IO_FILE_SYSTEM_H_
