// The table log on disk (format: table_log_format.h): appending one
// version's records durably with a single sync, and reading a record back
// by the address a manifest names.
//
// Why: a table file published the ordinary way (ARCHITECTURE.md's
// durability rule 1) costs a file sync, a rename and a directory sync; a
// DELETE touching a thousand fragments wrote a thousand deletion vectors
// that way. Records appended to a segment that already exists, preallocated,
// need one fdatasync for all of them, and no new inode or directory entry:
// a segment's creation (at a roll) is the only time a directory is synced.
//
// Invariants:
// - Records are written only at a segment's end as a scan finds it
//   (ScanTableLogRecords' valid_end) and only where the bytes are zero
//   (the preallocation): a valid record is never overwritten, and neither
//   are torn or damaged bytes (the writer rolls to a new segment instead).
// - Zeros written ahead of an append's records (kTableLogZeroAheadMinBytes)
//   land past them and within the segment's size: only on zeros.
// - A record is named by a manifest only after the sync covering it
//   returned: every committed address names synced bytes.
// - A segment is published whole: written and synced under a temporary
//   name, renamed into place, its directory synced. A segment file always
//   starts with a valid header.
// - Records are written only to the table's newest segment (the active
//   one), or to a new segment that becomes the newest: a segment older
//   than the newest never gains a record again. So the collector
//   (engine/gc/inventory.h) may take a rolled segment — never the active
//   one — once no retained version (and no version released too recently)
//   names an address in it: no later commit can name one there.
//
// Thread safety: a TableLogWriter is used under the table store's commit
// lock and the root's commit turn (one writer of the root at a time), so
// other processes' appends happen only between its calls; each append
// finds the end again (from where it last was, when the segment is the same
// file). ReadTablePath may be called from any thread.
#ifndef LAKE_ENGINE_TABLE_TABLE_LOG_H_
#define LAKE_ENGINE_TABLE_TABLE_LOG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/table/table_log_format.h"
#include "io/file_system.h"

namespace lake::table {

// A failpoint after a version's records are written to their segment and
// before the sync that makes them durable.
inline constexpr std::string_view kTableLogWrittenFailpoint = "table_log.written";

// How far an append writes zeros past its records when they reach blocks
// the preallocation left unwritten: as far again as the segment holds so
// far, within these bounds, never past the segment's size.
//
// Why: a file system's preallocation (fallocate) leaves its extents
// "unwritten"; the first write into one converts it, and that change of
// the block map is metadata the fdatasync must write too — a second
// device round trip before the cache flush. Zeros written ahead (over
// zeros) in the same write convert a stretch at once, so the appends that
// follow sync their data alone. Measured on ext4 here, a 51 KB append's
// write and sync: 155-185 us into preallocated blocks, 90-110 us into
// written ones; zeros cost about 0.4 ms per MiB, once.
inline constexpr uint64_t kTableLogZeroAheadMinBytes = uint64_t{256} << 10;
inline constexpr uint64_t kTableLogZeroAheadMaxBytes = uint64_t{4} << 20;

class TableLogWriter;

// One version's records on their way into the log (TableLogWriter::Begin):
// each record added gets its address at once, so a later record (a
// manifest) can name an earlier one (a fragment, a delta); Commit writes
// them all in one write and makes them durable with one sync. Move-only;
// nothing is written unless Commit is called.
class TableLogAppend {
 public:
  TableLogAppend(TableLogAppend&&) = default;
  TableLogAppend& operator=(TableLogAppend&&) = default;

  // Encodes `record` after the records added before it and returns the
  // address it will have. Precondition: version >= 1 and 1 <=
  // payload.size() <= kMaxTableLogPayloadBytes.
  TableLogAddress Add(const TableLogRecord& record);
  // Writes every record added (none: nothing) and syncs the segment.
  // On a failure nothing added is durable and no address may be named.
  absl::Status Commit();
  // Writes every record added, without the sync, and returns the path of
  // their segment: they may be named only once a sync of that segment
  // which began after this returned has returned (commit_queue.h).
  absl::StatusOr<std::string> CommitUnsynced();

 private:
  friend class TableLogWriter;
  // Writes the records added (and the zeros ahead): no sync.
  absl::Status Write();
  TableLogAppend(TableLogWriter& writer, std::string table_dir, uint64_t segment,
                 uint64_t start, uint64_t written_end, uint64_t size,
                 std::unique_ptr<io::File> file)
      : writer_(&writer), table_dir_(std::move(table_dir)), segment_(segment), start_(start),
        written_end_(written_end), size_(size), file_(std::move(file)) {}

  TableLogWriter* writer_;
  std::string table_dir_;
  uint64_t segment_ = 0;
  uint64_t start_ = 0;        // where the first record goes
  uint64_t written_end_ = 0;  // where the segment's unwritten blocks begin
  uint64_t size_ = 0;         // the segment's size (its preallocation)
  std::unique_ptr<io::File> file_;
  std::string bytes_;  // the records added, encoded
};

class TableLogWriter {
 public:
  // `segment_bytes` is the roll bound (kTableLogSegmentBytes; smaller only
  // as a test seam, so that tests roll segments with a few records).
  explicit TableLogWriter(io::FileSystem& fs, uint64_t segment_bytes = kTableLogSegmentBytes)
      : fs_(fs), segment_bytes_(segment_bytes) {}

