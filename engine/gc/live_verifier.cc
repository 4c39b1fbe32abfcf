#include "engine/gc/live_verifier.h"

#include <cstring>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/gc/gc_layout.h"
#include "engine/gc/live_references.h"
#include "engine/integrity_error.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"
#include "engine/table/table_log.h"
#include "spill/spill_sorter.h"

namespace lake::gc {
namespace {

constexpr uint64_t kProgressEvery = 10000;
// What verify reads of an object or a table log record at a time: all it
// holds of either, however large.
constexpr size_t kVerifyReadPieceBytes = size_t{1} << 20;
enum class RecordType : char { kLocation = 'L', kTableFile = 'T' };

// uri NUL type size(8) sha256(64) detail_length(1) detail referrer: the
// part before the referrer is the identity checked once. The detail is a
// location's content type; for a table file that is a record of the table
// log, the record's kind (one byte) and its address; else empty.
std::string VerifyRecord(std::string_view uri, const DataLocation* location,
                         const Referrer& referrer) {
  std::string record(uri);
  record.push_back('\0');
  record.push_back(static_cast<char>(location != nullptr ? RecordType::kLocation
                                                         : RecordType::kTableFile));
  uint64_t size = location != nullptr ? location->size_bytes : 0;
  record.append(reinterpret_cast<const char*>(&size), sizeof size);
  record.append(location != nullptr ? location->sha256 : std::string(64, '0'));
  std::string detail;
  if (location != nullptr) {
    detail = location->content_type;
  } else if (!referrer.table_path.empty()) {
    detail.push_back(static_cast<char>(referrer.record_kind));
    detail.append(referrer.table_path);
  }
  record.push_back(static_cast<char>(detail.size()));
  record.append(detail);
  record.append(DescribeReferrer(referrer));
  return record;
}

struct ParsedRecord {
  std::string_view identity;  // everything before the referrer
  RecordType type = RecordType::kLocation;
  DataLocation location;
  // A table log record's (kTableFile with an address); empty otherwise.
  std::string table_path;
  table::TableLogRecordKind record_kind = table::TableLogRecordKind::kFragment;
  std::string_view referrer;
};

absl::StatusOr<ParsedRecord> ParseVerifyRecord(std::string_view record) {
  ParsedRecord p;
  size_t nul = record.find('\0');
  if (nul == std::string_view::npos || record.size() < nul + 2 + 8 + 64 + 1) {
    return absl::InternalError("a spilled verify record has the wrong shape");
  }
  p.location.uri = std::string(record.substr(0, nul));
  p.type = static_cast<RecordType>(record[nul + 1]);
  std::memcpy(&p.location.size_bytes, record.data() + nul + 2, 8);
  p.location.sha256 = std::string(record.substr(nul + 10, 64));
  size_t detail_len = static_cast<unsigned char>(record[nul + 74]);
  size_t referrer_at = nul + 75 + detail_len;
  if (record.size() < referrer_at) return absl::InternalError("a spilled verify record is cut");
  std::string_view detail = record.substr(nul + 75, detail_len);
  if (p.type == RecordType::kLocation) {
    p.location.content_type = std::string(detail);
  } else if (!detail.empty()) {
    p.record_kind = static_cast<table::TableLogRecordKind>(detail[0]);
    p.table_path = std::string(detail.substr(1));
  }
  p.identity = record.substr(0, referrer_at);
  p.referrer = record.substr(referrer_at);
  return p;
}

class Verifier {
 public:
  Verifier(const GcRoot& root, const VerifyOptions& options, const VerifyProblemFn& report)
      : root_(root), options_(options), report_(report) {}

  absl::StatusOr<VerifySummary> Run();

 private:
  absl::Status Flush();
  absl::Status Check(const ParsedRecord& group);
  absl::Status CheckTableLogRecord(const ParsedRecord& group, const std::string& segment_path);
  absl::Status Report(VerifyProblem problem);

