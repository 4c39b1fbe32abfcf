// A file mapped shared into memory, for state that the processes writing a
// root share while they run (engine/table/commit_queue.h): every process
// that maps the same file sees the same bytes at once.
//
// The bytes are not durable and are never read back as a record of the
// past: a power loss leaves whatever the kernel happened to write back,
// so their user tells its own stale state apart (by the boot it was made
// in, say).
//
// Thread safety: the mapping may be used from any thread; what it holds is
// its user's to synchronise (atomics in the mapped bytes).
#ifndef LAKE_IO_POSIX_SHARED_MAPPING_H_
#define LAKE_IO_POSIX_SHARED_MAPPING_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace lake::io {

class SharedMapping {
 public:
  // Maps the first `bytes` of the file at `path` (created when missing,
  // extended with zeros when shorter; the rest is left alone).
  static absl::StatusOr<std::unique_ptr<SharedMapping>> Open(const std::string& path, size_t bytes);
  ~SharedMapping();
  SharedMapping(const SharedMapping&) = delete;
  SharedMapping& operator=(const SharedMapping&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  SharedMapping(void* data, size_t size) : data_(data), size_(size) {}
  void* data_;
  size_t size_;
};

}  // namespace lake::io

#endif  // LAKE_IO_POSIX_SHARED_MAPPING_H_
