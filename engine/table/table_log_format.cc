// The table log's segment and record format; its note is in
// table_log_format.h.
#include "engine/table/table_log_format.h"

#include <xxhash.h>

#include <climits>
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/table/byte_codec.h"

namespace lake::table {
namespace {

constexpr size_t kDigits = 20;
constexpr std::string_view kSegmentSuffix = ".seg";
constexpr size_t kChecksumOffset = 24;

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(absl::StrCat("table log: ", std::string(why)));
}

// Exactly kDigits decimal digits.
std::optional<uint64_t> ParseDigits(std::string_view text) {
  if (text.size() != kDigits) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint64_t value = 0;
  for (char c : text) {
    if (value > (UINT64_MAX - 9) / 10) return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

std::string Digits(uint64_t value) { return absl::StrFormat("%020u", value); }

uint64_t RecordChecksum(uint64_t segment, std::string_view header_prefix,
                        std::string_view payload) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                  &XXH3_freeState);
  XXH3_64bits_reset_withSeed(state.get(), segment);
  XXH3_64bits_update(state.get(), header_prefix.data(), header_prefix.size());
  XXH3_64bits_update(state.get(), payload.data(), payload.size());
  return XXH3_64bits_digest(state.get());
}

bool AllZero(std::string_view bytes) {
  for (char c : bytes) {
    if (c != 0) return false;
  }
  return true;
}

}  // namespace

std::string TableLogSegmentRelativePath(uint64_t segment) {
  return absl::StrCat(std::string(kTableLogDir), "/", Digits(segment), std::string(kSegmentSuffix));
}

std::optional<uint64_t> ParseTableLogSegmentName(std::string_view name) {
  if (name.size() != kDigits + kSegmentSuffix.size() || !name.ends_with(kSegmentSuffix)) {
    return std::nullopt;
  }
  std::optional<uint64_t> segment = ParseDigits(name.substr(0, kDigits));
  if (!segment || *segment == 0) return std::nullopt;
  return segment;
}

std::string FormatTableLogAddress(const TableLogAddress& address) {
  return absl::StrCat(TableLogSegmentRelativePath(address.segment), "/", Digits(address.offset),
                      ".", Digits(address.payload_bytes));
}

bool IsTableLogPath(std::string_view path) {
  return path.size() > kTableLogDir.size() && path.starts_with(kTableLogDir) &&
         path[kTableLogDir.size()] == '/';
}

absl::StatusOr<TableLogAddress> ParseTableLogAddress(std::string_view path) {
  auto bad = [&](std::string_view why) {
    return Damaged(absl::StrCat("'", std::string(path.substr(0, 128)), "' is not a record address: ",
                                std::string(why)));
  };
  // _log/ + segment name + / + digits . digits
  const size_t segment_name_bytes = kDigits + kSegmentSuffix.size();
  const size_t expected = kTableLogDir.size() + 1 + segment_name_bytes + 1 + kDigits + 1 + kDigits;
  if (!IsTableLogPath(path) || path.size() != expected) return bad("wrong length or prefix");
  std::string_view rest = path.substr(kTableLogDir.size() + 1);
  std::optional<uint64_t> segment = ParseTableLogSegmentName(rest.substr(0, segment_name_bytes));
  if (!segment) return bad("no segment name");
  rest.remove_prefix(segment_name_bytes);
  if (rest[0] != '/' || rest[1 + kDigits] != '.') return bad("no offset and size");
  std::optional<uint64_t> offset = ParseDigits(rest.substr(1, kDigits));
  std::optional<uint64_t> payload_bytes = ParseDigits(rest.substr(2 + kDigits));
  if (!offset || !payload_bytes) return bad("the offset and size are not 20 digits each");
  if (*offset < kTableLogSegmentHeaderBytes) return bad("the offset is inside the segment header");
  if (*payload_bytes == 0 || *payload_bytes > kMaxTableLogPayloadBytes) {
    return bad("the size is 0 or too large");
  }
  return TableLogAddress{*segment, *offset, *payload_bytes};
}

