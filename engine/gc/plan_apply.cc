#include "engine/gc/plan_apply.h"

#include <algorithm>
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
  // Counts `page`, just removed, into removed_.
  void CountRemoved(const PlanPage& page);
  bool CheckpointDue() const;
  // Step 3 and 4 for every page left.
  absl::Status RemovePages();
  // After RemovePages stopped with `stopped` (cancelled, a failed removal):
  // the pages removed since the last checkpoint are made durable and
  // recorded, so that the next run starts after them. Best effort.
  void RecordRemovedBeforeStop(const absl::Status& stopped);
  // Starts the checkpoint of every page removed so far on the finisher
  // thread; the one before it must have finished.
  void StartCheckpoint();
  // Makes `syncs` durable, then `next` the durable record.
  absl::Status FinishCheckpoint(PendingSyncs syncs, ApplyProgress next);
  // The record that follows the durable one, saying what removed_ says.
  ApplyProgress NextRecord() const;
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
  // The durable record: written by the finisher while it runs, read by the
  // run once it ended.
  ApplyProgress progress_;
  // What the record will say once every page removed so far is durable
  // (its seq unused); the run's alone.
  ApplyProgress removed_;
  // The removals since the last checkpoint started, and when it started.
  PendingSyncs unsynced_;
  uint64_t pages_unsynced_ = 0;
  absl::Time last_checkpoint_;
  // The finisher of the last checkpoint: it makes the removals before it
  // durable, then advances the progress record past them. Last member:
  // joined before the others go.
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
  // The removals made so far go first, so that the record counts them.
  if (absl::Status s = AwaitFinisher(); !s.ok()) return s;
  if (absl::Status s = unsynced_.Sync(); !s.ok()) return s;
  ApplyProgress voided = NextRecord();
  voided.state = ApplyProgress::State::kVoided;
  voided.next_page_sha256.clear();
  voided.reason = why.substr(0, kMaxVoidReasonBytes);
  voided.updated_unix_micros = absl::ToUnixMicros(absl::Now());
  if (absl::Status s = WriteApplyProgress(root_.fs, root_.root_dir, voided); !s.ok()) return s;
  progress_ = voided;
  pages_unsynced_ = 0;
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

absl::Status ApplyRun::FinishCheckpoint(PendingSyncs syncs, ApplyProgress next) {
  // The record is written under a temporary name while the removals are
  // synced (one journal commit can carry both); it is published only once
  // they are durable.
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

void ApplyRun::CountRemoved(const PlanPage& page) {
  ++removed_.pages_done;
  removed_.next_page_sha256 = page.next_page_sha256;
  removed_.state = page.next_page_sha256.empty() ? ApplyProgress::State::kDone
                                                 : ApplyProgress::State::kApplying;
  for (const Candidate& c : page.entries) {
    if (c.kind == CandidateKind::kStageObject) {
      ++removed_.objects_deleted;
      removed_.bytes_deleted += c.size_bytes;
    } else {
      ++removed_.table_files_deleted;
    }
  }
  ++pages_unsynced_;
}

bool ApplyRun::CheckpointDue() const {
  return removed_.state == ApplyProgress::State::kDone ||
         pages_unsynced_ >= std::max<uint64_t>(options_.checkpoint_pages, 1) ||
         absl::Now() - last_checkpoint_ >= options_.checkpoint_interval;
}

absl::Status ApplyRun::RemovePages() {
  std::string next_sha256 = progress_.next_page_sha256;
  uint64_t next_index = progress_.pages_done + 1;
  while (!next_sha256.empty()) {
    if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) return s;
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
    unsynced_.Absorb(*std::move(removed));
    CountRemoved(*page);
    if (absl::Status s = LAKE_FAILPOINT(kApplyFailpoints[4]); !s.ok()) return s;
    if (CheckpointDue()) {
      if (absl::Status s = AwaitFinisher(); !s.ok()) return s;
      StartCheckpoint();
    }
    if (options_.progress) options_.progress("deleting", removed_.pages_done, manifest_.pages);
    next_sha256 = page->next_page_sha256;
    ++next_index;
  }
  return absl::OkStatus();
}

void ApplyRun::RecordRemovedBeforeStop(const absl::Status& stopped) {
  // A voided plan has its record; a failed checkpoint says the storage
  // fails (the next run repeats the pages since the last good one).
  if (IsPlanVoided(stopped) || !AwaitFinisher().ok() || pages_unsynced_ == 0) return;
  (void)FinishCheckpoint(std::move(unsynced_), NextRecord());
  pages_unsynced_ = 0;
}

ApplyProgress ApplyRun::NextRecord() const {
  ApplyProgress next = removed_;
  next.seq = progress_.seq + 1;
  next.updated_unix_micros = absl::ToUnixMicros(absl::Now());
  return next;
}

void ApplyRun::StartCheckpoint() {
  finisher_ = std::thread([this, syncs = std::move(unsynced_), next = NextRecord()]() mutable {
    finisher_result_ = FinishCheckpoint(std::move(syncs), std::move(next));
  });
  unsynced_ = PendingSyncs();
  pages_unsynced_ = 0;
  last_checkpoint_ = absl::Now();
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
  // the fingerprint check), then — at a checkpoint, on the finisher thread,
  // while the next pages are checked and removed — the directory syncs and
  // the progress record. A checkpoint starts only once the one before it
  // is durable: a crash repeats at most the pages of the checkpoint in
  // flight and those removed since (apply_progress_format.h).
  removed_ = progress_;
  last_checkpoint_ = absl::Now();
  if (absl::Status s = RemovePages(); !s.ok()) {
    RecordRemovedBeforeStop(s);
    return s;
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
