#include "engine/table/table_store.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <future>
#include <iterator>
#include <numeric>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/failpoint.h"
#include "engine/gc/gc_locks.h"
#include "engine/managed_key.h"
#include "engine/operation_id.h"
#include "engine/sha256.h"
#include "engine/table/append_checkpoint_format.h"
#include "engine/table/append_checkpoint_replay.h"
#include "engine/table/cell_text.h"
#include "engine/table/deletion_vector_format.h"
#include "engine/table/derived_reference_delta_format.h"
#include "engine/table/fragment_blocks.h"
#include "engine/table/fragment_format.h"
#include "engine/table/pending_append_error.h"
#include "engine/table/reference_delta_format.h"
#include "engine/table/table_log.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"
#include "registry/commit_errors.h"

namespace lake::table {
namespace {

constexpr std::string_view kDataDir = kTableDataDir;
constexpr std::string_view kVersionsDir = kTableVersionsDir;
constexpr size_t kMaxFragmentBytes = size_t{2} << 30;

int64_t NowMicros() { return absl::ToUnixMicros(absl::Now()); }

// The NotFound of a scan of a version an expiry retired.
absl::Status ExpiredVersionError(const std::string& table, uint64_t version,
                                 const registry::RetiredVersionRecord& retired) {
  return absl::NotFoundError(absl::StrCat(
      "version ", version, " of ", table, " was expired at ",
      FormatTimestampMicros(retired.retired_unix_micros),
      " and can no longer be read (tag a version to keep it from expiring)"));
}

// Writes `bytes` as `path` durably, replacing an uncommitted leftover of a
// crashed attempt (the caller knows no committed version names it).
absl::Status WriteReplacingLeftover(io::FileSystem& fs, const std::string& path,
                                    std::string_view bytes) {
  std::string temp = absl::StrCat(path, ".", NewUuidV7(), ".tmp");
  absl::Status written = io::WriteWholeFileDurably(fs, path, temp, bytes);
  if (absl::IsAlreadyExists(written)) {
    if (absl::Status s = fs.Remove(path); !s.ok() && !absl::IsNotFound(s)) return s;
    written = io::WriteWholeFileDurably(fs, path, temp, bytes);
  }
  return written;
}

// Writes the reference delta of `version` durably, replacing one left by
// an attempt that never committed (the caller holds the commit lock and
// knows the registry has no such version).
absl::Status WriteVersionDelta(io::FileSystem& fs, const std::string& table_dir, uint64_t version,
                               const EncodedReferenceDelta& delta) {
  absl::StatusOr<std::string> digest = WriteEncodedReferenceDelta(fs, table_dir, version, delta);
  if (absl::IsAlreadyExists(digest.status())) {
    if (absl::Status s = RemoveUncommittedReferenceDelta(fs, table_dir, version); !s.ok()) {
      return s;
    }
    digest = WriteEncodedReferenceDelta(fs, table_dir, version, delta);
  }
  return digest.status();
}

// Best effort: a file no version can ever reference.
void RemoveUnreferencedFile(io::FileSystem& fs, const std::string& path) {
  if (absl::Status s = fs.Remove(path); !s.ok()) {
    // Unreferenced either way: only space, until a collection.
    std::fprintf(stderr, "lake: could not remove unreferenced file %s: %s\n", path.c_str(),
                 s.ToString().c_str());
  }
}

// The bytes of fragment `ref`, of the size its manifest entry says.
// DataLoss when it is missing or of another size.
absl::StatusOr<std::string> ReadFragmentBytes(io::FileSystem& fs, const std::string& table_dir,
                                              const FragmentRef& ref) {
  absl::StatusOr<std::string> bytes =
      ReadTablePath(fs, table_dir, ref.path, kMaxFragmentBytes, TableLogRecordKind::kFragment);
  if (absl::IsNotFound(bytes.status())) {
    return absl::DataLossError(absl::StrCat("fragment ", ref.path, " is missing"));
  }
  if (!bytes.ok()) return bytes.status();
  if (bytes->size() != ref.size_bytes) {
    return absl::DataLossError(absl::StrCat("fragment ", ref.path, " has ", bytes->size(),
                                            " bytes, its manifest says ", ref.size_bytes));
  }
  return bytes;
}

// A damaged fragment's DataLoss, naming it.
absl::Status FragmentDamaged(const FragmentRef& ref, const absl::Status& cause) {
  return absl::DataLossError(absl::StrCat("fragment ", ref.path, ": ", std::string(cause.message())));
}

// The blocks of `bytes` (fragment `ref`'s), their digest and header checked
// against its manifest entry. DataLoss when damaged.
absl::StatusOr<FragmentBlocks> OpenFragmentBlocks(std::string_view bytes, const FragmentRef& ref,
                                                  const Schema& schema) {
  absl::StatusOr<FragmentBlocks> blocks = FragmentBlocks::Open(bytes, schema);
  if (!blocks.ok()) return FragmentDamaged(ref, blocks.status());
  if (blocks->rows() != ref.rows) {
    return absl::DataLossError(absl::StrCat("fragment ", ref.path, " has ", blocks->rows(),
                                            " rows, its manifest says ", ref.rows));
  }
  return blocks;
}

// Decodes the columns `wanted` of `bytes` (fragment `ref`'s) into `batch`,
// leaving its other columns as they are, checked against its manifest
// entry. DataLoss when damaged.
absl::Status DecodeFragmentInto(std::string_view bytes, const FragmentRef& ref,
                                const Schema& schema, const std::vector<bool>& wanted,
                                ColumnBatch* batch) {
  absl::StatusOr<FragmentBlocks> blocks = OpenFragmentBlocks(bytes, ref, schema);
  if (!blocks.ok()) return blocks.status();
  if (absl::Status s = blocks->DecodeColumns(wanted, batch); !s.ok()) return FragmentDamaged(ref, s);
  return absl::OkStatus();
}

// The columns `wanted` of fragment `ref` (the others empty), read and
// checked against its manifest entry. DataLoss when it is missing or
// damaged.
absl::StatusOr<ColumnBatch> ReadFragmentColumns(io::FileSystem& fs, const std::string& table_dir,
                                                const FragmentRef& ref, const Schema& schema,
                                                const std::vector<bool>& wanted) {
  absl::StatusOr<std::string> bytes = ReadFragmentBytes(fs, table_dir, ref);
  if (!bytes.ok()) return bytes.status();
  ColumnBatch batch = ColumnBatch::Empty(schema);
  if (absl::Status s = DecodeFragmentInto(*bytes, ref, schema, wanted, &batch); !s.ok()) return s;
  return batch;
}

// Calls `visit(uri, row, column)` for every non-null FILE cell of the rows
// of `batch` that `deleted` (ascending) does not list: the cell's URI
// first, so a caller builds the whole DataLocation only for the cells it
// wants.
template <typename Visit>
void ForEachLiveFileCell(const ColumnBatch& batch, const std::vector<uint32_t>& deleted,
                         Visit visit) {
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    const ColumnData& column = batch.columns[c];
    if (column.type != ColumnType::kFile) continue;
    size_t next_deleted = 0;
    for (size_t row = 0; row < batch.num_rows; ++row) {
      if (next_deleted < deleted.size() && deleted[next_deleted] == row) {
        ++next_deleted;
        continue;
      }
      if (column.IsNull(row)) continue;
      visit(column.strings.At(row), row, c);
    }
  }
}

// Hashes a whole location, for sets of them.
struct DataLocationHash {
  size_t operator()(const DataLocation& l) const {
    return absl::HashOf(l.uri, l.content_type, l.size_bytes, l.sha256);
  }
};

// The hash a DELETE files a FILE cell's URI under while it finds which
// released locations a live row still references: equal URIs, equal
// hashes; a hash shared by two URIs only sends the check to read the
// fragment again (the locations themselves are compared there).
uint64_t UriHash(std::string_view uri) { return Checksum64(uri); }

// What a DELETE (or a replace-where) changes in one fragment, worked out
// on a pool thread: which rows it deletes, the locations their FILE cells
// held, and the URIs its live rows still hold.
struct FragmentChange {
  std::vector<uint32_t> fresh;          // the rows newly deleted, ascending
  std::vector<uint32_t> deleted_after;  // every deleted row after it (if `fresh` is not empty)
  std::vector<DataLocation> released;   // the non-null FILE cells of the `fresh` rows
  // When `live_uris_known`: UriHash of each non-null FILE cell of every row
  // not deleted after the change (in row order, repeats kept). Known when
  // the FILE columns were decoded (the fragment has fresh rows).
  bool live_uris_known = false;
  std::vector<uint64_t> live_uri_hashes;
};

// The FILE cells ChangeFragment decodes, one set per pool thread, reused
// from fragment to fragment: decoding into buffers of the right size
// already allocates and zero-fills nothing. Emptied after a fragment that
// made them larger than kMaxKeptFileCellBytes, so that no thread keeps a
// huge fragment's worth.
ColumnData& FileCellsOfThisThread() {
  thread_local ColumnData cells;
  return cells;
}

constexpr size_t kMaxKeptFileCellBytes = size_t{16} << 20;

void ReleaseIfLarge(ColumnData& cells) {
  const size_t bytes = cells.strings.bytes.capacity() + cells.content_types.bytes.capacity() +
                       cells.sha256s.bytes.capacity() +
                       cells.valid.capacity() * (1 + 3 * sizeof(uint32_t) + sizeof(int64_t));
  if (bytes > kMaxKeptFileCellBytes) cells = ColumnData();
}

// What `change.fresh` releases and which URIs the live rows keep, from the
// FILE columns of `blocks` (fragment `ref`'s): only the fresh rows' cells
// are read whole (and checked), of the others only the uri.
absl::Status ReadFileCellsOfChange(const FragmentBlocks& blocks, const FragmentRef& ref,
                                   const Schema& schema, FragmentChange& change) {
  ColumnData& cells = FileCellsOfThisThread();
  absl::Cleanup release = [&cells] { ReleaseIfLarge(cells); };
  change.live_uris_known = true;
  size_t file_columns = 0;
  for (const ColumnSpec& column : schema.columns) file_columns += column.type == ColumnType::kFile;
  change.live_uri_hashes.reserve(file_columns * (ref.rows - change.deleted_after.size()));
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    if (schema.columns[c].type != ColumnType::kFile) continue;
    if (absl::Status s = blocks.DecodeFileCells(c, change.fresh, &cells); !s.ok()) {
      return FragmentDamaged(ref, s);
    }
    for (uint32_t row : change.fresh) {
      if (cells.IsNull(row)) continue;
      change.released.push_back(DataLocation{
          std::string(cells.strings.At(row)), std::string(cells.content_types.At(row)),
          static_cast<uint64_t>(cells.int64s[row]), std::string(cells.sha256s.At(row))});
    }
    size_t next_deleted = 0;
    const std::vector<uint32_t>& deleted = change.deleted_after;
    for (size_t row = 0; row < ref.rows; ++row) {
      if (next_deleted < deleted.size() && deleted[next_deleted] == row) {
        ++next_deleted;
        continue;
      }
      if (!cells.IsNull(row)) change.live_uri_hashes.push_back(UriHash(cells.strings.At(row)));
    }
  }
  return absl::OkStatus();
}

// Step 1 of ChangeRowsLocked for fragment `ref`: its deletion vector and
// the selector's columns are read; the FILE columns only when some row is
// newly deleted, the digest checked once for both. Runs on pool threads,
// several at once (so the selector does too). DataLoss when the fragment
// or its vector is damaged.
absl::StatusOr<FragmentChange> ChangeFragment(io::FileSystem& fs, const std::string& table_dir,
                                              const FragmentRef& ref, const Schema& schema,
                                              const RowSelector& selector) {
  absl::StatusOr<std::string> bytes = ReadFragmentBytes(fs, table_dir, ref);
  if (!bytes.ok()) return bytes.status();
  // Opened even when no column is wanted: the digest and the row count
  // are checked before any row is chosen.
  absl::StatusOr<FragmentBlocks> blocks = OpenFragmentBlocks(*bytes, ref, schema);
  if (!blocks.ok()) return blocks.status();
  std::vector<bool> wanted(schema.columns.size(), false);
  for (size_t column : selector.columns) wanted[column] = true;
  ColumnBatch batch = ColumnBatch::Empty(schema);
  if (absl::Status s = blocks->DecodeColumns(wanted, &batch); !s.ok()) {
    return FragmentDamaged(ref, s);
  }
  absl::StatusOr<std::vector<uint32_t>> before = ReadDeletedRows(fs, table_dir, ref);
  if (!before.ok()) return before.status();
  std::vector<uint32_t> matching;
  if (selector.matching_rows) {
    absl::StatusOr<std::vector<size_t>> rows = selector.matching_rows(batch);
    if (!rows.ok()) return rows.status();
    matching.reserve(rows->size());
    for (size_t row : *rows) {
      if (row >= ref.rows || (!matching.empty() && row <= matching.back())) {
        return absl::InternalError("a DELETE's row selector named rows out of order or range");
      }
      matching.push_back(static_cast<uint32_t>(row));
    }
  } else {
    matching.resize(ref.rows);
    std::iota(matching.begin(), matching.end(), 0u);
  }
  FragmentChange change;
  std::set_difference(matching.begin(), matching.end(), before->begin(), before->end(),
                      std::back_inserter(change.fresh));
  if (change.fresh.empty()) return change;
  change.deleted_after = MergeDeletedRows(*before, change.fresh);
  if (absl::Status s = ReadFileCellsOfChange(*blocks, ref, schema, change); !s.ok()) return s;
  return change;
}

constexpr size_t kMaxDeletionVectorBytes = EncodedDeletionVectorBytes(kMaxFragmentRows);

// What a version's manifest record is expected to take, for choosing its
// segment (table_log.h): a link of a few entries. A larger one (a
// checkpoint) still goes there, past the preallocation.
constexpr uint64_t kExpectedManifestRecordBytes = 16 << 10;

// Writes a new file of `bytes` as `path` durably; the name is fresh (a
// UUIDv7), so nothing else is ever there.
absl::Status WriteNewTableFile(io::FileSystem& fs, const std::string& path, std::string_view bytes) {
  return io::WriteWholeFileDurably(fs, path, absl::StrCat(path, ".tmp"), bytes);
}

// How many fragments a DELETE reads, decodes and chooses the rows of
// ahead of the thread that gathers them: one per pool thread (that thread
// only gathers).
constexpr size_t kDeleteReadAhead = 4;

// The most live-URI hashes (8 bytes each: 64 MiB) a DELETE keeps from its
// first pass over the touched fragments to settle which released
// locations a live row still holds without reading those fragments again;
// the fragments past it are read again, as untouched ones are.
constexpr size_t kMaxKeptLiveUriHashes = size_t{1} << 23;

// Results computed on a pool ahead of the thread that takes them in
// order; the destructor waits for every one still pending (they read the
// owner's locals).
template <typename T>
struct AheadOf {
  std::deque<std::future<T>> pending;
  ~AheadOf() {
    for (auto& result : pending) result.wait();
  }
};


// A batch an append or a replace-where may commit to `table`: of its
// schema and valid (CheckBatchContained says the rest).
absl::Status CheckBatchForTable(const registry::TableRecord& table, const ColumnBatch& batch) {
  if (!(batch.schema == table.schema)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the batch's schema is not the schema of ", table.name.ToString()));
  }
  return batch.Validate();
}

