#include "engine/table/byte_codec.h"

#include <xxhash.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/str_cat.h"
#include "base/hex.h"

namespace lake::table {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// The value of a lowercase hex digit (one IsLowerHexSha256 accepted):
// '0'..'9' are 0x30..0x39 and 'a'..'f' are 0x61..0x66, so the low nibble
// plus 9 for letters (bit 6 set) — no branch, so a whole digest vectorizes.
uint8_t LowerHexDigitValue(char c) {
  unsigned u = static_cast<unsigned char>(c);
  return static_cast<uint8_t>((u & 0xF) + 9 * (u >> 6));
}

}  // namespace

bool ByteReader::Sha256(Sha256Raw* raw) {
  std::string_view bytes;
  if (!Bytes(raw->size(), &bytes)) return false;
  __builtin_memcpy(raw->data(), bytes.data(), raw->size());
  return true;
}

uint64_t Checksum64(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

std::string Checksum128(std::string_view bytes) {
  XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  std::string out;
  ByteWriter writer(&out);
  writer.U64(hash.low64);
  writer.U64(hash.high64);
  return out;
}

std::optional<Sha256Raw> Sha256FromHex(std::string_view hex) {
  if (!IsLowerHexSha256(hex)) return std::nullopt;
  Sha256Raw raw;
#if defined(__SSE2__)
  // Thirty-two digits a step (every FILE cell of every append comes here):
  // each digit's value as LowerHexDigitValue gives it, then each pair — a
  // 16-bit lane, its high digit in the low byte — folded into one byte.
  const auto values = [](const char* digits) {
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(digits));
    __m128i letter = _mm_cmpgt_epi8(c, _mm_set1_epi8('9'));  // ASCII: no sign
    return _mm_add_epi8(_mm_and_si128(c, _mm_set1_epi8(0x0F)),
                        _mm_and_si128(letter, _mm_set1_epi8(9)));
  };
  const auto pairs = [](__m128i v) {
    return _mm_or_si128(_mm_slli_epi16(_mm_and_si128(v, _mm_set1_epi16(0x00FF)), 4),
                        _mm_srli_epi16(v, 8));
  };
  for (size_t i = 0; i < raw.size(); i += 16) {
    const char* digits = hex.data() + 2 * i;
    __m128i bytes = _mm_packus_epi16(pairs(values(digits)), pairs(values(digits + 16)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(raw.data() + i), bytes);
  }
#else
  for (size_t i = 0; i < raw.size(); ++i) {
    raw[i] = static_cast<uint8_t>(LowerHexDigitValue(hex[2 * i]) << 4 |
                                  LowerHexDigitValue(hex[2 * i + 1]));
  }
#endif
  return raw;
}

std::string Sha256ToHex(const Sha256Raw& raw) {
  std::string hex(2 * raw.size(), '0');
  for (size_t i = 0; i < raw.size(); ++i) {
    hex[2 * i] = kHexDigits[raw[i] >> 4];
    hex[2 * i + 1] = kHexDigits[raw[i] & 15];
  }
  return hex;
}

void WriteSchema(ByteWriter& w, const Schema& schema) {
  w.U32(static_cast<uint32_t>(schema.columns.size()));
  for (const ColumnSpec& column : schema.columns) {
    w.U8(static_cast<uint8_t>(column.type));
    w.U8(static_cast<uint8_t>(column.name.size()));  // <= kMaxIdentifierBytes
    w.Bytes(column.name);
  }
}

absl::StatusOr<Schema> ReadSchema(ByteReader& r, std::string_view what) {
  auto damaged = [&](const std::string& why) {
    return absl::DataLossError(absl::StrCat(std::string(what), ": ", why));
  };
  uint32_t column_count = 0;
  if (!r.U32(&column_count)) return damaged("the schema ends early");
  if (column_count == 0 || column_count > kMaxColumns) {
    return damaged(absl::StrCat("the schema has ", column_count, " columns"));
  }
  Schema schema;
  for (uint32_t i = 0; i < column_count; ++i) {
    uint8_t type = 0;
    uint8_t name_bytes = 0;
    std::string_view name;
    if (!r.U8(&type) || !r.U8(&name_bytes) || !r.Bytes(name_bytes, &name)) {
      return damaged("the schema ends early");
    }
    if (!IsKnownColumnType(type)) {
      return damaged(absl::StrCat("column ", i, " has unknown type ", type));
    }
    schema.columns.push_back(ColumnSpec{std::string(name), static_cast<ColumnType>(type)});
  }
  if (absl::Status s = ValidateSchema(schema); !s.ok()) {
    return damaged(absl::StrCat("the schema is invalid: ", std::string(s.message())));
  }
  return schema;
}

}  // namespace lake::table
