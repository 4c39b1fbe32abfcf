#include "engine/table/segment_rewrite.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "engine/sha256.h"
#include "engine/table/table_log.h"

namespace lake::table {

absl::Status SegmentLiveBytes::Name(const std::string& path) {
  if (!IsTableLogPath(path)) return absl::OkStatus();
  absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(path);
  if (!address.ok()) return address.status();
  if (!seen_.insert(path).second) return absl::OkStatus();
  bytes_[address->segment] += TableLogRecordBytes(address->payload_bytes);
  return absl::OkStatus();
}

absl::Status SegmentLiveBytes::NameVersion(const ResolvedManifest& version) {
  for (const std::string& path : version.chain_files) {
    if (absl::Status s = Name(path); !s.ok()) return s;
  }
  if (absl::Status s = Name(version.manifest.reference_delta_path); !s.ok()) return s;
  for (const FragmentRef& fragment : version.manifest.fragments) {
    if (absl::Status s = Name(fragment.path); !s.ok()) return s;
    if (!fragment.deletion_vector) continue;
    if (absl::Status s = Name(fragment.deletion_vector->path); !s.ok()) return s;
  }
  return absl::OkStatus();
}

uint64_t SegmentLiveBytes::Of(uint64_t segment) const {
  auto found = bytes_.find(segment);
  return found == bytes_.end() ? 0 : found->second;
}

bool InSegments(const std::string& path, const absl::flat_hash_set<uint64_t>& segments) {
  if (!IsTableLogPath(path)) return false;
  absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(path);
  return address.ok() && segments.contains(address->segment);
}

namespace {

// The payload the record `path` names, of `kind`, checked against the
// size and SHA-256 its manifest records.
absl::StatusOr<std::string> ReadRecordToCopy(io::FileSystem& fs, const std::string& table_dir,
                                             const std::string& path, TableLogRecordKind kind,
                                             const std::string& sha256,
                                             std::optional<uint64_t> size_bytes) {
  absl::StatusOr<std::string> bytes =
      ReadTablePath(fs, table_dir, path, kMaxTableLogPayloadBytes, kind);
  if (absl::IsNotFound(bytes.status())) {
    return absl::DataLossError(absl::StrCat("record ", path, " is missing"));
  }
  if (!bytes.ok()) return bytes.status();
  if (size_bytes.has_value() && bytes->size() != *size_bytes) {
    return absl::DataLossError(absl::StrCat("record ", path, " has ", bytes->size(),
                                            " bytes, its manifest says ", *size_bytes));
  }
  if (Sha256Hex(*bytes) != sha256) {
    return absl::DataLossError(
        absl::StrCat("record ", path, ": its SHA-256 is not its manifest's"));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<std::optional<SegmentRewrite>> PlanSegmentRewrite(
    io::FileSystem& fs, const std::string& table_dir, const Manifest& current,
    const absl::flat_hash_set<uint64_t>& segments) {
  auto moves = [&](const FragmentRef& f) {
    return InSegments(f.path, segments) ||
           (f.deletion_vector && InSegments(f.deletion_vector->path, segments));
  };
  if (std::none_of(current.fragments.begin(), current.fragments.end(), moves)) {
    return std::optional<SegmentRewrite>();
  }
  SegmentRewrite rewrite;
  for (const FragmentRef& fragment : current.fragments) {
    rewrite.fragments.push_back(fragment);
    std::string fragment_copy;
    if (InSegments(fragment.path, segments)) {
      absl::StatusOr<std::string> bytes =
          ReadRecordToCopy(fs, table_dir, fragment.path, TableLogRecordKind::kFragment,
                           fragment.sha256, fragment.size_bytes);
      if (!bytes.ok()) return bytes.status();
      fragment_copy = *std::move(bytes);
      ++rewrite.copied_fragments;
      rewrite.copied_bytes += fragment_copy.size();
    }
    std::string vector_copy;
    if (fragment.deletion_vector && InSegments(fragment.deletion_vector->path, segments)) {
      absl::StatusOr<std::string> bytes = ReadRecordToCopy(
          fs, table_dir, fragment.deletion_vector->path, TableLogRecordKind::kDeletionVector,
          fragment.deletion_vector->sha256, std::nullopt);
      if (!bytes.ok()) return bytes.status();
      vector_copy = *std::move(bytes);
      ++rewrite.copied_vectors;
      rewrite.copied_bytes += vector_copy.size();
    }
    rewrite.fragment_copies.push_back(std::move(fragment_copy));
    rewrite.vector_copies.push_back(std::move(vector_copy));
  }
  return std::optional<SegmentRewrite>(std::move(rewrite));
}

}  // namespace lake::table
