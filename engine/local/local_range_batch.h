// Many ranges of local objects, read through one I/O queue: each distinct
// object is opened once, reads are submitted in batches of up to
// kRangeBatchQueueDepth, a short read is continued from where it stopped,
// and an empty read ends its range with PrematureEof. Reads complete into
// the callers' buffers; no memory is allocated per range beyond bookkeeping.
#ifndef LAKE_ENGINE_LOCAL_LOCAL_RANGE_BATCH_H_
#define LAKE_ENGINE_LOCAL_LOCAL_RANGE_BATCH_H_

#include <functional>
#include <memory>

#include "absl/types/span.h"
#include "engine/managed_object_store.h"
#include "io/file_system.h"

namespace lake {

inline constexpr unsigned kRangeBatchQueueDepth = 64;

using OpenLocalObjectFn =
    std::function<absl::StatusOr<std::unique_ptr<io::File>>(const DataLocation&)>;

// Fills every range whose status is OK on entry.
void ReadLocalRanges(io::FileSystem& fs, absl::Span<RangeRead> ranges,
                     const OpenLocalObjectFn& open);

}  // namespace lake

#endif  // LAKE_ENGINE_LOCAL_LOCAL_RANGE_BATCH_H_
