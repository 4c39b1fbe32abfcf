// The fragment file format; its note is in fragment_format.h.
#include "engine/table/fragment_format.h"

#include <zstd.h>

#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/hex.h"
#include "base/utf8.h"
#include "engine/data_location.h"
#include "engine/sha256.h"
#include "engine/table/byte_codec.h"
#include "engine/table/fragment_blocks.h"

namespace lake::table {
namespace {

enum class Codec : uint8_t { kStored = 0, kZstd = 1 };

constexpr size_t kHeaderFixedBytes = 8 + 4 + 8 + 4;
constexpr size_t kBlockHeaderBytes = 1 + 4 + 4 + 8;

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(absl::StrCat("fragment is damaged: ", std::string(why)));
}

// One compression and one decompression context per thread: creating them
// costs more than a small block's work.
struct ZstdContexts {
  ZstdContexts() : compress(ZSTD_createCCtx()), decompress(ZSTD_createDCtx()) {
    if (compress == nullptr || decompress == nullptr) std::abort();  // out of memory
    ZSTD_CCtx_setParameter(compress, ZSTD_c_compressionLevel, kFragmentZstdLevel);
    ZSTD_CCtx_setParameter(compress, ZSTD_c_contentSizeFlag, 1);
  }
  ~ZstdContexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
  ZSTD_CCtx* compress;
  ZSTD_DCtx* decompress;
};

ZstdContexts& Zstd() {
  thread_local ZstdContexts contexts;
  return contexts;
}

// ---- Encoding ----

// Appends one block holding `size` bytes at `data`: zstd when that is
// smaller, the bytes as they are otherwise. `hash_log` 0 is the level's.
void WriteBlock(std::string& out, const void* data, size_t size, int hash_log = 0) {
  size_t header_at = out.size();
  out.resize(header_at + kBlockHeaderBytes);
  size_t stored_at = out.size();
  Codec codec = Codec::kStored;
  if (size > 0) {
    out.resize(stored_at + ZSTD_compressBound(size));
    ZSTD_CCtx* compress = Zstd().compress;
    ZSTD_CCtx_setParameter(compress, ZSTD_c_hashLog, hash_log);
    size_t n = ZSTD_compress2(compress, out.data() + stored_at, out.size() - stored_at, data, size);
    if (!ZSTD_isError(n) && n < size) {
      codec = Codec::kZstd;
      out.resize(stored_at + n);
    }
  }
  if (codec == Codec::kStored) {
    out.resize(stored_at);
    out.append(static_cast<const char*>(data), size);
  }
  std::string_view stored = std::string_view(out).substr(stored_at);
  std::string header;
  ByteWriter w(&header);
  w.U8(static_cast<uint8_t>(codec));
  w.U32(static_cast<uint32_t>(size));
  w.U32(static_cast<uint32_t>(stored.size()));
  w.U64(Checksum64(stored));
  std::memcpy(out.data() + header_at, header.data(), kBlockHeaderBytes);
}

template <typename T>
void WriteFixed(std::string& out, const std::vector<T>& values) {
  WriteBlock(out, values.data(), values.size() * sizeof(T));
}

void WriteStrings(std::string& out, const StringColumn& strings, int hash_log = 0) {
  std::vector<uint32_t> lengths(strings.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    lengths[i] = strings.offsets[i + 1] - strings.offsets[i];
  }
  WriteFixed(out, lengths);
  WriteBlock(out, strings.bytes.data(), strings.bytes.size(), hash_log);
}

// Format 2's sha256 block: each row's digest as its 32 raw bytes, a null
// row's zero. InvalidArgument when a value is not 64 lowercase hex digits.
absl::Status WriteRawSha256s(std::string& out, const ColumnData& column) {
  std::string raw(column.valid.size() * kSha256RawBytes, '\0');
  for (size_t row = 0; row < column.valid.size(); ++row) {
    if (column.IsNull(row)) continue;
    std::optional<Sha256Raw> digest = Sha256FromHex(column.sha256s.At(row));
    if (!digest) {
      return absl::InvalidArgumentError(
          absl::StrCat("the file cell of row ", row, " has no lowercase hex sha256"));
    }
    std::memcpy(raw.data() + row * kSha256RawBytes, digest->data(), kSha256RawBytes);
  }
  WriteBlock(out, raw.data(), raw.size());
  return absl::OkStatus();
}

absl::Status WriteColumn(std::string& out, const ColumnData& column) {
  WriteFixed(out, column.valid);
  switch (column.type) {
    case ColumnType::kUtf8:
    case ColumnType::kBinary:
      WriteStrings(out, column.strings);
      break;
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
      WriteFixed(out, column.int64s);
      break;
    case ColumnType::kFloat64:
      WriteFixed(out, column.float64s);
      break;
    case ColumnType::kBool:
      WriteFixed(out, column.bools);
      break;
    case ColumnType::kFile:
      WriteStrings(out, column.strings, kFragmentUriZstdHashLog);
      WriteStrings(out, column.content_types);
      WriteFixed(out, column.int64s);
      return WriteRawSha256s(out, column);
  }
  return absl::OkStatus();
}

void WriteHeader(std::string& out, const ColumnBatch& batch) {
  ByteWriter w(&out);
  w.Bytes(kFragmentMagic);
  w.U32(kFragmentFormatVersion);
  w.U64(batch.num_rows);
  WriteSchema(w, batch.schema);
}

// ---- Decoding ----

struct Header {
  uint32_t version = 0;
  uint64_t rows = 0;
  Schema schema;
};

// The bytes before the digest, once the digest matches them.
absl::StatusOr<std::string_view> CheckDigest(std::string_view bytes) {
  if (bytes.size() < kHeaderFixedBytes + kChecksum128Bytes) return Damaged("shorter than a header");
  std::string_view body = bytes.substr(0, bytes.size() - kChecksum128Bytes);
  if (bytes.substr(0, kFragmentMagic.size()) != kFragmentMagic) {
    return Damaged("not a fragment (wrong magic)");
  }
  if (kChecksumsEnforced && Checksum128(body) != bytes.substr(body.size())) {
    return Damaged("its digest does not match its bytes");
  }
  return body;
}

absl::StatusOr<Header> ReadHeader(ByteReader& r) {
  std::string_view magic;
  Header header;
  uint32_t& version = header.version;
  if (!r.Bytes(kFragmentMagic.size(), &magic) || !r.U32(&version) || !r.U64(&header.rows)) {
    return Damaged("shorter than a header");
  }
  if (magic != kFragmentMagic) return Damaged("not a fragment (wrong magic)");
  if (version < kOldestFragmentFormatVersion || version > kFragmentFormatVersion) {
    return Damaged(absl::StrCat("unknown format version ", version, " (this lake reads ",
                                kOldestFragmentFormatVersion, " to ", kFragmentFormatVersion, ")"));
  }
  if (header.rows > kMaxFragmentRows) {
    return Damaged(absl::StrCat(header.rows, " rows is more than ", kMaxFragmentRows));
  }
  absl::StatusOr<Schema> schema = ReadSchema(r, "fragment is damaged");
  if (!schema.ok()) return schema.status();
  header.schema = std::move(*schema);
  return header;
}

struct Block {
  Codec codec = Codec::kStored;
  uint32_t raw_bytes = 0;
  std::string_view stored;
};

// The next block, which must hold exactly `expected_raw` bytes once
// decompressed; checked before anything is allocated for it. The caller
// checked the digest of the bytes it is in.
absl::StatusOr<Block> ReadBlock(ByteReader& r, uint64_t expected_raw, std::string_view what) {
  uint8_t codec = 0;
  uint32_t raw_bytes = 0;
  uint32_t stored_bytes = 0;
  uint64_t checksum = 0;
  Block block;
  if (!r.U8(&codec) || !r.U32(&raw_bytes) || !r.U32(&stored_bytes) || !r.U64(&checksum) ||
      !r.Bytes(stored_bytes, &block.stored)) {
    return Damaged(absl::StrCat("the ", std::string(what), " block ends early"));
  }
  auto bad = [&](std::string_view why) {
    return Damaged(absl::StrCat("the ", std::string(what), " block ", std::string(why)));
  };
  if (raw_bytes != expected_raw) {
    return bad(absl::StrCat("holds ", raw_bytes, " bytes, not ", expected_raw));
  }
  if (codec == static_cast<uint8_t>(Codec::kStored)) {
    if (stored_bytes != raw_bytes) return bad("stores a different size than it holds");
  } else if (codec == static_cast<uint8_t>(Codec::kZstd)) {
    if (stored_bytes == 0 || raw_bytes > uint64_t{stored_bytes} * kMaxZstdExpansion) {
      return bad("claims more bytes than zstd can expand to");
    }
  } else {
    return bad(absl::StrCat("has unknown codec ", codec));
  }
  // The block's checksum is not computed again: every decode checked the
  // fragment's digest over these bytes first (FragmentBlocks::Open), so it
  // could never differ; SkipColumn relies on the same.
  block.codec = static_cast<Codec>(codec);
  block.raw_bytes = raw_bytes;
  return block;
}

// Fills `dest` (block.raw_bytes long) with the block's bytes.
absl::Status Inflate(const Block& block, void* dest, std::string_view what) {
  if (block.codec == Codec::kStored) {
    if (block.raw_bytes > 0) std::memcpy(dest, block.stored.data(), block.raw_bytes);
    return absl::OkStatus();
  }
  size_t n = ZSTD_decompressDCtx(Zstd().decompress, dest, block.raw_bytes, block.stored.data(),
                                 block.stored.size());
  if (ZSTD_isError(n) || n != block.raw_bytes) {
    return Damaged(absl::StrCat("the ", std::string(what), " block does not decompress"));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status ReadFixed(ByteReader& r, uint64_t rows, std::vector<T>* out, std::string_view what) {
  absl::StatusOr<Block> block = ReadBlock(r, rows * sizeof(T), what);
  if (!block.ok()) return block.status();
  out->resize(rows);
  return Inflate(*block, out->data(), what);
}

// The lengths block becomes the offsets in place (offsets[0] = 0, then a
// running sum), then the bytes block must hold exactly their total.
absl::Status ReadStrings(ByteReader& r, uint64_t rows, StringColumn* strings,
                         std::string_view what) {
  std::string lengths_what = absl::StrCat(std::string(what), " lengths");
  absl::StatusOr<Block> lengths = ReadBlock(r, rows * sizeof(uint32_t), lengths_what);
  if (!lengths.ok()) return lengths.status();
  strings->offsets.resize(rows + 1);
  strings->offsets[0] = 0;
  if (absl::Status s = Inflate(*lengths, strings->offsets.data() + 1, lengths_what); !s.ok()) {
    return s;
  }
  uint64_t total = 0;
  for (size_t i = 1; i <= rows; ++i) {
    total += strings->offsets[i];
    if (total > kMaxStringColumnBytes) {
      return Damaged(absl::StrCat("the ", std::string(what), " cells pass 2 GiB"));
    }
    strings->offsets[i] = static_cast<uint32_t>(total);
  }
  std::string bytes_what = absl::StrCat(std::string(what), " bytes");
  absl::StatusOr<Block> bytes = ReadBlock(r, total, bytes_what);
  if (!bytes.ok()) return bytes.status();
  strings->bytes.resize(total);
  return Inflate(*bytes, strings->bytes.data(), bytes_what);
}

// Each byte's two lowercase hex digits, in memory order: one load and one
// two-byte store per byte of a digest (a scan writes every row's).
constexpr std::array<uint16_t, 256> MakeHexPairs() {
  constexpr char kDigits[] = "0123456789abcdef";
  std::array<uint16_t, 256> pairs{};
  for (unsigned b = 0; b < 256; ++b) {
    const unsigned first = static_cast<unsigned char>(kDigits[b >> 4]);
    const unsigned second = static_cast<unsigned char>(kDigits[b & 0xf]);
    pairs[b] = static_cast<uint16_t>(std::endian::native == std::endian::little
                                         ? first | second << 8
                                         : first << 8 | second);
  }
  return pairs;
}
constexpr std::array<uint16_t, 256> kHexPairs = MakeHexPairs();

// Format 2's sha256 block (WriteRawSha256s) as the hex cells of the rows
// `valid` does not flag null (the others empty, as in format 1).
absl::Status ReadRawSha256s(ByteReader& r, uint64_t rows, const std::vector<uint8_t>& valid,
                            StringColumn* sha256s, std::string_view what) {
  std::string raw_what = absl::StrCat(std::string(what), " raw");
  absl::StatusOr<Block> block = ReadBlock(r, rows * kSha256RawBytes, raw_what);
  if (!block.ok()) return block.status();
  std::string inflated;  // only when zstd shrank it: digests repeated
  std::string_view raw = block->stored;
  if (block->codec != Codec::kStored) {
    inflated.resize(block->raw_bytes);
    if (absl::Status s = Inflate(*block, inflated.data(), raw_what); !s.ok()) return s;
    raw = inflated;
  }
  size_t values = 0;
  for (uint8_t v : valid) values += v != 0;
  sha256s->offsets.resize(rows + 1);
  sha256s->offsets[0] = 0;
  sha256s->bytes.resize(values * 2 * kSha256RawBytes);
  char* out = sha256s->bytes.data();
  uint32_t at = 0;
  for (size_t row = 0; row < rows; ++row) {
    if (valid[row] != 0) {
      const auto* digest = reinterpret_cast<const unsigned char*>(raw.data()) + row * kSha256RawBytes;
      for (size_t i = 0; i < kSha256RawBytes; ++i) {
        std::memcpy(out + at + 2 * i, &kHexPairs[digest[i]], 2);
      }
      at += 2 * kSha256RawBytes;
    }
    sha256s->offsets[row + 1] = at;
  }
  return absl::OkStatus();
}

// Empties the cells of the rows `valid` flags null, moving the others
// down in place: format 1 stored a null row's sha256 as written, format 2
// stores none, and both must decode to the same batch (a null row's
// placeholder is "", as ReadRawSha256s gives).
void EmptyNullCells(const std::vector<uint8_t>& valid, StringColumn* cells) {
  uint32_t at = 0;
  uint32_t begin = 0;
  for (size_t row = 0; row < valid.size(); ++row) {
    const uint32_t end = cells->offsets[row + 1];
    if (valid[row] != 0) {
      std::memmove(cells->bytes.data() + at, cells->bytes.data() + begin, end - begin);
      at += end - begin;
    }
    cells->offsets[row + 1] = at;
    begin = end;
  }
  cells->bytes.resize(at);
}

absl::Status ReadColumn(ByteReader& r, uint32_t version, uint64_t rows, const std::string& name,
                        ColumnData* column) {
  std::string what = absl::StrCat("column '", name, "'");
  if (absl::Status s = ReadFixed(r, rows, &column->valid, what + " validity"); !s.ok()) return s;
  switch (column->type) {
    case ColumnType::kUtf8:
    case ColumnType::kBinary:
      return ReadStrings(r, rows, &column->strings, what);
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
      return ReadFixed(r, rows, &column->int64s, what + " int64");
    case ColumnType::kFloat64:
      return ReadFixed(r, rows, &column->float64s, what + " float64");
    case ColumnType::kBool:
      return ReadFixed(r, rows, &column->bools, what + " bool");
    case ColumnType::kFile:
      if (absl::Status s = ReadStrings(r, rows, &column->strings, what + " uri"); !s.ok()) return s;
      if (absl::Status s = ReadStrings(r, rows, &column->content_types, what + " content_type");
          !s.ok()) {
        return s;
      }
      if (absl::Status s = ReadFixed(r, rows, &column->int64s, what + " size"); !s.ok()) return s;
      if (version == 1) {
        absl::Status s = ReadStrings(r, rows, &column->sha256s, what + " sha256");
        if (s.ok()) EmptyNullCells(column->valid, &column->sha256s);
        return s;
      }
      return ReadRawSha256s(r, rows, column->valid, &column->sha256s, what + " sha256");
  }
  return Damaged("a column has an unknown type");
}

// The blocks of a column of `type` in format `version`: validity, then
// those of its vectors.
int BlockCount(uint32_t version, ColumnType type) {
  switch (type) {
    case ColumnType::kUtf8:
    case ColumnType::kBinary:
      return 1 + 2;
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
    case ColumnType::kFloat64:
    case ColumnType::kBool:
      return 1 + 1;
    case ColumnType::kFile:
      return 1 + 2 + 2 + 1 + (version == 1 ? 2 : 1);
  }
  return 1;
}

// Walks past the blocks of a column that is not decoded now: their headers
// are read and their stored bytes skipped, nothing is inflated. The digest
// has vouched for these bytes already; a later decode of the column checks
// them in full.
absl::Status SkipColumn(ByteReader& r, uint32_t version, ColumnType type,
                        const std::string& name) {
  for (int i = 0; i < BlockCount(version, type); ++i) {
    uint8_t codec = 0;
    uint32_t raw_bytes = 0;
    uint32_t stored_bytes = 0;
    uint64_t checksum = 0;
    std::string_view stored;
    if (!r.U8(&codec) || !r.U32(&raw_bytes) || !r.U32(&stored_bytes) || !r.U64(&checksum) ||
        !r.Bytes(stored_bytes, &stored)) {
      return Damaged(absl::StrCat("the blocks of column '", name, "' end early"));
    }
  }
  return absl::OkStatus();
}

bool IsAscii(std::string_view bytes) {
  unsigned char any = 0;
  for (char c : bytes) any |= static_cast<unsigned char>(c);
  return any < 0x80;
}

// Runs on every FILE cell of every scanned fragment, so it tests all bytes
// without a branch per byte (the compiler vectorizes it), as
// IsLowerHexSha256 does; a byte-at-a-time loop with an early exit was half
// of a scan's CPU.
bool IsContentType(std::string_view text) {
  if (text.empty() || text.size() > kMaxContentTypeBytes) return false;
  unsigned bad = 0;
  for (char ch : text) {
    unsigned c = static_cast<unsigned char>(ch);
    bad |= static_cast<unsigned>(c - 0x20u > 0x7Eu - 0x20u);
  }
  return bad == 0;
}

absl::Status CellDamaged(const std::string& name, std::string_view why) {
  return Damaged(absl::StrCat("column '", name, "': ", std::string(why)));
}

absl::Status CheckValidity(const ColumnData& c, const std::string& name) {
  unsigned char any = 0;
  for (uint8_t v : c.valid) any |= v;
  if (any > 1) return CellDamaged(name, "validity is not 0 or 1");
  return absl::OkStatus();
}

// Whether the file cell of `row` (not null) is a valid location, as far as
// FragmentCheck::kFast checks one.
bool IsFileCell(const ColumnData& c, size_t row) {
  return c.int64s[row] >= 0 && !c.strings.At(row).empty() &&
         IsLowerHexSha256(c.sha256s.At(row)) && IsContentType(c.content_types.At(row));
}

absl::Status FileCellDamaged(const std::string& name, size_t row) {
  return CellDamaged(name, absl::StrCat("the file cell of row ", row, " is not a valid location"));
}

// The checks of FragmentCheck::kFast beyond the buffer sizes and offsets
// that decoding itself enforced.
absl::Status CheckCells(const ColumnData& c, const std::string& name) {
  auto bad = [&](std::string_view why) { return CellDamaged(name, why); };
  if (absl::Status s = CheckValidity(c, name); !s.ok()) return s;
  // Text that is all ASCII is valid UTF-8 however it is cut into cells.
  bool check_utf8 = c.type == ColumnType::kUtf8 && !IsAscii(c.strings.bytes);
  for (size_t row = 0; row < c.valid.size(); ++row) {
    if (c.IsNull(row)) continue;
    if (c.type == ColumnType::kBool && c.bools[row] > 1) return bad("a bool is not 0 or 1");
    if (check_utf8 && !IsValidUtf8(c.strings.At(row))) return bad("text is not UTF-8");
    if (c.type == ColumnType::kFile && !IsFileCell(c, row)) return FileCellDamaged(name, row);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> EncodeFragment(const ColumnBatch& batch) {
  if (absl::Status s = batch.Validate(); !s.ok()) return s;
  return EncodeValidatedFragment(batch);
}

absl::StatusOr<std::string> EncodeValidatedFragment(const ColumnBatch& batch) {
  if (absl::Status s = batch.CheckShape(); !s.ok()) return s;
  if (batch.num_rows > kMaxFragmentRows) {
    return absl::InvalidArgumentError(
        absl::StrCat("a fragment holds at most ", kMaxFragmentRows, " rows, not ", batch.num_rows));
  }
  std::string out;
  WriteHeader(out, batch);
  for (const ColumnData& column : batch.columns) {
    if (absl::Status s = WriteColumn(out, column); !s.ok()) return s;
  }
  out.append(Checksum128(out));
  return out;
}

absl::StatusOr<FragmentBlocks> FragmentBlocks::Open(std::string_view bytes,
                                                    const Schema& expected_schema) {
  absl::StatusOr<std::string_view> body = CheckDigest(bytes);
  if (!body.ok()) return body.status();
  ByteReader r(*body);
  absl::StatusOr<Header> header = ReadHeader(r);
  if (!header.ok()) return header.status();
  if (header->schema != expected_schema) return Damaged("its schema is not the table's");
  FragmentBlocks blocks;
  blocks.schema_ = &expected_schema;
  blocks.columns_ = body->substr(r.position());
  blocks.rows_ = header->rows;
  blocks.version_ = header->version;
  return blocks;
}

// Walks every column's blocks in order, from the first: `read(i, r)` reads
// those of each column `wanted` flags, the others are skipped; then no
// byte may follow.
template <typename Read>
absl::Status FragmentBlocks::Walk(const std::vector<bool>& wanted, Read read) const {
  ByteReader r(columns_);
  for (size_t i = 0; i < wanted.size(); ++i) {
    const ColumnSpec& spec = schema_->columns[i];
    absl::Status s = wanted[i] ? read(i, r) : SkipColumn(r, version_, spec.type, spec.name);
    if (!s.ok()) return s;
  }
  if (r.remaining() != 0) return Damaged("bytes follow the last block");
  return absl::OkStatus();
}

absl::Status FragmentBlocks::DecodeColumns(const std::vector<bool>& wanted,
                                           ColumnBatch* batch) const {
  if (wanted.size() != schema_->columns.size()) {
    return absl::InvalidArgumentError(absl::StrCat("DecodeFragmentColumns: ", wanted.size(),
                                                   " flags for ", schema_->columns.size(),
                                                   " columns"));
  }
  if (batch->schema != *schema_ || batch->columns.size() != wanted.size()) {
    *batch = ColumnBatch::Empty(*schema_);
  }
  batch->num_rows = rows_;
  return Walk(wanted, [&](size_t i, ByteReader& r) {
    const ColumnSpec& spec = schema_->columns[i];
    ColumnData& column = batch->columns[i];
    column = ColumnData();
    column.type = spec.type;
    if (absl::Status s = ReadColumn(r, version_, rows_, spec.name, &column); !s.ok()) return s;
    return CheckCells(column, spec.name);
  });
}

absl::Status FragmentBlocks::DecodeFileCells(size_t column, absl::Span<const uint32_t> checked_rows,
                                             ColumnData* cells) const {
  if (column >= schema_->columns.size() || schema_->columns[column].type != ColumnType::kFile) {
    return absl::InvalidArgumentError(
        absl::StrCat("DecodeFileCells: column ", column, " is not a file column"));
  }
  std::vector<bool> wanted(schema_->columns.size(), false);
  wanted[column] = true;
  return Walk(wanted, [&](size_t i, ByteReader& r) {
    const std::string& name = schema_->columns[i].name;
    cells->type = ColumnType::kFile;
    if (absl::Status s = ReadColumn(r, version_, rows_, name, cells); !s.ok()) return s;
    if (absl::Status s = CheckValidity(*cells, name); !s.ok()) return s;
    for (uint32_t row : checked_rows) {
      if (row >= rows_) {
        return absl::InvalidArgumentError(
            absl::StrCat("DecodeFileCells: row ", row, " of ", rows_, " rows"));
      }
      if (!cells->IsNull(row) && !IsFileCell(*cells, row)) return FileCellDamaged(name, row);
    }
    return absl::OkStatus();
  });
}

absl::Status DecodeFragmentColumns(std::string_view bytes, const Schema& expected_schema,
                                   const std::vector<bool>& wanted, ColumnBatch* batch) {
  if (wanted.size() != expected_schema.columns.size()) {
    return absl::InvalidArgumentError(absl::StrCat("DecodeFragmentColumns: ", wanted.size(),
                                                   " flags for ", expected_schema.columns.size(),
                                                   " columns"));
  }
  absl::StatusOr<FragmentBlocks> blocks = FragmentBlocks::Open(bytes, expected_schema);
  if (!blocks.ok()) return blocks.status();
  return blocks->DecodeColumns(wanted, batch);
}

absl::StatusOr<ColumnBatch> DecodeFragment(std::string_view bytes, const Schema& expected_schema,
                                           FragmentCheck check) {
  ColumnBatch batch = ColumnBatch::Empty(expected_schema);
  const std::vector<bool> every_column(expected_schema.columns.size(), true);
  if (absl::Status s = DecodeFragmentColumns(bytes, expected_schema, every_column, &batch);
      !s.ok()) {
    return s;
  }
  if (check == FragmentCheck::kFull) {
    if (absl::Status s = batch.Validate(); !s.ok()) return Damaged(std::string(s.message()));
  }
  return batch;
}

absl::StatusOr<FragmentSummary> SummarizeFragment(std::string_view bytes) {
  absl::StatusOr<std::string_view> body = CheckDigest(bytes);
  if (!body.ok()) return body.status();
  ByteReader r(*body);
  absl::StatusOr<Header> header = ReadHeader(r);
  if (!header.ok()) return header.status();
  return FragmentSummary{header->rows, bytes.size(), Sha256Hex(bytes), std::move(header->schema)};
}

}  // namespace lake::table
