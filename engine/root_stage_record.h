// The stage a lake root was created with, recorded in <root>/stage.json so
// every later command and handle uses the same stage.
//
// Format (version 1), one line of JSON:
//   {"version":1,"descriptor":<canonical stage descriptor JSON>,
//    "sha256":"<64 hex: SHA-256 of the descriptor's canonical text>"}
// Written once, durably (temporary file, fsync, rename, directory fsync);
// a reader refuses another version, a digest that does not match, or a
// descriptor that does not validate.
#ifndef LAKE_ENGINE_ROOT_STAGE_RECORD_H_
#define LAKE_ENGINE_ROOT_STAGE_RECORD_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/stage_descriptor.h"
#include "io/file_system.h"

namespace lake {

inline constexpr std::string_view kRootStageRecordFile = "stage.json";
inline constexpr int kRootStageRecordVersion = 1;
// A descriptor's canonical text is far smaller; a larger file is damaged.
inline constexpr size_t kMaxRootStageRecordBytes = 32 * 1024;

std::string EncodeRootStageRecord(const StageDescriptor& descriptor);
absl::StatusOr<StageDescriptor> DecodeRootStageRecord(std::string_view text);

// The recorded descriptor of the root at `root_dir`; nullopt when the root
// has none yet.
absl::StatusOr<std::optional<StageDescriptor>> ReadRootStageRecord(io::FileSystem& fs,
                                                                   const std::string& root_dir);
// Records `descriptor` for a root that has none (AlreadyExists otherwise).
absl::Status WriteRootStageRecord(io::FileSystem& fs, const std::string& root_dir,
                                  const StageDescriptor& descriptor);

}  // namespace lake

#endif  // LAKE_ENGINE_ROOT_STAGE_RECORD_H_