// Every FILE cell of a valid batch contained in the stage.
absl::Status CheckBatchContained(const ColumnBatch& batch, ManagedObjectStore& store) {
  DataLocation contained;  // containment reads the uri only; reused per row
  for (const ColumnData& column : batch.columns) {
    if (column.type != ColumnType::kFile) continue;
    for (size_t row = 0; row < batch.num_rows; ++row) {
      if (column.IsNull(row)) continue;
      contained.uri.assign(column.strings.At(row));
      if (absl::Status s = store.CheckContainment(contained); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<uint32_t>> ReadDeletedRows(io::FileSystem& fs,
                                                      const std::string& table_dir,
                                                      const FragmentRef& fragment) {
  if (!fragment.deletion_vector) return std::vector<uint32_t>();
  const DeletionVectorRef& ref = *fragment.deletion_vector;
  auto damaged = [&](std::string_view why) {
    return absl::DataLossError(absl::StrCat("deletion vector ", ref.path, " of fragment ",
                                            fragment.path, ": ", std::string(why)));
  };
  // A table log record (table_log.h), or a file of an older DELETE.
  absl::StatusOr<std::string> bytes = ReadTablePath(fs, table_dir, ref.path, kMaxDeletionVectorBytes,
                                                    TableLogRecordKind::kDeletionVector);
  if (absl::IsNotFound(bytes.status())) return damaged("it is missing");
  if (absl::IsDataLoss(bytes.status())) return damaged(std::string(bytes.status().message()));
  if (!bytes.ok()) return bytes.status();
  if (Sha256Hex(*bytes) != ref.sha256) return damaged("its SHA-256 is not its manifest's");
  absl::StatusOr<DeletionVector> vector = DecodeDeletionVector(*bytes);
  if (!vector.ok()) return damaged(std::string(vector.status().message()));
  if (vector->fragment_sha256 != fragment.sha256 || vector->fragment_rows != fragment.rows ||
      vector->deleted_rows.size() != ref.deleted_rows) {
    return damaged(absl::StrCat("it describes another fragment or count (", vector->fragment_rows,
                                " rows, ", vector->deleted_rows.size(), " deleted) than its manifest (",
                                fragment.rows, " rows, ", ref.deleted_rows, " deleted)"));
  }
  return std::move(vector->deleted_rows);
}

std::string_view RecoveredAppendResultName(RecoveredAppend::Result result) {
  switch (result) {
    case RecoveredAppend::Result::kCommitted: return "committed";
    case RecoveredAppend::Result::kAlreadyCommitted: return "already-committed";
    case RecoveredAppend::Result::kExpired: return "expired";
    case RecoveredAppend::Result::kRejected: return "rejected";
    case RecoveredAppend::Result::kFailed: return "failed";
  }
  return "failed";
}

std::string_view PendingAppendStateName(PendingAppend::State state) {
  switch (state) {
    case PendingAppend::State::kReplayable: return "replayable";
    case PendingAppend::State::kAlreadyCommitted: return "already-committed";
    case PendingAppend::State::kExpired: return "expired";
    case PendingAppend::State::kStuck: return "stuck";
    case PendingAppend::State::kFailed: return "failed";
  }
  return "failed";
}

bool TableScan::SkippedByStatistics(size_t index) const {
  const FragmentRef& ref = manifest_.fragments[index];
  return prefilter_ && prefilter_->statistics_may_match && ref.statistics &&
         !prefilter_->statistics_may_match(*ref.statistics, ref.rows);
}

absl::StatusOr<std::optional<ColumnBatch>> TableScan::ReadFragment(size_t index) const {
  const FragmentRef& ref = manifest_.fragments[index];
  fragments_opened_.fetch_add(1);
  absl::StatusOr<std::string> bytes =
      ReadTablePath(fs_, table_dir_, ref.path, kMaxFragmentBytes, TableLogRecordKind::kFragment);
  if (absl::IsNotFound(bytes.status())) {
    return absl::DataLossError(absl::StrCat("version ", manifest_.version, ": fragment ",
                                            ref.path, " is missing"));
  }
  if (!bytes.ok()) return bytes.status();
  if (bytes->size() != ref.size_bytes) {
    return absl::DataLossError(absl::StrCat("fragment ", ref.path, " has ", bytes->size(),
                                            " bytes, its manifest says ", ref.size_bytes));
  }
  auto damaged = [&](const absl::Status& s) {
    return absl::DataLossError(absl::StrCat("fragment ", ref.path, ": ", std::string(s.message())));
  };
  // Every column, or the prefilter's first and the others only if it wants
  // the fragment.
  const Schema& schema = manifest_.schema;
  std::vector<bool> wanted(schema.columns.size(), prefilter_ == std::nullopt);
  if (prefilter_) {
    for (size_t column : prefilter_->columns) wanted[column] = true;
  }
  ColumnBatch batch = ColumnBatch::Empty(schema);
  if (absl::Status s = DecodeFragmentColumns(*bytes, schema, wanted, &batch); !s.ok()) {
    return damaged(s);
  }
  if (batch.num_rows != ref.rows) {
    return absl::DataLossError(absl::StrCat("fragment ", ref.path, " has ", batch.num_rows,
                                            " rows, its manifest says ", ref.rows));
  }
  if (prefilter_) {
    if (!prefilter_->may_match(batch)) return std::optional<ColumnBatch>();
    wanted.flip();
    if (absl::Status s = DecodeFragmentColumns(*bytes, schema, wanted, &batch); !s.ok()) {
      return damaged(s);
    }
  }
  if (!ref.deletion_vector) return std::optional<ColumnBatch>(std::move(batch));
  absl::StatusOr<std::vector<uint32_t>> deleted = ReadDeletedRows(fs_, table_dir_, ref);
  if (!deleted.ok()) return deleted.status();
  batch.RemoveRows(*deleted);
  return std::optional<ColumnBatch>(std::move(batch));
}

absl::Status TableScan::ExplainMissing(const absl::Status& failed) const {
  if (registry_ == nullptr || !absl::IsDataLoss(failed)) return failed;
  absl::StatusOr<std::optional<registry::RetiredVersionRecord>> retired =
      registry_->GetRetiredVersion(manifest_.table_id, manifest_.version);
  if (!retired.ok() || !retired->has_value()) return failed;
  return ExpiredVersionError(table_name_, manifest_.version, **retired);
}

TableScan::~TableScan() {
  for (auto& read : ahead_) read.wait();
}

absl::StatusOr<std::optional<ColumnBatch>> TableScan::Next() {
  // Fragments past the one returned are read and decoded ahead on other
  // threads (up to kScanReadAhead), so decoding (zstd, checks) runs on
  // every core while the caller consumes; they are returned in order.
  for (;;) {
    while (next_ahead_ < manifest_.fragments.size() && ahead_.size() < kScanReadAhead) {
      if (SkippedByStatistics(next_ahead_)) {
        ++next_ahead_;
        continue;
      }
      ahead_.push_back(pool_.Run([this, index = next_ahead_] { return ReadFragment(index); }));
      ++next_ahead_;
    }
    if (ahead_.empty()) return std::optional<ColumnBatch>();
    absl::StatusOr<std::optional<ColumnBatch>> batch = ahead_.front().get();
    ahead_.pop_front();
    if (!batch.ok()) return ExplainMissing(batch.status());
    if (batch->has_value()) return batch;
  }
}

absl::StatusOr<std::unique_ptr<TableStore>> TableStore::Open(io::FileSystem& fs,
                                                             std::string root_dir,
                                                             registry::Registry& registry,
                                                             ManagedStage& stage,
                                                             std::string stage_identity,
                                                             TableStoreOptions options) {
  if (options.manifest_checkpoint_interval == 0 ||
      options.manifest_checkpoint_interval > kMaxManifestChainLength + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest_checkpoint_interval is 1..", kMaxManifestChainLength + 1));
  }
  std::optional<AppendCheckpointStore> checkpoints;
  // A writer tidies up under the commit turn: holding it, no writer of the
  // root has a checkpoint's temporary file in flight or a drop half done.
  registry::CommitTurn turn;
  if (!registry.read_only()) {
    absl::StatusOr<registry::CommitTurn> taken = registry.AwaitCommitTurn();
    if (!taken.ok()) return taken.status();
    turn = std::move(*taken);
  }
  if (options.append_checkpoints && !registry.read_only()) {
    absl::StatusOr<AppendCheckpointStore> store = AppendCheckpointStore::Open(
        fs, absl::StrCat(root_dir, "/", std::string(kAppendCheckpointsDir)));
    if (!store.ok()) return store.status();
    checkpoints = std::move(*store);
    if (absl::StatusOr<uint64_t> s = checkpoints->CleanTemporaryFiles(); !s.ok()) {
      return s.status();
    }
  }
  std::unique_ptr<TableStore> store(new TableStore(fs, std::move(root_dir), registry, stage,
                                                   std::move(stage_identity), options,
                                                   std::move(checkpoints)));
  if (!registry.read_only()) {
    absl::MutexLock lock(&store->commit_mu_);
    if (absl::Status s = store->FinishDropsLocked(); !s.ok()) return s;
  }
  // Group commit needs the checkpoint in the log (a queued append must be
  // one write) and the boot (a queue another boot left is emptied). Where
  // the queue cannot be mapped, appends commit one at a time.
  if (!registry.read_only() && options.group_commit && store->CheckpointsInLog() &&
      !registry.boot_id().empty()) {
    absl::StatusOr<std::unique_ptr<CommitQueue>> queue =
        CommitQueue::Open(fs, store->root_dir_, registry.boot_id());
    if (queue.ok()) store->queue_ = std::move(*queue);
  }
  turn = registry::CommitTurn();  // the redo takes the turn per append
  if (absl::Status s = store->RedoDeferredCommits(); !s.ok()) return s;
  return store;
}

absl::Status TableStore::RedoDeferredCommits() {
  absl::StatusOr<std::vector<registry::DeferredMarkRecord>> marks =
      registry_.DeferredMarksFromOtherBoots();
  if (!marks.ok()) return marks.status();
  if (marks->empty()) return absl::OkStatus();
  if (registry_.read_only()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "commits to ", marks->size(),
        " table(s) made before this machine restarted may not have reached the disk; a "
        "writer redoes them when it opens the root (lake recover)"));
  }
  // Every append a lost commit made is an unsettled checkpoint in its
  // table's log now: recovery replays them, in log order, on the versions
  // that survived.
  absl::StatusOr<std::vector<RecoveredAppend>> recovered = Recover();
  if (!recovered.ok()) return recovered.status();
  for (const RecoveredAppend& r : *recovered) {
    if (r.result == RecoveredAppend::Result::kFailed) {
      return absl::UnavailableError(absl::StrCat(
          "redoing the commits made before this machine restarted failed (operation ",
          r.operation_id, "): ", r.message));
    }
  }
  for (const registry::DeferredMarkRecord& mark : *marks) {
    if (absl::Status s = registry_.ClearDeferredMark(mark); !s.ok()) return s;
  }
  return absl::OkStatus();
}

TableStore::TableStore(io::FileSystem& fs, std::string root_dir, registry::Registry& registry,
                       ManagedStage& stage, std::string stage_identity,
                       TableStoreOptions options,
                       std::optional<AppendCheckpointStore> checkpoints)
    : fs_(fs),
      root_dir_(std::move(root_dir)),
      registry_(registry),
      stage_(stage),
      stage_identity_(std::move(stage_identity)),
      options_(options),
      checkpoints_(std::move(checkpoints)) {}

std::string TableDirectory(const std::string& root_dir, const TableName& name) {
  return absl::StrCat(root_dir, "/", std::string(kTablesDir), "/", name.ns, "/", name.table);
}

std::string DroppedTableDirectory(const std::string& root_dir, uint64_t table_id) {
  return absl::StrFormat("%s/%s/%s/%016x", root_dir, std::string(kTablesDir),
                         std::string(kDroppedTablesDir), table_id);
}

absl::StatusOr<std::string> LocateDroppedTableDirectory(
    io::FileSystem& fs, const std::string& root_dir,
    const registry::DroppedTableRecord& dropped) {
  for (const std::string& dir : {DroppedTableDirectory(root_dir, dropped.table.table_id),
                                 TableDirectory(root_dir, dropped.table.name)}) {
    absl::StatusOr<io::FileInfo> info = fs.Stat(dir);
    if (info.ok()) return dir;
    if (!absl::IsNotFound(info.status())) return info.status();
  }
  return absl::NotFoundError(absl::StrCat("the directory of dropped table ",
                                          dropped.table.name.ToString(), " (id ",
                                          dropped.table.table_id, ") is missing"));
}

std::string TableStore::TableDir(const TableName& name) const {
  return TableDirectory(root_dir_, name);
}

absl::StatusOr<registry::TableRecord> TableStore::CreateTable(const TableName& name,
                                                              const Schema& schema) {
  if (absl::Status s = ValidateSchema(schema); !s.ok()) return s;
  {
    // A dropped table's directory still under this name moves away first.
    absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
    if (!turn.ok()) return turn.status();
    absl::MutexLock lock(&commit_mu_);
    if (absl::Status s = FinishDropsLocked(); !s.ok()) return s;
  }
  // The directories first: a registered table always has them.
  std::string dir = TableDir(name);
  for (std::string_view sub : {kDataDir, kVersionsDir, kObjectRefsDir}) {
    if (absl::Status s = io::CreateDirectoriesDurably(fs_, absl::StrCat(dir, "/", std::string(sub)));
        !s.ok()) {
      return s;
    }
  }
  return registry_.CreateTable(name, schema);
}

absl::StatusOr<registry::DroppedTableRecord> TableStore::DropTable(const TableName& name) {
  // One commit at a time across the root's writers: no append of any of
  // them is committing to the table while its directory moves.
  absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock lock(&commit_mu_);
  if (absl::Status s = FinishDropsLocked(); !s.ok()) return s;
  absl::StatusOr<registry::DroppedTableRecord> dropped = registry_.DropTable(name);
  if (!dropped.ok()) return dropped.status();
  last_committed_.erase(dropped->table.table_id);
  if (absl::Status s = LAKE_FAILPOINT(kTableDropFailpoints[0]); !s.ok()) return s;
  if (absl::Status s = FinishDropsLocked(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("table ", name.ToString(),
                                               " was dropped, but moving its directory failed (",
                                               s.message(), "); the next drop or writer open "
                                               "finishes it"));
  }
  if (absl::Status s = LAKE_FAILPOINT(kTableDropFailpoints[1]); !s.ok()) return s;
  return dropped;
}

absl::Status TableStore::FinishDropsLocked() {
  absl::StatusOr<std::vector<registry::DroppedTableRecord>> dropped =
      registry_.ListDroppedTables();
  if (!dropped.ok()) return dropped.status();
  for (const registry::DroppedTableRecord& d : *dropped) {
    std::string from = TableDir(d.table.name);
    std::string to = DroppedTableDirectory(root_dir_, d.table.table_id);
    absl::StatusOr<io::FileInfo> old_dir = fs_.Stat(from);
    if (absl::IsNotFound(old_dir.status())) continue;
    if (!old_dir.ok()) return old_dir.status();
    absl::StatusOr<io::FileInfo> new_dir = fs_.Stat(to);
    if (new_dir.ok()) continue;  // moved; `from` is a later table's
    if (!absl::IsNotFound(new_dir.status())) return new_dir.status();
    // The name taken by a registered table: its directory, not this one's.
    absl::StatusOr<registry::TableRecord> now = registry_.GetTable(d.table.name);
    if (now.ok()) continue;
    if (!absl::IsNotFound(now.status())) return now.status();
    if (absl::Status s = io::CreateDirectoriesDurably(fs_, io::ParentPath(to)); !s.ok()) return s;
    if (absl::Status s = fs_.RenameNoReplace(from, to); !s.ok()) return s;
    if (absl::Status s = io::SyncParentDirectory(fs_, to); !s.ok()) return s;
    if (absl::Status s = io::SyncParentDirectory(fs_, from); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<registry::TableRecord> TableStore::GetTable(const TableName& name) {
  return registry_.GetTable(name);
}

absl::StatusOr<std::vector<registry::TableRecord>> TableStore::ListTables() {
  return registry_.ListTables();
}

absl::StatusOr<std::vector<registry::VersionRecord>> TableStore::ListVersions(
    const TableName& name) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  return registry_.ListVersions(table->table_id);
}

absl::StatusOr<registry::TagRecord> TableStore::TagVersion(const TableName& name,
                                                           const std::string& tag,
                                                           uint64_t version) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  return registry_.TagVersion(table->table_id, tag, version);
}

absl::Status TableStore::UntagVersion(const TableName& name, const std::string& tag) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  absl::Status removed = registry_.UntagVersion(table->table_id, tag);
  if (absl::IsNotFound(removed)) {
    return absl::NotFoundError(absl::StrCat("table ", name.ToString(), " has no tag ", tag));
  }
  return removed;
}

absl::StatusOr<std::vector<registry::TagRecord>> TableStore::ListTags(const TableName& name) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  return registry_.ListTags(table->table_id);
}

absl::StatusOr<std::vector<registry::RetiredVersionRecord>> TableStore::ListRetiredVersions(
    const TableName& name) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  return registry_.ListRetiredVersions(table->table_id);
}

