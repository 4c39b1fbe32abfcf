// The event JSON form; its note is in event_json.h.
#include "engine/events/event_json.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "engine/data_location_json.h"
#include "engine/events/event_record_format.h"

namespace lake::events {
namespace {

using Json = nlohmann::json;
using ColumnReader = absl::Status (*)(const Json& value, std::string_view key, Event& e);

// ---- reading one key ----

absl::Status BadKey(std::string_view key, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("key \"", std::string(key), "\" ", std::string(why)));
}

// Integers only: nlohmann types 1.0, 1e3 and anything beyond 64 bits as
// floats. "-0" is an integer 0.
absl::Status ReadUnsigned(const Json& v, std::string_view key, uint64_t max, uint64_t* out) {
  if (v.is_number_unsigned() && v.get<uint64_t>() <= max) {
    *out = v.get<uint64_t>();
    return absl::OkStatus();
  }
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() == 0) {
    *out = 0;
    return absl::OkStatus();
  }
  return BadKey(key, absl::StrCat("must be an integer in [0, ", max, "]"));
}

absl::Status ReadSigned(const Json& v, std::string_view key, int64_t* out) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (v.is_number_unsigned() && v.get<uint64_t>() <= static_cast<uint64_t>(kMax)) {
    *out = static_cast<int64_t>(v.get<uint64_t>());
    return absl::OkStatus();
  }
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    *out = v.get<int64_t>();
    return absl::OkStatus();
  }
  return BadKey(key, "must be an integer in [-2^63, 2^63-1]");
}

absl::Status ReadText(const Json& v, std::string_view key, std::string* out) {
  if (!v.is_string()) return BadKey(key, "must be a JSON string");
  *out = v.get_ref<const std::string&>();
  return absl::OkStatus();
}

template <typename E>
absl::Status ReadName(const Json& v, std::string_view key,
                      std::optional<E> (*parse)(std::string_view), std::optional<E>* out) {
  if (!v.is_string()) return BadKey(key, "must be a JSON string");
  *out = parse(v.get_ref<const std::string&>());
  if (!*out) {
    return BadKey(key, absl::StrCat("has unknown value \"",
                                    v.get_ref<const std::string&>().substr(0, 128), "\""));
  }
  return absl::OkStatus();
}

template <std::string Event::*M>
absl::Status Text(const Json& v, std::string_view key, Event& e) {
  return ReadText(v, key, &(e.*M));
}

template <uint64_t Event::*M>
absl::Status U64(const Json& v, std::string_view key, Event& e) {
  return ReadUnsigned(v, key, std::numeric_limits<uint64_t>::max(), &(e.*M));
}

template <uint32_t Event::*M>
absl::Status U32(const Json& v, std::string_view key, Event& e) {
  uint64_t n = 0;
  absl::Status s = ReadUnsigned(v, key, std::numeric_limits<uint32_t>::max(), &n);
  if (s.ok()) e.*M = static_cast<uint32_t>(n);
  return s;
}

template <int64_t Event::*M>
absl::Status I64(const Json& v, std::string_view key, Event& e) {
  return ReadSigned(v, key, &(e.*M));
}

absl::Status StepIndex(const Json& v, std::string_view key, Event& e) {
  uint64_t n = 0;
  absl::Status s = ReadUnsigned(v, key, std::numeric_limits<uint32_t>::max(), &n);
  if (s.ok()) e.step_index = static_cast<uint32_t>(n);
  return s;
}

template <typename E, std::optional<E> Event::*M, std::optional<E> (*Parse)(std::string_view)>
absl::Status Name(const Json& v, std::string_view key, Event& e) {
  return ReadName(v, key, Parse, &(e.*M));
}

absl::Status Type(const Json& v, std::string_view key, Event& e) {
  std::optional<EventType> type;
  absl::Status s = ReadName(v, key, ParseEventType, &type);
  if (s.ok()) e.event_type = *type;
  return s;
}

absl::Status F64(const Json& v, std::string_view key, Event& e) {
  if (!v.is_number()) return BadKey(key, "must be a JSON number");
  e.value_f64 = v.get<double>();
  return absl::OkStatus();
}

