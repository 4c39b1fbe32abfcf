// The fields of the registry's binary formats (registry_records.h and the
// forwarded writes of writer_channel_format.h): u8; u32, u64 and i64 as
// 4 or 8 bytes little-endian; str = len:u32 bytes; a schema as
// u32 column_count, column_count x (str name, u8 column type code).
//
// A FieldReader never reads past its input: every read reports whether the
// field was there (and within its bound), and the caller turns a failed
// read into its own error. Nothing here allocates from a length it read
// beyond the bytes actually present.
#ifndef LAKE_REGISTRY_RECORD_FIELDS_H_
#define LAKE_REGISTRY_RECORD_FIELDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "schema/table_schema.h"

namespace lake::registry {

class FieldWriter {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s.data(), s.size());
  }
  void Schema(const table::Schema& schema) {
    U32(static_cast<uint32_t>(schema.columns.size()));
    for (const table::ColumnSpec& column : schema.columns) {
      Str(column.name);
      U8(static_cast<uint8_t>(column.type));
    }
  }
  const std::string& bytes() const { return out_; }
  std::string Take() && { return std::move(out_); }

 protected:
  std::string out_;
};

class FieldReader {
 public:
  explicit FieldReader(std::string_view bytes) : rest_(bytes) {}

  bool U8(uint8_t* v) {
    if (rest_.empty()) return false;
    *v = static_cast<uint8_t>(rest_[0]);
    rest_.remove_prefix(1);
    return true;
  }
  bool U32(uint32_t* v) {
    if (rest_.size() < 4) return false;
    *v = 0;
    for (int i = 0; i < 4; ++i) *v |= uint32_t{static_cast<uint8_t>(rest_[i])} << (8 * i);
    rest_.remove_prefix(4);
    return true;
  }
  bool U64(uint64_t* v) {
    if (rest_.size() < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) *v |= uint64_t{static_cast<uint8_t>(rest_[i])} << (8 * i);
    rest_.remove_prefix(8);
    return true;
  }
  bool I64(int64_t* v) {
    uint64_t u = 0;
    if (!U64(&u)) return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  // At most `max_bytes`.
  bool Str(std::string* s, size_t max_bytes) {
    uint32_t len = 0;
    if (!U32(&len) || len > max_bytes || len > rest_.size()) return false;
    s->assign(rest_.data(), len);
    rest_.remove_prefix(len);
    return true;
  }
  // At most table::kMaxColumns columns of known types; names within
  // table::kMaxIdentifierBytes (their validity is the caller's check).
  bool Schema(table::Schema* schema) {
    uint32_t count = 0;
    if (!U32(&count) || count > table::kMaxColumns) return false;
    schema->columns.resize(count);
    for (table::ColumnSpec& column : schema->columns) {
      uint8_t code = 0;
      if (!Str(&column.name, table::kMaxIdentifierBytes) || !U8(&code) ||
          !table::IsKnownColumnType(code)) {
        return false;
      }
      column.type = static_cast<table::ColumnType>(code);
    }
    return true;
  }
  bool empty() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_RECORD_FIELDS_H_
