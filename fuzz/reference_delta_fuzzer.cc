// Fuzzes lake::table::DecodeReferenceDelta and ReferenceDeltaReader, the
// readers of the reference deltas garbage collection walks
// (engine/table/reference_delta_format.h).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so checksums and the
// digest that do not match are not refused and the entry parser behind
// them is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. The piece-by-piece reader agrees with the whole-buffer decoder, and
//      never asks for a piece larger than kMaxReferenceChunkBytes.
//   3. An accepted delta is canonical (each list sorted without
//      duplicates, child after parent; format 1 has no removals) and
//      re-encodes to the input's length; the new bytes decode to the same
//      delta, with the encoder's digest.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/table/reference_delta_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::DataLocation;
using lake::table::ReferenceDelta;
using lake::table::ReferenceDeltaReader;

using lake::fuzz::Check;

bool Sorted(const std::vector<DataLocation>& entries) {
  return std::adjacent_find(entries.begin(), entries.end(),
                            [](const DataLocation& a, const DataLocation& b) {
                              return !lake::table::ReferenceLess(a, b);
                            }) == entries.end();
}

// The entries ReferenceDeltaReader gives for `bytes` (additions into
// `all`, removals into `removed`), or false on a refusal.
bool ReadPiecewise(std::string_view bytes, std::vector<DataLocation>* all, std::string* digest,
                   std::vector<DataLocation>* removed) {
  ReferenceDeltaReader reader;
  std::vector<DataLocation> entries;
  size_t offset = 0;
  while (!reader.done()) {
    size_t n = reader.next_piece_bytes();
    Check(n <= lake::table::kMaxReferenceChunkBytes);
    if (bytes.size() - offset < n) return false;
    absl::Status status = reader.Next(bytes.substr(offset, n), &entries);
    if (!status.ok()) {
      Check(absl::IsDataLoss(status));
      Check(entries.empty());
      return false;
    }
    offset += n;
    std::vector<DataLocation>* into = reader.last_chunk_removes() ? removed : all;
    into->insert(into->end(), entries.begin(), entries.end());
  }
  *digest = reader.digest();
  return offset == bytes.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ReferenceDelta> decoded = lake::table::DecodeReferenceDelta(bytes);
  std::vector<DataLocation> piecewise;
  std::vector<DataLocation> piecewise_removed;
  std::string digest;
  bool read = ReadPiecewise(bytes, &piecewise, &digest, &piecewise_removed);
  Check(read == decoded.ok());
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  Check(piecewise == decoded->added);
  Check(piecewise_removed == decoded->removed);
  uint32_t format_version = 0;
  __builtin_memcpy(&format_version, bytes.data() + 8, 4);
  Check(decoded->removed.empty() == (format_version == lake::table::kReferenceDeltaFormatVersionV1));
  Check(decoded->child_version > decoded->parent_version);
  Check(Sorted(decoded->added));
  Check(Sorted(decoded->removed));

  absl::StatusOr<lake::table::EncodedReferenceDelta> encoded =
      lake::table::EncodeReferenceDelta(*decoded);
  Check(encoded.ok());
  Check(encoded->bytes.size() == size);
  absl::StatusOr<ReferenceDelta> again = lake::table::DecodeReferenceDelta(encoded->bytes);
  Check(again.ok() && *again == *decoded);
  std::vector<DataLocation> again_piecewise;
  std::vector<DataLocation> again_removed;
  std::string again_digest;
  Check(ReadPiecewise(encoded->bytes, &again_piecewise, &again_digest, &again_removed));
  Check(again_digest == encoded->digest);
  return 0;
}
