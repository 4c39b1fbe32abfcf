// The names of the records a stage keeps for lake itself
// (ManagedObjectStore::ReadStageRecord): "_lake/" and one or more segments
// of [A-Za-z0-9._-], none empty, "." or "..". They never collide with an
// object key (which starts with "objects/" or "tenants/").
#ifndef LAKE_ENGINE_STAGE_RECORD_NAME_H_
#define LAKE_ENGINE_STAGE_RECORD_NAME_H_

#include <string_view>

#include "absl/status/status.h"

namespace lake {

inline constexpr std::string_view kStageRecordsDir = "_lake";

// InvalidArgument unless `name` is such a name (or "_lake" itself).
absl::Status CheckStageRecordName(std::string_view name);

}  // namespace lake

#endif  // LAKE_ENGINE_STAGE_RECORD_NAME_H_
