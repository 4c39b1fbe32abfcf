#include "engine/gc/page_deleter.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "engine/gc/stage_keys.h"
#include "engine/local/local_object_store.h"
#include "engine/location_uri.h"
#include "engine/s3/s3_object_store.h"
#include "engine/table/table_store.h"
#include "io/s3http/s3_responses.h"

namespace lake::gc {
namespace {

// Names to remove, by directory relative to a root directory.
using NamesByDir = std::map<std::string, std::vector<std::string>>;

void AddRelative(NamesByDir* out, std::string_view relative) {
  size_t slash = relative.rfind('/');
  std::string dir = slash == std::string_view::npos ? "." : std::string(relative.substr(0, slash));
  (*out)[dir].push_back(std::string(relative.substr(slash + 1)));
}

// Removes every name beneath the directory `root_path`, never leaving it,
// syncing each directory touched once.
absl::Status RemoveBeneath(io::FileSystem& fs, const std::string& root_path,
                           const NamesByDir& names) {
  if (names.empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<io::File>> root = fs.OpenDirectory(root_path);
  if (absl::IsNotFound(root.status())) return absl::OkStatus();  // nothing left beneath it
  if (!root.ok()) return root.status();
  for (const auto& [dir, files] : names) {
    absl::StatusOr<std::unique_ptr<io::File>> opened = fs.OpenDirectoryBeneath(**root, dir);
    if (absl::IsNotFound(opened.status())) continue;  // gone with everything in it
    if (!opened.ok()) return opened.status();
    bool removed = false;
    for (const std::string& name : files) {
      absl::Status s = fs.RemoveAt(**opened, name);
      if (absl::IsNotFound(s)) continue;
      if (!s.ok()) return s;
      removed = true;
    }
    if (removed) {
      if (absl::Status s = (*opened)->Sync(); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status DeleteLocal(LocalObjectStore& store, io::FileSystem& fs,
                         const std::vector<Candidate>& entries) {
  NamesByDir names;
  for (const Candidate& c : entries) {
    if (c.kind != CandidateKind::kStageObject) continue;
    absl::StatusOr<std::string> key = StageRelativeKey(store, c.uri);
    if (!key.ok()) return key.status();
    AddRelative(&names, *key);
  }
  return RemoveBeneath(fs, store.paths().root(), names);
}

// Sleeps so that `deleted` deletes since `began` keep to `per_second`.
void Pace(uint64_t per_second, uint64_t deleted, absl::Time began) {
  if (per_second == 0) return;
  absl::Time due = began + absl::Seconds(static_cast<double>(deleted) / per_second);
  absl::Time now = absl::Now();
  if (due > now) absl::SleepFor(due - now);
}

absl::Status DeleteS3(S3ObjectStore& store, const std::vector<Candidate>& entries,
                      const DeleteOptions& options) {
  std::vector<std::string> keys;
  for (const Candidate& c : entries) {
    if (c.kind != CandidateKind::kStageObject) continue;
    DataLocation location;
    location.uri = c.uri;
    absl::StatusOr<std::string> key = store.layout().KeyOfLocation(location);
    if (!key.ok()) return key.status();
    keys.push_back(std::move(*key));
  }
  size_t chunk = s3http::kMaxDeleteObjectsKeys;
  if (options.max_deletes_per_second > 0 && options.max_deletes_per_second < chunk) {
    chunk = static_cast<size_t>(options.max_deletes_per_second);
  }
  absl::Time began = absl::Now();
  uint64_t sent = 0;
  for (size_t start = 0; start < keys.size(); start += chunk) {
    if (absl::Status s = CheckCancelled(options.cancel); !s.ok()) return s;
    std::vector<std::string> pending(keys.begin() + start,
                                     keys.begin() + std::min(keys.size(), start + chunk));
    sent += pending.size();
    std::vector<s3http::DeleteObjectsFailure> failures;
    for (int attempt = 1; !pending.empty(); ++attempt) {
      absl::StatusOr<s3http::DeleteObjectsResult> result =
          store.client().DeleteObjects(store.layout().bucket(), pending);
      if (!result.ok()) return result.status();
      failures.clear();
      pending.clear();
      for (s3http::DeleteObjectsFailure& failure : result->failures) {
        if (failure.code == "NoSuchKey") continue;  // gone already: deleted
        pending.push_back(failure.key);
        failures.push_back(std::move(failure));
      }
      if (pending.empty()) break;
      if (attempt >= options.attempts) {
        std::vector<std::string> shown;
        for (size_t i = 0; i < failures.size() && i < 5; ++i) {
          shown.push_back(absl::StrCat(failures[i].key, " (", failures[i].code, ")"));
        }
        return absl::UnavailableError(absl::StrCat(
            "S3 did not delete ", failures.size(), " key(s) after ", attempt,
            " attempts: ", absl::StrJoin(shown, ", "), failures.size() > 5 ? ", …" : "",
            "; the page is repeated when the apply runs again"));
      }
      absl::SleepFor(absl::Milliseconds(50) * attempt);
    }
    Pace(options.max_deletes_per_second, sent, began);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DeleteStageObjects(const GcRoot& root, const std::vector<Candidate>& entries,
                                const DeleteOptions& options) {
  ManagedObjectStore& store = root.stage.store();
  if (auto* local = dynamic_cast<LocalObjectStore*>(&store)) {
    return DeleteLocal(*local, root.fs, entries);
  }
  if (auto* s3 = dynamic_cast<S3ObjectStore*>(&store)) return DeleteS3(*s3, entries, options);
  // A host's store: its remove callback, one object at a time.
  for (const Candidate& c : entries) {
    if (c.kind != CandidateKind::kStageObject) continue;
    DataLocation location;
    location.uri = c.uri;
    if (absl::Status s = store.Delete(location); !s.ok() && !absl::IsNotFound(s)) return s;
  }
  return absl::OkStatus();
}

absl::Status DeleteTableFiles(const GcRoot& root, const std::vector<Candidate>& entries) {
  std::string tables_dir = absl::StrCat(root.root_dir, "/", std::string(table::kTablesDir));
  NamesByDir names;
  for (const Candidate& c : entries) {
    if (c.kind != CandidateKind::kTableFile) continue;
    absl::StatusOr<ParsedUri> parsed = ParseLocationUri(c.uri);
    if (!parsed.ok()) return parsed.status();
    if (parsed->scheme != UriScheme::kFile || !IsStrictlyBeneath(parsed->path, tables_dir)) {
      return absl::InvalidArgumentError(
          absl::StrCat("a planned table file lies outside ", tables_dir, ": ", c.uri));
    }
    AddRelative(&names, std::string_view(parsed->path).substr(tables_dir.size() + 1));
  }
  return RemoveBeneath(root.fs, tables_dir, names);
}

}  // namespace lake::gc
