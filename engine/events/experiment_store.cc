#include "engine/events/experiment_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/managed_key.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::events {
namespace {

constexpr std::string_view kDatagenDir = "datagen";
constexpr std::string_view kDescriptorName = "experiment";
constexpr std::string_view kDescriptorTemp = ".experiment.tmp";
constexpr std::string_view kDeletedPrefix = ".deleted-";
constexpr std::string_view kShardsDirName = "shards";
constexpr size_t kMaxDescriptorBytes = 4096;

bool IsNameByte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

absl::Status BadDescriptor(std::string_view why) {
  return absl::DataLossError(
      absl::StrCat("experiment descriptor is damaged: ", std::string(why)));
}


}  // namespace

absl::Status ValidateExperimentNamePart(std::string_view name, std::string_view what) {
  if (name.empty() || name.size() > kMaxExperimentNameBytes || name.front() == '.' ||
      !std::all_of(name.begin(), name.end(), IsNameByte)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", std::string(what), " name is 1..", kMaxExperimentNameBytes,
                     " bytes of [A-Za-z0-9._-] not starting with '.': \"",
                     std::string(name.substr(0, 160)), "\""));
  }
  return absl::OkStatus();
}

std::string EncodeExperimentDescriptor(const ExperimentInfo& info) {
  nlohmann::ordered_json j;
  j["format"] = kExperimentDescriptorFormat;
  j["pipeline"] = info.pipeline;
  j["experiment"] = info.experiment;
  j["created_unix_micros"] = info.created_unix_micros;
  return j.dump();
}

absl::StatusOr<ExperimentInfo> DecodeExperimentDescriptor(std::string_view bytes) {
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.size() != 4) return BadDescriptor("not one object");
  auto format = j.find("format");
  auto pipeline = j.find("pipeline");
  auto experiment = j.find("experiment");
  auto created = j.find("created_unix_micros");
  if (format == j.end() || !format->is_number_unsigned() || pipeline == j.end() ||
      !pipeline->is_string() || experiment == j.end() || !experiment->is_string() ||
      created == j.end() || !created->is_number_integer()) {
    return BadDescriptor("a key is missing or of the wrong type");
  }
  if (format->get<uint64_t>() != kExperimentDescriptorFormat) {
    return BadDescriptor(absl::StrCat("unknown format ", format->get<uint64_t>()));
  }
  ExperimentInfo info{pipeline->get<std::string>(), experiment->get<std::string>(),
                      created->get<int64_t>()};
  if (!ValidateExperimentNamePart(info.pipeline, "pipeline").ok() ||
      !ValidateExperimentNamePart(info.experiment, "experiment").ok()) {
    return BadDescriptor("a name breaks the naming rule");
  }
  return info;
}

ExperimentStore::ExperimentStore(io::FileSystem& fs, std::string root)
    : fs_(fs), root_(std::move(root)) {}

std::string ExperimentStore::PipelineDir(std::string_view pipeline) const {
  return absl::StrCat(root_, "/", std::string(kDatagenDir), "/", std::string(pipeline));
}

std::string ExperimentStore::ExperimentDir(std::string_view pipeline,
                                           std::string_view experiment) const {
  return absl::StrCat(PipelineDir(pipeline), "/", std::string(experiment));
}

std::string ExperimentStore::ShardsDir(std::string_view pipeline,
                                       std::string_view experiment) const {
  return absl::StrCat(ExperimentDir(pipeline, experiment), "/", std::string(kShardsDirName));
}

absl::StatusOr<ExperimentInfo> ExperimentStore::Get(std::string_view pipeline,
                                                    std::string_view experiment) {
  if (absl::Status s = ValidateExperimentNamePart(pipeline, "pipeline"); !s.ok()) return s;
  if (absl::Status s = ValidateExperimentNamePart(experiment, "experiment"); !s.ok()) return s;
  std::string path =
      absl::StrCat(ExperimentDir(pipeline, experiment), "/", std::string(kDescriptorName));
  absl::StatusOr<std::string> bytes = io::ReadWholeFile(fs_, path, kMaxDescriptorBytes);
  if (absl::IsNotFound(bytes.status())) {
    return absl::NotFoundError(absl::StrCat("no experiment ", std::string(pipeline), "/",
                                            std::string(experiment)));
  }
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<ExperimentInfo> info = DecodeExperimentDescriptor(*bytes);
  if (!info.ok()) return info.status();
  if (info->pipeline != pipeline || info->experiment != experiment) {
    return BadDescriptor(absl::StrCat(path, " names ", info->pipeline, "/", info->experiment));
  }
  return info;
}

