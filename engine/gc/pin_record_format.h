// The pin record format: one file per pinned object (pin_store.h), written
// once, durably, and removed when the object is unpinned.
//
// Format (version 1); integers little-endian:
//   magic        8 bytes    "LAKEPIN1"
//   version      u32        1
//   uri_bytes    u32        1..kMaxPinUriBytes
//   uri          uri_bytes  a canonical location URI (CheckLocationUri)
//   pinned_at    i64        Unix microseconds when it was pinned
//   digest       u64        XXH3-64 of every byte before it
// Nothing follows the digest. A decoder refuses, as DataLoss, another magic
// or version, a length out of bounds or past the end, trailing bytes, a
// digest that does not match and an invalid URI.
#ifndef LAKE_ENGINE_GC_PIN_RECORD_FORMAT_H_
#define LAKE_ENGINE_GC_PIN_RECORD_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::gc {

inline constexpr std::string_view kPinRecordMagic = "LAKEPIN1";
inline constexpr uint32_t kPinRecordVersion = 1;
inline constexpr size_t kMaxPinUriBytes = 4096;
inline constexpr size_t kMaxPinRecordBytes = 8 + 4 + 4 + kMaxPinUriBytes + 8 + 8;

struct PinRecord {
  std::string uri;
  int64_t pinned_unix_micros = 0;
};

// Precondition: the URI passes CheckLocationUri and is at most
// kMaxPinUriBytes.
std::string EncodePinRecord(const PinRecord& pin);
absl::StatusOr<PinRecord> DecodePinRecord(std::string_view bytes);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PIN_RECORD_FORMAT_H_
