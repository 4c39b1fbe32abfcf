#include "engine/table/table_log.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "engine/managed_key.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::table {
namespace {

absl::Status PReadFully(io::File& file, uint8_t* buf, size_t len, uint64_t offset, size_t* got) {
  *got = 0;
  while (*got < len) {
    absl::StatusOr<size_t> n = file.PRead(buf + *got, len - *got, offset + *got);
    if (!n.ok()) return n.status();
    if (*n == 0) break;  // the end of the file
    *got += *n;
  }
  return absl::OkStatus();
}

// `len` bytes at `offset` (fewer at the end of the file).
absl::StatusOr<std::string> ReadAt(io::File& file, uint64_t offset, size_t len) {
  std::string bytes(len, '\0');
  size_t got = 0;
  if (absl::Status s = PReadFully(file, reinterpret_cast<uint8_t*>(bytes.data()), len, offset, &got);
      !s.ok()) {
    return s;
  }
  bytes.resize(got);
  return bytes;
}

bool AllZero(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; });
}

// Where the unwritten blocks of `file` begin at or after `end`; the size
// `size` when the file system cannot tell (then no zeros are written ahead).
uint64_t WrittenEnd(io::File& file, uint64_t end, uint64_t size) {
  absl::StatusOr<uint64_t> at = file.NextUnwritten(end);
  return at.ok() ? *at : size;
}

// The block size zeros written ahead end on (a file system's common one).
constexpr uint64_t kZeroAheadBlockBytes = 4096;

// The pieces of `zeros` zero bytes, for one gathering write.
void AppendZeroPieces(uint64_t zeros, std::vector<std::string_view>* pieces) {
  static const std::string kZeros(size_t{64} << 10, '\0');
  while (zeros > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(zeros, kZeros.size()));
    pieces->push_back(std::string_view(kZeros).substr(0, n));
    zeros -= n;
  }
}

// Where the records of the open segment end, scanned from `start` (a
// record boundary), and whether the bytes there are clean zeros. Reads a
// record header at a time (and the records it passes, to check them), so
// the preallocated zeros after the end are never read beyond one header.
struct SegmentEnd {
  uint64_t end = 0;
  bool clean = true;
};
// `visit`, when set, is called with each valid record passed, in order.
absl::StatusOr<SegmentEnd> FindSegmentEnd(io::File& file, uint64_t segment, uint64_t start,
                                          const TableLogVisitor* visit = nullptr) {
  uint64_t pos = start;
  for (;;) {
    absl::StatusOr<std::string> header = ReadAt(file, pos, kTableLogRecordHeaderBytes);
    if (!header.ok()) return header.status();
    if (AllZero(*header)) return SegmentEnd{pos, true};
    absl::StatusOr<uint64_t> payload_bytes = TableLogRecordPayloadBytes(*header);
    if (!payload_bytes.ok()) return SegmentEnd{pos, false};
    absl::StatusOr<std::string> record = ReadAt(file, pos, TableLogRecordBytes(*payload_bytes));
    if (!record.ok()) return record.status();
    const TableLogAddress address{segment, pos, *payload_bytes};
    absl::StatusOr<TableLogRecord> decoded = DecodeTableLogRecord(*record, address);
    if (!decoded.ok()) return SegmentEnd{pos, false};
    if (visit != nullptr) {
      if (absl::Status s = (*visit)(address, *decoded); !s.ok()) return s;
    }
    pos += record->size();
  }
}

}  // namespace

absl::StatusOr<std::vector<uint64_t>> ListTableLogSegments(io::FileSystem& fs,
                                                           const std::string& table_dir) {
  std::vector<uint64_t> segments;
  absl::StatusOr<std::vector<std::string>> names =
      fs.ListDirectory(absl::StrCat(table_dir, "/", std::string(kTableLogDir)));
  if (absl::IsNotFound(names.status())) return segments;
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    std::optional<uint64_t> segment = ParseTableLogSegmentName(name);
    if (segment) segments.push_back(*segment);
  }
  std::sort(segments.begin(), segments.end());
  return segments;
}

