// The tables of a lake root: registrations in the registry, files under
// <root>/tables/<ns>/<table>/, and the append path that joins them.
//
// A table directory:
//   _log/<segment>.seg            the table log (table_log_format.h): every
//                                 version's fragment, reference delta and
//                                 manifest, and a DELETE's deletion vectors,
//                                 as records named by address (a table path
//                                 standing where a file's path stood)
//   data/<uuidv7>.frag            a fragment too large for a record, and the
//                                 fragments of versions written before the
//                                 log held them (data/<uuidv7>.del: older
//                                 DELETEs' deletion vectors)
//   _versions/<version>.manifest  older versions' manifests
//                                 (manifest_format.h), 20 decimal digits
//   _lake/object_refs/<version>.refs   older versions' reference deltas
//                                 (reference_journal.h); an expiry's
//                                 reference snapshots
// Every reader resolves a table path, file or record, through
// ReadTablePath (table_log.h).
// A dropped table's directory moves to tables/.dropped/<id: 16 hex>/ (a
// name no namespace can have), so its name is free at once (DropTable).
//
// A record (or file) becomes part of the table only when the registry's
// version compare-and-set names its manifest; until then it is invisible,
// and records of an attempt that never committed are never read.
//
// The append path, in order (each step a failpoint, kTableAppendFailpoints):
//   1. the caller validated the statement and uploaded every FILE;
//   2. under the root's commit turn (registry::Registry::AwaitCommitTurn:
//      one commit at a time across every writer thread and process, with a
//      busy timeout) and this store's commit lock, once the table is still
//      at the base version
//      (else Aborted, a lost race, and nothing is written): the append
//      checkpoint is published (<root>/checkpoints/, on by default:
//      operation id, table, base version, stage identity, batch);
//   3. the fragment is written durably;
//   4. the reference delta of base+1 and its manifest are written durably.
//   Steps 3 and 4 are one write of three table log records (the fragment,
//   the delta, then the manifest naming both) and one sync of their
//   segment (WriteVersionRecordsLocked), done while step 2 publishes the
//   checkpoint on another thread; none is named by anything durable before
//   5, and the failpoints fire after both, in order;
//   5. the registry's compare-and-set commits version base+1 with the
//      operation record (synced);
//   (2..5 hold the root's shared references lock, engine/gc/gc_locks.h:
//   no collection deletes table files or objects from the first table
//   file written to the commit — compaction and replays too);
//   6. the checkpoint is removed (a failure there is logged, never returned).
// With versions in the table log (TableStoreOptions::versions_in_table_log)
// and checkpoints on, the checkpoint of 2 is no file: it is a record of
// the same write as 3 and 4, right after the fragment record it names
// instead of holding the batch again (append_record_format.h), made
// durable by the same sync, and the registry's commit is deferred
// (registry.h: not synced, but for the first of an owner to a table, which
// marks the table with the machine's boot), so an append needs one flush.
// A power loss may lose deferred commits; each one's checkpoint record is
// then past the committed watermark again, and the first writer to open
// the root on the next boot (RedoDeferredCommits, before anything else)
// replays them, in log order, as the versions they were. A withdrawal is a withdrawal record
// appended durably; 6 has nothing to remove. Pending appends are the
// checkpoint records past the committed watermark (the end of the
// current version's manifest record, which the registry's version record
// names) with no withdrawal and no operation record; every commit copies
// the unsettled ones its manifest would pass over to after it
// (logged_checkpoints.h). Recover, PendingAppends and DiscardPendingAppend
// read checkpoint files (older appends) and then every table's log.
// A failure before 5 leaves the version unchanged; the objects of step 1
// stay unreferenced (for GC). An append that certainly never commits (its
// checkpoint failed to publish or was withdrawn, or it had none) removes
// the fragment it wrote: nothing can reference it.
//
// What the caller of a failed append is told. A failure certainly before
// the commit call of 5 (a write of 2..4 failing, a lost race, any refusal
// the registry found before its write) withdraws the checkpoint durably
// (AppendCheckpointStore::Withdraw) before the error returns: the append
// will never commit, and running it again appends its rows once. A failure
// that may still commit keeps the checkpoint and returns a
// PendingOperationError (pending_append_error.h) naming the operation,
// which recovery settles: the registry's synced write of 5 failing (it may
// have reached its log), a failure after 5, a checkpoint renamed into place
// whose directory sync failed (the rename may or may not survive a power
// loss; a second sync after a failed one proves nothing), or a withdrawal
// that failed.
//
// A replay of a checkpoint (Recover) finds the operation's record when 5
// happened and converges on that version; otherwise it commits the batch on
// the table's current version. The replay and the append path both run
// under the commit lock, so recovery never replays a checkpoint an append
// of this store is still writing or about to withdraw.
//
// Group commit (TableStoreOptions::group_commit, on by default; an append
// on the current version with its checkpoint in the log): the turn is
// held only for 2..4 written unsynced and the commit queued
// (commit_queue.h). The sync is shared by every append queued before it,
// and 5 is done in queue order by whoever holds the turn next, this
// writer or another (AppendQueued). The steps' failpoints fire in the
// same order: 2..4 once a sync covered the records, a failure there being
// the sync's (the append never commits: its settler withdraws the
// checkpoint). A conflict (the version it was written on failed, or
// another writer committed first) writes it again. Every other commit
// takes the turn with the queue settled (AwaitQuiescentTurn), so recovery
// never replays a checkpoint whose append is still queued.
//
// Thread safety: every method may be called from any thread.
#ifndef LAKE_ENGINE_TABLE_TABLE_STORE_H_
#define LAKE_ENGINE_TABLE_TABLE_STORE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/task_pool.h"
#include "engine/managed_stage.h"
#include "engine/table/append_checkpoint_store.h"
#include "engine/table/append_record_format.h"
#include "engine/table/column_batch.h"
#include "engine/table/commit_queue.h"
#include "engine/table/derived_reference_delta_format.h"
#include "engine/table/logged_checkpoints.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/manifest_format.h"
#include "engine/table/reference_journal.h"
#include "engine/table/segment_rewrite.h"
#include "engine/table/table_log.h"
#include "schema/table_schema.h"
#include "io/file_system.h"
#include "registry/registry.h"

