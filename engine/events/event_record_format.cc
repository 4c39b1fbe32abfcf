// The event record format; its note is in event_record_format.h.
#include "engine/events/event_record_format.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/utf8.h"
#include "engine/data_location.h"
#include "engine/events/item_id.h"
#include "engine/sha256.h"
#include "engine/table/reference_delta_format.h"

namespace lake::events {
namespace {

using table::ByteReader;
using table::ByteWriter;

constexpr size_t kDigestHexBytes = 2 * table::kSha256RawBytes;
constexpr size_t kEventTsBytes = sizeof(int64_t);
constexpr std::string_view kContentDigestDomain =
    std::string_view("lake.event-content.v2\0", 22);

// What a string column may hold: text is UTF-8, bytes are anything.
enum class Content { kText, kBytes };

bool IsKnown(EventType v) { return ParseEventType(EventTypeName(v)) == v; }
bool IsKnown(StepKind v) { return ParseStepKind(StepKindName(v)) == v; }
bool IsKnown(ValueKind v) { return ParseValueKind(ValueKindName(v)) == v; }
bool IsKnown(ItemStatus v) { return ParseItemStatus(ItemStatusName(v)) == v; }

uint64_t BitsOf(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

// The record's columns after schema_version, in order. This one list drives
// the writer, the reader and the bounds check, so they cannot disagree.
// Every visitor method returns false to stop the visit.
template <typename Visitor, typename E>
bool VisitColumns(Visitor& v, E& e) {
  return v.Str("event_id", e.event_id, kDigestHexBytes, Content::kText) &&
         v.Str("item_id", e.item_id, kMaxItemIdBytes, Content::kText) &&
         v.Str("root_item_id", e.root_item_id, kMaxItemIdBytes, Content::kText) &&
         v.Str("parent_item_id", e.parent_item_id, kMaxItemIdBytes, Content::kText) &&
         v.Int("item_seq", e.item_seq) && v.Int("attempt", e.attempt) &&
         v.Str("checkpoint_id", e.checkpoint_id, kMaxEventNameBytes, Content::kText) &&
         v.Enum("event_type", e.event_type) &&
         v.Str("step_name", e.step_name, kMaxEventNameBytes, Content::kText) &&
         v.Opt("step_index", e.step_index) && v.Opt("step_kind", e.step_kind) &&
         v.Str("enclosing_step", e.enclosing_step, kMaxEventNameBytes, Content::kText) &&
         v.Str("selector_step", e.selector_step, kMaxEventNameBytes, Content::kText) &&
         v.Str("run_id", e.run_id, kMaxEventNameBytes, Content::kText) &&
         v.Str("writer_epoch", e.writer_epoch, kMaxEventNameBytes, Content::kText) &&
         v.Str("field_name", e.field_name, kMaxEventNameBytes, Content::kText) &&
         v.Str("field_type", e.field_type, kMaxEventNameBytes, Content::kText) &&
         v.Int("codec_version", e.codec_version) && v.Opt("value_kind", e.value_kind) &&
         v.Int("value_i64", e.value_i64) && v.Float("value_f64", e.value_f64) &&
         v.Bool("value_bool", e.value_bool) &&
         v.Str("value_str", e.value_str, kMaxEventValueBytes, Content::kText) &&
         v.Str("value_json", e.value_json, kMaxEventValueBytes, Content::kText) &&
         v.Str("blob_inline", e.blob_inline, kMaxEventValueBytes, Content::kBytes) &&
         v.Location("blob_location", e.blob_location) &&
         v.Int("payload_size", e.payload_size) &&
         v.Str("payload_checksum", e.payload_checksum, kDigestHexBytes, Content::kText) &&
         v.Str("query_tags_json", e.query_tags_json, kMaxEventValueBytes, Content::kText) &&
         v.Opt("status", e.status) &&
         v.Str("error_type", e.error_type, kMaxEventNameBytes, Content::kText) &&
         v.Str("error_dump", e.error_dump, kMaxEventValueBytes, Content::kText) &&
         v.Str("traceback", e.traceback, kMaxEventValueBytes, Content::kText) &&
         v.Int("event_ts", e.event_ts);  // last: EventContentDigest drops it
}

// Writes the columns into memory already sized for them (EventRecordBytes):
// one bounds-free copy per field, not a string append each.
class RecordWriter {
 public:
  explicit RecordWriter(char* out) : p_(out) {}
  char* end() const { return p_; }

  bool Str(std::string_view, const std::string& s, size_t, Content) {
    Fixed(static_cast<uint32_t>(s.size()));
    if (!s.empty()) std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
    return true;
  }
  bool Int(std::string_view, uint32_t v) { return Fixed(v); }
  bool Int(std::string_view, uint64_t v) { return Fixed(v); }
  bool Int(std::string_view, int64_t v) { return Fixed(static_cast<uint64_t>(v)); }
  bool Float(std::string_view, double v) { return Fixed(BitsOf(v)); }
  bool Bool(std::string_view, bool v) { return Fixed(static_cast<uint8_t>(v ? 1 : 0)); }
  template <typename E>
  bool Enum(std::string_view, E v) {
    return Fixed(static_cast<uint8_t>(v));
  }
  bool Opt(std::string_view name, const std::optional<uint32_t>& v) {
    Fixed(static_cast<uint8_t>(v ? 1 : 0));
    return !v || Int(name, *v);
  }
  template <typename E>
  bool Opt(std::string_view name, const std::optional<E>& v) {
    Fixed(static_cast<uint8_t>(v ? 1 : 0));
    return !v || Enum(name, *v);
  }
  bool Location(std::string_view name, const std::optional<DataLocation>& v) {
    Fixed(static_cast<uint8_t>(v ? 1 : 0));
    if (!v) return true;
    Str(name, v->uri, 0, Content::kText);
    Str(name, v->content_type, 0, Content::kText);
    Fixed(v->size_bytes);
    const table::Sha256Raw raw = table::Sha256FromHex(v->sha256).value_or(table::Sha256Raw{});
    std::memcpy(p_, raw.data(), raw.size());
    p_ += raw.size();
    return true;
  }

 private:
  template <typename T>
  bool Fixed(T v) {  // little-endian, as ByteWriter (byte_codec.h)
    std::memcpy(p_, &v, sizeof v);
    p_ += sizeof v;
    return true;
  }
  char* p_;
};

// Reads the columns, refusing anything the writer would not have written;
// the first complaint is kept in error().
class RecordReader {
 public:
  explicit RecordReader(ByteReader& r) : r_(r) {}

  const std::string& error() const { return error_; }

  bool Str(std::string_view name, std::string& s, size_t max_bytes, Content) {
    uint32_t size = 0;
    std::string_view bytes;
    if (!r_.U32(&size)) return Short(name);
    if (size > max_bytes) {
      return Fail(name, absl::StrCat("is ", size, " bytes, over its bound of ", max_bytes));
    }
    if (!r_.Bytes(size, &bytes)) return Short(name);
    s.assign(bytes);
    return true;
  }
  bool Int(std::string_view name, uint32_t& v) { return r_.U32(&v) || Short(name); }
  bool Int(std::string_view name, uint64_t& v) { return r_.U64(&v) || Short(name); }
  bool Int(std::string_view name, int64_t& v) {
    uint64_t bits = 0;
    if (!r_.U64(&bits)) return Short(name);
    v = static_cast<int64_t>(bits);
    return true;
  }
  bool Float(std::string_view name, double& v) {
    uint64_t bits = 0;
    if (!r_.U64(&bits)) return Short(name);
    std::memcpy(&v, &bits, sizeof(v));
    return true;
  }
  bool Bool(std::string_view name, bool& v) {
    uint8_t byte = 0;
    if (!Byte(name, &byte)) return false;
    v = byte == 1;
    return true;
  }
  template <typename E>
  bool Enum(std::string_view name, E& v) {
    uint8_t code = 0;
    if (!r_.U8(&code)) return Short(name);
    v = static_cast<E>(code);
    return IsKnown(v) || Fail(name, absl::StrCat("holds unknown code ", code));
  }
  template <typename T>
  bool Opt(std::string_view name, std::optional<T>& v) {
    bool present = false;
    if (!Bool(name, present)) return false;
    if (!present) return true;
    T value{};
    if constexpr (std::is_same_v<T, uint32_t>) {
      if (!Int(name, value)) return false;
    } else {
      if (!Enum(name, value)) return false;
    }
    v = value;
    return true;
  }
  bool Location(std::string_view name, std::optional<DataLocation>& v) {
    bool present = false;
    if (!Bool(name, present)) return false;
    if (!present) return true;
    DataLocation location;
    table::Sha256Raw sha256;
    if (!Str(name, location.uri, table::kMaxReferenceUriBytes, Content::kText) ||
        !Str(name, location.content_type, kMaxContentTypeBytes, Content::kText) ||
        !Int(name, location.size_bytes)) {
      return false;
    }
    if (!r_.Sha256(&sha256)) return Short(name);
    location.sha256 = table::Sha256ToHex(sha256);
    v = std::move(location);
    return true;
  }

 private:
  // A presence or bool byte: 0 or 1, nothing else.
  bool Byte(std::string_view name, uint8_t* byte) {
    if (!r_.U8(byte)) return Short(name);
    return *byte <= 1 || Fail(name, absl::StrCat("holds byte ", *byte, " (not 0 or 1)"));
  }
  bool Short(std::string_view name) { return Fail(name, "is cut off: the record ends early"); }
  bool Fail(std::string_view name, std::string_view why) {
    error_ = absl::StrCat("column ", std::string(name), " ", std::string(why));
    return false;
  }

  ByteReader& r_;
  std::string error_;
};

// The record's bounds and encodings; the first violation is kept in error().
class RecordChecker {
 public:
  const std::string& error() const { return error_; }

  bool Str(std::string_view name, const std::string& s, size_t max_bytes, Content content) {
    if (s.size() > max_bytes) {
      return Fail(name, absl::StrCat("is ", s.size(), " bytes, over its bound of ", max_bytes));
    }
    // (Most of an event's columns are empty: they need no call at all.)
    return content == Content::kBytes || s.empty() || IsValidUtf8(s) ||
           Fail(name, "is not UTF-8");
  }
  template <typename T>
  bool Int(std::string_view, T) { return true; }
  bool Float(std::string_view name, double v) {
    return std::isfinite(v) || Fail(name, "is not finite");
  }
  bool Bool(std::string_view, bool) { return true; }
  template <typename E>
  bool Enum(std::string_view, E) { return true; }
  template <typename T>
  bool Opt(std::string_view, const std::optional<T>&) { return true; }
  bool Location(std::string_view name, const std::optional<DataLocation>& v) {
    if (!v) return true;
    if (v->uri.size() > table::kMaxReferenceUriBytes) {
      return Fail(name, absl::StrCat("has a uri over ", table::kMaxReferenceUriBytes,
                                     " bytes, which the reference journal cannot record"));
    }
    absl::Status s = CheckCanonicalLocation(v->uri, v->content_type, v->size_bytes, v->sha256);
    return s.ok() || Fail(name, std::string(s.message()));
  }

 private:
  bool Fail(std::string_view name, std::string_view why) {
    error_ = absl::StrCat("column ", std::string(name), " ", std::string(why));
    return false;
  }
  std::string error_;
};

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(absl::StrCat("event record: ", std::string(why)));
}

}  // namespace

absl::Status ValidateEventRecord(const Event& event, const Event* same_item) {
  if (absl::Status s = ValidateEvent(event, same_item); !s.ok()) return s;
  RecordChecker checker;
  if (!VisitColumns(checker, event)) {
    return absl::InvalidArgumentError(
        absl::StrCat("event (item_id \"", event.item_id, "\", item_seq ", event.item_seq,
                     "): ", checker.error()));
  }
  if (event.value_kind != ValueKind::kFloat && BitsOf(event.value_f64) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("event (item_id \"", event.item_id, "\", item_seq ", event.item_seq,
                     "): column value_f64 is -0.0 on a value that is not a float"));
  }
  return absl::OkStatus();
}

