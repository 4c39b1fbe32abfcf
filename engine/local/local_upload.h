// One upload into a local stage: stream → .staging file → published object.
//
// The durable sequence (ARCHITECTURE.md, "Publish last"):
//   1. create .staging/<uuid>.uploading (O_EXCL, locked, direct I/O when
//      the file system allows), which fixes the key objects/<xx>/<uuid>;
//      UploadOptions::key_chosen is told its URI; failpoint staging_created;
//   2. stream the bytes through a ring of page-aligned chunks: chunk i is
//      hashed on the caller's thread while chunk i+1 is being read (a
//      positional source file is read through the I/O queue, offloaded to
//      a kernel worker) and chunk i-1 is being written; failpoint
//      chunk_sealed after each chunk is handed to the kernel;
//   3. wait for every write, trim the direct-I/O padding of the last chunk
//      and any space allocated ahead,
//      failpoint data_written; fdatasync, failpoint data_synced;
//   4. make sure objects/<xx> exists durably (every shard made at the
//      store's first publish: shard_directories.h), rename the staging
//      file to objects/<xx>/<uuid> without replacing anything, failpoint
//      renamed; fsync objects/<xx>, failpoint published. Only then is a URI
//      returned.
//
// Invariants: every byte is hashed exactly once, in order, and written at
// its own offset; the size and SHA-256 returned are of the bytes written;
// nothing appears under objects/ before its data is durable. A failed or
// cancelled upload waits for its in-flight I/O, then removes its staging
// file; it never removes a published object. Memory: the chunk ring comes
// from the process BufferBudget and is the only buffer.
//
// Crash leftovers: a staging file whose owner died stays locked by nobody;
// LocalObjectStore::CleanStaging removes exactly those (the owner holds an
// flock for its whole life and re-checks, after locking, that its file was
// not removed in the instant before).
#ifndef LAKE_ENGINE_LOCAL_LOCAL_UPLOAD_H_
#define LAKE_ENGINE_LOCAL_LOCAL_UPLOAD_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/buffer_budget.h"
#include "engine/local/local_stage_paths.h"
#include "engine/local/shard_directories.h"
#include "engine/managed_object_store.h"
#include "engine/sha256.h"
#include "io/file_system.h"

namespace lake {

// The named steps of the upload path, in order (failpoints).
inline constexpr std::array<std::string_view, 6> kLocalUploadFailpoints = {
    "local_upload.staging_created", "local_upload.chunk_sealed",
    "local_upload.data_written",    "local_upload.data_synced",
    "local_upload.renamed",         "local_upload.published",
};

// Chunk size and ring length. 1 MiB chunks keep direct-I/O writes large
// enough for the disk to stream; 8 of them let reads, hashing and writes
// run ahead of each other. Ring memory per upload: at most 8 MiB.
inline constexpr size_t kUploadChunkBytes = 1 << 20;
inline constexpr size_t kUploadMinChunks = 2;
inline constexpr size_t kUploadMaxChunks = 8;

// Direct writes that extend a file serialise on its inode (ext4 punts them
// to one worker at a time); writes into space already allocated run in
// parallel. So the staging file is allocated ahead of the writes: to the
// source's size when known (and no further while the data keeps to it),
// else ahead by as much as was written so far (at most this much). The
// excess is trimmed before the data is synced.
inline constexpr uint64_t kPreallocateStepBytes = 64ull << 20;

class LocalUpload final : public ObjectWriter {
 public:
  // `paths` and `shards` outlive the upload.
  static absl::StatusOr<std::unique_ptr<LocalUpload>> Start(io::FileSystem& fs,
                                                            const LocalStagePaths& paths,
                                                            ShardDirectories& shards,
                                                            const UploadOptions& options);
  ~LocalUpload() override;

  // Push mode.
  absl::Status Write(const uint8_t* data, size_t len) override;
  // Pull mode: everything `source` yields.
  absl::Status WriteAll(UploadSource& source);
  absl::StatusOr<StoredObject> Commit() override;

 private:
  enum class SlotState { kFree, kReading, kFilled, kWriting };
  struct Slot {
    uint8_t* data = nullptr;
    SlotState state = SlotState::kFree;
    size_t filled = 0;     // bytes of object data in `data`
    uint64_t offset = 0;   // file offset of data[0] once sealed
    size_t io_len = 0;     // bytes the write transfers (padded if direct)
    size_t io_done = 0;
  };

  LocalUpload(io::FileSystem& fs, const LocalStagePaths& paths, ShardDirectories& shards,
              UploadOptions options);
  absl::Status Begin();
  absl::Status CreateStagingFile();

  Slot& SlotFor(uint64_t seq) { return slots_[seq % slots_.size()]; }
  size_t chunk_bytes() const { return buffers_.chunk_bytes(); }
  absl::Status Fail(absl::Status status);

  absl::Status Seal(Slot& slot);
  // Makes sure the file is allocated up to `end`, plus `ahead` when it
  // has to grow.
  void Preallocate(uint64_t end, uint64_t ahead);
  absl::Status SubmitWrite(Slot& slot);
  absl::Status Reap(unsigned wait_for);
  absl::Status HandleCompletion(const io::IoCompletion& completion);
  absl::Status WaitUntilFree(Slot& slot);
  absl::Status DrainInFlight();

  absl::Status ReadPositional(io::File& source, std::optional<uint64_t> size_hint);
  absl::Status ReadSequential(UploadSource& source);
  absl::Status Publish();
  void Abandon();

  io::FileSystem& fs_;
  const LocalStagePaths& paths_;
  ShardDirectories& shards_;
  UploadOptions options_;
  std::optional<uint64_t> size_hint_;  // the size the source told, if it did

  std::string uuid_;
  std::string key_;
  std::string staging_path_;
  std::unique_ptr<io::File> file_;
  io::File* read_source_ = nullptr;  // positional source during WriteAll
  std::unique_ptr<io::IoQueue> queue_;
  BufferLease buffers_;
  std::vector<Slot> slots_;
  std::vector<io::IoCompletion> completions_;
  Sha256 hash_;

  uint64_t fill_seq_ = 0;      // the slot being filled next
  uint64_t sealed_bytes_ = 0;  // hashed and handed to writes, in order
  bool padded_ = false;        // the last write was rounded up (direct I/O)
  uint64_t allocated_ = 0;     // the file's size as extended by Allocate
  // An Allocate failed; it may have extended the file part of the way
  // (fallocate mode 0 goes extent by extent), past allocated_.
  bool allocation_failed_ = false;
  bool published_ = false;
  bool committed_ = false;
  absl::Status failure_;       // sticky
};

}  // namespace lake

#endif  // LAKE_ENGINE_LOCAL_LOCAL_UPLOAD_H_
