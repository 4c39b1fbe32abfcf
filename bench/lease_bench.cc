// The cost of garbage collection's protections on the write path
// (engine/gc/): one lease taken and released, as every upload of a root's
// stage does; one shared references hold, as every append does; and, as
// their yardstick, one 4 KiB append made durable in the same directory.
//
//   lease_bench DIR [COUNT]
//
// Prints "key=value" lines: p50/p99/mean microseconds of a lease taken
// synced (appended and fdatasync'ed, as an S3 stage's uploads take them)
// and unsynced (appended, as a local stage's do), of each one's release
// (one byte overwritten in place, not synced), of a shared references
// hold (open, flock, read, close), and of the fsync floor.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/gc/gc_locks.h"
#include "engine/gc/lease_store.h"
#include "io/file_system.h"

namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "lease_bench: %s\n", what.c_str());
  std::exit(1);
}

void Print(const std::string& name, std::vector<double> us) {
  std::sort(us.begin(), us.end());
  double mean = std::accumulate(us.begin(), us.end(), 0.0) / static_cast<double>(us.size());
  std::printf("%s_p50_us=%.1f\n%s_p99_us=%.1f\n%s_mean_us=%.1f\n", name.c_str(),
              us[us.size() / 2], name.c_str(),
              us[std::min(us.size() - 1, us.size() * 99 / 100)], name.c_str(), mean);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: lease_bench DIR [COUNT]");
  const std::string dir = argv[1];
  const size_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
  absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
  if (!fs.ok()) Die(fs.status().ToString());

  // Synced, as an S3 stage's uploads take them (resumable after a power
  // loss); unsynced, as a local stage's do.
  for (lake::LeaseDurability durability :
       {lake::LeaseDurability::kSynced, lake::LeaseDurability::kUnsynced}) {
    const std::string suffix = durability == lake::LeaseDurability::kSynced ? "" : "_unsynced";
    std::vector<double> take, release;
    std::shared_ptr<lake::gc::LeaseStore> store = lake::gc::LeaseStore::Open(**fs, dir);
    for (size_t i = 0; i < count; ++i) {
      // A local stage's URI, as long as real ones.
      std::string uri = absl::StrCat("file://", dir, "/stage/objects/4d/01a22ba7-ae95-7cfd-98e3-",
                                     100000000000 + i);
      auto t0 = Clock::now();
      absl::StatusOr<std::unique_ptr<lake::KeyLease>> lease = store->Lease(uri, durability);
      take.push_back(Micros(t0));
      if (!lease.ok()) Die(lease.status().ToString());
      t0 = Clock::now();
      lease->reset();
      release.push_back(Micros(t0));
    }
    Print("lease_take" + suffix, take);
    Print("lease_release" + suffix, release);
  }

  std::vector<double> hold;
  for (size_t i = 0; i < count; ++i) {
    auto t0 = Clock::now();
    absl::StatusOr<lake::gc::GcHold> held = lake::gc::HoldReferencesShared(**fs, dir);
    if (!held.ok()) Die(held.status().ToString());
    *held = lake::gc::GcHold();
    hold.push_back(Micros(t0));
  }
  Print("refs_hold_shared", hold);

  // The yardstick: a 4 KiB append made durable, in the same directory.
  std::string path = dir + "/fsync-floor";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die("open " + path);
  std::string block(4096, 'x');
  std::vector<double> floor;
  for (size_t i = 0; i < count; ++i) {
    auto t0 = Clock::now();
    if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()) ||
        ::fdatasync(fd) != 0) {
      Die("write " + path);
    }
    floor.push_back(Micros(t0));
  }
  ::close(fd);
  ::unlink(path.c_str());
  Print("fsync_4k", floor);
  return 0;
}
