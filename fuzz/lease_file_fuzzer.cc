// Fuzzes lake::gc::DecodeLeaseFile, the reader of the lease files every
// leasing process writes and garbage collection reads
// (engine/gc/lease_file_format.h).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so digests that do
// not match are not refused and the record parser behind them is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted file accounts for every byte: its records re-encode to
//      the bytes they were read from (state bytes included), and what is
//      left is the torn tail, never more than kMaxTornTailBytes.
//   3. Each record's state offset is its last byte, and it reads back as
//      the state the record has.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/gc/lease_file_format.h"

namespace {

void Check(bool property) {
  if (!property) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::gc::DecodedLeaseFile> decoded = lake::gc::DecodeLeaseFile(bytes);
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  Check(decoded->torn_tail_bytes <= lake::gc::kMaxTornTailBytes);
  Check(decoded->torn_tail_bytes <= size);
  if (decoded->pid == 0 && decoded->records.empty()) return 0;  // maybe an unfinished header
  size_t at = lake::gc::kLeaseHeaderBytes;
  for (const lake::gc::LeaseRecord& record : decoded->records) {
    std::string encoded = lake::gc::EncodeLeaseRecord(record.uri, record.leased_unix_micros);
    Check(at + encoded.size() <= size);
    // Digests are not enforced here: compare everything but them.
    std::string_view original = bytes.substr(at, encoded.size());
    size_t digest_at = encoded.size() - 9;
    Check(original.substr(0, digest_at) == std::string_view(encoded).substr(0, digest_at));
    Check(record.state_offset == at + encoded.size() - 1);
    Check(bytes[record.state_offset] ==
          (record.released ? lake::gc::kLeaseReleased : lake::gc::kLeaseHeld));
    at += encoded.size();
  }
  Check(at + decoded->torn_tail_bytes == size);
  return 0;
}