namespace lake::table {

inline constexpr std::string_view kTablesDir = "tables";
// Beneath kTablesDir: where dropped tables' directories go.
inline constexpr std::string_view kDroppedTablesDir = ".dropped";
// The subdirectories of a table directory that hold its files (above).
inline constexpr std::string_view kTableDataDir = "data";
// (kTableVersionsDir, kMaxManifestBytes and ManifestRelativePath are in
// manifest_chain.h.)

// <root_dir>/tables/<ns>/<table>: the directory of a table (TableStore::TableDir).
std::string TableDirectory(const std::string& root_dir, const TableName& name);
// <root_dir>/tables/.dropped/<table id: 16 lowercase hex>: where a dropped
// table's directory goes.
std::string DroppedTableDirectory(const std::string& root_dir, uint64_t table_id);
// Where a dropped table's files are: DroppedTableDirectory, or its old
// directory while the drop's move has not happened yet (a crash between the
// registry's commit and the move). NotFound when neither exists.
absl::StatusOr<std::string> LocateDroppedTableDirectory(io::FileSystem& fs,
                                                        const std::string& root_dir,
                                                        const registry::DroppedTableRecord& dropped);

// The append path's steps, in order.
inline constexpr std::array<std::string_view, 6> kTableAppendFailpoints = {
    "table_append.prepared",               // uploads done, nothing persisted yet
    "table_append.checkpoint_published",   // the checkpoint is durable
    "table_append.fragment_written",       // the fragment is durable
    "table_append.reference_delta_written",  // the delta and manifest are durable
    "table_append.committed",              // the registry commit is durable
    "table_append.removing_checkpoint",    // just before the checkpoint goes
};

// A drop's steps, in order (TableStore::DropTable).
inline constexpr std::array<std::string_view, 2> kTableDropFailpoints = {
    "table_drop.committed",  // the registry dropped it; the directory not moved
    "table_drop.moved",      // the directory moved, durably
};

// What an append builds on: the version read before its uploads (a commit
// in between is a conflict), or the current one when it commits.
enum class AppendBase { kRead, kCurrent };

// Whether an append checks its batch's FILE cells contained in the stage.
// Containment is a function of a cell's uri and the stage alone, so a cell
// checked once needs no second check.
enum class FileCellContainment {
  kCheck,
  // Every FILE cell was checked when it was bound (a prepared statement's
  // CheckLocation) or is an upload of this stage: not checked again.
  kCheckedWhenBound,
};

// An expiry's steps, in order (TableStore::Expire).
inline constexpr std::array<std::string_view, 3> kTableExpireFailpoints = {
    "table_expire.selected",          // the versions to retire chosen, nothing written
    "table_expire.snapshot_written",  // the reference snapshot is durable, unnamed
    "table_expire.committed",         // the registry retired them (one synced write)
};

// A DELETE's steps, in order (TableStore::Delete).
inline constexpr std::array<std::string_view, 4> kTableDeleteFailpoints = {
    "table_delete.selected",          // the rows chosen, nothing written
    "table_delete.vectors_written",   // the vectors' log records are durable, unnamed
    "table_delete.manifest_written",  // the removal delta and the manifest are durable
    "table_delete.committed",         // the registry commit is durable
};

// A replace-where's steps, in order (TableStore::ReplaceWhere).
inline constexpr std::array<std::string_view, 5> kTableReplaceFailpoints = {
    "table_replace.selected",          // the base checked, the rows chosen; nothing written
    "table_replace.vectors_written",   // the new deletion vectors are durable, unnamed
    "table_replace.fragment_written",  // the new rows' fragment is durable, unnamed
    "table_replace.manifest_written",  // the reference delta and the manifest are durable
    "table_replace.committed",         // the registry commit is durable
};

// A segment compaction's steps, in order (TableStore::CompactSegments).
inline constexpr std::array<std::string_view, 4> kSegmentCompactionFailpoints = {
    "segment_compaction.measured",  // live bytes counted, before the commit turn
    "segment_compaction.selected",  // the records to copy chosen, nothing written
    "segment_compaction.written",   // the copies, the delta and the manifest are durable, unnamed
    "segment_compaction.committed",  // the registry commit is durable
};

// What a segment compaction did (TableStore::CompactSegments).
struct SegmentCompactionOutcome {
  uint64_t table_id = 0;
  uint64_t version = 0;  // the new version
  std::string operation_id;
  // The mostly-dead rolled segments whose records the current version no
  // longer names (each with its live bytes before), ascending.
  std::vector<SegmentUse> rewritten;
  uint64_t copied_fragments = 0;
  uint64_t copied_vectors = 0;
  uint64_t copied_bytes = 0;  // the payloads copied
};

// Which rows of a fragment a DELETE removes. For each fragment,
// `statistics_may_match` (when set) sees its statistics first: a fragment
// it rejects is not opened. Then `columns` (schema indexes) are decoded
// and `matching_rows` names the rows to delete, ascending indexes into the
// fragment's rows (rows already deleted may be named again: they stay
// deleted); the table's FILE columns are decoded only after, for a
// fragment with rows to delete. Without `matching_rows`, every row (a
// DELETE without WHERE). `matching_rows` is called on pool threads,
// several fragments at once: it must be safe to call concurrently.
struct RowSelector {
  std::vector<size_t> columns;
  std::function<absl::StatusOr<std::vector<size_t>>(const ColumnBatch& partial)> matching_rows;
  std::function<bool(const FragmentStatistics& statistics, uint64_t rows)> statistics_may_match;
};

struct DeleteOutcome {
  uint64_t table_id = 0;
  uint64_t version = 0;       // the new version; the current one when nothing matched
  uint64_t deleted_rows = 0;  // 0: nothing matched, and no version was committed
  std::string operation_id;   // "" when nothing was committed
};

struct ReplaceOutcome {
  uint64_t table_id = 0;
  uint64_t version = 0;  // the new version
  uint64_t deleted_rows = 0;
  uint64_t inserted_rows = 0;
  std::string operation_id;
};

// The rows of `fragment` its deletion vector deletes (ascending; none
// without one), read from `table_dir` and checked: DataLoss when the
// vector is missing, damaged, not the file its manifest names (SHA-256),
// or computed for another fragment or count.
absl::StatusOr<std::vector<uint32_t>> ReadDeletedRows(io::FileSystem& fs,
                                                      const std::string& table_dir,
                                                      const FragmentRef& fragment);

// The lineage a replay of a table's references walks: from its reference
// base (the snapshot an expiry wrote), when it has one, through the edges
// of every version after it; else every edge from version 0.
struct RetainedLineage {
  std::optional<LineageBase> base;
  std::vector<LineageEdge> edges;
};
// The lineage of `table_id`, whose version records are `versions`
// (ascending, as the registry lists them).
absl::StatusOr<RetainedLineage> ReadRetainedLineage(
    registry::Registry& registry, uint64_t table_id,
    const std::vector<registry::VersionRecord>& versions);
// EnumerateReferences or EnumerateReferencesFrom, as `lineage` says: the
// additions alone, the union of what the lineage's versions held.
absl::Status EnumerateLineage(io::FileSystem& fs, const std::string& table_dir,
                              const RetainedLineage& lineage, ReferenceVisitor visit);
// The references of the lineage's last version: its deltas replayed
// (ReferenceReplay), canonical. Fails closed as the walk does, and when a
// removal removes what the lineage does not hold.
absl::StatusOr<std::vector<DataLocation>> ReplayLineage(io::FileSystem& fs,
                                                        const std::string& table_dir,
                                                        const RetainedLineage& lineage);

// Which versions an expiry retires: those that are none of the newest
// `keep_last` (when set) and committed before now - `older_than` (when
// set), never the current version nor a tagged one. At least one of the
// two must be set.
struct ExpirePolicy {
  std::optional<uint64_t> keep_last;
  std::optional<absl::Duration> older_than;
};

struct ExpireOutcome {
  std::vector<uint64_t> retired;  // ascending; empty when nothing was due
  uint64_t current_version = 0;
};

// What one tag alone keeps from the collector: the table files (its
// manifest and the chain links it resolves through, the fragments it
// lists and their deletion vectors) no other retained version needs, and
// their bytes. A table log record counts as its whole segment file
// (TableFileOfPath): a segment is the tag's alone when no other retained
// version names a record in it and it is not the active segment (which
// the collector never takes); its bytes are the segment file's.
struct TagRetention {
  registry::TagRecord tag;
  uint64_t exclusive_files = 0;
  uint64_t exclusive_bytes = 0;
};

struct TableStoreOptions {
  // Append checkpoints (on by default; off only for hosts that keep their
  // own intent log).
  bool append_checkpoints = true;
  // How long an unfinished append stays replayable.
  absl::Duration retention = absl::Hours(7 * 24);
  // A version's manifest is a link to its parent's (manifest_chain.h)
  // until a chain would reach this many files: then a checkpoint.
  // 1..kMaxManifestChainLength + 1; 1 writes only full lists.
  uint32_t manifest_checkpoint_interval = kMaxManifestChainLength + 1;
  // The table log's roll bound (TableLogWriter): kTableLogSegmentBytes;
  // smaller only as a test seam, so that a few records roll a segment.
  uint64_t table_log_segment_bytes = kTableLogSegmentBytes;
  // Whether a version's fragment, reference delta and manifest are table
  // log records (one write, one sync: TableStore::WriteVersionRecordsLocked;
  // the default) rather than files of their own (three syncs, renames and
  // directory syncs: WriteVersionFilesLocked, the layout of lakes before
  // the table log). Both layouts are read whatever this says, and a table
  // may hold versions of both. kVersionsInTableLogEnv=0 turns it off for a
  // host.
  bool versions_in_table_log = true;
  // The format of an append's derived reference delta
  // (derived_reference_delta_format.h): 4, whose registry digest is the
  // fragment's; 3 only as a test seam, to write as the lake before did.
  uint32_t derived_delta_format = kDerivedReferenceDeltaFormatVersion;
  // Whether appends share their flushes through the root's commit queue
  // (commit_queue.h; the default): written under the commit turn, synced
  // outside it once for every append queued, committed in queue order.
  // Off, each append holds the turn through its own sync and commit.
  bool group_commit = true;
};
// The environment variable that turns TableStoreOptions::versions_in_table_log
// off ("0": versions as files of their own) where a host builds its options
// from the environment (the C ABI); any other value leaves the default.
inline constexpr std::string_view kVersionsInTableLogEnv = "LAKE_TABLE_LOG_VERSIONS";

struct AppendOutcome {
  uint64_t table_id = 0;
  uint64_t version = 0;
  std::string operation_id;
  uint64_t rows = 0;
};

// What recovery did with one checkpoint.
struct RecoveredAppend {
  enum class Result {
    kCommitted,         // replayed now: committed as `version`
    kAlreadyCommitted,  // its commit had happened: converged on `version`
    kExpired,           // past the retention horizon: rejected and removed
    kRejected,          // invalid for this root (other stage, damaged, table gone): kept
    kFailed,            // the replay failed (storage): kept for the next recovery
  };
  std::string operation_id;
  std::string table;
  Result result = Result::kFailed;
  uint64_t version = 0;
  std::string message;  // why, for kExpired/kRejected/kFailed
};
std::string_view RecoveredAppendResultName(RecoveredAppend::Result result);

// A pending checkpoint and what recovery would do with it now.
struct PendingAppend {
  enum class State {
    kReplayable,        // recovery commits it
    kAlreadyCommitted,  // its commit happened: recovery converges on `version`
    kExpired,           // past the retention horizon: recovery rejects and removes it
    kStuck,             // refused and kept (damaged, another stage, table gone):
                        // until it expires, or an operator discards it
    kFailed,            // reading it or the registry failed: tried again next time
  };
  PendingCheckpointEntry checkpoint;
  State state = State::kFailed;
  std::string table;     // "ns.t" when the checkpoint could be read
  uint64_t version = 0;  // for kAlreadyCommitted
  std::string reason;    // why, for every state but kReplayable
};
// "replayable", "already-committed", "expired", "stuck", "failed".
std::string_view PendingAppendStateName(PendingAppend::State state);

// Lets a scan pass over fragments that hold no wanted row without decoding
// them whole: for each fragment, `columns` (schema indexes) are decoded
// first and `may_match` is shown the batch holding them (its other columns
// empty, num_rows set). A fragment it rejects is not decoded further and
// not returned; one it accepts is decoded whole and returned as it is (the
// caller still filters its rows). Runs on the scan's read-ahead threads, so
// `may_match` must be safe to call concurrently.
//
// Before that, a fragment whose manifest entry has statistics is shown to
// `statistics_may_match` (when set) with its row count: one it rejects is
// never opened.
struct ScanPrefilter {
  std::vector<size_t> columns;
  std::function<bool(const ColumnBatch& partial)> may_match;
  std::function<bool(const FragmentStatistics& statistics, uint64_t rows)> statistics_may_match;
};

// The rows of one table version, one fragment at a time.
class TableScan {
 public:
  const Schema& schema() const { return manifest_.schema; }
  uint64_t version() const { return manifest_.version; }
  uint64_t total_rows() const { return manifest_.total_rows; }
  size_t fragment_count() const { return manifest_.fragments.size(); }
  // The fragment files this scan has read so far (those its statistics
  // ruled out are never read).
  size_t fragments_opened() const { return fragments_opened_.load(); }
  // The next fragment's rows (the next one the prefilter accepts, if the
  // scan has one); nullopt after the last. DataLoss when a fragment is
  // missing or damaged. The following fragments are read and decoded ahead
  // meanwhile, on other threads (at most kScanReadAhead).
  absl::StatusOr<std::optional<ColumnBatch>> Next();

