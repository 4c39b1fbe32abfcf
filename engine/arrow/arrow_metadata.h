// Arrow's binary key/value metadata (ArrowSchema.metadata): how the lake.file
// extension name travels with a field.
//
// Format (the Arrow C data interface's, all integers int32 in native byte
// order, no padding):
//   int32 n                      number of pairs, >= 0
//   n times:
//     int32 key_length, key_length bytes of key (UTF-8, not NUL-terminated)
//     int32 value_length, value_length bytes of value
// A NULL metadata pointer means no metadata. There is no version field or
// digest: the layout is fixed by the Arrow specification and the bytes never
// leave the process. Decoding refuses (InvalidArgument) a negative count or
// length, bytes short of what the lengths announce, and trailing bytes.
#ifndef LAKE_ENGINE_ARROW_ARROW_METADATA_H_
#define LAKE_ENGINE_ARROW_ARROW_METADATA_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::arrow {

using ArrowMetadata = std::vector<std::pair<std::string, std::string>>;

// The keys of Arrow's extension types (the Arrow columnar format's
// "Extension Types" section).
inline constexpr std::string_view kExtensionNameKey = "ARROW:extension:name";
inline constexpr std::string_view kExtensionMetadataKey = "ARROW:extension:metadata";

// The encoding of `pairs`, in order. Precondition: every key and value is
// shorter than 2^31 bytes.
std::string EncodeArrowMetadata(const ArrowMetadata& pairs);

// Decodes exactly `bytes` (all of them: trailing bytes are an error).
absl::StatusOr<ArrowMetadata> DecodeArrowMetadata(std::string_view bytes);

// The extent of the encoding that starts at `metadata` (a producer's
// pointer, whose length Arrow does not pass), walked through its length
// fields; InvalidArgument on a negative count or length. Trusts the memory
// as every Arrow consumer must. nullptr has extent 0.
absl::StatusOr<size_t> ArrowMetadataExtent(const char* metadata);

// The value of the first pair whose key is `key`; nullopt when absent.
std::optional<std::string> FindArrowMetadata(const ArrowMetadata& pairs, std::string_view key);

}  // namespace lake::arrow

#endif  // LAKE_ENGINE_ARROW_ARROW_METADATA_H_