// Counts the bytes RecordWriter writes, column by column.
class RecordSizer {
 public:
  bool Str(std::string_view, const std::string& s, size_t, Content) {
    bytes += 4 + s.size();
    return true;
  }
  bool Int(std::string_view, uint32_t) { return Add(4); }
  bool Int(std::string_view, uint64_t) { return Add(8); }
  bool Int(std::string_view, int64_t) { return Add(8); }
  bool Float(std::string_view, double) { return Add(8); }
  bool Bool(std::string_view, bool) { return Add(1); }
  template <typename E>
  bool Enum(std::string_view, E) {
    return Add(1);
  }
  bool Opt(std::string_view, const std::optional<uint32_t>& v) { return Add(v ? 5 : 1); }
  template <typename E>
  bool Opt(std::string_view, const std::optional<E>& v) {
    return Add(v ? 2 : 1);
  }
  bool Location(std::string_view, const std::optional<DataLocation>& v) {
    return Add(v ? 1 + 4 + v->uri.size() + 4 + v->content_type.size() + 8 +
                       table::kSha256RawBytes
                 : 1);
  }

  size_t bytes = 4;  // schema_version

 private:
  bool Add(size_t n) {
    bytes += n;
    return true;
  }
};

void AppendEventRecord(const Event& event, std::string* out) {
  const size_t at = out->size();
  const size_t bytes = EventRecordBytes(event);
  out->resize(at + bytes);
  RecordWriter writer(out->data() + at);
  writer.Int("schema_version", event.schema_version);
  VisitColumns(writer, event);
  // The sizer and the writer visit the same columns (VisitColumns).
  assert(writer.end() == out->data() + at + bytes);
}

absl::StatusOr<Event> ReadEventRecord(ByteReader& reader) {
  Event event;
  if (!reader.U32(&event.schema_version)) {
    return Damaged("column schema_version is cut off: the record ends early");
  }
  if (event.schema_version != kEventSchemaVersion) {
    return Damaged(absl::StrCat("unknown schema version ", event.schema_version,
                                " (this build reads version ", kEventSchemaVersion, ")"));
  }
  RecordReader columns(reader);
  if (!VisitColumns(columns, event)) return Damaged(columns.error());
  if (absl::Status s = ValidateEventRecord(event); !s.ok()) {
    return Damaged(std::string(s.message()));
  }
  return event;
}

size_t EventRecordBytes(const Event& event) {
  RecordSizer sizer;
  VisitColumns(sizer, event);
  return sizer.bytes;
}

std::string EventContentDigest(const Event& event) {
  std::string record;
  AppendEventRecord(event, &record);
  Sha256 hash;
  hash.Update(reinterpret_cast<const uint8_t*>(kContentDigestDomain.data()),
              kContentDigestDomain.size());
  hash.Update(reinterpret_cast<const uint8_t*>(record.data()), record.size() - kEventTsBytes);
  return hash.FinishHex();
}

}  // namespace lake::events
