#include "registry/registry.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/failpoint.h"
#include "io/durable_paths.h"
#include "io/file_system.h"
#include "registry/registry_keys.h"
#include "registry/rocksdb_info_log.h"
#include "registry/rocksdb_status.h"
#include "registry/writer_channel.h"
#include "registry/writer_lock.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/write_batch.h"

namespace lake::registry {
namespace {

rocksdb::Options WriterOptions(const std::string& registry_dir, rocksdb::Env* env) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.paranoid_checks = true;
  if (env != nullptr) options.env = env;
  // What a previous owner wrote without a sync (deferred commits) becomes
  // durable when its log is replayed at open: flushed to synced table files.
  options.avoid_flush_during_recovery = false;
  // RocksDB's own info log: its file logger aborts after a failed write.
  options.info_log = NewFailSafeInfoLog(registry_dir);
  return options;
}

rocksdb::Options FollowerOptions(const std::string& follower_dir) {
  rocksdb::Options options;
  options.paranoid_checks = true;
  // RocksDB's own info log, in the follower's directory (see WriterOptions).
  options.info_log = NewFailSafeInfoLog(follower_dir);
  // A secondary instance keeps every table file open, so the writer's
  // compactions cannot pull a file from under it (RocksDB requires it).
  options.max_open_files = -1;
  // Catching up reads the writer's table files in the calling thread:
  // RocksDB's default (16) starts a thread per file at every catch-up
  // that sees a new version — measured in bench/writers, about 36 threads
  // per forwarded commit, which made 4 writer processes no faster than 1.
  options.max_file_opening_threads = 1;
  return options;
}

// The boot id to mark deferred commits with: `given`, else Linux's; empty
// when neither is a valid one.
std::string BootIdOr(const std::string& given) {
  std::string id = given;
  if (id.empty()) {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::getline(in, id);
  }
  return ValidateBootId(id).ok() ? id : "";
}

std::string TempRoot() {
  const char* env = std::getenv("TMPDIR");
  return env != nullptr && env[0] == '/' ? std::string(env) : std::string("/tmp");
}

// A fresh private directory for a follower's RocksDB files.
absl::StatusOr<std::string> CreateFollowerDir(io::FileSystem& fs) {
  std::random_device random;
  for (int attempt = 0; attempt < 8; ++attempt) {
    uint64_t nonce = (uint64_t{random()} << 32) | random();
    std::string dir = absl::StrFormat("%s/lake-registry-follower-%d-%016x", TempRoot(),
                                      ::getpid(), nonce);
    absl::Status created = fs.CreateDirectory(dir);
    if (created.ok()) return dir;
    if (!absl::IsAlreadyExists(created)) return created;
  }
  return absl::AlreadyExistsError("could not name a fresh follower directory");
}

// The follower directory holds RocksDB's info logs and options files only.
void RemoveFollowerDir(io::FileSystem& fs, const std::string& dir) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(dir);
  if (names.ok()) {
    for (const std::string& name : *names) fs.Remove(dir + "/" + name).IgnoreError();
  }
  fs.Remove(dir).IgnoreError();
}

absl::StatusOr<io::FileSystem*> FileSystem() { return io::DefaultFileSystem(); }

absl::Status ValidateTableName(const table::TableName& name) {
  if (absl::Status s = table::ValidateIdentifier(name.ns, "namespace"); !s.ok()) return s;
  return table::ValidateIdentifier(name.table, "table name");
}

absl::Status KeyMismatch(const std::string& key, absl::string_view what) {
  return absl::DataLossError(absl::StrCat("registry record at key \"", key,
                                          "\" is damaged: it holds ", what));
}

// Incremental SHA-256 (OpenSSL EVP), lowercase hex at the end.
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }
  ~Sha256() { EVP_MD_CTX_free(ctx_); }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view bytes) { EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()); }
  std::string HexDigest() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_, digest, &len);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < len; ++i) {
      hex.push_back(kHex[digest[i] >> 4]);
      hex.push_back(kHex[digest[i] & 15]);
    }
    return hex;
  }

 private:
  EVP_MD_CTX* ctx_;
};

std::string LengthPrefix(size_t n) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

// What the owner's reply to a forwarded write answers, as the write's
// method returns it: its status, and the record an OK reply carries.
absl::Status StatusOf(const ForwardedReply& reply) { return reply.status; }

absl::StatusOr<TableRecord> TableOf(const ForwardedReply& reply) {
  if (!reply.status.ok()) return reply.status;
  if (!reply.table.has_value()) {
    return absl::InternalError("the registry's owner answered a write without its table record");
  }
  return *reply.table;
}

absl::StatusOr<DroppedTableRecord> DroppedOf(const ForwardedReply& reply) {
  if (!reply.status.ok()) return reply.status;
  if (!reply.dropped.has_value()) {
    return absl::InternalError("the registry's owner answered a drop without its record");
  }
  return *reply.dropped;
}

absl::StatusOr<TagRecord> TagOf(const ForwardedReply& reply) {
  if (!reply.status.ok()) return reply.status;
  if (!reply.tag.has_value()) {
    return absl::InternalError("the registry's owner answered a tag without its record");
  }
  return *reply.tag;
}

absl::StatusOr<std::vector<RetiredVersionRecord>> RetiredOf(const ForwardedReply& reply) {
  if (!reply.status.ok()) return reply.status;
  return reply.retired;
}

