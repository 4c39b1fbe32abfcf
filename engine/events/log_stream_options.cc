#include "engine/events/log_stream_options.h"

#include <memory>
#include <vector>

namespace lake::events {

StreamWriterOptions StreamIntoLog(EventLog& log, ManagedStage& stage) {
  StreamWriterOptions options;
  auto blob_leases = std::make_shared<std::vector<std::unique_ptr<KeyLease>>>();
  options.sink = [&log, blob_leases](std::vector<Event> batch) {
    absl::Status appended = log.Append(std::move(batch)).status();
    // Every pending event went with the batch.
    if (appended.ok()) blob_leases->clear();
    return appended;
  };
  options.blob_offloader = [&stage,
                            blob_leases](std::string_view bytes) -> absl::StatusOr<DataLocation> {
    absl::StatusOr<std::unique_ptr<LocationWriter>> writer = stage.NewWriter(UploadOptions{});
    if (!writer.ok()) return writer.status();
    if (absl::Status s =
            (*writer)->Write(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        !s.ok()) {
      return s;
    }
    absl::StatusOr<LeasedLocation> leased = (*writer)->CommitLeased();
    if (!leased.ok()) return leased.status();
    if (leased->lease != nullptr) blob_leases->push_back(std::move(leased->lease));
    return std::move(leased->location);
  };
  return options;
}

}  // namespace lake::events
