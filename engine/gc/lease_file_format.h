// The lease file format: one file per leasing process (lease_store.h),
// appended to as the process leases keys and updated in place as it
// releases them.
//
// Format (version 1); integers little-endian:
//   header (24 bytes)
//     magic          8 bytes   "LAKELEAS"
//     version        u32       1
//     pid            u32       the process that made the file (for operators)
//     digest         u64       XXH3-64 of the 16 bytes above
//   records, back to back, each
//     uri_bytes      u32       1..kMaxLeaseUriBytes
//     leased_at      i64       Unix microseconds when the lease was taken
//     uri            uri_bytes a canonical location URI (CheckLocationUri)
//     digest         u64       XXH3-64 of uri_bytes, leased_at and uri
//     state          u8        'L' held, 'R' released
// The digest leaves the state byte out: releasing a lease overwrites that
// one byte in place ('L' → 'R'), never anything else, and never extends
// the file.
//
// Zero padding. The writer zeroes the file ahead of its records (so that a
// record overwrites bytes already allocated and written, and its sync
// changes no metadata): the records end at the first record whose length
// is 0, and every byte after them is 0 but for a torn tail.
//
// Torn tails. The writer appends one record at a time and syncs it before
// the next (an acknowledged lease is durable), so after a crash at most the
// bytes of one unacknowledged record — scattered over the pages a torn
// write leaves, zeros included — follow the last durable one; the same
// holds while a reader races the writer's append. A decoder therefore ends
// the records at the first one that is zero-length, incomplete or damaged,
// at offset `at`, and accepts the file when every byte from
// at + kMaxTornTailBytes to its end is 0 (the lost append held no
// acknowledged lease); a non-zero byte there is DataLoss. A header that is
// damaged or incomplete is the same, with `at` = 0: a file whose creation
// never finished (it holds nothing), else DataLoss.
#ifndef LAKE_ENGINE_GC_LEASE_FILE_FORMAT_H_
#define LAKE_ENGINE_GC_LEASE_FILE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::gc {

inline constexpr std::string_view kLeaseFileMagic = "LAKELEAS";
inline constexpr uint32_t kLeaseFileVersion = 1;
inline constexpr size_t kLeaseHeaderBytes = 24;
// A location URI is at most this long (as in reference deltas).
inline constexpr size_t kMaxLeaseUriBytes = 4096;
inline constexpr size_t kLeaseRecordOverheadBytes = 4 + 8 + 8 + 1;
inline constexpr size_t kMaxLeaseRecordBytes = kLeaseRecordOverheadBytes + kMaxLeaseUriBytes;
// One record, and the page a torn write may round it up to.
inline constexpr size_t kMaxTornTailBytes = kMaxLeaseRecordBytes + 4096;

inline constexpr char kLeaseHeld = 'L';
inline constexpr char kLeaseReleased = 'R';

struct LeaseRecord {
  std::string uri;
  int64_t leased_unix_micros = 0;
  bool released = false;
  uint64_t state_offset = 0;  // the file offset of its state byte
};

struct DecodedLeaseFile {
  uint32_t pid = 0;  // 0 when the header never became complete
  std::vector<LeaseRecord> records;
  // Where the records end: the next record's offset (the end of the
  // header when there is none).
  uint64_t records_end = 0;
  // Non-zero bytes after records_end (a torn tail), at most
  // kMaxTornTailBytes of them from records_end on.
  bool torn_tail = false;
};

std::string EncodeLeaseFileHeader(uint32_t pid);
// A held lease's record; its state byte is the last byte. Precondition:
// `uri` passes CheckLocationUri and is at most kMaxLeaseUriBytes.
std::string EncodeLeaseRecord(std::string_view uri, int64_t leased_unix_micros);

// The file as described above; DataLoss naming the offset of any damage
// that is not a torn tail.
absl::StatusOr<DecodedLeaseFile> DecodeLeaseFile(std::string_view bytes);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_LEASE_FILE_FORMAT_H_