absl::Status CheckOperationMatches(uint64_t table_id, const VersionRecord& next,
                                   const AppendOperationRecord& operation) {
  if (absl::Status s = ValidateAppendOperationRecord(operation); !s.ok()) return s;
  if (operation.table_id != table_id || operation.version != next.version ||
      operation.operation_id != next.operation_id) {
    return absl::InvalidArgumentError(absl::StrCat(
        "operation ", operation.operation_id, " records table ", operation.table_id,
        " version ", operation.version, ", but the commit is table ", table_id, " version ",
        next.version, " by operation \"", next.operation_id, "\""));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Registry>> Registry::Open(const std::string& registry_dir,
                                                         const std::string& lock_path,
                                                         RegistryOptions options) {
  absl::StatusOr<io::FileSystem*> fs = FileSystem();
  if (!fs.ok()) return fs.status();
  absl::Time opening = options.clock ? options.clock() : absl::Now();
  auto registry = std::unique_ptr<Registry>(
      new Registry(registry_dir, lock_path, std::move(options), opening));
  if (registry->read_only_) {
    if (absl::Status s = registry->OpenFollowerView(**fs); !s.ok()) return s;
    return registry;
  }
  if (absl::Status s = io::CreateDirectoriesDurably(**fs, io::ParentPath(lock_path)); !s.ok()) {
    return s;
  }
  registry->commit_lock_ = std::make_unique<CommitLock>(
      **fs, io::ParentPath(lock_path) + "/" + std::string(kCommitLockName));
  // Ownership changes hands only under the commit turn: holding it, a
  // writer finds either an owner that serves or none (the lock free).
  absl::StatusOr<CommitTurn> turn = registry->commit_lock_->Acquire(registry->busy_timeout());
  if (!turn.ok()) return turn.status();
  absl::StatusOr<std::unique_ptr<WriterLock>> lock =
      WriterLock::Acquire(**fs, lock_path, registry_dir);
  if (lock.ok()) {
    if (absl::Status s = registry->BecomeOwner(**fs, std::move(*lock)); !s.ok()) return s;
    return registry;
  }
  if (!absl::IsAborted(lock.status())) return lock.status();
  // Another process owns the registry: read a view of it, forward writes.
  if (absl::Status s = registry->OpenFollowerView(**fs); !s.ok()) return s;
  return registry;
}

Registry::Registry(std::string registry_dir, std::string lock_path, RegistryOptions options,
                   absl::Time view_time)
    : registry_dir_(std::move(registry_dir)),
      lock_path_(std::move(lock_path)),
      socket_path_(io::ParentPath(lock_path_) + "/" + std::string(kWriterSocketName)),
      read_only_(options.read_only),
      options_(std::move(options)),
      busy_timeout_nanos_(absl::ToInt64Nanoseconds(options_.busy_timeout)),
      boot_id_(BootIdOr(options_.boot_id)) {
  absl::MutexLock view_lock(&view_mu_);
  view_time_ = view_time;
}

absl::Status Registry::OpenFollowerView(io::FileSystem& fs) {
  absl::StatusOr<io::FileInfo> current = fs.Stat(registry_dir_ + "/CURRENT");
  if (absl::IsNotFound(current.status())) {
    return absl::NotFoundError(absl::StrCat("there is no registry at ", registry_dir_));
  }
  if (!current.ok()) return current.status();
  absl::StatusOr<std::string> follower_dir = CreateFollowerDir(fs);
  if (!follower_dir.ok()) return follower_dir.status();
  follower_dir_ = *follower_dir;
  rocksdb::DB* db = nullptr;
  rocksdb::Status opened = rocksdb::DB::OpenAsSecondary(FollowerOptions(follower_dir_),
                                                        registry_dir_, follower_dir_, &db);
  if (!opened.ok()) {
    return FromRocksDbStatus(opened, absl::StrCat("open registry ", registry_dir_, " read-only"));
  }
  view_db_.reset(db);
  return absl::OkStatus();
}

absl::Status Registry::BecomeOwner(io::FileSystem& fs, std::unique_ptr<WriterLock> lock) {
  if (absl::Status s = io::CreateDirectoriesDurably(fs, registry_dir_); !s.ok()) return s;
  rocksdb::DB* db = nullptr;
  rocksdb::Status opened =
      rocksdb::DB::Open(WriterOptions(registry_dir_, options_.env), registry_dir_, &db);
  if (!opened.ok()) return FromRocksDbStatus(opened, absl::StrCat("open registry ", registry_dir_));
  std::unique_ptr<rocksdb::DB> owned(db);
  absl::StatusOr<std::unique_ptr<WriterChannelServer>> server = WriterChannelServer::Start(
      socket_path_, [this](const ForwardedWrite& write) { return RunForwarded(write); });
  if (!server.ok()) {
    owned->Close().PermitUncheckedError();
    return server.status();
  }
  lock_ = std::move(lock);
  owned_db_ = std::move(owned);
  primary_.store(owned_db_.get(), std::memory_order_release);
  server_ = std::move(*server);
  return absl::OkStatus();
}

Registry::~Registry() {
  if (IsOwner()) {
    // Ownership goes under the commit turn: no writer is between sending a
    // request and its reply, and the next one finds no owner and takes over.
    // Past the busy timeout it goes all the same (a writer waiting on a
    // reply then sees its outcome as unknown).
    absl::StatusOr<CommitTurn> turn = commit_lock_->Acquire(busy_timeout());
    server_.reset();
    SettleDeferredMarks();
    primary_.store(nullptr, std::memory_order_release);
    owned_db_->Close().PermitUncheckedError();
    owned_db_.reset();
    lock_.reset();
  }
  if (view_db_ != nullptr) view_db_->Close().PermitUncheckedError();
  view_db_.reset();
  if (!follower_dir_.empty()) {
    absl::StatusOr<io::FileSystem*> fs = FileSystem();
    if (fs.ok()) RemoveFollowerDir(**fs, follower_dir_);
  }
}

bool Registry::IsOwner() const { return primary_.load(std::memory_order_acquire) != nullptr; }

rocksdb::DB* Registry::ReadDb() const {
  rocksdb::DB* primary = primary_.load(std::memory_order_acquire);
  return primary != nullptr ? primary : view_db_.get();
}

absl::StatusOr<std::optional<ForwardedReply>> Registry::Forward(const ForwardedWrite& write) {
  std::optional<CommitTurn> turn;
  if (!commit_lock_->HeldByThisThread()) {
    absl::StatusOr<CommitTurn> taken = commit_lock_->Acquire(busy_timeout());
    if (!taken.ok()) return taken.status();
    turn = std::move(*taken);
  }
  if (IsOwner()) return std::optional<ForwardedReply>();  // another thread took over
  // The owner may write now: the view is no longer current.
  view_current_in_turn_.store(0, std::memory_order_release);
  absl::StatusOr<ForwardedReply> reply = ForwardToOwner(socket_path_, write);
  if (reply.ok()) return std::optional<ForwardedReply>(std::move(*reply));
  if (!absl::IsUnavailable(reply.status())) return reply.status();
  // Nobody listens: the owner died (an owner that exits hands over under
  // the turn, which this writer holds). The writer lock died with it.
  absl::StatusOr<io::FileSystem*> fs = FileSystem();
  if (!fs.ok()) return fs.status();
  absl::StatusOr<std::unique_ptr<WriterLock>> lock =
      WriterLock::Acquire(**fs, lock_path_, registry_dir_);
  if (!lock.ok()) {
    return absl::UnavailableError(absl::StrCat(reply.status().message(),
                                               "; taking it over failed: ",
                                               lock.status().message()));
  }
  if (absl::Status s = BecomeOwner(**fs, std::move(*lock)); !s.ok()) return s;
  return std::optional<ForwardedReply>();
}

template <typename Answer>
auto Registry::ForwardUnlessOwner(const ForwardedWrite& write, Answer answer)
    -> std::optional<std::invoke_result_t<Answer, const ForwardedReply&>> {
  using Result = std::invoke_result_t<Answer, const ForwardedReply&>;
  if (IsOwner()) return std::nullopt;
  absl::StatusOr<std::optional<ForwardedReply>> forwarded = Forward(write);
  // A commit lost after it was sent: the owner may have committed it.
  const bool commit = write.kind == ForwardedKind::kCommitVersion ||
                      write.kind == ForwardedKind::kCommitVersionDeferred;
  if (commit && absl::IsUnknown(forwarded.status())) {
    return Result(CommitOutcomeUnknownError(forwarded.status()));
  }
  if (!forwarded.ok()) return Result(forwarded.status());
  if (!forwarded->has_value()) return std::nullopt;  // this Registry took over
  return answer(**forwarded);
}

namespace {
// Set while this thread runs a forwarded write: its sender holds the turn.
thread_local bool serving_forwarded_write = false;
}  // namespace

absl::StatusOr<std::optional<CommitTurn>> Registry::OwnWriteTurn() {
  if (serving_forwarded_write || commit_lock_->HeldByThisThread()) {
    return std::optional<CommitTurn>();
  }
  absl::StatusOr<CommitTurn> turn = commit_lock_->Acquire(busy_timeout());
  if (!turn.ok()) return turn.status();
  return std::optional<CommitTurn>(std::move(*turn));
}

ForwardedReply Registry::RunForwarded(const ForwardedWrite& write) {
  serving_forwarded_write = true;
  struct Done {
    ~Done() { serving_forwarded_write = false; }
  } done;
  ForwardedReply reply;
  switch (write.kind) {
    case ForwardedKind::kPutStageDescriptor:
      reply.status = PutStageDescriptorIfAbsent(write.text);
      break;
    case ForwardedKind::kCreateNamespace:
      reply.status = CreateNamespace(write.text);
      break;
    case ForwardedKind::kCreateTable: {
      absl::StatusOr<TableRecord> table = CreateTable(write.name, write.schema);
      reply.status = table.status();
      if (table.ok()) reply.table = std::move(*table);
      break;
    }
    case ForwardedKind::kTagVersion: {
      absl::StatusOr<TagRecord> tag = TagVersion(write.table_id, write.tag, write.version);
      reply.status = tag.status();
      if (tag.ok()) reply.tag = std::move(*tag);
      break;
    }
    case ForwardedKind::kUntagVersion:
      reply.status = UntagVersion(write.table_id, write.tag);
      break;
    case ForwardedKind::kRetireVersions: {
      absl::StatusOr<std::vector<RetiredVersionRecord>> retired = RetireVersions(
          write.table_id, write.expected_current_version, write.versions, write.base);
      reply.status = retired.status();
      if (retired.ok()) reply.retired = std::move(*retired);
      break;
    }
    case ForwardedKind::kDropTable: {
      absl::StatusOr<DroppedTableRecord> dropped = DropTable(write.name);
      reply.status = dropped.status();
      if (dropped.ok()) reply.dropped = std::move(*dropped);
      break;
    }
    case ForwardedKind::kCommitVersion:
    case ForwardedKind::kCommitVersionDeferred: {
      absl::StatusOr<TableRecord> table = CommitVersion(
          write.table_id, write.expected_current_version, write.next, write.operation,
          write.kind == ForwardedKind::kCommitVersionDeferred ? CommitDurability::kDeferred
                                                              : CommitDurability::kSynced);
      reply.status = table.status();
      if (table.ok()) reply.table = std::move(*table);
      break;
    }
    case ForwardedKind::kClearDeferredMark:
      reply.status = ClearDeferredMark(write.mark);
      break;
  }
  return reply;
}

absl::StatusOr<CommitTurn> Registry::AwaitCommitTurn() {
  if (absl::Status s = RefuseIfReadOnly("a commit"); !s.ok()) return s;
  return commit_lock_->Acquire(busy_timeout());
}

absl::Duration Registry::busy_timeout() const {
  return absl::Nanoseconds(busy_timeout_nanos_.load(std::memory_order_relaxed));
}

void Registry::set_busy_timeout(absl::Duration timeout) {
  busy_timeout_nanos_.store(absl::ToInt64Nanoseconds(timeout), std::memory_order_relaxed);
}

absl::Time Registry::Now() const { return options_.clock ? options_.clock() : absl::Now(); }

absl::Duration Registry::ViewAge() const {
  if (IsOwner()) return absl::ZeroDuration();
  absl::MutexLock lock(&view_mu_);
  return Now() - view_time_;
}

absl::Status Registry::CatchUp() {
  if (IsOwner()) return absl::OkStatus();
  absl::MutexLock serial(&catch_up_mu_);
  // The view is at least as new as the moment the catch-up began.
  absl::Time began = Now();
  rocksdb::Status caught_up = view_db_->TryCatchUpWithPrimary();
  if (!caught_up.ok()) {
    return FromRocksDbStatus(caught_up, absl::StrCat("catch up with registry ", registry_dir_));
  }
  absl::MutexLock lock(&view_mu_);
  if (began > view_time_) view_time_ = began;
  return absl::OkStatus();
}

absl::Status Registry::PrepareRead() {
  if (IsOwner()) return absl::OkStatus();
  if (read_only_) {
    if (ViewAge() <= options_.follower_max_staleness) return absl::OkStatus();
    return CatchUp();
  }
  // A writer that forwards its writes reads what it (or anyone) committed:
  // its view catches up before every read, but once per turn it holds (no
  // write happens elsewhere meanwhile).
  const uint64_t turn = commit_lock_->TurnOfThisThread();
  if (turn != 0 && view_current_in_turn_.load(std::memory_order_acquire) == turn) {
    return absl::OkStatus();
  }
  if (absl::Status s = CatchUp(); !s.ok()) return s;
  if (turn != 0) view_current_in_turn_.store(turn, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status Registry::RefuseIfReadOnly(const char* operation) const {
  if (!read_only_) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the registry at ", registry_dir_, " is open read-only: ", operation,
      " needs the writer"));
}

absl::StatusOr<std::optional<std::string>> Registry::ReadValue(const std::string& key) {
  std::string value;
  rocksdb::Status got = ReadDb()->Get(rocksdb::ReadOptions(), key, &value);
  if (got.IsNotFound()) return std::nullopt;
  if (!got.ok()) return FromRocksDbStatus(got, absl::StrCat("read registry key ", key));
  return value;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> Registry::ScanPrefix(
    const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it(ReadDb()->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) {
    return FromRocksDbStatus(it->status(), absl::StrCat("scan registry keys ", prefix));
  }
  return out;
}

absl::Status Registry::WriteBatchSynced(rocksdb::WriteBatch& batch, const char* what) {
  return WriteBatch(batch, /*sync=*/true, what);
}

absl::Status Registry::WriteBatch(rocksdb::WriteBatch& batch, bool sync, const char* what) {
  rocksdb::WriteOptions write_options;
  write_options.sync = sync;
  absl::Status written = FromRocksDbStatus(owned_db_->Write(write_options, &batch),
                                           absl::StrCat(what, " in registry ", registry_dir_));
  // A synced write syncs RocksDB's whole log: every write before it too.
  if (written.ok()) log_unsynced_ = !sync;
  return written;
}

absl::StatusOr<bool> Registry::DeferredMarkNeeded(uint64_t table_id) {
  if (deferred_marked_.contains(table_id)) return false;
  absl::StatusOr<std::optional<std::string>> value = ReadValue(DeferredMarkKey(table_id));
  if (!value.ok()) return value.status();
  if (value->has_value()) {
    absl::StatusOr<DeferredMarkRecord> mark = DecodeDeferredMarkRecord(**value);
    // Durable: an owner's open makes what earlier owners wrote durable.
    if (mark.ok() && mark->table_id == table_id && mark->boot_id == boot_id_) {
      deferred_marked_.insert(table_id);
      return false;
    }
  }
  return true;  // absent, another boot's, or damaged: marked (again)
}

void Registry::SettleDeferredMarks() {
  absl::MutexLock serial(&write_mu_);
  if (deferred_marked_.empty()) return;
  // The marks go, so that after a reboot readers need no writer first.
  // - With a deferred commit unsynced, the write is synced: it makes every
  //   commit before it durable (RocksDB syncs its whole log).
  // - With every commit durable already, it is not: lost with a power
  //   loss, a mark only has the next boot redo nothing.
  // When it fails the marks stay, and the next boot redoes what may be
  // lost.
  rocksdb::WriteBatch batch;
  for (uint64_t table_id : deferred_marked_) batch.Delete(DeferredMarkKey(table_id));
  WriteBatch(batch, /*sync=*/log_unsynced_, "clear the deferred marks").IgnoreError();
  deferred_marked_.clear();
}

absl::StatusOr<std::vector<DeferredMarkRecord>> Registry::DeferredMarksFromOtherBoots() {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> values =
      ScanPrefix(std::string(kDeferredMarkPrefix));
  if (!values.ok()) return values.status();
  std::vector<DeferredMarkRecord> marks;
  for (const auto& [key, value] : *values) {
    absl::StatusOr<DeferredMarkRecord> mark = DecodeDeferredMarkRecord(value);
    if (!mark.ok()) return mark.status();
    if (key != DeferredMarkKey(mark->table_id)) {
      return KeyMismatch(key, absl::StrCat("the deferred mark of table ", mark->table_id));
    }
    if (boot_id_.empty() || mark->boot_id != boot_id_) marks.push_back(*std::move(mark));
  }
  return marks;
}

absl::Status Registry::ClearDeferredMark(const DeferredMarkRecord& mark) {
  if (absl::Status s = RefuseIfReadOnly("clearing a deferred mark"); !s.ok()) return s;
  if (absl::Status s = ValidateDeferredMarkRecord(mark); !s.ok()) return s;
  if (auto answer = ForwardUnlessOwner(
          {.kind = ForwardedKind::kClearDeferredMark, .mark = mark},
          [](const ForwardedReply& reply) { return reply.status; })) {
    return *answer;
  }
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  const std::string key = DeferredMarkKey(mark.table_id);
  absl::StatusOr<std::optional<std::string>> value = ReadValue(key);
  if (!value.ok()) return value.status();
  if (!value->has_value() || **value != EncodeDeferredMarkRecord(mark)) return absl::OkStatus();
  rocksdb::WriteBatch batch;
  batch.Delete(key);
  return WriteBatchSynced(
      batch, absl::StrCat("clear the deferred mark of table ", mark.table_id).c_str());
}

absl::StatusOr<std::optional<TableRecord>> Registry::ReadTable(const table::TableName& name) {
  std::string key = TableKey(name);
  absl::StatusOr<std::optional<std::string>> value = ReadValue(key);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::nullopt;
  absl::StatusOr<TableRecord> record = DecodeTableRecord(**value);
  if (!record.ok()) return record.status();
  if (!(record->name == name)) return KeyMismatch(key, "table " + record->name.ToString());
  return *record;
}

absl::StatusOr<std::optional<TableRecord>> Registry::ReadTableById(uint64_t table_id) {
  std::string key = TableIdKey(table_id);
  absl::StatusOr<std::optional<std::string>> value = ReadValue(key);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::nullopt;
  absl::StatusOr<table::TableName> name = DecodeTableIdIndexRecord(**value);
  if (!name.ok()) return name.status();
  absl::StatusOr<std::optional<TableRecord>> record = ReadTable(*name);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return KeyMismatch(key, absl::StrCat("table ", name->ToString(), ", which is not registered"));
  }
  if ((*record)->table_id != table_id) {
    return KeyMismatch(key, absl::StrCat("table ", name->ToString(), ", whose id is ",
                                         (*record)->table_id));
  }
  return record;
}

absl::StatusOr<TableRecord> Registry::ReadExistingTable(uint64_t table_id) {
  absl::StatusOr<std::optional<TableRecord>> table = ReadTableById(table_id);
  if (!table.ok()) return table.status();
  if (!table->has_value()) return absl::NotFoundError(absl::StrCat("no table with id ", table_id));
  return **table;
}

absl::StatusOr<std::optional<AppendOperationRecord>> Registry::ReadAppendOperation(
    const std::string& operation_id) {
  std::string key = OperationKey(operation_id);
  absl::StatusOr<std::optional<std::string>> value = ReadValue(key);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::nullopt;
  absl::StatusOr<AppendOperationRecord> record = DecodeAppendOperationRecord(**value);
  if (!record.ok()) return record.status();
  if (record->operation_id != operation_id) {
    return KeyMismatch(key, "operation " + record->operation_id);
  }
  return *record;
}

absl::StatusOr<std::optional<std::string>> Registry::GetStageDescriptor() {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  absl::StatusOr<std::optional<std::string>> value =
      ReadValue(std::string(kStageDescriptorKey));
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::nullopt;
  absl::StatusOr<std::string> json = DecodeStageDescriptorRecord(**value);
  if (!json.ok()) return json.status();
  return *json;
}

absl::Status Registry::PutStageDescriptorIfAbsent(const std::string& descriptor_json) {
  if (absl::Status s = RefuseIfReadOnly("recording the stage descriptor"); !s.ok()) return s;
  if (absl::Status s = ValidateStageDescriptorJson(descriptor_json); !s.ok()) return s;
  if (auto answer = ForwardUnlessOwner(
          {.kind = ForwardedKind::kPutStageDescriptor, .text = descriptor_json}, StatusOf)) {
    return *answer;
  }
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  absl::StatusOr<std::optional<std::string>> present = GetStageDescriptor();
  if (!present.ok()) return present.status();
  if (present->has_value()) {
    if (**present == descriptor_json) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "the root's stage descriptor is already ", **present, "; it cannot become ",
        descriptor_json));
  }
  rocksdb::WriteBatch batch;
  batch.Put(std::string(kStageDescriptorKey), EncodeStageDescriptorRecord(descriptor_json));
  return WriteBatchSynced(batch, "record the stage descriptor");
}