  TableScan(const TableScan&) = delete;
  TableScan& operator=(const TableScan&) = delete;
  ~TableScan();

 private:
  friend class TableStore;
  static constexpr size_t kScanReadAhead = 2;
  TableScan(io::FileSystem& fs, TaskPool& pool, std::string table_dir, Manifest manifest,
            std::optional<ScanPrefilter> prefilter, registry::Registry* registry = nullptr,
            std::string table_name = "")
      : fs_(fs),
        pool_(pool),
        table_dir_(std::move(table_dir)),
        manifest_(std::move(manifest)),
        prefilter_(std::move(prefilter)),
        registry_(registry),
        table_name_(std::move(table_name)) {}
  // Whether the prefilter's statistics rule fragment `index` out.
  bool SkippedByStatistics(size_t index) const;
  // A fragment gone missing under a scan of a version expired since it
  // began (collected after its cutoff) is NotFound, as the expiry makes it;
  // `failed` otherwise.
  absl::Status ExplainMissing(const absl::Status& failed) const;
  // Reads, checks and decodes fragment `index` of the manifest; nullopt
  // when the prefilter rejects it.
  absl::StatusOr<std::optional<ColumnBatch>> ReadFragment(size_t index) const;
  io::FileSystem& fs_;
  TaskPool& pool_;  // the store's: runs the reads ahead
  std::string table_dir_;
  Manifest manifest_;
  std::optional<ScanPrefilter> prefilter_;
  registry::Registry* registry_;  // to tell an expired version from damage
  std::string table_name_;
  size_t next_ahead_ = 0;  // the first fragment not yet being read
  mutable std::atomic<size_t> fragments_opened_{0};
  // The reads ahead, in fragment order. The destructor waits for each (a
  // pool's future does not wait when destroyed), before what they use goes.
  std::deque<std::future<absl::StatusOr<std::optional<ColumnBatch>>>> ahead_;
};

class TableStore {
 public:
  // `registry`, `stage` and `fs` must outlive the store. `stage_identity`
  // is the root's canonical stage descriptor JSON (credential-free).
  static absl::StatusOr<std::unique_ptr<TableStore>> Open(io::FileSystem& fs,
                                                          std::string root_dir,
                                                          registry::Registry& registry,
                                                          ManagedStage& stage,
                                                          std::string stage_identity,
                                                          TableStoreOptions options = {});