absl::Status TableLogWriter::CreateSegment(const std::string& table_dir, uint64_t segment,
                                           uint64_t min_bytes) {
  const std::string log_dir = absl::StrCat(table_dir, "/", std::string(kTableLogDir));
  if (absl::Status s = io::CreateDirectoriesDurably(fs_, log_dir); !s.ok()) return s;
  const std::string path = absl::StrCat(table_dir, "/", TableLogSegmentRelativePath(segment));
  const std::string temp = absl::StrCat(path, ".", NewUuidV7(), ".tmp");
  absl::StatusOr<std::unique_ptr<io::File>> file = fs_.CreateNew(temp, /*want_direct=*/false);
  if (!file.ok()) return file.status();
  absl::Status written = [&]() -> absl::Status {
    if (absl::Status s = io::WriteFullyAt(**file, EncodeTableLogSegmentHeader(segment), 0); !s.ok()) {
      return s;
    }
    // Preallocated: later appends change no size, and once zeros are
    // written ahead of them (Commit) no block map, so their fdatasync
    // writes the data alone. Where the file system cannot preallocate,
    // the appends extend the file instead (still one sync each).
    (void)(*file)->Allocate(0, std::max(min_bytes, segment_bytes_));
    if (absl::Status s = (*file)->Sync(); !s.ok()) return s;
    return (*file)->Close();
  }();
  if (!written.ok()) {
    (void)fs_.Remove(temp);
    return written;
  }
  if (absl::Status s = fs_.RenameNoReplace(temp, path); !s.ok()) {
    (void)fs_.Remove(temp);
    return s;
  }
  return io::SyncParentDirectory(fs_, path);
}

absl::StatusOr<TableLogAppend> TableLogWriter::Begin(const std::string& table_dir,
                                                     uint64_t expected_bytes) {
  const uint64_t needed = expected_bytes;
  absl::StatusOr<std::vector<uint64_t>> segments = ListTableLogSegments(fs_, table_dir);
  if (!segments.ok()) return segments.status();

  // The segment to append to and its end: the newest one (the active one,
  // the only one the collector never takes) when its end is clean and the
  // records fit, else a new one.
  uint64_t segment = segments->empty() ? 0 : segments->back();
  std::unique_ptr<io::File> file;
  uint64_t end = 0;
  uint64_t size = 0;
  uint64_t written_end = 0;
  if (segment != 0) {
    std::string path = absl::StrCat(table_dir, "/", TableLogSegmentRelativePath(segment));
    // Read through a handle of its own (a writing handle may not read).
    absl::StatusOr<std::unique_ptr<io::File>> reading = fs_.OpenRead(path);
    if (!reading.ok()) return reading.status();
    absl::StatusOr<io::FileInfo> info = (*reading)->Stat();
    if (!info.ok()) return info.status();
    absl::StatusOr<std::string> header = ReadAt(**reading, 0, kTableLogSegmentHeaderBytes);
    if (!header.ok()) return header.status();
    if (absl::Status s = CheckTableLogSegmentHeader(*header, segment); !s.ok()) {
      return absl::DataLossError(absl::StrCat(path, ": ", s.message()));
    }
    uint64_t start = kTableLogSegmentHeaderBytes;
    auto cached = tails_.find(table_dir);
    if (cached != tails_.end() && cached->second.segment == segment &&
        cached->second.device == info->device && cached->second.inode == info->inode &&
        cached->second.birth_unix_nanos == info->birth_unix_nanos) {
      start = cached->second.end;
    }
    absl::StatusOr<SegmentEnd> found = FindSegmentEnd(**reading, segment, start);
    if (!found.ok()) return found.status();
    const bool fits = found->end == kTableLogSegmentHeaderBytes ||
                      found->end + needed <= segment_bytes_;
    if (found->clean && fits) {
      absl::StatusOr<std::unique_ptr<io::File>> opened = fs_.OpenForAppend(path);
      if (!opened.ok()) return opened.status();
      file = std::move(*opened);
      end = found->end;
      size = info->size;
      written_end = WrittenEnd(**reading, end, size);
      tails_[table_dir] = Tail{segment, end, info->device, info->inode, info->birth_unix_nanos};
    }
  }
  if (file == nullptr) {
    ++segment;
    if (absl::Status s =
            CreateSegment(table_dir, segment, kTableLogSegmentHeaderBytes + needed);
        !s.ok()) {
      return s;
    }
    std::string path = absl::StrCat(table_dir, "/", TableLogSegmentRelativePath(segment));
    absl::StatusOr<std::unique_ptr<io::File>> opened = fs_.OpenForAppend(path);
    if (!opened.ok()) return opened.status();
    absl::StatusOr<io::FileInfo> info = (*opened)->Stat();
    if (!info.ok()) return info.status();
    file = std::move(*opened);
    end = kTableLogSegmentHeaderBytes;
    size = info->size;
    written_end = WrittenEnd(*file, end, size);
    tails_[table_dir] = Tail{segment, end, info->device, info->inode, info->birth_unix_nanos};
  }
  TableLogAppend append(*this, table_dir, segment, end, written_end, size, std::move(file));
  append.bytes_.reserve(needed);
  return append;
}

