// Small files written and read in one piece: records lake writes once and
// reads back whole at open or recovery (the root's stage record, append
// checkpoints).
//
// A durable whole-file write goes through a temporary sibling, so no
// reader and no crash can ever see the final name holding part of the
// bytes:
//   1. CreateNew(temp_path), write every byte, Sync, Close;
//   2. RenameNoReplace(temp_path, path) — the file is now visible;
//   3. sync of the parent directory — the name now survives power loss.
// A crash before 3 may lose the file, never cut it short.
#ifndef LAKE_IO_WHOLE_FILE_H_
#define LAKE_IO_WHOLE_FILE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "io/file_system.h"

namespace lake::io {

// The steps of WriteWholeFileDurably as failpoints (base/failpoint.h), in
// the order a write passes them: after the last byte is written, after the
// temporary file is synced and closed, after the rename, after the
// directory sync.
inline constexpr std::array<std::string_view, 4> kWholeFileFailpoints = {
    "whole_file.written",
    "whole_file.synced",
    "whole_file.renamed",
    "whole_file.published",
};

// Writes `bytes` as the new file `path` by the steps above. `temp_path`
// must be in the same directory as `path` and not exist (AlreadyExists
// otherwise). `path` is never replaced: AlreadyExists when it exists.
//
// On an error before the rename the temporary file is removed (best
// effort: a crash can leave it, and its owner cleans such leftovers) and
// `path` does not exist. `*published` (when not null) is set to whether
// the rename happened: true with an error means the complete file is
// visible at `path` but its name may not survive a power loss — the
// caller must not assume it is absent.
absl::Status WriteWholeFileDurably(FileSystem& fs, const std::string& path,
                                   const std::string& temp_path, std::string_view bytes,
                                   bool* published = nullptr);

// Step 1 alone, then steps 2 and 3 alone: for a caller that overlaps the
// first (a temporary nobody sees) with other work that must be durable
// before the file is published. Same contracts as WriteWholeFileDurably,
// split at the rename; on an error WriteTemporaryDurably removes the
// temporary it made (best effort).
absl::Status WriteTemporaryDurably(FileSystem& fs, const std::string& temp_path,
                                   std::string_view bytes);
absl::Status PublishTemporaryDurably(FileSystem& fs, const std::string& path,
                                     const std::string& temp_path, bool* published = nullptr);

// The same, but step 1 rewrites `spare_path`, an existing file nothing
// refers to (a former temporary or a retired file, in the same directory),
// instead of creating one: its content is overwritten and cut to `bytes`,
// then synced. Saves an inode allocation and a later unlink. On an error
// before the rename the spare is left as it is (its owner removes or
// reuses it); NotFound when it is gone.
absl::Status RewriteWholeFileDurably(FileSystem& fs, const std::string& path,
                                     const std::string& spare_path, std::string_view bytes,
                                     bool* published = nullptr);

// Writes every byte of `bytes` at `offset` (PWrite until done; a write that
// makes no progress is an error).
absl::Status WriteFullyAt(File& file, std::string_view bytes, uint64_t offset);
// The same for `pieces` back to back (PWriteV until done, at most
// kMaxWritePieces at a time).
absl::Status WriteFullyAt(File& file, absl::Span<const std::string_view> pieces, uint64_t offset);

// The whole content of `path`, which the caller's writer keeps to at most
// `max_bytes`: a longer file is DataLoss (damaged), and is never read
// further than max_bytes + 1 bytes. NotFound when `path` does not exist.
absl::StatusOr<std::string> ReadWholeFile(FileSystem& fs, const std::string& path,
                                          size_t max_bytes);

}  // namespace lake::io

#endif  // LAKE_IO_WHOLE_FILE_H_
