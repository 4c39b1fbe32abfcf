#include "engine/gc/gc_layout.h"

#include "absl/strings/str_cat.h"

namespace lake::gc {

std::string GcDirOf(const std::string& root_dir) {
  return absl::StrCat(root_dir, "/", std::string(kGcDir));
}

std::string PlansDirOf(const std::string& root_dir) {
  return absl::StrCat(GcDirOf(root_dir), "/", std::string(kPlansDir));
}

std::string PlanDirOf(const std::string& root_dir, std::string_view plan_id) {
  return absl::StrCat(PlansDirOf(root_dir), "/", std::string(plan_id));
}

std::string DraftPlanDirOf(const std::string& root_dir, std::string_view plan_id) {
  return absl::StrCat(PlansDirOf(root_dir), "/", std::string(kDraftPrefix),
                      std::string(plan_id));
}

std::string ProgressDirOf(const std::string& root_dir, std::string_view plan_id) {
  return absl::StrCat(GcDirOf(root_dir), "/", std::string(kProgressDir), "/",
                      std::string(plan_id));
}

std::string GcTmpDirOf(const std::string& root_dir) {
  return absl::StrCat(GcDirOf(root_dir), "/", std::string(kTmpDir));
}

std::string SpillParentDir(const std::string& root_dir, const std::string& chosen_temp_dir) {
  if (chosen_temp_dir.empty()) return GcTmpDirOf(root_dir);
  return absl::StrCat(chosen_temp_dir, "/lake-gc-spill");
}

std::string PagePath(const std::string& plan_dir, std::string_view page_sha256) {
  return absl::StrCat(plan_dir, "/", std::string(kPagesDir), "/", std::string(page_sha256),
                      std::string(kPageSuffix));
}

}  // namespace lake::gc
