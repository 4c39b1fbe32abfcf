// The root a collection works on: what every step of the collector reads.
#ifndef LAKE_ENGINE_GC_GC_ROOT_H_
#define LAKE_ENGINE_GC_GC_ROOT_H_

#include <string>

#include "engine/managed_stage.h"
#include "io/file_system.h"
#include "registry/registry.h"

namespace lake::gc {

struct GcRoot {
  io::FileSystem& fs;
  std::string root_dir;  // absolute
  // The root's stage, without a tenant (a collection covers every tenant).
  ManagedStage& stage;
  // The root's registry: its writer's, or a follower's view (which the
  // collector catches up before it reads); null when the root has no tables.
  registry::Registry* registry = nullptr;
  std::string stage_descriptor;  // canonical JSON of the root's stage
  std::string root_id;
};

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_GC_ROOT_H_