  // Appends `records` (one version's) to the log of the table in
  // `table_dir` and makes them durable with one sync of their segment
  // (Begin, Add each, Commit). Returns their addresses, in order. On a
  // failure nothing returned is durable and no address was handed out.
  absl::StatusOr<std::vector<TableLogAddress>> AppendDurably(
      const std::string& table_dir, absl::Span<const TableLogRecord> records);

  // Where the next records of the table in `table_dir`, about
  // `expected_bytes` of them encoded, go: the newest segment (the active
  // one) when they fit under the roll bound and its end is clean, else a
  // new one
  // (created now). Records past `expected_bytes` still go there: the
  // segment grows past its preallocation.
  absl::StatusOr<TableLogAppend> Begin(const std::string& table_dir, uint64_t expected_bytes);

 private:
  friend class TableLogAppend;
  // Where a table's newest segment ended after this writer's last append,
  // and which file it was (a table dropped and created again has another).
  struct Tail {
    uint64_t segment = 0;
    uint64_t end = 0;
    uint64_t device = 0;
    uint64_t inode = 0;
    int64_t birth_unix_nanos = 0;
  };
  // Creates segment `segment` (published whole, above) of at least
  // `min_bytes`, preallocated.
  absl::Status CreateSegment(const std::string& table_dir, uint64_t segment, uint64_t min_bytes);

  io::FileSystem& fs_;
  const uint64_t segment_bytes_;
  absl::flat_hash_map<std::string, Tail> tails_;  // by table directory
};

// The bytes the table path `path` names in `table_dir`: a whole file, or
// (IsTableLogPath) the payload of a record of kind `kind`, checked as
// table_log_format.h says. Every reader of a table's fragments, deletion
// vectors, reference deltas and manifests reads through this one
// function, so a path and an address stand for each other everywhere.
// DataLoss when a record is missing or damaged, of another kind, or holds
// more than `max_bytes`; NotFound when a file is missing.
absl::StatusOr<std::string> ReadTablePath(io::FileSystem& fs, const std::string& table_dir,
                                          const std::string& path, size_t max_bytes,
                                          TableLogRecordKind kind);

// A record read whole by its address: its kind and its payload.
struct TableLogRecordRead {
  TableLogRecordKind kind = TableLogRecordKind::kFragment;
  std::string payload;
};
// The record the address `path` names in `table_dir`, of whatever kind,
// checked as ReadTablePath checks it; for a reader that accepts more than
// one kind there.
absl::StatusOr<TableLogRecordRead> ReadTableLogRecord(io::FileSystem& fs,
                                                      const std::string& table_dir,
                                                      const std::string& path, size_t max_bytes);

// Checks the table log record the address `path` names in `table_dir` as
// ReadTablePath does (DataLoss when its segment is missing, or it is
// damaged or of another kind), reading its payload `piece_bytes` (>= 1) at
// a time and holding no more of it: a check whose memory does not grow
// with the record.
absl::Status CheckTableLogRecord(io::FileSystem& fs, const std::string& table_dir,
                                 const std::string& path, TableLogRecordKind kind,
                                 size_t piece_bytes);

// A place in a table's log: a segment, and a record boundary in it.
struct TableLogPosition {
  uint64_t segment = 0;  // 0: before the first segment (the whole log)
  uint64_t offset = 0;

  bool operator==(const TableLogPosition&) const = default;
};

// The committed watermark of a version whose manifest is `manifest_path`:
// where the log ended when it committed. A version's records are one write
// with its manifest last, and a record is named only once the sync
// covering it returned, so the end of the manifest record is past every
// record of that version and of every version before it: the registry's
// version record (its manifest path) records it, and no field of its own
// is needed. {} (the whole log) when the manifest is a file (a version
// written before the log held versions, or none).
TableLogPosition CommittedLogWatermark(const std::string& manifest_path);

// Called with each record ReadTableLogFrom passes; a failure stops it.
using TableLogVisitor =
    std::function<absl::Status(const TableLogAddress& address, const TableLogRecord& record)>;
// Visits, in order, every valid record of the table in `table_dir`'s log
// from `from`: segment from.segment from from.offset, then each later
// segment from its header, each up to the first bytes that are not a valid
// record (its preallocated zeros, or a torn tail no sync covered).
// DataLoss when a segment's header is not its own or the segment `from`
// names is missing (a committed version names a record in it).
absl::Status ReadTableLogFrom(io::FileSystem& fs, const std::string& table_dir,
                              TableLogPosition from, const TableLogVisitor& visit);

// The file the table path `path` lives in, relative to the table
// directory: a record's segment (any record kind: the address alone says
// where it is), else `path` itself. What the collector counts as live, and
// what a tag's retention is counted in. A path in the table log that is
// not an address is returned as it is: a caller that must know which
// segment a version needs checks it with ParseTableLogAddress first.
std::string TableFileOfPath(const std::string& path);
// TableFileOfPath, but DataLoss for a path in the table log that is not an
// address: a walk that cannot tell which segment a version needs fails
// closed.
absl::StatusOr<std::string> CheckedTableFileOfPath(const std::string& path);

// The segments of the table in `table_dir`, ascending (none when it has no
// log): the names ParseTableLogSegmentName accepts, nothing else. The last
// is the active segment, the only one an append may still write to.
absl::StatusOr<std::vector<uint64_t>> ListTableLogSegments(io::FileSystem& fs,
                                                           const std::string& table_dir);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_TABLE_LOG_H_