  io::FileSystem& fs() { return fs_; }
  registry::Registry& registry() { return registry_; }
  ManagedStage& stage() { return stage_; }
  const std::string& root_dir() const { return root_dir_; }
  std::string TableDir(const TableName& name) const;

  // Finishes the move of a dropped table of the same name first (below).
  absl::StatusOr<registry::TableRecord> CreateTable(const TableName& name, const Schema& schema);
  // Drops the table. Under the root's commit turn (no append of any writer
  // is committing meanwhile), in order:
  //   1. the registry drops it (one synced write, Registry::DropTable): it
  //      is gone from every listing and lookup at once, its name is free;
  //   2. its directory moves to DroppedTableDirectory (both parents synced).
  // A crash between 1 and 2 leaves the directory where it was, owned by no
  // table: the next DropTable, CreateTable of that name, or writer Open
  // finishes the move first. The dropped table's files and the objects only
  // it referenced are the collector's once its cutoff has passed since 1.
  // An append to it that has not committed fails (NotFound). NotFound for
  // an unknown table.
  absl::StatusOr<registry::DroppedTableRecord> DropTable(const TableName& name);
  absl::StatusOr<registry::TableRecord> GetTable(const TableName& name);
  absl::StatusOr<std::vector<registry::TableRecord>> ListTables();
  absl::StatusOr<std::vector<registry::VersionRecord>> ListVersions(const TableName& name);

  // Pins `version` under `tag` (Registry::TagVersion): no expiry retires it.
  absl::StatusOr<registry::TagRecord> TagVersion(const TableName& name, const std::string& tag,
                                                 uint64_t version);
  // Removes the tag; NotFound when the table has no such tag.
  absl::Status UntagVersion(const TableName& name, const std::string& tag);
  absl::StatusOr<std::vector<registry::TagRecord>> ListTags(const TableName& name);
  absl::StatusOr<std::vector<registry::RetiredVersionRecord>> ListRetiredVersions(
      const TableName& name);
  // Per tag, what only it retains (TagRetention): the files of its version
  // that no other retained version (the current one, another tag's, one
  // not yet expired) lists — a table log segment whole, when no other
  // retained version names a record in it and it is not the active one.
  absl::StatusOr<std::vector<TagRetention>> DescribeTagRetention(const TableName& name);

  // Retires the versions `policy` selects. Under the commit lock, in order:
  //   1. the versions are selected (kTableExpireFailpoints[0]);
  //   2. when the oldest version retained afterwards (V) is past the
  //      table's reference base (and past version 1), the reference
  //      snapshot of V is written durably, named by nothing yet;
  //   3. the registry retires the versions and records V's snapshot as the
  //      table's reference base, in one synced write (RetireVersions).
  // A crash before 3 retires nothing (a snapshot left by 2 is the same
  // bytes the next expiry writes); after, all of it. A retired version
  // cannot be scanned (NotFound, also AS OF VERSION, also for a follower)
  // nor tagged. Once the cutoff has passed since 3, its manifest, the
  // fragments no retained version lists, and — when it is before the
  // reference base — its reference delta are the collector's. Nothing to
  // retire is OK with an empty list. InvalidArgument for an empty policy or
  // keep_last 0; NotFound for an unknown table.
  absl::StatusOr<ExpireOutcome> Expire(const TableName& name, const ExpirePolicy& policy);

  // Steps 2..6 of the append path for a batch whose FILE cells are
  // DataLocations of this stage (already uploaded or checked), prepared
  // against `table` as read before the uploads. With AppendBase::kRead,
  // Aborted (VersionConflict) when another commit won since (found before
  // the checkpoint is written). With kCurrent the batch goes on the
  // version current once the commit turn is held (a plain INSERT: rows
  // added, nothing read, so a commit in between is no conflict).
  // Aborted, naming the busy timeout, when the turn was not free in time.
  // InvalidArgument for a FILE cell outside the stage, unless `containment`
  // says every cell was checked already.
  absl::StatusOr<AppendOutcome> AppendBatch(
      const registry::TableRecord& table, const ColumnBatch& batch,
      AppendBase append_base = AppendBase::kRead,
      FileCellContainment containment = FileCellContainment::kCheck);

  // The rows of `version` (the current one when nullopt), past the
  // fragments `prefilter` rejects. NotFound for a version the table never
  // had or one an expiry retired; InvalidArgument for a prefilter column the schema does not have.
  absl::StatusOr<std::unique_ptr<TableScan>> Scan(const TableName& name,
                                                  std::optional<uint64_t> version,
                                                  std::optional<ScanPrefilter> prefilter = {});

  // Deletes the rows `selector` picks from the current version: a new
  // version whose manifest gives each touched fragment a new deletion
  // vector (its earlier deleted rows and the new ones; a fragment whose
  // rows are all deleted leaves the list), with a removal reference delta
  // listing the locations no row of the new version references any more.
  // Older versions keep their manifests, so AS OF VERSION still sees the
  // rows. Under the root's shared references lock, the commit turn and
  // the commit lock, in order (kTableDeleteFailpoints):
  //   1. the rows are chosen on the current version (nothing matched: OK,
  //      no version committed, deleted_rows 0);
  //   2. the new deletion vectors,
  //   3. the reference delta and the manifest of base+1 are appended to
  //      the table log as records, in one write made durable by one sync
  //      (WriteVersionRecordsLocked; named by nothing yet; the failpoints
  //      of 2 and 3 fire after it, in order);
  //   4. the registry's compare-and-set commits base+1 (synced).
  // A DELETE carries no data of the caller's (its rows are chosen from the
  // committed version under the commit turn), so it needs no checkpoint: a
  // failure or crash before 4 leaves the version unchanged and at most
  // log records nothing names (never read; a later append may write over
  // torn ones), and running the DELETE again converges — rows already deleted
  // stay deleted and are not counted twice. A failure whose outcome the
  // registry cannot tell (a synced write that failed) is returned as it
  // is; the table's version then says whether it committed.
  absl::StatusOr<DeleteOutcome> Delete(const TableName& name, const RowSelector& selector);

