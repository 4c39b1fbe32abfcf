// The values the registry stores in RocksDB (keys: registry_keys.h).
//
// Format note (version 1). Every value is
//   value  = format_version:u8  kind:u8  body  digest:8
//   digest = the first 8 bytes of SHA-256(format_version kind body)
// with u64/i64 as 8 bytes little-endian, u32 as 4 bytes little-endian, and
// str = len:u32 bytes. The bodies, by kind:
//   1 stage descriptor  str descriptor_json
//   2 namespace         str name, i64 created_unix_micros
//   3 table             u64 table_id, str ns, str table, schema,
//                       u64 current_version, str manifest_path,
//                       i64 created_unix_micros
//                       schema = u32 column_count, column_count x
//                                (str name, u8 column type code)
//   4 table id index    str ns, str table
//   5 version           u64 table_id, u64 version, u64 parent_version,
//                       str manifest_path, str reference_delta_sha256,
//                       str operation_id, i64 committed_unix_micros
//   6 append operation  str operation_id, u64 table_id, u64 version,
//                       str batch_sha256, i64 committed_unix_micros
//   7 counter           u64 next value
//   8 dropped table     the body of kind 3 (the table as it was dropped),
//                       i64 dropped_unix_micros
//   9 tag               u64 table_id, str tag, u64 version,
//                       i64 created_unix_micros
//  10 retired version   u64 table_id, u64 version, i64 retired_unix_micros
//  11 reference base    u64 table_id, u64 version, str snapshot_sha256,
//                       i64 written_unix_micros
//  12 deferred mark     u64 table_id, str boot_id, i64 marked_unix_micros
//
// Decoders fail closed with DataLoss on an unknown format version, a digest
// that does not match, another kind than expected, a short or long body, or
// content that does not validate (names, schema, digests, limits below).
// Encoding is canonical: one record has exactly one encoding, so a digest
// over encodings (Registry::Fingerprint) is a digest over the records.
#ifndef LAKE_REGISTRY_REGISTRY_RECORDS_H_
#define LAKE_REGISTRY_REGISTRY_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "schema/table_schema.h"

namespace lake::registry {

inline constexpr uint8_t kRecordFormatVersion = 1;

enum class RecordKind : uint8_t {
  kStageDescriptor = 1,
  kNamespace = 2,
  kTable = 3,
  kTableIdIndex = 4,
  kVersion = 5,
  kAppendOperation = 6,
  kCounter = 7,
  kDroppedTable = 8,
  kTag = 9,
  kRetiredVersion = 10,
  kReferenceBase = 11,
  kDeferredMark = 12,
};

// Bounds on stored text, so a damaged length can never ask for more.
// A stage descriptor is a few hundred bytes of JSON; 64 KiB is ample.
inline constexpr size_t kMaxStageDescriptorBytes = 64 * 1024;
// PATH_MAX on Linux.
inline constexpr size_t kMaxManifestPathBytes = 4096;
// Operation ids are made by the engine or its caller (UUIDs, digests).
inline constexpr size_t kMaxOperationIdBytes = 256;
// A boot id is Linux's 36-character UUID text; tests stand in others.
inline constexpr size_t kMaxBootIdBytes = 64;

// A table's registration. Version 0 is the empty table a registration
// starts at; it has no manifest (manifest_path is empty) and no version
// record. Every later version has a manifest.
struct TableRecord {
  uint64_t table_id = 0;
  table::TableName name;
  table::Schema schema;
  uint64_t current_version = 0;
  std::string manifest_path;
  int64_t created_unix_micros = 0;

  bool operator==(const TableRecord&) const = default;
};

// One committed version (>= 1) of a table. parent_version is the version it
// was committed on; reference_delta_sha256 is the digest of its reference
// delta (parent → this version); operation_id names the append operation
// that produced it, or is empty for a commit that was no append.
struct VersionRecord {
  uint64_t version = 0;
  uint64_t parent_version = 0;
  std::string manifest_path;
  std::string reference_delta_sha256;
  std::string operation_id;
  int64_t committed_unix_micros = 0;

  bool operator==(const VersionRecord&) const = default;
};

// The idempotency record of one append: which version of which table the
// operation produced, and the digest of the batch it appended.
struct AppendOperationRecord {
  std::string operation_id;
  uint64_t table_id = 0;
  uint64_t version = 0;
  std::string batch_sha256;
  int64_t committed_unix_micros = 0;

  bool operator==(const AppendOperationRecord&) const = default;
};

// A dropped table: its registration as it was when dropped (its id and
// version records stay, so the collector can still read what it referenced)
// and the drop's commit time, from which the collection cutoff runs.
struct DroppedTableRecord {
  TableRecord table;
  int64_t dropped_unix_micros = 0;

  bool operator==(const DroppedTableRecord&) const = default;
};

// A tag: a name pinning one version of a table, so no expiry retires it.
// Tag names are identifiers, unique per table.
struct TagRecord {
  uint64_t table_id = 0;
  std::string tag;
  uint64_t version = 0;
  int64_t created_unix_micros = 0;

