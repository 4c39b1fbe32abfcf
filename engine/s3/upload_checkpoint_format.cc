#include "engine/s3/upload_checkpoint_format.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "base/hex.h"
#include "engine/operation_id.h"
#include "engine/s3/s3_upload.h"
#include "engine/sha256.h"
#include "engine/table/byte_codec.h"

namespace lake {
namespace {

using table::ByteReader;
using table::ByteWriter;
using table::Sha256Raw;

constexpr size_t kDigestBytes = table::kSha256RawBytes;

void Str(ByteWriter& w, std::string_view s) {
  w.U32(static_cast<uint32_t>(s.size()));
  w.Bytes(s);
}

bool Str(ByteReader& r, std::string* s, size_t max_bytes) {
  uint32_t len = 0;
  std::string_view bytes;
  if (!r.U32(&len) || len > max_bytes || !r.Bytes(len, &bytes)) return false;
  s->assign(bytes);
  return true;
}

bool I64(ByteReader& r, int64_t* v) {
  uint64_t u = 0;
  if (!r.U64(&u)) return false;
  *v = static_cast<int64_t>(u);
  return true;
}

Sha256Raw DigestOf(std::string_view bytes) {
  return *table::Sha256FromHex(Sha256Hex(bytes));
}

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(absl::StrCat("upload checkpoint is damaged: ", std::string(why)));
}

}  // namespace

uint64_t UploadCheckpoint::bytes_done() const {
  uint64_t covered = static_cast<uint64_t>(parts.size()) * part_bytes;
  return covered < source_size ? covered : source_size;
}

bool IsResumablePartBytes(uint64_t part_bytes) {
  if (part_bytes == kS3CheckpointPartBytes || part_bytes == kS3LegacyCheckpointPartBytes) {
    return true;
  }
  // Crash tests of failpoint builds use small parts (s3_upload.h).
  return part_bytes > 0 && !LAKE_FAILPOINT(kAnyPartSizeResumableFailpoint).ok();
}