absl::StatusOr<std::vector<TagRetention>> TableStore::DescribeTagRetention(
    const TableName& name) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  absl::StatusOr<std::vector<registry::TagRecord>> tags = registry_.ListTags(table->table_id);
  if (!tags.ok()) return tags.status();
  std::vector<TagRetention> out;
  if (tags->empty()) return out;
  absl::StatusOr<std::vector<registry::VersionRecord>> versions =
      registry_.ListVersions(table->table_id);
  if (!versions.ok()) return versions.status();
  absl::StatusOr<std::vector<registry::RetiredVersionRecord>> retired =
      registry_.ListRetiredVersions(table->table_id);
  if (!retired.ok()) return retired.status();
  absl::flat_hash_set<uint64_t> retired_versions;
  for (const registry::RetiredVersionRecord& r : *retired) retired_versions.insert(r.version);
  std::string table_dir = TableDir(name);
  // The active segment of the table log is never the collector's, whoever
  // names records in it: no tag alone keeps it.
  absl::StatusOr<std::vector<uint64_t>> segments = ListTableLogSegments(fs_, table_dir);
  if (!segments.ok()) return segments.status();
  const std::string active_segment =
      segments->empty() ? "" : TableLogSegmentRelativePath(segments->back());
  // Versions resolved in ascending order: each link read once.
  ManifestChainReader reader(fs_, table_dir);
  // How many retained versions keep each file, and each tagged version's
  // files. A path a version names is counted as the file it lives in
  // (TableFileOfPath): a table log record as its whole segment, since a
  // segment's bytes are freed only when no version names any record in it.
  absl::flat_hash_map<std::string, uint64_t> kept_by;
  absl::flat_hash_map<std::string, uint64_t> fragment_bytes;  // whole fragment files
  absl::flat_hash_map<uint64_t, absl::flat_hash_set<std::string>> tagged_files;
  for (const registry::TagRecord& tag : *tags) tagged_files[tag.version];
  for (const registry::VersionRecord& v : *versions) {
    if (retired_versions.contains(v.version)) continue;
    absl::StatusOr<const ResolvedManifest*> resolved = reader.Resolve(v.version, v.manifest_path);
    if (!resolved.ok()) return resolved.status();
    const Manifest* manifest = &(*resolved)->manifest;
    // Its manifest chain (its own file and the links back to a full list),
    // sized below only if a tag alone keeps it, then its fragments and
    // their deletion vectors.
    absl::flat_hash_set<std::string> files;
    auto keep = [&](const std::string& path) -> absl::StatusOr<std::string> {
      absl::StatusOr<std::string> file = CheckedTableFileOfPath(path);
      if (!file.ok()) {
        return absl::DataLossError(absl::StrCat("version ", v.version, " of ", name.ToString(),
                                                " names ", path, ": ", file.status().message()));
      }
      files.insert(*file);
      return file;
    };
    for (const std::string& path : (*resolved)->chain_files) {
      if (absl::Status s = keep(path).status(); !s.ok()) return s;
    }
    for (const FragmentRef& fragment : manifest->fragments) {
      absl::StatusOr<std::string> file = keep(fragment.path);
      if (!file.ok()) return file.status();
      if (*file == fragment.path) fragment_bytes[*file] = fragment.size_bytes;
      if (!fragment.deletion_vector) continue;
      if (absl::Status s = keep(fragment.deletion_vector->path).status(); !s.ok()) return s;
    }
    for (const std::string& file : files) ++kept_by[file];
    auto tagged = tagged_files.find(v.version);
    if (tagged != tagged_files.end()) tagged->second = std::move(files);
  }
  absl::flat_hash_map<uint64_t, size_t> tags_per_version;
  for (const registry::TagRecord& tag : *tags) ++tags_per_version[tag.version];
  for (const registry::TagRecord& tag : *tags) {
    TagRetention retention{tag, 0, 0};
    // Only it: the one tag of a version that is not the current one.
    if (tags_per_version[tag.version] == 1 && tag.version != table->current_version) {
      for (const std::string& file : tagged_files[tag.version]) {
        if (kept_by[file] != 1 || file == active_segment) continue;
        ++retention.exclusive_files;
        auto bytes = fragment_bytes.find(file);
        if (bytes != fragment_bytes.end()) {
          retention.exclusive_bytes += bytes->second;
          continue;
        }
        // A manifest, an old DELETE's vector file, or a whole segment.
        absl::StatusOr<io::FileInfo> info = fs_.Stat(absl::StrCat(table_dir, "/", file));
        if (!info.ok()) return info.status();
        retention.exclusive_bytes += info->size;
      }
    }
    out.push_back(std::move(retention));
  }
  return out;
}

absl::StatusOr<ExpireOutcome> TableStore::Expire(const TableName& name,
                                                 const ExpirePolicy& policy) {
  if (!policy.keep_last.has_value() && !policy.older_than.has_value()) {
    return absl::InvalidArgumentError("an expiry needs --keep-last N or --older-than DURATION");
  }
  if (policy.keep_last.has_value() && *policy.keep_last == 0) {
    return absl::InvalidArgumentError("--keep-last must be at least 1: the current version stays");
  }
  if (policy.older_than.has_value() && *policy.older_than < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--older-than must not be negative");
  }
  if (registry_.read_only()) {
    return absl::FailedPreconditionError("this root is open read-only: an expiry needs the writer");
  }
  // One commit at a time across the root's writers: the version read here
  // is the one the registry's write checks.
  absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock lock(&commit_mu_);
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  absl::StatusOr<std::vector<registry::VersionRecord>> versions =
      registry_.ListVersions(table->table_id);
  if (!versions.ok()) return versions.status();
  absl::StatusOr<std::vector<registry::TagRecord>> tags = registry_.ListTags(table->table_id);
  if (!tags.ok()) return tags.status();
  absl::StatusOr<std::vector<registry::RetiredVersionRecord>> retired =
      registry_.ListRetiredVersions(table->table_id);
  if (!retired.ok()) return retired.status();
  absl::flat_hash_set<uint64_t> kept;
  for (const registry::TagRecord& tag : *tags) kept.insert(tag.version);
  for (const registry::RetiredVersionRecord& r : *retired) kept.insert(r.version);
  const uint64_t current = table->current_version;
  absl::Time now = absl::Now();
  ExpireOutcome outcome;
  outcome.current_version = current;
  for (const registry::VersionRecord& v : *versions) {
    if (v.version >= current || kept.contains(v.version)) continue;
    if (policy.keep_last.has_value() && current - v.version < *policy.keep_last) continue;
    if (policy.older_than.has_value() &&
        absl::FromUnixMicros(v.committed_unix_micros) > now - *policy.older_than) {
      continue;
    }
    outcome.retired.push_back(v.version);
  }
  if (absl::Status s = LAKE_FAILPOINT(kTableExpireFailpoints[0]); !s.ok()) return s;
  if (outcome.retired.empty()) return outcome;
  // The oldest version retained afterwards: the new reference base.
  absl::flat_hash_set<uint64_t> retired_after(outcome.retired.begin(), outcome.retired.end());
  for (const registry::RetiredVersionRecord& r : *retired) retired_after.insert(r.version);
  uint64_t oldest = 1;
  while (oldest < current && retired_after.contains(oldest)) ++oldest;
  absl::StatusOr<RetainedLineage> lineage =
      ReadRetainedLineage(registry_, table->table_id, *versions);
  if (!lineage.ok()) return lineage.status();
  std::optional<registry::ReferenceBaseRecord> base;
  if (oldest > 1 && (!lineage->base.has_value() || lineage->base->version < oldest)) {
    // Every reference of `oldest`: the lineage replayed up to it.
    RetainedLineage upto{lineage->base, {}};
    for (const LineageEdge& edge : lineage->edges) {
      if (edge.child_version <= oldest) upto.edges.push_back(edge);
    }
    absl::StatusOr<std::vector<DataLocation>> references =
        ReplayLineage(fs_, TableDir(name), upto);
    if (!references.ok()) return references.status();
    ReferenceSnapshot snapshot{table->table_id, oldest, *std::move(references)};
    absl::StatusOr<std::string> digest = WriteReferenceSnapshot(fs_, TableDir(name), snapshot);
    if (!digest.ok()) return digest.status();
    if (absl::Status s = LAKE_FAILPOINT(kTableExpireFailpoints[1]); !s.ok()) return s;
    base = registry::ReferenceBaseRecord{table->table_id, oldest, *digest, 0};
  }
  absl::StatusOr<std::vector<registry::RetiredVersionRecord>> done =
      registry_.RetireVersions(table->table_id, current, outcome.retired, base);
  if (!done.ok()) return done.status();
  if (absl::Status s = LAKE_FAILPOINT(kTableExpireFailpoints[2]); !s.ok()) return s;
  return outcome;
}

absl::StatusOr<RetainedLineage> ReadRetainedLineage(
    registry::Registry& registry, uint64_t table_id,
    const std::vector<registry::VersionRecord>& versions) {
  absl::StatusOr<std::optional<registry::ReferenceBaseRecord>> base =
      registry.GetReferenceBase(table_id);
  if (!base.ok()) return base.status();
  RetainedLineage lineage;
  uint64_t after = 0;
  if (base->has_value()) {
    lineage.base = LineageBase{(*base)->version, (*base)->snapshot_sha256};
    after = (*base)->version;
  }
  for (const registry::VersionRecord& v : versions) {
    if (v.version <= after) continue;
    lineage.edges.push_back(
        LineageEdge{v.parent_version, v.version, v.reference_delta_sha256, v.manifest_path});
  }
  return lineage;
}

absl::Status EnumerateLineage(io::FileSystem& fs, const std::string& table_dir,
                              const RetainedLineage& lineage, ReferenceVisitor visit) {
  if (lineage.base.has_value()) {
    return EnumerateReferencesFrom(fs, table_dir, *lineage.base, lineage.edges, visit);
  }
  return EnumerateReferences(fs, table_dir, lineage.edges, visit);
}

absl::StatusOr<std::vector<DataLocation>> ReplayLineage(io::FileSystem& fs,
                                                        const std::string& table_dir,
                                                        const RetainedLineage& lineage) {
  ReferenceReplay replay;
  auto apply = [&](uint64_t version, const std::vector<DataLocation>& chunk, bool removed) {
    return replay.Apply(version, chunk, removed);
  };
  absl::Status walked =
      lineage.base.has_value()
          ? EnumerateReferenceChangesFrom(fs, table_dir, *lineage.base, lineage.edges, apply)
          : EnumerateReferenceChanges(fs, table_dir, lineage.edges, apply);
  if (!walked.ok()) return walked;
  return std::move(replay).Take();
}

absl::StatusOr<Manifest> TableStore::ReadManifest(const std::string& table_dir,
                                                  uint64_t version,
                                                  const std::string& manifest_path) {
  ManifestChainReader reader(fs_, table_dir);
  absl::StatusOr<const ResolvedManifest*> resolved = reader.Resolve(version, manifest_path);
  if (!resolved.ok()) return resolved.status();
  return std::move(reader.TakeLast()->manifest);
}

absl::StatusOr<TableStore::WrittenVersion> TableStore::WriteVersionLocked(
    const registry::TableRecord& table, uint64_t base, const std::string& base_manifest_path,
    const NewVersion& next, bool unsynced) {
  std::string table_dir = TableDir(table.name);
  // The version the new one builds on: its fragments come along.
  ResolvedManifest parent;
  // Taken out: put back, as the new version's, once that is written.
  // Another writer's newer base: the cached version advanced by the links
  // since it, when they only append.
  auto cached = last_committed_.extract(table.table_id);
  if (!cached.empty() && base > 0 &&
      AdvanceByAppends(fs_, table_dir, cached.mapped(), base, base_manifest_path)) {
    parent = std::move(cached.mapped());
  } else if (base > 0) {
    ManifestChainReader reader(fs_, table_dir);
    absl::StatusOr<const ResolvedManifest*> read = reader.Resolve(base, base_manifest_path);
    if (!read.ok()) return read.status();
    parent = *reader.TakeLast();
  } else {
    parent.manifest.schema = table.schema;
  }
  FragmentRef fragment{"", next.rows, next.fragment_bytes.size(), next.fragment_sha256,
                       next.statistics, std::nullopt};
  // The new version's changes: one fragment added, and for compaction
  // every fragment before it removed.
  std::vector<std::string> removed;
  if (next.replace_fragments) {
    removed.reserve(parent.manifest.fragments.size());
    for (const FragmentRef& f : parent.manifest.fragments) removed.push_back(f.path);
  }
  const EncodedReferenceDelta& delta = next.delta;
  Manifest header;
  header.format_version = kManifestFormatVersion;
  header.table_id = table.table_id;
  header.version = base + 1;
  header.parent_version = base;
  header.schema = parent.manifest.schema;
  header.reference_delta_sha256 = delta.digest;
  header.created_unix_micros = NowMicros();

  // The checkpoint (a file) and the version's table log records (one
  // write, one sync), at once: none is named by anything durable before
  // the compare-and-set below. (A crash leaves records nothing names,
  // never read, and maybe the checkpoint, which recovery settles.)
  // With versions in the table log the checkpoint is a record of the
  // same write instead (append_record_format.h): durable by the same sync.
  LoggedCheckpointWrite logged{next.checkpoint != nullptr && CheckpointsInLog(), false, table_dir,
                               table.table_id, base + 1};
  std::future<absl::StatusOr<std::string>> checkpoint_published;
  if (next.checkpoint != nullptr && !logged.logged) {
    checkpoint_published =
        pool_.Run([this, &next] { return checkpoints_->Publish(*next.checkpoint); });
  }
  // A link to base's manifest, or a checkpoint (manifest_chain.h).
  ResolvedManifest manifest = std::move(parent);
  std::string manifest_path;
  std::string written_fragment;  // a fragment file of its own, when one was written
  VersionRecords records;
  records.fragment_bytes = next.fragment_bytes;
  records.fragment = std::move(fragment);
  records.delta_from_fragment = next.delta_from_fragment;
  records.removed = std::move(removed);
  if (next.rewrite != nullptr) {
    records.added = next.rewrite->fragments;
    records.vector_bytes = next.rewrite->vector_copies;
    records.fragment_copies = next.rewrite->fragment_copies;
    records.whole_list = true;
  }
  records.base_manifest_path = base_manifest_path;
  records.unsynced = unsynced;
  if (next.record_operation) records.settles_operation = next.operation_id;
  if (logged.logged) records.checkpoint = next.checkpoint;
  absl::Status records_written = WriteVersionRecordsLocked(
      table_dir, records, delta, std::move(header), manifest, &manifest_path, &written_fragment);
  logged.checkpoint_written = records.checkpoint_written;
  if (next.checkpoint != nullptr && !logged.logged) {
    absl::StatusOr<std::string> published = checkpoint_published.get();
    if (!published.ok()) {
      // Nothing can ever reference this fragment: the append stops here.
      if (!written_fragment.empty()) RemoveUnreferencedFile(fs_, written_fragment);
      // Renamed into place, its directory sync failed: the checkpoint may
      // survive a power loss or not, and a recovery would commit it.
      if (GetPendingAppend(published.status()).has_value()) {
        return PendingOperationError(published.status(), next.operation_id);
      }
      return published.status();  // no checkpoint: nothing will commit
    }
  }
  // From here on the checkpoint is published: a failure before the commit
  // call withdraws it. The steps' failpoints fire in order once the
  // records are durable: here, or (unsynced) once a sync of the commit
  // queue covered them (AppendQueued).
  absl::Status written = unsynced ? records_written : [&]() -> absl::Status {
    if (absl::Status s = WrittenFailpoints(next, /*checkpoint_durable=*/true); !s.ok()) return s;
    if (!records_written.ok()) return records_written;
    return WrittenFailpoints(next, /*checkpoint_durable=*/false);
  }();
  if (!written.ok()) return AbandonLocked(next, written, written_fragment, logged);

  WrittenVersion w;
  w.record.version = base + 1;
  w.record.parent_version = base;
  w.record.manifest_path = manifest_path;
  w.record.reference_delta_sha256 = delta.digest;
  w.record.operation_id = next.operation_id;
  w.record.committed_unix_micros = NowMicros();
  if (next.record_operation) {
    w.operation = registry::AppendOperationRecord{next.operation_id, table.table_id, base + 1,
                                                  next.batch_sha256,
                                                  w.record.committed_unix_micros};
  }
  // An append whose checkpoint is a record of the same synced write needs
  // no synced commit: recovery redoes it from the checkpoint.
  w.durability = logged.checkpoint_written ? registry::CommitDurability::kDeferred
                                           : registry::CommitDurability::kSynced;
  w.manifest = std::move(manifest);
  w.written_fragment = std::move(written_fragment);
  w.logged = std::move(logged);
  w.segment_path = std::move(records.segment_path);
  return w;
}

