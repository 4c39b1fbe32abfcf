// The layout version of a lake root, recorded in <root>/format.json when the
// root is created, so a lake that does not know a root's layout refuses it
// before reading anything else of it.
//
// Format, one line of JSON, the same for every layout version to come:
//   {"lake_root_format":N,"sha256":"<64 hex: SHA-256 of \"lake_root_format=N\">"}
// N is the root's layout version. Version 1 is the layout of ARCHITECTURE.md
// (registry/, stage.json, stage/, tables/, checkpoints/, datagen/). A root
// created before the record existed has no format.json and is version 1.
// The record is written once, durably, before the root's stage record; it is
// never rewritten. A reader refuses a record that is not exactly this shape
// or whose digest does not match (DataLoss: the digest keeps a damaged digit
// from passing as another known version), and a version it does not know
// (Unimplemented, naming both versions).
#ifndef LAKE_ENGINE_ROOT_FORMAT_RECORD_H_
#define LAKE_ENGINE_ROOT_FORMAT_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "io/file_system.h"

namespace lake {

inline constexpr std::string_view kRootFormatRecordFile = "format.json";
// The layout this lake writes and reads. Raise it when a root's layout
// changes so that an older lake would misread it; list here what each
// version added.
inline constexpr int64_t kRootFormatVersion = 1;
// The record is about 100 bytes; a larger file is damaged.
inline constexpr size_t kMaxRootFormatRecordBytes = 4096;

std::string EncodeRootFormatRecord(int64_t version);
// The version the record names, whether or not this lake knows it (DataLoss
// for a damaged record). CheckRootFormatVersion says whether it is known.
absl::StatusOr<int64_t> DecodeRootFormatRecord(std::string_view text);
// OK for a version this lake reads; Unimplemented naming both versions
// otherwise.
absl::Status CheckRootFormatVersion(int64_t version);

// The recorded version of the root at `root_dir`; nullopt when the root has
// no record (a new root, or one created before records existed).
absl::StatusOr<std::optional<int64_t>> ReadRootFormatRecord(io::FileSystem& fs,
                                                            const std::string& root_dir);
// Checks the root's recorded version (a root without a record passes).
absl::Status CheckRootFormat(io::FileSystem& fs, const std::string& root_dir);
// Records this lake's version for a new root. A record that a racing first
// open wrote already is accepted if its version is known.
absl::Status WriteRootFormatRecord(io::FileSystem& fs, const std::string& root_dir);

}  // namespace lake

#endif  // LAKE_ENGINE_ROOT_FORMAT_RECORD_H_
