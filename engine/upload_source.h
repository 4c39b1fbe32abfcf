// Where the bytes of an upload come from.
#ifndef LAKE_ENGINE_UPLOAD_SOURCE_H_
#define LAKE_ENGINE_UPLOAD_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace lake {
namespace io {
class File;
}

// Which file a path-backed source reads, as it was when opened: what a
// resumable upload's checkpoint records and a resume compares.
struct SourceFileIdentity {
  std::string real_path;  // absolute, symlinks resolved
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t modified_unix_micros = 0;
  bool operator==(const SourceFileIdentity&) const = default;
};

class UploadSource {
 public:
  virtual ~UploadSource() = default;

  // Up to `len` bytes in order; 0 at the end.
  virtual absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) = 0;

  // A regular file that a store may instead read at offsets with its own
  // I/O queue (several reads in flight); null for sequential sources. A
  // store uses either this or Read(), never both.
  virtual io::File* positional_file() { return nullptr; }

  // The total size when known in advance, for progress reports and how
  // far a store reads ahead: the bytes actually read define the object.
  virtual std::optional<uint64_t> size_hint() const { return std::nullopt; }

  // The regular file this source reads from its start, when it is one
  // (null otherwise): only such a source can be resumed.
  virtual const SourceFileIdentity* file_identity() const { return nullptr; }
};

}  // namespace lake

#endif  // LAKE_ENGINE_UPLOAD_SOURCE_H_