absl::Status TableStore::WrittenFailpoints(const NewVersion& next, bool checkpoint_durable) {
  if (checkpoint_durable) {
    if (next.checkpoint == nullptr) return absl::OkStatus();
    return LAKE_FAILPOINT("table_append.checkpoint_published");
  }
  if (next.record_operation) {
    if (absl::Status s = LAKE_FAILPOINT("table_append.fragment_written"); !s.ok()) return s;
  }
  return LAKE_FAILPOINT(next.written_failpoint);
}

absl::StatusOr<registry::TableRecord> TableStore::CommitVersionLocked(
    const registry::TableRecord& table, uint64_t base, const NewVersion& next) {
  absl::StatusOr<registry::TableRecord> current = registry_.GetTableById(table.table_id);
  if (!current.ok()) return current.status();
  if (current->current_version != base) {
    return registry::VersionConflictError(
        registry::VersionConflict{table.table_id, base, current->current_version});
  }
  absl::StatusOr<WrittenVersion> w =
      WriteVersionLocked(table, base, current->manifest_path, next, /*unsynced=*/false);
  if (!w.ok()) return w.status();
  absl::StatusOr<registry::TableRecord> committed =
      registry_.CommitVersion(table.table_id, base, w->record, w->operation, w->durability);
  if (committed.ok()) {
    last_committed_[table.table_id] = std::move(w->manifest);
    return committed;
  }
  if (registry::IsCommitOutcomeUnknown(committed.status())) {
    if (next.checkpoint == nullptr) return committed.status();
    if (w->logged.logged) KeepLoggedCheckpointLocked(w->logged.table_dir, *next.checkpoint);
    return PendingOperationError(committed.status(), next.operation_id);
  }
  return AbandonLocked(next, committed.status(), w->written_fragment, w->logged);
}

absl::StatusOr<std::string> TableStore::VersionRecords::NextManifestOf(
    ResolvedManifest& resolved, const Manifest& header, uint32_t checkpoint_interval,
    const std::string& path) {
  if (whole_list) return NextFullManifest(resolved, header, std::move(added), path);
  return NextManifest(resolved, header, removed, std::move(added), checkpoint_interval, path);
}

absl::Status TableStore::WriteVersionFilesLocked(const std::string& table_dir,
                                                 VersionRecords& records,
                                                 const EncodedReferenceDelta& delta,
                                                 Manifest header, ResolvedManifest& resolved,
                                                 std::string* manifest_path,
                                                 std::string* written_file) {
  const uint64_t version = header.version;
  // The deletion vectors, and a segment compaction's fragment copies.
  std::vector<TableLogRecord> vectors;
  for (size_t i = 0; i < records.added.size(); ++i) {
    if (records.CopiesFragment(i)) {
      vectors.push_back(
          TableLogRecord{TableLogRecordKind::kFragment, version, records.fragment_copies[i]});
    }
    if (!records.vector_bytes[i].empty()) {
      vectors.push_back(
          TableLogRecord{TableLogRecordKind::kDeletionVector, version, records.vector_bytes[i]});
    }
  }
  absl::StatusOr<std::vector<TableLogAddress>> addresses =
      log_writer_.AppendDurably(table_dir, vectors);
  if (!addresses.ok()) return addresses.status();
  size_t next_record = 0;
  for (size_t i = 0; i < records.added.size(); ++i) {
    if (records.CopiesFragment(i)) {
      records.added[i].path = FormatTableLogAddress((*addresses)[next_record++]);
    }
    if (records.vector_bytes[i].empty()) continue;
    records.added[i].deletion_vector->path = FormatTableLogAddress((*addresses)[next_record++]);
  }
  if (!records.fragment_bytes.empty()) {
    records.fragment.path = absl::StrCat(std::string(kDataDir), "/", NewUuidV7(), ".frag");
    records.added.push_back(records.fragment);
  }
  header.reference_delta_path = ReferenceDeltaRelativePath(version);
  *manifest_path = ManifestRelativePath(version);
  absl::StatusOr<std::string> manifest_bytes = records.NextManifestOf(
      resolved, header, options_.manifest_checkpoint_interval, *manifest_path);
  if (!manifest_bytes.ok()) return manifest_bytes.status();
  // Three files named by nothing durable before the commit, written and
  // synced at once (a delta or manifest left by a crashed attempt of this
  // version is replaced).
  std::future<absl::Status> delta_written =
      pool_.Run([&]() { return WriteVersionDelta(fs_, table_dir, version, delta); });
  std::future<absl::Status> manifest_written = pool_.Run([&]() {
    return WriteReplacingLeftover(fs_, absl::StrCat(table_dir, "/", *manifest_path),
                                  *manifest_bytes);
  });
  absl::Status fragment_written = absl::OkStatus();
  if (!records.fragment_bytes.empty()) {
    std::string path = absl::StrCat(table_dir, "/", records.fragment.path);
    fragment_written = WriteNewTableFile(fs_, path, records.fragment_bytes);
    if (fragment_written.ok()) *written_file = std::move(path);
  }
  absl::Status delta_status = delta_written.get();
  absl::Status manifest_status = manifest_written.get();
  if (!fragment_written.ok()) return fragment_written;
  if (!delta_status.ok()) return delta_status;
  return manifest_status;
}

absl::Status TableStore::WriteVersionRecordsLocked(const std::string& table_dir,
                                                   VersionRecords& records,
                                                   const EncodedReferenceDelta& delta,
                                                   Manifest header, ResolvedManifest& resolved,
                                                   std::string* manifest_path,
                                                   std::string* written_file) {
  const uint64_t version = header.version;
  if (!options_.versions_in_table_log) {
    return WriteVersionFilesLocked(table_dir, records, delta, std::move(header), resolved,
                                   manifest_path, written_file);
  }
  if (delta.bytes.size() > kMaxTableLogPayloadBytes) {
    return absl::ResourceExhaustedError(absl::StrCat("the reference delta of version ", version,
                                                     " takes more than ",
                                                     kMaxTableLogPayloadBytes, " bytes"));
  }
  const bool fragment_is_record = DerivesAppendDelta(records.fragment_bytes.size());
  if (!records.fragment_bytes.empty() && !fragment_is_record) {
    // Too large for a record: a file of its own, under a fresh name.
    records.fragment.path = absl::StrCat(std::string(kDataDir), "/", NewUuidV7(), ".frag");
    std::string path = absl::StrCat(table_dir, "/", records.fragment.path);
    if (absl::Status s = WriteNewTableFile(fs_, path, records.fragment_bytes); !s.ok()) return s;
    *written_file = std::move(path);
  }
  CarriedCheckpoints carried;
  if (absl::Status s = CarryCheckpointsLocked(table_dir, records, &carried); !s.ok()) return s;
  // An append's delta names its fragment record instead of holding its
  // references again (derived_reference_delta_format.h).
  const bool derived_delta = records.delta_from_fragment && fragment_is_record;
  // Of format 4 the registry's digest is the fragment's (AppendDelta); of
  // format 3 (a test writing as the lake before) the delta's own.
  const uint32_t derived_format = options_.derived_delta_format;
  if (derived_delta ? DeltaDigestIsFragments() && delta.digest != records.fragment.sha256
                    : delta.bytes.empty()) {
    return absl::InternalError(absl::StrCat("the reference delta of version ", version,
                                            " is not the one its records need"));
  }
  absl::StatusOr<CheckpointRecordForm> checkpoint =
      CheckpointRecordFormOf(records, fragment_is_record);
  if (!checkpoint.ok()) return checkpoint.status();  // nothing written
  // Every record's bytes, for the segment to hold them all.
  uint64_t expected =
      TableLogRecordBytes(derived_delta ? kDerivedReferenceDeltaBytes : delta.bytes.size()) +
      kExpectedManifestRecordBytes + checkpoint->record_bytes;
  for (const std::string& bytes : records.vector_bytes) {
    if (!bytes.empty()) expected += TableLogRecordBytes(bytes.size());
  }
  for (const std::string& bytes : records.fragment_copies) {
    if (!bytes.empty()) expected += TableLogRecordBytes(bytes.size());
  }
  if (fragment_is_record) expected += TableLogRecordBytes(records.fragment_bytes.size());
  for (const TableLogRecord& r : carried.records) expected += TableLogRecordBytes(r.payload.size());
  absl::StatusOr<TableLogAppend> append = log_writer_.Begin(table_dir, expected);
  if (!append.ok()) return append.status();
  for (size_t i = 0; i < records.added.size(); ++i) {
    if (records.CopiesFragment(i)) {
      records.added[i].path = FormatTableLogAddress(append->Add(
          TableLogRecord{TableLogRecordKind::kFragment, version, records.fragment_copies[i]}));
    }
    const std::string& bytes = records.vector_bytes[i];
    if (bytes.empty()) continue;
    records.added[i].deletion_vector->path = FormatTableLogAddress(
        append->Add(TableLogRecord{TableLogRecordKind::kDeletionVector, version, bytes}));
  }
  std::string derived_bytes;
  TableLogRecord delta_record{TableLogRecordKind::kReferenceDelta, version, delta.bytes};
  std::optional<TableLogAddress> fragment_address;
  if (fragment_is_record) {
    fragment_address = append->Add(
        TableLogRecord{TableLogRecordKind::kFragment, version, records.fragment_bytes});
    records.fragment.path = FormatTableLogAddress(*fragment_address);
    if (derived_delta) {
      absl::StatusOr<std::string> derived = EncodeDerivedReferenceDelta(DerivedReferenceDelta{
          derived_format, header.table_id, header.parent_version, header.version,
          fragment_address->offset, fragment_address->payload_bytes});
      if (!derived.ok()) return derived.status();  // nothing written yet
      derived_bytes = *std::move(derived);
      delta_record.payload = derived_bytes;
    }
  }
  if (!records.fragment_bytes.empty()) records.added.push_back(records.fragment);
  // The checkpoint after its fragment: a scan reaching it passed the
  // fragment whole, so a torn write never leaves a checkpoint naming a lost
  // fragment (append_record_format.h).
  if (checkpoint->names_fragment) {
    absl::StatusOr<std::string> reference =
        EncodeAppendCheckpointReference(*records.checkpoint, *fragment_address);
    if (!reference.ok()) return reference.status();  // nothing written
    checkpoint->payload = *std::move(reference);
  }
  if (records.checkpoint != nullptr) {
    append->Add(
        TableLogRecord{TableLogRecordKind::kAppendCheckpoint, version, checkpoint->payload});
  }
  header.reference_delta_path = FormatTableLogAddress(append->Add(delta_record));
  // The manifest's address depends on its size: it is named once added.
  absl::StatusOr<std::string> manifest_bytes = records.NextManifestOf(
      resolved, header, options_.manifest_checkpoint_interval, /*path=*/"");
  if (!manifest_bytes.ok()) return manifest_bytes.status();
  *manifest_path = FormatTableLogAddress(
      append->Add(TableLogRecord{TableLogRecordKind::kManifest, version, *manifest_bytes}));
  resolved.chain_files.front() = *manifest_path;
  // After the manifest, so past the watermark this commit records.
  for (const TableLogRecord& r : carried.records) append->Add(r);
  records.checkpoint_written = records.checkpoint != nullptr;
  if (!records.unsynced) return append->Commit();
  absl::StatusOr<std::string> segment = append->CommitUnsynced();
  if (!segment.ok()) return segment.status();
  records.segment_path = *std::move(segment);
  return absl::OkStatus();
}

absl::StatusOr<TableStore::CheckpointRecordForm> TableStore::CheckpointRecordFormOf(
    const VersionRecords& records, bool fragment_is_record) {
  CheckpointRecordForm form;
  const AppendCheckpoint* checkpoint = records.checkpoint;
  if (checkpoint == nullptr) return form;
  form.names_fragment = fragment_is_record &&
                        records.fragment_bytes.size() == checkpoint->batch.size() &&
                        (records.fragment_bytes.data() == checkpoint->batch.data() ||
                         records.fragment_bytes == checkpoint->batch);
  if (form.names_fragment) {
    form.record_bytes = TableLogRecordBytes(AppendCheckpointReferenceBytes(*checkpoint));
    return form;
  }
  absl::StatusOr<std::string> encoded = EncodeAppendCheckpoint(*checkpoint);
  if (!encoded.ok()) return encoded.status();
  form.payload = *std::move(encoded);
  form.record_bytes = TableLogRecordBytes(form.payload.size());
  return form;
}

