#include "spill/run_format.h"

#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include <xxhash.h>

#include "absl/strings/str_format.h"

namespace lake::spill {
namespace {

static_assert(std::endian::native == std::endian::little,
              "spill runs are little-endian and copied without swapping");

constexpr char kHeaderMagic[8] = {'L', 'A', 'K', 'E', 'S', 'P', 'I', 'L'};
constexpr char kTrailerMagic[8] = {'S', 'P', 'I', 'L', 'L', 'E', 'N', 'D'};

template <typename T>
void Put(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(value));
}

template <typename T>
T Get(std::string_view bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(value));
  return value;
}

uint64_t Xxh3(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

// The checksum of a block: of its frame's first 16 bytes, seeded with the
// XXH3-64 of its stored bytes.
uint64_t FrameChecksum(const BlockFrame& frame, std::string_view stored) {
  uint32_t fields[4] = {frame.raw_bytes, frame.stored_bytes, frame.record_count,
                        static_cast<uint32_t>(frame.codec)};
  return XXH3_64bits_withSeed(fields, sizeof(fields), Xxh3(stored));
}

absl::Status ChecksumMismatch(std::string_view what) {
  return absl::DataLossError(absl::StrFormat("spill run: %s checksum mismatch", what));
}

}  // namespace

size_t MaxStoredBytes(size_t block_bytes) { return ZSTD_COMPRESSBOUND(block_bytes); }

std::string EncodeRunHeader(uint32_t block_bytes) {
  std::string out(kHeaderMagic, sizeof(kHeaderMagic));
  Put<uint32_t>(&out, kRunFormatVersion);
  Put<uint32_t>(&out, block_bytes);
  Put<uint64_t>(&out, Xxh3(out));
  return out;
}

absl::StatusOr<RunHeader> DecodeRunHeader(std::string_view bytes, size_t max_block_bytes) {
  if (bytes.size() < kRunHeaderBytes) {
    return absl::DataLossError("spill run: shorter than its header");
  }
  if (std::memcmp(bytes.data(), kHeaderMagic, sizeof(kHeaderMagic)) != 0) {
    return absl::DataLossError("spill run: not a spill run (bad magic)");
  }
  if (kRunChecksumsEnforced && Get<uint64_t>(bytes, 16) != Xxh3(bytes.substr(0, 16))) {
    return ChecksumMismatch("header");
  }
  uint32_t version = Get<uint32_t>(bytes, 8);
  if (version != kRunFormatVersion) {
    return absl::DataLossError(absl::StrFormat(
        "spill run: format version %d is not %d, the one this lake reads", version,
        kRunFormatVersion));
  }
  RunHeader header;
  header.block_bytes = Get<uint32_t>(bytes, 12);
  if (header.block_bytes < kMinBlockBytes || header.block_bytes > kMaxBlockBytes ||
      header.block_bytes > max_block_bytes) {
    return absl::DataLossError(absl::StrFormat(
        "spill run: block size %d is outside %d..%d", header.block_bytes, kMinBlockBytes,
        std::min(kMaxBlockBytes, max_block_bytes)));
  }
  return header;
}

std::string EncodeBlockFrame(const BlockFrame& frame, std::string_view stored) {
  std::string out;
  out.reserve(kBlockFrameBytes);
  Put<uint32_t>(&out, frame.raw_bytes);
  Put<uint32_t>(&out, frame.stored_bytes);
  Put<uint32_t>(&out, frame.record_count);
  Put<uint32_t>(&out, static_cast<uint32_t>(frame.codec));
  Put<uint64_t>(&out, FrameChecksum(frame, stored));
  return out;
}

