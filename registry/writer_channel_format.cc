#include "registry/writer_channel_format.h"

#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "registry/record_fields.h"

namespace lake::registry {
namespace {

constexpr uint8_t kReplyKind = 128;
// An embedded record is one registry value: a table record of kMaxColumns
// columns stays well inside.
constexpr size_t kMaxEmbeddedRecordBytes = 512 * 1024;

absl::Status Malformed(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("a forwarded registry write is malformed: ", why));
}

FieldWriter Header(uint8_t kind) {
  FieldWriter w;
  w.U8(kForwardedFormatVersion);
  w.U8(kind);
  return w;
}

// Checks the version and returns the kind; `r` is then at the body.
absl::StatusOr<uint8_t> OpenMessage(std::string_view message, FieldReader& r) {
  if (message.size() > kMaxForwardedMessageBytes) return Malformed("it is too long");
  uint8_t version = 0;
  uint8_t kind = 0;
  if (!r.U8(&version) || !r.U8(&kind)) return Malformed("it is too short");
  if (version != kForwardedFormatVersion) {
    return Malformed(absl::StrCat("unknown format version ", version, " (this lake speaks ",
                                  kForwardedFormatVersion, ")"));
  }
  return kind;
}

absl::Status Finished(bool read_ok, const FieldReader& r) {
  if (!read_ok) return Malformed("its body is short or a length is out of range");
  if (!r.empty()) return Malformed("bytes follow its body");
  return absl::OkStatus();
}

}  // namespace

std::string EncodeForwardedWrite(const ForwardedWrite& write) {
  FieldWriter w = Header(static_cast<uint8_t>(write.kind));
  switch (write.kind) {
    case ForwardedKind::kPutStageDescriptor:
    case ForwardedKind::kCreateNamespace:
      w.Str(write.text);
      break;
    case ForwardedKind::kCreateTable:
      w.Str(write.name.ns);
      w.Str(write.name.table);
      w.Schema(write.schema);
      break;
    case ForwardedKind::kDropTable:
      w.Str(write.name.ns);
      w.Str(write.name.table);
      break;
    case ForwardedKind::kTagVersion:
      w.U64(write.table_id);
      w.Str(write.tag);
      w.U64(write.version);
      break;
    case ForwardedKind::kUntagVersion:
      w.U64(write.table_id);
      w.Str(write.tag);
      break;
    case ForwardedKind::kRetireVersions:
      w.U64(write.table_id);
      w.U64(write.expected_current_version);
      w.U32(static_cast<uint32_t>(write.versions.size()));
      for (uint64_t v : write.versions) w.U64(v);
      w.U8(write.base.has_value() ? 1 : 0);
      if (write.base.has_value()) w.Str(EncodeReferenceBaseRecord(*write.base));
      break;
    case ForwardedKind::kCommitVersion:
    case ForwardedKind::kCommitVersionDeferred:
      w.U64(write.table_id);
      w.U64(write.expected_current_version);
      w.Str(EncodeVersionRecord(write.table_id, write.next));
      w.U8(write.operation.has_value() ? 1 : 0);
      if (write.operation.has_value()) w.Str(EncodeAppendOperationRecord(*write.operation));
      break;
    case ForwardedKind::kClearDeferredMark:
      w.Str(EncodeDeferredMarkRecord(write.mark));
      break;
  }
  return std::move(w).Take();
}

