// The frames of an event-log segment file, and the scan that reads them.
//
// Format note (frame format version 3). A shard of an experiment's log is a
// sequence of segment files; a segment is a sequence of frames, each written
// by one pwrite:
//
//   offset  bytes  field
//   0       4      magic "LKEV"
//   4       4      u32 frame format version (3)
//   8       1      u8 kind: 1 = a batch of event records, 2 = a segment seal
//   9       1      u8 flags: bit 0 "prior synced" (below); no other bit set
//   10      2      zero
//   12      4      u32 record count (events in the batch; 0 for a seal)
//   16      8      u64 payload bytes (at most kMaxFramePayloadBytes)
//   24      8      u64 XXH3-64, seeded with the segment's frame seed, of
//                  bytes [0, 24) followed by the payload
//   32      n      payload
//
// Integers are little-endian. An events payload is `record count` event
// records (engine/events/event_record_format.h) back to back.
//
// Every segment starts with a seal, checksummed with seed 0, whose payload
// is u64 previous segment number, u64 the previous segment's valid bytes (0
// and 0 in segment 1) and u64 the segment's frame seed: a random number
// every later frame of the segment is checksummed with. The seal lets a
// reader tell the torn tail of a crashed writer's segment (bytes past the
// sealed length: never acknowledged) from damage to acknowledged frames
// (DataLoss); the seed means no bytes but a writer's own frames pass as a
// frame of the segment, not even a frame copied into an event's value.
//
// "Prior synced": every byte of the segment before the frame was durable
// (synced) when the frame was written. A durable batch's frame always has
// it (its writer syncs what came before first); a relaxed batch's frame —
// appended without a sync of its own, durable at the next sync — has it
// only when nothing unsynced preceded it. A seal has it.
//
// The batches of one group commit (shard_log.h) are written as one frame,
// their records back to back: the pages of one write may reach the disk in
// any order before its sync, so a group written as several frames could
// leave an earlier frame torn and a later one whole. As one frame, the group
// is all or nothing.
//
// A batch is all or nothing: a frame whose header or payload is incomplete
// or whose checksum fails is not part of the log, and neither is anything
// after it. Such bytes are a torn tail (a write no sync had covered yet was
// cut short, and what follows was written after it, unsynced too) unless a
// valid frame with "prior synced" follows: that frame's writer knew the
// bytes before it durable, so they are damage, and the scan fails closed
// naming the offset. (A torn relaxed frame may be followed by later relaxed
// frames that survived a power loss whole: they were written after it, and
// are dropped with it.) The zeros a writer writes ahead of its frames
// (shard_log.h) scan the same way: the end of the segment's frames.
//
// Versions 1 and 2 (read, no longer written): every frame of theirs was
// synced on its own, so each counts as "prior synced", and their flags byte
// is zero. Version 2 differs from 3 only there. Version 1 has no seed
// (XXH3-64 unseeded), segment 1 has no seal, and a seal's payload stops
// after the previous segment's valid bytes. A segment's version is that of
// its seal, or 1 when it does not start with a version 2 or 3 seal; a frame
// of another version than its segment's is refused.
#ifndef LAKE_ENGINE_EVENTS_EVENT_LOG_FRAME_H_
#define LAKE_ENGINE_EVENTS_EVENT_LOG_FRAME_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace lake::events {

inline constexpr std::string_view kFrameMagic = "LKEV";
inline constexpr uint32_t kFrameFormatVersion = 3;    // written
inline constexpr uint32_t kFrameFormatVersion2 = 2;   // still read
inline constexpr uint32_t kFrameFormatVersion1 = 1;   // still read
inline constexpr size_t kFrameHeaderBytes = 32;
// One checkpoint batch per frame; a batch larger than this is refused
// before anything is written (blobs above the inline threshold are
// offloaded, so real batches are far smaller).
inline constexpr uint64_t kMaxFramePayloadBytes = uint64_t{64} << 20;

enum class FrameKind : uint8_t { kEvents = 1, kSegmentSeal = 2 };

struct Frame {
  FrameKind kind = FrameKind::kEvents;
  uint32_t version = kFrameFormatVersion;
  uint32_t records = 0;
  uint64_t offset = 0;       // of the header within the segment
  std::string_view payload;  // a view into the scanned bytes
  bool prior_synced = true;  // the flag above (always, before version 3)
};

struct SegmentSeal {
  uint64_t previous_segment = 0;      // 0 in segment 1
  uint64_t previous_valid_bytes = 0;  // 0 in segment 1
  uint64_t frame_seed = 0;            // 0 in a version 1 seal
};

// Appends one frame (version 3) checksummed with `seed`: the segment's
// frame seed, or 0 for a seal; `prior_synced` is its flag. Precondition:
// payload.size() <= kMaxFramePayloadBytes.
void AppendFrame(FrameKind kind, uint32_t records, std::string_view payload, uint64_t seed,
                 std::string* out, bool prior_synced = true);

// One batch of event records: how many, and their bytes.
struct RecordBatch {
  uint32_t records = 0;
  std::string_view payload;
};
// Appends one kEvents frame (version 3) checksummed with `seed`, holding the
// records of `batches` in order (a group commit's batches). Precondition:
// the payloads total at most kMaxFramePayloadBytes, the records at most
// UINT32_MAX.
void AppendEventsFrame(absl::Span<const RecordBatch> batches, uint64_t seed, std::string* out,
                       bool prior_synced = true);
// Only that frame's header (the payloads follow it as they are).
void AppendEventsFrameHeader(absl::Span<const RecordBatch> batches, uint64_t seed,
                             std::string* out, bool prior_synced = true);

// The seal frame (header and payload, version 3) opening a segment.
std::string EncodeSegmentSeal(const SegmentSeal& seal);
// The seal a kSegmentSeal frame holds (of either version); DataLoss when it
// is malformed.
absl::StatusOr<SegmentSeal> DecodeSegmentSeal(const Frame& frame);

struct SegmentScan {
  uint32_t version = kFrameFormatVersion1;  // of the segment (see above)
  uint64_t frame_seed = 0;                  // versions 2 and 3: from its seal
  std::vector<Frame> frames;  // every valid frame from where the scan started, in order
  uint64_t valid_bytes = 0;   // the end of the last valid frame (or the start)
  bool torn_tail = false;     // bytes follow valid_bytes
};

// Reads `segment` frame by frame from `start` (0, or the end of a frame
// read before); frame offsets are within the whole segment. The segment's
// version and seed come from its first frame. DataLoss (naming `name` and
// the offset) when a frame that is not valid is followed by a valid one
// with "prior synced" (or by a checksummed one this code refuses), a
// version 2 or 3 seal is malformed, or a frame carries another format
// version than its segment or an unknown kind or flag (refused, not
// guessed). Otherwise the first bytes that are not a valid frame, and all
// after them, are a torn tail.
absl::StatusOr<SegmentScan> ScanSegment(std::string_view segment, std::string_view name,
                                        uint64_t start = 0);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EVENT_LOG_FRAME_H_
