// Scrubbing a root (issue 20, item 10; `lake gc verify [--deep]`): the live
// index (live_references.h) is spilled and merged as for a plan, and every
// object it names is checked to exist with the size its referrers recorded
// — with --deep, read whole and verified (size and SHA-256, VerifiedReader).
// Every missing or damaged object is reported once per recorded identity
// (uri, size, sha256) with the tables, versions, event logs and pending
// appends that reference it; table files committed versions name are
// checked to exist, and each record of the table log a version names (a
// fragment, a deletion vector, a manifest) is read as a table's readers
// read it — whole, of its kind, its checksum matching — and reported by
// its address when it is not (missing with its segment, else
// unreadable). Leased or pinned URIs are not checked (an upload in flight
// has no object yet), nor locations outside the root's stage (a pending
// append of another stage). Nothing is changed.
#ifndef LAKE_ENGINE_GC_LIVE_VERIFIER_H_
#define LAKE_ENGINE_GC_LIVE_VERIFIER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/cancel_token.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/plan_writer.h"

namespace lake::gc {

// Referrers listed per problem; the rest are counted.
inline constexpr size_t kMaxReferrersShown = 16;

struct VerifyOptions {
  bool deep = false;
  uint64_t memory_budget = kDefaultGcMemoryBudget;
  std::string temp_dir;  // <root>/gc/tmp when empty
  GcProgressFn progress;
  const CancelToken* cancel = nullptr;
  absl::Duration lease_expiry = absl::Hours(7 * 24);
};

struct VerifyProblem {
  enum class Kind { kMissing, kSizeShort, kSizeLong, kDigestMismatch, kUnreadable };
  Kind kind = Kind::kMissing;
  std::string uri;
  uint64_t expected_size = 0;
  uint64_t observed_size = 0;
  std::string message;
  std::vector<std::string> referrers = {};  // at most kMaxReferrersShown
  uint64_t more_referrers = 0;
};

// "missing", "size-short", "size-long", "digest-mismatch", "unreadable".
std::string_view VerifyProblemName(VerifyProblem::Kind kind);

struct VerifySummary {
  uint64_t objects_checked = 0;
  uint64_t table_files_checked = 0;
  uint64_t bytes_verified = 0;  // --deep: bytes read and hashed
  uint64_t skipped = 0;         // protected URIs and locations outside the stage
  uint64_t problems = 0;
};

using VerifyProblemFn = std::function<absl::Status(const VerifyProblem& problem)>;

absl::StatusOr<VerifySummary> VerifyLiveIndex(const GcRoot& root, const VerifyOptions& options,
                                              const VerifyProblemFn& report);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_LIVE_VERIFIER_H_
