#include "engine/managed_key.h"

#include <openssl/rand.h>

#include <chrono>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "engine/location_uri.h"

namespace lake {

std::string NewUuidV7() {
  uint8_t bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) std::abort();
  uint64_t millis = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  for (int i = 0; i < 6; ++i) {
    bytes[i] = static_cast<uint8_t>(millis >> (8 * (5 - i)));
  }
  bytes[6] = static_cast<uint8_t>(0x70 | (bytes[6] & 0x0F));  // version 7
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
