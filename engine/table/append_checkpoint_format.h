// Append checkpoints: what an append persists after all its uploads and
// before its first commit attempt, so that after a crash the same
// operation can be replayed — and recognised by its operation id if it
// had committed after all.
//
// A checkpoint holds the operation id, the table, the table version the
// append was prepared against, the stage identity and the encoded batch.
// It never holds object bytes (FILE cells are DataLocations: uri, size,
// digest) and never credentials: the stage identity must be the canonical
// text of a stage descriptor, which has no field for a secret.
//
// Format (version 1); integers little-endian, lengths in bytes:
//   magic           8 bytes        "LAKEAPCK"
//   format_version  u32            1
//   operation_id    u32 length +   exactly 36: a canonical UUIDv7
//                   bytes          (ParseOperationId)
//   table_name      u32 length +   "ns.table" as ParseTableName prints it
//                   bytes
//   table_id        u64
//   base_version    u64            the table version the append was
//                                  prepared against
//   stage_identity  u32 length +   1..32 KiB: canonical stage descriptor
//                   bytes          JSON (StageDescriptorToJson)
//   batch_sha256    64 bytes       lowercase hex SHA-256 of batch
//   batch           u64 length +   0..64 MiB, opaque here
//                   bytes
//   digest          64 bytes       lowercase hex SHA-256 of every byte
//                                  before it
// Nothing follows the digest. (Format version 2, a table log record that
// names its batch's fragment record instead of holding it, is
// append_record_format.h's: a file never holds one.) A decoder refuses, as
// DataLoss, another magic or version, any length out of bounds or past the end, trailing
// bytes, either digest not matching, and any field that does not validate.
#ifndef LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_FORMAT_H_
#define LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "schema/table_schema.h"

namespace lake::table {

inline constexpr std::string_view kAppendCheckpointMagic = "LAKEAPCK";
inline constexpr uint32_t kAppendCheckpointFormatVersion = 1;

// An append's encoded batch is bounded so that recovery can hold one
// checkpoint in memory whole.
inline constexpr uint64_t kMaxCheckpointedBatchBytes = uint64_t{64} << 20;
// A canonical stage descriptor is a few hundred bytes; the root's stage
// record allows the same.
inline constexpr size_t kMaxStageIdentityBytes = 32 * 1024;
// Two identifiers and their dot.
inline constexpr size_t kMaxCheckpointTableNameBytes = 2 * kMaxIdentifierBytes + 1;
// The largest checkpoint file: the batch plus every other field, with room
// to spare (the fields other than the batch take at most ~33 KiB).
inline constexpr uint64_t kMaxAppendCheckpointBytes = kMaxCheckpointedBatchBytes + 64 * 1024;

struct AppendCheckpoint {
  uint32_t format_version = kAppendCheckpointFormatVersion;
  std::string operation_id;    // canonical UUIDv7 text
  std::string table_name;      // "ns.table"
  uint64_t table_id = 0;
  uint64_t base_version = 0;   // the table version the append was prepared against
  std::string stage_identity;  // canonical stage descriptor JSON, credential-free
  std::string batch;           // the encoded batch, opaque here
  std::string batch_sha256;    // Sha256Hex(batch) (engine/sha256.h)

  bool operator==(const AppendCheckpoint&) const = default;
};

// What makes a field other than the batch and its digest unwritable (or,
// read back, damaged): another format_version, an operation id that is not
// canonical, a table name that is not, a stage identity that is not a
// canonical stage descriptor. nullopt if nothing. (A checkpoint record that
// names its batch instead of holding it checks these alone on its way out:
// append_record_format.h.)
std::optional<std::string> AppendCheckpointIdentityProblem(const AppendCheckpoint& checkpoint);

// The bytes of `checkpoint`. InvalidArgument, naming the field, when a
// field would not decode: another format_version, an operation id that is
// not canonical, a table name that is not, a stage identity that is not a
// canonical stage descriptor, a batch over the ceiling, or batch_sha256
// not the digest of batch.
absl::StatusOr<std::string> EncodeAppendCheckpoint(const AppendCheckpoint& checkpoint);

// The checkpoint in `bytes`, verified (format above); DataLoss otherwise.
absl::StatusOr<AppendCheckpoint> DecodeAppendCheckpoint(std::string_view bytes);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_FORMAT_H_
