#include "registry/registry_records.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/hex.h"
#include "registry/record_fields.h"

namespace lake::registry {
namespace {

constexpr size_t kHeaderBytes = 2;  // format version, kind
constexpr size_t kDigestBytes = 8;

std::string_view KindName(RecordKind kind) {
  switch (kind) {
    case RecordKind::kStageDescriptor: return "stage descriptor";
    case RecordKind::kNamespace: return "namespace";
    case RecordKind::kTable: return "table";
    case RecordKind::kTableIdIndex: return "table id index";
    case RecordKind::kVersion: return "version";
    case RecordKind::kAppendOperation: return "append operation";
    case RecordKind::kCounter: return "counter";
    case RecordKind::kDroppedTable: return "dropped table";
    case RecordKind::kTag: return "tag";
    case RecordKind::kRetiredVersion: return "retired version";
    case RecordKind::kReferenceBase: return "reference base";
    case RecordKind::kDeferredMark: return "deferred mark";
  }
  return "unknown";
}

absl::Status Damaged(RecordKind kind, absl::string_view why) {
  return absl::DataLossError(absl::StrCat("registry ", std::string(KindName(kind)),
                                          " record is damaged: ", why));
}

void Digest(std::string_view bytes, unsigned char out[SHA256_DIGEST_LENGTH]) {
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), out);
}

// Builds one value: header, body fields, then the digest.
class ValueWriter : public FieldWriter {
 public:
  explicit ValueWriter(RecordKind kind) {
    U8(kRecordFormatVersion);
    U8(static_cast<uint8_t>(kind));
  }
  std::string Finish() && {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    Digest(out_, digest);
    out_.append(reinterpret_cast<const char*>(digest), kDigestBytes);
    return std::move(out_);
  }
};

// Reads one value's body after Open() has checked its frame. Every read
// fails (returns false) rather than run past the end.
class ValueReader : public FieldReader {
 public:
  // Checks the format version, digest and kind; positions at the body.
  static absl::StatusOr<ValueReader> Open(std::string_view value, RecordKind kind) {
    if (value.size() < kHeaderBytes + kDigestBytes) return Damaged(kind, "too short");
    uint8_t version = static_cast<uint8_t>(value[0]);
    if (version != kRecordFormatVersion) {
      return Damaged(kind, absl::StrCat("unknown format version ", version,
                                        " (this lake reads version ",
                                        kRecordFormatVersion, ")"));
    }
    std::string_view framed = value.substr(0, value.size() - kDigestBytes);
    unsigned char digest[SHA256_DIGEST_LENGTH];
    Digest(framed, digest);
    if (std::memcmp(digest, value.data() + framed.size(), kDigestBytes) != 0) {
      return Damaged(kind, "its digest does not match");
    }
    if (static_cast<uint8_t>(value[1]) != static_cast<uint8_t>(kind)) {
      return Damaged(kind, absl::StrCat("it holds record kind ",
                                        static_cast<uint8_t>(value[1])));
    }
    return ValueReader(kind, framed.substr(kHeaderBytes));
  }

  // The verdict once every field has been read: a failed read or bytes
  // left over are damage; otherwise `content` (a validation) decides.
  absl::Status Finish(bool read_ok, const absl::Status& content) const {
    if (!read_ok) return Damaged(kind_, "its body is short or a length is out of range");
    if (!empty()) return Damaged(kind_, "bytes follow its body");
    if (!content.ok()) return Damaged(kind_, content.message());
    return absl::OkStatus();
  }

 private:
  ValueReader(RecordKind kind, std::string_view body) : FieldReader(body), kind_(kind) {}

  RecordKind kind_;
};

absl::Status ValidateTableName(const table::TableName& name) {
  if (absl::Status s = table::ValidateIdentifier(name.ns, "namespace"); !s.ok()) return s;
  return table::ValidateIdentifier(name.table, "table name");
}

}  // namespace

absl::Status ValidateStageDescriptorJson(std::string_view json) {
  if (json.empty() || json.size() > kMaxStageDescriptorBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a stage descriptor must be 1..", kMaxStageDescriptorBytes, " bytes, not ",
        json.size()));
  }
  return absl::OkStatus();
}

absl::Status ValidateSha256Hex(std::string_view text, std::string_view what) {
  if (IsLowerHexSha256(text)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(what), " must be 64 lowercase hex digits, not \"", std::string(text),
      "\""));
}

namespace {

// 1..`max_bytes` printable ASCII bytes without spaces (0x21..0x7e).
bool IsPrintableToken(std::string_view text, size_t max_bytes) {
  return !text.empty() && text.size() <= max_bytes &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x21 && c <= 0x7e; });
}

}  // namespace

