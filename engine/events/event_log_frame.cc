// Event-log frames; the format note is in event_log_frame.h.
#include "engine/events/event_log_frame.h"

#include <cstring>
#include <memory>

#include <xxhash.h>

#include "absl/strings/str_cat.h"
#include "engine/table/byte_codec.h"

namespace lake::events {
namespace {

constexpr size_t kRecordsOffset = 12;
constexpr size_t kChecksumOffset = 24;
constexpr size_t kSealPayloadBytes = 16;

// XXH3-64 of the header's first 24 bytes followed by the payload, streamed
// (the same value table::Checksum64 gives for the two concatenated).
uint64_t FrameChecksum(std::string_view header_prefix, std::string_view payload) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  XXH3_64bits_update(state.get(), header_prefix.data(), header_prefix.size());
  XXH3_64bits_update(state.get(), payload.data(), payload.size());
  return XXH3_64bits_digest(state.get());
}

enum class Verdict { kValid, kInvalid, kRefused };

struct Candidate {
  Verdict verdict = Verdict::kInvalid;
  Frame frame;
  uint64_t end = 0;
  std::string why;  // kRefused
};

// Whether a frame starts at `offset`: kInvalid for bytes that are not one
// (incomplete, wrong magic, failed checksum), kRefused for a checksummed
// frame of a version or kind this code does not read.
Candidate TryFrame(std::string_view segment, uint64_t offset) {
  Candidate c;
  if (segment.size() - offset < kFrameHeaderBytes) return c;
  table::ByteReader r(segment.substr(offset, kFrameHeaderBytes));
  std::string_view magic;
  uint32_t version = 0, records = 0;
  uint8_t kind = 0, pad0 = 0, pad1 = 0, pad2 = 0;
  uint64_t payload_bytes = 0, checksum = 0;
  if (!r.Bytes(kFrameMagic.size(), &magic) || !r.U32(&version) || !r.U8(&kind) || !r.U8(&pad0) ||
      !r.U8(&pad1) || !r.U8(&pad2) || !r.U32(&records) || !r.U64(&payload_bytes) ||
      !r.U64(&checksum)) {
    return c;
  }
  if (magic != kFrameMagic) return c;
  if (payload_bytes > segment.size() - offset - kFrameHeaderBytes) return c;
  std::string_view payload = segment.substr(offset + kFrameHeaderBytes, payload_bytes);
  if (table::kChecksumsEnforced &&
      FrameChecksum(segment.substr(offset, kChecksumOffset), payload) != checksum) {
    return c;
  }
  if (version != kFrameFormatVersion) {
    c.verdict = Verdict::kRefused;
    c.why = absl::StrCat("frame format version ", version, " (this lake reads ",
                         kFrameFormatVersion, ")");
    return c;
  }
  if ((kind != static_cast<uint8_t>(FrameKind::kEvents) &&
       kind != static_cast<uint8_t>(FrameKind::kSegmentSeal)) ||
      pad0 != 0 || pad1 != 0 || pad2 != 0 || payload_bytes > kMaxFramePayloadBytes) {
    c.verdict = Verdict::kRefused;
    c.why = absl::StrCat("a frame of unknown kind ", kind, " or with a malformed header");
    return c;
  }
  c.verdict = Verdict::kValid;
  c.frame = Frame{static_cast<FrameKind>(kind), records, offset, payload};
  c.end = offset + kFrameHeaderBytes + payload_bytes;
  return c;
}

absl::Status Damaged(std::string_view name, uint64_t offset, std::string_view why) {
  return absl::DataLossError(absl::StrCat("event log segment ", std::string(name),
                                          " is damaged at offset ", offset, ": ",
                                          std::string(why)));
}

}  // namespace

size_t StartFrame(std::string* out) {
  size_t start = out->size();
  out->append(kFrameHeaderBytes, '\0');
  return start;
}

void FinishFrame(FrameKind kind, uint32_t records, size_t start, std::string* out) {
  const uint64_t payload_bytes = out->size() - start - kFrameHeaderBytes;
  std::string header;
  header.reserve(kFrameHeaderBytes);
  table::ByteWriter w(&header);
  w.Bytes(kFrameMagic);
  w.U32(kFrameFormatVersion);
  w.U8(static_cast<uint8_t>(kind));
  w.U8(0);
  w.U8(0);
  w.U8(0);
  w.U32(records);
  w.U64(payload_bytes);
  w.U64(FrameChecksum(header, std::string_view(*out).substr(start + kFrameHeaderBytes)));
  out->replace(start, kFrameHeaderBytes, header);
}

void AppendFrame(FrameKind kind, uint32_t records, std::string_view payload, std::string* out) {
  size_t start = StartFrame(out);
  out->append(payload);
  FinishFrame(kind, records, start, out);
}

void AppendFramesAsOne(absl::Span<const std::string_view> frames, std::string* out) {
  size_t start = StartFrame(out);
  uint32_t records = 0;
  for (std::string_view frame : frames) {
    uint32_t frame_records = 0;
    table::ByteReader r(frame.substr(kRecordsOffset, 4));
    (void)r.U32(&frame_records);  // a whole frame: its header is there
    records += frame_records;
    out->append(frame.substr(kFrameHeaderBytes));
  }
  FinishFrame(FrameKind::kEvents, records, start, out);
}

std::string EncodeSegmentSeal(const SegmentSeal& seal) {
  std::string payload;
  table::ByteWriter w(&payload);
  w.U64(seal.previous_segment);
  w.U64(seal.previous_valid_bytes);
  std::string frame;
  AppendFrame(FrameKind::kSegmentSeal, 0, payload, &frame);
  return frame;
}

absl::StatusOr<SegmentSeal> DecodeSegmentSeal(const Frame& frame) {
  SegmentSeal seal;
  table::ByteReader r(frame.payload);
  if (frame.kind != FrameKind::kSegmentSeal || frame.records != 0 ||
      frame.payload.size() != kSealPayloadBytes || !r.U64(&seal.previous_segment) ||
      !r.U64(&seal.previous_valid_bytes)) {
    return absl::DataLossError(
        absl::StrCat("a segment seal at offset ", frame.offset, " is malformed"));
  }
  return seal;
}

absl::StatusOr<SegmentScan> ScanSegment(std::string_view segment, std::string_view name) {
  SegmentScan scan;
  uint64_t offset = 0;
  while (offset < segment.size()) {
    Candidate c = TryFrame(segment, offset);
    if (c.verdict == Verdict::kRefused) return Damaged(name, offset, c.why);
    if (c.verdict == Verdict::kValid) {
      scan.frames.push_back(c.frame);
      offset = c.end;
      continue;
    }
    // Not a frame: a torn tail, unless a valid frame follows.
    for (size_t at = segment.find(kFrameMagic, offset + 1); at != std::string_view::npos;
         at = segment.find(kFrameMagic, at + 1)) {
      if (TryFrame(segment, at).verdict != Verdict::kInvalid) {
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