absl::StatusOr<BlockFrame> DecodeBlockFrame(std::string_view bytes, const RunHeader& header) {
  if (bytes.size() < kBlockFrameBytes) {
    return absl::DataLossError("spill run: a block frame is cut short");
  }
  BlockFrame frame;
  frame.raw_bytes = Get<uint32_t>(bytes, 0);
  frame.stored_bytes = Get<uint32_t>(bytes, 4);
  frame.record_count = Get<uint32_t>(bytes, 8);
  uint32_t codec = Get<uint32_t>(bytes, 12);
  frame.checksum = Get<uint64_t>(bytes, 16);
  if (codec != static_cast<uint32_t>(BlockCodec::kStored) &&
      codec != static_cast<uint32_t>(BlockCodec::kZstd)) {
    return absl::DataLossError(absl::StrFormat("spill run: unknown block codec %d", codec));
  }
  frame.codec = static_cast<BlockCodec>(codec);
  if (frame.raw_bytes == 0 || frame.raw_bytes > header.block_bytes) {
    return absl::DataLossError(absl::StrFormat("spill run: block of %d raw bytes (at most %d)",
                                               frame.raw_bytes, header.block_bytes));
  }
  bool stored_ok = frame.codec == BlockCodec::kStored
                       ? frame.stored_bytes == frame.raw_bytes
                       : frame.stored_bytes > 0 &&
                             frame.stored_bytes <= MaxStoredBytes(header.block_bytes);
  if (!stored_ok) {
    return absl::DataLossError(absl::StrFormat(
        "spill run: block of %d stored bytes for %d raw bytes", frame.stored_bytes,
        frame.raw_bytes));
  }
  if (frame.record_count == 0 || frame.record_count > frame.raw_bytes / 2) {
    return absl::DataLossError(absl::StrFormat("spill run: block of %d raw bytes with %d records",
                                               frame.raw_bytes, frame.record_count));
  }
  return frame;
}

absl::Status CheckBlockChecksum(const BlockFrame& frame, std::string_view stored) {
  if (!kRunChecksumsEnforced) return absl::OkStatus();
  if (FrameChecksum(frame, stored) != frame.checksum) return ChecksumMismatch("block");
  return absl::OkStatus();
}

std::string EncodeRunTrailer(const RunTrailer& trailer) {
  std::string out;
  out.reserve(kRunTrailerBytes);
  Put<uint64_t>(&out, trailer.record_count);
  Put<uint64_t>(&out, trailer.block_count);
  Put<uint64_t>(&out, trailer.blocks_digest);
  Put<uint64_t>(&out, Xxh3(out));
  out.append(kTrailerMagic, sizeof(kTrailerMagic));
  return out;
}

absl::StatusOr<RunTrailer> DecodeRunTrailer(std::string_view bytes) {
  if (bytes.size() < kRunTrailerBytes) {
    return absl::DataLossError("spill run: shorter than its trailer");
  }
  if (std::memcmp(bytes.data() + 32, kTrailerMagic, sizeof(kTrailerMagic)) != 0) {
    return absl::DataLossError("spill run: no trailer (the run is cut short or damaged)");
  }
  if (kRunChecksumsEnforced && Get<uint64_t>(bytes, 24) != Xxh3(bytes.substr(0, 24))) {
    return ChecksumMismatch("trailer");
  }
  RunTrailer trailer;
  trailer.record_count = Get<uint64_t>(bytes, 0);
  trailer.block_count = Get<uint64_t>(bytes, 8);
  trailer.blocks_digest = Get<uint64_t>(bytes, 16);
  return trailer;
}

uint64_t NextBlocksDigest(uint64_t digest, uint64_t block_checksum) {
  return XXH3_64bits_withSeed(&block_checksum, sizeof(block_checksum), digest);
}

size_t SharedPrefixBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i + 8 <= n) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    // Little-endian: the lowest differing bit is in the first differing byte.
    if (x != y) return i + static_cast<size_t>(__builtin_ctzll(x ^ y) / 8);
    i += 8;
  }
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

size_t PutVarint32(char* out, uint32_t value) {
  size_t n = 0;
  while (value >= 0x80) {
    out[n++] = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  out[n++] = static_cast<char>(value);
  return n;
}

size_t Varint32Bytes(uint32_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

bool GetVarint32(std::string_view bytes, size_t* pos, uint32_t* value) {
  uint32_t result = 0;
  size_t p = *pos;
  for (unsigned shift = 0; shift <= 28; shift += 7) {
    if (p >= bytes.size()) return false;
    uint32_t byte = static_cast<uint8_t>(bytes[p++]);
    if (shift == 28 && byte > 0x0f) return false;  // more than 32 bits
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      *value = result;
      *pos = p;
      return true;
    }
  }
  return false;
}

}  // namespace lake::spill
