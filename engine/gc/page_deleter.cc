#include "engine/gc/page_deleter.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <thread>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/types/span.h"
#include "engine/gc/stage_keys.h"
#include "engine/local/local_object_store.h"
#include "engine/location_uri.h"
#include "engine/s3/s3_object_store.h"
#include "engine/table/table_store.h"
#include "io/s3http/s3_responses.h"

namespace lake::gc {
namespace {

// Names to remove, by directory relative to a root directory. The views
// point into the page's URIs (or into `owned`, for the rare URI whose
// decoded form differs from its text), so grouping a page allocates no
// string per entry. A page is in URI order, so the names of one directory
// come together; a directory met again later is simply another group.
struct DirNames {
  std::string_view dir;
  std::vector<std::string_view> names;
};
struct NamesByDir {
  std::vector<DirNames> dirs;
  std::deque<std::string> owned;
  size_t total = 0;

  void Add(std::string_view relative) {
    size_t slash = relative.rfind('/');
    std::string_view dir = slash == std::string_view::npos ? "." : relative.substr(0, slash);
    if (dirs.empty() || dirs.back().dir != dir) dirs.push_back(DirNames{dir, {}});
    dirs.back().names.push_back(relative.substr(slash + 1));
    ++total;
  }
  void AddOwned(std::string relative) { Add(owned.emplace_back(std::move(relative))); }
};

// A directory some names were removed from, still to be synced.
struct TouchedDir {
  std::string_view dir;
  std::unique_ptr<io::File> file;
};

// Removes the names of `dirs` (a slice of a NamesByDir) beneath the open
// directory `root`, keeping each directory it removed from in `touched`.
absl::Status RemoveSlice(io::FileSystem& fs, const io::File& root,
                         absl::Span<const DirNames> dirs, std::vector<TouchedDir>* touched) {
  std::string name;  // reused: one allocation for the slice, not one per entry
  for (const DirNames& entry : dirs) {
    absl::StatusOr<std::unique_ptr<io::File>> opened =
        fs.OpenDirectoryBeneath(root, std::string(entry.dir));
    if (absl::IsNotFound(opened.status())) continue;  // gone with everything in it
    if (!opened.ok()) return opened.status();
    bool removed = false;
    for (std::string_view view : entry.names) {
      name.assign(view);
      absl::Status s = fs.RemoveAt(**opened, name);
      if (absl::IsNotFound(s)) continue;
      if (!s.ok()) return s;
      removed = true;
    }
    if (removed) touched->push_back(TouchedDir{entry.dir, *std::move(opened)});
  }
  return absl::OkStatus();
}

// Removes every name beneath the directory `root_path`, never leaving it,
// on up to `threads` threads, each given as many names (a page in URI
// order spans few directories, so a directory may be shared: the threads
// unlink different names of it); the directories touched go to `syncs`,
// each once.
absl::Status RemoveBeneath(io::FileSystem& fs, const std::string& root_path,
                           const NamesByDir& names, int threads, PendingSyncs* syncs) {
  if (names.dirs.empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<io::File>> root = fs.OpenDirectory(root_path);
  if (absl::IsNotFound(root.status())) return absl::OkStatus();  // nothing left beneath it
  if (!root.ok()) return root.status();
  size_t total = names.total;
  // A thread is worth its start only for a few hundred names.
  size_t slices = std::clamp<size_t>(total / 256, 1, std::max(threads, 1));
  // Slice i holds the names [i * total / slices, (i + 1) * total / slices)
  // in page order.
  std::vector<std::vector<DirNames>> slice(slices);
  size_t given = 0;
  for (const DirNames& entry : names.dirs) {
    for (size_t at = 0; at < entry.names.size();) {
      size_t owner = given * slices / total;
      size_t owner_end = ((owner + 1) * total + slices - 1) / slices;  // first name past it
      size_t take = std::min(entry.names.size() - at, std::max<size_t>(owner_end - given, 1));
      slice[owner].push_back(DirNames{
          entry.dir, std::vector<std::string_view>(entry.names.begin() + at,
                                                   entry.names.begin() + at + take)});
      at += take;
      given += take;
    }
  }
  auto part = [&](size_t i) { return absl::Span<const DirNames>(slice[i]); };
  std::vector<std::vector<TouchedDir>> touched(slices);
  std::vector<absl::Status> results(slices);
  std::vector<std::thread> workers;
  for (size_t i = 1; i < slices; ++i) {
    workers.emplace_back([&, i] { results[i] = RemoveSlice(fs, **root, part(i), &touched[i]); });
  }
  results[0] = RemoveSlice(fs, **root, part(0), &touched[0]);
  for (std::thread& worker : workers) worker.join();
  // Each directory is synced once: one shared by two threads (the last of
  // a slice and the first of the next) is synced through either handle.
  for (std::vector<TouchedDir>& dirs : touched) {
    for (TouchedDir& d : dirs) syncs->Add(root_path + "/" + std::string(d.dir), std::move(d.file));
  }
  for (const absl::Status& s : results) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// The key of a stage object relative to the local stage root. The entries
// of a plan page were checked against the stage (StageRelativeKey) before
// the first delete, so a URI spelled without a percent-escape is its own
// decoded path and its key is a slice of it; any other is decoded again.
absl::Status AddLocalKey(LocalObjectStore& store, const Candidate& c, NamesByDir* names) {
  std::optional<std::string_view> path = LiteralFileUriPath(c.uri);
  const std::string& root = store.paths().root();
  if (path && path->size() > root.size() + 1 && path->starts_with(root) &&
      (*path)[root.size()] == '/') {
    names->Add(path->substr(root.size() + 1));
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> key = StageRelativeKey(store, c.uri);
  if (!key.ok()) return key.status();
  names->AddOwned(*std::move(key));
  return absl::OkStatus();
}

absl::Status RemoveLocal(LocalObjectStore& store, io::FileSystem& fs,
                         const std::vector<Candidate>& entries, int threads,
                         PendingSyncs* syncs) {
  NamesByDir names;
  for (const Candidate& c : entries) {
    if (c.kind != CandidateKind::kStageObject) continue;
    if (absl::Status s = AddLocalKey(store, c, &names); !s.ok()) return s;
  }
  return RemoveBeneath(fs, store.paths().root(), names, threads, syncs);
}

// Sleeps so that `deleted` deletes since `began` keep to `per_second`.
void Pace(uint64_t per_second, uint64_t deleted, absl::Time began) {
  if (per_second == 0) return;
  absl::Time due = began + absl::Seconds(static_cast<double>(deleted) / per_second);
  absl::Time now = absl::Now();
  if (due > now) absl::SleepFor(due - now);
}

// Deletes `keys` with DeleteObjects, retrying the keys that fail.
absl::Status DeleteKeys(S3ObjectStore& store, std::vector<std::string> pending, int attempts) {
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
    if (attempt >= attempts) {
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
  return absl::OkStatus();
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
  if (keys.empty()) return absl::OkStatus();
  if (options.max_deletes_per_second == 0) {
    // The page's keys in up to `concurrency` requests at once; each
    // request's failures are its own to retry.
    size_t requests = std::clamp<size_t>(
        keys.size() / std::max<size_t>(options.min_keys_per_request, 1), 1,
        std::max(options.concurrency, 1));
    size_t per_request = (keys.size() + requests - 1) / requests;
    requests = (keys.size() + per_request - 1) / per_request;
    std::vector<absl::Status> results(requests);
    std::vector<std::thread> senders;
    for (size_t i = 0; i < requests; ++i) {
      std::vector<std::string> part(keys.begin() + i * per_request,
                                    keys.begin() + std::min(keys.size(), (i + 1) * per_request));
      senders.emplace_back([&, i, part = std::move(part)]() mutable {
        results[i] = DeleteKeys(store, std::move(part), options.attempts);
      });
    }
    for (std::thread& sender : senders) sender.join();
    for (const absl::Status& s : results) {
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  size_t chunk = std::min<size_t>(s3http::kMaxDeleteObjectsKeys, options.max_deletes_per_second);
  absl::Time began = absl::Now();
  uint64_t sent = 0;
  for (size_t start = 0; start < keys.size(); start += chunk) {
    if (absl::Status s = CheckCancelled(options.cancel); !s.ok()) return s;
    std::vector<std::string> part(keys.begin() + start,
                                  keys.begin() + std::min(keys.size(), start + chunk));
    sent += part.size();
    if (absl::Status s = DeleteKeys(store, std::move(part), options.attempts); !s.ok()) return s;
    Pace(options.max_deletes_per_second, sent, began);
  }
  return absl::OkStatus();
}

}  // namespace

void PendingSyncs::Add(std::string path, std::unique_ptr<io::File> handle) {
  directories_.try_emplace(std::move(path), std::move(handle));
}

void PendingSyncs::Absorb(PendingSyncs other) {
  // A directory both hold keeps this one's handle; the other's is closed.
  directories_.merge(other.directories_);
}

absl::Status PendingSyncs::Sync() {
  // At once: the first sync's journal commit carries every removal, and
  // the others' cache flushes overlap instead of queueing.
  std::vector<io::File*> handles;
  for (auto& [path, handle] : directories_) handles.push_back(handle.get());
  std::vector<absl::Status> results(handles.size());
  std::vector<std::thread> others;
  for (size_t i = 1; i < handles.size(); ++i) {
    others.emplace_back([&, i] { results[i] = handles[i]->Sync(); });
  }
  if (!handles.empty()) results[0] = handles[0]->Sync();
  for (std::thread& other : others) other.join();
  for (const absl::Status& s : results) {
    if (!s.ok()) return s;
  }
  directories_.clear();
  return absl::OkStatus();
}

absl::Status RemoveStageObjects(const GcRoot& root, const std::vector<Candidate>& entries,
                                const DeleteOptions& options, PendingSyncs* syncs) {
  ManagedObjectStore& store = root.stage.store();
  if (auto* local = dynamic_cast<LocalObjectStore*>(&store)) {
    return RemoveLocal(*local, root.fs, entries, options.threads, syncs);
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

absl::Status RemoveTableFiles(const GcRoot& root, const std::vector<Candidate>& entries,
                              PendingSyncs* syncs) {
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
    names.AddOwned(parsed->path.substr(tables_dir.size() + 1));
  }
  return RemoveBeneath(root.fs, tables_dir, names, /*threads=*/1, syncs);
}

}  // namespace lake::gc