absl::Status TableStore::CarryCheckpointsLocked(const std::string& table_dir,
                                                const VersionRecords& records,
                                                CarriedCheckpoints* carried) {
  absl::StatusOr<std::vector<LoggedCheckpoint>> unsettled = UnsettledLoggedCheckpoints(
      table_dir, CommittedLogWatermark(records.base_manifest_path), records.settles_operation);
  if (!unsettled.ok()) return unsettled.status();
  carried->unsettled = *std::move(unsettled);
  carried->whole_payloads.reserve(carried->unsettled.size());
  for (const LoggedCheckpoint& c : carried->unsettled) {
    if (c.names_fragment) {
      if (!c.checkpoint.ok() && !absl::IsDataLoss(c.checkpoint.status())) {
        return c.checkpoint.status();
      }
      if (c.checkpoint.ok()) {
        absl::StatusOr<std::string> whole = EncodeAppendCheckpoint(*c.checkpoint);
        if (!whole.ok()) return whole.status();
        carried->whole_payloads.push_back(*std::move(whole));
        carried->records.push_back(TableLogRecord{TableLogRecordKind::kAppendCheckpoint,
                                                  c.version, carried->whole_payloads.back()});
        continue;
      }
    }
    carried->records.push_back(
        TableLogRecord{TableLogRecordKind::kAppendCheckpoint, c.version, c.payload});
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<LoggedCheckpoint>> TableStore::UnsettledLoggedCheckpoints(
    const std::string& table_dir, TableLogPosition from, const std::string& except) {
  absl::StatusOr<std::vector<LoggedCheckpoint>> found = UnwithdrawnCheckpoints(fs_, table_dir, from);
  if (!found.ok()) return found.status();
  std::vector<LoggedCheckpoint> unsettled;
  for (LoggedCheckpoint& c : *found) {
    if (!c.operation_id.empty()) {
      if (c.operation_id == except) continue;
      absl::StatusOr<std::optional<registry::AppendOperationRecord>> committed =
          registry_.GetAppendOperation(c.operation_id);
      // Unknown counts as unsettled: kept past the watermark.
      if (committed.ok() && committed->has_value()) continue;
    }
    unsettled.push_back(std::move(c));
  }
  return unsettled;
}

void TableStore::KeepLoggedCheckpointLocked(const std::string& table_dir,
                                            const AppendCheckpoint& checkpoint) {
  absl::StatusOr<std::string> payload = EncodeAppendCheckpoint(checkpoint);
  absl::Status kept = payload.status();
  if (payload.ok()) {
    TableLogRecord record{TableLogRecordKind::kAppendCheckpoint, checkpoint.base_version + 1,
                          *payload};
    kept = log_writer_.AppendDurably(table_dir, absl::MakeConstSpan(&record, 1)).status();
  }
  if (!kept.ok()) {
    std::fprintf(stderr, "lake: could not keep append checkpoint %s for recovery: %s\n",
                 checkpoint.operation_id.c_str(), kept.ToString().c_str());
  }
}

void TableStore::KeepLoggedCheckpoint(const std::string& table_dir,
                                      const AppendCheckpoint& checkpoint) {
  absl::StatusOr<registry::CommitTurn> turn = registry_.AwaitCommitTurn();
  if (!turn.ok()) return;  // best effort, as KeepLoggedCheckpointLocked
  absl::MutexLock lock(&commit_mu_);
  KeepLoggedCheckpointLocked(table_dir, checkpoint);
}

absl::Status TableStore::WithdrawLoggedCheckpointLocked(const std::string& table_dir,
                                                        uint64_t table_id, uint64_t version,
                                                        const std::string& operation_id,
                                                        WithdrawalReason reason) {
  absl::StatusOr<std::string> payload =
      EncodeAppendWithdrawal(AppendWithdrawal{reason, operation_id, table_id});
  if (!payload.ok()) return payload.status();
  TableLogRecord record{TableLogRecordKind::kAppendWithdrawal, version, *payload};
  return log_writer_.AppendDurably(table_dir, absl::MakeConstSpan(&record, 1)).status();
}

absl::Status TableStore::AbandonLocked(const NewVersion& next, const absl::Status& cause,
                                       const std::string& written_fragment,
                                       const LoggedCheckpointWrite& logged) {
  absl::Status withdrawn = absl::OkStatus();
  if (next.checkpoint != nullptr && !logged.logged) {
    withdrawn = checkpoints_->Withdraw(next.operation_id);
  } else if (logged.logged && logged.checkpoint_written) {
    withdrawn = WithdrawLoggedCheckpointLocked(logged.table_dir, logged.table_id, logged.version,
                                               next.operation_id, WithdrawalReason::kWithdrawn);
  }
  if (withdrawn.ok()) {
    if (!written_fragment.empty()) RemoveUnreferencedFile(fs_, written_fragment);
    return cause;
  }
  // The checkpoint may outlive this call, and a recovery would commit it.
  return PendingOperationError(
      absl::Status(cause.code(), absl::StrCat(cause.message(), "; withdrawing its checkpoint failed: ",
                                              withdrawn.message())),
      next.operation_id);
}

absl::StatusOr<EncodedReferenceDelta> TableStore::AppendDelta(
    const registry::TableRecord& table, uint64_t base, const ColumnBatch& batch,
    std::string_view fragment, const std::string& fragment_sha256) const {
  if (DeltaDigestIsFragments() && DerivesAppendDelta(fragment.size())) {
    return EncodedReferenceDelta{"", fragment_sha256};
  }
  return EncodeBatchReferenceDelta(table.table_id, base, base + 1, table.schema,
                                   absl::MakeConstSpan(&batch, 1));
}

TableStore::NewVersion TableStore::NewVersion::Append(const std::string& operation_id,
                                                     const ColumnBatch& batch,
                                                     std::string_view fragment_bytes,
                                                     const std::string& batch_sha256,
                                                     const AppendCheckpoint* checkpoint) {
  NewVersion next;
  next.fragment_bytes = fragment_bytes;
  next.fragment_sha256 = batch_sha256;  // the batch is encoded as the fragment
  next.rows = batch.num_rows;
  next.statistics = ComputeFragmentStatistics(batch);
  next.delta_from_fragment = true;  // the batch's own references
  next.operation_id = operation_id;
  next.batch_sha256 = batch_sha256;
  next.record_operation = true;
  next.checkpoint = checkpoint;
  return next;
}

absl::StatusOr<AppendOutcome> TableStore::CommitAppendLocked(const registry::TableRecord& table,
                                                             uint64_t base,
                                                             const std::string& operation_id,
                                                             const ColumnBatch& batch,
                                                             std::string_view fragment_bytes,
                                                             const std::string& batch_sha256,
                                                             EncodedReferenceDelta delta,
                                                             const AppendCheckpoint* checkpoint) {
  NewVersion next =
      NewVersion::Append(operation_id, batch, fragment_bytes, batch_sha256, checkpoint);
  next.delta = std::move(delta);
  absl::StatusOr<registry::TableRecord> committed = CommitVersionLocked(table, base, next);
  if (!committed.ok()) return committed.status();
  if (absl::Status s = LAKE_FAILPOINT("table_append.committed"); !s.ok()) {
    // Committed: only recovery can tell the caller so.
    if (checkpoint == nullptr) return s;
    if (CheckpointsInLog()) KeepLoggedCheckpointLocked(TableDir(table.name), *checkpoint);
    return PendingOperationError(s, operation_id);
  }
  return AppendOutcome{table.table_id, committed->current_version, operation_id, batch.num_rows};
}

void TableStore::RemoveCheckpoint(const std::string& operation_id) {
  if (!checkpoints_) return;
  if (absl::Status s = checkpoints_->Remove(operation_id); !s.ok()) {
    // A leftover checkpoint is replay-safe: the result stands.
    std::fprintf(stderr, "lake: could not remove append checkpoint %s: %s\n",
                 operation_id.c_str(), s.ToString().c_str());
  }
}

absl::StatusOr<AppendOutcome> TableStore::AppendBatch(const registry::TableRecord& table,
                                                      const ColumnBatch& batch,
                                                      AppendBase append_base,
                                                      FileCellContainment containment) {
  if (registry_.read_only()) {
    return absl::FailedPreconditionError("this root is open read-only: appends need the writer");
  }
  if (absl::Status s = CheckBatchForTable(table, batch); !s.ok()) return s;
  std::string operation_id = NewUuidV7();
  const uint64_t base = table.current_version;
  // A reference delta encoded whole on one thread, the fragment and
  // (unless checked when bound) the batch's containment on this one, at
  // once. A delta known by the fragment's digest needs no encoding.
  std::future<absl::StatusOr<EncodedReferenceDelta>> whole_delta;
  if (!DeltaDigestIsFragments()) {
    whole_delta = pool_.Run([&table, &batch, base] {
      return EncodeBatchReferenceDelta(table.table_id, base, base + 1, table.schema,
                                       absl::MakeConstSpan(&batch, 1));
    });
  }
  // Encoded once: the checkpoint's batch and the fragment are these bytes.
  absl::StatusOr<std::string> encoded = EncodeValidatedFragment(batch);
  std::string batch_sha256 = encoded.ok() ? Sha256Hex(*encoded) : "";
  absl::Status contained = containment == FileCellContainment::kCheck
                               ? CheckBatchContained(batch, stage_.store())
                               : absl::OkStatus();
  // Joined before any return: the task refers to `table` and `batch`.
  absl::StatusOr<EncodedReferenceDelta> encoded_delta = EncodedReferenceDelta{};
  if (whole_delta.valid()) {
    encoded_delta = whole_delta.get();
  } else if (encoded.ok()) {
    encoded_delta = AppendDelta(table, base, batch, *encoded, batch_sha256);
  }
  if (!contained.ok()) return contained;
  if (!encoded.ok()) return encoded.status();
  if (!encoded_delta.ok()) return encoded_delta.status();
  if (absl::Status s = LAKE_FAILPOINT("table_append.prepared"); !s.ok()) return s;
  std::optional<AppendCheckpoint> checkpoint;
  if (checkpoints_) {
    checkpoint.emplace();
    checkpoint->operation_id = operation_id;
    checkpoint->table_name = table.name.ToString();
    checkpoint->table_id = table.table_id;
    checkpoint->base_version = base;
    checkpoint->stage_identity = stage_identity_;
    checkpoint->batch = std::move(*encoded);
    checkpoint->batch_sha256 = batch_sha256;
  }
  // The fragment is the checkpoint's batch: the same bytes, not a copy.
  const std::string& fragment = checkpoint ? checkpoint->batch : *encoded;
  absl::StatusOr<AppendOutcome> outcome;
  {
    // From the first table file written to the commit, no collection
    // deletes (table files it would take for a failed append's, or objects
    // this batch references).
    absl::StatusOr<gc::GcHold> hold = gc::HoldReferencesShared(fs_, root_dir_);
    if (!hold.ok()) return hold.status();
    if (QueuesAppend(table, append_base, checkpoint.has_value())) {
      // Group commit (commit_queue.h).
      outcome = AppendQueued(table, operation_id, batch, fragment, batch_sha256, *checkpoint);
    } else {
      outcome = [&]() -> absl::StatusOr<AppendOutcome> {
        // One commit at a time across the root's writers, waiting at most the
        // busy timeout.
        absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
        if (!turn.ok()) return turn.status();
        absl::MutexLock lock(&commit_mu_);
        uint64_t commit_base = base;
        if (append_base == AppendBase::kCurrent) {
          // Rows added, nothing read: the batch goes on whatever version is
          // current now, and its delta (the batch's own references) names it.
          absl::StatusOr<registry::TableRecord> current = registry_.GetTableById(table.table_id);
          if (!current.ok()) return current.status();
          if (!(current->name == table.name) || !(current->schema == table.schema)) {
            return absl::FailedPreconditionError(absl::StrCat(
                table.name.ToString(), " changed (dropped, created again) since the append began"));
          }
          commit_base = current->current_version;
          if (commit_base != base) {
            absl::StatusOr<EncodedReferenceDelta> rebased =
                AppendDelta(table, commit_base, batch, fragment, batch_sha256);
            if (!rebased.ok()) return rebased.status();
            encoded_delta = std::move(*rebased);
            if (checkpoint) checkpoint->base_version = commit_base;
          }
        }
        // A failure comes back settled: the checkpoint withdrawn, or kept
        // behind a PendingOperationError.
        return CommitAppendLocked(table, commit_base, operation_id, batch, fragment, batch_sha256,
                                  std::move(*encoded_delta), checkpoint ? &*checkpoint : nullptr);
      }();
    }
  }
  if (!outcome.ok()) return outcome.status();
  if (absl::Status s = LAKE_FAILPOINT("table_append.removing_checkpoint"); !s.ok()) {
    if (!checkpoint) return s;
    if (CheckpointsInLog()) KeepLoggedCheckpoint(TableDir(table.name), *checkpoint);
    return PendingOperationError(s, operation_id);
  }
  // A checkpoint record needs no removal: the commit's watermark passed it.
  if (!CheckpointsInLog()) RemoveCheckpoint(operation_id);
  return outcome;
}

bool TableStore::QueuesAppend(const registry::TableRecord& table, AppendBase append_base,
                              bool has_checkpoint) const {
  // The base manifest path is a table path: an address or a file's name,
  // under a hundred bytes.
  constexpr size_t kManifestPathBytes = 128;
  return queue_ != nullptr && append_base == AppendBase::kCurrent && has_checkpoint &&
         CheckpointsInLog() &&
         CommitQueue::Fits(TableDir(table.name).size() + kManifestPathBytes, kManifestPathBytes);
}

absl::StatusOr<registry::CommitTurn> TableStore::AwaitQuiescentTurn() {
  absl::StatusOr<registry::CommitTurn> turn = registry_.AwaitCommitTurn();
  if (!turn.ok() || queue_ == nullptr) return turn;
  absl::MutexLock lock(&commit_mu_);
  if (absl::Status s = SettleQueueLocked(/*all=*/true, nullptr); !s.ok()) return s;
  return turn;
}

absl::Status TableStore::SettleQueueLocked(bool all, QueuedTables* committed) {
  queue_->AdoptIfStale();
  if (queue_->empty()) return absl::OkStatus();
  std::optional<gc::GcHold> hold;
  if (all) {
    // No collection deletes what an entry of a writer gone since names.
    absl::StatusOr<gc::GcHold> held = gc::HoldReferencesShared(fs_, root_dir_);
    if (!held.ok()) return held.status();
    hold = std::move(*held);
    // A failed sync fails its entries below; only a sync that never ends
    // stops this.
    absl::Status synced = SyncQueue(absl::Now() + registry_.busy_timeout());
    if (absl::IsAborted(synced)) return synced;
  }
  QueuedTables tables;
  queue_->CommitSynced([&](const QueuedCommit& q) { return SettleQueuedLocked(q, tables); });
  if (committed != nullptr) *committed = std::move(tables);
  if (all && !queue_->empty()) {
    return absl::AbortedError("the root is busy: appends queued by another writer did not settle");
  }
  return absl::OkStatus();
}

absl::Status TableStore::SyncQueue(absl::Time deadline) {
  // The steps of the appends it covers, which an append with its records
  // synced alone passes on its own (kTableAppendFailpoints): a failure
  // there is the sync's.
  return queue_->SyncQueued(deadline, [] {
    for (std::string_view step : {"table_append.checkpoint_published",
                                  "table_append.fragment_written",
                                  "table_append.reference_delta_written"}) {
      if (absl::Status s = LAKE_FAILPOINT(step); !s.ok()) return s;
    }
    return absl::OkStatus();
  });
}

QueuedOutcome TableStore::SettleQueuedLocked(const QueuedCommit& queued, QueuedTables& tables) {
  const registry::ForwardedWrite& c = queued.commit;
  if (queued.sync_failure.has_value()) {
    // Its records may be lost: it never commits, and its checkpoint goes
    // now, before a recovery could replay it. Failing that, recovery
    // settles it.
    const std::string table_dir = io::ParentPath(io::ParentPath(queued.segment_path));
    absl::Status withdrawn = WithdrawLoggedCheckpointLocked(
        table_dir, c.table_id, c.next.version, c.next.operation_id, WithdrawalReason::kWithdrawn);
    return QueuedOutcome{*queued.sync_failure, withdrawn.ok()};
  }
  return QueuedOutcome{CommitQueuedLocked(queued, tables), false};
}

absl::Status TableStore::CommitQueuedLocked(const QueuedCommit& queued, QueuedTables& tables) {
  const registry::ForwardedWrite& c = queued.commit;
  auto known = tables.find(c.table_id);
  if (known == tables.end()) {
    absl::StatusOr<registry::TableRecord> current = registry_.GetTableById(c.table_id);
    if (!current.ok()) return current.status();
    known = tables.emplace(c.table_id, *std::move(current)).first;
  }
  registry::TableRecord& table = known->second;
  // Committed already, by a writer that died before it marked the entry.
  if (table.current_version == c.next.version && table.manifest_path == c.next.manifest_path) {
    return absl::OkStatus();
  }
  // The compare-and-set's base is the very version the records were
  // written on: its number and its manifest.
  if (table.current_version != c.expected_current_version ||
      table.manifest_path != queued.base_manifest_path) {
    return registry::VersionConflictError(
        registry::VersionConflict{c.table_id, c.expected_current_version, table.current_version});
  }
  // Its records read back whole: an entry that outlived them never commits.
  const std::string table_dir = io::ParentPath(io::ParentPath(queued.segment_path));
  absl::StatusOr<std::string> manifest = ReadTablePath(
      fs_, table_dir, c.next.manifest_path, kMaxManifestBytes, TableLogRecordKind::kManifest);
  if (!manifest.ok()) return manifest.status();
  absl::StatusOr<registry::TableRecord> done = registry_.CommitVersion(
      c.table_id, c.expected_current_version, c.next, c.operation,
      c.kind == registry::ForwardedKind::kCommitVersionDeferred
          ? registry::CommitDurability::kDeferred
          : registry::CommitDurability::kSynced);
  if (!done.ok()) return done.status();
  table = *std::move(done);
  return LAKE_FAILPOINT(kCommitQueueCommittedFailpoint);
}

absl::StatusOr<AppendOutcome> TableStore::AppendQueued(const registry::TableRecord& table,
                                                       const std::string& operation_id,
                                                       const ColumnBatch& batch,
                                                       std::string_view fragment,
                                                       const std::string& batch_sha256,
                                                       AppendCheckpoint& checkpoint) {
  const absl::Time deadline = absl::Now() + registry_.busy_timeout();
  NewVersion next = NewVersion::Append(operation_id, batch, fragment, batch_sha256, &checkpoint);
  for (int attempt = 1;; ++attempt) {
    // 1. Under the turn: the records, unsynced, on the newest version
    // queued for the table (or the registry's), and the entry.
    uint64_t seq = 0;
    WrittenVersion written;
    {
      absl::StatusOr<registry::CommitTurn> turn = registry_.AwaitCommitTurn();
      if (!turn.ok()) return turn.status();
      absl::MutexLock lock(&commit_mu_);
      QueuedTables settled;
      if (absl::Status s = SettleQueueLocked(/*all=*/false, &settled); !s.ok()) return s;
      auto known = settled.find(table.table_id);
      absl::StatusOr<registry::TableRecord> current =
          known != settled.end() ? absl::StatusOr<registry::TableRecord>(known->second)
                                 : registry_.GetTableById(table.table_id);
      if (!current.ok()) return current.status();
      if (!(current->name == table.name) || !(current->schema == table.schema)) {
        return absl::FailedPreconditionError(absl::StrCat(
            table.name.ToString(), " changed (dropped, created again) since the append began"));
      }
      uint64_t base = current->current_version;
      std::string base_manifest_path = current->manifest_path;
      absl::StatusOr<std::vector<QueuedCommit>> queued = queue_->Queued();
      if (!queued.ok()) return queued.status();
      for (const QueuedCommit& q : *queued) {
        if (q.commit.table_id != table.table_id) continue;
        base = q.commit.next.version;
        base_manifest_path = q.commit.next.manifest_path;
      }
      absl::StatusOr<EncodedReferenceDelta> delta =
          AppendDelta(table, base, batch, fragment, batch_sha256);
      if (!delta.ok()) return delta.status();
      next.delta = *std::move(delta);
      checkpoint.base_version = base;
      absl::StatusOr<WrittenVersion> w =
          WriteVersionLocked(table, base, base_manifest_path, next, /*unsynced=*/true);
      if (!w.ok()) return w.status();
      registry::ForwardedWrite commit{
          .kind = w->durability == registry::CommitDurability::kDeferred
                      ? registry::ForwardedKind::kCommitVersionDeferred
                      : registry::ForwardedKind::kCommitVersion,
          .table_id = table.table_id,
          .expected_current_version = base,
          .next = w->record,
          .operation = w->operation};
      absl::StatusOr<uint64_t> queued_at =
          queue_->Enqueue(commit, w->segment_path, base_manifest_path);
      if (absl::IsResourceExhausted(queued_at.status())) {
        // Full: the entries before it settle first (its base among them).
        absl::Status s = SettleQueueLocked(/*all=*/true, nullptr);
        queued_at = s.ok() ? queue_->Enqueue(commit, w->segment_path, base_manifest_path) : s;
      }
      if (!queued_at.ok()) {
        return AbandonLocked(next, queued_at.status(), w->written_fragment, w->logged);
      }
      seq = *queued_at;
      // Its manifest, for the next append of this process to build on.
      last_committed_[table.table_id] = std::move(w->manifest);
      written = *std::move(w);
    }
    // A failure from here on is the settler's to tell (the entry is queued).
    (void)LAKE_FAILPOINT(kCommitQueueQueuedFailpoint);
    // 2. Durable, by a sync of everything queued so far; then 3. committed
    // by whoever holds the turn next (this writer, if no one else).
    std::optional<QueuedOutcome> outcome;
    while (!(outcome = queue_->Outcome(seq)).has_value()) {
      if (absl::Now() >= deadline) {
        return PendingOperationError(
            absl::DeadlineExceededError("the root is busy: a queued append did not settle "
                                        "within the busy timeout"),
            operation_id);
      }
      if (!queue_->Synced(seq)) {
        // A failed sync is the entry's, told by its settlement. A sync
        // that never ran, or never ends, stops this: the entry stays
        // queued, and a later writer may still commit it.
        absl::Status synced = SyncQueue(deadline);
        if (!synced.ok() && !queue_->Synced(seq)) {
          return PendingOperationError(synced, operation_id);
        }
        continue;
      }
      absl::StatusOr<registry::CommitTurn> turn = registry_.AwaitCommitTurn();
      if (!turn.ok()) return PendingOperationError(turn.status(), operation_id);
      absl::MutexLock lock(&commit_mu_);
      if (absl::Status s = SettleQueueLocked(/*all=*/false, nullptr); !s.ok()) {
        return PendingOperationError(s, operation_id);
      }
    }
    if (outcome->status.ok()) {
      if (absl::Status s = LAKE_FAILPOINT("table_append.committed"); !s.ok()) {
        // Committed: only recovery can tell the caller so.
        KeepLoggedCheckpoint(TableDir(table.name), checkpoint);
        return PendingOperationError(s, operation_id);
      }
      return AppendOutcome{table.table_id, written.record.version, operation_id, batch.num_rows};
    }
    // Settled as failed, this attempt never commits: a fragment file of
    // its own is nobody's.
    if (!written.written_fragment.empty()) RemoveUnreferencedFile(fs_, written.written_fragment);
    // Its checkpoint withdrawn too: the append never commits.
    if (outcome->final_failure) return outcome->status;
    // A conflict (its base failed, or another writer committed first):
    // unless a recovery committed it meanwhile (a replay of its
    // checkpoint), tried again on the version current now.
    if (absl::IsAborted(outcome->status) && attempt < kMaxQueuedAttempts &&
        absl::Now() < deadline) {
      absl::StatusOr<std::optional<registry::AppendOperationRecord>> done =
          registry_.GetAppendOperation(operation_id);
      if (!done.ok()) return PendingOperationError(done.status(), operation_id);
      if (done->has_value()) {
        return AppendOutcome{table.table_id, (*done)->version, operation_id, batch.num_rows};
      }
      continue;
    }
    // It may have committed (its registry write failed after reaching the
    // log, say): its checkpoint is kept past whatever watermark that moved,
    // and recovery settles it.
    KeepLoggedCheckpoint(TableDir(table.name), checkpoint);
    return PendingOperationError(outcome->status, operation_id);
  }
}

absl::StatusOr<std::unique_ptr<TableScan>> TableStore::Scan(const TableName& name,
                                                            std::optional<uint64_t> version,
                                                            std::optional<ScanPrefilter> prefilter) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  // The prefilter's columns index the schema of the version scanned.
  auto check_prefilter = [&](const Schema& schema) -> absl::Status {
    if (!prefilter) return absl::OkStatus();
    if (!prefilter->may_match) return absl::InvalidArgumentError("a scan prefilter without a test");
    for (size_t column : prefilter->columns) {
      if (column >= schema.columns.size()) {
        return absl::InvalidArgumentError(absl::StrCat("a scan of ", name.ToString(),
                                                       " cannot filter on column ", column, " of ",
                                                       schema.columns.size()));
      }
    }
    return absl::OkStatus();
  };
  uint64_t wanted = version.value_or(table->current_version);
  std::string table_dir = TableDir(name);
  if (wanted == 0) {
    Manifest empty;
    empty.table_id = table->table_id;
    empty.schema = table->schema;
    if (absl::Status s = check_prefilter(empty.schema); !s.ok()) return s;
    return std::unique_ptr<TableScan>(
        new TableScan(fs_, pool_, table_dir, std::move(empty), std::move(prefilter)));
  }
  if (wanted > table->current_version) {
    return absl::NotFoundError(absl::StrCat(name.ToString(), " has no version ", wanted,
                                            " (its current version is ",
                                            table->current_version, ")"));
  }
  absl::StatusOr<std::optional<registry::RetiredVersionRecord>> retired =
      registry_.GetRetiredVersion(table->table_id, wanted);
  if (!retired.ok()) return retired.status();
  if (retired->has_value()) return ExpiredVersionError(name.ToString(), wanted, **retired);
  absl::StatusOr<registry::VersionRecord> record = registry_.GetVersion(table->table_id, wanted);
  if (!record.ok()) return record.status();
  absl::StatusOr<Manifest> manifest = ReadManifest(table_dir, wanted, record->manifest_path);
  if (!manifest.ok()) {
    // Expired (and collected) since the check above: NotFound as well.
    retired = registry_.GetRetiredVersion(table->table_id, wanted);
    if (retired.ok() && retired->has_value()) {
      return ExpiredVersionError(name.ToString(), wanted, **retired);
    }
    return manifest.status();
  }
  if (manifest->table_id != table->table_id || manifest->version != wanted ||
      manifest->reference_delta_sha256 != record->reference_delta_sha256) {
    return absl::DataLossError(absl::StrCat("manifest ", record->manifest_path,
                                            " does not describe version ", wanted, " of ",
                                            name.ToString()));
  }
  if (absl::Status s = check_prefilter(manifest->schema); !s.ok()) return s;
  return std::unique_ptr<TableScan>(new TableScan(fs_, pool_, table_dir, std::move(*manifest),
                                                  std::move(prefilter), &registry_,
                                                  name.ToString()));
}

absl::StatusOr<ResolvedManifest> TableStore::CurrentManifestLocked(
    const registry::TableRecord& table) {
  auto cached = last_committed_.find(table.table_id);
  if (cached != last_committed_.end() &&
      cached->second.manifest.version == table.current_version) {
    return cached->second;
  }
  absl::StatusOr<registry::VersionRecord> record =
      registry_.GetVersion(table.table_id, table.current_version);
  if (!record.ok()) return record.status();
  ManifestChainReader reader(fs_, TableDir(table.name));
  absl::StatusOr<const ResolvedManifest*> resolved =
      reader.Resolve(table.current_version, record->manifest_path);
  if (!resolved.ok()) return resolved.status();
  ResolvedManifest manifest = *reader.TakeLast();
  if (manifest.manifest.table_id != table.table_id ||
      manifest.manifest.version != table.current_version) {
    return absl::DataLossError(absl::StrCat("manifest ", record->manifest_path,
                                            " does not describe version ", table.current_version,
                                            " of ", table.name.ToString()));
  }
  return manifest;
}

absl::StatusOr<DeleteOutcome> TableStore::Delete(const TableName& name,
                                                 const RowSelector& selector) {
  if (registry_.read_only()) {
    return absl::FailedPreconditionError("this root is open read-only: a DELETE needs the writer");
  }
  // From the first file written to the commit, no collection deletes table
  // files; one commit at a time across the root's writers, so the rows are
  // chosen on the version the compare-and-set builds on.
  absl::StatusOr<gc::GcHold> hold = gc::HoldReferencesShared(fs_, root_dir_);
  if (!hold.ok()) return hold.status();
  absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock lock(&commit_mu_);
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  absl::StatusOr<ReplaceOutcome> changed = ChangeRowsLocked(
      *table, selector, nullptr,
      {kTableDeleteFailpoints[0], kTableDeleteFailpoints[1], "", kTableDeleteFailpoints[2],
       kTableDeleteFailpoints[3]});
  if (!changed.ok()) return changed.status();
  return DeleteOutcome{changed->table_id, changed->version, changed->deleted_rows,
                       std::move(changed->operation_id)};
}

absl::StatusOr<ReplaceOutcome> TableStore::ReplaceWhere(const registry::TableRecord& table,
                                                        const RowSelector& selector,
                                                        const ColumnBatch& rows) {
  if (registry_.read_only()) {
    return absl::FailedPreconditionError(
        "this root is open read-only: a replace-where needs the writer");
  }
  if (absl::Status s = CheckBatchForTable(table, rows); !s.ok()) return s;
  if (absl::Status s = CheckBatchContained(rows, stage_.store()); !s.ok()) return s;
  absl::StatusOr<gc::GcHold> hold = gc::HoldReferencesShared(fs_, root_dir_);
  if (!hold.ok()) return hold.status();
  absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock lock(&commit_mu_);
  absl::StatusOr<registry::TableRecord> current = registry_.GetTableById(table.table_id);
  if (!current.ok()) return current.status();
  if (!(current->name == table.name) || !(current->schema == table.schema)) {
    return absl::FailedPreconditionError(absl::StrCat(
        table.name.ToString(), " changed (dropped, created again) since the replace-where began"));
  }
  // The rows to delete were meant for the version read: any commit since
  // (rows added or deleted by anyone) is a conflict, never merged.
  if (current->current_version != table.current_version) {
    return registry::VersionConflictError(registry::VersionConflict{
        table.table_id, table.current_version, current->current_version});
  }
  return ChangeRowsLocked(*current, selector, &rows, kTableReplaceFailpoints);
}

absl::Status TableStore::DropStillReferenced(
    const std::vector<std::pair<FragmentRef, const std::vector<uint32_t>*>>& survivors,
    const std::vector<size_t>& survivor_fragments,
    const absl::flat_hash_map<size_t, std::vector<uint64_t>>& live_uris,
    const std::string& table_dir, const Schema& schema, std::vector<DataLocation>* released) {
  std::vector<bool> still_referenced(released->size(), false);
  size_t unresolved = released->size();
  absl::flat_hash_map<std::string_view, std::vector<size_t>> released_by_uri;
  for (size_t k = 0; k < released->size(); ++k) released_by_uri[(*released)[k].uri].push_back(k);
  absl::flat_hash_set<uint64_t> released_hashes;
  for (const auto& [uri, indexes] : released_by_uri) released_hashes.insert(UriHash(uri));
  // The survivors that could hold one: those whose live URIs step 1 did
  // not keep, and those whose kept hashes hold a released URI's. The
  // others hold none of them, by their hashes alone.
  std::vector<size_t> to_check;
  for (size_t s = 0; s < survivors.size(); ++s) {
    auto known = live_uris.find(survivor_fragments[s]);
    if (known == live_uris.end() ||
        std::any_of(known->second.begin(), known->second.end(),
                    [&](uint64_t hash) { return released_hashes.contains(hash); })) {
      to_check.push_back(s);
    }
  }
  std::vector<bool> file_columns(schema.columns.size(), false);
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    file_columns[c] = schema.columns[c].type == ColumnType::kFile;
  }
  // Each read on pool_ ahead of this thread, which compares: a released
  // location is looked up by URI (whole locations compared only on a URI
  // match), and the walk stops once every one is found. Every read is
  // waited for before this function returns: they read its locals.
  struct LiveCells {
    ColumnBatch batch;
    std::vector<uint32_t> read_deleted;  // when the survivor is untouched
  };
  AheadOf<absl::StatusOr<LiveCells>> ahead;
  size_t next_read = 0;
  for (size_t s : to_check) {
    if (unresolved == 0) break;
    while (next_read < to_check.size() && ahead.pending.size() < kDeleteReadAhead) {
      const auto* survivor = &survivors[to_check[next_read++]];
      ahead.pending.push_back(
          pool_.Run([this, survivor, &table_dir, &schema, &file_columns]() -> absl::StatusOr<LiveCells> {
            absl::StatusOr<ColumnBatch> batch =
                ReadFragmentColumns(fs_, table_dir, survivor->first, schema, file_columns);
            if (!batch.ok()) return batch.status();
            LiveCells cells{*std::move(batch), {}};
            if (survivor->second == nullptr) {
              absl::StatusOr<std::vector<uint32_t>> rows =
                  ReadDeletedRows(fs_, table_dir, survivor->first);
              if (!rows.ok()) return rows.status();
              cells.read_deleted = *std::move(rows);
            }
            return cells;
          }));
    }
    absl::StatusOr<LiveCells> cells = ahead.pending.front().get();
    ahead.pending.pop_front();
    if (!cells.ok()) return cells.status();
    const ColumnBatch& batch = cells->batch;
    const std::vector<uint32_t>* deleted = survivors[s].second;
    ForEachLiveFileCell(
        batch, deleted == nullptr ? cells->read_deleted : *deleted,
        [&](std::string_view uri, size_t row, size_t column) {
          auto candidates = released_by_uri.find(uri);
          if (candidates == released_by_uri.end()) return;
          DataLocation location = std::get<DataLocation>(batch.Cell(row, column));
          for (size_t k : candidates->second) {
            if (!still_referenced[k] && (*released)[k] == location) {
              still_referenced[k] = true;
              --unresolved;
            }
          }
        });
  }
  std::vector<DataLocation> gone;
  for (size_t k = 0; k < released->size(); ++k) {
    if (!still_referenced[k]) gone.push_back(std::move((*released)[k]));
  }
  *released = std::move(gone);
  return absl::OkStatus();
}

