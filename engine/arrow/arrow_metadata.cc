#include "engine/arrow/arrow_metadata.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace lake::arrow {
namespace {

void AppendInt32(std::string& out, int32_t value) {
  char bytes[sizeof(value)];
  std::memcpy(bytes, &value, sizeof(value));
  out.append(bytes, sizeof(value));
}

// Reads the int32 at the front of `bytes` and advances past it.
absl::StatusOr<int32_t> TakeLength(std::string_view& bytes, std::string_view what) {
  int32_t value = 0;
  if (bytes.size() < sizeof(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Arrow metadata: truncated before the ", std::string(what)));
  }
  std::memcpy(&value, bytes.data(), sizeof(value));
  bytes.remove_prefix(sizeof(value));
  if (value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Arrow metadata: negative ", std::string(what), " ", value));
  }
  return value;
}

absl::StatusOr<std::string> TakeString(std::string_view& bytes, std::string_view what) {
  absl::StatusOr<int32_t> length = TakeLength(bytes, absl::StrCat(std::string(what), " length"));
  if (!length.ok()) return length.status();
  if (bytes.size() < static_cast<size_t>(*length)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Arrow metadata: a ", std::string(what), " runs past the end"));
  }
  std::string value(bytes.substr(0, static_cast<size_t>(*length)));
  bytes.remove_prefix(static_cast<size_t>(*length));
  return value;
}

int32_t ReadInt32(const char* at) {
  int32_t value = 0;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

}  // namespace

std::string EncodeArrowMetadata(const ArrowMetadata& pairs) {
  std::string out;
  AppendInt32(out, static_cast<int32_t>(pairs.size()));
  for (const auto& [key, value] : pairs) {
    AppendInt32(out, static_cast<int32_t>(key.size()));
    out.append(key);
    AppendInt32(out, static_cast<int32_t>(value.size()));
    out.append(value);
  }
  return out;
}

absl::StatusOr<ArrowMetadata> DecodeArrowMetadata(std::string_view bytes) {
  absl::StatusOr<int32_t> count = TakeLength(bytes, "pair count");
  if (!count.ok()) return count.status();
  ArrowMetadata pairs;
  for (int32_t i = 0; i < *count; ++i) {
    // Every pair takes at least 8 bytes: a huge count over short bytes fails
    // here, before any large allocation.
    absl::StatusOr<std::string> key = TakeString(bytes, "key");
    if (!key.ok()) return key.status();
    absl::StatusOr<std::string> value = TakeString(bytes, "value");
    if (!value.ok()) return value.status();
    pairs.emplace_back(*std::move(key), *std::move(value));
  }
  if (!bytes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Arrow metadata: ", bytes.size(), " bytes after the last pair"));
  }
  return pairs;
}

absl::StatusOr<size_t> ArrowMetadataExtent(const char* metadata) {
  if (metadata == nullptr) return 0;
  int32_t count = ReadInt32(metadata);
  if (count < 0) return absl::InvalidArgumentError("Arrow metadata: negative pair count");
  size_t extent = sizeof(int32_t);
  for (int64_t field = 0; field < int64_t{count} * 2; ++field) {
    int32_t length = ReadInt32(metadata + extent);
    if (length < 0) return absl::InvalidArgumentError("Arrow metadata: negative length");
    extent += sizeof(int32_t) + static_cast<size_t>(length);
  }
  return extent;
}

std::optional<std::string> FindArrowMetadata(const ArrowMetadata& pairs, std::string_view key) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return v;
  }
  return std::nullopt;
}

}  // namespace lake::arrow
