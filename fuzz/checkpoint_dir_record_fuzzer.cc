// Fuzzes lake::DecodeCheckpointDirRecord, the reader of a root's record of
// an upload checkpoint directory outside it
// (engine/s3/checkpoint_dir_record_format.h). The input's first line is
// the file's name, the rest its bytes.
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a name that is
// not the bytes' digest is not refused and the parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted directory is an absolute path of 1..4096 bytes without
//      NUL or newline.
//   3. It encodes again to exactly the bytes read, under a name that
//      decodes to the same directory.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/s3/checkpoint_dir_record_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  std::string_view name = input.substr(0, newline);
  std::string_view bytes =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  absl::StatusOr<std::string> dir = lake::DecodeCheckpointDirRecord(name, bytes);
  if (!dir.ok()) {
    Check(absl::IsDataLoss(dir.status()));
    return 0;
  }
  Check(!dir->empty() && dir->size() <= lake::kMaxCheckpointDirPathBytes);
  Check(dir->front() == '/');
  Check(dir->find('\0') == std::string::npos && dir->find('\n') == std::string::npos);
  absl::StatusOr<lake::EncodedCheckpointDirRecord> record = lake::EncodeCheckpointDirRecord(*dir);
  Check(record.ok());
  Check(record->bytes == bytes);
  absl::StatusOr<std::string> again = lake::DecodeCheckpointDirRecord(record->name, record->bytes);
  Check(again.ok() && *again == *dir);
  return 0;
}