std::string EncodeTableLogSegmentHeader(uint64_t segment) {
  std::string out;
  out.reserve(kTableLogSegmentHeaderBytes);
  ByteWriter w(&out);
  w.Bytes(kTableLogSegmentMagic);
  w.U32(kTableLogFormatVersion);
  w.U32(0);
  w.U64(segment);
  w.U64(Checksum64(out));
  return out;
}

absl::Status CheckTableLogSegmentHeader(std::string_view bytes, uint64_t segment) {
  if (bytes.size() < kTableLogSegmentHeaderBytes) return Damaged("a segment shorter than its header");
  ByteReader r(bytes.substr(0, kTableLogSegmentHeaderBytes));
  std::string_view magic;
  uint32_t version = 0, zero = 0;
  uint64_t number = 0, checksum = 0;
  r.Bytes(kTableLogSegmentMagic.size(), &magic);
  r.U32(&version);
  r.U32(&zero);
  r.U64(&number);
  r.U64(&checksum);
  if (magic != kTableLogSegmentMagic) return Damaged("not a table log segment (wrong magic)");
  if (kChecksumsEnforced && checksum != Checksum64(bytes.substr(0, kChecksumOffset))) {
    return Damaged("a segment header's checksum does not match");
  }
  if (version != kTableLogFormatVersion) {
    return Damaged(absl::StrCat("unknown segment format version ", version, " (this lake reads ",
                                kTableLogFormatVersion, ")"));
  }
  if (zero != 0) return Damaged("a segment header's reserved bytes are not zero");
  if (number != segment) {
    return Damaged(absl::StrCat("segment ", segment, " says it is segment ", number));
  }
  return absl::OkStatus();
}

void AppendTableLogRecord(uint64_t segment, const TableLogRecord& record, std::string* out) {
  size_t start = out->size();
  ByteWriter w(out);
  w.Bytes(kTableLogRecordMagic);
  w.U8(static_cast<uint8_t>(record.kind));
  w.U8(0);
  w.U16(0);
  w.U64(record.version);
  w.U64(record.payload.size());
  uint64_t checksum = RecordChecksum(
      segment, std::string_view(*out).substr(start, kChecksumOffset), record.payload);
  w.U64(checksum);
  w.Bytes(record.payload);
}

absl::StatusOr<uint64_t> TableLogRecordPayloadBytes(std::string_view header) {
  if (header.size() < kTableLogRecordHeaderBytes) return Damaged("a record header is cut short");
  ByteReader r(header.substr(0, kTableLogRecordHeaderBytes));
  std::string_view magic;
  uint8_t kind = 0, zero8 = 0;
  uint16_t zero16 = 0;
  uint64_t version = 0, payload_bytes = 0;
  r.Bytes(kTableLogRecordMagic.size(), &magic);
  r.U8(&kind);
  r.U8(&zero8);
  r.U16(&zero16);
  r.U64(&version);
  r.U64(&payload_bytes);
  if (magic != kTableLogRecordMagic) return Damaged("not a record (wrong magic)");
  if (!IsKnownTableLogRecordKind(kind)) {
    return Damaged(absl::StrCat("unknown record kind ", kind));
  }
  if (zero8 != 0 || zero16 != 0) return Damaged("a record header's reserved bytes are not zero");
  if (version == 0) return Damaged("a record of version 0");
  if (payload_bytes == 0 || payload_bytes > kMaxTableLogPayloadBytes) {
    return Damaged(absl::StrCat("a record of ", payload_bytes, " payload bytes"));
  }
  return payload_bytes;
}

