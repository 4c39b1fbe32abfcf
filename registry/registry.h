// The registry of a lake root: what tables exist and which version of each
// is current, kept in RocksDB (<root>/registry/).
//
// It holds the root's stage descriptor, namespaces, table registrations
// (id, name, schema, current version, manifest pointer), one record per
// committed version (with the digest of its reference delta), and one
// record per committed append operation, keyed by operation id, so a
// replayed append converges instead of committing twice. Keys are described
// in registry_keys.h, values in registry_records.h.
//
// Writers and followers. Any number of Registries, in any processes, may
// open a root's registry for writing. One of them at a time owns its
// RocksDB: it holds an exclusive flock on `lock_path` (writer_lock.h) and
// serves the others' writes on <dir of lock_path>/writer.sock
// (writer_channel.h). The others read through a RocksDB secondary instance
// that catches up before every read, and forward each write to the owner
// (writer_channel_format.h) under the root's commit turn (commit_lock.h),
// so a write is always run by the one process that may write RocksDB.
// Every write runs under the commit turn too (the owner's own take it; the
// ones it serves run under their sender's), so a view caught up once under
// a turn stays current until the turn ends or a write is forwarded: a
// forwarding writer's reads within one turn catch up once.
// Ownership changes hands only under the commit turn: the first writer to
// open takes it; an owner that closes hands it over; when an owner died,
// the next writer to forward finds nothing listening and takes it over
// (its lock died with it). A forwarded commit whose connection is lost
// after it was sent may have been committed: CommitOutcomeUnknown, as for
// a failed synced write. Any number of processes may also open the
// registry read-only as followers (a RocksDB secondary instance): a
// follower's view is as of its last catch-up with the owner, and before
// each read it catches up if that view is older than
// `follower_max_staleness`. A follower refuses writes with
// FailedPrecondition.
//
// Deferred commits. A commit is synced before it returns unless its caller
// asks for CommitDurability::kDeferred, which it may only do when it can
// redo the commit from durable records of its own (the table log's append
// checkpoints). Then:
//   - the write is not synced: it survives the process's crash (the page
//     cache holds it) and is seen by every reader at once, but a power loss
//     may lose it, and with it every later write not synced yet — never an
//     earlier synced one (RocksDB replays its log up to the first gap);
//   - the owner's first deferred commit to a table is synced, and records
//     in the same write the table's deferred mark: the id of the boot the
//     machine is running (DeferredMarkRecord) — unless the table holds a
//     mark of this boot already, which the owner takes over;
//   - an owner that closes removes its marks: after a deferred commit
//     left unsynced, in one synced write that makes it durable; otherwise
//     unsynced (a power loss that keeps a mark has the next boot redo
//     nothing). So a clean close and reboot leave no mark for readers to
//     wait on;
//   - a forwarded deferred commit is deferred by the owner, as its own
//     (channel kind 10; an owner older than that takes it synced).
// So a mark naming another boot than this one (DeferredMarksFromOtherBoots)
// says: the table's last commits before the machine restarted may be lost,
// and its writer redoes them (TableStore's recovery) before it reads or
// commits the table, then clears the mark (ClearDeferredMark).
//
// Invariants (kept by the writer, which serialises every write):
//   - table ids are allocated from a counter starting at 1, never reused;
//   - a table's current_version only grows, by CommitVersion, and the
//     table record, the version record and the operation record of one
//     commit are written in one RocksDB write batch: all or nothing;
//   - an operation id has at most one record, written with the version it
//     produced;
//   - a dropped table's registration, id index and dropped record change in
//     one synced write batch; its version records are kept;
//   - a tag names a committed version that is not retired, and a retired
//     version is never the table's current version nor a tagged one when
//     retired; tags and retirements are each one synced write batch, and a
//     retired version never comes back.
//
// Thread safety: every method may be called from any thread at once.
// Destroying the owner hands ownership over (under the commit turn, waiting
// at most the busy timeout); a crashed owner's lock dies with its process.
#ifndef LAKE_REGISTRY_REGISTRY_H_
#define LAKE_REGISTRY_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "io/file_system.h"
#include "schema/table_schema.h"
#include "registry/commit_errors.h"
#include "registry/commit_lock.h"
#include "registry/registry_records.h"
#include "registry/writer_channel_format.h"