absl::StatusOr<ReplaceOutcome> TableStore::ChangeRowsLocked(
    const registry::TableRecord& table, const RowSelector& selector, const ColumnBatch* added,
    const std::array<std::string_view, 5>& steps) {
  auto step = [&](size_t index) -> absl::Status {
    return steps[index].empty() ? absl::OkStatus() : LAKE_FAILPOINT(steps[index]);
  };
  const TableName& name = table.name;
  const Schema& schema = table.schema;
  for (size_t column : selector.columns) {
    if (column >= schema.columns.size()) {
      return absl::InvalidArgumentError(absl::StrCat("a DELETE from ", name.ToString(),
                                                     " cannot read column ", column, " of ",
                                                     schema.columns.size()));
    }
  }
  const uint64_t base = table.current_version;
  ReplaceOutcome outcome{table.table_id, base, 0, 0, ""};
  if (base == 0 && added == nullptr) return outcome;
  ResolvedManifest empty;  // version 0's: no fragment
  empty.manifest.schema = schema;
  absl::StatusOr<ResolvedManifest> current =
      base == 0 ? absl::StatusOr<ResolvedManifest>(std::move(empty)) : CurrentManifestLocked(table);
  if (!current.ok()) return current.status();
  const Manifest* manifest = &current->manifest;
  const std::string table_dir = TableDir(name);

  // 1. The rows: per touched fragment, every deleted row after this DELETE,
  // and what its FILE cells released.
  absl::flat_hash_map<size_t, std::vector<uint32_t>> deleted_after;  // by fragment index
  // The deleted rows' locations, each once (many rows may hold one).
  absl::flat_hash_set<DataLocation, DataLocationHash> released_once;
  // By fragment index: the hashes of its live URIs, as ChangeFragment gave
  // them, while they fit kMaxKeptLiveUriHashes (a fragment past it is read
  // again if the check below needs it).
  absl::flat_hash_map<size_t, std::vector<uint64_t>> live_uris;
  size_t live_uri_budget = kMaxKeptLiveUriHashes;
  std::vector<size_t> to_read;  // the fragments the statistics do not rule out
  for (size_t i = 0; i < manifest->fragments.size(); ++i) {
    const FragmentRef& ref = manifest->fragments[i];
    if (selector.statistics_may_match && ref.statistics &&
        !selector.statistics_may_match(*ref.statistics, ref.rows)) {
      continue;
    }
    to_read.push_back(i);
  }
  {
    // Each is read, decoded and its rows chosen on pool_ (ChangeFragment),
    // ahead of this thread, which takes the changes in order. Every read
    // is waited for before this block ends: they read its locals.
    AheadOf<absl::StatusOr<FragmentChange>> ahead;
    size_t next_read = 0;
    for (size_t i : to_read) {
      while (next_read < to_read.size() && ahead.pending.size() < kDeleteReadAhead) {
        const FragmentRef* next = &manifest->fragments[to_read[next_read++]];
        ahead.pending.push_back(pool_.Run([this, next, &table_dir, &schema, &selector] {
          return ChangeFragment(fs_, table_dir, *next, schema, selector);
        }));
      }
      absl::StatusOr<FragmentChange> change = ahead.pending.front().get();
      ahead.pending.pop_front();
      if (!change.ok()) return change.status();
      if (change->fresh.empty()) continue;
      outcome.deleted_rows += change->fresh.size();
      for (DataLocation& location : change->released) released_once.insert(std::move(location));
      if (change->live_uris_known && change->live_uri_hashes.size() <= live_uri_budget) {
        live_uri_budget -= change->live_uri_hashes.size();
        live_uris[i] = std::move(change->live_uri_hashes);
      }
      deleted_after[i] = std::move(change->deleted_after);
    }
  }
  if (outcome.deleted_rows == 0 && added == nullptr) return outcome;
  std::vector<DataLocation> released(std::make_move_iterator(released_once.begin()),
                                     std::make_move_iterator(released_once.end()));
  released_once.clear();
  CanonicalizeReferences(&released);

  // What no live row of the new version references any more. The new
  // version's changes: each touched fragment removed, and added back
  // under its path with its new deletion vector unless no row is left.
  std::vector<std::string> removed_fragments;
  std::vector<std::pair<FragmentRef, const std::vector<uint32_t>*>> survivors;
  std::vector<size_t> survivor_fragments;  // each survivor's index in manifest->fragments
  for (size_t i = 0; i < manifest->fragments.size(); ++i) {
    const FragmentRef& ref = manifest->fragments[i];
    auto touched = deleted_after.find(i);
    if (touched != deleted_after.end()) removed_fragments.push_back(ref.path);
    if (touched != deleted_after.end() && touched->second.size() == ref.rows) continue;
    survivors.push_back({ref, touched == deleted_after.end() ? nullptr : &touched->second});
    survivor_fragments.push_back(i);
  }
  if (!released.empty()) {
    if (absl::Status s = DropStillReferenced(survivors, survivor_fragments, live_uris, table_dir,
                                             schema, &released);
        !s.ok()) {
      return s;
    }
  }
  // The new rows' locations: added, and so never removed.
  std::vector<DataLocation> adds;
  if (added != nullptr) {
    absl::StatusOr<ReferenceDelta> delta = BuildReferenceDelta(
        table.table_id, base, base + 1, schema, absl::MakeConstSpan(added, 1));
    if (!delta.ok()) return delta.status();
    adds = std::move(delta->added);
    std::vector<DataLocation> gone;
    std::set_difference(released.begin(), released.end(), adds.begin(), adds.end(),
                        std::back_inserter(gone), ReferenceLess);
    released = std::move(gone);
  }
  if (absl::Status s = step(0); !s.ok()) return s;

  // 2..3. The new deletion vectors, the new rows' fragment, the reference
  // delta (removals, and a replace-where's additions) and the manifest of
  // base+1: records of the table log, all made durable by one sync
  // (table_log.h), named by nothing before the commit. The steps'
  // failpoints fire in order, after it. A failure leaves records no
  // manifest names (nothing to remove), and a fragment too large for a
  // record (a file of its own), which is removed again.
  std::string written;
  auto abandon = [&](const absl::Status& cause) {
    if (!written.empty()) RemoveUnreferencedFile(fs_, written);
    return cause;
  };
  VersionRecords records;
  for (auto& [ref, deleted] : survivors) {
    if (deleted == nullptr) continue;
    absl::StatusOr<std::string> bytes =
        EncodeDeletionVector(DeletionVector{ref.sha256, ref.rows, *deleted});
    if (!bytes.ok()) return bytes.status();
    ref.deletion_vector = DeletionVectorRef{"", Sha256Hex(*bytes), deleted->size()};
    records.added.push_back(std::move(ref));
    records.vector_bytes.push_back(*std::move(bytes));
  }
  std::string fragment_bytes;
  if (added != nullptr) {
    absl::StatusOr<std::string> bytes = EncodeValidatedFragment(*added);
    if (!bytes.ok()) return bytes.status();
    fragment_bytes = *std::move(bytes);
    records.fragment_bytes = fragment_bytes;
    records.fragment = FragmentRef{"", added->num_rows, fragment_bytes.size(),
                                   Sha256Hex(fragment_bytes), ComputeFragmentStatistics(*added),
                                   std::nullopt};
    outcome.inserted_rows = added->num_rows;
  }
  records.removed = std::move(removed_fragments);
  records.base_manifest_path = table.manifest_path;
  absl::StatusOr<EncodedReferenceDelta> delta = EncodeReferenceDelta(
      ReferenceDelta{table.table_id, base, base + 1, std::move(adds), released});
  if (!delta.ok()) return delta.status();
  Manifest header;
  header.format_version = kManifestFormatVersion;
  header.table_id = table.table_id;
  header.version = base + 1;
  header.parent_version = base;
  header.schema = manifest->schema;
  header.reference_delta_sha256 = delta->digest;
  header.created_unix_micros = NowMicros();
  // A link to base's manifest, or a checkpoint (manifest_chain.h).
  ResolvedManifest next = *std::move(current);
  manifest = nullptr;
  std::string manifest_path;
  if (absl::Status s = WriteVersionRecordsLocked(table_dir, records, *delta, std::move(header),
                                                 next, &manifest_path, &written);
      !s.ok()) {
    return abandon(s);
  }
  for (size_t index : {size_t{1}, size_t{2}, size_t{3}}) {
    if (index == 2 && added == nullptr) continue;
    if (absl::Status s = step(index); !s.ok()) return abandon(s);
  }

  // 4. The commit.
  outcome.operation_id = NewUuidV7();
  registry::VersionRecord record;
  record.version = base + 1;
  record.parent_version = base;
  record.manifest_path = manifest_path;
  record.reference_delta_sha256 = delta->digest;
  record.operation_id = outcome.operation_id;
  record.committed_unix_micros = NowMicros();
  absl::StatusOr<registry::TableRecord> committed =
      registry_.CommitVersion(table.table_id, base, record, std::nullopt);
  if (!committed.ok()) {
    if (registry::IsCommitOutcomeUnknown(committed.status())) return committed.status();
    return abandon(committed.status());
  }
  last_committed_[table.table_id] = std::move(next);
  outcome.version = committed->current_version;
  if (absl::Status s = step(4); !s.ok()) return s;
  return outcome;
}

