// Where the collector keeps its files in a lake root (ARCHITECTURE.md,
// <root>/gc/; the lock and lease files there are gc_locks.h's and
// lease_store.h's):
//
//   <root>/gc/plans/<plan id>/manifest.json       a published plan's manifest
//   <root>/gc/plans/<plan id>/pages/<sha256>.page its pages (plan_page_format.h)
//   <root>/gc/plans/.draft-<plan id>/             a plan being written: never
//                                                 read by apply; the next plan
//                                                 removes it
//   <root>/gc/progress/<plan id>/<seq>.progress   apply progress records
//   <root>/gc/tmp/<run id>/                       spill files of one run
//   <root>/gc/owner.confirmed                     the stage's owner marker names
//                                                 this root (root_identity.h)
#ifndef LAKE_ENGINE_GC_GC_LAYOUT_H_
#define LAKE_ENGINE_GC_GC_LAYOUT_H_

#include <string>
#include <string_view>

#include "engine/gc/gc_locks.h"  // kGcDir, and the lock files there

namespace lake::gc {

inline constexpr std::string_view kPlansDir = "plans";
inline constexpr std::string_view kProgressDir = "progress";
inline constexpr std::string_view kTmpDir = "tmp";
inline constexpr std::string_view kDraftPrefix = ".draft-";
inline constexpr std::string_view kManifestFile = "manifest.json";
inline constexpr std::string_view kPagesDir = "pages";
inline constexpr std::string_view kPageSuffix = ".page";
inline constexpr std::string_view kProgressSuffix = ".progress";
inline constexpr std::string_view kOwnerConfirmedFile = "owner.confirmed";

std::string GcDirOf(const std::string& root_dir);
std::string PlansDirOf(const std::string& root_dir);
std::string PlanDirOf(const std::string& root_dir, std::string_view plan_id);
std::string DraftPlanDirOf(const std::string& root_dir, std::string_view plan_id);
std::string ProgressDirOf(const std::string& root_dir, std::string_view plan_id);
std::string GcTmpDirOf(const std::string& root_dir);
// Where a collection's spill directories go: <root>/gc/tmp, or, for a
// temporary directory the caller chose, a directory of lake's own in it
// (<dir>/lake-gc-spill). spill/ sweeps every directory beside its own that
// no live run holds, so the parent must hold nothing else.
std::string SpillParentDir(const std::string& root_dir, const std::string& chosen_temp_dir);
std::string PagePath(const std::string& plan_dir, std::string_view page_sha256);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_GC_LAYOUT_H_