  const GcRoot& root_;
  const VerifyOptions& options_;
  const VerifyProblemFn& report_;
  VerifySummary summary_;
  std::string identity_;  // of the group being gathered
  std::optional<ParsedRecord> group_;
  std::string group_record_;
  std::vector<std::string> referrers_;
  uint64_t more_referrers_ = 0;
};

absl::Status Verifier::Report(VerifyProblem problem) {
  ++summary_.problems;
  problem.referrers = referrers_;
  problem.more_referrers = more_referrers_;
  return report_(problem);
}

absl::Status Verifier::Check(const ParsedRecord& g) {
  if (g.type == RecordType::kTableFile) {
    ++summary_.table_files_checked;
    absl::StatusOr<ParsedUri> parsed = ParseLocationUri(g.location.uri);
    if (!parsed.ok()) return parsed.status();
    if (!g.table_path.empty()) return CheckTableLogRecord(g, parsed->path);
    absl::StatusOr<io::FileInfo> info = root_.fs.Stat(parsed->path);
    if (absl::IsNotFound(info.status())) {
      return Report({VerifyProblem::Kind::kMissing, g.location.uri, 0, 0, "the table file is missing"});
    }
    if (!info.ok()) {
      return Report({VerifyProblem::Kind::kUnreadable, g.location.uri, 0, 0,
                     std::string(info.status().message())});
    }
    return absl::OkStatus();
  }
  if (!root_.stage.store().CheckContainment(g.location).ok()) {
    ++summary_.skipped;
    return absl::OkStatus();
  }
  ++summary_.objects_checked;
  const uint64_t expected = g.location.size_bytes;
  if (!options_.deep) {
    absl::StatusOr<uint64_t> size = root_.stage.store().StoredSize(g.location);
    if (absl::IsNotFound(size.status())) {
      return Report({VerifyProblem::Kind::kMissing, g.location.uri, expected, 0,
                     "the object is missing"});
    }
    if (!size.ok()) {
      return Report({VerifyProblem::Kind::kUnreadable, g.location.uri, expected, 0,
                     std::string(size.status().message())});
    }
    if (*size != expected) {
      return Report({*size < expected ? VerifyProblem::Kind::kSizeShort
                                      : VerifyProblem::Kind::kSizeLong,
                     g.location.uri, expected, *size,
                     absl::StrCat("the object holds ", *size, " bytes, not ", expected)});
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = root_.stage.OpenVerified(g.location);
  absl::Status read = reader.status();
  std::vector<uint8_t> buf(kVerifyReadPieceBytes);
  while (read.ok()) {
    absl::StatusOr<size_t> n = (*reader)->Read(buf.data(), buf.size());
    if (!n.ok()) {
      read = n.status();
      break;
    }
    if (*n == 0) break;
    summary_.bytes_verified += *n;
    if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) return s;
  }
  if (read.ok()) return absl::OkStatus();
  if (absl::IsNotFound(read)) {
    return Report({VerifyProblem::Kind::kMissing, g.location.uri, expected, 0,
                   "the object is missing"});
  }
  std::optional<IntegrityDetail> detail = GetIntegrityDetail(read);
  VerifyProblem::Kind kind = VerifyProblem::Kind::kUnreadable;
  uint64_t observed = 0;
  if (detail.has_value()) {
    observed = detail->observed;
    if (detail->kind == IntegrityKind::kSizeShort) kind = VerifyProblem::Kind::kSizeShort;
    if (detail->kind == IntegrityKind::kSizeLong) kind = VerifyProblem::Kind::kSizeLong;
    if (detail->kind == IntegrityKind::kDigestMismatch) kind = VerifyProblem::Kind::kDigestMismatch;
  }
  return Report({kind, g.location.uri, expected, observed, std::string(read.message())});
}

// A record of the table log a version names, in the segment `segment_path`:
// read as every reader of the table reads it (table::ReadTablePath:
// whole, of its kind, its checksum matching), so a record a reader would
// refuse is reported, named by its address, never passed over.
absl::Status Verifier::CheckTableLogRecord(const ParsedRecord& g,
                                           const std::string& segment_path) {
  absl::StatusOr<table::TableLogAddress> address = table::ParseTableLogAddress(g.table_path);
  if (!address.ok()) return address.status();
  std::string segment = table::TableLogSegmentRelativePath(address->segment);
  if (!absl::EndsWith(segment_path, absl::StrCat("/", segment)) ||
      !absl::StartsWith(g.table_path, segment)) {
    return absl::InternalError(absl::StrCat("table log record ", g.table_path,
                                            " is not in segment ", segment_path));
  }
  std::string table_dir = segment_path.substr(0, segment_path.size() - segment.size() - 1);
  // The record's own URI: its segment's and the rest of its address.
  std::string uri = absl::StrCat(g.location.uri, g.table_path.substr(segment.size()));
  const uint64_t record_bytes = table::TableLogRecordBytes(address->payload_bytes);
  // Piece by piece: a record may be up to kMaxTableLogPayloadBytes.
  absl::Status read = table::CheckTableLogRecord(root_.fs, table_dir, g.table_path,
                                                 g.record_kind, kVerifyReadPieceBytes);
  if (read.ok()) return absl::OkStatus();
  // A reader fails a missing segment as DataLoss too; verify tells it apart.
  bool missing = absl::IsNotFound(root_.fs.Stat(segment_path).status());
  return Report({missing ? VerifyProblem::Kind::kMissing : VerifyProblem::Kind::kUnreadable, uri,
                 record_bytes, 0, std::string(read.message())});
}

absl::Status Verifier::Flush() {
  if (!group_.has_value()) return absl::OkStatus();
  absl::Status s = Check(*group_);
  group_.reset();
  referrers_.clear();
  more_referrers_ = 0;
  return s;
}

absl::StatusOr<VerifySummary> Verifier::Run() {
  std::string temp_dir = SpillParentDir(root_.root_dir, options_.temp_dir);
  spill::SpillBudget budget(options_.memory_budget);
  absl::StatusOr<std::unique_ptr<spill::SpillSorter>> sorter = spill::SpillSorter::Create(
      root_.fs, spill::SpillDirectoryPath(temp_dir, absl::StrCat(NewUuidV7(), "-verify")), budget);
  if (!sorter.ok()) return sorter.status();
  uint64_t added = 0;
  if (root_.registry != nullptr) {
    if (absl::Status s = root_.registry->CatchUp(); !s.ok()) return s;
  }
  absl::Status walked = ForEachLiveReference(
      // What dropped tables referenced is no longer promised to exist.
      root_, absl::Now(), options_.lease_expiry, absl::InfiniteFuture(),
      [&](std::string_view uri, const DataLocation* location, const Referrer& referrer)
          -> absl::Status {
        if (referrer.kind == Referrer::Kind::kProtected) {
          ++summary_.skipped;
          return absl::OkStatus();
        }
        if (absl::Status s = (*sorter)->Add(VerifyRecord(uri, location, referrer)); !s.ok()) {
          return s;
        }
        if (++added % kProgressEvery == 0) {
          if (options_.progress) options_.progress("indexing", added, 0);
          return CheckCancelled(options_.cancel);
        }
        return absl::OkStatus();
      });
  if (!walked.ok()) return walked;
  absl::StatusOr<std::unique_ptr<spill::SortedRecords>> sorted = (*sorter)->Finish();
  if (!sorted.ok()) return sorted.status();
  uint64_t seen = 0;
  for (;;) {
    absl::StatusOr<bool> more = (*sorted)->Next();
    if (!more.ok()) return more.status();
    if (!*more) break;
    absl::StatusOr<ParsedRecord> record = ParseVerifyRecord((*sorted)->record());
    if (!record.ok()) return record.status();
    if (!group_.has_value() || record->identity != group_record_) {
      if (absl::Status s = Flush(); !s.ok()) return s;
      group_record_ = std::string(record->identity);
      group_ = *record;
      group_->identity = group_record_;
      group_->referrer = {};
    }
    if (referrers_.size() < kMaxReferrersShown) {
      referrers_.push_back(std::string(record->referrer));
    } else {
      ++more_referrers_;
    }
    if (++seen % kProgressEvery == 0) {
      if (options_.progress) options_.progress("verifying", seen, added);
      if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) return s;
    }
  }
  if (absl::Status s = Flush(); !s.ok()) return s;
  if (options_.progress) options_.progress("verifying", seen, seen);
  return summary_;
}

}  // namespace

std::string_view VerifyProblemName(VerifyProblem::Kind kind) {
  switch (kind) {
    case VerifyProblem::Kind::kMissing:
      return "missing";
    case VerifyProblem::Kind::kSizeShort:
      return "size-short";
    case VerifyProblem::Kind::kSizeLong:
      return "size-long";
    case VerifyProblem::Kind::kDigestMismatch:
      return "digest-mismatch";
    case VerifyProblem::Kind::kUnreadable:
      return "unreadable";
  }
  return "unknown";
}

absl::StatusOr<VerifySummary> VerifyLiveIndex(const GcRoot& root, const VerifyOptions& options,
                                              const VerifyProblemFn& report) {
  Verifier verifier(root, options, report);
  return verifier.Run();
}

}  // namespace lake::gc
