#include "engine/managed_object_store.h"

#include "absl/strings/str_cat.h"
#include "engine/range_reader.h"

namespace lake {

absl::StatusOr<uint64_t> ManagedObjectStore::StoredSize(const DataLocation& location) {
  if (location.size_bytes == 0) {
    // Nothing to read: opening the object proves it exists.
    absl::StatusOr<std::unique_ptr<ObjectStream>> stream = Open(location, 0, 1);
    if (!stream.ok()) return stream.status();
    uint8_t byte;
    absl::StatusOr<size_t> n = (*stream)->Read(&byte, 1);
    if (!n.ok()) return n.status();
    return uint64_t{*n};
  }
  absl::StatusOr<std::unique_ptr<ObjectStream>> stream =
      Open(location, location.size_bytes - 1, 1);
  if (!stream.ok()) return stream.status();
  uint8_t byte;
  absl::StatusOr<size_t> n = (*stream)->Read(&byte, 1);
  if (!n.ok()) return n.status();
  return *n == 1 ? location.size_bytes : location.size_bytes - 1;
}

void ManagedObjectStore::ReadRanges(absl::Span<RangeRead> ranges) {
  for (RangeRead& range : ranges) ReadRange(range);
}

void ManagedObjectStore::ReadRange(RangeRead& range) {
  if (!range.status.ok()) return;
  ByteRange interval{range.start, range.end};
  absl::StatusOr<std::unique_ptr<ObjectStream>> stream =
      Open(*range.location, range.start, interval.length());
  if (!stream.ok()) {
    range.status = stream.status();
    return;
  }
  RangeReader reader(std::move(*stream), interval, range.location->uri);
  range.bytes_read = 0;
  while (range.bytes_read < interval.length()) {
    absl::StatusOr<size_t> n =
        reader.Read(range.buffer + range.bytes_read,
                    interval.length() - range.bytes_read);
    if (!n.ok()) {
      range.status = n.status();
      break;
    }
    range.bytes_read += *n;
  }
  // A stream that fails to close may not have delivered what it said.
  if (absl::Status closed = reader.Close(); range.status.ok()) {
    range.status = closed;
  }
}

absl::StatusOr<std::string> ManagedObjectStore::Presign(const DataLocation&,
                                                       absl::Duration) {
  return absl::UnimplementedError(
      "presigned URLs need an S3 stage; this stage is " + std::string(backend_name()));
}

absl::Status ManagedObjectStore::ListIncompleteUploads(
    const std::function<absl::Status(const IncompleteUpload&)>&) {
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ManagedObjectStore::IncompleteUploadBytes(const IncompleteUpload&) {
  return absl::NotFoundError(absl::StrCat("this stage (", std::string(backend_name()),
                                          ") has no incomplete uploads"));
}

absl::Status ManagedObjectStore::AbortIncompleteUpload(const IncompleteUpload&) {
  return absl::NotFoundError(absl::StrCat("this stage (", std::string(backend_name()),
                                          ") has no incomplete uploads"));
}

namespace {

absl::Status NoStageRecords(std::string_view backend) {
  return absl::UnimplementedError(absl::StrCat(
      "this stage (", std::string(backend), ") keeps no records of lake's own"));
}

}  // namespace

absl::StatusOr<std::string> ManagedObjectStore::StageRelativeKey(std::string_view) {
  return absl::UnimplementedError(absl::StrCat(
      "garbage collection needs a local, S3 or host stage, not ", std::string(backend_name())));
}

absl::StatusOr<std::string> ManagedObjectStore::ScopedTenant() const {
  return absl::UnimplementedError(absl::StrCat(
      "garbage collection needs a local, S3 or host stage, not ", std::string(backend_name())));
}

absl::StatusOr<std::optional<std::string>> ManagedObjectStore::ReadStageRecord(std::string_view,
                                                                               size_t) {
  return NoStageRecords(backend_name());
}

absl::Status ManagedObjectStore::CreateStageRecord(std::string_view, std::string_view) {
  return NoStageRecords(backend_name());
}

absl::StatusOr<std::vector<std::string>> ManagedObjectStore::ListStageRecords(std::string_view) {
  return NoStageRecords(backend_name());
}

}  // namespace lake
