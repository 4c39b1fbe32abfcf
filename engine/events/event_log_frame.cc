// Event-log frames; the format note is in event_log_frame.h.
#include "engine/events/event_log_frame.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include <xxhash.h>

#include "absl/strings/str_cat.h"
#include "engine/table/byte_codec.h"

namespace lake::events {
namespace {

constexpr size_t kChecksumOffset = 24;
// Version 3's flags byte (offset 9).
constexpr uint8_t kFlagPriorSynced = 0x01;
constexpr size_t kSealPayloadBytesV1 = 16;
constexpr size_t kSealPayloadBytes = 24;

// XXH3-64 with `seed` of the header's first 24 bytes followed by the
// payload, streamed (with seed 0, the same value table::Checksum64 gives for
// the two concatenated).
uint64_t FrameChecksum(std::string_view header_prefix, absl::Span<const RecordBatch> payloads,
                       uint64_t seed) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  XXH3_64bits_reset_withSeed(state.get(), seed);
  XXH3_64bits_update(state.get(), header_prefix.data(), header_prefix.size());
  for (const RecordBatch& p : payloads) {
    XXH3_64bits_update(state.get(), p.payload.data(), p.payload.size());
  }
  return XXH3_64bits_digest(state.get());
}

// Appends the header of a frame of `kind` holding `batches` (version 3).
void AppendFrameHeaderOf(FrameKind kind, absl::Span<const RecordBatch> batches, uint64_t seed,
                         bool prior_synced, std::string* out) {
  uint32_t records = 0;
  uint64_t payload_bytes = 0;
  for (const RecordBatch& b : batches) {
    records += b.records;
    payload_bytes += b.payload.size();
  }
  const size_t start = out->size();
  table::ByteWriter w(out);
  w.Bytes(kFrameMagic);
  w.U32(kFrameFormatVersion);
  w.U8(static_cast<uint8_t>(kind));
  w.U8(prior_synced ? kFlagPriorSynced : 0);
  w.U8(0);
  w.U8(0);
  w.U32(records);
  w.U64(payload_bytes);
  w.U64(FrameChecksum(std::string_view(*out).substr(start, kChecksumOffset), batches, seed));
}

// Appends a frame of `kind` holding `batches` (version 3).
void AppendFrameOf(FrameKind kind, absl::Span<const RecordBatch> batches, uint64_t seed,
                   bool prior_synced, std::string* out) {
  size_t payload_bytes = 0;
  for (const RecordBatch& b : batches) payload_bytes += b.payload.size();
  out->reserve(out->size() + kFrameHeaderBytes + payload_bytes);
  AppendFrameHeaderOf(kind, batches, seed, prior_synced, out);
  for (const RecordBatch& b : batches) out->append(b.payload);
}

enum class Verdict { kValid, kInvalid, kRefused };

struct Candidate {
  Verdict verdict = Verdict::kInvalid;
  Frame frame;
  uint64_t end = 0;
  std::string why;  // kRefused
};

// Whether a frame of `version` checksummed with `seed` starts at `offset`:
// kInvalid for bytes that are not one (incomplete, wrong magic, failed
// checksum), kRefused for a checksummed frame of another version or of a
// kind this code does not read.
Candidate TryFrame(std::string_view segment, uint64_t offset, uint32_t version, uint64_t seed) {
  Candidate c;
  if (segment.size() - offset < kFrameHeaderBytes) return c;
  table::ByteReader r(segment.substr(offset, kFrameHeaderBytes));
  std::string_view magic;
  uint32_t frame_version = 0, records = 0;
  uint8_t kind = 0, flags = 0, pad1 = 0, pad2 = 0;
  uint64_t payload_bytes = 0, checksum = 0;
  if (!r.Bytes(kFrameMagic.size(), &magic) || !r.U32(&frame_version) || !r.U8(&kind) ||
      !r.U8(&flags) || !r.U8(&pad1) || !r.U8(&pad2) || !r.U32(&records) || !r.U64(&payload_bytes) ||
      !r.U64(&checksum)) {
    return c;
  }
  if (magic != kFrameMagic) return c;
  if (payload_bytes > segment.size() - offset - kFrameHeaderBytes) return c;
  std::string_view payload = segment.substr(offset + kFrameHeaderBytes, payload_bytes);
  const RecordBatch covered{records, payload};
  if (table::kChecksumsEnforced &&
      FrameChecksum(segment.substr(offset, kChecksumOffset), {&covered, 1}, seed) != checksum) {
    return c;
  }
  if (frame_version != version) {
    c.verdict = Verdict::kRefused;
    c.why = absl::StrCat("frame format version ", frame_version, " in a segment of version ",
                         version, " (this lake reads ", kFrameFormatVersion1, " to ",
                         kFrameFormatVersion, ")");
    return c;
  }
  // Only version 3 has flags; before it, every frame was synced alone.
  const uint8_t known_flags = version == kFrameFormatVersion ? kFlagPriorSynced : 0;
  if ((kind != static_cast<uint8_t>(FrameKind::kEvents) &&
       kind != static_cast<uint8_t>(FrameKind::kSegmentSeal)) ||
      (flags & ~known_flags) != 0 || pad1 != 0 || pad2 != 0 ||
      payload_bytes > kMaxFramePayloadBytes) {
    c.verdict = Verdict::kRefused;
    c.why = absl::StrCat("a frame of unknown kind ", kind, " or with a malformed header");
    return c;
  }
  c.verdict = Verdict::kValid;
  c.frame = Frame{static_cast<FrameKind>(kind), frame_version, records, offset, payload,
                  version != kFrameFormatVersion || (flags & kFlagPriorSynced) != 0};
  c.end = offset + kFrameHeaderBytes + payload_bytes;
  return c;
}

// The version (2 or 3) of the seal whose header `segment` starts with,
// whether or not the frame checks; 0 when it starts with none.
uint32_t SealVersionOf(std::string_view segment) {
  if (segment.size() < kFrameHeaderBytes + kSealPayloadBytes) return 0;
  table::ByteReader r(segment.substr(0, kFrameHeaderBytes));
  std::string_view magic;
  uint32_t version = 0;
  uint8_t kind = 0;
  bool seal = r.Bytes(kFrameMagic.size(), &magic) && r.U32(&version) && r.U8(&kind) &&
              magic == kFrameMagic && kind == static_cast<uint8_t>(FrameKind::kSegmentSeal) &&
              (version == kFrameFormatVersion2 || version == kFrameFormatVersion);
  return seal ? version : 0;
}

// The frame seed field of a version 2 or 3 seal at the start of `segment`
// (SealVersionOf), unchecked.
uint64_t SeedBytesOfSeal(std::string_view segment) {
  uint64_t seed = 0;
  table::ByteReader r(segment.substr(kFrameHeaderBytes + 16, 8));
  (void)r.U64(&seed);
  return seed;
}

absl::Status Damaged(std::string_view name, uint64_t offset, std::string_view why) {
  return absl::DataLossError(absl::StrCat("event log segment ", std::string(name),
                                          " is damaged at offset ", offset, ": ",
                                          std::string(why)));
}

}  // namespace