absl::Status ValidateOperationId(std::string_view text) {
  if (IsPrintableToken(text, kMaxOperationIdBytes)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "an operation id must be 1..", kMaxOperationIdBytes,
      " printable ASCII bytes without spaces, not \"", std::string(text), "\""));
}

absl::Status ValidateManifestPath(std::string_view text) {
  if (!text.empty() && text.size() <= kMaxManifestPathBytes &&
      text.find('\0') == std::string_view::npos) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "a manifest path must be 1..", kMaxManifestPathBytes,
      " bytes without NUL, not \"", std::string(text), "\""));
}

absl::Status ValidateTableRecord(const TableRecord& record) {
  if (absl::Status s = ValidateTableName(record.name); !s.ok()) return s;
  if (absl::Status s = table::ValidateSchema(record.schema); !s.ok()) return s;
  if (record.table_id == 0) return absl::InvalidArgumentError("table id 0 is never allocated");
  if (record.current_version == 0) {
    if (!record.manifest_path.empty()) {
      return absl::InvalidArgumentError("version 0 of a table has no manifest");
    }
    return absl::OkStatus();
  }
  return ValidateManifestPath(record.manifest_path);
}

absl::Status ValidateVersionRecord(const VersionRecord& record) {
  if (record.version == 0) {
    return absl::InvalidArgumentError("version 0 is the empty table and has no record");
  }
  if (record.parent_version >= record.version) {
    return absl::InvalidArgumentError(absl::StrCat(
        "version ", record.version, " cannot have parent version ", record.parent_version));
  }
  if (absl::Status s = ValidateManifestPath(record.manifest_path); !s.ok()) return s;
  if (absl::Status s = ValidateSha256Hex(record.reference_delta_sha256,
                                         "reference_delta_sha256");
      !s.ok()) {
    return s;
  }
  if (record.operation_id.empty()) return absl::OkStatus();
  return ValidateOperationId(record.operation_id);
}

absl::Status ValidateAppendOperationRecord(const AppendOperationRecord& record) {
  if (absl::Status s = ValidateOperationId(record.operation_id); !s.ok()) return s;
  if (record.table_id == 0) return absl::InvalidArgumentError("table id 0 is never allocated");
  if (record.version == 0) {
    return absl::InvalidArgumentError("an append operation cannot produce version 0");
  }
  return ValidateSha256Hex(record.batch_sha256, "batch_sha256");
}

absl::Status ValidateTagRecord(const TagRecord& record) {
  if (record.table_id == 0) return absl::InvalidArgumentError("table id 0 is never allocated");
  if (absl::Status s = table::ValidateIdentifier(record.tag, "tag"); !s.ok()) return s;
  if (record.version == 0) {
    return absl::InvalidArgumentError("version 0 is the empty table and cannot be tagged");
  }
  return absl::OkStatus();
}

absl::Status ValidateRetiredVersionRecord(const RetiredVersionRecord& record) {
  if (record.table_id == 0) return absl::InvalidArgumentError("table id 0 is never allocated");
  if (record.version == 0) {
    return absl::InvalidArgumentError("version 0 is the empty table and cannot be retired");
  }
  return absl::OkStatus();
}

absl::Status ValidateReferenceBaseRecord(const ReferenceBaseRecord& record) {
  if (record.table_id == 0) return absl::InvalidArgumentError("table id 0 is never allocated");
  if (record.version == 0) {
    return absl::InvalidArgumentError("version 0 is the empty table and has no snapshot");
  }
  return ValidateSha256Hex(record.snapshot_sha256, "snapshot_sha256");
}

absl::Status ValidateBootId(std::string_view boot_id) {
  if (IsPrintableToken(boot_id, kMaxBootIdBytes)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("a boot id must be 1..", kMaxBootIdBytes,
                                                 " printable ASCII bytes without spaces"));
}

absl::Status ValidateDeferredMarkRecord(const DeferredMarkRecord& record) {
  if (record.table_id == 0) return absl::InvalidArgumentError("table id 0 is never allocated");
  return ValidateBootId(record.boot_id);
}

std::string EncodeStageDescriptorRecord(std::string_view descriptor_json) {
  ValueWriter w(RecordKind::kStageDescriptor);
  w.Str(descriptor_json);
  return std::move(w).Finish();
}

std::string EncodeNamespaceRecord(const NamespaceRecord& record) {
  ValueWriter w(RecordKind::kNamespace);
  w.Str(record.name);
  w.I64(record.created_unix_micros);
  return std::move(w).Finish();
}

