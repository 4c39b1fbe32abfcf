// The collector's guards, from gc-leases' locks, leases and pins
// (collector_guards.h).
#include "engine/gc/collector_guards.h"

#include "engine/gc/gc_locks.h"
#include "engine/gc/lease_store.h"

namespace lake::gc {
namespace {

class LockHold final : public CollectorHold {
 public:
  explicit LockHold(GcHold hold) : hold_(std::move(hold)) {}

 private:
  GcHold hold_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CollectorHold>> HoldCollectorRun(io::FileSystem& fs,
                                                                const std::string& root_dir,
                                                                bool wait) {
  absl::StatusOr<GcHold> hold = HoldGcRun(fs, root_dir, wait);
  if (!hold.ok()) return hold.status();
  return std::unique_ptr<CollectorHold>(new LockHold(std::move(*hold)));
}

absl::StatusOr<std::unique_ptr<CollectorHold>> HoldReferencesForDelete(
    io::FileSystem& fs, const std::string& root_dir) {
  absl::StatusOr<GcHold> hold = HoldReferencesExclusive(fs, root_dir);
  if (!hold.ok()) return hold.status();
  return std::unique_ptr<CollectorHold>(new LockHold(std::move(*hold)));
}

absl::Status ForEachLeasedOrPinnedUri(io::FileSystem& fs, const std::string& root_dir,
                                      absl::Time now, absl::Duration lease_expiry,
                                      const std::function<absl::Status(std::string_view)>& visit) {
  return ForEachProtectedUri(fs, root_dir, now, lease_expiry, visit);
}

absl::StatusOr<std::string> DigestOfPins(io::FileSystem& fs, const std::string& root_dir) {
  return PinSetDigest(fs, root_dir);
}

}  // namespace lake::gc