  bool operator==(const TagRecord&) const = default;
};

// A version an expiry retired: it can no longer be read, and what only it
// kept alive becomes the collector's once the cutoff has passed since
// retired_unix_micros (the expiry's commit time).
struct RetiredVersionRecord {
  uint64_t table_id = 0;
  uint64_t version = 0;
  int64_t retired_unix_micros = 0;

  bool operator==(const RetiredVersionRecord&) const = default;
};

// Where a table's reference lineage replay starts: the reference snapshot
// (engine/table/reference_snapshot_format.h) of `version`, whose digest is
// snapshot_sha256, stands for the deltas of every version up to it.
struct ReferenceBaseRecord {
  uint64_t table_id = 0;
  uint64_t version = 0;
  std::string snapshot_sha256;
  int64_t written_unix_micros = 0;

  bool operator==(const ReferenceBaseRecord&) const = default;
};

// A table whose commits may not be synced yet (Registry's deferred
// commits): made by the owner of the registry while the machine ran the
// boot `boot_id`. A power loss during that boot may have lost them.
struct DeferredMarkRecord {
  uint64_t table_id = 0;
  std::string boot_id;
  int64_t marked_unix_micros = 0;

  bool operator==(const DeferredMarkRecord&) const = default;
};

struct NamespaceRecord {
  std::string name;
  int64_t created_unix_micros = 0;

  bool operator==(const NamespaceRecord&) const = default;
};

// Content checks shared by callers (InvalidArgument naming `what`) and
// decoders (which turn them into DataLoss).
// 1..kMaxStageDescriptorBytes bytes (the engine owns its meaning).
absl::Status ValidateStageDescriptorJson(std::string_view json);
// 64 lowercase hex digits.
absl::Status ValidateSha256Hex(std::string_view text, std::string_view what);
// 1..kMaxOperationIdBytes printable ASCII bytes without spaces (0x21..0x7e).
absl::Status ValidateOperationId(std::string_view text);
// 1..kMaxManifestPathBytes bytes without NUL.
absl::Status ValidateManifestPath(std::string_view text);
// Everything a stored record must satisfy (names, schema, version 0 ⇔ no
// manifest, digests, ids, limits).
absl::Status ValidateTableRecord(const TableRecord& record);
absl::Status ValidateVersionRecord(const VersionRecord& record);
absl::Status ValidateAppendOperationRecord(const AppendOperationRecord& record);
absl::Status ValidateTagRecord(const TagRecord& record);
absl::Status ValidateRetiredVersionRecord(const RetiredVersionRecord& record);
absl::Status ValidateReferenceBaseRecord(const ReferenceBaseRecord& record);
// 1..kMaxBootIdBytes printable ASCII bytes without spaces.
absl::Status ValidateBootId(std::string_view boot_id);
absl::Status ValidateDeferredMarkRecord(const DeferredMarkRecord& record);

// Encoders take valid records (checked by the caller).
std::string EncodeStageDescriptorRecord(std::string_view descriptor_json);
std::string EncodeNamespaceRecord(const NamespaceRecord& record);
std::string EncodeTableRecord(const TableRecord& record);
std::string EncodeTableIdIndexRecord(const table::TableName& name);
std::string EncodeVersionRecord(uint64_t table_id, const VersionRecord& record);
std::string EncodeAppendOperationRecord(const AppendOperationRecord& record);
std::string EncodeCounterRecord(uint64_t next);
std::string EncodeDroppedTableRecord(const DroppedTableRecord& record);
std::string EncodeTagRecord(const TagRecord& record);
std::string EncodeRetiredVersionRecord(const RetiredVersionRecord& record);
std::string EncodeReferenceBaseRecord(const ReferenceBaseRecord& record);
std::string EncodeDeferredMarkRecord(const DeferredMarkRecord& record);

// Decoders: DataLoss as described above.
absl::StatusOr<std::string> DecodeStageDescriptorRecord(std::string_view value);
absl::StatusOr<NamespaceRecord> DecodeNamespaceRecord(std::string_view value);
absl::StatusOr<TableRecord> DecodeTableRecord(std::string_view value);
absl::StatusOr<table::TableName> DecodeTableIdIndexRecord(std::string_view value);
absl::StatusOr<DroppedTableRecord> DecodeDroppedTableRecord(std::string_view value);
// A version record stored under table `table_id`: a record naming another
// table is DataLoss.
absl::StatusOr<VersionRecord> DecodeVersionRecord(std::string_view value,
                                                  uint64_t table_id);
absl::StatusOr<AppendOperationRecord> DecodeAppendOperationRecord(
    std::string_view value);
absl::StatusOr<uint64_t> DecodeCounterRecord(std::string_view value);
absl::StatusOr<TagRecord> DecodeTagRecord(std::string_view value);
absl::StatusOr<RetiredVersionRecord> DecodeRetiredVersionRecord(std::string_view value);
absl::StatusOr<ReferenceBaseRecord> DecodeReferenceBaseRecord(std::string_view value);
absl::StatusOr<DeferredMarkRecord> DecodeDeferredMarkRecord(std::string_view value);

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_REGISTRY_RECORDS_H_