void AppendFrame(FrameKind kind, uint32_t records, std::string_view payload, uint64_t seed,
                 std::string* out, bool prior_synced) {
  const RecordBatch batch{records, payload};
  AppendFrameOf(kind, {&batch, 1}, seed, prior_synced, out);
}

void AppendEventsFrame(absl::Span<const RecordBatch> batches, uint64_t seed, std::string* out,
                       bool prior_synced) {
  AppendFrameOf(FrameKind::kEvents, batches, seed, prior_synced, out);
}

void AppendEventsFrameHeader(absl::Span<const RecordBatch> batches, uint64_t seed,
                             std::string* out, bool prior_synced) {
  AppendFrameHeaderOf(FrameKind::kEvents, batches, seed, prior_synced, out);
}

std::string EncodeSegmentSeal(const SegmentSeal& seal) {
  std::string payload;
  table::ByteWriter w(&payload);
  w.U64(seal.previous_segment);
  w.U64(seal.previous_valid_bytes);
  w.U64(seal.frame_seed);
  std::string frame;
  AppendFrame(FrameKind::kSegmentSeal, 0, payload, 0, &frame);
  return frame;
}

absl::StatusOr<SegmentSeal> DecodeSegmentSeal(const Frame& frame) {
  SegmentSeal seal;
  table::ByteReader r(frame.payload);
  const size_t expected =
      frame.version == kFrameFormatVersion1 ? kSealPayloadBytesV1 : kSealPayloadBytes;
  if (frame.kind != FrameKind::kSegmentSeal || frame.records != 0 ||
      frame.payload.size() != expected || !r.U64(&seal.previous_segment) ||
      !r.U64(&seal.previous_valid_bytes) ||
      (expected == kSealPayloadBytes && !r.U64(&seal.frame_seed))) {
    return absl::DataLossError(
        absl::StrCat("a segment seal at offset ", frame.offset, " is malformed"));
  }
  return seal;
}

absl::StatusOr<SegmentScan> ScanSegment(std::string_view segment, std::string_view name,
                                        uint64_t start) {
  SegmentScan scan;
  // The segment's version and seed: from a version 2 or 3 seal at its start.
  const uint32_t seal_version = SealVersionOf(segment);
  Candidate first = TryFrame(segment, 0, seal_version, 0);
  if (seal_version != 0 && first.verdict == Verdict::kValid) {
    absl::StatusOr<SegmentSeal> seal = DecodeSegmentSeal(first.frame);
    if (!seal.ok()) return Damaged(name, 0, std::string(seal.status().message()));
    scan.version = seal_version;
    scan.frame_seed = seal->frame_seed;
  } else if (seal_version != 0 && first.verdict == Verdict::kInvalid) {
    // A seal that does not check: torn (its session never wrote a frame:
    // frames follow only a synced seal) or damaged. The seed it names, if
    // intact, still finds the frames that would make it damage.
    scan.version = seal_version;
    scan.frame_seed = SeedBytesOfSeal(segment);
  }
  // The seal is checksummed with seed 0; every other frame with the seed.
  auto seed_at = [&](uint64_t offset) { return offset == 0 ? 0 : scan.frame_seed; };
  uint64_t offset = std::min<uint64_t>(start, segment.size());
  while (offset < segment.size()) {
    Candidate c = TryFrame(segment, offset, scan.version, seed_at(offset));
    if (c.verdict == Verdict::kRefused) return Damaged(name, offset, c.why);
    if (c.verdict == Verdict::kValid) {
      scan.frames.push_back(c.frame);
      offset = c.end;
      continue;
    }
    // Not a frame: a torn tail, unless a frame follows whose writer knew
    // these bytes durable (or one this code refuses).
    for (size_t at = segment.find(kFrameMagic, offset + 1); at != std::string_view::npos;
         at = segment.find(kFrameMagic, at + 1)) {
      Candidate later = TryFrame(segment, at, scan.version, seed_at(at));
      if (later.verdict == Verdict::kRefused ||
          (later.verdict == Verdict::kValid && later.frame.prior_synced)) {
        return Damaged(name, offset,
                       absl::StrCat("the frame there is not valid, yet a frame follows at ", at));
      }
    }
    scan.torn_tail = true;
    break;
  }
  scan.valid_bytes = offset;
  return scan;
}

}  // namespace lake::events