namespace {

// The body of a table record (kind 3), which a dropped table's (kind 8)
// begins with.
void WriteTableBody(ValueWriter& w, const TableRecord& record) {
  w.U64(record.table_id);
  w.Str(record.name.ns);
  w.Str(record.name.table);
  w.Schema(record.schema);
  w.U64(record.current_version);
  w.Str(record.manifest_path);
  w.I64(record.created_unix_micros);
}

bool ReadTableBody(ValueReader& r, TableRecord* record) {
  return r.U64(&record->table_id) && r.Str(&record->name.ns, table::kMaxIdentifierBytes) &&
         r.Str(&record->name.table, table::kMaxIdentifierBytes) &&
         r.Schema(&record->schema) && r.U64(&record->current_version) &&
         r.Str(&record->manifest_path, kMaxManifestPathBytes) &&
         r.I64(&record->created_unix_micros);
}

}  // namespace

std::string EncodeTableRecord(const TableRecord& record) {
  ValueWriter w(RecordKind::kTable);
  WriteTableBody(w, record);
  return std::move(w).Finish();
}

std::string EncodeDroppedTableRecord(const DroppedTableRecord& record) {
  ValueWriter w(RecordKind::kDroppedTable);
  WriteTableBody(w, record.table);
  w.I64(record.dropped_unix_micros);
  return std::move(w).Finish();
}

std::string EncodeTableIdIndexRecord(const table::TableName& name) {
  ValueWriter w(RecordKind::kTableIdIndex);
  w.Str(name.ns);
  w.Str(name.table);
  return std::move(w).Finish();
}

std::string EncodeVersionRecord(uint64_t table_id, const VersionRecord& record) {
  ValueWriter w(RecordKind::kVersion);
  w.U64(table_id);
  w.U64(record.version);
  w.U64(record.parent_version);
  w.Str(record.manifest_path);
  w.Str(record.reference_delta_sha256);
  w.Str(record.operation_id);
  w.I64(record.committed_unix_micros);
  return std::move(w).Finish();
}

std::string EncodeAppendOperationRecord(const AppendOperationRecord& record) {
  ValueWriter w(RecordKind::kAppendOperation);
  w.Str(record.operation_id);
  w.U64(record.table_id);
  w.U64(record.version);
  w.Str(record.batch_sha256);
  w.I64(record.committed_unix_micros);
  return std::move(w).Finish();
}

std::string EncodeCounterRecord(uint64_t next) {
  ValueWriter w(RecordKind::kCounter);
  w.U64(next);
  return std::move(w).Finish();
}

std::string EncodeTagRecord(const TagRecord& record) {
  ValueWriter w(RecordKind::kTag);
  w.U64(record.table_id);
  w.Str(record.tag);
  w.U64(record.version);
  w.I64(record.created_unix_micros);
  return std::move(w).Finish();
}

std::string EncodeRetiredVersionRecord(const RetiredVersionRecord& record) {
  ValueWriter w(RecordKind::kRetiredVersion);
  w.U64(record.table_id);
  w.U64(record.version);
  w.I64(record.retired_unix_micros);
  return std::move(w).Finish();
}

std::string EncodeReferenceBaseRecord(const ReferenceBaseRecord& record) {
  ValueWriter w(RecordKind::kReferenceBase);
  w.U64(record.table_id);
  w.U64(record.version);
  w.Str(record.snapshot_sha256);
  w.I64(record.written_unix_micros);
  return std::move(w).Finish();
}

std::string EncodeDeferredMarkRecord(const DeferredMarkRecord& record) {
  ValueWriter w(RecordKind::kDeferredMark);
  w.U64(record.table_id);
  w.Str(record.boot_id);
  w.I64(record.marked_unix_micros);
  return std::move(w).Finish();
}

absl::StatusOr<std::string> DecodeStageDescriptorRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kStageDescriptor);
  if (!r.ok()) return r.status();
  std::string json;
  bool ok = r->Str(&json, kMaxStageDescriptorBytes);
  if (absl::Status s = r->Finish(ok, ok ? ValidateStageDescriptorJson(json) : absl::OkStatus());
      !s.ok()) {
    return s;
  }
  return json;
}

absl::StatusOr<NamespaceRecord> DecodeNamespaceRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kNamespace);
  if (!r.ok()) return r.status();
  NamespaceRecord record;
  bool ok = r->Str(&record.name, table::kMaxIdentifierBytes) &&
            r->I64(&record.created_unix_micros);
  absl::Status content =
      ok ? table::ValidateIdentifier(record.name, "namespace") : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

