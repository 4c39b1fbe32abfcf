// The experiments of a root's event logs: create, list, describe, delete.
//
//   <root>/datagen/<pipeline>/<experiment>/experiment    descriptor (below)
//   <root>/datagen/<pipeline>/<experiment>/shards/...    the log (shard_log.h)
//
// Format note (descriptor, version 1): one JSON object written once, durably
// (temporary file, sync, rename, directory sync):
//   {"format":1,"pipeline":P,"experiment":X,"created_unix_micros":N}
// An experiment exists exactly when its descriptor does: a crash between
// creating the directory and publishing the descriptor leaves a directory
// that listing skips and a later create completes. Deleting renames the
// directory out of sight first (one atomic, synced step), then removes it.
//
// Names: 1..128 bytes of [A-Za-z0-9._-], not starting with '.' (so never
// "." or "..", and never a hidden leftover of a deletion).
#ifndef LAKE_ENGINE_EVENTS_EXPERIMENT_STORE_H_
#define LAKE_ENGINE_EVENTS_EXPERIMENT_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "io/file_system.h"

namespace lake::events {

inline constexpr size_t kMaxExperimentNameBytes = 128;
inline constexpr uint32_t kExperimentDescriptorFormat = 1;

struct ExperimentInfo {
  std::string pipeline;
  std::string experiment;
  int64_t created_unix_micros = 0;

  bool operator==(const ExperimentInfo&) const = default;
};

// InvalidArgument naming `what` ("pipeline" / "experiment") unless `name`
// follows the rule above.
absl::Status ValidateExperimentNamePart(std::string_view name, std::string_view what);

// The descriptor's bytes, and the descriptor those bytes hold (DataLoss
// when they are not one, or name another experiment than `expected`).
std::string EncodeExperimentDescriptor(const ExperimentInfo& info);
absl::StatusOr<ExperimentInfo> DecodeExperimentDescriptor(std::string_view bytes);

class ExperimentStore {
 public:
  ExperimentStore(io::FileSystem& fs, std::string root);

  // AlreadyExists when the experiment exists.
  absl::StatusOr<ExperimentInfo> Create(std::string_view pipeline, std::string_view experiment);
  // NotFound when it does not.
  absl::StatusOr<ExperimentInfo> Get(std::string_view pipeline, std::string_view experiment);
  // Every experiment (of `pipeline` when given), sorted by pipeline, name.
  absl::StatusOr<std::vector<ExperimentInfo>> List(std::optional<std::string_view> pipeline);
  // Removes the experiment and its log. NotFound when it does not exist.
  absl::Status Delete(std::string_view pipeline, std::string_view experiment);

  // <root>/datagen/<pipeline>/<experiment>, and its shards directory.
  std::string ExperimentDir(std::string_view pipeline, std::string_view experiment) const;
  std::string ShardsDir(std::string_view pipeline, std::string_view experiment) const;

 private:
  std::string PipelineDir(std::string_view pipeline) const;

  io::FileSystem& fs_;
  const std::string root_;
};

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EXPERIMENT_STORE_H_