  // Replaces the rows `selector` picks with `rows` in one new version (a
  // replace-where, the seed's conditional overwrite): readers see the
  // deletions and the new rows together or neither. The base is the
  // version `table` names, as the caller read it before its uploads: a
  // commit of any writer since (an append too, of this process or
  // another) is Aborted (registry::VersionConflict), found under the
  // commit turn before anything is written, so a row added in between is
  // never silently kept or lost. `rows` is of the table's schema, its FILE
  // cells DataLocations of this stage (uploaded or checked). Then a
  // DELETE's steps, with the rows' fragment beside the deletion vectors
  // (kTableReplaceFailpoints): one manifest that gives each touched
  // fragment its new vector and adds the new fragment, and one reference
  // delta listing the new rows' locations (added) and the locations no row
  // of the new version references any more (removed). Like a DELETE it
  // needs no checkpoint: a failure or crash before the commit leaves the
  // version unchanged and files nothing names (removed on a failure; the
  // collector's after a crash); the caller runs it again on the new base.
  // A failure whose outcome the registry cannot tell is returned as it is.
  absl::StatusOr<ReplaceOutcome> ReplaceWhere(const registry::TableRecord& table,
                                              const RowSelector& selector,
                                              const ColumnBatch& rows);

  // Merges the current version's live rows into one new fragment of a new
  // version (same rows but the deleted ones, same order), with an empty
  // reference delta: the lineage edge of a version that adds no reference
  // (a DELETE's delta already removed what its rows released). A table
  // with at most one fragment and no deleted rows is left as it is
  // (nullopt).
  absl::StatusOr<std::optional<AppendOutcome>> Compact(const TableName& name);

  // Rewrites the mostly-dead rolled segments of the table's log
  // (segment_rewrite.h: live bytes under kMostlyDeadSegmentLivePercent of
  // the file): a new version whose manifest (a full list) lists the same
  // fragments in the same order, those whose fragment or deletion vector
  // is a record of such a segment copied verbatim into the active segment
  // (rows, deleted rows and statistics unchanged), with an empty reference
  // delta. It reads and writes those records and a full manifest, never
  // the table's rows.
  // Once the versions before it expire, no retained version names a record
  // in those segments and the collector takes them. Under the root's
  // shared references lock, in order (kSegmentCompactionFailpoints):
  //   1. the segments' live bytes are counted over every retained version
  //      (before the commit turn: appends go on meanwhile); then, under
  //      the commit turn and the commit lock, the current version's
  //      records in the mostly-dead ones are chosen;
  //   2. the copies, the reference delta and the manifest of base+1 are
  //      appended to the table log in one write made durable by one sync
  //      (CommitVersionLocked, named by nothing yet);
  //   3. the registry's compare-and-set commits base+1 (synced).
  // A failure or crash before 3 leaves the version unchanged and records
  // nothing names; running it again converges. nullopt (nothing written)
  // when no rolled segment is mostly dead or the current version names no
  // record in one.
  absl::StatusOr<std::optional<SegmentCompactionOutcome>> CompactSegments(const TableName& name);
  // The rolled segments of the table's log (every one but the active
  // one), ascending, each with its file's size and its live bytes over
  // every retained version (segment_rewrite.h): what CompactSegments
  // judges.
  absl::StatusOr<std::vector<SegmentUse>> DescribeSegments(const TableName& name);

  // Every reference of the table's current lineage, chunk by chunk,
  // verified edge by edge against the registry (fails closed): the
  // additions, the union of what its retained versions held.
  absl::Status EnumerateReferences(const TableName& name, ReferenceVisitor visit);
  // The references of the current version: its lineage replayed
  // (ReplayLineage), canonical; fails closed as the walk does.
  absl::StatusOr<std::vector<DataLocation>> CurrentReferences(const TableName& name);

  // Every pending append checkpoint, oldest first, each read and judged as
  // Recover would (nothing is changed). Listed kMaxListedAppendCheckpoints
  // at a time. InvalidArgument when the retention horizon's environment
  // variable is invalid.
  absl::StatusOr<std::vector<PendingAppend>> PendingAppends();
  // Replays or rejects every pending checkpoint, oldest first: it lists
  // kMaxListedAppendCheckpoints at a time, each listing after the last
  // checkpoint the one before held, so the checkpoints it keeps (stuck or
  // failed) never hide newer ones. A damaged checkpoint is dated by its
  // UUIDv7 name and expires like the others. InvalidArgument when the
  // retention horizon's environment variable is invalid.
  absl::StatusOr<std::vector<RecoveredAppend>> Recover();
  // Moves the pending checkpoint of `operation_id` aside, kept
  // (AppendCheckpointStore::Discard), on an operator's word: its append will
  // not be replayed. Returns where it now is. NotFound when there is no
  // such checkpoint; InvalidArgument for an id that is not an operation id.
  absl::StatusOr<std::string> DiscardPendingAppend(const std::string& operation_id);

 private:
  TableStore(io::FileSystem& fs, std::string root_dir, registry::Registry& registry,
             ManagedStage& stage, std::string stage_identity, TableStoreOptions options,
             std::optional<AppendCheckpointStore> checkpoints);

  // One new version: a fragment to write and what goes with it.
  struct NewVersion {
    std::string_view fragment_bytes;
    std::string fragment_sha256;
    uint64_t rows = 0;
    std::optional<FragmentStatistics> statistics;  // of the fragment's rows
    bool replace_fragments = false;  // compaction: the fragment is all rows
    EncodedReferenceDelta delta;  // of base -> base+1
    // `delta` adds exactly the FILE cells of the fragment and removes
    // nothing (an append): in the table log it is a derived record
    // (derived_reference_delta_format.h) naming the fragment's, not its
    // bytes again, and of format 4 has no bytes here (AppendDelta).
    bool delta_from_fragment = false;
    std::string operation_id;
    std::string batch_sha256;  // "" for maintenance
    bool record_operation = false;
    // Published alongside the files (an append's checkpoint), if any.
    const AppendCheckpoint* checkpoint = nullptr;
    // A segment compaction's whole list and the records it copies (no
    // fragment_bytes): its manifest a full list.
    const SegmentRewrite* rewrite = nullptr;
    // Fires once the version's records are durable.
    std::string_view written_failpoint = "table_append.reference_delta_written";