absl::StatusOr<ForwardedWrite> DecodeForwardedWrite(std::string_view message) {
  FieldReader r(message);
  absl::StatusOr<uint8_t> kind = OpenMessage(message, r);
  if (!kind.ok()) return kind.status();
  ForwardedWrite write;
  bool ok = true;
  switch (*kind) {
    case static_cast<uint8_t>(ForwardedKind::kPutStageDescriptor):
      write.kind = ForwardedKind::kPutStageDescriptor;
      ok = r.Str(&write.text, kMaxStageDescriptorBytes);
      break;
    case static_cast<uint8_t>(ForwardedKind::kCreateNamespace):
      write.kind = ForwardedKind::kCreateNamespace;
      ok = r.Str(&write.text, table::kMaxIdentifierBytes);
      break;
    case static_cast<uint8_t>(ForwardedKind::kCreateTable):
      write.kind = ForwardedKind::kCreateTable;
      ok = r.Str(&write.name.ns, table::kMaxIdentifierBytes) &&
           r.Str(&write.name.table, table::kMaxIdentifierBytes) && r.Schema(&write.schema);
      break;
    case static_cast<uint8_t>(ForwardedKind::kDropTable):
      write.kind = ForwardedKind::kDropTable;
      ok = r.Str(&write.name.ns, table::kMaxIdentifierBytes) &&
           r.Str(&write.name.table, table::kMaxIdentifierBytes);
      break;
    case static_cast<uint8_t>(ForwardedKind::kTagVersion):
      write.kind = ForwardedKind::kTagVersion;
      ok = r.U64(&write.table_id) && r.Str(&write.tag, table::kMaxIdentifierBytes) &&
           r.U64(&write.version);
      break;
    case static_cast<uint8_t>(ForwardedKind::kUntagVersion):
      write.kind = ForwardedKind::kUntagVersion;
      ok = r.U64(&write.table_id) && r.Str(&write.tag, table::kMaxIdentifierBytes);
      break;
    case static_cast<uint8_t>(ForwardedKind::kRetireVersions): {
      write.kind = ForwardedKind::kRetireVersions;
      uint32_t count = 0;
      ok = r.U64(&write.table_id) && r.U64(&write.expected_current_version) && r.U32(&count) &&
           count <= kMaxForwardedRecords;
      if (ok) write.versions.resize(count);
      for (uint64_t& v : write.versions) ok = ok && r.U64(&v);
      uint8_t has_base = 0;
      std::string base;
      ok = ok && r.U8(&has_base) && has_base <= 1 &&
           (has_base == 0 || r.Str(&base, kMaxEmbeddedRecordBytes));
      if (absl::Status s = Finished(ok, r); !s.ok()) return s;
      if (has_base == 1) {
        absl::StatusOr<ReferenceBaseRecord> decoded = DecodeReferenceBaseRecord(base);
        if (!decoded.ok()) return Malformed(decoded.status().message());
        write.base = std::move(*decoded);
      }
      return write;
    }
    case static_cast<uint8_t>(ForwardedKind::kCommitVersion):
    case static_cast<uint8_t>(ForwardedKind::kCommitVersionDeferred): {
      write.kind = static_cast<ForwardedKind>(*kind);
      std::string version;
      uint8_t has_operation = 0;
      std::string operation;
      ok = r.U64(&write.table_id) && r.U64(&write.expected_current_version) &&
           r.Str(&version, kMaxEmbeddedRecordBytes) && r.U8(&has_operation) &&
           has_operation <= 1 && (has_operation == 0 || r.Str(&operation, kMaxEmbeddedRecordBytes));
      if (absl::Status s = Finished(ok, r); !s.ok()) return s;
      absl::StatusOr<VersionRecord> next = DecodeVersionRecord(version, write.table_id);
      if (!next.ok()) return Malformed(next.status().message());
      write.next = std::move(*next);
      if (has_operation == 1) {
        absl::StatusOr<AppendOperationRecord> op = DecodeAppendOperationRecord(operation);
        if (!op.ok()) return Malformed(op.status().message());
        write.operation = std::move(*op);
      }
      return write;
    }
    case static_cast<uint8_t>(ForwardedKind::kClearDeferredMark): {
      write.kind = ForwardedKind::kClearDeferredMark;
      std::string mark;
      ok = r.Str(&mark, kMaxEmbeddedRecordBytes);
      if (absl::Status s = Finished(ok, r); !s.ok()) return s;
      absl::StatusOr<DeferredMarkRecord> decoded = DecodeDeferredMarkRecord(mark);
      if (!decoded.ok()) return Malformed(decoded.status().message());
      write.mark = std::move(*decoded);
      return write;
    }
    default:
      return Malformed(absl::StrCat("unknown request kind ", *kind));
  }
  if (absl::Status s = Finished(ok, r); !s.ok()) return s;
  return write;
}