absl::StatusOr<std::optional<AppendOutcome>> TableStore::Compact(const TableName& name) {
  if (registry_.read_only()) {
    return absl::FailedPreconditionError("this root is open read-only: compaction needs the writer");
  }
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  absl::StatusOr<std::unique_ptr<TableScan>> scan = Scan(name, table->current_version);
  if (!scan.ok()) return scan.status();
  const std::vector<FragmentRef>& fragments = (*scan)->manifest_.fragments;
  const bool has_deleted_rows = std::any_of(fragments.begin(), fragments.end(),
                                            [](const FragmentRef& f) { return f.deletion_vector; });
  if (fragments.size() <= 1 && !has_deleted_rows) return std::optional<AppendOutcome>();
  ColumnBatch merged = ColumnBatch::Empty(table->schema);
  for (;;) {
    absl::StatusOr<std::optional<ColumnBatch>> batch = (*scan)->Next();
    if (!batch.ok()) return batch.status();
    if (!batch->has_value()) break;
    merged.AppendRows(**batch, 0, (*batch)->num_rows);
  }
  absl::StatusOr<std::string> fragment_bytes = EncodeFragment(merged);
  if (!fragment_bytes.ok()) return fragment_bytes.status();
  std::string operation_id = NewUuidV7();
  NewVersion next;
  next.fragment_bytes = *fragment_bytes;
  next.fragment_sha256 = Sha256Hex(*fragment_bytes);
  next.rows = merged.num_rows;
  next.statistics = ComputeFragmentStatistics(merged);
  next.replace_fragments = true;
  // The same references, no new ones: an edge that adds nothing.
  absl::StatusOr<EncodedReferenceDelta> no_references = EncodeReferenceDelta(
      ReferenceDelta{table->table_id, table->current_version, table->current_version + 1, {}, {}});
  if (!no_references.ok()) return no_references.status();
  next.delta = std::move(*no_references);
  next.operation_id = operation_id;
  absl::StatusOr<registry::TableRecord> committed;
  {
    absl::StatusOr<gc::GcHold> hold = gc::HoldReferencesShared(fs_, root_dir_);
    if (!hold.ok()) return hold.status();
    absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
    if (!turn.ok()) return turn.status();
    absl::MutexLock lock(&commit_mu_);
    committed = CommitVersionLocked(*table, table->current_version, next);
  }
  if (!committed.ok()) return committed.status();
  return std::optional<AppendOutcome>(
      AppendOutcome{table->table_id, committed->current_version, operation_id, merged.num_rows});
}

absl::Status TableStore::EnumerateReferences(const TableName& name, ReferenceVisitor visit) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  absl::StatusOr<std::vector<registry::VersionRecord>> versions =
      registry_.ListVersions(table->table_id);
  if (!versions.ok()) return versions.status();
  absl::StatusOr<RetainedLineage> lineage =
      ReadRetainedLineage(registry_, table->table_id, *versions);
  if (!lineage.ok()) return lineage.status();
  return EnumerateLineage(fs_, TableDir(name), *lineage, visit);
}

absl::StatusOr<std::vector<DataLocation>> TableStore::CurrentReferences(const TableName& name) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  absl::StatusOr<std::vector<registry::VersionRecord>> versions =
      registry_.ListVersions(table->table_id);
  if (!versions.ok()) return versions.status();
  absl::StatusOr<RetainedLineage> lineage =
      ReadRetainedLineage(registry_, table->table_id, *versions);
  if (!lineage.ok()) return lineage.status();
  return ReplayLineage(fs_, TableDir(name), *lineage);
}

absl::Status TableStore::ForEachPendingCheckpoint(
    const AppendCheckpointStore& store,
    const std::function<void(const PendingCheckpointEntry&)>& visit) {
  std::string after;
  for (;;) {
    absl::StatusOr<PendingCheckpointList> page =
        store.List(kMaxListedAppendCheckpoints, absl::Now(), after);
    if (!page.ok()) return page.status();
    for (const PendingCheckpointEntry& entry : page->entries) visit(entry);
    if (page->more == 0 || page->last_considered.empty()) return absl::OkStatus();
    after = std::move(page->last_considered);
  }
}