    // An append of `batch`, encoded as `fragment_bytes` (whose SHA-256 is
    // `batch_sha256`), as `operation_id`; its delta is the caller's.
    static NewVersion Append(const std::string& operation_id, const ColumnBatch& batch,
                             std::string_view fragment_bytes, const std::string& batch_sha256,
                             const AppendCheckpoint* checkpoint);
  };

  // Whether an append's fragment of `fragment_bytes` bytes is a table log
  // record, and its reference delta one derived from it.
  bool DerivesAppendDelta(size_t fragment_bytes) const {
    return options_.versions_in_table_log && fragment_bytes > 0 &&
           fragment_bytes <= kMaxTableLogPayloadBytes;
  }
  // Whether an append's delta, when derived, is known by its fragment's
  // digest alone (format 4) and never encoded whole.
  bool DeltaDigestIsFragments() const {
    return options_.versions_in_table_log &&
           RegistryDigestIsFragments(options_.derived_delta_format);
  }
  // The reference delta of an append of `batch` on `base` (base -> base+1),
  // encoded as `fragment` (whose SHA-256 is `fragment_sha256`): when
  // derived as format 4, no bytes and the fragment's digest; else encoded
  // whole (EncodeBatchReferenceDelta).
  absl::StatusOr<EncodedReferenceDelta> AppendDelta(const registry::TableRecord& table,
                                                    uint64_t base, const ColumnBatch& batch,
                                                    std::string_view fragment,
                                                    const std::string& fragment_sha256) const;
  // Steps 2..5 for `operation_id`, on `base` (the table's current version
  // for a replay, which publishes no checkpoint); `delta` is the batch's
  // reference delta of base -> base+1 (AppendDelta). An
  // append's failure is settled as the header says (withdrawn, or a
  // PendingOperationError).
  absl::StatusOr<AppendOutcome> CommitAppendLocked(const registry::TableRecord& table,
                                                   uint64_t base, const std::string& operation_id,
                                                   const ColumnBatch& batch,
                                                   std::string_view fragment_bytes,
                                                   const std::string& batch_sha256,
                                                   EncodedReferenceDelta delta,
                                                   const AppendCheckpoint* checkpoint)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // Under commit_mu_: checks that the table is still at `base`, then writes
  // the checkpoint (if any), the fragment, the reference delta and the
  // manifest of base+1 at once (the caller's thread and three of pool_:
  // none refers to another before the compare-and-set), then commits base+1 — whose fragments are
  // base's plus the new one, or only the new one when replacing.
  absl::StatusOr<registry::TableRecord> CommitVersionLocked(const registry::TableRecord& table,
                                                            uint64_t base,
                                                            const NewVersion& next)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // What a DELETE and a replace-where share: on `table` as the registry
  // names it under the commit turn and lock (its current version the
  // base), the rows `selector` picks deleted and `added` (when not null)
  // appended in one new version, each step's failpoint from `steps` (in
  // kTableReplaceFailpoints' order; an empty name has none). Nothing to
  // delete and nothing to add commits nothing.
  absl::StatusOr<ReplaceOutcome> ChangeRowsLocked(const registry::TableRecord& table,
                                                  const RowSelector& selector,
                                                  const ColumnBatch* added,
                                                  const std::array<std::string_view, 5>& steps)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // What a new version writes to the table log besides its reference
  // delta and manifest.
  struct VersionRecords {
    // Entries the manifest adds, in order; vector_bytes[i] (parallel) is
    // the new deletion vector of added[i], "" when it has none new.
    std::vector<FragmentRef> added;
    std::vector<std::string> vector_bytes;
    // Parallel to `added` when not empty: a fragment's bytes to copy into
    // a record of its own (a segment compaction), "" when it has none; its
    // path is set to the record's.
    std::vector<std::string> fragment_copies;
    // `added` is the new version's whole list, in order (a segment
    // compaction: NextFullManifest), not changes to its parent's.
    bool whole_list = false;
    // The new rows' fragment ("" for none): added after `added`.
    std::string_view fragment_bytes;
    FragmentRef fragment;  // its entry; the path is set when written
    // NewVersion::delta_from_fragment.
    bool delta_from_fragment = false;
    std::vector<std::string> removed;  // paths of the parent's entries
    // The base's manifest path: its end is the committed watermark this
    // commit moves past (CommittedLogWatermark, logged_checkpoints.h).
    std::string base_manifest_path;
    // An append's checkpoint to log (null for none): a record naming the
    // fragment record written just before it (checkpoint format version
    // 2), or (the fragment not a record, or not the checkpoint's batch) one
    // holding its batch (version 1), in the same place
    // (append_record_format.h).
    const AppendCheckpoint* checkpoint = nullptr;
    // The operation this commit settles: its checkpoint is not carried.
    std::string settles_operation;
    // Set once records went to the segment: a failure after may leave
    // the checkpoint durable, and it is withdrawn.
    bool checkpoint_written = false;
    // Written without their sync (a queued commit, commit_queue.h); the
    // path of their segment is set once they are.
    bool unsynced = false;
    std::string segment_path;

