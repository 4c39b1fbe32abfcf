// The lease file format; the layout is in the header.
#include "engine/gc/lease_file_format.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "engine/location_uri.h"
#include "engine/table/byte_codec.h"

namespace lake::gc {
namespace {

using table::ByteReader;
using table::ByteWriter;
using table::Checksum64;
using table::kChecksumsEnforced;

bool DigestMatches(std::string_view covered, uint64_t digest) {
  return !kChecksumsEnforced || Checksum64(covered) == digest;
}

// The header at the front of `bytes`, or why not.
absl::StatusOr<uint32_t> DecodeHeader(std::string_view bytes) {
  ByteReader r(bytes);
  std::string_view magic;
  uint32_t version = 0, pid = 0;
  uint64_t digest = 0;
  if (!r.Bytes(kLeaseFileMagic.size(), &magic) || !r.U32(&version) || !r.U32(&pid) ||
      !r.U64(&digest)) {
    return absl::DataLossError("the header is incomplete");
  }
  if (magic != kLeaseFileMagic) return absl::DataLossError("not a lease file (bad magic)");
  if (!DigestMatches(bytes.substr(0, kLeaseHeaderBytes - 8), digest)) {
    return absl::DataLossError("the header's digest does not match");
  }
  if (version != kLeaseFileVersion) {
    return absl::DataLossError(absl::StrCat("lease file version ", version, " is not ",
                                            kLeaseFileVersion, ", the one this lake knows"));
  }
  return pid;
}

// The record at the front of `bytes`, or why not.
absl::StatusOr<LeaseRecord> DecodeRecord(std::string_view bytes, size_t* record_bytes) {
  ByteReader r(bytes);
  uint32_t uri_bytes = 0;
  uint64_t leased_at = 0, digest = 0;
  std::string_view uri;
  uint8_t state = 0;
  if (!r.U32(&uri_bytes)) return absl::DataLossError("a record is incomplete");
  if (uri_bytes == 0) return absl::DataLossError("the records end (zero padding)");
  if (uri_bytes > kMaxLeaseUriBytes) {
    return absl::DataLossError(absl::StrCat("a record's URI length ", uri_bytes,
                                            " is outside 1..", kMaxLeaseUriBytes));
  }
  if (!r.U64(&leased_at) || !r.Bytes(uri_bytes, &uri) || !r.U64(&digest) || !r.U8(&state)) {
    return absl::DataLossError("a record is incomplete");
  }
  if (!DigestMatches(bytes.substr(0, 4 + 8 + uri_bytes), digest)) {
    return absl::DataLossError("a record's digest does not match");
  }
  if (state != kLeaseHeld && state != kLeaseReleased) {
    return absl::DataLossError(absl::StrCat("a record's state byte is ", state));
  }
  if (absl::Status s = CheckLocationUri(uri); !s.ok()) {
    return absl::DataLossError(absl::StrCat("a record's URI is invalid: ", s.message()));
  }
  *record_bytes = r.position();
  LeaseRecord record;
  record.uri = std::string(uri);
  record.leased_unix_micros = static_cast<int64_t>(leased_at);
  record.released = state == kLeaseReleased;
  return record;
}

}  // namespace

std::string EncodeLeaseFileHeader(uint32_t pid) {
  std::string out;
  ByteWriter w(&out);
  w.Bytes(kLeaseFileMagic);
  w.U32(kLeaseFileVersion);
  w.U32(pid);
  w.U64(Checksum64(out));
  return out;
}

std::string EncodeLeaseRecord(std::string_view uri, int64_t leased_unix_micros) {
  std::string out;
  out.reserve(kLeaseRecordOverheadBytes + uri.size());
  ByteWriter w(&out);
  w.U32(static_cast<uint32_t>(uri.size()));
  w.U64(static_cast<uint64_t>(leased_unix_micros));
  w.Bytes(uri);
  w.U64(Checksum64(out));
  w.U8(static_cast<uint8_t>(kLeaseHeld));
  return out;
}

absl::StatusOr<DecodedLeaseFile> DecodeLeaseFile(std::string_view bytes) {
  DecodedLeaseFile file;
  // The records end at `at`: what follows is zeros, or a torn tail close
  // to `at` (see the header). `why` is what ended them.
  auto end_at = [&](size_t at, const absl::Status& why) -> absl::Status {
    file.records_end = at;
    size_t zeros_from = std::min(bytes.size(), at + kMaxTornTailBytes);
    size_t stray = bytes.find_first_not_of('\0', zeros_from);
    if (stray != std::string_view::npos) {
      return absl::DataLossError(absl::StrCat("the lease file is damaged at byte ", at, ": ",
                                              why.message(), " (byte ", stray, " is not zero)"));
    }
    file.torn_tail = bytes.find_first_not_of('\0', at) != std::string_view::npos;
    return absl::OkStatus();
  };
  absl::StatusOr<uint32_t> pid = DecodeHeader(bytes);
  if (!pid.ok()) {
    if (absl::Status s = end_at(0, pid.status()); !s.ok()) return s;
    return file;
  }
  file.pid = *pid;
  size_t at = kLeaseHeaderBytes;
  for (;;) {
    size_t record_bytes = 0;
    absl::StatusOr<LeaseRecord> record = DecodeRecord(bytes.substr(at), &record_bytes);
    if (!record.ok()) {
      if (absl::Status s = end_at(at, record.status()); !s.ok()) return s;
      return file;
    }
    record->state_offset = at + record_bytes - 1;
    file.records.push_back(std::move(*record));
    at += record_bytes;
  }
}

}  // namespace lake::gc
