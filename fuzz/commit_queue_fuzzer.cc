// Fuzzes lake::table::CommitQueue, the reader of <root>/commit.queue: the
// file every writer process of a root maps and reads the others' entries
// from (engine/table/commit_queue.h).
//
// The input is the file: its first 96 bytes are the header's (but for the
// format version and boot id, set to this queue's so that it is read, not
// emptied), and the rest fills the slots from the one of settled_seq on.
// The queue is opened on it and read as a writer reads it; nothing is
// synced (a sync opens the files entries name).
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. Every entry read back is a version's commit naming a table log
//      segment ("<root>/tables/<ns>/<table>/_log/<name>.seg") and a base
//      manifest that is empty or a table path.
//   3. An entry's outcome is never a success with a final failure, and an
//      entry whose slot reads as failed never reads as a success.
//   4. Settling (as a settler whose every commit fails) leaves every entry
//      it covered with an outcome, none of them a success.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine/table/commit_queue.h"
#include "engine/table/manifest_format.h"
#include "fuzz/property_check.h"
#include "io/posix/posix_file_system.h"

namespace {

using lake::fuzz::Check;
using lake::table::CommitQueue;
using lake::table::kCommitQueueSlotBytes;
using lake::table::kCommitQueueSlots;
using lake::table::QueuedCommit;
using lake::table::QueuedOutcome;

constexpr size_t kHeaderBytes = 4096;
constexpr size_t kHeaderFieldBytes = 96;
constexpr size_t kFileBytes = kHeaderBytes + kCommitQueueSlots * kCommitQueueSlotBytes;
constexpr char kBoot[] = "boot-of-the-fuzzer";
constexpr uint32_t kFailedState = 3;

uint64_t U64At(const std::string& file, size_t at) {
  uint64_t v;
  std::memcpy(&v, file.data() + at, sizeof(v));
  return v;
}

uint32_t U32At(const std::string& file, size_t at) {
  uint32_t v;
  std::memcpy(&v, file.data() + at, sizeof(v));
  return v;
}

// "<root>/tables/<ns>/<table>/_log/<name>.seg", the five segments after
// the root real names, no NUL.
bool IsSegmentPath(std::string_view path) {
  if (path.find('\0') != std::string_view::npos) return false;
  std::vector<std::string_view> tail;
  size_t end = path.size();
  while (tail.size() < 5) {
    const size_t slash = path.rfind('/', end == 0 ? 0 : end - 1);
    if (slash == std::string_view::npos || end == 0) return false;
    tail.push_back(path.substr(slash + 1, end - slash - 1));
    end = slash;
  }
  for (std::string_view segment : tail) {
    if (segment.empty() || segment == "." || segment == "..") return false;
  }
  return tail[4] == "tables" && tail[1] == "_log" && tail[0].size() > 4 &&
         tail[0].substr(tail[0].size() - 4) == ".seg";
}

void CheckEntry(const QueuedCommit& q) {
  Check(q.commit.kind == lake::registry::ForwardedKind::kCommitVersion ||
        q.commit.kind == lake::registry::ForwardedKind::kCommitVersionDeferred);
  Check(IsSegmentPath(q.segment_path));
  Check(q.base_manifest_path.empty() ||
        lake::table::ValidateTablePath(q.base_manifest_path, "base").ok());
}

// A directory of this process's, removed (with the queue) at its exit.
// Never destroyed, so the exit handler may still read its name.
const std::string& Dir() {
  static const std::string* const dir = [] {
    char name[] = "/tmp/lake-fuzz-commit-queue-XXXXXX";
    Check(::mkdtemp(name) != nullptr);
    auto* made = new std::string(name);
    std::atexit([] {
      ::unlink((Dir() + "/" + std::string(lake::table::kCommitQueueName)).c_str());
      ::rmdir(Dir().c_str());
    });
    return made;
  }();
  return *dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string file(kFileBytes, '\0');
  std::memcpy(file.data(), data, std::min(size, kHeaderFieldBytes));
  const uint32_t version = 1;
  std::memcpy(file.data() + 4, &version, sizeof(version));
  std::memset(file.data() + 8, 0, 64);
  std::memcpy(file.data() + 8, kBoot, sizeof(kBoot) - 1);
  const uint64_t settled = U64At(file, 88);
  const size_t slots_bytes = kCommitQueueSlots * kCommitQueueSlotBytes;
  size_t at = (settled % kCommitQueueSlots) * kCommitQueueSlotBytes;
  for (size_t i = kHeaderFieldBytes; i < size; ++i) {
    file[kHeaderBytes + at] = static_cast<char>(data[i]);
    at = (at + 1) % slots_bytes;
  }
  const std::string path = Dir() + "/" + std::string(lake::table::kCommitQueueName);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  Check(fd >= 0 && ::pwrite(fd, file.data(), file.size(), 0) == static_cast<ssize_t>(file.size()));
  ::close(fd);

  static lake::io::PosixFileSystem fs;
  absl::StatusOr<std::unique_ptr<CommitQueue>> opened = CommitQueue::Open(fs, Dir(), kBoot);
  Check(opened.ok());
  CommitQueue& queue = **opened;
  queue.AdoptIfStale();  // a header that does not add up is emptied

  absl::StatusOr<std::vector<QueuedCommit>> queued = queue.Queued();
  if (queued.ok()) {
    for (const QueuedCommit& q : *queued) CheckEntry(q);
  } else {
    Check(absl::IsDataLoss(queued.status()));
  }

  // The header as the queue holds it now (emptied, or as written).
  std::string now(kHeaderFieldBytes, '\0');
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  Check(fd >= 0 && ::pread(fd, now.data(), now.size(), 0) == static_cast<ssize_t>(now.size()));
  ::close(fd);
  const uint64_t next = U64At(now, 72);
  const uint64_t synced = U64At(now, 80);
  const uint64_t from = U64At(now, 88);
  if (from > synced || synced > next || next - from > kCommitQueueSlots) return 0;
  for (uint64_t seq = from; seq < next; ++seq) {
    const size_t slot = kHeaderBytes + (seq % kCommitQueueSlots) * kCommitQueueSlotBytes;
    std::optional<QueuedOutcome> outcome = queue.Outcome(seq);
    if (!outcome.has_value()) continue;
    Check(!(outcome->status.ok() && outcome->final_failure));
    if (U64At(file, slot) == seq && U32At(file, slot + 8) == kFailedState) {
      Check(!outcome->status.ok());
    }
  }

  queue.CommitSynced([](const QueuedCommit& q) {
    CheckEntry(q);
    return QueuedOutcome{absl::AbortedError("the fuzzer's settler fails every commit"), false};
  });
  for (uint64_t seq = from; seq < synced; ++seq) {
    std::optional<QueuedOutcome> outcome = queue.Outcome(seq);
    Check(outcome.has_value() && !outcome->status.ok());
  }
  return 0;
}
