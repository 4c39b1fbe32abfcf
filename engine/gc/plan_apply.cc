#include "engine/gc/plan_apply.h"

#include <optional>
#include <thread>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/failpoint.h"
#include "engine/gc/apply_progress_store.h"
#include "engine/gc/collector_guards.h"
#include "engine/gc/inventory.h"
#include "engine/gc/orphan_uploads.h"
#include "engine/gc/page_deleter.h"
#include "engine/gc/plan_reader.h"
#include "engine/gc/root_fingerprint.h"
#include "engine/gc/root_identity.h"
#include "engine/gc/stage_keys.h"

namespace lake::gc {
namespace {

absl::Status VoidedError(std::string_view plan_id, std::string_view why) {
  absl::Status status = absl::AbortedError(absl::StrCat(
      "plan ", std::string(plan_id), " is void: the root changed since it was made (",
      std::string(why), "); nothing more was deleted. Make a new plan."));
  status.SetPayload(std::string(kPlanVoidedPayload), absl::Cord(std::string(plan_id)));
  return status;
}

RootFingerprint PlannedFingerprint(const PlanManifest& m) {
  return RootFingerprint{m.fingerprint_tables, m.fingerprint_event_logs,
                         m.fingerprint_pending_appends, m.fingerprint_pins, m.fingerprint};
}

class ApplyRun {
 public:
  ApplyRun(const GcRoot& root, std::string_view plan_id, const ApplyOptions& options)
      : root_(root), plan_id_(plan_id), options_(options) {}

  absl::StatusOr<ApplyProgress> Run();

 private:
  absl::Status CheckEntry(const Candidate& c, uint64_t page_index);
  absl::Status Verify();
  absl::StatusOr<PendingSyncs> RemovePage(const PlanPage& page);
  absl::Status FinishPage(PendingSyncs syncs, const PlanPage& page);
  // The progress once `page` is done.
  ApplyProgress After(const PlanPage& page) const;
  absl::Status Void(const std::string& why);
  absl::Status AwaitFinisher();