absl::StatusOr<TableLogRecord> DecodeTableLogRecord(std::string_view bytes,
                                                    const TableLogAddress& address) {
  absl::StatusOr<TableLogRecordCheck> check = TableLogRecordCheck::Start(bytes, address);
  if (!check.ok()) return check.status();
  if (bytes.size() != TableLogRecordBytes(address.payload_bytes)) {
    return Damaged(absl::StrCat("the record at ", address.offset, " of segment ", address.segment,
                                " is cut short or followed by other bytes"));
  }
  std::string_view payload = bytes.substr(kTableLogRecordHeaderBytes);
  check->Add(payload);
  if (absl::Status s = check->Finish(); !s.ok()) return s;
  return TableLogRecord{check->kind(), check->version(), payload};
}

void TableLogRecordCheck::FreeState::operator()(void* state) const {
  XXH3_freeState(static_cast<XXH3_state_t*>(state));
}

absl::StatusOr<TableLogRecordCheck> TableLogRecordCheck::Start(std::string_view header,
                                                               const TableLogAddress& address) {
  absl::StatusOr<uint64_t> payload_bytes = TableLogRecordPayloadBytes(header);
  if (!payload_bytes.ok()) return payload_bytes.status();
  if (*payload_bytes != address.payload_bytes) {
    return Damaged(absl::StrCat("the record at ", address.offset, " of segment ", address.segment,
                                " holds ", *payload_bytes, " bytes, its address says ",
                                address.payload_bytes));
  }
  TableLogRecordCheck check;
  check.address_ = address;
  check.kind_ = static_cast<TableLogRecordKind>(static_cast<uint8_t>(header[4]));
  ByteReader r(header.substr(8, kTableLogRecordHeaderBytes - 8));
  uint64_t payload_size = 0;
  r.U64(&check.version_);
  r.U64(&payload_size);
  r.U64(&check.checksum_);
  check.state_.reset(XXH3_createState());
  auto* state = static_cast<XXH3_state_t*>(check.state_.get());
  XXH3_64bits_reset_withSeed(state, address.segment);
  XXH3_64bits_update(state, header.data(), kChecksumOffset);
  return check;
}

void TableLogRecordCheck::Add(std::string_view piece) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_.get()), piece.data(), piece.size());
  added_ += piece.size();
}

absl::Status TableLogRecordCheck::Finish() const {
  if (added_ != address_.payload_bytes) {
    return Damaged(absl::StrCat("the record at ", address_.offset, " of segment ",
                                address_.segment, " is cut short or followed by other bytes"));
  }
  if (kChecksumsEnforced &&
      checksum_ != XXH3_64bits_digest(static_cast<XXH3_state_t*>(state_.get()))) {
    return Damaged(absl::StrCat("the record at ", address_.offset, " of segment ",
                                address_.segment, " does not match its checksum"));
  }
  return absl::OkStatus();
}

absl::StatusOr<TableLogScan> ScanTableLogRecords(std::string_view segment_bytes, uint64_t segment,
                                                 uint64_t start) {
  if (absl::Status s = CheckTableLogSegmentHeader(segment_bytes, segment); !s.ok()) return s;
  if (start < kTableLogSegmentHeaderBytes || start > segment_bytes.size()) {
    return absl::InvalidArgumentError(absl::StrCat("a scan of the table log from ", start));
  }
  TableLogScan scan;
  uint64_t pos = start;
  for (;;) {
    std::string_view rest = segment_bytes.substr(pos);
    std::string_view header = rest.substr(0, kTableLogRecordHeaderBytes);
    if (AllZero(header)) break;  // the preallocated zeros, or the end
    absl::StatusOr<uint64_t> payload_bytes = TableLogRecordPayloadBytes(header);
    if (!payload_bytes.ok() || TableLogRecordBytes(*payload_bytes) > rest.size()) {
      scan.dirty_tail = true;
      break;
    }
    TableLogAddress address{segment, pos, *payload_bytes};
    if (!DecodeTableLogRecord(rest.substr(0, TableLogRecordBytes(*payload_bytes)), address).ok()) {
      scan.dirty_tail = true;
      break;
    }
    scan.records.push_back(address);
    pos += TableLogRecordBytes(*payload_bytes);
  }
  scan.valid_end = pos;
  return scan;
}

}  // namespace lake::table
