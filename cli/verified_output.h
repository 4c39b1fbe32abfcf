// Where a command writes an object's bytes: stdout, or OUT (-o).
//
// A regular file OUT (or one that does not exist yet) is written through a
// temporary beside it and renamed over it only once every byte has been
// read and verified, so OUT never holds unverified bytes. Any other OUT —
// a character or block device, a FIFO, a socket — is written directly, as
// the bytes are read: it cannot be replaced by a rename (doing so would
// turn /dev/null into a regular file), and its reader sees the bytes
// as they come; the verification still decides the exit code.
#ifndef LAKE_CLI_VERIFIED_OUTPUT_H_
#define LAKE_CLI_VERIFIED_OUTPUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "lake.h"

namespace lake::cli {

// The most bytes asked of a reader (and written) at once.
inline constexpr size_t kMaxOutputWriteBytes = 1 << 20;

class VerifiedOutput {
 public:
  explicit VerifiedOutput(std::optional<std::string> path) : path_(std::move(path)) {}
  ~VerifiedOutput();
  VerifiedOutput(const VerifiedOutput&) = delete;
  VerifiedOutput& operator=(const VerifiedOutput&) = delete;

  // Creates the temporary of a regular OUT, or opens any other OUT itself
  // (nothing for stdout). False with errno set.
  bool Open();
  // Writes every byte; false with errno set.
  bool Write(const uint8_t* data, size_t len);
  // Renames the temporary over OUT, or closes OUT written directly (nothing
  // for stdout). False with errno set.
  bool Finish();
  std::string name() const { return path_.value_or("stdout"); }

 private:
  bool OpenTemporary(const std::string& target);
  bool OpenDirect(bool is_socket);

  std::optional<std::string> path_;
  std::string target_;  // what the temporary is renamed over
  std::string temp_;    // empty when writing stdout or OUT directly
  int fd_ = 1;          // stdout until Open names a file
};

// Streams `reader` to `output` until its verified end, then closes the
// reader and finishes the output. Returns an exit code (exit_status.h) and
// prints any failure with `context`.
int CopyVerified(lake_reader* reader, VerifiedOutput& output, const char* context);

}  // namespace lake::cli

#endif  // LAKE_CLI_VERIFIED_OUTPUT_H_