absl::Status Bool(const Json& v, std::string_view key, Event& e) {
  if (!v.is_boolean()) return BadKey(key, "must be true or false");
  e.value_bool = v.get<bool>();
  return absl::OkStatus();
}

absl::Status Base64Blob(const Json& v, std::string_view key, Event& e) {
  if (!v.is_string()) return BadKey(key, "must be a JSON string");
  const std::string& text = v.get_ref<const std::string&>();
  absl::string_view encoded(text.data(), text.size());
  // One spelling per blob: padded, no whitespace, zero trailing bits.
  if (!absl::Base64Unescape(encoded, &e.blob_inline) ||
      absl::Base64Escape(absl::string_view(e.blob_inline.data(), e.blob_inline.size())) != text) {
    return BadKey(key, "is not canonical base64 (RFC 4648, padded)");
  }
  return absl::OkStatus();
}

absl::Status Location(const Json& v, std::string_view key, Event& e) {
  if (!v.is_object()) return BadKey(key, "must be a JSON object");
  absl::StatusOr<DataLocation> location = DataLocationFromJson(v.dump());
  if (!location.ok()) return BadKey(key, std::string(location.status().message()));
  e.blob_location = *std::move(location);
  return absl::OkStatus();
}

struct JsonColumn {
  std::string_view key;
  ColumnReader read;
};

// In EVENT-LOG.md's column order, which is also the output order.
constexpr std::array<JsonColumn, 35> kColumns = {{
    {"event_id", Text<&Event::event_id>},
    {"item_id", Text<&Event::item_id>},
    {"root_item_id", Text<&Event::root_item_id>},
    {"parent_item_id", Text<&Event::parent_item_id>},
    {"item_seq", U64<&Event::item_seq>},
    {"attempt", U32<&Event::attempt>},
    {"checkpoint_id", Text<&Event::checkpoint_id>},
    {"event_type", Type},
    {"step_name", Text<&Event::step_name>},
    {"step_index", StepIndex},
    {"step_kind", Name<StepKind, &Event::step_kind, ParseStepKind>},
    {"enclosing_step", Text<&Event::enclosing_step>},
    {"selector_step", Text<&Event::selector_step>},
    {"run_id", Text<&Event::run_id>},
    {"writer_epoch", Text<&Event::writer_epoch>},
    {"field_name", Text<&Event::field_name>},
    {"field_type", Text<&Event::field_type>},
    {"codec_version", U32<&Event::codec_version>},
    {"value_kind", Name<ValueKind, &Event::value_kind, ParseValueKind>},
    {"value_i64", I64<&Event::value_i64>},
    {"value_f64", F64},
    {"value_bool", Bool},
    {"value_str", Text<&Event::value_str>},
    {"value_json", Text<&Event::value_json>},
    {"blob_inline_base64", Base64Blob},
    {"blob_location", Location},
    {"payload_size", U64<&Event::payload_size>},
    {"payload_checksum", Text<&Event::payload_checksum>},
    {"query_tags_json", Text<&Event::query_tags_json>},
    {"status", Name<ItemStatus, &Event::status, ParseItemStatus>},
    {"error_type", Text<&Event::error_type>},
    {"error_dump", Text<&Event::error_dump>},
    {"traceback", Text<&Event::traceback>},
    {"event_ts", I64<&Event::event_ts>},
    {"schema_version", U32<&Event::schema_version>},
}};

std::optional<size_t> ColumnIndex(std::string_view key) {
  for (size_t i = 0; i < kColumns.size(); ++i) {
    if (kColumns[i].key == key) return i;
  }
  return std::nullopt;
}

constexpr std::array<std::string_view, 3> kRequiredKeys = {"item_id", "item_seq", "event_type"};

// ---- reading one object ----