std::string EncodeForwardedReply(const ForwardedReply& reply) {
  FieldWriter w = Header(kReplyKind);
  w.U32(static_cast<uint32_t>(reply.status.code()));
  absl::string_view message = reply.status.message().substr(0, kMaxForwardedTextBytes);
  w.Str(std::string_view(message.data(), message.size()));
  std::vector<std::pair<std::string, std::string>> payloads;
  reply.status.ForEachPayload([&](absl::string_view url, const absl::Cord& bytes) {
    if (payloads.size() < kMaxForwardedPayloads) {
      payloads.emplace_back(std::string(url), std::string(bytes));
    }
  });
  w.U32(static_cast<uint32_t>(payloads.size()));
  for (const auto& [url, bytes] : payloads) {
    w.Str(url);
    w.Str(bytes);
  }
  std::vector<std::pair<RecordKind, std::string>> records;
  if (reply.table.has_value()) records.emplace_back(RecordKind::kTable, EncodeTableRecord(*reply.table));
  if (reply.dropped.has_value()) {
    records.emplace_back(RecordKind::kDroppedTable, EncodeDroppedTableRecord(*reply.dropped));
  }
  if (reply.tag.has_value()) records.emplace_back(RecordKind::kTag, EncodeTagRecord(*reply.tag));
  for (const RetiredVersionRecord& r : reply.retired) {
    records.emplace_back(RecordKind::kRetiredVersion, EncodeRetiredVersionRecord(r));
  }
  w.U32(static_cast<uint32_t>(records.size()));
  for (const auto& [kind, value] : records) {
    w.U8(static_cast<uint8_t>(kind));
    w.Str(value);
  }
  return std::move(w).Take();
}

absl::StatusOr<ForwardedReply> DecodeForwardedReply(std::string_view message) {
  FieldReader r(message);
  absl::StatusOr<uint8_t> kind = OpenMessage(message, r);
  if (!kind.ok()) return kind.status();
  if (*kind != kReplyKind) return Malformed(absl::StrCat("kind ", *kind, " is no reply"));
  uint32_t code = 0;
  std::string text;
  uint32_t payload_count = 0;
  bool ok = r.U32(&code) && code <= static_cast<uint32_t>(absl::StatusCode::kUnauthenticated) &&
            r.Str(&text, kMaxForwardedTextBytes) && r.U32(&payload_count) &&
            payload_count <= kMaxForwardedPayloads;
  std::vector<std::pair<std::string, std::string>> payloads(ok ? payload_count : 0);
  for (auto& [url, bytes] : payloads) {
    ok = ok && r.Str(&url, kMaxForwardedTextBytes) && r.Str(&bytes, kMaxForwardedTextBytes);
  }
  uint32_t record_count = 0;
  ok = ok && r.U32(&record_count) && record_count <= kMaxForwardedRecords;
  std::vector<std::pair<uint8_t, std::string>> records(ok ? record_count : 0);
  for (auto& [kind, value] : records) {
    ok = ok && r.U8(&kind) && r.Str(&value, kMaxEmbeddedRecordBytes);
  }
  if (absl::Status s = Finished(ok, r); !s.ok()) return s;
  ForwardedReply reply;
  if (code != 0) {
    reply.status = absl::Status(static_cast<absl::StatusCode>(code), text);
    for (const auto& [url, bytes] : payloads) reply.status.SetPayload(url, absl::Cord(bytes));
  } else if (!text.empty() || !payloads.empty()) {
    return Malformed("an OK reply carries a message or payloads");
  }
  for (const auto& [kind, value] : records) {
    bool one_of_a_kind = !reply.table && !reply.dropped && !reply.tag;
    if (kind == static_cast<uint8_t>(RecordKind::kTable) && one_of_a_kind) {
      absl::StatusOr<TableRecord> table = DecodeTableRecord(value);
      if (!table.ok()) return Malformed(table.status().message());
      reply.table = std::move(*table);
    } else if (kind == static_cast<uint8_t>(RecordKind::kDroppedTable) && one_of_a_kind) {
      absl::StatusOr<DroppedTableRecord> dropped = DecodeDroppedTableRecord(value);
      if (!dropped.ok()) return Malformed(dropped.status().message());
      reply.dropped = std::move(*dropped);
    } else if (kind == static_cast<uint8_t>(RecordKind::kTag) && one_of_a_kind) {
      absl::StatusOr<TagRecord> tag = DecodeTagRecord(value);
      if (!tag.ok()) return Malformed(tag.status().message());
      reply.tag = std::move(*tag);
    } else if (kind == static_cast<uint8_t>(RecordKind::kRetiredVersion)) {
      absl::StatusOr<RetiredVersionRecord> retired = DecodeRetiredVersionRecord(value);
      if (!retired.ok()) return Malformed(retired.status().message());
      reply.retired.push_back(std::move(*retired));
    } else {
      return Malformed(absl::StrCat("a reply record of kind ", kind, " where none may be"));
    }
  }
  return reply;
}

}  // namespace lake::registry