namespace rocksdb {
class DB;
class Env;
class WriteBatch;
}

namespace lake::registry {

class WriterLock;
class WriterChannelServer;

// Where a root keeps its registry (<root>/registry) and the writer lock
// (<root>/writer.lock), in whose directory the commit lock and the writer
// socket are.
inline constexpr std::string_view kRootRegistryDir = "registry";
inline constexpr std::string_view kRootWriterLock = "writer.lock";

// The commit lock's file, in the directory of the writer lock.
inline constexpr std::string_view kCommitLockName = "commit.lock";

// The failpoint (base/failpoint.h) a commit passes once its synced write
// returned OK: an error injected there stands for a synced write that
// failed after reaching the write-ahead log, the one failure of a commit
// whose outcome is unknown.
inline constexpr std::string_view kCommitWrittenFailpoint = "registry.commit_written";

// How a commit reaches the disk (see "Deferred commits" above).
enum class CommitDurability {
  kSynced,    // synced before CommitVersion returns
  kDeferred,  // synced later; redone by its caller after a power loss
};

struct RegistryOptions {
  // Open as a follower (RocksDB secondary instance) instead of the writer.
  bool read_only = false;
  // A follower catches up with the writer before a read when its view is
  // older than this. The writer's view is always current.
  absl::Duration follower_max_staleness = absl::Seconds(1);
  // The time used for staleness and for created_unix_micros of new
  // namespaces and tables; absl::Now when empty (tests inject a fake).
  std::function<absl::Time()> clock;
  // How long a writer waits for the root's commit turn (commit_lock.h)
  // before giving up with Aborted.
  absl::Duration busy_timeout = kDefaultBusyTimeout;
  // The id of the boot the machine is running, for deferred marks; read
  // from /proc/sys/kernel/random/boot_id when empty (tests stand in others
  // for a restart). When it cannot be read, deferred commits are synced and
  // every mark counts as another boot's.
  std::string boot_id;
  // The environment the owner's RocksDB writes through; RocksDB's default
  // when null (tests stand in one that can lose power).
  rocksdb::Env* env = nullptr;
};

class Registry {
 public:
  // Opens the registry at `registry_dir`.
  // Writer: under the commit turn (Aborted when it is not free within the
  // busy timeout), takes the lock at `lock_path` and owns the registry
  // (creating the lock's directory and the registry directory as needed),
  // or, when another Registry holds the lock, opens a view and forwards.
  // Follower: NotFound when `registry_dir` holds no registry; it keeps its
  // private RocksDB files in a fresh directory under $TMPDIR (default /tmp),
  // removed when the Registry is destroyed; `lock_path` is not used.
  static absl::StatusOr<std::unique_ptr<Registry>> Open(const std::string& registry_dir,
                                                        const std::string& lock_path,
                                                        RegistryOptions options = {});

  // An owner hands over (above), closes RocksDB and releases the lock; a
  // view's private directory is removed.
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  bool read_only() const { return read_only_; }
  // Whether this Registry owns the root's RocksDB now (a writer that does
  // not forwards its writes to the one that does).
  bool IsOwner() const;

  // How old the view is: the time since the follower's last catch-up began
  // (zero for the owner).
  absl::Duration ViewAge() const;
  // Catches up with the owner now (a no-op for the owner).
  absl::Status CatchUp();

  // Waits, at most the busy timeout, for the root's commit turn
  // (commit_lock.h): one commit at a time across every writer of the root.
  // The lock file is `commit.lock` beside `lock_path`. Aborted when the
  // wait times out; FailedPrecondition for a follower.
  absl::StatusOr<CommitTurn> AwaitCommitTurn();
  absl::Duration busy_timeout() const;
  void set_busy_timeout(absl::Duration timeout);

