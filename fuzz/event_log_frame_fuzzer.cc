// Fuzzes lake::events::ScanSegment, the reader of event-log segment files
// (engine/events/event_log_frame.h), and the seal decoder behind it.
//
// Properties checked (a violation traps); the fuzzing build skips checksum
// comparisons so the scan's structure is reached:
//   1. Any input: no crash, ASan or UBSan finding; a refusal is DataLoss.
//   2. Accepted input: the frames lie inside the input, in order, back to
//      back from offset 0, and end at valid_bytes; torn_tail is exactly
//      "bytes follow valid_bytes".
//   3. Accepted input: every frame re-encodes (AppendFrame of its kind,
//      count and payload) to the bytes it was read from, except for the
//      checksum field, which the fuzzing build does not compare.
//   4. A seal frame decodes or is refused with DataLoss; a decoded seal
//      re-encodes to a frame of the same payload.
//   5. Accepted input: its events frames grouped as one (AppendFramesAsOne,
//      as a group commit writes them) scan back as one frame holding their
//      records and payloads in order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/events/event_log_frame.h"

namespace {

using lake::events::Frame;
using lake::events::kFrameHeaderBytes;

void Check(bool property) {
  if (!property) __builtin_trap();
}

constexpr size_t kChecksumOffset = 24;

void CheckFrame(std::string_view input, const Frame& frame) {
  size_t length = kFrameHeaderBytes + frame.payload.size();
  Check(frame.offset + length <= input.size());
  std::string_view original = input.substr(frame.offset, length);
  Check(original.substr(kFrameHeaderBytes) == frame.payload);
  std::string again;
  lake::events::AppendFrame(frame.kind, frame.records, frame.payload, &again);
  Check(again.size() == original.size());
  Check(again.substr(0, kChecksumOffset) == original.substr(0, kChecksumOffset));
  Check(again.substr(kFrameHeaderBytes) == original.substr(kFrameHeaderBytes));
  if (frame.kind == lake::events::FrameKind::kSegmentSeal) {
    absl::StatusOr<lake::events::SegmentSeal> seal = lake::events::DecodeSegmentSeal(frame);
    if (!seal.ok()) {
      Check(absl::IsDataLoss(seal.status()));
      return;
    }
    std::string sealed = lake::events::EncodeSegmentSeal(*seal);
    Check(sealed.substr(kFrameHeaderBytes) == frame.payload);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::events::SegmentScan> scan = lake::events::ScanSegment(input, "fuzz");
  if (!scan.ok()) {
    Check(absl::IsDataLoss(scan.status()));
    return 0;
  }
  uint64_t expected_offset = 0;
  for (const Frame& frame : scan->frames) {
    Check(frame.offset == expected_offset);
    CheckFrame(input, frame);
    expected_offset = frame.offset + kFrameHeaderBytes + frame.payload.size();
  }
  Check(scan->valid_bytes == expected_offset);
  Check(scan->valid_bytes <= input.size());
  Check(scan->torn_tail == (scan->valid_bytes < input.size()));

  std::vector<std::string_view> events_frames;
  std::string payloads;
  uint64_t records = 0;
  for (const Frame& frame : scan->frames) {
    if (frame.kind != lake::events::FrameKind::kEvents) continue;
    events_frames.push_back(input.substr(frame.offset, kFrameHeaderBytes + frame.payload.size()));
    payloads.append(frame.payload);
    records += frame.records;
  }
  if (events_frames.empty() || records > UINT32_MAX) return 0;
  std::string group;
  lake::events::AppendFramesAsOne(events_frames, &group);
  absl::StatusOr<lake::events::SegmentScan> grouped = lake::events::ScanSegment(group, "group");
  Check(grouped.ok() && grouped->frames.size() == 1 && !grouped->torn_tail);
  Check(grouped->frames[0].records == records && grouped->frames[0].payload == payloads);
  return 0;
}
