#include "engine/events/blob_field.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "engine/object_stream.h"
#include "engine/verified_reader.h"

namespace lake::events {
namespace {

// The inline bytes of a blob as a stream (they are the event's own copy).
class InlineBlobStream final : public ObjectStream {
 public:
  explicit InlineBlobStream(std::string bytes) : bytes_(std::move(bytes)) {}

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
    size_t n = std::min(len, bytes_.size() - offset_);
    std::memcpy(dst, bytes_.data() + offset_, n);
    offset_ += n;
    return n;
  }
  absl::Status Close() override { return absl::OkStatus(); }

 private:
  std::string bytes_;
  size_t offset_ = 0;
};

}  // namespace

absl::Status CheckBlobLocations(ManagedStage& stage, absl::Span<const Event> events) {
  for (const Event& e : events) {
    if (!e.blob_location) continue;
    absl::Status checked = stage.CheckExisting(*e.blob_location);
    if (checked.ok()) continue;
    // The same error, naming the event; the integrity payload goes along.
    absl::Status named(checked.code(),
                       absl::StrCat("event (item_id \"", e.item_id.substr(0, 80), "\", item_seq ",
                                    e.item_seq, "): blob_location: ", checked.message()));
    checked.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
      named.SetPayload(url, payload);
    });
    return named;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ObjectReader>> LoadBlob(ManagedStage& stage,
                                                       const FoldedItem& item,
                                                       std::string_view field_name,
                                                       std::optional<size_t> index) {
  auto field = item.fields.find(std::string(field_name));
  if (field == item.fields.end() || field->second.values.empty()) {
    return absl::NotFoundError(absl::StrCat("item \"", item.item_id, "\" has no field \"",
                                            std::string(field_name), "\""));
  }
  const std::vector<Event>& values = field->second.values;
  size_t at = index.value_or(values.size() - 1);
  if (at >= values.size()) {
    return absl::NotFoundError(absl::StrCat("field \"", std::string(field_name), "\" of item \"",
                                            item.item_id, "\" has ", values.size(),
                                            " values, not ", at + 1));
  }
  const Event& value = values[at];
  if (value.value_kind != ValueKind::kBlob) {
    return absl::InvalidArgumentError(absl::StrCat("field \"", std::string(field_name),
                                                   "\" of item \"", item.item_id,
                                                   "\" is not a blob"));
  }
  if (value.blob_location) return stage.OpenVerified(*value.blob_location);
  // An inline blob is checked like an object: size and digest at EOF. The
  // "uri" only names it in an error.
  DataLocation described{absl::StrCat("inline:", item.item_id, "#", std::string(field_name)),
                         "application/octet-stream", value.payload_size, value.payload_checksum};
  return std::unique_ptr<ObjectReader>(new VerifiedReader(
      std::make_unique<InlineBlobStream>(value.blob_inline), std::move(described)));
}

}  // namespace lake::events