absl::Status Registry::CreateNamespace(const std::string& name) {
  if (absl::Status s = RefuseIfReadOnly("creating a namespace"); !s.ok()) return s;
  if (absl::Status s = table::ValidateIdentifier(name, "namespace"); !s.ok()) return s;
  if (auto answer =
          ForwardUnlessOwner({.kind = ForwardedKind::kCreateNamespace, .text = name}, StatusOf)) {
    return *answer;
  }
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  std::string key = NamespaceKey(name);
  absl::StatusOr<std::optional<std::string>> present = ReadValue(key);
  if (!present.ok()) return present.status();
  if (present->has_value()) {
    return absl::AlreadyExistsError(absl::StrCat("namespace ", name, " already exists"));
  }
  rocksdb::WriteBatch batch;
  batch.Put(key, EncodeNamespaceRecord({name, absl::ToUnixMicros(Now())}));
  return WriteBatchSynced(batch, absl::StrCat("create namespace ", name).c_str());
}

absl::StatusOr<std::vector<std::string>> Registry::ListNamespaces() {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> entries =
      ScanPrefix(std::string(kNamespacePrefix));
  if (!entries.ok()) return entries.status();
  std::vector<std::string> names;
  for (const auto& [key, value] : *entries) {
    absl::StatusOr<NamespaceRecord> record = DecodeNamespaceRecord(value);
    if (!record.ok()) return record.status();
    if (key != NamespaceKey(record->name)) return KeyMismatch(key, "namespace " + record->name);
    names.push_back(record->name);
  }
  return names;
}