TableLogAddress TableLogAppend::Add(const TableLogRecord& record) {
  TableLogAddress address{segment_, start_ + bytes_.size(), record.payload.size()};
  AppendTableLogRecord(segment_, record, &bytes_);
  return address;
}

absl::Status TableLogAppend::Commit() {
  if (bytes_.empty()) return file_->Close();
  if (absl::Status s = Write(); !s.ok()) return s;
  if (absl::Status s = file_->Sync(); !s.ok()) return s;
  if (absl::Status s = file_->Close(); !s.ok()) return s;
  writer_->tails_[table_dir_].end = start_ + bytes_.size();
  return absl::OkStatus();
}

absl::StatusOr<std::string> TableLogAppend::CommitUnsynced() {
  if (!bytes_.empty()) {
    if (absl::Status s = Write(); !s.ok()) return s;
  }
  if (absl::Status s = file_->Close(); !s.ok()) return s;
  writer_->tails_[table_dir_].end = start_ + bytes_.size();
  return absl::StrCat(table_dir_, "/", TableLogSegmentRelativePath(segment_));
}

absl::Status TableLogAppend::Write() {
  // Zeros ahead (kTableLogZeroAheadMinBytes) when the records reach
  // unwritten blocks: over the preallocation's zeros, to a block boundary.
  const uint64_t records_end = start_ + bytes_.size();
  std::vector<std::string_view> pieces{bytes_};
  if (records_end > written_end_ && records_end < size_) {
    const uint64_t ahead =
        std::clamp(records_end, kTableLogZeroAheadMinBytes, kTableLogZeroAheadMaxBytes);
    const uint64_t zero_to =
        std::min(size_, (records_end + ahead) / kZeroAheadBlockBytes * kZeroAheadBlockBytes);
    if (zero_to > records_end) AppendZeroPieces(zero_to - records_end, &pieces);
  }
  if (absl::Status s = io::WriteFullyAt(*file_, pieces, start_); !s.ok()) return s;
  return LAKE_FAILPOINT(kTableLogWrittenFailpoint);
}

absl::StatusOr<std::vector<TableLogAddress>> TableLogWriter::AppendDurably(
    const std::string& table_dir, absl::Span<const TableLogRecord> records) {
  std::vector<TableLogAddress> addresses;
  if (records.empty()) return addresses;
  uint64_t needed = 0;
  for (const TableLogRecord& record : records) needed += TableLogRecordBytes(record.payload.size());
  absl::StatusOr<TableLogAppend> append = Begin(table_dir, needed);
  if (!append.ok()) return append.status();
  for (const TableLogRecord& record : records) addresses.push_back(append->Add(record));
  if (absl::Status s = append->Commit(); !s.ok()) return s;
  return addresses;
}

namespace {

// The segment at `segment_path`, open to read a record a manifest names:
// DataLoss when it is missing.
absl::StatusOr<std::unique_ptr<io::File>> OpenSegmentForRecord(io::FileSystem& fs,
                                                               const std::string& segment_path) {
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(segment_path);
  if (absl::IsNotFound(file.status())) {
    return absl::DataLossError(absl::StrCat("table log segment ", segment_path, " is missing"));
  }
  return file;
}

absl::Status KindError(const std::string& path, TableLogRecordKind found,
                       TableLogRecordKind expected) {
  return absl::DataLossError(absl::StrCat("table log record ", path, " is of kind ",
                                          static_cast<int>(found), ", not ",
                                          static_cast<int>(expected)));
}

}  // namespace

absl::StatusOr<std::string> ReadTablePath(io::FileSystem& fs, const std::string& table_dir,
                                          const std::string& path, size_t max_bytes,
                                          TableLogRecordKind kind) {
  if (!IsTableLogPath(path)) return io::ReadWholeFile(fs, absl::StrCat(table_dir, "/", path), max_bytes);
  absl::StatusOr<TableLogRecordRead> record = ReadTableLogRecord(fs, table_dir, path, max_bytes);
  if (!record.ok()) return record.status();
  if (record->kind != kind) return KindError(path, record->kind, kind);
  return std::move(record->payload);
}

