// The append checkpoint format; the layout is in the header.
#include "engine/table/append_checkpoint_format.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "engine/operation_id.h"
#include "engine/sha256.h"
#include "engine/stage_descriptor.h"

namespace lake::table {
namespace {

constexpr size_t kSha256HexBytes = 64;

// Every field but the batch at its largest, as a check on the overhead
// allowance of kMaxAppendCheckpointBytes.
constexpr uint64_t kMaxFixedOverhead = kAppendCheckpointMagic.size() + 4 +
                                       (4 + kOperationIdLength) +
                                       (4 + kMaxCheckpointTableNameBytes) + 8 + 8 +
                                       (4 + kMaxStageIdentityBytes) + kSha256HexBytes + 8 +
                                       kSha256HexBytes;
static_assert(kMaxCheckpointedBatchBytes + kMaxFixedOverhead <= kMaxAppendCheckpointBytes);

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// Bounds-checked reads from the front of the checkpoint bytes; every read
// past the end fails rather than reading.
class FieldReader {
 public:
  explicit FieldReader(std::string_view bytes) : rest_(bytes) {}

  size_t consumed(std::string_view whole) const { return whole.size() - rest_.size(); }
  bool empty() const { return rest_.empty(); }

  std::optional<std::string_view> Take(uint64_t n) {
    if (n > rest_.size()) return std::nullopt;
    std::string_view taken = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return taken;
  }
  std::optional<uint64_t> Uint(int bytes) {
    std::optional<std::string_view> raw = Take(bytes);
    if (!raw) return std::nullopt;
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>((*raw)[i]);
    return v;
  }
  // A length-prefixed field of at most `max` bytes.
  std::optional<std::string_view> Field(int length_bytes, uint64_t max) {
    std::optional<uint64_t> n = Uint(length_bytes);
    if (!n || *n > max) return std::nullopt;
    return Take(*n);
  }

 private:
  std::string_view rest_;
};

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(
      absl::StrCat("append checkpoint is damaged: ", std::string(why)));
}

// What makes a field unwritable (or, read back, damaged); nullopt if none.
std::optional<std::string> FieldProblem(const AppendCheckpoint& c) {
  if (std::optional<std::string> problem = AppendCheckpointIdentityProblem(c)) return problem;
  if (c.batch.size() > kMaxCheckpointedBatchBytes) {
    return absl::StrCat("batch is larger than ", kMaxCheckpointedBatchBytes, " bytes");
  }
  if (c.batch_sha256 != Sha256Hex(c.batch)) return "batch_sha256 is not the digest of batch";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> AppendCheckpointIdentityProblem(const AppendCheckpoint& c) {
  if (c.format_version != kAppendCheckpointFormatVersion) {
    return absl::StrCat("format_version ", c.format_version, " is not ",
                        kAppendCheckpointFormatVersion);
  }
  if (absl::Status s = ParseOperationId(c.operation_id).status(); !s.ok()) {
    return std::string(s.message());
  }
  absl::StatusOr<TableName> table = ParseTableName(c.table_name);
  if (!table.ok()) return absl::StrCat("table_name: ", table.status().message());
  if (table->ToString() != c.table_name) return "table_name is not in canonical form";
  if (c.stage_identity.empty() || c.stage_identity.size() > kMaxStageIdentityBytes) {
    return absl::StrCat("stage_identity must be 1..", kMaxStageIdentityBytes, " bytes");
  }
  absl::StatusOr<StageDescriptor> stage = StageDescriptorFromJson(c.stage_identity);
  if (!stage.ok()) return absl::StrCat("stage_identity: ", stage.status().message());
  if (StageDescriptorToJson(*stage) != c.stage_identity) {
    return "stage_identity is not a canonical stage descriptor";
  }
  return std::nullopt;
}

absl::StatusOr<std::string> EncodeAppendCheckpoint(const AppendCheckpoint& c) {
  if (std::optional<std::string> problem = FieldProblem(c)) {
    return absl::InvalidArgumentError(absl::StrCat("append checkpoint: ", *problem));
  }
  std::string out;
  out.reserve(c.batch.size() + kMaxFixedOverhead);
  out.append(kAppendCheckpointMagic);
  PutU32(out, c.format_version);
  PutU32(out, static_cast<uint32_t>(c.operation_id.size()));
  out.append(c.operation_id);
  PutU32(out, static_cast<uint32_t>(c.table_name.size()));
  out.append(c.table_name);
  PutU64(out, c.table_id);
  PutU64(out, c.base_version);
  PutU32(out, static_cast<uint32_t>(c.stage_identity.size()));
  out.append(c.stage_identity);
  out.append(c.batch_sha256);
  PutU64(out, c.batch.size());
  out.append(c.batch);
  out.append(Sha256Hex(out));
  return out;
}

absl::StatusOr<AppendCheckpoint> DecodeAppendCheckpoint(std::string_view bytes) {
  if (bytes.size() > kMaxAppendCheckpointBytes) return Damaged("larger than its ceiling");
  FieldReader in(bytes);
  if (in.Take(kAppendCheckpointMagic.size()) != kAppendCheckpointMagic) {
    return Damaged("not an append checkpoint (bad magic)");
  }
  AppendCheckpoint c;
  std::optional<uint64_t> version = in.Uint(4);
  if (!version) return Damaged("truncated");
  if (*version != kAppendCheckpointFormatVersion) {
    return Damaged(absl::StrCat("unknown format version ", *version, " (this lake reads ",
                                kAppendCheckpointFormatVersion, ")"));
  }
  c.format_version = static_cast<uint32_t>(*version);
  std::optional<std::string_view> operation_id = in.Field(4, kOperationIdLength);
  std::optional<std::string_view> table_name = in.Field(4, kMaxCheckpointTableNameBytes);
  std::optional<uint64_t> table_id = in.Uint(8);
  std::optional<uint64_t> base_version = in.Uint(8);
  std::optional<std::string_view> stage_identity = in.Field(4, kMaxStageIdentityBytes);
  std::optional<std::string_view> batch_sha256 = in.Take(kSha256HexBytes);
  std::optional<std::string_view> batch = in.Field(8, kMaxCheckpointedBatchBytes);
  size_t digested = in.consumed(bytes);
  std::optional<std::string_view> digest = in.Take(kSha256HexBytes);
  if (!operation_id || !table_name || !table_id || !base_version || !stage_identity ||
      !batch_sha256 || !batch || !digest) {
    return Damaged("a field is truncated or longer than its bound");
  }
  if (!in.empty()) return Damaged("bytes follow the digest");
  if (Sha256Hex(bytes.substr(0, digested)) != *digest) {
    return Damaged("its digest does not match its content");
  }
  c.operation_id = std::string(*operation_id);
  c.table_name = std::string(*table_name);
  c.table_id = *table_id;
  c.base_version = *base_version;
  c.stage_identity = std::string(*stage_identity);
  c.batch_sha256 = std::string(*batch_sha256);
  c.batch = std::string(*batch);
  if (std::optional<std::string> problem = FieldProblem(c)) return Damaged(*problem);
  return c;
}

}  // namespace lake::table