absl::StatusOr<TableRecord> Registry::CreateTable(const table::TableName& name,
                                                  const table::Schema& schema) {
  if (absl::Status s = RefuseIfReadOnly("creating a table"); !s.ok()) return s;
  if (absl::Status s = ValidateTableName(name); !s.ok()) return s;
  if (absl::Status s = table::ValidateSchema(schema); !s.ok()) return s;
  if (auto answer = ForwardUnlessOwner(
          {.kind = ForwardedKind::kCreateTable, .name = name, .schema = schema}, TableOf)) {
    return *answer;
  }
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  absl::StatusOr<std::optional<TableRecord>> present = ReadTable(name);
  if (!present.ok()) return present.status();
  if (present->has_value()) {
    return absl::AlreadyExistsError(absl::StrCat("table ", name.ToString(), " already exists"));
  }
  absl::StatusOr<std::optional<std::string>> counter =
      ReadValue(std::string(kNextTableIdKey));
  if (!counter.ok()) return counter.status();
  uint64_t table_id = 1;
  if (counter->has_value()) {
    absl::StatusOr<uint64_t> next = DecodeCounterRecord(**counter);
    if (!next.ok()) return next.status();
    table_id = *next;
  }
  absl::StatusOr<std::optional<std::string>> ns = ReadValue(NamespaceKey(name.ns));
  if (!ns.ok()) return ns.status();

  int64_t now = absl::ToUnixMicros(Now());
  TableRecord record{table_id, name, schema, 0, "", now};
  rocksdb::WriteBatch batch;
  if (!ns->has_value()) batch.Put(NamespaceKey(name.ns), EncodeNamespaceRecord({name.ns, now}));
  batch.Put(TableKey(name), EncodeTableRecord(record));
  batch.Put(TableIdKey(table_id), EncodeTableIdIndexRecord(name));
  batch.Put(std::string(kNextTableIdKey), EncodeCounterRecord(table_id + 1));
  if (absl::Status s =
          WriteBatchSynced(batch, absl::StrCat("create table ", name.ToString()).c_str());
      !s.ok()) {
    return s;
  }
  return record;
}