absl::StatusOr<TableLogRecordRead> ReadTableLogRecord(io::FileSystem& fs,
                                                      const std::string& table_dir,
                                                      const std::string& path, size_t max_bytes) {
  absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(path);
  if (!address.ok()) return address.status();
  if (address->payload_bytes > max_bytes) {
    return absl::DataLossError(absl::StrCat("table log record ", path, " holds more than ",
                                            max_bytes, " bytes"));
  }
  std::string segment_path =
      absl::StrCat(table_dir, "/", TableLogSegmentRelativePath(address->segment));
  absl::StatusOr<std::unique_ptr<io::File>> file = OpenSegmentForRecord(fs, segment_path);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::string> bytes =
      ReadAt(**file, address->offset, TableLogRecordBytes(address->payload_bytes));
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<TableLogRecord> record = DecodeTableLogRecord(*bytes, *address);
  if (!record.ok()) {
    return absl::DataLossError(absl::StrCat(segment_path, ": ", record.status().message()));
  }
  TableLogRecordRead read{record->kind, {}};
  bytes->erase(0, kTableLogRecordHeaderBytes);
  read.payload = *std::move(bytes);
  return read;
}

absl::Status CheckTableLogRecord(io::FileSystem& fs, const std::string& table_dir,
                                 const std::string& path, TableLogRecordKind kind,
                                 size_t piece_bytes) {
  absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(path);
  if (!address.ok()) return address.status();
  std::string segment_path =
      absl::StrCat(table_dir, "/", TableLogSegmentRelativePath(address->segment));
  absl::StatusOr<std::unique_ptr<io::File>> file = OpenSegmentForRecord(fs, segment_path);
  if (!file.ok()) return file.status();
  auto damaged = [&](const absl::Status& s) {
    return absl::DataLossError(absl::StrCat(segment_path, ": ", s.message()));
  };
  absl::StatusOr<std::string> header = ReadAt(**file, address->offset, kTableLogRecordHeaderBytes);
  if (!header.ok()) return header.status();
  absl::StatusOr<TableLogRecordCheck> check = TableLogRecordCheck::Start(*header, *address);
  if (!check.ok()) return damaged(check.status());
  if (check->kind() != kind) return KindError(path, check->kind(), kind);
  const uint64_t payload_at = address->offset + kTableLogRecordHeaderBytes;
  for (uint64_t done = 0; done < address->payload_bytes;) {
    size_t want = static_cast<size_t>(
        std::min<uint64_t>(std::max<size_t>(piece_bytes, 1), address->payload_bytes - done));
    absl::StatusOr<std::string> piece = ReadAt(**file, payload_at + done, want);
    if (!piece.ok()) return piece.status();
    check->Add(*piece);
    if (piece->size() < want) break;  // the end of the file: Finish says it is cut short
    done += want;
  }
  if (absl::Status s = check->Finish(); !s.ok()) return damaged(s);
  return absl::OkStatus();
}

TableLogPosition CommittedLogWatermark(const std::string& manifest_path) {
  absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(manifest_path);
  if (!address.ok()) return TableLogPosition{};
  return TableLogPosition{address->segment,
                          address->offset + TableLogRecordBytes(address->payload_bytes)};
}

absl::Status ReadTableLogFrom(io::FileSystem& fs, const std::string& table_dir,
                              TableLogPosition from, const TableLogVisitor& visit) {
  absl::StatusOr<std::vector<uint64_t>> segments = ListTableLogSegments(fs, table_dir);
  if (!segments.ok()) return segments.status();
  if (from.segment != 0 && !std::binary_search(segments->begin(), segments->end(), from.segment)) {
    return absl::DataLossError(absl::StrCat("table log segment ",
                                            TableLogSegmentRelativePath(from.segment), " of ",
                                            table_dir, " is missing: a committed version names it"));
  }
  for (uint64_t segment : *segments) {
    if (segment < from.segment) continue;
    std::string path = absl::StrCat(table_dir, "/", TableLogSegmentRelativePath(segment));
    absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(path);
    if (!file.ok()) return file.status();
    absl::StatusOr<std::string> header = ReadAt(**file, 0, kTableLogSegmentHeaderBytes);
    if (!header.ok()) return header.status();
    if (absl::Status s = CheckTableLogSegmentHeader(*header, segment); !s.ok()) {
      return absl::DataLossError(absl::StrCat(path, ": ", s.message()));
    }
    const uint64_t start = segment == from.segment && from.offset > kTableLogSegmentHeaderBytes
                               ? from.offset
                               : kTableLogSegmentHeaderBytes;
    if (absl::Status s = FindSegmentEnd(**file, segment, start, &visit).status(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::string TableFileOfPath(const std::string& path) {
  absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(path);
  if (!address.ok()) return path;
  return TableLogSegmentRelativePath(address->segment);
}

absl::StatusOr<std::string> CheckedTableFileOfPath(const std::string& path) {
  if (!IsTableLogPath(path)) return path;
  absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(path);
  if (!address.ok()) return address.status();
  return TableLogSegmentRelativePath(address->segment);
}

}  // namespace lake::table
