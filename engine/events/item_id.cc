#include "engine/events/item_id.h"

#include <charconv>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace lake::events {
namespace {

// Error texts quote at most this much of the input, escaped, so a hostile
// id cannot flood a log or smuggle control bytes into it.
constexpr size_t kQuotedBytes = 80;

std::string Quoted(std::string_view text) {
  std::string_view head = text.substr(0, kQuotedBytes);
  return absl::StrCat("\"", absl::CHexEscape(absl::string_view(head.data(), head.size())),
                      text.size() > kQuotedBytes ? "\"..." : "\"");
}

absl::Status Invalid(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("item id ", Quoted(text), ": ", std::string(why)));
}

bool IsIdByte(char c) { return c >= 0x21 && c <= 0x7E && c != '/'; }

// Empty when `root` is a valid root segment, else why not.
std::string RootProblem(std::string_view root) {
  if (root.empty()) return "empty root";
  if (root.size() > kMaxRootItemBytes) {
    return absl::StrCat("root longer than ", kMaxRootItemBytes, " bytes");
  }
  for (char c : root) {
    if (!IsIdByte(c)) return "root holds a byte outside 0x21..0x7E or a '/'";
  }
  return "";
}

std::string StepProblem(std::string_view step) {
  if (step.empty()) return "empty step name";
  if (step.size() > kMaxStepNameBytes) {
    return absl::StrCat("step name longer than ", kMaxStepNameBytes, " bytes");
  }
  for (char c : step) {
    if (!IsIdByte(c) || c == ':') {
      return "step name holds a byte outside 0x21..0x7E, a '/' or a ':'";
    }
  }
  return "";
}

std::optional<uint32_t> ParseIndex(std::string_view digits) {
  if (digits.empty() || digits.size() > 10) return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// Walks `text` by the grammar, calling on_segment(step, index) for each
// path segment in order; the first violation is the error. ParseItemId and
// ValidateItemIdText share it, so they accept exactly the same texts.
template <typename OnSegment>
absl::Status WalkItemId(std::string_view text, OnSegment on_segment) {
  if (text.size() > kMaxItemIdBytes) {
    return Invalid(text, absl::StrCat("longer than ", kMaxItemIdBytes, " bytes"));
  }
  size_t slash = text.find('/');
  if (std::string why = RootProblem(text.substr(0, slash)); !why.empty()) {
    return Invalid(text, why);
  }
  size_t depth = 0;
  while (slash != std::string_view::npos) {
    size_t start = slash + 1;
    slash = text.find('/', start);
    std::string_view segment =
        text.substr(start, slash == std::string_view::npos ? std::string_view::npos
                                                           : slash - start);
    if (depth == kMaxItemDepth) {
      return Invalid(text, absl::StrCat("deeper than ", kMaxItemDepth, " steps"));
    }
    size_t colon = segment.rfind(':');
    if (colon == std::string_view::npos) {
      return Invalid(text, "path segment is not step:index");
    }
    std::string_view step = segment.substr(0, colon);
    if (std::string why = StepProblem(step); !why.empty()) return Invalid(text, why);
    std::optional<uint32_t> index = ParseIndex(segment.substr(colon + 1));
    if (!index) {
      return Invalid(text, "index is not a decimal u32 without leading zeros");
    }
    on_segment(step, *index);
    ++depth;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ItemId> ParseItemId(std::string_view text) {
  ItemId id;
  absl::Status walked = WalkItemId(text, [&](std::string_view step, uint32_t index) {
    id.path.push_back(ItemPathSegment{std::string(step), index});
  });
  if (!walked.ok()) return walked;
  id.root = std::string(RootTextOf(text));
  return id;
}

absl::Status ValidateItemIdText(std::string_view text) {
  return WalkItemId(text, [](std::string_view, uint32_t) {});
}

std::string_view RootTextOf(std::string_view valid_item_id) {
  return valid_item_id.substr(0, valid_item_id.find('/'));
}

std::string_view ParentTextOf(std::string_view valid_item_id) {
  size_t last = valid_item_id.rfind('/');
  return last == std::string_view::npos ? std::string_view() : valid_item_id.substr(0, last);
}

absl::Status ValidateItemId(const ItemId& id) {
  if (std::string why = RootProblem(id.root); !why.empty()) return Invalid(id.root, why);
  if (id.path.size() > kMaxItemDepth) {
    return Invalid(id.root, absl::StrCat("deeper than ", kMaxItemDepth, " steps"));
  }
  for (const ItemPathSegment& s : id.path) {
    if (std::string why = StepProblem(s.step); !why.empty()) return Invalid(s.step, why);
  }
  if (FormatItemId(id).size() > kMaxItemIdBytes) {
    return Invalid(id.root, absl::StrCat("longer than ", kMaxItemIdBytes, " bytes"));
  }
  return absl::OkStatus();
}

std::string FormatItemId(const ItemId& id) {
  std::string out = id.root;
  for (const ItemPathSegment& s : id.path) {
    absl::StrAppend(&out, "/", s.step, ":", s.index);
  }
  return out;
}

ItemId RootItemId(const ItemId& id) { return ItemId{id.root, {}}; }

std::optional<ItemId> ParentItemId(const ItemId& id) {
  if (id.is_root()) return std::nullopt;
  ItemId parent = id;
  parent.path.pop_back();
  return parent;
}

absl::StatusOr<ItemId> ChildItemId(const ItemId& parent, std::string_view step,
                                   uint32_t index) {
  ItemId child = parent;
  child.path.push_back(ItemPathSegment{std::string(step), index});
  if (absl::Status status = ValidateItemId(child); !status.ok()) return status;
  return child;
}

absl::StatusOr<std::string> RootItemIdText(std::string_view item_id) {
  if (absl::Status s = ValidateItemIdText(item_id); !s.ok()) return s;
  return std::string(RootTextOf(item_id));
}

absl::StatusOr<std::string> ParentItemIdText(std::string_view item_id) {
  if (absl::Status s = ValidateItemIdText(item_id); !s.ok()) return s;
  return std::string(ParentTextOf(item_id));
}

}  // namespace lake::events
