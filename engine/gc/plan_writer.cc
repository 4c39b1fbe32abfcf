#include "engine/gc/plan_writer.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "base/failpoint.h"
#include "engine/gc/collector_guards.h"
#include "engine/gc/gc_layout.h"
#include "engine/gc/inventory.h"
#include "engine/gc/live_index.h"
#include "engine/gc/live_references.h"
#include "engine/gc/plan_page_format.h"
#include "engine/gc/root_fingerprint.h"
#include "engine/gc/root_identity.h"
#include "engine/gc/stage_keys.h"
#include "engine/managed_key.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"
#include "spill/spill_sorter.h"

namespace lake::gc {
namespace {

constexpr std::string_view kDraftDir = "draft";
// The live index is walked on two threads (two cores read deltas and sort).
constexpr size_t kLiveParts = 2;
constexpr uint64_t kProgressEvery = 10000;

// An inventory record: the uri, a NUL (no uri holds one, so records sort
// by uri), then the kind, size and modification time (fixed width).
std::string InventoryRecord(const Candidate& c) {
  std::string record = c.uri;
  record.push_back('\0');
  record.push_back(static_cast<char>(c.kind));
  uint64_t fields[2] = {c.size_bytes, static_cast<uint64_t>(c.modified_unix_micros)};
  record.append(reinterpret_cast<const char*>(fields), sizeof fields);
  return record;
}

absl::StatusOr<Candidate> DecodeInventoryRecord(std::string_view record) {
  size_t nul = record.find('\0');
  if (nul == std::string_view::npos || record.size() != nul + 1 + 1 + 16) {
    return absl::InternalError("a spilled inventory record has the wrong shape");
  }
  Candidate c;
  c.uri = std::string(record.substr(0, nul));
  c.kind = static_cast<CandidateKind>(record[nul + 1]);
  uint64_t fields[2];
  std::memcpy(fields, record.data() + nul + 2, sizeof fields);
  c.size_bytes = fields[0];
  c.modified_unix_micros = static_cast<int64_t>(fields[1]);
  return c;
}

// One spilled sort with its own budget.
struct Sort {
  std::unique_ptr<spill::SpillBudget> budget;
  std::unique_ptr<spill::SpillSorter> sorter;
  std::unique_ptr<spill::SortedRecords> sorted;
  uint64_t added = 0;
};

absl::StatusOr<Sort> NewSort(io::FileSystem& fs, const std::string& dir, uint64_t budget_bytes) {
  Sort sort;
  sort.budget = std::make_unique<spill::SpillBudget>(budget_bytes);
  absl::StatusOr<std::unique_ptr<spill::SpillSorter>> sorter =
      spill::SpillSorter::Create(fs, dir, *sort.budget);
  if (!sorter.ok()) return sorter.status();
  sort.sorter = std::move(*sorter);
  return sort;
}

void Report(const PlanOptions& options, std::string_view phase, uint64_t done, uint64_t total) {
  if (options.progress) options.progress(phase, done, total);
}

std::string DraftPath(const std::string& plan_dir, uint64_t index) {
  return absl::StrFormat("%s/%s/%010u", plan_dir, std::string(kDraftDir), index);
}

// Writes `bytes` as the new file `path` and syncs it (no directory sync:
// the caller syncs the directory once for all of them).
absl::Status WriteSynced(io::FileSystem& fs, const std::string& path, std::string_view bytes,
                         bool sync) {
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.CreateNew(path, false);
  if (!file.ok()) return file.status();
  if (absl::Status s = io::WriteFullyAt(**file, bytes, 0); !s.ok()) return s;
  if (sync) {
    if (absl::Status s = (*file)->Sync(); !s.ok()) return s;
  }
  return (*file)->Close();
}

// Removes plan directories without a manifest (drafts a crash left), and
// published plans beyond the newest kKeptPlans with their progress.
absl::Status RemoveOldPlans(io::FileSystem& fs, const std::string& root_dir,
                            const std::string& keep_plan_id) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(PlansDirOf(root_dir));
  if (absl::IsNotFound(names.status())) return absl::OkStatus();
  if (!names.ok()) return names.status();
  std::vector<std::string> published;
  for (const std::string& name : *names) {
    if (name == keep_plan_id) continue;
    std::string dir = PlanDirOf(root_dir, name);
    absl::StatusOr<io::FileInfo> manifest =
        fs.Stat(absl::StrCat(dir, "/", std::string(kManifestFile)));
    if (manifest.ok()) {
      published.push_back(name);
      continue;
    }
    if (!absl::IsNotFound(manifest.status())) return manifest.status();
    if (absl::Status s = io::RemoveTree(fs, dir); !s.ok()) return s;
  }
  // Plan ids are UUIDv7s: name order is age order.
  std::sort(published.begin(), published.end());
  size_t keep_others = kKeptPlans - 1;
  for (size_t i = 0; i + keep_others < published.size(); ++i) {
    if (absl::Status s = io::RemoveTree(fs, PlanDirOf(root_dir, published[i])); !s.ok()) return s;
    if (absl::Status s = io::RemoveTree(fs, ProgressDirOf(root_dir, published[i])); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

class PlanRun {
 public:
  PlanRun(const GcRoot& root, const PlanOptions& options)
      : root_(root), options_(options), plan_id_(NewUuidV7()),
        plan_dir_(PlanDirOf(root.root_dir, plan_id_)) {}

  absl::StatusOr<PlanSummary> Run();

 private:
  absl::Status Prepare();
  absl::Status List();
  absl::Status Index();
  absl::Status Merge();
  absl::Status AddCandidate(const Candidate& candidate);
  absl::Status FlushDraft();
  absl::Status Seal();
  absl::Status Publish();
  // Whether a listed entry may be collected (besides being unreferenced).
  bool Eligible(const Candidate& c);
  absl::Status Cancelled() const { return CheckCancelled(options_.cancel); }

  const GcRoot& root_;
  const PlanOptions& options_;
  const std::string plan_id_;
  const std::string plan_dir_;
  std::unique_ptr<CollectorHold> run_hold_;
  std::string temp_dir_;
  Sort inventory_;
  std::unique_ptr<LiveIndex> live_;
  absl::Time listing_time_;
  absl::Time snapshot_time_;
  RootFingerprint fingerprint_;
  absl::flat_hash_set<std::string> registered_tables_;
  std::vector<Candidate> draft_;
  uint64_t drafts_ = 0;
  bool published_ = false;
  PlanSummary summary_;
};

absl::Status PlanRun::Prepare() {
  if (absl::Status s = CheckPlanOptions(options_); !s.ok()) return s;
  if (absl::Status s = CheckStageOwnership(root_.stage.store(), root_.root_id); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<CollectorHold>> hold =
      HoldCollectorRun(root_.fs, root_.root_dir, /*wait=*/false);
  if (!hold.ok()) return hold.status();
  run_hold_ = std::move(*hold);
  if (absl::Status s = RemoveOldPlans(root_.fs, root_.root_dir, ""); !s.ok()) return s;
  temp_dir_ = SpillParentDir(root_.root_dir, options_.temp_dir);
  // Half the budget for the inventory, half for the live index.
  absl::StatusOr<Sort> inventory = NewSort(
      root_.fs, spill::SpillDirectoryPath(temp_dir_, absl::StrCat(plan_id_, "-inventory")), options_.memory_budget / 2);
  if (!inventory.ok()) return inventory.status();
  inventory_ = std::move(*inventory);
  return absl::OkStatus();
}

absl::Status PlanRun::List() {
  listing_time_ = absl::Now();
  auto add = [&](const Candidate& c) -> absl::Status {
    if (c.kind == CandidateKind::kStageObject) {
      ++summary_.listed_objects;
    } else {
      ++summary_.listed_table_files;
    }
    if (absl::Status s = inventory_.sorter->Add(InventoryRecord(c)); !s.ok()) return s;
    if (++inventory_.added % kProgressEvery == 0) {
      Report(options_, "listing", inventory_.added, 0);
      if (absl::Status s = Cancelled(); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  if (absl::Status s = ListStageObjects(root_, options_.list_streams, add); !s.ok()) return s;
  if (absl::Status s = ListTableFiles(root_, add); !s.ok()) return s;
  Report(options_, "listing", inventory_.added, inventory_.added);
  return LAKE_FAILPOINT(kPlanFailpoints[0]);
}

absl::Status PlanRun::Index() {
  if (root_.registry != nullptr) {
    if (absl::Status s = root_.registry->CatchUp(); !s.ok()) return s;
  }
  snapshot_time_ = absl::Now();
  absl::StatusOr<RootFingerprint> before =
      ComputeRootFingerprint(root_.fs, root_.root_dir, root_.registry);
  if (!before.ok()) return before.status();
  if (root_.registry != nullptr) {
    absl::StatusOr<std::vector<registry::TableRecord>> tables = root_.registry->ListTables();
    if (!tables.ok()) return tables.status();
    for (const registry::TableRecord& t : *tables) registered_tables_.insert(t.name.ToString());
    // A dropped table's files are the plan's once the cutoff has passed
    // since the drop (until then the live index holds them).
    absl::StatusOr<std::vector<registry::DroppedTableRecord>> dropped =
        root_.registry->ListDroppedTables();
    if (!dropped.ok()) return dropped.status();
    for (const registry::DroppedTableRecord& d : *dropped) {
      if (absl::FromUnixMicros(d.dropped_unix_micros) < listing_time_ - options_.cutoff) {
        registered_tables_.insert(DroppedTableOwner(d.table.table_id));
      }
    }
  }
  LiveIndexOptions live_options;
  live_options.temp_dir = temp_dir_;
  live_options.run_id = plan_id_;
  live_options.memory_budget = options_.memory_budget - options_.memory_budget / 2;
  live_options.parts = kLiveParts;
  live_options.now = snapshot_time_;
  live_options.lease_expiry = options_.lease_expiry;
  live_options.released_before = listing_time_ - options_.cutoff;
  live_options.cancel = options_.cancel;
  absl::StatusOr<std::unique_ptr<LiveIndex>> live = LiveIndex::Build(root_, live_options);
  if (!live.ok()) return live.status();
  live_ = std::move(*live);
  summary_.live_references = live_->references();
  Report(options_, "indexing", live_->references(), live_->references());
  absl::StatusOr<RootFingerprint> after =
      ComputeRootFingerprint(root_.fs, root_.root_dir, root_.registry);
  if (!after.ok()) return after.status();
  if (!(*after == *before)) {
    return absl::AbortedError(absl::StrCat(
        "the root changed while its live index was read (", after->DescribeChangeSince(*before),
        "): nothing was planned; run the plan again"));
  }
  fingerprint_ = *after;
  return LAKE_FAILPOINT(kPlanFailpoints[1]);
}

bool PlanRun::Eligible(const Candidate& c) {
  if (c.modified_unix_micros > absl::ToUnixMicros(listing_time_ - options_.cutoff)) return false;
  if (c.kind == CandidateKind::kStageObject) {
    DataLocation location;
    location.uri = c.uri;
    return root_.stage.store().CheckContainment(location).ok();
  }
  std::string table = TableOfTableFile(root_.root_dir, c.uri);
  return !table.empty() && registered_tables_.contains(table);
}

absl::Status PlanRun::AddCandidate(const Candidate& c) {
  PlanManifest& m = summary_.manifest;
  if (c.kind == CandidateKind::kStageObject) {
    ++m.objects;
    m.object_bytes += c.size_bytes;
    absl::StatusOr<std::string> key = StageRelativeKey(root_.stage.store(), c.uri);
    TenantTotals& t = summary_.tenants[key.ok() ? TenantOfKey(*key) : ""];
    ++t.objects;
    t.bytes += c.size_bytes;
  } else {
    ++m.table_files;
    m.table_file_bytes += c.size_bytes;
  }
  draft_.push_back(c);
  if (draft_.size() >= options_.page_entries) return FlushDraft();
  return absl::OkStatus();
}

absl::Status PlanRun::FlushDraft() {
  if (draft_.empty()) return absl::OkStatus();
  PlanPage page;
  page.page_index = ++drafts_;
  page.plan_id = plan_id_;
  page.entries = std::move(draft_);
  draft_.clear();
  absl::StatusOr<EncodedPlanPage> encoded = EncodePlanPage(page);
  if (!encoded.ok()) return encoded.status();
  // Drafts are scratch: a crash before the manifest leaves a draft plan,
  // which the next plan removes, so they are not synced.
  return WriteSynced(root_.fs, DraftPath(plan_dir_, drafts_), encoded->bytes, /*sync=*/false);
}

absl::Status PlanRun::Merge() {
  absl::StatusOr<std::unique_ptr<spill::SortedRecords>> inventory = inventory_.sorter->Finish();
  if (!inventory.ok()) return inventory.status();
  inventory_.sorted = std::move(*inventory);
  LiveIndex& live = *live_;
  if (absl::Status s = io::CreateDirectoriesDurably(
          root_.fs, absl::StrCat(plan_dir_, "/", std::string(kDraftDir)));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<bool> live_more = live.Next();
  if (!live_more.ok()) return live_more.status();
  uint64_t merged = 0;
  std::string previous_uri;
  for (;;) {
    absl::StatusOr<bool> more = inventory_.sorted->Next();
    if (!more.ok()) return more.status();
    if (!*more) break;
    absl::StatusOr<Candidate> entry = DecodeInventoryRecord(inventory_.sorted->record());
    if (!entry.ok()) return entry.status();
    // One uri listed twice (an object moved between tenants' listings is
    // impossible; a file seen twice is not): keep the first.
    if (entry->uri == previous_uri) continue;
    previous_uri = entry->uri;
    while (*live_more && live.record() < std::string_view(entry->uri)) {
      live_more = live.Next();
      if (!live_more.ok()) return live_more.status();
    }
    bool referenced = *live_more && live.record() == std::string_view(entry->uri);
    if (!referenced && Eligible(*entry)) {
      if (absl::Status s = AddCandidate(*entry); !s.ok()) return s;
    }
    if (++merged % kProgressEvery == 0) {
      Report(options_, "merging", merged, inventory_.added);
      if (absl::Status s = Cancelled(); !s.ok()) return s;
    }
  }
  if (absl::Status s = FlushDraft(); !s.ok()) return s;
  Report(options_, "merging", merged, merged);
  inventory_.sorted.reset();
  live_.reset();
  return LAKE_FAILPOINT(kPlanFailpoints[2]);
}

absl::Status PlanRun::Seal() {
  std::string pages_dir = absl::StrCat(plan_dir_, "/", std::string(kPagesDir));
  if (absl::Status s = io::CreateDirectoriesDurably(root_.fs, pages_dir); !s.ok()) return s;
  std::string next;
  std::string first_uri_after;  // the first uri of the page after this one
  uint64_t objects = 0, object_bytes = 0, table_files = 0, table_file_bytes = 0;
  for (uint64_t index = drafts_; index >= 1; --index) {
    absl::StatusOr<std::string> bytes =
        io::ReadWholeFile(root_.fs, DraftPath(plan_dir_, index), kMaxPlanPageBytes);
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<PlanPage> page = DecodePlanPage(*bytes, nullptr);
    if (!page.ok()) return page.status();
    if (page->page_index != index || page->plan_id != plan_id_ ||
        page->entries.size() > options_.page_entries ||
        (!first_uri_after.empty() && !(page->entries.back().uri < first_uri_after))) {
      return absl::InternalError(absl::StrCat("draft page ", index, " does not follow its stream"));
    }
    for (const Candidate& c : page->entries) {
      if (c.kind == CandidateKind::kStageObject) {
        ++objects;
        object_bytes += c.size_bytes;
      } else {
        ++table_files;
        table_file_bytes += c.size_bytes;
      }
    }
    first_uri_after = page->entries.front().uri;
    page->next_page_sha256 = next;
    absl::StatusOr<EncodedPlanPage> sealed = EncodePlanPage(*page);
    if (!sealed.ok()) return sealed.status();
    if (absl::Status s =
            WriteSynced(root_.fs, PagePath(plan_dir_, sealed->sha256), sealed->bytes, true);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = LAKE_FAILPOINT(kPlanFailpoints[3]); !s.ok()) return s;
    next = sealed->sha256;
    Report(options_, "sealing", drafts_ - index + 1, drafts_);
    if (absl::Status s = Cancelled(); !s.ok()) return s;
  }
  const PlanManifest& m = summary_.manifest;
  if (objects != m.objects || object_bytes != m.object_bytes || table_files != m.table_files ||
      table_file_bytes != m.table_file_bytes) {
    return absl::InternalError("the draft pages do not add up to the merge's totals");
  }
  summary_.manifest.pages = drafts_;
  summary_.manifest.first_page_sha256 = next;
  if (absl::Status s = io::SyncDirectory(root_.fs, pages_dir); !s.ok()) return s;
  if (absl::Status s = io::RemoveTree(root_.fs, absl::StrCat(plan_dir_, "/", std::string(kDraftDir)));
      !s.ok()) {
    return s;
  }
  return LAKE_FAILPOINT(kPlanFailpoints[4]);
}

absl::Status PlanRun::Publish() {
  PlanManifest& m = summary_.manifest;
  m.plan_id = plan_id_;
  m.root_id = root_.root_id;
  m.stage_descriptor = root_.stage_descriptor;
  m.cutoff_seconds = static_cast<uint64_t>(absl::ToInt64Seconds(options_.cutoff));
  m.created_unix_micros = absl::ToUnixMicros(absl::Now());
  m.listing_unix_micros = absl::ToUnixMicros(listing_time_);
  m.snapshot_unix_micros = absl::ToUnixMicros(snapshot_time_);
  m.fingerprint = fingerprint_.combined;
  m.fingerprint_tables = fingerprint_.tables;
  m.fingerprint_event_logs = fingerprint_.event_logs;
  m.fingerprint_pending_appends = fingerprint_.pending_appends;
  m.fingerprint_pins = fingerprint_.pins;
  absl::StatusOr<std::string> text = EncodePlanManifest(m);
  if (!text.ok()) return text.status();
  std::string path = absl::StrCat(plan_dir_, "/", std::string(kManifestFile));
  if (absl::Status s = io::WriteWholeFileDurably(root_.fs, path,
                                                 absl::StrCat(path, ".", NewUuidV7(), ".tmp"), *text);
      !s.ok()) {
    return s;
  }
  published_ = true;
  return LAKE_FAILPOINT(kPlanFailpoints[5]);
}

absl::StatusOr<PlanSummary> PlanRun::Run() {
  for (absl::Status (PlanRun::*step)() :
       {&PlanRun::Prepare, &PlanRun::List, &PlanRun::Index, &PlanRun::Merge, &PlanRun::Seal,
        &PlanRun::Publish}) {
    absl::Status s = (this->*step)();
    if (!s.ok()) {
      // What this run wrote goes (a crash leaves it for the next plan); the
      // sorts remove their own spill directories.
      if (run_hold_ != nullptr && !published_) (void)io::RemoveTree(root_.fs, plan_dir_);
      return s;
    }
  }
  if (absl::Status s = RemoveOldPlans(root_.fs, root_.root_dir, plan_id_); !s.ok()) return s;
  return std::move(summary_);
}

}  // namespace

absl::Status CheckPlanOptions(const PlanOptions& options) {
  if (options.cutoff < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("the cutoff must not be negative");
  }
  if (options.cutoff < kMinimumCutoff && !options.allow_short_cutoff) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a cutoff under ", absl::FormatDuration(kMinimumCutoff),
        " may collect an upload whose INSERT has not committed yet; allow it explicitly "
        "(--allow-short-cutoff) if every writer holds leases"));
  }
  if (options.page_entries < 1 || options.page_entries > kMaxPlanPageEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat("plan pages hold 1..", kMaxPlanPageEntries, " entries"));
  }
  if (options.list_streams < 1 || options.list_streams > kMaxListStreams) {
    return absl::InvalidArgumentError(
        absl::StrCat("a plan lists on 1..", kMaxListStreams, " streams"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PlanSummary> WritePlan(const GcRoot& root, const PlanOptions& options) {
  PlanRun run(root, options);
  return run.Run();
}

}  // namespace lake::gc
