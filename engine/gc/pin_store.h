// Pins: objects referenced outside lake, kept alive until unpinned.
//
//   <root>/gc/pins/<sha256 of the URI, hex>.pin   one per pinned object
//                                                (pin_record_format.h)
//
// Pinning adds a reference to an existing object, so it runs as every such
// path does (gc_locks.h): under a shared references hold, from its check —
// the location is contained in the stage (and tenant) and the object exists
// with its size (ManagedStage::CheckExisting) — to the pin record's durable
// publication (write, sync, rename, directory sync). A collection reads the
// pins (ForEachProtectedUri) and their digest is part of its fingerprint, so
// a pin made after a plan voids it. Unpinning removes the record durably.
// A `lake put` never inserted nor pinned is protected by the cutoff alone.
#ifndef LAKE_ENGINE_GC_PIN_STORE_H_
#define LAKE_ENGINE_GC_PIN_STORE_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "engine/data_location.h"
#include "engine/managed_stage.h"
#include "io/file_system.h"

namespace lake::gc {

inline constexpr std::string_view kPinsDir = "pins";
inline constexpr std::string_view kPinFileSuffix = ".pin";

// <root>/gc/pins
std::string PinsDir(const std::string& root_dir);

// Pins an existing object of `stage` (the root's) as above. Pinning a
// pinned object again is OK. InvalidLocation outside the stage or tenant,
// NotFound with no object, SizeShort/SizeLong for another size.
absl::Status Pin(io::FileSystem& fs, const std::string& root_dir, ManagedStage& stage,
                 const DataLocation& location);
// Unpins; the object need not exist any more. NotFound when it is not
// pinned; InvalidLocation outside the stage or tenant.
absl::Status Unpin(io::FileSystem& fs, const std::string& root_dir, ManagedStage& stage,
                   const DataLocation& location);

// Every pinned URI, in no particular order. DataLoss naming the file for a
// damaged record, or one whose name is not its URI's digest.
absl::Status ForEachPinnedUri(io::FileSystem& fs, const std::string& root_dir,
                              const std::function<absl::Status(std::string_view uri)>& visit);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PIN_STORE_H_