absl::StatusOr<TableRecord> DecodeTableRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kTable);
  if (!r.ok()) return r.status();
  TableRecord record;
  bool ok = ReadTableBody(*r, &record);
  absl::Status content = ok ? ValidateTableRecord(record) : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

absl::StatusOr<DroppedTableRecord> DecodeDroppedTableRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kDroppedTable);
  if (!r.ok()) return r.status();
  DroppedTableRecord record;
  bool ok = ReadTableBody(*r, &record.table) && r->I64(&record.dropped_unix_micros);
  absl::Status content = ok ? ValidateTableRecord(record.table) : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

absl::StatusOr<table::TableName> DecodeTableIdIndexRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kTableIdIndex);
  if (!r.ok()) return r.status();
  table::TableName name;
  bool ok = r->Str(&name.ns, table::kMaxIdentifierBytes) &&
            r->Str(&name.table, table::kMaxIdentifierBytes);
  absl::Status content = ok ? ValidateTableName(name) : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return name;
}

absl::StatusOr<VersionRecord> DecodeVersionRecord(std::string_view value,
                                                  uint64_t table_id) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kVersion);
  if (!r.ok()) return r.status();
  uint64_t stored_table_id = 0;
  VersionRecord record;
  bool ok = r->U64(&stored_table_id) && r->U64(&record.version) &&
            r->U64(&record.parent_version) &&
            r->Str(&record.manifest_path, kMaxManifestPathBytes) &&
            r->Str(&record.reference_delta_sha256, 64) &&
            r->Str(&record.operation_id, kMaxOperationIdBytes) &&
            r->I64(&record.committed_unix_micros);
  absl::Status content = absl::OkStatus();
  if (ok) content = ValidateVersionRecord(record);
  if (ok && content.ok() && stored_table_id != table_id) {
    content = absl::InvalidArgumentError(absl::StrCat(
        "it belongs to table ", stored_table_id, ", not table ", table_id));
  }
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

absl::StatusOr<AppendOperationRecord> DecodeAppendOperationRecord(
    std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kAppendOperation);
  if (!r.ok()) return r.status();
  AppendOperationRecord record;
  bool ok = r->Str(&record.operation_id, kMaxOperationIdBytes) &&
            r->U64(&record.table_id) && r->U64(&record.version) &&
            r->Str(&record.batch_sha256, 64) && r->I64(&record.committed_unix_micros);
  absl::Status content = ok ? ValidateAppendOperationRecord(record) : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

absl::StatusOr<uint64_t> DecodeCounterRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kCounter);
  if (!r.ok()) return r.status();
  uint64_t next = 0;
  bool ok = r->U64(&next);
  absl::Status content = absl::OkStatus();
  if (ok && next == 0) content = absl::InvalidArgumentError("table ids start at 1");
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return next;
}

absl::StatusOr<TagRecord> DecodeTagRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kTag);
  if (!r.ok()) return r.status();
  TagRecord record;
  bool ok = r->U64(&record.table_id) && r->Str(&record.tag, table::kMaxIdentifierBytes) &&
            r->U64(&record.version) && r->I64(&record.created_unix_micros);
  absl::Status content = ok ? ValidateTagRecord(record) : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

absl::StatusOr<RetiredVersionRecord> DecodeRetiredVersionRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kRetiredVersion);
  if (!r.ok()) return r.status();
  RetiredVersionRecord record;
  bool ok = r->U64(&record.table_id) && r->U64(&record.version) &&
            r->I64(&record.retired_unix_micros);
  absl::Status content = ok ? ValidateRetiredVersionRecord(record) : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

absl::StatusOr<ReferenceBaseRecord> DecodeReferenceBaseRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kReferenceBase);
  if (!r.ok()) return r.status();
  ReferenceBaseRecord record;
  bool ok = r->U64(&record.table_id) && r->U64(&record.version) &&
            r->Str(&record.snapshot_sha256, 64) && r->I64(&record.written_unix_micros);
  absl::Status content = ok ? ValidateReferenceBaseRecord(record) : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

absl::StatusOr<DeferredMarkRecord> DecodeDeferredMarkRecord(std::string_view value) {
  absl::StatusOr<ValueReader> r = ValueReader::Open(value, RecordKind::kDeferredMark);
  if (!r.ok()) return r.status();
  DeferredMarkRecord record;
  bool ok = r->U64(&record.table_id) && r->Str(&record.boot_id, kMaxBootIdBytes) &&
            r->I64(&record.marked_unix_micros);
  absl::Status content = ok ? ValidateDeferredMarkRecord(record) : absl::OkStatus();
  if (absl::Status s = r->Finish(ok, content); !s.ok()) return s;
  return record;
}

}  // namespace lake::registry