  // The root's stage descriptor (JSON whose meaning the engine owns);
  // nullopt when none has been recorded.
  absl::StatusOr<std::optional<std::string>> GetStageDescriptor();
  // Records the descriptor once. The same text again is OK; another text
  // is FailedPrecondition naming both.
  absl::Status PutStageDescriptorIfAbsent(const std::string& descriptor_json);

  // InvalidArgument for a name that is no identifier; AlreadyExists.
  absl::Status CreateNamespace(const std::string& name);
  // Every namespace, sorted.
  absl::StatusOr<std::vector<std::string>> ListNamespaces();

  // Registers a table at version 0 (no manifest), creating its namespace if
  // missing, with the next table id. AlreadyExists when the name is taken;
  // InvalidArgument for a bad name or schema.
  absl::StatusOr<TableRecord> CreateTable(const table::TableName& name,
                                          const table::Schema& schema);
  // NotFound when absent.
  absl::StatusOr<TableRecord> GetTable(const table::TableName& name);
  absl::StatusOr<TableRecord> GetTableById(uint64_t table_id);
  // Every table, sorted by name (namespace, then table).
  absl::StatusOr<std::vector<TableRecord>> ListTables();

  // NotFound when absent (version 0 never has a record).
  absl::StatusOr<VersionRecord> GetVersion(uint64_t table_id, uint64_t version);
  // Every version record of the table, ascending; empty at version 0.
  absl::StatusOr<std::vector<VersionRecord>> ListVersions(uint64_t table_id);

  absl::StatusOr<std::optional<AppendOperationRecord>> GetAppendOperation(
      const std::string& operation_id);

  // The version compare-and-set. Atomically, when the table is at
  // `expected_current_version`: records `next` as the table's current
  // version (its manifest becomes the table's manifest) and the operation
  // record, if any. Checks, in order:
  //   - InvalidArgument: `next` invalid (ValidateVersionRecord), its
  //     parent_version is not `expected_current_version`, or `operation`
  //     does not name this table, next.version and next.operation_id;
  //   - NotFound: no table `table_id`;
  //   - AlreadyExists with a CommittedOperation payload (commit_errors.h):
  //     the operation id already has a record — checked before the version,
  //     so a replay after a commit that went through converges;
  //   - Aborted with a VersionConflict payload: the table is at another
  //     version (a lost race).
  // On any of those, and on a failed read, nothing changes. The synced
  // write itself may fail after reaching the write-ahead log (RocksDB can
  // neither undo nor deny it: the commit may be visible now or after a
  // reopen); that error carries the CommitOutcomeUnknown payload
  // (commit_errors.h), and only that one; so does a deferred write that
  // fails. Returns the new table record.
  absl::StatusOr<TableRecord> CommitVersion(
      uint64_t table_id, uint64_t expected_current_version, const VersionRecord& next,
      const std::optional<AppendOperationRecord>& operation,
      CommitDurability durability = CommitDurability::kSynced);

  // The boot deferred marks are made with; empty when it is unknown.
  const std::string& boot_id() const { return boot_id_; }
  // The deferred marks that name another boot than this one (every mark
  // when the boot is unknown), by table id.
  absl::StatusOr<std::vector<DeferredMarkRecord>> DeferredMarksFromOtherBoots();
  // Removes `mark` (one synced write) unless the table's mark has changed
  // since it was read (a deferred commit marked it again): OK either way.
  absl::Status ClearDeferredMark(const DeferredMarkRecord& mark);

  // Drops the table, atomically: its registration and id index go and a
  // dropped-table record (the registration as it was, the drop's commit
  // time) takes their place; its version records stay, so what it
  // referenced can still be read. Its name is free at once; its id is never
  // reused. NotFound when absent.
  absl::StatusOr<DroppedTableRecord> DropTable(const table::TableName& name);
  // Every dropped table, by id.
  absl::StatusOr<std::vector<DroppedTableRecord>> ListDroppedTables();
  // A dropped table's version records, ascending; NotFound when no dropped
  // table has that id.
  absl::StatusOr<std::vector<VersionRecord>> ListDroppedTableVersions(uint64_t table_id);