// Parses `text`, refusing a duplicate key in any object and an unknown key
// of the event object (in the order they appear) through `problem`.
Json ParseChecked(std::string_view text, std::string* problem) {
  std::vector<std::set<std::string>> open_objects;
  auto callback = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == Json::parse_event_t::object_end) open_objects.pop_back();
    if (event != Json::parse_event_t::key || !problem->empty()) return true;
    const std::string& key = parsed.get_ref<const std::string&>();
    if (!open_objects.back().insert(key).second) {
      *problem = absl::StrCat("duplicate key \"", key, "\"");
    } else if (open_objects.size() == 1 && !ColumnIndex(key)) {
      *problem = absl::StrCat("unknown key \"", key.substr(0, 128), "\"");
    }
    return true;
  };
  return Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false);
}

bool IsSet(const Json& object, std::string_view key) {
  auto it = object.find(std::string(key));
  return it != object.end() && !it->is_null();
}

absl::Status CheckDerived(std::string_view key, const std::optional<std::string>& given,
                          const std::string& derived) {
  if (!given || *given == derived) return absl::OkStatus();
  return BadKey(key, absl::StrCat("is \"", given->substr(0, 128), "\", not the derived \"",
                                  derived, "\""));
}

// Derives event_id, root_item_id and parent_item_id; each one `object`
// gives must equal its derived value ("" included).
absl::Status FillAndCheckDerivedIds(const Json& object, Event& e) {
  std::optional<std::string> event_id, root, parent;
  if (IsSet(object, "event_id")) event_id = e.event_id;
  if (IsSet(object, "root_item_id")) root = e.root_item_id;
  if (IsSet(object, "parent_item_id")) parent = e.parent_item_id;
  if (absl::Status s = FillDerivedIds(e); !s.ok()) return s;
  if (absl::Status s = CheckDerived("event_id", event_id, e.event_id); !s.ok()) return s;
  if (absl::Status s = CheckDerived("root_item_id", root, e.root_item_id); !s.ok()) return s;
  return CheckDerived("parent_item_id", parent, e.parent_item_id);
}

// ---- writing ----

