#include "engine/managed_stage.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/integrity_error.h"
#include "engine/range_reader.h"
#include "engine/verified_reader.h"

namespace lake {

absl::StatusOr<DataLocation> LocationOfStored(const StoredObject& stored,
                                              std::string_view content_type) {
  absl::StatusOr<DataLocation> location = MakeDataLocation(
      stored.uri, content_type, stored.size_bytes, stored.sha256);
  if (!location.ok()) {
    return absl::InternalError(absl::StrCat(
        "the store reported an invalid object: ", location.status().message()));
  }
  return location;
}

namespace {

// A leasing stage's store must report the key before storing anything.
absl::Status CheckLeased(bool leasing, const std::unique_ptr<KeyLease>& lease) {
  if (leasing && lease == nullptr) {
    return absl::InternalError("the store published an upload without reporting its key first");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LeasedLocation> LocationWriter::CommitLeased() {
  absl::StatusOr<StoredObject> stored = writer_->Commit();
  std::unique_ptr<KeyLease> lease = lease_->Take();
  if (!stored.ok()) return stored.status();
  if (absl::Status s = CheckLeased(leasing_, lease); !s.ok()) return s;
  absl::StatusOr<DataLocation> location = LocationOfStored(*stored, content_type_);
  if (!location.ok()) return location.status();
  return LeasedLocation{std::move(*location), std::move(lease)};
}

absl::StatusOr<DataLocation> LocationWriter::Commit() {
  absl::StatusOr<LeasedLocation> leased = CommitLeased();
  if (!leased.ok()) return leased.status();
  return std::move(leased->location);
}

UploadOptions ManagedStage::LeasingOptions(const UploadOptions& options,
                                           const std::shared_ptr<UploadLeaseSlot>& slot) const {
  if (leaser_ == nullptr) return options;
  UploadOptions leasing = options;
  const LeaseDurability durability =
      store_->ResumesUploads() ? LeaseDurability::kSynced : LeaseDurability::kUnsynced;
  leasing.key_chosen = [leaser = leaser_, slot, durability,
                        outer = options.key_chosen](const std::string& uri) -> absl::Status {
    if (outer) {
      if (absl::Status s = outer(uri); !s.ok()) return s;
    }
    absl::StatusOr<std::unique_ptr<KeyLease>> lease = leaser->Lease(uri, durability);
    if (!lease.ok()) return lease.status();
    absl::MutexLock lock(&slot->mu);
    slot->lease = std::move(*lease);
    return absl::OkStatus();
  };
  return leasing;
}

absl::StatusOr<LeasedLocation> ManagedStage::UploadLeased(UploadSource& source,
                                                          const UploadOptions& options) {
  if (absl::Status s = ValidateContentType(options.content_type); !s.ok()) {
    return absl::InvalidArgumentError(s.message());
  }
  if (absl::Status s = CheckCancelled(options.cancel); !s.ok()) return s;
  auto slot = std::make_shared<UploadLeaseSlot>();
  const uint64_t epoch = KnownEpoch();
  // A failed upload has been cleaned when it returns: its lease goes with
  // the slot.
  absl::StatusOr<StoredObject> stored = store_->Upload(source, LeasingOptions(options, slot));
  std::unique_ptr<KeyLease> lease = slot->Take();
  if (!stored.ok()) return stored.status();
  if (absl::Status s = CheckLeased(leaser_ != nullptr, lease); !s.ok()) return s;
  absl::StatusOr<DataLocation> location = LocationOfStored(*stored, options.content_type);
  if (!location.ok()) return location.status();
  RememberSize(location->uri, location->size_bytes, epoch);
  return LeasedLocation{std::move(*location), std::move(lease)};
}

absl::StatusOr<DataLocation> ManagedStage::UploadBy(const StoreUpload& run,
                                                    const UploadOptions& options) {
  if (absl::Status s = CheckCancelled(options.cancel); !s.ok()) return s;
  auto slot = std::make_shared<UploadLeaseSlot>();
  const uint64_t epoch = KnownEpoch();
  absl::StatusOr<StoredObject> stored = run(LeasingOptions(options, slot));
  std::unique_ptr<KeyLease> lease = slot->Take();
  if (!stored.ok()) return stored.status();
  if (absl::Status s = CheckLeased(leaser_ != nullptr, lease); !s.ok()) return s;
  absl::StatusOr<DataLocation> location = LocationOfStored(
      *stored, stored->content_type.empty() ? options.content_type : stored->content_type);
  if (!location.ok()) return location.status();
  RememberSize(location->uri, location->size_bytes, epoch);
  return std::move(*location);  // the lease is released as this returns
}

absl::StatusOr<DataLocation> ManagedStage::Upload(UploadSource& source,
                                                  const UploadOptions& options) {
  absl::StatusOr<LeasedLocation> leased = UploadLeased(source, options);
  if (!leased.ok()) return leased.status();
  return std::move(leased->location);  // the lease is released as this returns
}

uint64_t ManagedStage::KnownEpoch() {
  absl::MutexLock lock(&known_mu_);
  return known_epoch_;
}

void ManagedStage::RememberSize(const std::string& uri, uint64_t size_bytes, uint64_t epoch) {
  absl::MutexLock lock(&known_mu_);
  if (epoch != known_epoch_) return;  // found before a collection was observed
  if (known_sizes_.size() >= kMaxKnownSizes) known_sizes_.clear();
  known_sizes_[uri] = size_bytes;
}

void ManagedStage::ObserveDeletionEpoch(uint64_t epoch) {
  absl::MutexLock lock(&known_mu_);
  if (epoch == known_epoch_) return;
  known_sizes_.clear();
  known_epoch_ = epoch;
  ++known_generation_;
}

absl::StatusOr<std::unique_ptr<LocationWriter>> ManagedStage::NewWriter(
    const UploadOptions& options) {
  if (absl::Status s = ValidateContentType(options.content_type); !s.ok()) {
    return absl::InvalidArgumentError(s.message());
  }
  auto slot = std::make_shared<UploadLeaseSlot>();
  absl::StatusOr<std::unique_ptr<ObjectWriter>> writer =
      store_->NewWriter(LeasingOptions(options, slot));
  if (!writer.ok()) return writer.status();
  return std::make_unique<LocationWriter>(std::move(*writer), options.content_type,
                                          std::move(slot), leaser_ != nullptr);
}

absl::StatusOr<std::unique_ptr<ObjectReader>> ManagedStage::OpenVerified(
    const DataLocation& location) {
  if (absl::Status s = store_->CheckContainment(location); !s.ok()) return s;
  // The reader takes size_bytes plus its one-byte probe.
  absl::StatusOr<std::unique_ptr<ObjectStream>> stream =
      store_->Open(location, 0, location.size_bytes + 1);
  if (!stream.ok()) return stream.status();
  return std::make_unique<VerifiedReader>(std::move(*stream), location);
}

absl::StatusOr<std::unique_ptr<ObjectReader>> ManagedStage::OpenRange(
    const DataLocation& location, ByteRange range) {
  if (absl::Status s = ValidateRange(range, location.size_bytes); !s.ok()) {
    return s;
  }
  if (absl::Status s = store_->CheckContainment(location); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<ObjectStream>> stream =
      store_->Open(location, range.start, range.length());
  if (!stream.ok()) return stream.status();
  return std::make_unique<RangeReader>(std::move(*stream), range, location.uri);
}

void ManagedStage::ReadRanges(absl::Span<RangeRead> ranges) {
  const DataLocation* last = nullptr;
  absl::Status last_containment;
  for (RangeRead& range : ranges) {
    range.bytes_read = 0;
    if (!range.status.ok()) continue;  // already refused by the caller
    if (range.location == nullptr || range.buffer == nullptr) {
      range.status = absl::InvalidArgumentError(
          range.location == nullptr ? "range has no location"
                                    : "range has no buffer");
      continue;
    }
    range.status = ValidateRange(ByteRange{range.start, range.end},
                                 range.location->size_bytes);
    if (!range.status.ok()) continue;
    if (range.location != last) {  // batches usually repeat one location
      last = range.location;
      last_containment = store_->CheckContainment(*range.location);
    }
    range.status = last_containment;
  }
  store_->ReadRanges(ranges);
}

absl::StatusOr<std::string> ManagedStage::Presign(const DataLocation& location,
                                                  absl::Duration ttl) {
  if (absl::Status s = store_->CheckContainment(location); !s.ok()) return s;
  return store_->Presign(location, ttl);
}

absl::Status ManagedStage::Delete(const DataLocation& location) {
  if (absl::Status s = store_->CheckContainment(location); !s.ok()) return s;
  {
    absl::MutexLock lock(&known_mu_);
    known_sizes_.erase(location.uri);
    ++known_generation_;
  }
  return store_->Delete(location);
}

absl::Status ManagedStage::CheckExisting(const DataLocation& location) {
  const DataLocation* one = &location;
  return CheckExistingAll(absl::MakeConstSpan(&one, 1)).status();
}

absl::StatusOr<uint64_t> ManagedStage::CheckExistingAll(
    absl::Span<const DataLocation* const> locations) {
  // What is remembered, looked up under one lock; a remembered URI was
  // contained when it was remembered.
  std::vector<std::optional<uint64_t>> known(locations.size());
  uint64_t epoch = 0;
  uint64_t generation = 0;
  {
    absl::MutexLock lock(&known_mu_);
    for (size_t i = 0; i < locations.size(); ++i) {
      auto it = known_sizes_.find(locations[i]->uri);
      if (it != known_sizes_.end()) known[i] = it->second;
    }
    epoch = known_epoch_;
    generation = known_generation_;
  }
  for (size_t i = 0; i < locations.size(); ++i) {
    const DataLocation& location = *locations[i];
    if (!known[i]) {
      if (absl::Status s = store_->CheckContainment(location); !s.ok()) return s;
      absl::StatusOr<uint64_t> stored = store_->StoredSize(location);
      if (!stored.ok()) return stored.status();
      RememberSize(location.uri, *stored, epoch);
      known[i] = *stored;
    }
    const uint64_t stored = *known[i];
    if (stored != location.size_bytes) {
      return IntegrityError(
          stored < location.size_bytes ? IntegrityKind::kSizeShort : IntegrityKind::kSizeLong,
          location.size_bytes, stored,
          absl::StrCat(location.uri, ": the stored object has ", stored, " bytes, not ",
                       location.size_bytes));
    }
  }
  return generation;
}

bool ManagedStage::RememberedSince(uint64_t generation) {
  absl::MutexLock lock(&known_mu_);
  return known_generation_ == generation;
}

}  // namespace lake
