// Item ids of the event log (engine/events/item_id.h): the materialized
// path grammar, its one canonical spelling, and root/parent derivation.
#include "engine/events/item_id.h"

#include <doctest/doctest.h>

#include <string>

#include "tests/support/status_checks.h"

namespace lake::events {
namespace {

TEST_CASE("events item id: a root item parses to a root with no path") {
  absl::StatusOr<ItemId> id = ParseItemId("prompt-17");
  LAKE_REQUIRE_OK(id);
  CHECK(id->root == "prompt-17");
  CHECK(id->is_root());
  CHECK(FormatItemId(*id) == "prompt-17");
}

TEST_CASE("events item id: a sub-item parses every step:index segment") {
  absl::StatusOr<ItemId> id = ParseItemId("ep1/expand:3/judge:0");
  LAKE_REQUIRE_OK(id);
  CHECK(id->root == "ep1");
  REQUIRE(id->path.size() == 2);
  CHECK(id->path[0] == ItemPathSegment{"expand", 3});
  CHECK(id->path[1] == ItemPathSegment{"judge", 0});
  CHECK(FormatItemId(*id) == "ep1/expand:3/judge:0");
}

TEST_CASE("events item id: root and parent are derived from the path") {
  absl::StatusOr<ItemId> id = ParseItemId("ep1/expand:3/judge:0");
  LAKE_REQUIRE_OK(id);
  CHECK(FormatItemId(RootItemId(*id)) == "ep1");
  std::optional<ItemId> parent = ParentItemId(*id);
  REQUIRE(parent.has_value());
  CHECK(FormatItemId(*parent) == "ep1/expand:3");
  CHECK_FALSE(ParentItemId(RootItemId(*id)).has_value());
  CHECK(*RootItemIdText("ep1/expand:3/judge:0") == "ep1");
  CHECK(*ParentItemIdText("ep1/expand:3/judge:0") == "ep1/expand:3");
  CHECK(*ParentItemIdText("ep1") == "");
  CHECK(RootTextOf("ep1/expand:3/judge:0") == "ep1");
  CHECK(ParentTextOf("ep1/expand:3/judge:0") == "ep1/expand:3");
  CHECK(RootTextOf("ep1") == "ep1");
  CHECK(ParentTextOf("ep1") == "");
}

TEST_CASE("events item id: the largest u32 index is accepted") {
  absl::StatusOr<ItemId> id = ParseItemId("r/s:4294967295");
  LAKE_REQUIRE_OK(id);
  CHECK(id->path[0].index == 4294967295u);
}

TEST_CASE("events item id: malformed ids are InvalidArgument naming the text") {
  for (const char* bad :
       {"", "/s:1", "r/", "r/s", "r/:1", "r/s:", "r/s:01", "r/s:-1", "r/s:+1",
        "r/s:4294967296", "r/s:1/", "r//s:1", "r/s:1:2", "r s", "r\n",
        "r/s:1x", "r/s:99999999999"}) {
    absl::StatusOr<ItemId> id = ParseItemId(bad);
    CHECK_MESSAGE(absl::IsInvalidArgument(id.status()), bad);
    CHECK_MESSAGE(id.status().message().find("item id \"") == 0, bad);
    // The text-only check refuses the same texts with the same error.
    CHECK_MESSAGE(ValidateItemIdText(bad) == id.status(), bad);
  }
  LAKE_CHECK_OK(ValidateItemIdText("ep1/expand:3/judge:0"));
  LAKE_CHECK_OK(ValidateItemIdText("r/s:4294967295"));
}

TEST_CASE("events item id: the error quotes the offending text escaped") {
  absl::StatusOr<ItemId> id = ParseItemId("ep\x01");
  CHECK(absl::IsInvalidArgument(id.status()));
  CHECK(std::string(id.status().message()).find("\"ep\\x01\"") != std::string::npos);
}

TEST_CASE("events item id: depth and length bounds are enforced") {
  std::string deep = "r";
  for (size_t i = 0; i < kMaxItemDepth; ++i) deep += "/s:1";
  LAKE_CHECK_OK(ParseItemId(deep));
  LAKE_CHECK_OK(ValidateItemIdText(deep));
  CHECK(absl::IsInvalidArgument(ParseItemId(deep + "/s:1").status()));
  CHECK(absl::IsInvalidArgument(ValidateItemIdText(deep + "/s:1")));
  CHECK(absl::IsInvalidArgument(
      ParseItemId(std::string(kMaxRootItemBytes + 1, 'r')).status()));
  LAKE_CHECK_OK(ParseItemId(std::string(kMaxRootItemBytes, 'r')));
  CHECK(absl::IsInvalidArgument(
      ParseItemId("r/" + std::string(kMaxStepNameBytes + 1, 's') + ":0").status()));
}

TEST_CASE("events item id: ChildItemId appends a validated segment") {
  absl::StatusOr<ItemId> root = ParseItemId("r");
  LAKE_REQUIRE_OK(root);
  absl::StatusOr<ItemId> child = ChildItemId(*root, "map", 2);
  LAKE_REQUIRE_OK(child);
  CHECK(FormatItemId(*child) == "r/map:2");
  CHECK(absl::IsInvalidArgument(ChildItemId(*root, "a:b", 0).status()));
  CHECK(absl::IsInvalidArgument(ChildItemId(*root, "", 0).status()));
  CHECK(absl::IsInvalidArgument(ValidateItemId(ItemId{"a/b", {}})));
}

}  // namespace
}  // namespace lake::events
