#include "engine/gc/apply_progress_store.h"

#include <algorithm>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/gc/gc_layout.h"
#include "engine/managed_key.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::gc {
namespace {

constexpr size_t kSeqDigits = 20;
constexpr char kTempSuffix[] = ".tmp";

std::string RecordName(uint64_t seq) {
  return absl::StrFormat("%020u%s", seq, std::string(kProgressSuffix));
}

std::optional<uint64_t> SeqOfName(std::string_view name) {
  if (name.size() != kSeqDigits + kProgressSuffix.size() || !name.ends_with(kProgressSuffix)) {
    return std::nullopt;
  }
  uint64_t seq = 0;
  for (char c : name.substr(0, kSeqDigits)) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  if (!absl::SimpleAtoi(absl::string_view(name.data(), kSeqDigits), &seq)) return std::nullopt;
  return seq;
}

// The seqs of the records present, ascending.
absl::StatusOr<std::vector<uint64_t>> ListSeqs(io::FileSystem& fs, const std::string& dir) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(dir);
  if (absl::IsNotFound(names.status())) return std::vector<uint64_t>();
  if (!names.ok()) return names.status();
  std::vector<uint64_t> seqs;
  for (const std::string& name : *names) {
    if (std::optional<uint64_t> seq = SeqOfName(name)) seqs.push_back(*seq);
  }
  std::sort(seqs.begin(), seqs.end());
  return seqs;
}

}  // namespace

absl::StatusOr<std::optional<ApplyProgress>> LoadApplyProgress(io::FileSystem& fs,
                                                               const std::string& root_dir,
                                                               std::string_view plan_id) {
  std::string dir = ProgressDirOf(root_dir, plan_id);
  absl::StatusOr<std::vector<uint64_t>> seqs = ListSeqs(fs, dir);
  if (!seqs.ok()) return seqs.status();
  if (seqs->empty()) return std::optional<ApplyProgress>();
  std::string path = absl::StrCat(dir, "/", RecordName(seqs->back()));
  absl::StatusOr<std::string> text = io::ReadWholeFile(fs, path, kMaxApplyProgressBytes);
  absl::StatusOr<ApplyProgress> progress =
      text.ok() ? DecodeApplyProgress(*text) : absl::StatusOr<ApplyProgress>(text.status());
  if (!progress.ok()) {
    if (!absl::IsDataLoss(progress.status()) && !absl::IsNotFound(progress.status())) {
      return progress.status();
    }
    return absl::DataLossError(absl::StrCat("the apply progress record ", path,
                                            " is damaged: ", progress.status().message()));
  }
  if (progress->plan_id != plan_id || progress->seq != seqs->back()) {
    return absl::DataLossError(
        absl::StrCat("the apply progress record ", path, " belongs to another plan or step"));
  }
  return std::optional<ApplyProgress>(*progress);
}

absl::StatusOr<PreparedApplyProgress> PrepareApplyProgress(io::FileSystem& fs,
                                                           const std::string& root_dir,
                                                           const ApplyProgress& progress) {
  absl::StatusOr<std::string> text = EncodeApplyProgress(progress);
  if (!text.ok()) return text.status();
  PreparedApplyProgress prepared;
  prepared.dir = ProgressDirOf(root_dir, progress.plan_id);
  if (absl::Status s = io::CreateDirectoriesDurably(fs, prepared.dir); !s.ok()) return s;
  prepared.path = absl::StrCat(prepared.dir, "/", RecordName(progress.seq));
  prepared.temp_path = absl::StrCat(prepared.path, ".", NewUuidV7(), kTempSuffix);
  prepared.seq = progress.seq;
  if (absl::Status s = io::WriteTemporaryDurably(fs, prepared.temp_path, *text); !s.ok()) return s;
  return prepared;
}

absl::Status PublishApplyProgress(io::FileSystem& fs, const PreparedApplyProgress& prepared) {
  bool published = false;
  if (absl::Status s = io::PublishTemporaryDurably(fs, prepared.path, prepared.temp_path,
                                                   &published);
      !s.ok()) {
    if (!published) (void)fs.Remove(prepared.temp_path);
    return s;
  }
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(prepared.dir);
  if (!names.ok()) return absl::OkStatus();  // the old records only cost space
  for (const std::string& name : *names) {
    std::optional<uint64_t> seq = SeqOfName(name);
    // One apply runs per root (the run lock): a temporary here now is one
    // a crash left.
    if ((seq.has_value() && *seq < prepared.seq) || name.ends_with(kTempSuffix)) {
      (void)fs.Remove(absl::StrCat(prepared.dir, "/", name));
    }
  }
  return absl::OkStatus();
}

absl::Status WriteApplyProgress(io::FileSystem& fs, const std::string& root_dir,
                                const ApplyProgress& progress) {
  absl::StatusOr<PreparedApplyProgress> prepared = PrepareApplyProgress(fs, root_dir, progress);
  if (!prepared.ok()) return prepared.status();
  return PublishApplyProgress(fs, *prepared);
}

}  // namespace lake::gc
