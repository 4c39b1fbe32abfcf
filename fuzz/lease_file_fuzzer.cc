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
//      the bytes they were read from (state bytes included) up to
//      records_end, and after that every byte is zero but for a torn tail
//      of at most kMaxTornTailBytes.
//   3. Each record's state offset is its last byte, and it reads back as
//      the state the record has.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/gc/lease_file_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::gc::DecodedLeaseFile> decoded = lake::gc::DecodeLeaseFile(bytes);
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  Check(decoded->records_end <= size);
  size_t zeros_from = std::min<size_t>(size, decoded->records_end + lake::gc::kMaxTornTailBytes);
  Check(bytes.find_first_not_of('\0', zeros_from) == std::string_view::npos);
  Check(decoded->torn_tail ==
        (bytes.find_first_not_of('\0', decoded->records_end) != std::string_view::npos));
  if (decoded->records_end == 0) {  // an unfinished header
    Check(decoded->records.empty());
    return 0;
  }
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
  Check(at == decoded->records_end);
  return 0;
}