std::string JsonString(std::string_view text) {
  // A valid event's text columns are UTF-8, so nothing is replaced; the
  // handler only keeps dump() from throwing on a precondition violation.
  return Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

class JsonObjectText {
 public:
  void Raw(std::string_view key, std::string_view json) {
    absl::StrAppend(&text_, text_.empty() ? "{\"" : ",\"", std::string(key), "\":",
                    std::string(json));
  }
  void String(std::string_view key, std::string_view value) { Raw(key, JsonString(value)); }
  void StringIfSet(std::string_view key, std::string_view value) {
    if (!value.empty()) String(key, value);
  }
  std::string Finish() { return text_ + "}"; }

 private:
  std::string text_;
};

absl::Status WithLineNumber(const absl::Status& status, size_t line) {
  absl::Status out(status.code(), absl::StrCat("line ", line, ": ", status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  return out;
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

bool JsonNestsDeeperThan(std::string_view text, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return true;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return false;
}

absl::StatusOr<Event> ParseEventJson(std::string_view one_object) {
  if (one_object.size() > kMaxEventJsonBytes) {
    return absl::InvalidArgumentError(absl::StrCat("event JSON is ", one_object.size(),
                                                   " bytes, over the bound of ",
                                                   kMaxEventJsonBytes));
  }
  // An event nests two objects deep at most (itself and blob_location):
  // deeper text is refused before parsing, so it cannot build a deep tree.
  if (JsonNestsDeeperThan(one_object, 2)) {
    return absl::InvalidArgumentError("event JSON nests deeper than an event does");
  }
  std::string problem;
  Json json = ParseChecked(one_object, &problem);
  if (json.is_discarded()) return absl::InvalidArgumentError("not valid JSON");
  if (!json.is_object()) return absl::InvalidArgumentError("not a JSON object");
  if (!problem.empty()) return absl::InvalidArgumentError(problem);
  for (std::string_view key : kRequiredKeys) {
    if (!IsSet(json, key)) return BadKey(key, "is missing");
  }
  Event event;
  for (const auto& item : json.items()) {
    if (item.value().is_null()) continue;
    const JsonColumn& column = kColumns[*ColumnIndex(item.key())];
    if (absl::Status s = column.read(item.value(), column.key, event); !s.ok()) return s;
  }
  if (event.schema_version != kEventSchemaVersion) {
    return BadKey("schema_version", absl::StrCat("is ", event.schema_version,
                                                 "; only version ", kEventSchemaVersion,
                                                 " is supported"));
  }
  if (absl::Status s = FillAndCheckDerivedIds(json, event); !s.ok()) return s;
  if (absl::Status s = ValidateEventRecord(event); !s.ok()) return s;
  return event;
}

absl::StatusOr<std::vector<Event>> ParseEventJsonLines(std::string_view text) {
  std::vector<Event> events;
  size_t line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!IsBlank(line)) {
      absl::StatusOr<Event> event = ParseEventJson(line);
      if (!event.ok()) return WithLineNumber(event.status(), line_number);
      events.push_back(*std::move(event));
    }
    start = end + 1;
  }
  return events;
}

std::string EventToJson(const Event& e) {
  JsonObjectText out;
  ValueKind kind = e.value_kind.value_or(ValueKind{});
  uint64_t f64_bits = 0;
  std::memcpy(&f64_bits, &e.value_f64, sizeof(f64_bits));
  out.String("event_id", e.event_id);
  out.String("item_id", e.item_id);
  out.String("root_item_id", e.root_item_id);
  out.StringIfSet("parent_item_id", e.parent_item_id);
  out.Raw("item_seq", absl::StrCat(e.item_seq));
  out.Raw("attempt", absl::StrCat(e.attempt));
  out.StringIfSet("checkpoint_id", e.checkpoint_id);
  out.String("event_type", EventTypeName(e.event_type));
  out.StringIfSet("step_name", e.step_name);
  if (e.step_index) out.Raw("step_index", absl::StrCat(*e.step_index));
  if (e.step_kind) out.String("step_kind", StepKindName(*e.step_kind));
  out.StringIfSet("enclosing_step", e.enclosing_step);
  out.StringIfSet("selector_step", e.selector_step);
  out.StringIfSet("run_id", e.run_id);
  out.StringIfSet("writer_epoch", e.writer_epoch);
  out.StringIfSet("field_name", e.field_name);
  out.StringIfSet("field_type", e.field_type);
  if (e.codec_version != 0) out.Raw("codec_version", absl::StrCat(e.codec_version));
  if (e.value_kind) out.String("value_kind", ValueKindName(*e.value_kind));
  if (kind == ValueKind::kInt || e.value_i64 != 0) {
    out.Raw("value_i64", absl::StrCat(e.value_i64));
  }
  if (kind == ValueKind::kFloat || f64_bits != 0) out.Raw("value_f64", Json(e.value_f64).dump());
  if (kind == ValueKind::kBool || e.value_bool) {
    out.Raw("value_bool", e.value_bool ? "true" : "false");
  }
  if (kind == ValueKind::kStr || !e.value_str.empty()) out.String("value_str", e.value_str);
  out.StringIfSet("value_json", e.value_json);
  if ((kind == ValueKind::kBlob && !e.blob_location) || !e.blob_inline.empty()) {
    out.String("blob_inline_base64",
               absl::Base64Escape(absl::string_view(e.blob_inline.data(), e.blob_inline.size())));
  }
  if (e.blob_location) out.Raw("blob_location", DataLocationToJson(*e.blob_location));
  if (kind == ValueKind::kBlob || e.payload_size != 0) {
    out.Raw("payload_size", absl::StrCat(e.payload_size));
  }
  out.StringIfSet("payload_checksum", e.payload_checksum);
  out.StringIfSet("query_tags_json", e.query_tags_json);
  if (e.status) out.String("status", ItemStatusName(*e.status));
  out.StringIfSet("error_type", e.error_type);
  out.StringIfSet("error_dump", e.error_dump);
  out.StringIfSet("traceback", e.traceback);
  out.Raw("event_ts", absl::StrCat(e.event_ts));
  out.Raw("schema_version", absl::StrCat(e.schema_version));
  return out.Finish();
}

}  // namespace lake::events
