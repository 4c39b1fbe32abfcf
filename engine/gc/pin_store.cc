#include "engine/gc/pin_store.h"

#include "absl/strings/str_cat.h"
#include "engine/gc/gc_locks.h"
#include "engine/gc/pin_record_format.h"
#include "engine/gc/reference_hold.h"
#include "engine/managed_key.h"
#include "engine/sha256.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::gc {
namespace {

std::string PinPath(const std::string& root_dir, std::string_view uri) {
  return absl::StrCat(PinsDir(root_dir), "/", Sha256Hex(uri), std::string(kPinFileSuffix));
}

// The pin record at `path`, checked against its name.
absl::StatusOr<PinRecord> ReadPin(io::FileSystem& fs, const std::string& path,
                                  std::string_view name) {
  absl::StatusOr<std::string> bytes = io::ReadWholeFile(fs, path, kMaxPinRecordBytes);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<PinRecord> pin = DecodePinRecord(*bytes);
  if (!pin.ok()) {
    return absl::DataLossError(absl::StrCat("pin record ", path, ": ", pin.status().message()));
  }
  if (absl::StrCat(Sha256Hex(pin->uri), std::string(kPinFileSuffix)) != name) {
    return absl::DataLossError(
        absl::StrCat("pin record ", path, " names ", pin->uri, ", whose record it is not"));
  }
  return pin;
}

}  // namespace

std::string PinsDir(const std::string& root_dir) {
  return absl::StrCat(GcDir(root_dir), "/", std::string(kPinsDir));
}

absl::Status Pin(io::FileSystem& fs, const std::string& root_dir, ManagedStage& stage,
                 const DataLocation& location) {
  if (location.uri.size() > kMaxPinUriBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a pinned URI is at most ", kMaxPinUriBytes, " bytes"));
  }
  if (absl::Status s = stage.store().CheckContainment(location); !s.ok()) return s;
  std::string dir = PinsDir(root_dir);
  if (absl::Status s = io::CreateDirectoriesDurably(fs, dir); !s.ok()) return s;
  // From the existence check to the durable record, no collection deletes.
  absl::StatusOr<GcHold> hold = HoldToAddReferences(fs, root_dir, stage);
  if (!hold.ok()) return hold.status();
  if (absl::Status s = stage.CheckExisting(location); !s.ok()) return s;
  std::string path = PinPath(root_dir, location.uri);
  std::string bytes =
      EncodePinRecord(PinRecord{location.uri, absl::ToUnixMicros(absl::Now())});
  absl::Status written = io::WriteWholeFileDurably(
      fs, path, absl::StrCat(path, ".", NewUuidV7(), ".tmp"), bytes);
  if (!absl::IsAlreadyExists(written)) return written;
  // Pinned before, or a damaged record of it: a sound one stands; a
  // damaged one is replaced.
  std::string name = path.substr(dir.size() + 1);
  absl::StatusOr<PinRecord> existing = ReadPin(fs, path, name);
  if (existing.ok()) return absl::OkStatus();
  if (!absl::IsDataLoss(existing.status())) return existing.status();
  if (absl::Status s = fs.Remove(path); !s.ok() && !absl::IsNotFound(s)) return s;
  return io::WriteWholeFileDurably(fs, path, absl::StrCat(path, ".", NewUuidV7(), ".tmp"),
                                   bytes);
}

absl::Status Unpin(io::FileSystem& fs, const std::string& root_dir, ManagedStage& stage,
                   const DataLocation& location) {
  if (absl::Status s = stage.store().CheckContainment(location); !s.ok()) return s;
  std::string path = PinPath(root_dir, location.uri);
  absl::Status removed = fs.Remove(path);
  if (absl::IsNotFound(removed)) {
    return absl::NotFoundError(absl::StrCat(location.uri, " is not pinned"));
  }
  if (!removed.ok()) return removed;
  return io::SyncDirectory(fs, PinsDir(root_dir));
}

absl::Status ForEachPinnedUri(io::FileSystem& fs, const std::string& root_dir,
                              const std::function<absl::Status(std::string_view uri)>& visit) {
  std::string dir = PinsDir(root_dir);
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(dir);
  if (absl::IsNotFound(names.status())) return absl::OkStatus();
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    if (!name.ends_with(kPinFileSuffix)) continue;  // a pin's temporary
    absl::StatusOr<PinRecord> pin = ReadPin(fs, absl::StrCat(dir, "/", name), name);
    if (absl::IsNotFound(pin.status())) continue;  // unpinned meanwhile
    if (!pin.ok()) return pin.status();
    if (absl::Status s = visit(pin->uri); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace lake::gc