absl::StatusOr<TableRecord> Registry::GetTable(const table::TableName& name) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  absl::StatusOr<std::optional<TableRecord>> record = ReadTable(name);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::NotFoundError(absl::StrCat("no table ", name.ToString()));
  }
  return **record;
}

absl::StatusOr<TableRecord> Registry::GetTableById(uint64_t table_id) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  return ReadExistingTable(table_id);
}

absl::StatusOr<std::vector<TableRecord>> Registry::ListTables() {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> entries =
      ScanPrefix(std::string(kTablePrefix));
  if (!entries.ok()) return entries.status();
  std::vector<TableRecord> tables;
  for (const auto& [key, value] : *entries) {
    absl::StatusOr<TableRecord> record = DecodeTableRecord(value);
    if (!record.ok()) return record.status();
    if (key != TableKey(record->name)) {
      return KeyMismatch(key, "table " + record->name.ToString());
    }
    tables.push_back(std::move(*record));
  }
  return tables;
}

absl::StatusOr<VersionRecord> Registry::GetVersion(uint64_t table_id, uint64_t version) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  std::string key = VersionKey(table_id, version);
  absl::StatusOr<std::optional<std::string>> value = ReadValue(key);
  if (!value.ok()) return value.status();
  if (!value->has_value()) {
    return absl::NotFoundError(absl::StrCat("table ", table_id, " has no version ", version));
  }
  absl::StatusOr<VersionRecord> record = DecodeVersionRecord(**value, table_id);
  if (!record.ok()) return record.status();
  if (record->version != version) {
    return KeyMismatch(key, absl::StrCat("version ", record->version));
  }
  return *record;
}

