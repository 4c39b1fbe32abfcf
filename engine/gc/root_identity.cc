#include "engine/gc/root_identity.h"

#include "absl/strings/str_cat.h"
#include "engine/gc/gc_layout.h"
#include "engine/gc/root_identity_record.h"
#include "engine/managed_key.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::gc {
namespace {

std::string RootIdPath(const std::string& root_dir) {
  return absl::StrCat(root_dir, "/", std::string(kRootIdFile));
}

std::string ConfirmedPath(const std::string& root_dir) {
  return absl::StrCat(GcDirOf(root_dir), "/", std::string(kOwnerConfirmedFile));
}

std::string ClaimName(const std::string& root_id) {
  return absl::StrCat(std::string(kClaimsDirName), "/", root_id);
}

// Writes a record file durably unless it exists (then OK).
absl::Status CreateRecordFile(io::FileSystem& fs, const std::string& path,
                              const std::string& bytes) {
  if (absl::Status s = io::CreateDirectoriesDurably(fs, io::ParentPath(path)); !s.ok()) return s;
  absl::Status written =
      io::WriteWholeFileDurably(fs, path, absl::StrCat(path, ".", NewUuidV7(), ".tmp"), bytes);
  return absl::IsAlreadyExists(written) ? absl::OkStatus() : written;
}

// The root id the stage's marker names; nullopt when there is none.
absl::StatusOr<std::optional<std::string>> ReadMarker(ManagedObjectStore& store) {
  absl::StatusOr<std::optional<std::string>> text =
      store.ReadStageRecord(kOwnerMarkerName, kMaxRootIdentityRecordBytes);
  if (!text.ok()) {
    if (absl::IsDataLoss(text.status())) {
      return absl::DataLossError(
          absl::StrCat("the stage's owner marker is unreadable: ", text.status().message()));
    }
    return text.status();
  }
  if (!text->has_value()) return std::optional<std::string>();
  absl::StatusOr<std::string> id =
      DecodeRootIdentityRecord(**text, "the stage's owner marker (_lake/owner)");
  if (!id.ok()) return id.status();
  return std::optional<std::string>(*id);
}

}  // namespace

absl::StatusOr<std::optional<std::string>> ReadRootId(io::FileSystem& fs,
                                                      const std::string& root_dir) {
  absl::StatusOr<std::string> text =
      io::ReadWholeFile(fs, RootIdPath(root_dir), kMaxRootIdentityRecordBytes);
  if (absl::IsNotFound(text.status())) return std::optional<std::string>();
  if (!text.ok()) return text.status();
  absl::StatusOr<std::string> id =
      DecodeRootIdentityRecord(*text, absl::StrCat("the root id record ", RootIdPath(root_dir)));
  if (!id.ok()) return id.status();
  return std::optional<std::string>(*id);
}

absl::StatusOr<std::string> EnsureRootIdentity(io::FileSystem& fs, const std::string& root_dir,
                                               ManagedObjectStore& store) {
  absl::StatusOr<std::optional<std::string>> id = ReadRootId(fs, root_dir);
  if (!id.ok()) return id.status();
  if (!id->has_value()) {
    if (absl::Status s = CreateRecordFile(fs, RootIdPath(root_dir),
                                          EncodeRootIdentityRecord(NewUuidV7()));
        !s.ok()) {
      return s;
    }
    id = ReadRootId(fs, root_dir);  // ours, or a racing open's
    if (!id.ok()) return id.status();
    if (!id->has_value()) return absl::InternalError("the root id record vanished");
  }
  const std::string& root_id = **id;
  absl::StatusOr<io::FileInfo> confirmed = fs.Stat(ConfirmedPath(root_dir));
  if (confirmed.ok()) return root_id;
  if (!absl::IsNotFound(confirmed.status())) return confirmed.status();

  std::string record = EncodeRootIdentityRecord(root_id);
  absl::Status marked = store.CreateStageRecord(kOwnerMarkerName, record);
  if (!marked.ok() && !absl::IsAlreadyExists(marked)) return marked;
  absl::StatusOr<std::optional<std::string>> owner = ReadMarker(store);
  if (!owner.ok()) return owner.status();
  if (!owner->has_value()) return absl::UnavailableError("the stage's owner marker vanished");
  if (**owner != root_id) {
    absl::Status claimed = store.CreateStageRecord(ClaimName(root_id), record);
    if (!claimed.ok() && !absl::IsAlreadyExists(claimed)) return claimed;
  }
  if (absl::Status s = CreateRecordFile(fs, ConfirmedPath(root_dir), record); !s.ok()) return s;
  return root_id;
}

absl::Status CheckStageOwnership(ManagedObjectStore& store, const std::string& root_id) {
  absl::StatusOr<std::optional<std::string>> owner = ReadMarker(store);
  if (!owner.ok()) return owner.status();
  if (!owner->has_value()) {
    return absl::FailedPreconditionError(
        "the stage has no owner marker (_lake/owner): open the root once as a writer (any "
        "lake command on it, e.g. `lake table list`), then collect");
  }
  if (**owner != root_id) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the stage's owner marker names another root (", **owner, "; this root is ", root_id,
        "): the stage is shared, and collecting it could delete that root's objects"));
  }
  absl::StatusOr<std::vector<std::string>> claims = store.ListStageRecords(kClaimsDirName);
  if (!claims.ok()) return claims.status();
  for (const std::string& claim : *claims) {
    if (claim != root_id) {
      return absl::FailedPreconditionError(absl::StrCat(
          "another root (", claim, ") has claimed this root's stage (_lake/claims/", claim,
          "): the stage is shared, and collecting it could delete that root's objects"));
    }
  }
  return absl::OkStatus();
}

}  // namespace lake::gc
