// The forwarded-write records (registry/writer_channel_format.h): golden
// bytes, round trips, typed errors that keep their payloads, and decoders
// that fail closed.
#include <doctest/doctest.h>

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/escaping.h"
#include "registry/commit_errors.h"
#include "registry/writer_channel_format.h"
#include "tests/support/status_checks.h"

namespace lake::registry {
namespace {

using table::ColumnType;

ForwardedWrite SampleCommit() {
  ForwardedWrite write;
  write.kind = ForwardedKind::kCommitVersion;
  write.table_id = 7;
  write.expected_current_version = 2;
  write.next = VersionRecord{3, 2, "_versions/00000000000000000003.manifest",
                             std::string(64, 'c'), "op-3", 1700000000000003};
  write.operation = AppendOperationRecord{"op-3", 7, 3, std::string(64, 'e'), 1700000000000003};
  return write;
}

TEST_CASE("writer channel: a create namespace request has its golden bytes") {
  ForwardedWrite write;
  write.kind = ForwardedKind::kCreateNamespace;
  write.text = "robots";
  CHECK(absl::BytesToHexString(EncodeForwardedWrite(write)) == "010206000000726f626f7473");
}

TEST_CASE("writer channel: every request kind round-trips") {
  ForwardedWrite stage;
  stage.kind = ForwardedKind::kPutStageDescriptor;
  stage.text = "{\"kind\":\"local\"}";
  ForwardedWrite table;
  table.kind = ForwardedKind::kCreateTable;
  table.name = {"media", "clips"};
  table.schema = table::Schema{{{"id", ColumnType::kInt64}, {"video", ColumnType::kFile}}};
  ForwardedWrite commit = SampleCommit();
  ForwardedWrite no_operation = SampleCommit();
  no_operation.operation.reset();
  ForwardedWrite deferred = SampleCommit();
  deferred.kind = ForwardedKind::kCommitVersionDeferred;
  ForwardedWrite drop;
  drop.kind = ForwardedKind::kDropTable;
  drop.name = {"media", "clips"};
  ForwardedWrite tag;
  tag.kind = ForwardedKind::kTagVersion;
  tag.table_id = 7;
  tag.tag = "gold";
  tag.version = 3;
  ForwardedWrite untag = tag;
  untag.kind = ForwardedKind::kUntagVersion;
  ForwardedWrite retire;
  retire.kind = ForwardedKind::kRetireVersions;
  retire.table_id = 7;
  retire.expected_current_version = 9;
  retire.versions = {1, 2, 4};
  retire.base = ReferenceBaseRecord{7, 5, std::string(64, 'a'), 0};
  ForwardedWrite retire_no_base = retire;
  retire_no_base.base.reset();
  ForwardedWrite clear;
  clear.kind = ForwardedKind::kClearDeferredMark;
  clear.mark = DeferredMarkRecord{7, "boot-a", 1700000000000012};
  for (const ForwardedWrite& write :
       {stage, table, commit, no_operation, deferred, drop, tag, untag, retire, retire_no_base,
        clear}) {
    std::string encoded = EncodeForwardedWrite(write);
    absl::StatusOr<ForwardedWrite> decoded = DecodeForwardedWrite(encoded);
    LAKE_REQUIRE_OK(decoded);
    CHECK(decoded->kind == write.kind);
    CHECK(EncodeForwardedWrite(*decoded) == encoded);
  }
  absl::StatusOr<ForwardedWrite> decoded = DecodeForwardedWrite(EncodeForwardedWrite(commit));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->next == commit.next);
  CHECK(decoded->operation == commit.operation);
  CHECK(decoded->table_id == 7);
  CHECK(decoded->expected_current_version == 2);
  decoded = DecodeForwardedWrite(EncodeForwardedWrite(retire));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->versions == retire.versions);
  CHECK(decoded->base == retire.base);
  decoded = DecodeForwardedWrite(EncodeForwardedWrite(clear));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->mark == clear.mark);
  decoded = DecodeForwardedWrite(EncodeForwardedWrite(tag));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->tag == "gold");
  CHECK(decoded->version == 3);
}

TEST_CASE("writer channel: a deferred commit is a commit's bytes under kind 10") {
  ForwardedWrite deferred = SampleCommit();
  deferred.kind = ForwardedKind::kCommitVersionDeferred;
  std::string commit_bytes = EncodeForwardedWrite(SampleCommit());
  std::string deferred_bytes = EncodeForwardedWrite(deferred);
  REQUIRE(deferred_bytes.size() == commit_bytes.size());
  CHECK(static_cast<uint8_t>(deferred_bytes[1]) == 10);
  deferred_bytes[1] = commit_bytes[1];
  CHECK(deferred_bytes == commit_bytes);
  absl::StatusOr<ForwardedWrite> decoded = DecodeForwardedWrite(EncodeForwardedWrite(deferred));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->kind == ForwardedKind::kCommitVersionDeferred);
  CHECK(decoded->next == deferred.next);
  CHECK(decoded->operation == deferred.operation);
}

