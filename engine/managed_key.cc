#include "engine/managed_key.h"

#include <openssl/rand.h>

#include <chrono>
#include <cstdlib>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "engine/location_uri.h"

namespace lake {

namespace {

// The time and counter of the last UUIDv7 this process made (RFC 9562,
// 6.2, method 1: a 12-bit counter in rand_a). Within one millisecond the
// counter rises from a random start below 2^11; a new millisecond draws a
// new start. The time never goes below the last one handed out (a clock
// stepped back keeps the last time), and a counter that would pass 2^12
// waits for the next millisecond, so an id's time is ahead of the clock
// that made it only while that clock is behind one it read before.
struct UuidV7Sequence {
  uint64_t millis = 0;
  uint16_t counter = 0;
};
ABSL_CONST_INIT absl::Mutex uuid_v7_mu(absl::kConstInit);
UuidV7Sequence uuid_v7_last ABSL_GUARDED_BY(uuid_v7_mu);

uint64_t NowUnixMillis() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// The next (millis, counter) of this process's sequence; `random_start`
// (below 2^11) starts the counter of a new millisecond.
UuidV7Sequence NextUuidV7Sequence(uint16_t random_start) {
  for (;;) {
    uint64_t now = NowUnixMillis();
    absl::MutexLock lock(&uuid_v7_mu);
    if (now > uuid_v7_last.millis) {
      uuid_v7_last = UuidV7Sequence{now, random_start};
      return uuid_v7_last;
    }
    if (uuid_v7_last.counter < 0xFFF) {
      ++uuid_v7_last.counter;
      return uuid_v7_last;
    }
    if (now < uuid_v7_last.millis) {
      // The clock is behind (stepped back): the ids are ahead of it
      // already, and waiting for it could take long.
      uuid_v7_last = UuidV7Sequence{uuid_v7_last.millis + 1, random_start};
      return uuid_v7_last;
    }
    // 2^11 or more ids in this millisecond: the next one waits for the clock.
  }
}

}  // namespace

std::string NewUuidV7() {
  uint8_t bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) std::abort();
  UuidV7Sequence sequence =
      NextUuidV7Sequence(static_cast<uint16_t>(((bytes[6] << 8) | bytes[7]) & 0x7FF));
  for (int i = 0; i < 6; ++i) {
    bytes[i] = static_cast<uint8_t>(sequence.millis >> (8 * (5 - i)));
  }
  bytes[6] = static_cast<uint8_t>(0x70 | (sequence.counter >> 8));  // version 7
  bytes[7] = static_cast<uint8_t>(sequence.counter);
  bytes[8] = static_cast<uint8_t>(0x80 | (bytes[8] & 0x3F));  // variant 10
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    text.push_back(kHex[bytes[i] >> 4]);
    text.push_back(kHex[bytes[i] & 15]);
  }
  return text;
}

absl::Status ValidateTenant(std::string_view tenant) {
  if (tenant.empty() || tenant.size() > kMaxTenantBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("tenant must be 1..", kMaxTenantBytes, " bytes"));
  }
  if (tenant == "." || tenant == "..") {
    return absl::InvalidArgumentError("tenant must not be \".\" or \"..\"");
  }
  if (!IsValidUtf8(tenant)) {
    return absl::InvalidArgumentError("tenant must be valid UTF-8");
  }
  for (unsigned char c : tenant) {
    if (c == '/' || c < 0x20 || c == 0x7F) {
      return absl::InvalidArgumentError(
          "tenant must not contain '/' or control characters");
    }
  }
  return absl::OkStatus();
}

std::string ObjectsPrefix(std::string_view tenant) {
  if (tenant.empty()) return std::string(kObjectsDir);
  return absl::StrCat(std::string(kTenantsDir), "/", std::string(tenant), "/",
                      std::string(kObjectsDir));
}

std::string NewManagedObjectKey(std::string_view tenant) {
  std::string uuid = NewUuidV7();
  return absl::StrCat(ObjectsPrefix(tenant), "/", uuid.substr(34), "/", uuid);
}

bool IsManagedKey(std::string_view key, std::string_view tenant) {
  if (!tenant.empty()) return IsStrictlyBeneath(key, ObjectsPrefix(tenant));
  if (IsStrictlyBeneath(key, kObjectsDir)) return true;
  // tenants/<tenant>/objects/…
  if (!IsStrictlyBeneath(key, kTenantsDir)) return false;
  std::string_view rest = key.substr(kTenantsDir.size() + 1);
  size_t slash = rest.find('/');
  return slash != std::string_view::npos && slash > 0 &&
         IsStrictlyBeneath(rest.substr(slash + 1), kObjectsDir);
}

std::string_view ShardOfKey(std::string_view key) {
  return key.substr(0, key.rfind('/'));
}

}  // namespace lake