absl::StatusOr<std::vector<VersionRecord>> Registry::ListVersions(uint64_t table_id) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  absl::StatusOr<TableRecord> table = ReadExistingTable(table_id);
  if (!table.ok()) return table.status();
  return ScanVersions(table_id);
}

absl::StatusOr<std::vector<VersionRecord>> Registry::ScanVersions(uint64_t table_id) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> entries =
      ScanPrefix(TableVersionsPrefix(table_id));
  if (!entries.ok()) return entries.status();
  std::vector<VersionRecord> versions;
  for (const auto& [key, value] : *entries) {
    absl::StatusOr<VersionRecord> record = DecodeVersionRecord(value, table_id);
    if (!record.ok()) return record.status();
    if (key != VersionKey(table_id, record->version)) {
      return KeyMismatch(key, absl::StrCat("version ", record->version));
    }
    versions.push_back(std::move(*record));
  }
  return versions;
}

absl::StatusOr<std::optional<AppendOperationRecord>> Registry::GetAppendOperation(
    const std::string& operation_id) {
  if (absl::Status s = ValidateOperationId(operation_id); !s.ok()) return s;
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  return ReadAppendOperation(operation_id);
}

absl::StatusOr<TableRecord> Registry::CommitVersion(
    uint64_t table_id, uint64_t expected_current_version, const VersionRecord& next,
    const std::optional<AppendOperationRecord>& operation, CommitDurability durability) {
  if (absl::Status s = RefuseIfReadOnly("committing a version"); !s.ok()) return s;
  if (absl::Status s = ValidateVersionRecord(next); !s.ok()) return s;
  if (next.parent_version != expected_current_version) {
    return absl::InvalidArgumentError(absl::StrCat(
        "version ", next.version, " has parent version ", next.parent_version,
        ", but it is committed on version ", expected_current_version));
  }
  if (operation.has_value()) {
    if (absl::Status s = CheckOperationMatches(table_id, next, *operation); !s.ok()) return s;
  }
  ForwardedWrite forwarded{.kind = durability == CommitDurability::kDeferred
                                      ? ForwardedKind::kCommitVersionDeferred
                                      : ForwardedKind::kCommitVersion,
                           .table_id = table_id,
                           .expected_current_version = expected_current_version,
                           .next = next,
                           .operation = operation};
  auto answer = ForwardUnlessOwner(forwarded, TableOf);
  // An owner older than deferred forwarding refuses the request unread
  // (InvalidArgument: nothing committed); it takes the commit synced. A
  // commit this owner finds invalid is refused again, as it was.
  if (answer.has_value() && forwarded.kind == ForwardedKind::kCommitVersionDeferred &&
      absl::IsInvalidArgument(answer->status())) {
    forwarded.kind = ForwardedKind::kCommitVersion;
    answer = ForwardUnlessOwner(forwarded, TableOf);
  }
  if (answer.has_value()) return *std::move(answer);
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  absl::StatusOr<TableRecord> table = ReadExistingTable(table_id);
  if (!table.ok()) return table.status();
  if (operation.has_value()) {
    absl::StatusOr<std::optional<AppendOperationRecord>> done =
        ReadAppendOperation(operation->operation_id);
    if (!done.ok()) return done.status();
    if (done->has_value()) {
      return OperationCommittedError(operation->operation_id,
                                     {(*done)->table_id, (*done)->version});
    }
  }
  if (table->current_version != expected_current_version) {
    return VersionConflictError(
        {table_id, expected_current_version, table->current_version});
  }

  TableRecord updated = *table;
  updated.current_version = next.version;
  updated.manifest_path = next.manifest_path;
  rocksdb::WriteBatch batch;
  batch.Put(TableKey(updated.name), EncodeTableRecord(updated));
  batch.Put(VersionKey(table_id, next.version), EncodeVersionRecord(table_id, next));
  if (operation.has_value()) {
    batch.Put(OperationKey(operation->operation_id), EncodeAppendOperationRecord(*operation));
  }
  // A deferred commit is synced when it marks the table: the first of an
  // ownership, unless a mark of this boot is there already. An unknown
  // boot could never tell a restart, so it syncs all.
  const bool deferred = durability == CommitDurability::kDeferred && !boot_id_.empty();
  bool marks = false;
  if (deferred) {
    absl::StatusOr<bool> needed = DeferredMarkNeeded(table_id);
    if (!needed.ok()) return needed.status();
    marks = *needed;
  }
  if (marks) {
    batch.Put(DeferredMarkKey(table_id),
              EncodeDeferredMarkRecord({table_id, boot_id_, absl::ToUnixMicros(Now())}));
  }
  absl::Status written =
      WriteBatch(batch, /*sync=*/!deferred || marks,
                 absl::StrCat("commit version ", next.version, " of table ", table_id).c_str());
  if (written.ok() && marks) deferred_marked_.insert(table_id);
  if (written.ok()) written = LAKE_FAILPOINT(kCommitWrittenFailpoint);
  if (!written.ok()) return CommitOutcomeUnknownError(written);
  return updated;
}

absl::StatusOr<DroppedTableRecord> Registry::DropTable(const table::TableName& name) {
  if (absl::Status s = RefuseIfReadOnly("dropping a table"); !s.ok()) return s;
  if (absl::Status s = ValidateTableName(name); !s.ok()) return s;
  if (auto answer =
          ForwardUnlessOwner({.kind = ForwardedKind::kDropTable, .name = name}, DroppedOf)) {
    return *answer;
  }
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  absl::StatusOr<std::optional<TableRecord>> present = ReadTable(name);
  if (!present.ok()) return present.status();
  if (!present->has_value()) {
    return absl::NotFoundError(absl::StrCat("no table ", name.ToString()));
  }
  DroppedTableRecord dropped{**present, absl::ToUnixMicros(Now())};
  rocksdb::WriteBatch batch;
  batch.Delete(TableKey(name));
  batch.Delete(TableIdKey(dropped.table.table_id));
  batch.Put(DroppedTableKey(dropped.table.table_id), EncodeDroppedTableRecord(dropped));
  if (absl::Status s = WriteBatchSynced(batch, absl::StrCat("drop table ", name.ToString()).c_str());
      !s.ok()) {
    return s;
  }
  return dropped;
}