absl::StatusOr<std::vector<PendingAppend>> TableStore::PendingAppends() {
  absl::StatusOr<absl::Duration> retention = AppendOperationRetention();
  if (!retention.ok()) return retention.status();
  std::optional<AppendCheckpointStore> follower_store;
  const AppendCheckpointStore* store = checkpoints_ ? &*checkpoints_ : nullptr;
  // A follower (or a store without checkpoints) lists without a store of
  // its own: it opens one read-only on the directory if it exists.
  std::string dir = absl::StrCat(root_dir_, "/", std::string(kAppendCheckpointsDir));
  if (store == nullptr && registry_.read_only() && fs_.Stat(dir).ok()) {
    absl::StatusOr<AppendCheckpointStore> opened = AppendCheckpointStore::Open(fs_, dir);
    if (!opened.ok()) return opened.status();
    follower_store = std::move(*opened);
    store = &*follower_store;
  }
  std::vector<PendingAppend> pending;
  if (store != nullptr) {
    absl::Status listed =
        ForEachPendingCheckpoint(*store, [&](const PendingCheckpointEntry& entry) {
          std::optional<Assessment> assessed = Assess(*store, entry.operation_id, *retention);
          if (!assessed) return;  // gone since the listing
          pending.push_back(PendingAppend{entry, assessed->state, std::move(assessed->table),
                                          assessed->version, std::move(assessed->reason)});
        });
    if (!listed.ok()) return listed;
  }
  // Then the checkpoint records of the tables' logs.
  const absl::Time now = absl::Now();
  absl::Status logged = ForEachLoggedCheckpoint(
      [&](const registry::TableRecord& table, const std::string& table_dir, LoggedCheckpoint& c) {
        PendingCheckpointEntry entry;
        entry.path = LoggedCheckpointPath(table_dir, c.address);
        entry.operation_id = c.operation_id.empty() ? entry.path : c.operation_id;
        entry.size_bytes = c.payload.size();
        if (c.names_fragment && c.checkpoint.ok()) {
          entry.size_bytes += c.checkpoint->batch.size();  // held by the fragment it names
        }
        if (absl::StatusOr<OperationId> id = ParseOperationId(c.operation_id); id.ok()) {
          entry.operation_time = OperationIdTime(*id);
          entry.age = now - entry.operation_time;
        }
        Assessment a = AssessCheckpoint(entry.operation_id, std::move(c.checkpoint), *retention);
        if (a.table.empty()) a.table = table.name.ToString();
        pending.push_back(PendingAppend{std::move(entry), a.state, std::move(a.table), a.version,
                                        std::move(a.reason)});
      },
      [&](const registry::TableRecord& table, const absl::Status& status) {
        PendingCheckpointEntry entry;
        entry.path = TableDir(table.name);
        pending.push_back(PendingAppend{std::move(entry), PendingAppend::State::kFailed,
                                        table.name.ToString(), 0,
                                        absl::StrCat("its table log cannot be read: ",
                                                     status.ToString())});
      });
  if (!logged.ok()) return logged;
  return pending;
}

std::optional<TableStore::Assessment> TableStore::Assess(const AppendCheckpointStore& store,
                                                         const std::string& operation_id,
                                                         absl::Duration retention) {
  absl::StatusOr<AppendCheckpoint> checkpoint = store.Load(operation_id);
  if (absl::IsNotFound(checkpoint.status())) return std::nullopt;
  return AssessCheckpoint(operation_id, std::move(checkpoint), retention);
}

TableStore::Assessment TableStore::AssessCheckpoint(const std::string& operation_id,
                                                    absl::StatusOr<AppendCheckpoint> checkpoint,
                                                    absl::Duration retention) {
  using State = PendingAppend::State;
  Assessment a;
  const absl::Time now = absl::Now();
  if (!checkpoint.ok()) {
    // Unreadable: its name still dates it, and past the horizon it goes
    // the way of every other checkpoint.
    absl::StatusOr<OperationId> id = ParseOperationId(operation_id);
    if (id.ok() && IsOperationExpired(*id, now, retention)) {
      a.state = State::kExpired;
      a.reason = std::string(
          ExpiredOperationError(operation_id, now - OperationIdTime(*id), retention).message());
    } else if (absl::IsDataLoss(checkpoint.status())) {
      a.state = State::kStuck;
      a.reason = absl::StrCat("damaged: ", checkpoint.status().message());
    } else {
      a.state = State::kFailed;
      a.reason = checkpoint.status().ToString();
    }
    return a;
  }
  a.table = checkpoint->table_name;
  absl::Status valid = ValidateForReplay(*checkpoint, stage_identity_, now, retention);
  // A commit that happened is recognised before anything else.
  absl::StatusOr<std::optional<registry::AppendOperationRecord>> record =
      registry_.GetAppendOperation(operation_id);
  if (!record.ok()) {
    a.state = State::kFailed;
    a.reason = record.status().ToString();
    return a;
  }
  if (record->has_value() && valid.ok()) {
    a.state = State::kAlreadyCommitted;
    a.version = (*record)->version;
    a.reason = absl::StrCat("its commit happened: version ", a.version);
    return a;
  }
  if (IsExpiredOperation(valid)) {
    a.state = State::kExpired;
    a.reason = std::string(valid.message());
    return a;
  }
  if (!valid.ok()) {
    a.state = State::kStuck;
    a.reason = std::string(valid.message());
    return a;
  }
  absl::StatusOr<TableName> name = ParseTableName(checkpoint->table_name);
  absl::StatusOr<registry::TableRecord> table =
      name.ok() ? registry_.GetTable(*name) : absl::StatusOr<registry::TableRecord>(name.status());
  if (!table.ok() && !absl::IsNotFound(table.status()) && name.ok()) {
    a.state = State::kFailed;
    a.reason = table.status().ToString();
    return a;
  }
  if (!table.ok() || table->table_id != checkpoint->table_id) {
    a.state = State::kStuck;
    a.reason = table.ok() ? "the table was dropped and created again"
                          : std::string(table.status().message());
    return a;
  }
  // Fully checked: these bytes become the fragment as they are.
  absl::StatusOr<ColumnBatch> batch =
      DecodeFragment(checkpoint->batch, table->schema, FragmentCheck::kFull);
  absl::Status files = batch.status();
  for (size_t c = 0; files.ok() && c < batch->columns.size(); ++c) {
    if (batch->columns[c].type != ColumnType::kFile) continue;
    for (size_t row = 0; files.ok() && row < batch->num_rows; ++row) {
      if (batch->columns[c].IsNull(row)) continue;
      files = stage_.store().CheckContainment(std::get<DataLocation>(batch->Cell(row, c)));
    }
  }
  if (!files.ok()) {
    a.state = State::kStuck;
    a.reason = std::string(files.message());
    return a;
  }
  a.state = State::kReplayable;
  a.checkpoint = std::move(*checkpoint);
  a.table_record = std::move(*table);
  a.batch = std::move(*batch);
  return a;
}

std::optional<RecoveredAppend> TableStore::RecoverOneLocked(const std::string& operation_id,
                                                            absl::Duration retention) {
  std::optional<Assessment> a = Assess(*checkpoints_, operation_id, retention);
  if (!a) return std::nullopt;
  return SettleLocked(operation_id, std::move(*a),
                      [&](RecoveredAppend::Result) { RemoveCheckpoint(operation_id); });
}

RecoveredAppend TableStore::SettleLocked(
    const std::string& operation_id, Assessment a,
    const std::function<void(RecoveredAppend::Result)>& settled) {
  using State = PendingAppend::State;
  RecoveredAppend result;
  result.operation_id = operation_id;
  result.table = a.table;
  switch (a.state) {
    case State::kAlreadyCommitted:
      result.result = RecoveredAppend::Result::kAlreadyCommitted;
      result.version = a.version;
      settled(result.result);
      return result;
    case State::kExpired:
      result.result = RecoveredAppend::Result::kExpired;
      result.message = a.reason;
      settled(result.result);
      return result;
    case State::kStuck:
      result.result = RecoveredAppend::Result::kRejected;
      result.message = a.reason;
      return result;
    case State::kFailed:
      result.result = RecoveredAppend::Result::kFailed;
      result.message = a.reason;
      return result;
    case State::kReplayable:
      break;
  }
  const registry::TableRecord& table = a.table_record;
  const uint64_t base = table.current_version;
  absl::StatusOr<EncodedReferenceDelta> delta =
      AppendDelta(table, base, *a.batch, a.checkpoint->batch, a.checkpoint->batch_sha256);
  absl::StatusOr<AppendOutcome> outcome =
      delta.ok() ? CommitAppendLocked(table, base, operation_id, *a.batch, a.checkpoint->batch,
                                      a.checkpoint->batch_sha256, std::move(*delta),
                                      /*checkpoint=*/nullptr)
                 : absl::StatusOr<AppendOutcome>(delta.status());
  if (!outcome.ok()) {
    if (std::optional<registry::CommittedOperation> committed =
            registry::GetCommittedOperation(outcome.status())) {
      result.result = RecoveredAppend::Result::kAlreadyCommitted;
      result.version = committed->version;
      settled(result.result);
      return result;
    }
    result.result = RecoveredAppend::Result::kFailed;
    result.message = outcome.status().ToString();
    return result;
  }
  result.result = RecoveredAppend::Result::kCommitted;
  result.version = outcome->version;
  settled(result.result);
  return result;
}

absl::Status TableStore::ForEachLoggedCheckpoint(
    const std::function<void(const registry::TableRecord&, const std::string& table_dir,
                             LoggedCheckpoint&)>& visit,
    const std::function<void(const registry::TableRecord&, const absl::Status&)>& failed) {
  absl::StatusOr<std::vector<registry::TableRecord>> tables = registry_.ListTables();
  if (!tables.ok()) return tables.status();
  for (const registry::TableRecord& table : *tables) {
    std::string table_dir = TableDir(table.name);
    absl::StatusOr<std::vector<LoggedCheckpoint>> pending =
        UnwithdrawnCheckpoints(fs_, table_dir, CommittedLogWatermark(table.manifest_path));
    if (!pending.ok()) {
      failed(table, pending.status());
      continue;
    }
    for (LoggedCheckpoint& c : *pending) visit(table, table_dir, c);
  }
  return absl::OkStatus();
}

void TableStore::RecoverLogged(absl::Duration retention, std::vector<RecoveredAppend>* results) {
  absl::StatusOr<std::vector<registry::TableRecord>> tables = registry_.ListTables();
  auto failed = [&](const std::string& table, const absl::Status& status) {
    results->push_back(
        RecoveredAppend{"", table, RecoveredAppend::Result::kFailed, 0, status.ToString()});
  };
  if (!tables.ok()) return failed("", tables.status());
  for (const registry::TableRecord& listed : *tables) {
    // One checkpoint at a time, the log read again after each: a replay
    // commits, and moves the watermark.
    absl::flat_hash_set<std::string> seen;  // by address: each settled once
    for (;;) {
      // A replay writes table files: no collection deletes meanwhile; and
      // no append of any writer of the root is between its checkpoint and
      // its commit.
      absl::StatusOr<gc::GcHold> hold = gc::HoldReferencesShared(fs_, root_dir_);
      if (!hold.ok()) return failed(listed.name.ToString(), hold.status());
      absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
      if (!turn.ok()) return failed(listed.name.ToString(), turn.status());
      absl::MutexLock lock(&commit_mu_);
      absl::StatusOr<registry::TableRecord> table = registry_.GetTableById(listed.table_id);
      if (absl::IsNotFound(table.status())) break;  // dropped meanwhile
      if (!table.ok()) return failed(listed.name.ToString(), table.status());
      const std::string table_dir = TableDir(table->name);
      // Every one not withdrawn: one found committed is reported and
      // withdrawn, as a checkpoint file found committed is removed.
      absl::StatusOr<std::vector<LoggedCheckpoint>> pending =
          UnwithdrawnCheckpoints(fs_, table_dir, CommittedLogWatermark(table->manifest_path));
      if (!pending.ok()) {
        failed(table->name.ToString(), pending.status());
        break;
      }
      LoggedCheckpoint* next = nullptr;
      for (LoggedCheckpoint& c : *pending) {
        if (seen.insert(c.operation_id.empty() ? FormatTableLogAddress(c.address)
                                               : c.operation_id)
                .second) {
          next = &c;
          break;
        }
      }
      if (next == nullptr) break;
      const std::string operation_id = next->operation_id.empty()
                                           ? LoggedCheckpointPath(table_dir, next->address)
                                           : next->operation_id;
      Assessment a = AssessCheckpoint(operation_id, std::move(next->checkpoint), retention);
      const uint64_t version = next->version;
      results->push_back(SettleLocked(operation_id, std::move(a), [&](RecoveredAppend::Result r) {
        // A replay's commit moves the watermark past it; one found committed
        // or expired is withdrawn (a failure leaves it for the next run).
        if (r == RecoveredAppend::Result::kCommitted) return;
        const WithdrawalReason reason = r == RecoveredAppend::Result::kExpired
                                            ? WithdrawalReason::kExpired
                                            : WithdrawalReason::kSettled;
        if (absl::Status s = WithdrawLoggedCheckpointLocked(table_dir, table->table_id, version,
                                                            operation_id, reason);
            !s.ok()) {
          std::fprintf(stderr, "lake: could not withdraw settled append checkpoint %s: %s\n",
                       operation_id.c_str(), s.ToString().c_str());
        }
      }));
    }
  }
}

absl::StatusOr<std::vector<RecoveredAppend>> TableStore::Recover() {
  if (registry_.read_only()) {
    return absl::FailedPreconditionError("this root is open read-only: recovery needs the writer");
  }
  std::vector<RecoveredAppend> results;
  if (!checkpoints_) return results;
  absl::StatusOr<absl::Duration> retention = AppendOperationRetention();
  if (!retention.ok()) return retention.status();
  // Checkpoint files first (appends of tables written before checkpoints
  // were table log records), then the tables' logs.
  absl::Status listed =
      ForEachPendingCheckpoint(*checkpoints_, [&](const PendingCheckpointEntry& entry) {
        // A replay writes table files: no collection deletes meanwhile.
        absl::StatusOr<gc::GcHold> hold = gc::HoldReferencesShared(fs_, root_dir_);
        if (!hold.ok()) {
          results.push_back(RecoveredAppend{entry.operation_id, "",
                                            RecoveredAppend::Result::kFailed, 0,
                                            hold.status().ToString()});
          return;
        }
        // The commit turn: no append of any writer of the root is between
        // publishing and settling this checkpoint meanwhile.
        absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
        if (!turn.ok()) {
          results.push_back(RecoveredAppend{entry.operation_id, "",
                                            RecoveredAppend::Result::kFailed, 0,
                                            turn.status().ToString()});
          return;
        }
        absl::MutexLock lock(&commit_mu_);
        std::optional<RecoveredAppend> recovered =
            RecoverOneLocked(entry.operation_id, *retention);
        if (recovered) results.push_back(std::move(*recovered));
      });
  if (!listed.ok()) return listed;
  RecoverLogged(*retention, &results);
  return results;
}

absl::StatusOr<std::string> TableStore::DiscardPendingAppend(const std::string& operation_id) {
  if (registry_.read_only()) {
    return absl::FailedPreconditionError(
        "this root is open read-only: discarding a checkpoint needs the writer");
  }
  if (absl::Status s = ParseOperationId(operation_id).status(); !s.ok()) return s;
  if (!checkpoints_) {
    return absl::NotFoundError(
        absl::StrCat("no pending append checkpoint ", operation_id, ": checkpoints are off"));
  }
  absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock lock(&commit_mu_);
  absl::StatusOr<std::string> moved = checkpoints_->Discard(operation_id);
  if (!absl::IsNotFound(moved.status())) return moved;
  // Not a file: a checkpoint record of a table's log, withdrawn durably
  // (its bytes stay in the log).
  absl::StatusOr<std::vector<registry::TableRecord>> tables = registry_.ListTables();
  if (!tables.ok()) return tables.status();
  for (const registry::TableRecord& table : *tables) {
    const std::string table_dir = TableDir(table.name);
    absl::StatusOr<std::vector<LoggedCheckpoint>> pending = UnsettledLoggedCheckpoints(
        table_dir, CommittedLogWatermark(table.manifest_path), /*except=*/"");
    if (!pending.ok()) return pending.status();
    for (const LoggedCheckpoint& c : *pending) {
      if (c.operation_id != operation_id) continue;
      if (absl::Status s = WithdrawLoggedCheckpointLocked(table_dir, table.table_id, c.version,
                                                          operation_id,
                                                          WithdrawalReason::kDiscarded);
          !s.ok()) {
        return s;
      }
      return LoggedCheckpointPath(table_dir, c.address);
    }
  }
  return moved;
}

}  // namespace lake::table
