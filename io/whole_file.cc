#include "io/whole_file.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "io/durable_paths.h"

namespace lake::io {
namespace {

// Step 1 of the header on an opened file: every byte written, the length
// cut to them, synced and closed.
absl::Status WriteSynced(File& file, std::string_view bytes, bool cut_to_length) {
  if (absl::Status s = WriteFullyAt(file, bytes, 0); !s.ok()) return s;
  if (cut_to_length) {
    if (absl::Status s = file.Truncate(bytes.size()); !s.ok()) return s;
  }
  if (absl::Status s = LAKE_FAILPOINT(kWholeFileFailpoints[0]); !s.ok()) return s;
  if (absl::Status s = file.Sync(); !s.ok()) return s;
  if (absl::Status s = file.Close(); !s.ok()) return s;
  return LAKE_FAILPOINT(kWholeFileFailpoints[1]);
}

// Steps 2 and 3.
absl::Status Publish(FileSystem& fs, const std::string& path, const std::string& temp_path,
                     bool* published) {
  if (absl::Status renamed = fs.RenameNoReplace(temp_path, path); !renamed.ok()) return renamed;
  if (published != nullptr) *published = true;
  if (absl::Status s = LAKE_FAILPOINT(kWholeFileFailpoints[2]); !s.ok()) return s;
  if (absl::Status s = SyncParentDirectory(fs, path); !s.ok()) return s;
  return LAKE_FAILPOINT(kWholeFileFailpoints[3]);
}

}  // namespace

absl::Status WriteFullyAt(File& file, std::string_view bytes, uint64_t offset) {
  size_t done = 0;
  while (done < bytes.size()) {
    absl::StatusOr<size_t> n = file.PWrite(reinterpret_cast<const uint8_t*>(bytes.data()) + done,
                                           bytes.size() - done, offset + done);
    if (!n.ok()) return n.status();
    if (*n == 0) return absl::UnknownError(absl::StrCat("a write to ", file.path(), " made no progress"));
    done += *n;
  }
  return absl::OkStatus();
}

absl::Status WriteWholeFileDurably(FileSystem& fs, const std::string& path,
                                   const std::string& temp_path, std::string_view bytes,
                                   bool* published) {
  if (published != nullptr) *published = false;
  absl::StatusOr<std::unique_ptr<File>> file = fs.CreateNew(temp_path, /*want_direct=*/false);
  // An AlreadyExists temporary is someone else's: never remove it.
  if (!file.ok()) return file.status();
  absl::Status written = WriteSynced(**file, bytes, /*cut_to_length=*/false);
  if (written.ok()) {
    written = Publish(fs, path, temp_path, published);
    if (written.ok() || (published != nullptr && *published)) return written;
  }
  if (published == nullptr || !*published) (void)fs.Remove(temp_path);
  return written;
}

absl::Status WriteTemporaryDurably(FileSystem& fs, const std::string& temp_path,
                                   std::string_view bytes) {
  absl::StatusOr<std::unique_ptr<File>> file = fs.CreateNew(temp_path, /*want_direct=*/false);
  if (!file.ok()) return file.status();  // AlreadyExists: someone else's, left alone
  absl::Status written = WriteSynced(**file, bytes, /*cut_to_length=*/false);
  if (!written.ok()) (void)fs.Remove(temp_path);
  return written;
}

absl::Status PublishTemporaryDurably(FileSystem& fs, const std::string& path,
                                     const std::string& temp_path, bool* published) {
  if (published != nullptr) *published = false;
  return Publish(fs, path, temp_path, published);
}

absl::Status RewriteWholeFileDurably(FileSystem& fs, const std::string& path,
                                     const std::string& spare_path, std::string_view bytes,
                                     bool* published) {
  if (published != nullptr) *published = false;
  absl::StatusOr<std::unique_ptr<File>> file = fs.OpenForRewrite(spare_path);
  if (!file.ok()) return file.status();
  if (absl::Status s = WriteSynced(**file, bytes, /*cut_to_length=*/true); !s.ok()) return s;
  return Publish(fs, path, spare_path, published);
}

absl::Status WriteFullyAt(File& file, absl::Span<const std::string_view> pieces, uint64_t offset) {
  // Past a short write, what is left of the piece it stopped in goes first.
  std::vector<std::string_view> left(pieces.begin(), pieces.end());
  size_t first = 0;
  while (first < left.size()) {
    const size_t count = std::min(left.size() - first, kMaxWritePieces);
    absl::StatusOr<size_t> n = file.PWriteV(absl::MakeConstSpan(left).subspan(first, count), offset);
    if (!n.ok()) return n.status();
    if (*n == 0) {
      return absl::UnknownError(absl::StrCat("a write to ", file.path(), " made no progress"));
    }
    offset += *n;
    for (size_t done = *n; done > 0;) {
      const size_t take = std::min(done, left[first].size());
      left[first].remove_prefix(take);
      done -= take;
      if (left[first].empty()) ++first;
    }
    while (first < left.size() && left[first].empty()) ++first;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWholeFile(FileSystem& fs, const std::string& path,
                                          size_t max_bytes) {
  absl::StatusOr<std::unique_ptr<File>> file = fs.OpenRead(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<FileInfo> info = (*file)->Stat();
  if (!info.ok()) return info.status();
  // One byte past the ceiling tells an oversized file; the buffer starts at
  // the size stat saw and grows only if the file grows while being read.
  const size_t limit = max_bytes + 1;
  std::string bytes(static_cast<size_t>(std::min<uint64_t>(info->size + 1, limit)), '\0');
  size_t total = 0;
  for (;;) {
    if (total == bytes.size()) {
      if (bytes.size() == limit) break;
      bytes.resize(std::min(limit, bytes.size() * 2));
    }
    absl::StatusOr<size_t> n = (*file)->PRead(reinterpret_cast<uint8_t*>(bytes.data()) + total,
                                              bytes.size() - total, total);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    total += *n;
  }
  if (total > max_bytes) {
    return absl::DataLossError(
        absl::StrCat(path, " is larger than its ceiling of ", max_bytes, " bytes"));
  }
  bytes.resize(total);
  return bytes;
}

}  // namespace lake::io
