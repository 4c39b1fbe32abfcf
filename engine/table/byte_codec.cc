#include "engine/table/byte_codec.h"

#include <xxhash.h>

#include "absl/strings/str_cat.h"

namespace lake::table {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

int LowerHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
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
  if (hex.size() != 2 * kSha256RawBytes) return std::nullopt;
  Sha256Raw raw;
  for (size_t i = 0; i < raw.size(); ++i) {
    int high = LowerHexValue(hex[2 * i]);
    int low = LowerHexValue(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    raw[i] = static_cast<uint8_t>(high << 4 | low);
  }
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