absl::StatusOr<std::vector<DroppedTableRecord>> Registry::ListDroppedTables() {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> entries =
      ScanPrefix(std::string(kDroppedTablePrefix));
  if (!entries.ok()) return entries.status();
  std::vector<DroppedTableRecord> dropped;
  for (const auto& [key, value] : *entries) {
    absl::StatusOr<DroppedTableRecord> record = DecodeDroppedTableRecord(value);
    if (!record.ok()) return record.status();
    if (key != DroppedTableKey(record->table.table_id)) {
      return KeyMismatch(key, absl::StrCat("dropped table ", record->table.table_id));
    }
    dropped.push_back(std::move(*record));
  }
  return dropped;
}

absl::StatusOr<std::vector<VersionRecord>> Registry::ListDroppedTableVersions(uint64_t table_id) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  absl::StatusOr<std::optional<std::string>> value = ReadValue(DroppedTableKey(table_id));
  if (!value.ok()) return value.status();
  if (!value->has_value()) {
    return absl::NotFoundError(absl::StrCat("no dropped table with id ", table_id));
  }
  return ScanVersions(table_id);
}

absl::StatusOr<std::vector<TagRecord>> Registry::ScanTags(uint64_t table_id) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> entries =
      ScanPrefix(TableTagsPrefix(table_id));
  if (!entries.ok()) return entries.status();
  std::vector<TagRecord> tags;
  for (const auto& [key, value] : *entries) {
    absl::StatusOr<TagRecord> record = DecodeTagRecord(value);
    if (!record.ok()) return record.status();
    if (record->table_id != table_id || key != TagKey(table_id, record->tag)) {
      return KeyMismatch(key, absl::StrCat("tag ", record->tag, " of table ", record->table_id));
    }
    tags.push_back(std::move(*record));
  }
  return tags;
}

absl::StatusOr<std::vector<RetiredVersionRecord>> Registry::ScanRetiredVersions(
    uint64_t table_id) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> entries =
      ScanPrefix(TableRetiredVersionsPrefix(table_id));
  if (!entries.ok()) return entries.status();
  std::vector<RetiredVersionRecord> retired;
  for (const auto& [key, value] : *entries) {
    absl::StatusOr<RetiredVersionRecord> record = DecodeRetiredVersionRecord(value);
    if (!record.ok()) return record.status();
    if (record->table_id != table_id || key != RetiredVersionKey(table_id, record->version)) {
      return KeyMismatch(key, absl::StrCat("retired version ", record->version, " of table ",
                                           record->table_id));
    }
    retired.push_back(*record);
  }
  return retired;
}

absl::StatusOr<std::optional<RetiredVersionRecord>> Registry::ReadRetiredVersion(
    uint64_t table_id, uint64_t version) {
  std::string key = RetiredVersionKey(table_id, version);
  absl::StatusOr<std::optional<std::string>> value = ReadValue(key);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::nullopt;
  absl::StatusOr<RetiredVersionRecord> record = DecodeRetiredVersionRecord(**value);
  if (!record.ok()) return record.status();
  if (record->table_id != table_id || record->version != version) {
    return KeyMismatch(key, absl::StrCat("retired version ", record->version, " of table ",
                                         record->table_id));
  }
  return *record;
}

absl::StatusOr<TagRecord> Registry::TagVersion(uint64_t table_id, const std::string& tag,
                                               uint64_t version) {
  if (absl::Status s = RefuseIfReadOnly("tagging a version"); !s.ok()) return s;
  TagRecord record{table_id, tag, version, 0};
  if (absl::Status s = ValidateTagRecord(record); !s.ok()) return s;
  if (auto answer = ForwardUnlessOwner(
          {.kind = ForwardedKind::kTagVersion, .table_id = table_id, .tag = tag, .version = version},
          TagOf)) {
    return *answer;
  }
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  absl::StatusOr<TableRecord> table = ReadExistingTable(table_id);
  if (!table.ok()) return table.status();
  std::string name = table->name.ToString();
  if (version > table->current_version) {
    return absl::NotFoundError(absl::StrCat("table ", name, " has no version ", version,
                                            " (its current version is ",
                                            table->current_version, ")"));
  }
  absl::StatusOr<std::optional<RetiredVersionRecord>> retired =
      ReadRetiredVersion(table_id, version);
  if (!retired.ok()) return retired.status();
  if (retired->has_value()) {
    return absl::NotFoundError(absl::StrCat("version ", version, " of table ", name,
                                            " was expired; it can no longer be tagged"));
  }
  absl::StatusOr<std::optional<std::string>> taken = ReadValue(TagKey(table_id, tag));
  if (!taken.ok()) return taken.status();
  if (taken->has_value()) {
    absl::StatusOr<TagRecord> existing = DecodeTagRecord(**taken);
    if (!existing.ok()) return existing.status();
    return absl::AlreadyExistsError(absl::StrCat("table ", name, " already has tag ", tag,
                                                 " (on version ", existing->version,
                                                 "): untag it first"));
  }
  record.created_unix_micros = absl::ToUnixMicros(Now());
  rocksdb::WriteBatch batch;
  batch.Put(TagKey(table_id, tag), EncodeTagRecord(record));
  if (absl::Status s =
          WriteBatchSynced(batch, absl::StrCat("tag ", tag, " of table ", name).c_str());
      !s.ok()) {
    return s;
  }
  return record;
}

absl::Status Registry::UntagVersion(uint64_t table_id, const std::string& tag) {
  if (absl::Status s = RefuseIfReadOnly("removing a tag"); !s.ok()) return s;
  if (absl::Status s = table::ValidateIdentifier(tag, "tag"); !s.ok()) return s;
  if (auto answer = ForwardUnlessOwner(
          {.kind = ForwardedKind::kUntagVersion, .table_id = table_id, .tag = tag}, StatusOf)) {
    return *answer;
  }
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  absl::StatusOr<std::optional<std::string>> present = ReadValue(TagKey(table_id, tag));
  if (!present.ok()) return present.status();
  if (!present->has_value()) {
    return absl::NotFoundError(absl::StrCat("table ", table_id, " has no tag ", tag));
  }
  rocksdb::WriteBatch batch;
  batch.Delete(TagKey(table_id, tag));
  return WriteBatchSynced(batch, absl::StrCat("untag ", tag, " of table ", table_id).c_str());
}