TEST_CASE("writer channel: a reply keeps its status, payloads and table record") {
  ForwardedReply conflict;
  conflict.status = VersionConflictError({7, 2, 5});
  absl::StatusOr<ForwardedReply> decoded = DecodeForwardedReply(EncodeForwardedReply(conflict));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->status == conflict.status);
  std::optional<VersionConflict> payload = GetVersionConflict(decoded->status);
  REQUIRE(payload.has_value());
  CHECK(*payload == VersionConflict{7, 2, 5});
  ForwardedReply unknown;
  unknown.status = CommitOutcomeUnknownError(absl::UnavailableError("disk gone"));
  decoded = DecodeForwardedReply(EncodeForwardedReply(unknown));
  LAKE_REQUIRE_OK(decoded);
  CHECK(IsCommitOutcomeUnknown(decoded->status));
  ForwardedReply ok;
  ok.table = TableRecord{7, {"media", "clips"},
                         table::Schema{{{"id", ColumnType::kInt64}}}, 0, "", 1700000000000000};
  decoded = DecodeForwardedReply(EncodeForwardedReply(ok));
  LAKE_REQUIRE_OK(decoded);
  LAKE_CHECK_OK(decoded->status);
  CHECK(decoded->table == ok.table);
  CHECK_FALSE(decoded->dropped.has_value());
  ForwardedReply dropped;
  dropped.dropped = DroppedTableRecord{*ok.table, 1700000000000009};
  decoded = DecodeForwardedReply(EncodeForwardedReply(dropped));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->dropped == dropped.dropped);
  CHECK_FALSE(decoded->table.has_value());
  // A record kind other than none, a table or a dropped table is refused.
  std::string bad = EncodeForwardedReply(dropped);
  const size_t kind_at = bad.size() - EncodeDroppedTableRecord(*dropped.dropped).size() - 5;
  REQUIRE(static_cast<uint8_t>(bad[kind_at]) == 8);
  bad[kind_at] = 5;
  CHECK(absl::IsInvalidArgument(DecodeForwardedReply(bad).status()));
  ForwardedReply expired;
  expired.retired = {RetiredVersionRecord{7, 1, 5}, RetiredVersionRecord{7, 2, 5}};
  expired.tag = TagRecord{7, "gold", 3, 4};
  decoded = DecodeForwardedReply(EncodeForwardedReply(expired));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->retired == expired.retired);
  CHECK(decoded->tag == expired.tag);
  // Two records of the one-of-a-kind sort are refused.
  ForwardedReply two;
  two.table = ok.table;
  two.dropped = dropped.dropped;
  CHECK(absl::IsInvalidArgument(DecodeForwardedReply(EncodeForwardedReply(two)).status()));
}

TEST_CASE("writer channel: every strict prefix, trailing byte, unknown version or kind is refused") {
  std::string encoded = EncodeForwardedWrite(SampleCommit());
  for (size_t len = 0; len < encoded.size(); ++len) {
    CAPTURE(len);
    CHECK(absl::IsInvalidArgument(DecodeForwardedWrite(encoded.substr(0, len)).status()));
  }
  CHECK(absl::IsInvalidArgument(DecodeForwardedWrite(encoded + "x").status()));
  std::string other_version = encoded;
  other_version[0] = 2;
  absl::Status refused = DecodeForwardedWrite(other_version).status();
  CHECK(absl::IsInvalidArgument(refused));
  CHECK(refused.message() ==
        "a forwarded registry write is malformed: unknown format version 2 (this lake speaks 1)");
  std::string other_kind = encoded;
  other_kind[1] = 9;
  CHECK(absl::IsInvalidArgument(DecodeForwardedWrite(other_kind).status()));
  other_kind[1] = 11;
  refused = DecodeForwardedWrite(other_kind).status();
  CHECK(absl::IsInvalidArgument(refused));
  CHECK(refused.message() == "a forwarded registry write is malformed: unknown request kind 11");
  // A damaged embedded record is refused by its own decoder.
  std::string damaged = encoded;
  damaged[40] ^= 1;
  CHECK(absl::IsInvalidArgument(DecodeForwardedWrite(damaged).status()));
  // A request is no reply, and an OK reply carries no message.
  CHECK(absl::IsInvalidArgument(DecodeForwardedReply(encoded).status()));
  std::string ok_with_text = EncodeForwardedReply(ForwardedReply{});
  ok_with_text[6] = 1;  // message length 1, with no byte to hold it
  CHECK(absl::IsInvalidArgument(DecodeForwardedReply(ok_with_text).status()));
}

}  // namespace
}  // namespace lake::registry
