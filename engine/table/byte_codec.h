// The building blocks of the table's binary formats (fragment, manifest,
// reference delta): little-endian fixed-width integers written to and read
// from byte strings, the XXH3 checksums that detect damage, and the raw form
// of a SHA-256 hex digest.
//
// A ByteReader never reads past its input: every read reports whether the
// bytes were there, and the caller turns a short read into DataLoss naming
// what was missing. Nothing here allocates from a length it read.
#ifndef LAKE_ENGINE_TABLE_BYTE_CODEC_H_
#define LAKE_ENGINE_TABLE_BYTE_CODEC_H_

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "schema/table_schema.h"

namespace lake::table {

// The formats copy integer arrays straight between files and vectors.
static_assert(std::endian::native == std::endian::little,
              "lake's table formats are little-endian and copied without swapping");

// Whether a decoder refuses a checksum or digest that does not match. Only a
// fuzzing build (clang's FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, set by
// fuzz/meson.build) turns this off, so the fuzzer reaches the parsing behind
// the checksums; every structural check still runs there.
#if defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
inline constexpr bool kChecksumsEnforced = false;
#else
inline constexpr bool kChecksumsEnforced = true;
#endif

inline constexpr size_t kSha256RawBytes = 32;
using Sha256Raw = std::array<uint8_t, kSha256RawBytes>;

class ByteWriter {
 public:
  explicit ByteWriter(std::string* out) : out_(out) {}

  void U8(uint8_t v) { out_->push_back(static_cast<char>(v)); }
  void U16(uint16_t v) { Fixed(v); }
  void U32(uint32_t v) { Fixed(v); }
  void U64(uint64_t v) { Fixed(v); }
  void Bytes(std::string_view bytes) { out_->append(bytes); }
  void Sha256(const Sha256Raw& raw) {
    out_->append(reinterpret_cast<const char*>(raw.data()), raw.size());
  }
  size_t size() const { return out_->size(); }

 private:
  template <typename T>
  void Fixed(T v) {
    out_->append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  std::string* out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  size_t remaining() const { return bytes_.size() - pos_; }
  size_t position() const { return pos_; }

  // Each returns false, consuming nothing, when the input is too short.
  bool U8(uint8_t* v) { return Fixed(v); }
  bool U16(uint16_t* v) { return Fixed(v); }
  bool U32(uint32_t* v) { return Fixed(v); }
  bool U64(uint64_t* v) { return Fixed(v); }
  bool Bytes(size_t n, std::string_view* out) {
    if (n > remaining()) return false;
    *out = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Sha256(Sha256Raw* raw);

 private:
  template <typename T>
  bool Fixed(T* v) {
    if (sizeof(T) > remaining()) return false;
    __builtin_memcpy(v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  std::string_view bytes_;
  size_t pos_ = 0;
};

// XXH3-64 of `bytes`: the checksum of one block or chunk.
uint64_t Checksum64(std::string_view bytes);

// XXH3-128 of `bytes` as 16 bytes (low 64 bits first, each little-endian):
// the whole-file damage check of fragments and manifests.
inline constexpr size_t kChecksum128Bytes = 16;
std::string Checksum128(std::string_view bytes);

// 64 lowercase hex characters ↔ 32 bytes. nullopt for anything but exactly
// 64 lowercase hex characters (so the raw form has one hex spelling).
std::optional<Sha256Raw> Sha256FromHex(std::string_view hex);
std::string Sha256ToHex(const Sha256Raw& raw);

// A schema as the fragment and manifest formats store it:
//   u32 column_count, column_count × { u8 type, u8 name_bytes, name }
// Precondition of WriteSchema: ValidateSchema(schema) is OK.
void WriteSchema(ByteWriter& w, const Schema& schema);
// The schema at the reader, which must pass ValidateSchema. DataLoss
// ("<what>: ...") when it is short or invalid.
absl::StatusOr<Schema> ReadSchema(ByteReader& r, std::string_view what);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_BYTE_CODEC_H_
