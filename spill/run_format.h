// The file format of a spill run: byte-string records in strictly
// ascending bytewise order, in blocks of at most `block_bytes` raw bytes,
// each block compressed with zstd (or stored as it is when zstd does not
// shrink it) and checksummed with XXH3.
//
// Format (version 1). Integers are little-endian.
//
//   run     := header block* trailer
//   header  := magic "LAKESPIL" (8 bytes)
//              u32 format_version (1)
//              u32 block_bytes          the most raw bytes of one block,
//                                       kMinBlockBytes..kMaxBlockBytes
//              u64 checksum             XXH3-64 of the 16 bytes before it
//   block   := u32 raw_bytes            1..block_bytes
//              u32 stored_bytes         == raw_bytes (codec 0), or
//                                       1..MaxStoredBytes(block_bytes) (1)
//              u32 record_count         1..raw_bytes / 2
//              u32 codec                0 stored as is, 1 zstd
//              u64 checksum             XXH3-64 of the 16 bytes before it,
//                                       seeded with the XXH3-64 of `stored`
//              stored                   stored_bytes bytes; the raw bytes
//                                       are `stored` (codec 0) or what it
//                                       decompresses to (codec 1)
//   raw     := record_count × { varint shared, varint unshared,
//                               unshared bytes }
//   trailer := u64 record_count         the records of every block
//              u64 block_count
//              u64 blocks_digest        d(0) = 0, d(i+1) = XXH3-64 of the
//                                       8 bytes of block i's checksum,
//                                       seeded with d(i)
//              u64 checksum             XXH3-64 of the 24 bytes before it
//              magic "SPILLEND" (8 bytes)
//
// A record is the first `shared` bytes of the record before it (across
// blocks too; 0 for the first record of the run) followed by the
// `unshared` bytes: sorted records share long prefixes (URIs), and cutting
// them before zstd halves what it has to compress. A varint is LEB128 of a
// u32 (at most 5 bytes). Every record is strictly greater than the one
// before it (duplicates were collapsed when the run was written) and at
// most MaxRecordBytes(block_bytes) long, so it fits an empty block.
//
// Readers fail closed: an unknown magic, version or codec, a length out of
// its bounds, a checksum that does not match, a record out of order, a
// block running into the trailer, counts or a digest the trailer does not
// confirm — each is DataLoss. The trailer is at a fixed place from the end,
// so a torn run (a file cut anywhere) is refused before any record of it is
// used; the blocks' digest in it refuses a run with a block lost,
// repeated or moved.
//
// Runs are scratch: they live only as long as the operation that wrote
// them (spill_directory.h), are never synced, and no later version of lake
// reads them. The version is there to refuse, not to migrate.
#ifndef LAKE_SPILL_RUN_FORMAT_H_
#define LAKE_SPILL_RUN_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::spill {

inline constexpr uint32_t kRunFormatVersion = 1;
inline constexpr size_t kRunHeaderBytes = 24;
inline constexpr size_t kBlockFrameBytes = 24;
inline constexpr size_t kRunTrailerBytes = 40;

// Bounds of a run's block size. The upper bound keeps what a reader
// allocates from a header it has not yet verified small.
inline constexpr size_t kMinBlockBytes = 4096;
inline constexpr size_t kMaxBlockBytes = 16u << 20;

// The most bytes one record's two varints take.
inline constexpr size_t kMaxRecordOverheadBytes = 10;
// The longest record a run of `block_bytes` blocks holds: one that fits an
// empty block with its varints.
constexpr size_t MaxRecordBytes(size_t block_bytes) {
  return block_bytes - kMaxRecordOverheadBytes;
}
// The most stored bytes of one block of `block_bytes` (zstd's bound).
size_t MaxStoredBytes(size_t block_bytes);

// Whether a decoder refuses a checksum that does not match. Only a fuzzing
// build (clang's FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, set by
// fuzz/meson.build) turns this off, so the fuzzer reaches the parsing
// behind the checksums; every structural check still runs there.
#if defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
inline constexpr bool kRunChecksumsEnforced = false;
#else
inline constexpr bool kRunChecksumsEnforced = true;
#endif

struct RunHeader {
  uint32_t block_bytes = 0;
};

enum class BlockCodec : uint32_t { kStored = 0, kZstd = 1 };

struct BlockFrame {
  uint32_t raw_bytes = 0;
  uint32_t stored_bytes = 0;
  uint32_t record_count = 0;
  BlockCodec codec = BlockCodec::kStored;
  uint64_t checksum = 0;
};

struct RunTrailer {
  uint64_t record_count = 0;
  uint64_t block_count = 0;
  uint64_t blocks_digest = 0;
};

// Precondition: kMinBlockBytes <= block_bytes <= kMaxBlockBytes.
std::string EncodeRunHeader(uint32_t block_bytes);
// `bytes` holds at least kRunHeaderBytes. A run with blocks larger than
// `max_block_bytes` (what the reader's buffers were planned for) is
// refused too.
absl::StatusOr<RunHeader> DecodeRunHeader(std::string_view bytes, size_t max_block_bytes);

// The frame of a block whose frame fields are `frame` (checksum ignored)
// and whose stored bytes are `stored`: the frame with its checksum, as
// kBlockFrameBytes bytes.
std::string EncodeBlockFrame(const BlockFrame& frame, std::string_view stored);
// `bytes` holds at least kBlockFrameBytes. Checks the lengths against the
// run's header; the checksum is checked by CheckBlockChecksum once the
// stored bytes are read.
absl::StatusOr<BlockFrame> DecodeBlockFrame(std::string_view bytes, const RunHeader& header);
absl::Status CheckBlockChecksum(const BlockFrame& frame, std::string_view stored);

std::string EncodeRunTrailer(const RunTrailer& trailer);
// `bytes` holds at least kRunTrailerBytes.
absl::StatusOr<RunTrailer> DecodeRunTrailer(std::string_view bytes);

// The trailer's blocks_digest after one more block.
uint64_t NextBlocksDigest(uint64_t digest, uint64_t block_checksum);

// The length of the prefix `a` and `b` share: what a record takes from the
// one before it.
size_t SharedPrefixBytes(std::string_view a, std::string_view b);

// LEB128 of a u32. Appends at `out` (room for 5 bytes) and returns the
// bytes written.
size_t PutVarint32(char* out, uint32_t value);
size_t Varint32Bytes(uint32_t value);
// Reads at `*pos` within `bytes`, advancing it; false (nothing consumed)
// when it is cut short or does not fit in a u32.
bool GetVarint32(std::string_view bytes, size_t* pos, uint32_t* value);

}  // namespace lake::spill

#endif  // LAKE_SPILL_RUN_FORMAT_H_
