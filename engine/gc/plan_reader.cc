#include "engine/gc/plan_reader.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "engine/gc/gc_layout.h"
#include "engine/operation_id.h"
#include "io/whole_file.h"

namespace lake::gc {

absl::Status CheckPlanId(std::string_view plan_id) {
  if (ParseOperationId(plan_id).ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "\"", std::string(plan_id.substr(0, 64)), "\" is not a plan id (a UUIDv7 `lake gc plan` printed)"));
}

absl::StatusOr<PlanManifest> ReadPlanManifest(io::FileSystem& fs, const std::string& root_dir,
                                              std::string_view plan_id) {
  if (absl::Status s = CheckPlanId(plan_id); !s.ok()) return s;
  std::string path =
      absl::StrCat(PlanDirOf(root_dir, plan_id), "/", std::string(kManifestFile));
  absl::StatusOr<std::string> text = io::ReadWholeFile(fs, path, kMaxPlanManifestBytes);
  if (absl::IsNotFound(text.status())) {
    return absl::NotFoundError(absl::StrCat("no plan ", std::string(plan_id),
                                            " (a plan that never published its manifest is "
                                            "a draft and authorises nothing)"));
  }
  if (!text.ok()) {
    if (absl::IsDataLoss(text.status())) {
      return absl::DataLossError(absl::StrCat("the manifest of plan ", std::string(plan_id),
                                              " is damaged: ", text.status().message()));
    }
    return text.status();
  }
  absl::StatusOr<PlanManifest> manifest = DecodePlanManifest(*text);
  if (!manifest.ok()) {
    return absl::DataLossError(absl::StrCat("plan ", std::string(plan_id), ": ",
                                            manifest.status().message()));
  }
  if (manifest->plan_id != plan_id) {
    return absl::DataLossError(absl::StrCat("the manifest of plan ", std::string(plan_id),
                                            " names plan ", manifest->plan_id));
  }
  return manifest;
}

absl::StatusOr<std::vector<std::string>> ListPlans(io::FileSystem& fs,
                                                   const std::string& root_dir) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(PlansDirOf(root_dir));
  if (absl::IsNotFound(names.status())) return std::vector<std::string>();
  if (!names.ok()) return names.status();
  std::vector<std::string> plans;
  for (const std::string& name : *names) {
    if (!ParseOperationId(name).ok()) continue;
    absl::StatusOr<io::FileInfo> manifest =
        fs.Stat(absl::StrCat(PlanDirOf(root_dir, name), "/", std::string(kManifestFile)));
    if (manifest.ok()) plans.push_back(name);
  }
  std::sort(plans.begin(), plans.end());
  return plans;
}

absl::StatusOr<PlanPage> ReadPlanPage(io::FileSystem& fs, const std::string& root_dir,
                                      const PlanManifest& manifest, const std::string& sha256,
                                      uint64_t page_index) {
  std::string path = PagePath(PlanDirOf(root_dir, manifest.plan_id), sha256);
  auto broken = [&](std::string_view why) {
    return absl::DataLossError(absl::StrCat("plan ", manifest.plan_id, " page ", page_index, " (",
                                            path, ") ", std::string(why)));
  };
  absl::StatusOr<std::string> bytes = io::ReadWholeFile(fs, path, kMaxPlanPageBytes);
  if (absl::IsNotFound(bytes.status())) return broken("is missing");
  if (!bytes.ok()) {
    if (absl::IsDataLoss(bytes.status())) return broken("is larger than a page can be");
    return bytes.status();
  }
  std::string identity;
  absl::StatusOr<PlanPage> page = DecodePlanPage(*bytes, &identity);
  if (!page.ok()) return broken(std::string(page.status().message()));
  if (identity != sha256) return broken("does not hash to its name");
  if (page->plan_id != manifest.plan_id) return broken("belongs to another plan");
  if (page->page_index != page_index) {
    return broken(absl::StrCat("says it is page ", page->page_index));
  }
  return page;
}

absl::Status ForEachPlanPage(io::FileSystem& fs, const std::string& root_dir,
                             const PlanManifest& manifest, const PlanPageVisitor& visit) {
  std::string next = manifest.first_page_sha256;
  std::string last_uri;
  uint64_t pages = 0, objects = 0, object_bytes = 0, table_files = 0, table_file_bytes = 0;
  while (!next.empty()) {
    if (pages == manifest.pages) {
      return absl::DataLossError(absl::StrCat("plan ", manifest.plan_id, " has more pages than its ",
                                              manifest.pages));
    }
    absl::StatusOr<PlanPage> page = ReadPlanPage(fs, root_dir, manifest, next, pages + 1);
    if (!page.ok()) return page.status();
    if (!last_uri.empty() && !(last_uri < page->entries.front().uri)) {
      return absl::DataLossError(absl::StrCat("plan ", manifest.plan_id, " page ", pages + 1,
                                              " does not follow the page before it"));
    }
    last_uri = page->entries.back().uri;
    for (const Candidate& c : page->entries) {
      if (c.kind == CandidateKind::kStageObject) {
        ++objects;
        object_bytes += c.size_bytes;
      } else {
        ++table_files;
        table_file_bytes += c.size_bytes;
      }
    }
    ++pages;
    if (absl::Status s = visit(*page, next); !s.ok()) return s;
    next = page->next_page_sha256;
  }
  if (pages != manifest.pages || objects != manifest.objects ||
      object_bytes != manifest.object_bytes || table_files != manifest.table_files ||
      table_file_bytes != manifest.table_file_bytes) {
    return absl::DataLossError(absl::StrCat(
        "plan ", manifest.plan_id, "'s pages do not add up to its manifest (", pages, " pages, ",
        objects, " objects, ", table_files, " table files)"));
  }
  return absl::OkStatus();
}

}  // namespace lake::gc