  const GcRoot& root_;
  const std::string plan_id_;
  const ApplyOptions& options_;
  PlanManifest manifest_;
  PlannedUploads uploads_;
  // The identity (SHA-256) of each page in chain order, as Verify read,
  // hashed and checked it: a page deleted later must be one of these.
  std::vector<std::string> verified_pages_;
  // Written by the finisher while it runs, read by the run once it ended.
  ApplyProgress progress_;
  // The finisher of the page before the one being removed: it makes that
  // page's removals durable, then advances the progress record past it.
  // Last member: joined before the others go.
  absl::Status finisher_result_;
  std::thread finisher_;
};

// The finisher ends before the run's state goes, whatever the run returns.
struct JoinFinisher {
  std::thread& finisher;
  ~JoinFinisher() {
    if (finisher.joinable()) finisher.join();
  }
};

absl::Status ApplyRun::CheckEntry(const Candidate& c, uint64_t page_index) {
  bool ok = c.kind == CandidateKind::kStageObject
                ? StageRelativeKey(root_.stage.store(), c.uri).ok()
                : !TableOfTableFile(root_.root_dir, c.uri).empty();
  if (ok) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat("plan ", plan_id_, " page ", page_index, " names ",
                                          c.uri, ", which this root may not delete"));
}

absl::Status ApplyRun::Verify() {
  uint64_t resume_index = progress_.pages_done + 1;
  bool resume_found = progress_.seq == 0;
  uint64_t index = 0;
  absl::Status walked = ForEachPlanPage(
      root_.fs, root_.root_dir, manifest_,
      [&](const PlanPage& page, const std::string& sha256) -> absl::Status {
        ++index;
        verified_pages_.push_back(sha256);
        for (const Candidate& c : page.entries) {
          if (absl::Status s = CheckEntry(c, page.page_index); !s.ok()) return s;
        }
        if (index == resume_index) {
          if (sha256 != progress_.next_page_sha256) {
            return absl::DataLossError(absl::StrCat(
                "the progress of plan ", plan_id_, " names page ", progress_.next_page_sha256,
                " next, but the plan's page ", index, " is ", sha256));
          }
          resume_found = true;
        }
        if (options_.progress) options_.progress("verifying", index, manifest_.pages);
        return CheckCancelled(options_.cancel);
      });
  if (!walked.ok()) return walked;
  if (!resume_found) {
    return absl::DataLossError(absl::StrCat("the progress of plan ", plan_id_, " says ",
                                            progress_.pages_done, " pages are done, but it has ",
                                            manifest_.pages));
  }
  absl::StatusOr<PlannedUploads> uploads = ReadPlannedUploads(root_, plan_id_);
  if (!uploads.ok()) return uploads.status();
  uploads_ = std::move(*uploads);
  return LAKE_FAILPOINT(kApplyFailpoints[0]);
}

absl::Status ApplyRun::Void(const std::string& why) {
  ApplyProgress voided = progress_;
  ++voided.seq;
  voided.state = ApplyProgress::State::kVoided;
  voided.next_page_sha256.clear();
  voided.reason = why.substr(0, kMaxVoidReasonBytes);
  voided.updated_unix_micros = absl::ToUnixMicros(absl::Now());
  if (absl::Status s = WriteApplyProgress(root_.fs, root_.root_dir, voided); !s.ok()) return s;
  progress_ = voided;
  return VoidedError(plan_id_, why);
}

absl::StatusOr<PendingSyncs> ApplyRun::RemovePage(const PlanPage& page) {
  absl::StatusOr<std::unique_ptr<CollectorHold>> refs =
      HoldReferencesForDelete(root_.fs, root_.root_dir);
  if (!refs.ok()) return refs.status();
  // The view must include every commit made before the lock was granted: a
  // reference added to a planned object is in it, and voids the plan.
  if (root_.registry != nullptr) {
    if (absl::Status s = root_.registry->CatchUp(); !s.ok()) return s;
  }
  absl::StatusOr<RootFingerprint> now =
      ComputeRootFingerprint(root_.fs, root_.root_dir, root_.registry);
  if (!now.ok()) return now.status();
  if (now->combined != manifest_.fingerprint) {
    // The page before this one is removed: its record goes first.
    if (absl::Status s = AwaitFinisher(); !s.ok()) return s;
    return Void(now->DescribeChangeSince(PlannedFingerprint(manifest_)));
  }
  if (absl::Status s = LAKE_FAILPOINT(kApplyFailpoints[1]); !s.ok()) return s;
  DeleteOptions delete_options;
  delete_options.max_deletes_per_second = options_.max_deletes_per_second;
  delete_options.cancel = options_.cancel;
  PendingSyncs syncs;
  if (absl::Status s = RemoveStageObjects(root_, page.entries, delete_options, &syncs); !s.ok()) {
    return s;
  }
  if (absl::Status s = RemoveTableFiles(root_, page.entries, &syncs); !s.ok()) return s;
  return syncs;
}

absl::Status ApplyRun::FinishPage(PendingSyncs syncs, const PlanPage& page) {
  // The record is written under a temporary name while the removals are
  // synced (one journal commit can carry both); it is published only once
  // they are durable.
  ApplyProgress next = After(page);
  absl::StatusOr<PreparedApplyProgress> prepared;
  std::thread record([&] { prepared = PrepareApplyProgress(root_.fs, root_.root_dir, next); });
  absl::Status synced = syncs.Sync();
  record.join();
  if (!synced.ok()) {
    if (prepared.ok()) (void)root_.fs.Remove(prepared->temp_path);
    return synced;
  }
  if (!prepared.ok()) return prepared.status();
  if (absl::Status s = LAKE_FAILPOINT(kApplyFailpoints[2]); !s.ok()) return s;
  if (absl::Status s = PublishApplyProgress(root_.fs, *prepared); !s.ok()) return s;
  progress_ = next;
  return LAKE_FAILPOINT(kApplyFailpoints[3]);
}

absl::Status ApplyRun::AwaitFinisher() {
  if (finisher_.joinable()) finisher_.join();
  absl::Status result = finisher_result_;
  finisher_result_ = absl::OkStatus();
  return result;
}

ApplyProgress ApplyRun::After(const PlanPage& page) const {
  ApplyProgress next = progress_;
  ++next.seq;
  ++next.pages_done;
  next.next_page_sha256 = page.next_page_sha256;
  next.state = page.next_page_sha256.empty() ? ApplyProgress::State::kDone
                                             : ApplyProgress::State::kApplying;
  for (const Candidate& c : page.entries) {
    if (c.kind == CandidateKind::kStageObject) {
      ++next.objects_deleted;
      next.bytes_deleted += c.size_bytes;
    } else {
      ++next.table_files_deleted;
    }
  }
  next.updated_unix_micros = absl::ToUnixMicros(absl::Now());
  return next;
}

absl::StatusOr<ApplyProgress> ApplyRun::Run() {
  if (absl::Status s = CheckPlanId(plan_id_); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<CollectorHold>> hold =
      HoldCollectorRun(root_.fs, root_.root_dir, /*wait=*/false);
  if (!hold.ok()) return hold.status();
  absl::StatusOr<PlanManifest> manifest = ReadPlanManifest(root_.fs, root_.root_dir, plan_id_);
  if (!manifest.ok()) return manifest.status();
  manifest_ = std::move(*manifest);
  if (manifest_.root_id != root_.root_id) {
    return absl::InvalidArgumentError(absl::StrCat("plan ", plan_id_, " was made for root ",
                                                   manifest_.root_id, ", not this root (",
                                                   root_.root_id, ")"));
  }
  if (manifest_.stage_descriptor != root_.stage_descriptor) {
    return absl::InvalidArgumentError(absl::StrCat("plan ", plan_id_, " was made for stage ",
                                                   manifest_.stage_descriptor, ", not ",
                                                   root_.stage_descriptor));
  }
  if (absl::Status s = CheckStageOwnership(root_.stage.store(), root_.root_id); !s.ok()) return s;
  absl::StatusOr<std::optional<ApplyProgress>> loaded =
      LoadApplyProgress(root_.fs, root_.root_dir, plan_id_);
  if (!loaded.ok()) return loaded.status();
  if (loaded->has_value()) {
    progress_ = **loaded;
    if (progress_.state == ApplyProgress::State::kDone) return progress_;
    if (progress_.state == ApplyProgress::State::kVoided) {
      return VoidedError(plan_id_, progress_.reason);
    }
  } else {
    progress_.plan_id = plan_id_;
    progress_.next_page_sha256 = manifest_.first_page_sha256;
  }
  if (absl::Status s = Verify(); !s.ok()) return s;
  absl::StatusOr<uint64_t> aborted =
      AbortPlannedUploads(root_, uploads_, options_.lease_expiry, options_.cancel);
  if (!aborted.ok()) return aborted.status();
  if (options_.uploads_aborted != nullptr) *options_.uploads_aborted = *aborted;
  if (manifest_.pages == 0) {
    progress_.state = ApplyProgress::State::kDone;
    ++progress_.seq;
    progress_.updated_unix_micros = absl::ToUnixMicros(absl::Now());
    if (absl::Status s = WriteApplyProgress(root_.fs, root_.root_dir, progress_); !s.ok()) return s;
    return progress_;
  }
  JoinFinisher join{finisher_};
  // Pages go through two steps: removal (under the references lock, after
  // the fingerprint check), then — on the finisher thread, while the next
  // page is checked and removed — the directory syncs and the progress
  // record. A page is removed only once the record of the page two before
  // it is durable: a crash repeats at most the page in flight and the one
  // before it (whose removals are done; apply_progress_format.h).
  std::string next_sha256 = progress_.next_page_sha256;
  uint64_t next_index = progress_.pages_done + 1;
  while (!next_sha256.empty()) {
    if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) {
      (void)AwaitFinisher();
      return s;
    }
    // Read again, and checked against the chain by its hash: a page swapped
    // since the verification is refused here. Its bytes are then the ones
    // Verify checked entry by entry, so its entries are not checked again.
    if (next_index > verified_pages_.size() || verified_pages_[next_index - 1] != next_sha256) {
      return absl::InternalError(absl::StrCat("plan ", plan_id_, " page ", next_index,
                                              " is not the page the verification read"));
    }
    absl::StatusOr<PlanPage> page =
        ReadPlanPage(root_.fs, root_.root_dir, manifest_, next_sha256, next_index);
    if (!page.ok()) return page.status();
    absl::StatusOr<PendingSyncs> removed = RemovePage(*page);
    if (!removed.ok()) return removed.status();
    if (absl::Status s = LAKE_FAILPOINT(kApplyFailpoints[4]); !s.ok()) return s;
    if (absl::Status s = AwaitFinisher(); !s.ok()) return s;
    if (options_.progress && progress_.pages_done > 0) {
      options_.progress("deleting", progress_.pages_done, manifest_.pages);
    }
    next_sha256 = page->next_page_sha256;
    ++next_index;
    finisher_ = std::thread([this, syncs = *std::move(removed), page = *std::move(page)]() mutable {
      finisher_result_ = FinishPage(std::move(syncs), page);
    });
  }
  if (absl::Status s = AwaitFinisher(); !s.ok()) return s;
  if (options_.progress) options_.progress("deleting", progress_.pages_done, manifest_.pages);
  return progress_;
}

}  // namespace

absl::StatusOr<ApplyProgress> ApplyPlan(const GcRoot& root, std::string_view plan_id,
                                        const ApplyOptions& options) {
  ApplyRun run(root, plan_id, options);
  return run.Run();
}

bool IsPlanVoided(const absl::Status& status) {
  return status.GetPayload(std::string(kPlanVoidedPayload)).has_value();
}

}  // namespace lake::gc