  // Tags. TagVersion pins `version` of the table under `tag` (an
  // identifier): InvalidArgument for a bad tag; NotFound for no such table,
  // a version it never committed, or a retired one; AlreadyExists when the
  // tag is taken (untag it first). One synced write.
  absl::StatusOr<TagRecord> TagVersion(uint64_t table_id, const std::string& tag,
                                       uint64_t version);
  // Removes the tag (one synced write). NotFound when absent.
  absl::Status UntagVersion(uint64_t table_id, const std::string& tag);
  // The table's tags, by name (also for a dropped table's id).
  absl::StatusOr<std::vector<TagRecord>> ListTags(uint64_t table_id);

  // Retires `versions` of the table at once (one synced write), each with
  // the commit time of this call, and records `base` (when given) as the
  // table's reference base in the same write. Checks, under the writer's
  // lock: the table exists (NotFound) and is at `expected_current_version`
  // (Aborted with a VersionConflict payload); every version is committed,
  // not the current one, not tagged, not retired yet; the base's version is
  // committed, not retired (nor being retired) and after the table's
  // present base (FailedPrecondition). Nothing changes on any failure. An
  // empty list is InvalidArgument.
  absl::StatusOr<std::vector<RetiredVersionRecord>> RetireVersions(
      uint64_t table_id, uint64_t expected_current_version,
      const std::vector<uint64_t>& versions,
      const std::optional<ReferenceBaseRecord>& base = std::nullopt);
  // The table's reference base, nullopt when its lineage replay starts at
  // version 0 (also for a dropped table's id).
  absl::StatusOr<std::optional<ReferenceBaseRecord>> GetReferenceBase(uint64_t table_id);
  // The table's retired versions, ascending (also for a dropped table's id).
  absl::StatusOr<std::vector<RetiredVersionRecord>> ListRetiredVersions(uint64_t table_id);
  // The retirement of one version, nullopt when it is not retired.
  absl::StatusOr<std::optional<RetiredVersionRecord>> GetRetiredVersion(uint64_t table_id,
                                                                        uint64_t version);

  // SHA-256 (64 lowercase hex) over every table registration in name order:
  // for each, its encoded record's length (u32 little-endian) and bytes.
  // Equal fingerprints mean no table was created, committed or dropped
  // between.
  absl::StatusOr<std::string> Fingerprint();

 private:
  // `view_time`: when the opening began.
  Registry(std::string registry_dir, std::string lock_path, RegistryOptions options,
           absl::Time view_time);

  // Opens the secondary instance reads go through until this Registry owns
  // the registry (a follower's, or a writer's that forwards).
  absl::Status OpenFollowerView(io::FileSystem& fs);
  // Under the commit turn, holding `lock`: opens RocksDB as its one writer
  // and serves the other writers' forwarded writes.
  absl::Status BecomeOwner(io::FileSystem& fs, std::unique_ptr<WriterLock> lock);
  // The DB reads go through: the owned one, else the view.
  rocksdb::DB* ReadDb() const;
  // Sends `write` to the owner under the commit turn (taking it unless this
  // thread holds it). nullopt when this Registry owns the registry instead
  // (it took it over from a dead owner, or another thread of it did): the
  // caller then runs the write itself.
  absl::StatusOr<std::optional<ForwardedReply>> Forward(const ForwardedWrite& write);
  // A write's forwarding, stated once: unless this Registry owns the
  // registry, Forward(write) and what `answer` makes of the owner's reply,
  // or the error that kept the reply away (a commit lost after it was sent:
  // CommitOutcomeUnknown). nullopt when this Registry runs the write itself
  // (it owns the registry, or has just taken it over).
  template <typename Answer>
  auto ForwardUnlessOwner(const ForwardedWrite& write, Answer answer)
      -> std::optional<std::invoke_result_t<Answer, const ForwardedReply&>>;
  // The owner's side: runs a forwarded write through the methods above.
  ForwardedReply RunForwarded(const ForwardedWrite& write);
  // The owner's turn for a write of its own: taken unless this thread holds
  // it or serves a forwarded write (whose sender holds it); nullopt then.
  absl::StatusOr<std::optional<CommitTurn>> OwnWriteTurn();

