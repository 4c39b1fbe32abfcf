// The forwarded-write records: what a writer process that does not own the
// root's registry sends its owner (writer_channel.h), and the owner's reply.
//
// Format note (version 1). Each message travels in one frame:
//   frame   = length:u32 message          (length <= kMaxForwardedMessageBytes)
//   message = format_version:u8 kind:u8 body
// with the fields of record_fields.h (u32/u64 little-endian; str =
// len:u32 bytes). Requests, by kind:
//   1 put stage descriptor  str descriptor_json
//   2 create namespace      str name
//   3 create table          str ns, str table, schema
//   4 commit version        u64 table_id, u64 expected_current_version,
//                           str version record (a registry_records.h value,
//                           kind 5, of table_id), u8 has_operation (0 | 1),
//                           [str append operation record (kind 6 value)]
//   5 drop table            str ns, str table
//   6 tag version           u64 table_id, str tag, u64 version
//   7 untag version         u64 table_id, str tag
//   8 retire versions       u64 table_id, u64 expected_current_version,
//                           u32 count (<= kMaxForwardedRecords),
//                           count x u64 version, u8 has_base (0 | 1),
//                           [str reference base record (kind 11 value)]
//   9 clear deferred mark   str deferred mark record (kind 12 value)
//  10 commit version,       as kind 4; the owner commits it deferred
//     deferred              (registry.h). An owner older than kind 10
//                           refuses it unread (InvalidArgument).
// The reply (kind 128):
//   u32 status code (absl::StatusCode, 0..16), str message,
//   u32 payload_count (<= kMaxForwardedPayloads),
//       payload_count x (str type_url, str bytes)   (absl::Status payloads:
//       the typed commit errors of commit_errors.h cross as they are),
//   u32 record_count (<= kMaxForwardedRecords),
//       record_count x (u8 kind, str value): registry_records.h values of
//       kind 3 (a table), 8 (a dropped table), 9 (a tag) — at most one of
//       those — or 10 (retired versions, any number)
// No digest: the records inside carry theirs, and the channel is a local
// socket. Decoders fail closed (InvalidArgument) on an unknown version or
// kind, a short or long message, a length or count out of range, and
// anything the embedded records' own decoders refuse.
#ifndef LAKE_REGISTRY_WRITER_CHANNEL_FORMAT_H_
#define LAKE_REGISTRY_WRITER_CHANNEL_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "registry/registry_records.h"
#include "schema/table_schema.h"

namespace lake::registry {

inline constexpr uint8_t kForwardedFormatVersion = 1;
// The largest message: a create table of kMaxColumns long names, or a
// commit of two records with 4 KiB paths, is far below it.
// An expiry of kMaxForwardedRecords versions replies with as many retired
// version records (~40 bytes each).
inline constexpr size_t kMaxForwardedMessageBytes = size_t{8} << 20;
inline constexpr size_t kMaxForwardedRecords = 100000;
inline constexpr size_t kMaxForwardedPayloads = 8;
// Bounds on a reply's text: an error message and a payload.
inline constexpr size_t kMaxForwardedTextBytes = 64 * 1024;

enum class ForwardedKind : uint8_t {
  kPutStageDescriptor = 1,
  kCreateNamespace = 2,
  kCreateTable = 3,
  kCommitVersion = 4,
  kDropTable = 5,
  kTagVersion = 6,
  kUntagVersion = 7,
  kRetireVersions = 8,
  kClearDeferredMark = 9,
  kCommitVersionDeferred = 10,
};

// Every field has an initializer, so a write names only its kind's fields
// ({.kind = ..., .name = ...}).
struct ForwardedWrite {
  ForwardedKind kind = ForwardedKind::kCreateNamespace;
  std::string text = {};  // kPutStageDescriptor: the JSON; kCreateNamespace: the name
  table::TableName name = {};  // kCreateTable, kDropTable
  table::Schema schema = {};   // kCreateTable
  // kCommitVersion, kCommitVersionDeferred:
  uint64_t table_id = 0;
  uint64_t expected_current_version = 0;
  VersionRecord next = {};
  std::optional<AppendOperationRecord> operation = {};
  // kTagVersion, kUntagVersion (table_id too):
  std::string tag = {};
  uint64_t version = 0;  // kTagVersion
  // kRetireVersions (table_id, expected_current_version too):
  std::vector<uint64_t> versions = {};
  std::optional<ReferenceBaseRecord> base = {};
  DeferredMarkRecord mark = {};  // kClearDeferredMark
};

struct ForwardedReply {
  absl::Status status;
  std::optional<TableRecord> table;
  std::optional<DroppedTableRecord> dropped;
  std::optional<TagRecord> tag;
  std::vector<RetiredVersionRecord> retired;
};

std::string EncodeForwardedWrite(const ForwardedWrite& write);
absl::StatusOr<ForwardedWrite> DecodeForwardedWrite(std::string_view message);
std::string EncodeForwardedReply(const ForwardedReply& reply);
absl::StatusOr<ForwardedReply> DecodeForwardedReply(std::string_view message);

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_WRITER_CHANNEL_FORMAT_H_