absl::StatusOr<std::vector<TagRecord>> Registry::ListTags(uint64_t table_id) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  return ScanTags(table_id);
}

absl::StatusOr<std::vector<RetiredVersionRecord>> Registry::RetireVersions(
    uint64_t table_id, uint64_t expected_current_version, const std::vector<uint64_t>& versions,
    const std::optional<ReferenceBaseRecord>& base) {
  if (absl::Status s = RefuseIfReadOnly("expiring versions"); !s.ok()) return s;
  if (versions.empty()) return absl::InvalidArgumentError("no version to retire");
  if (base.has_value()) {
    if (absl::Status s = ValidateReferenceBaseRecord(*base); !s.ok()) return s;
    if (base->table_id != table_id) {
      return absl::InvalidArgumentError("a reference base of another table");
    }
  }
  if (!IsOwner() && versions.size() > kMaxForwardedRecords) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a writer that does not own the registry retires at most ", kMaxForwardedRecords,
        " versions at once, not ", versions.size()));
  }
  if (auto answer = ForwardUnlessOwner({.kind = ForwardedKind::kRetireVersions,
                                        .table_id = table_id,
                                        .expected_current_version = expected_current_version,
                                        .versions = versions,
                                        .base = base},
                                       RetiredOf)) {
    return *answer;
  }
  absl::StatusOr<std::optional<CommitTurn>> turn = OwnWriteTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock serial(&write_mu_);
  absl::StatusOr<TableRecord> table = ReadExistingTable(table_id);
  if (!table.ok()) return table.status();
  if (table->current_version != expected_current_version) {
    return VersionConflictError({table_id, expected_current_version, table->current_version});
  }
  std::string name = table->name.ToString();
  absl::StatusOr<std::vector<TagRecord>> tags = ScanTags(table_id);
  if (!tags.ok()) return tags.status();
  int64_t now = absl::ToUnixMicros(Now());
  std::vector<RetiredVersionRecord> retired;
  rocksdb::WriteBatch batch;
  for (uint64_t version : versions) {
    if (version == 0 || version >= expected_current_version) {
      return absl::FailedPreconditionError(absl::StrCat(
          "version ", version, " of table ", name, " cannot be retired: the current version is ",
          expected_current_version, " and only older versions expire"));
    }
    for (const TagRecord& tag : *tags) {
      if (tag.version == version) {
        return absl::FailedPreconditionError(absl::StrCat(
            "version ", version, " of table ", name, " is tagged ", tag.tag, ": it never expires"));
      }
    }
    absl::StatusOr<std::optional<std::string>> committed =
        ReadValue(VersionKey(table_id, version));
    if (!committed.ok()) return committed.status();
    if (!committed->has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("table ", name, " has no version record for version ", version));
    }
    absl::StatusOr<std::optional<RetiredVersionRecord>> already =
        ReadRetiredVersion(table_id, version);
    if (!already.ok()) return already.status();
    if (already->has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("version ", version, " of table ", name, " is retired already"));
    }
    RetiredVersionRecord record{table_id, version, now};
    batch.Put(RetiredVersionKey(table_id, version), EncodeRetiredVersionRecord(record));
    retired.push_back(record);
  }
  if (base.has_value()) {
    absl::StatusOr<std::optional<ReferenceBaseRecord>> present = ReadReferenceBase(table_id);
    if (!present.ok()) return present.status();
    bool retiring = std::find(versions.begin(), versions.end(), base->version) != versions.end();
    absl::StatusOr<std::optional<RetiredVersionRecord>> retired_base =
        ReadRetiredVersion(table_id, base->version);
    if (!retired_base.ok()) return retired_base.status();
    absl::StatusOr<std::optional<std::string>> committed =
        ReadValue(VersionKey(table_id, base->version));
    if (!committed.ok()) return committed.status();
    if (retiring || retired_base->has_value() || !committed->has_value() ||
        (present->has_value() && (*present)->version >= base->version)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "version ", base->version, " of table ", name,
          " cannot be its reference base: it must be a retained version after the present base"));
    }
    ReferenceBaseRecord record = *base;
    record.written_unix_micros = now;
    batch.Put(ReferenceBaseKey(table_id), EncodeReferenceBaseRecord(record));
  }
  if (absl::Status s =
          WriteBatchSynced(batch, absl::StrCat("expire versions of table ", name).c_str());
      !s.ok()) {
    return s;
  }
  return retired;
}

absl::StatusOr<std::optional<ReferenceBaseRecord>> Registry::ReadReferenceBase(
    uint64_t table_id) {
  std::string key = ReferenceBaseKey(table_id);
  absl::StatusOr<std::optional<std::string>> value = ReadValue(key);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::nullopt;
  absl::StatusOr<ReferenceBaseRecord> record = DecodeReferenceBaseRecord(**value);
  if (!record.ok()) return record.status();
  if (record->table_id != table_id) {
    return KeyMismatch(key, absl::StrCat("the reference base of table ", record->table_id));
  }
  return *record;
}

absl::StatusOr<std::optional<ReferenceBaseRecord>> Registry::GetReferenceBase(uint64_t table_id) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  return ReadReferenceBase(table_id);
}

absl::StatusOr<std::vector<RetiredVersionRecord>> Registry::ListRetiredVersions(
    uint64_t table_id) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  return ScanRetiredVersions(table_id);
}

absl::StatusOr<std::optional<RetiredVersionRecord>> Registry::GetRetiredVersion(
    uint64_t table_id, uint64_t version) {
  if (absl::Status s = PrepareRead(); !s.ok()) return s;
  return ReadRetiredVersion(table_id, version);
}

absl::StatusOr<std::string> Registry::Fingerprint() {
  absl::StatusOr<std::vector<TableRecord>> tables = ListTables();
  if (!tables.ok()) return tables.status();
  Sha256 hash;
  for (const TableRecord& table : *tables) {
    std::string encoded = EncodeTableRecord(table);
    hash.Update(LengthPrefix(encoded.size()));
    hash.Update(encoded);
  }
  return hash.HexDigest();
}

}  // namespace lake::registry