    // True when added[i]'s fragment is copied into a record of its own.
    bool CopiesFragment(size_t i) const {
      return !fragment_copies.empty() && !fragment_copies[i].empty();
    }
    // The new version's manifest (at `path`, "" for a record), `resolved`
    // becoming that version: `added` the whole list (NextFullManifest) or
    // changes to the parent's (NextManifest). Moves `added` out.
    absl::StatusOr<std::string> NextManifestOf(ResolvedManifest& resolved, const Manifest& header,
                                               uint32_t checkpoint_interval,
                                               const std::string& path);
  };
  // How an append's checkpoint (VersionRecords::checkpoint) goes to the
  // table log: a record naming the fragment record written just before it
  // when the fragment is a record and is the checkpoint's batch (the same
  // bytes: CommitAppendLocked), else one holding its batch.
  struct CheckpointRecordForm {
    bool names_fragment = false;
    // The record's payload: the batch-holding form (encoded first, so that
    // nothing is written if it would not decode); the naming form once
    // the fragment's address is known.
    std::string payload;
    uint64_t record_bytes = 0;  // 0 for no checkpoint
  };
  static absl::StatusOr<CheckpointRecordForm> CheckpointRecordFormOf(const VersionRecords& records,
                                                                     bool fragment_is_record);
  // The unsettled checkpoints a new version's manifest would pass over (in
  // the steady state none, and nothing is read but one record header), as
  // copies to write after it, self-contained (logged_checkpoints.h): a
  // checkpoint naming its fragment, resolved, is copied with its batch
  // inline. One whose record is damaged is copied as it is (still
  // reported, as before); one that could not be read for another reason (an
  // I/O error) fails the commit: its copy could not be made whole.
  struct CarriedCheckpoints {
    std::vector<LoggedCheckpoint> unsettled;
    std::vector<std::string> whole_payloads;  // reserved: `records` views them
    std::vector<TableLogRecord> records;      // in order, viewing the two above
  };
  // Fills *carried, which must be empty and stay where it is while its
  // records are used.
  absl::Status CarryCheckpointsLocked(const std::string& table_dir, const VersionRecords& records,
                                      CarriedCheckpoints* carried)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // Writes a new version's records to the table log in one write and makes
  // them durable with one sync (table_log.h), in this order: the fragment
  // copies and deletion vectors of `records` (each entry's path and vector
  // path set to its record's address), the fragment (its path set likewise; past
  // kMaxTableLogPayloadBytes a file of its own instead, written first and
  // named in *written_file), an append's checkpoint (naming the fragment),
  // the reference delta `delta` (for an append, records.delta_from_fragment,
  // a record naming the fragment's), and the manifest
  // NextManifest makes of `resolved` and `header` (whose delta path is set
  // here) with the records' changes; *manifest_path is its address and
  // `resolved` becomes the new version. Nothing is named by anything
  // durable: on a failure the records are never read.
  absl::Status WriteVersionRecordsLocked(const std::string& table_dir, VersionRecords& records,
                                         const EncodedReferenceDelta& delta, Manifest header,
                                         ResolvedManifest& resolved, std::string* manifest_path,
                                         std::string* written_file)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // The same as files, as lakes before the table log held versions wrote
  // them (TableStoreOptions::versions_in_table_log off): the deletion
  // vectors as table log records (one sync), then the fragment, the delta
  // and the manifest as files at once (three file syncs, renames and
  // directory syncs).
  absl::Status WriteVersionFilesLocked(const std::string& table_dir, VersionRecords& records,
                                         const EncodedReferenceDelta& delta, Manifest header,
                                         ResolvedManifest& resolved, std::string* manifest_path,
                                         std::string* written_file)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // Removes from `released` (locations the deleted rows held) every one a
  // live row of `survivors` (the fragments left, each with its deletion
  // vector after the change, or null when untouched) still holds. A
  // survivor is read only when `live_uris` (its live URIs' hashes, by
  // index in the manifest: survivor_fragments[i] is survivors[i]'s) is
  // missing for it or holds a released URI's hash, so the work follows
  // what was released, not the table. DataLoss when a fragment it reads
  // is damaged.
  absl::Status DropStillReferenced(
      const std::vector<std::pair<FragmentRef, const std::vector<uint32_t>*>>& survivors,
      const std::vector<size_t>& survivor_fragments,
      const absl::flat_hash_map<size_t, std::vector<uint64_t>>& live_uris,
      const std::string& table_dir, const Schema& schema, std::vector<DataLocation>* released);
  // The error of an append that failed with `cause` certainly before its
  // commit call: its published checkpoint withdrawn durably, else (the
  // withdrawal failed) a PendingOperationError. `cause` itself when the
  // version published no checkpoint. Once the append will certainly never
  // commit, `written_fragment` (its fragment file, when one was written: a
  // fragment too large for a table log record; else empty) is
  // removed: nothing can reference it (a replay writes a fragment of its
  // own), and a failed append leaves no file of its own behind.
  // With the checkpoint a table log record (`logged`: CheckpointsInLog),
  // the withdrawal is a withdrawal record appended durably to
  // `table_dir`'s log — only when the checkpoint may have been written
  // (`checkpoint_written`).
  struct LoggedCheckpointWrite {
    bool logged = false;
    bool checkpoint_written = false;
    std::string table_dir;
    uint64_t table_id = 0;
    uint64_t version = 0;
  };
  // Version base+1 written, and what its registry commit needs.
  struct WrittenVersion {
    registry::VersionRecord record;
    std::optional<registry::AppendOperationRecord> operation;
    registry::CommitDurability durability = registry::CommitDurability::kSynced;
    ResolvedManifest manifest;     // the new version's, resolved
    std::string written_fragment;  // a fragment file of its own, when one was written
    LoggedCheckpointWrite logged;
    std::string segment_path;  // of its records, when written unsynced
  };
  // Under commit_mu_: writes version base+1 on `base` (whose manifest is
  // `base_manifest_path`) — its records synced, or `unsynced` for the
  // commit queue — and fires the steps' failpoints once they are durable
  // (synced only). A failure comes back settled, as CommitVersionLocked's.
  absl::StatusOr<WrittenVersion> WriteVersionLocked(const registry::TableRecord& table,
                                                    uint64_t base,
                                                    const std::string& base_manifest_path,
                                                    const NewVersion& next, bool unsynced)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // The failpoints of an append's durable steps, in order: the checkpoint's
  // (`checkpoint_durable`), else the fragment's and next.written_failpoint.
  static absl::Status WrittenFailpoints(const NewVersion& next, bool checkpoint_durable);
  // Group commit (commit_queue.h). Whether an append goes through the
  // queue: one onto the current version with its checkpoint in the log.
  bool QueuesAppend(const registry::TableRecord& table, AppendBase append_base,
                    bool has_checkpoint) const;
  // The append of AppendBatch through the queue: written under the turn,
  // synced by SyncQueued, committed by whoever settles it; a conflict (its
  // base failed, or another writer committed first) is tried again, at
  // most kMaxQueuedAttempts times within the busy timeout.
  static constexpr int kMaxQueuedAttempts = 100;
  absl::StatusOr<AppendOutcome> AppendQueued(const registry::TableRecord& table,
                                             const std::string& operation_id,
                                             const ColumnBatch& batch, std::string_view fragment,
                                             const std::string& batch_sha256,
                                             AppendCheckpoint& checkpoint);
  // The commit turn with the queue settled: every queued append synced and
  // committed (or failed) first, so that what commits under it sees the
  // registry as if appends went one at a time. Every commit but a queued
  // append's takes the turn this way.
  absl::StatusOr<registry::CommitTurn> AwaitQuiescentTurn() ABSL_LOCKS_EXCLUDED(commit_mu_);
  // The tables a settlement committed to, as they are after it.
  using QueuedTables = absl::flat_hash_map<uint64_t, registry::TableRecord>;
  // Under the turn: commits every synced entry, oldest first (`all`: syncs
  // every entry first, under a shared references hold).
  absl::Status SettleQueueLocked(bool all, QueuedTables* committed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // CommitQueue::SyncQueued, firing the durable steps' failpoints.
  absl::Status SyncQueue(absl::Time deadline);
  // Under the turn: one synced entry's outcome: its commit, or (its sync
  // failed) its checkpoint withdrawn.
  QueuedOutcome SettleQueuedLocked(const QueuedCommit& queued, QueuedTables& tables)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // One entry's commit: refused unless the table is at the very version it
  // was written on and its manifest record reads back.
  absl::Status CommitQueuedLocked(const QueuedCommit& queued, QueuedTables& tables);
  absl::Status AbandonLocked(const NewVersion& next, const absl::Status& cause,
                             const std::string& written_fragment,
                             const LoggedCheckpointWrite& logged)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // Whether an append's checkpoint is a table log record of its version
  // (append_record_format.h) rather than a file of its own: versions in
  // the table log, and checkpoints on.
  bool CheckpointsInLog() const {
    return options_.versions_in_table_log && checkpoints_.has_value();
  }
  // The checkpoint records of `table_dir`'s log past `from` whose appends
  // are unsettled: not withdrawn, no operation record in the registry
  // (a damaged one is kept), and not `except`'s.
  absl::StatusOr<std::vector<LoggedCheckpoint>> UnsettledLoggedCheckpoints(
      const std::string& table_dir, TableLogPosition from, const std::string& except);
  // After a failure that may have committed (the registry's synced write
  // failing, a failure after the commit): appends a copy of `checkpoint`'s
  // record to `table_dir`'s log durably, past whatever watermark the
  // registry now holds, so PendingAppends lists the operation and Recover
  // settles it (kAlreadyCommitted) as for a checkpoint file kept after such
  // a failure. Best effort: a failure is logged (recovery converges
  // without it; only the report is missing).
  void KeepLoggedCheckpointLocked(const std::string& table_dir,
                                  const AppendCheckpoint& checkpoint)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // The same, taking the commit turn for it (nothing kept without it).
  void KeepLoggedCheckpoint(const std::string& table_dir, const AppendCheckpoint& checkpoint);
  // Appends a withdrawal record of `operation_id`'s checkpoint (of
  // `version` of table `table_id`) to `table_dir`'s log durably.
  absl::Status WithdrawLoggedCheckpointLocked(const std::string& table_dir, uint64_t table_id,
                                              uint64_t version, const std::string& operation_id,
                                              WithdrawalReason reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // The manifest of `version` (its file `manifest_path`), resolved through
  // its chain (manifest_chain.h).
  absl::StatusOr<Manifest> ReadManifest(const std::string& table_dir, uint64_t version,
                                        const std::string& manifest_path);
  // The manifest of `table`'s current version (as the registry read under
  // the commit lock names it), resolved: the cached one, else read and
  // checked.
  absl::StatusOr<ResolvedManifest> CurrentManifestLocked(const registry::TableRecord& table)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // A checkpoint judged (PendingAppend's states) and, when replayable,
  // what the replay needs.
  struct Assessment {
    PendingAppend::State state = PendingAppend::State::kFailed;
    std::string table;
    uint64_t version = 0;
    std::string reason;
    std::optional<AppendCheckpoint> checkpoint;  // kReplayable
    registry::TableRecord table_record;          // kReplayable
    std::optional<ColumnBatch> batch;            // kReplayable: the checkpoint's, decoded
  };
  // Reads and judges the checkpoint of `operation_id` in `store`; nullopt
  // when it is gone.
  std::optional<Assessment> Assess(const AppendCheckpointStore& store,
                                   const std::string& operation_id, absl::Duration retention);
  // Judges `checkpoint` (of `operation_id`, as read: a file's or a table
  // log record's).
  Assessment AssessCheckpoint(const std::string& operation_id,
                              absl::StatusOr<AppendCheckpoint> checkpoint,
                              absl::Duration retention);
  // Settles an assessed checkpoint as Recover does: replays it when
  // replayable; `settled` is called with the result when it is settled
  // (committed, found committed, or expired).
  RecoveredAppend SettleLocked(const std::string& operation_id, Assessment a,
                               const std::function<void(RecoveredAppend::Result)>& settled)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // The unsettled checkpoint records of every table's log
  // (UnsettledLoggedCheckpoints past each table's committed watermark),
  // each passed to `visit` with its table; a table whose log cannot be
  // read is reported as a failed entry (`failed`).
  absl::Status ForEachLoggedCheckpoint(
      const std::function<void(const registry::TableRecord&, const std::string& table_dir,
                               LoggedCheckpoint&)>& visit,
      const std::function<void(const registry::TableRecord&, const absl::Status&)>& failed);
  // Recover's part for checkpoints in the table log.
  void RecoverLogged(absl::Duration retention, std::vector<RecoveredAppend>* results);
  // The pending checkpoints of `store`, kMaxListedAppendCheckpoints at a
  // time, each listing after the last one seen, passed to `visit` in order.
  absl::Status ForEachPendingCheckpoint(
      const AppendCheckpointStore& store,
      const std::function<void(const PendingCheckpointEntry&)>& visit);
  // Settles one checkpoint as Recover does; nullopt when it is gone.
  std::optional<RecoveredAppend> RecoverOneLocked(const std::string& operation_id,
                                                  absl::Duration retention)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  void RemoveCheckpoint(const std::string& operation_id);
  // The rolled ones of `segments` (the table's, ascending; the last is
  // the active one) and their live bytes over every retained version of
  // `table` up to its current version.
  absl::StatusOr<std::vector<SegmentUse>> MeasureRolledSegments(
      const registry::TableRecord& table, const std::vector<uint64_t>& segments);
  // Moves every dropped table's directory still at its old name (and not
  // taken by a registered table) to DroppedTableDirectory, durably.
  absl::Status FinishDropsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_);
  // At Open: when the registry holds deferred marks of another boot (the
  // machine restarted since those commits, which may be lost), a writer
  // replays the pending appends (Recover) and clears the marks;
  // FailedPrecondition for a follower, which cannot.
  absl::Status RedoDeferredCommits();

  io::FileSystem& fs_;
  const std::string root_dir_;
  registry::Registry& registry_;
  ManagedStage& stage_;
  const std::string stage_identity_;
  const TableStoreOptions options_;
  std::optional<AppendCheckpointStore> checkpoints_;
  // The root's commit queue (null: appends commit one at a time).
  std::unique_ptr<CommitQueue> queue_;
  absl::Mutex commit_mu_;
  // The manifest of each table's newest version this store committed, by
  // table id, resolved. The next commit builds on it (and links to it)
  // without reading its chain again; on a newer base another writer
  // committed, it advances by the links since (AdvanceByAppends), else
  // the base is read afresh. A version is known by its number and its
  // manifest's path: a committed version's file is never rewritten, and
  // a table log address never written twice (an entry an append left
  // here before its queued commit failed names a version no base names).
  absl::flat_hash_map<uint64_t, ResolvedManifest> last_committed_ ABSL_GUARDED_BY(commit_mu_);
  // Appends the records of the table log (a DELETE's deletion vectors).
  TableLogWriter log_writer_ ABSL_GUARDED_BY(commit_mu_){fs_, options_.table_log_segment_bytes};
  // An append's parallel work (its reference delta, three of its four file
  // writes) and every scan's reads ahead. kPoolThreads covers one append's
  // file writes and one scan's reads ahead at once. Declared last:
  // destroyed first, after every task given to it has finished.
  static constexpr size_t kPoolThreads = 4;
  TaskPool pool_{kPoolThreads};
};

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_TABLE_STORE_H_