absl::StatusOr<ExperimentInfo> ExperimentStore::Create(std::string_view pipeline,
                                                       std::string_view experiment) {
  absl::StatusOr<ExperimentInfo> existing = Get(pipeline, experiment);
  if (existing.ok()) {
    return absl::AlreadyExistsError(absl::StrCat("experiment ", std::string(pipeline), "/",
                                                 std::string(experiment), " exists"));
  }
  if (!absl::IsNotFound(existing.status())) return existing.status();
  std::string dir = ExperimentDir(pipeline, experiment);
  // A directory without a descriptor is an unfinished create: completed.
  if (absl::Status s = io::CreateDirectoriesDurably(fs_, dir); !s.ok()) return s;
  ExperimentInfo info{std::string(pipeline), std::string(experiment),
                      absl::ToUnixMicros(absl::Now())};
  std::string temp = absl::StrCat(dir, "/", std::string(kDescriptorTemp));
  if (absl::Status s = fs_.Remove(temp); !s.ok() && !absl::IsNotFound(s)) return s;
  absl::Status written = io::WriteWholeFileDurably(
      fs_, absl::StrCat(dir, "/", std::string(kDescriptorName)), temp,
      EncodeExperimentDescriptor(info));
  if (absl::IsAlreadyExists(written)) {
    return absl::AlreadyExistsError(absl::StrCat("experiment ", std::string(pipeline), "/",
                                                 std::string(experiment), " exists"));
  }
  if (!written.ok()) return written;
  return info;
}

absl::StatusOr<std::vector<ExperimentInfo>> ExperimentStore::List(
    std::optional<std::string_view> pipeline) {
  std::vector<std::string> pipelines;
  if (pipeline) {
    if (absl::Status s = ValidateExperimentNamePart(*pipeline, "pipeline"); !s.ok()) return s;
    pipelines.emplace_back(*pipeline);
  } else {
    absl::StatusOr<std::vector<std::string>> names =
        fs_.ListDirectory(absl::StrCat(root_, "/", std::string(kDatagenDir)));
    if (absl::IsNotFound(names.status())) return std::vector<ExperimentInfo>();
    if (!names.ok()) return names.status();
    pipelines = std::move(*names);
  }
  std::vector<ExperimentInfo> out;
  for (const std::string& p : pipelines) {
    if (!ValidateExperimentNamePart(p, "pipeline").ok()) continue;
    absl::StatusOr<std::vector<std::string>> names = fs_.ListDirectory(PipelineDir(p));
    if (absl::IsNotFound(names.status())) continue;
    if (!names.ok()) return names.status();
    for (const std::string& x : *names) {
      if (!ValidateExperimentNamePart(x, "experiment").ok()) continue;  // leftovers
      absl::StatusOr<ExperimentInfo> info = Get(p, x);
      if (absl::IsNotFound(info.status())) continue;  // an unfinished create
      if (!info.ok()) return info.status();
      out.push_back(std::move(*info));
    }
  }
  std::sort(out.begin(), out.end(), [](const ExperimentInfo& a, const ExperimentInfo& b) {
    return std::tie(a.pipeline, a.experiment) < std::tie(b.pipeline, b.experiment);
  });
  return out;
}

absl::Status ExperimentStore::Delete(std::string_view pipeline, std::string_view experiment) {
  absl::StatusOr<ExperimentInfo> info = Get(pipeline, experiment);
  if (!info.ok()) return info.status();
  std::string hidden = absl::StrCat(PipelineDir(pipeline), "/", std::string(kDeletedPrefix),
                                    NewUuidV7());
  if (absl::Status s = fs_.RenameNoReplace(ExperimentDir(pipeline, experiment), hidden); !s.ok()) {
    return s;
  }
  if (absl::Status s = io::SyncDirectory(fs_, PipelineDir(pipeline)); !s.ok()) return s;
  // Gone for every reader now. Its bytes go, and those of any deletion a
  // crash interrupted before (hidden names nothing else uses).
  absl::StatusOr<std::vector<std::string>> names = fs_.ListDirectory(PipelineDir(pipeline));
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    if (name.substr(0, kDeletedPrefix.size()) != kDeletedPrefix) continue;
    std::string path = absl::StrCat(PipelineDir(pipeline), "/", name);
    if (absl::Status s = io::RemoveTree(fs_, path); !s.ok()) return s;
  }
  return io::SyncDirectory(fs_, PipelineDir(pipeline));
}

}  // namespace lake::events
