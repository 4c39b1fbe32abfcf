// The frames of an event-log segment file, and the scan that reads them.
//
// Format note (frame format version 1). A shard of an experiment's log is a
// sequence of segment files; a segment is a sequence of frames, each written
// by one pwrite and made durable by one fdatasync before the batch it holds
// is acknowledged:
//
//   offset  bytes  field
//   0       4      magic "LKEV"
//   4       4      u32 frame format version (1)
//   8       1      u8 kind: 1 = a batch of event records, 2 = a segment seal
//   9       3      zero
//   12      4      u32 record count (events in the batch; 0 for a seal)
//   16      8      u64 payload bytes (at most kMaxFramePayloadBytes)
//   24      8      u64 XXH3-64 of bytes [0, 24) followed by the payload
//   32      n      payload
//
// Integers are little-endian. An events payload is `record count` event
// records (engine/events/event_record_format.h) back to back. A seal's
// payload is u64 previous segment number, u64 the previous segment's valid
// bytes: the first frame of every segment but the first, written when a
// writer opens the segment, so a reader can tell the torn tail of a crashed
// writer's segment (bytes past the sealed length: never acknowledged) from
// damage to acknowledged frames (DataLoss).
//
// The batches of one group commit (shard_log.h) are written as one frame,
// their records back to back: the pages of one write may reach the disk in
// any order before its sync, so a group written as several frames could
// leave an earlier frame torn and a later one whole, which the scan must
// take for damage. As one frame, the group is all or nothing.
//
// A batch is all or nothing: a frame whose header or payload is incomplete
// or whose checksum fails is not part of the log. Such bytes at the end of a
// segment are a torn tail (the write of an unacknowledged batch was cut
// short); followed by a valid frame they are damage, and the scan fails
// closed naming the offset. The zeros a writer writes ahead of its frames
// (shard_log.h) scan the same way: the end of the segment's frames.
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
inline constexpr uint32_t kFrameFormatVersion = 1;
inline constexpr size_t kFrameHeaderBytes = 32;
// One checkpoint batch per frame; a batch larger than this is refused
// before anything is written (blobs above the inline threshold are
// offloaded, so real batches are far smaller).
inline constexpr uint64_t kMaxFramePayloadBytes = uint64_t{64} << 20;

enum class FrameKind : uint8_t { kEvents = 1, kSegmentSeal = 2 };

struct Frame {
  FrameKind kind = FrameKind::kEvents;
  uint32_t records = 0;
  uint64_t offset = 0;       // of the header within the segment
  std::string_view payload;  // a view into the scanned bytes
};

struct SegmentSeal {
  uint64_t previous_segment = 0;
  uint64_t previous_valid_bytes = 0;
};

// Appends one frame. Precondition: payload.size() <= kMaxFramePayloadBytes.
void AppendFrame(FrameKind kind, uint32_t records, std::string_view payload, std::string* out);
// The same, built in place (no copy of the payload): StartFrame appends a
// header to fill in and returns where the frame starts; the caller appends
// the payload after it; FinishFrame fills in the header.
size_t StartFrame(std::string* out);
void FinishFrame(FrameKind kind, uint32_t records, size_t start, std::string* out);

// Appends one kEvents frame holding the records of `frames` in order, each
// a whole kEvents frame (AppendFrame, or StartFrame + FinishFrame).
// Precondition: their payloads total at most kMaxFramePayloadBytes.
void AppendFramesAsOne(absl::Span<const std::string_view> frames, std::string* out);

// The seal frame (header and payload) naming the segment before a new one.
std::string EncodeSegmentSeal(const SegmentSeal& seal);
// The seal a kSegmentSeal frame holds; DataLoss when it is malformed.
absl::StatusOr<SegmentSeal> DecodeSegmentSeal(const Frame& frame);

struct SegmentScan {
  std::vector<Frame> frames;  // every valid frame, in order
  uint64_t valid_bytes = 0;   // the end of the last valid frame
  bool torn_tail = false;     // bytes follow valid_bytes
};

// Reads `segment` frame by frame. DataLoss (naming `name` and the offset)
// when a frame that is not valid is followed by a valid one, or a frame
// carries another format version or an unknown kind (refused, not
// guessed). Bytes after the last valid frame that are not a valid frame are
// a torn tail.
absl::StatusOr<SegmentScan> ScanSegment(std::string_view segment, std::string_view name);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EVENT_LOG_FRAME_H_
