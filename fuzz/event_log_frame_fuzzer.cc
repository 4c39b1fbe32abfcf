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
//      count, payload and "prior synced" flag) to the bytes it was read
//      from, except for the checksum field, which the fuzzing build does not
//      compare, and the version and flags fields of a version 1 or 2 frame
//      (AppendFrame writes version 3, whose flags those versions lack; their
//      frames read as prior synced).
//   4. A seal frame decodes or is refused with DataLoss; a decoded seal
//      re-encodes to a frame of the same payload (a version 1 seal: the same
//      payload followed by a zero seed).
//   5. Accepted input: its events frames grouped as one (AppendEventsFrame,
//      as a group commit writes them) after a seal scan back as one frame
//      holding their records and payloads in order.
//   6. Accepted input: a scan started at the end of any frame it read
//      finds the frames after it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/events/event_log_frame.h"
#include "fuzz/property_check.h"

namespace {

using lake::events::Frame;
using lake::events::kFrameHeaderBytes;

using lake::fuzz::Check;

constexpr size_t kChecksumOffset = 24;

void CheckFrame(std::string_view input, const Frame& frame) {
  size_t length = kFrameHeaderBytes + frame.payload.size();
  Check(frame.offset + length <= input.size());
  std::string_view original = input.substr(frame.offset, length);
  Check(original.substr(kFrameHeaderBytes) == frame.payload);
  std::string again;
  lake::events::AppendFrame(frame.kind, frame.records, frame.payload, 0, &again,
                            frame.prior_synced);
  Check(again.size() == original.size());
  Check(again.substr(0, 4) == original.substr(0, 4));
  if (frame.version == lake::events::kFrameFormatVersion) {
    Check(again.substr(4, 6) == original.substr(4, 6));
  } else {
    Check(frame.prior_synced);
    Check(original[9] == 0);
  }
  Check(again[8] == original[8]);
  Check(again.substr(10, kChecksumOffset - 10) == original.substr(10, kChecksumOffset - 10));
  Check(again.substr(kFrameHeaderBytes) == original.substr(kFrameHeaderBytes));
  if (frame.kind == lake::events::FrameKind::kSegmentSeal) {
    absl::StatusOr<lake::events::SegmentSeal> seal = lake::events::DecodeSegmentSeal(frame);
    if (!seal.ok()) {
      Check(absl::IsDataLoss(seal.status()));
      return;
    }
    // Re-encoded as version 3, which adds the seed to a version 1 seal (0).
    std::string sealed = lake::events::EncodeSegmentSeal(*seal);
    if (frame.version >= lake::events::kFrameFormatVersion2) {
      Check(sealed.substr(kFrameHeaderBytes) == frame.payload);
    } else {
      Check(seal->frame_seed == 0);
      Check(sealed.substr(kFrameHeaderBytes, frame.payload.size()) == frame.payload);
    }
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

  for (size_t f = 0; f < scan->frames.size(); ++f) {
    const Frame& frame = scan->frames[f];
    uint64_t end = frame.offset + kFrameHeaderBytes + frame.payload.size();
    absl::StatusOr<lake::events::SegmentScan> rest = lake::events::ScanSegment(input, "fuzz", end);
    Check(rest.ok() && rest->valid_bytes == scan->valid_bytes);
    Check(rest->frames.size() == scan->frames.size() - f - 1);
  }

  std::vector<lake::events::RecordBatch> batches;
  std::string payloads;
  uint64_t records = 0;
  for (const Frame& frame : scan->frames) {
    if (frame.kind != lake::events::FrameKind::kEvents) continue;
    batches.push_back(lake::events::RecordBatch{frame.records, frame.payload});
    payloads.append(frame.payload);
    records += frame.records;
  }
  if (batches.empty() || records > UINT32_MAX) return 0;
  std::string group = lake::events::EncodeSegmentSeal(lake::events::SegmentSeal{0, 0, 7});
  lake::events::AppendEventsFrame(batches, 7, &group);
  absl::StatusOr<lake::events::SegmentScan> grouped = lake::events::ScanSegment(group, "group");
  Check(grouped.ok() && grouped->frames.size() == 2 && !grouped->torn_tail);
  Check(grouped->frames[1].records == records && grouped->frames[1].payload == payloads);
  return 0;
}