  absl::Time Now() const;
  absl::Status RefuseIfReadOnly(const char* operation) const;
  // A follower's catch-up when its view is older than the bound.
  absl::Status PrepareRead();
  // The value at `key`, nullopt when absent; no catch-up.
  absl::StatusOr<std::optional<std::string>> ReadValue(const std::string& key);
  absl::StatusOr<std::optional<TableRecord>> ReadTable(const table::TableName& name);
  absl::StatusOr<std::optional<TableRecord>> ReadTableById(uint64_t table_id);
  // The table `table_id` names; NotFound when there is none.
  absl::StatusOr<TableRecord> ReadExistingTable(uint64_t table_id);
  absl::StatusOr<std::optional<AppendOperationRecord>> ReadAppendOperation(
      const std::string& operation_id);
  // Every value whose key starts with `prefix`, in key order.
  // The version records under `table_id`, ascending, each checked.
  absl::StatusOr<std::vector<VersionRecord>> ScanVersions(uint64_t table_id);
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ScanPrefix(
      const std::string& prefix);
  absl::StatusOr<std::vector<TagRecord>> ScanTags(uint64_t table_id);
  absl::StatusOr<std::vector<RetiredVersionRecord>> ScanRetiredVersions(uint64_t table_id);
  absl::StatusOr<std::optional<RetiredVersionRecord>> ReadRetiredVersion(uint64_t table_id,
                                                                         uint64_t version);
  absl::StatusOr<std::optional<ReferenceBaseRecord>> ReadReferenceBase(uint64_t table_id);
  absl::Status WriteBatchSynced(rocksdb::WriteBatch& batch, const char* what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // Synced, or not (a deferred commit's write).
  absl::Status WriteBatch(rocksdb::WriteBatch& batch, bool sync, const char* what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // Whether a deferred commit to the table must write its mark (and so be
  // synced); takes over a mark of this boot already there.
  absl::StatusOr<bool> DeferredMarkNeeded(uint64_t table_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // The owner's close: syncs the log, then removes the marks it made.
  void SettleDeferredMarks();

  const std::string registry_dir_;
  const std::string lock_path_;
  const std::string socket_path_;
  const bool read_only_;
  const RegistryOptions options_;
  std::atomic<int64_t> busy_timeout_nanos_;
  std::unique_ptr<CommitLock> commit_lock_;  // writers only
  // A view's (follower, or writer before it owns): set at Open.
  std::string follower_dir_;
  std::unique_ptr<rocksdb::DB> view_db_;
  // The owner's, set once (at Open or on a takeover, under the commit
  // turn); owned_db_ is published to readers through primary_.
  std::unique_ptr<WriterLock> lock_;
  std::unique_ptr<rocksdb::DB> owned_db_;
  std::atomic<rocksdb::DB*> primary_{nullptr};
  // The turn (CommitLock::TurnOfThisThread) under which the view last
  // caught up, while nothing was forwarded since; 0 when none.
  std::atomic<uint64_t> view_current_in_turn_{0};
  std::unique_ptr<WriterChannelServer> server_;

  const std::string boot_id_;  // empty when unknown
  // Serialises the writer's read-check-write sequences.
  absl::Mutex write_mu_;
  // The tables this owner has marked, or found marked in this boot (its
  // deferred commits to them need no sync).
  absl::flat_hash_set<uint64_t> deferred_marked_ ABSL_GUARDED_BY(write_mu_);
  // Whether the last write left RocksDB's log unsynced.
  bool log_unsynced_ ABSL_GUARDED_BY(write_mu_) = false;
  // Serialises a follower's catch-ups.
  absl::Mutex catch_up_mu_;
  mutable absl::Mutex view_mu_;
  absl::Time view_time_ ABSL_GUARDED_BY(view_mu_);
};

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_REGISTRY_H_