absl::Status ValidateUploadCheckpoint(const UploadCheckpoint& c) {
  auto bad = [](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("upload checkpoint: ", std::string(why)));
  };
  for (const std::string* s : {&c.key, &c.upload_id, &c.bucket, &c.prefix, &c.endpoint, &c.tenant,
                               &c.content_type, &c.source_path}) {
    if (s->size() > kMaxCheckpointStringBytes) return bad("a field is too long");
  }
  if (!ParseOperationId(c.id).ok()) return bad(absl::StrCat("id ", c.id, " is not a UUIDv7"));
  if (c.key.empty() || c.upload_id.empty() || c.bucket.empty()) {
    return bad("key, upload id and bucket must be set");
  }
  if (c.source_path.empty() || c.source_path[0] != '/') {
    return bad("the source path must be absolute");
  }
  if (!IsResumablePartBytes(c.part_bytes)) {
    return bad(absl::StrCat("part size ", c.part_bytes, " is not a resumable size (",
                            kS3LegacyCheckpointPartBytes, " or ", kS3CheckpointPartBytes, ")"));
  }
  if (c.window < 1 || c.window > static_cast<uint32_t>(kS3MaxConcurrency)) {
    return bad(absl::StrCat("window ", c.window, " is outside 1..", kS3MaxConcurrency));
  }
  if (c.parts.size() > static_cast<size_t>(kS3MaxParts)) return bad("more than 10,000 parts");
  // Every recorded part but the last is full, and all lie in the source.
  if (!c.parts.empty() &&
      (static_cast<uint64_t>(c.parts.size()) - 1) * c.part_bytes >= c.source_size) {
    return bad("the recorded parts run past the source's size");
  }
  for (const CheckpointPart& part : c.parts) {
    if (part.etag.empty() || part.etag.size() > kMaxCheckpointEtagBytes) {
      return bad("a part's ETag is empty or too long");
    }
    if (!IsLowerHexSha256(part.sha256)) return bad("a part's SHA-256 is not 64 hex digits");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeUploadCheckpoint(const UploadCheckpoint& c) {
  if (absl::Status s = ValidateUploadCheckpoint(c); !s.ok()) return s;
  std::string out;
  ByteWriter w(&out);
  w.Bytes(kUploadCheckpointMagic);
  w.U32(kUploadCheckpointVersion);
  for (const std::string* s : {&c.id, &c.key, &c.upload_id, &c.bucket, &c.prefix, &c.endpoint,
                               &c.tenant, &c.content_type, &c.source_path}) {
    Str(w, *s);
  }
  w.U64(c.source_device);
  w.U64(c.source_inode);
  w.U64(c.source_size);
  w.U64(static_cast<uint64_t>(c.source_mtime_micros));
  w.U64(c.part_bytes);
  w.U32(c.window);
  w.U64(static_cast<uint64_t>(c.created_unix_micros));
  w.U64(static_cast<uint64_t>(c.updated_unix_micros));
  w.U32(static_cast<uint32_t>(c.parts.size()));
  for (const CheckpointPart& part : c.parts) {
    Str(w, part.etag);
    w.Sha256(*table::Sha256FromHex(part.sha256));
  }
  w.Sha256(DigestOf(out));
  return out;
}

absl::StatusOr<UploadCheckpoint> DecodeUploadCheckpoint(std::string_view bytes) {
  if (bytes.size() > kMaxUploadCheckpointBytes) return Damaged("it is too large");
  if (bytes.size() < kUploadCheckpointMagic.size() + 4 + kDigestBytes ||
      bytes.substr(0, kUploadCheckpointMagic.size()) != kUploadCheckpointMagic) {
    return Damaged("it does not start with the checkpoint magic");
  }
  std::string_view body = bytes.substr(0, bytes.size() - kDigestBytes);
  std::string_view digest = bytes.substr(bytes.size() - kDigestBytes);
  ByteReader r(body.substr(kUploadCheckpointMagic.size()));
  uint32_t version = 0;
  (void)r.U32(&version);
  if (version != kUploadCheckpointVersion) {
    return Damaged(absl::StrCat("version ", version, " is unknown (this lake reads ",
                                kUploadCheckpointVersion, ")"));
  }
  Sha256Raw recorded;
  std::memcpy(recorded.data(), digest.data(), kDigestBytes);
  if (table::kChecksumsEnforced && recorded != DigestOf(body)) {
    return Damaged("its digest does not match");
  }
  UploadCheckpoint c;
  for (std::string* s : {&c.id, &c.key, &c.upload_id, &c.bucket, &c.prefix, &c.endpoint, &c.tenant,
                         &c.content_type, &c.source_path}) {
    if (!Str(r, s, kMaxCheckpointStringBytes)) return Damaged("a field is cut short or too long");
  }
  uint32_t count = 0;
  if (!r.U64(&c.source_device) || !r.U64(&c.source_inode) || !r.U64(&c.source_size) ||
      !I64(r, &c.source_mtime_micros) || !r.U64(&c.part_bytes) || !r.U32(&c.window) ||
      !I64(r, &c.created_unix_micros) || !I64(r, &c.updated_unix_micros) || !r.U32(&count)) {
    return Damaged("its header is cut short");
  }
  if (count > static_cast<uint32_t>(kS3MaxParts)) return Damaged("it records more than 10,000 parts");
  c.parts.resize(count);
  for (CheckpointPart& part : c.parts) {
    Sha256Raw raw;
    if (!Str(r, &part.etag, kMaxCheckpointEtagBytes) || !r.Sha256(&raw)) {
      return Damaged("its part list is cut short");
    }
    part.sha256 = table::Sha256ToHex(raw);
  }
  if (r.remaining() != 0) return Damaged("bytes follow its last part");
  if (absl::Status s = ValidateUploadCheckpoint(c); !s.ok()) return Damaged(std::string(s.message()));
  return c;
}

}  // namespace lake
