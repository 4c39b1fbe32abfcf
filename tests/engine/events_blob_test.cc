// Blob offload in the event log: large blobs go to the managed stage, the
// shard's blob journal records them, and load_blob verifies inline and
// offloaded values alike.
#include <doctest/doctest.h>

#include <filesystem>

#include "engine/events/blob_field.h"
#include "engine/events/blob_references.h"
#include "engine/events/event_json.h"
#include "engine/data_location_json.h"
#include "base/failpoint.h"
#include "engine/events/event_log.h"
#include "engine/events/stream_writer.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::events {
namespace {

struct BlobFixture {
  testing::StageFixture stage;
  io::PosixFileSystem fs;
  std::string shards = stage.dir.Join("shards");
  std::unique_ptr<EventLog> log;

  BlobFixture() {
    absl::StatusOr<std::unique_ptr<EventLog>> opened = EventLog::Open(fs, shards, true);
    REQUIRE(opened.ok());
    log = std::move(*opened);
  }

  StreamWriterOptions Options(size_t threshold = kDefaultBlobInlineThreshold) {
    StreamWriterOptions options;
    options.sink = [this](std::vector<Event> batch) { return log->Append(std::move(batch)).status(); };
    options.blob_offloader = [this](std::string_view bytes) {
      return stage.UploadBytes(std::vector<uint8_t>(bytes.begin(), bytes.end()));
    };
    options.blob_inline_threshold = threshold;
    return options;
  }

  FoldedItem Folded(const std::string& item) {
    absl::StatusOr<std::optional<FoldedItem>> folded = log->Fold(item);
    REQUIRE_MESSAGE(folded.ok(), folded.status().ToString());
    REQUIRE(folded->has_value());
    return **folded;
  }
};

// The whole blob as text; *end is the status of the last read.
std::string ReadAll(ObjectReader& reader, absl::Status* end) {
  std::vector<uint8_t> bytes;
  *end = testing::ReadAll(reader, &bytes);
  return std::string(bytes.begin(), bytes.end());
}

std::string RandomText(size_t n, uint64_t seed) {
  std::vector<uint8_t> bytes = testing::RandomBytes(n, seed);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<DataLocation> Recorded(io::FileSystem& fs, const std::string& shards) {
  std::vector<DataLocation> all;
  absl::Status s = EnumerateEventLogReferences(
      fs, shards, [&](uint64_t, const std::vector<DataLocation>& chunk) {
        all.insert(all.end(), chunk.begin(), chunk.end());
        return absl::OkStatus();
      });
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  return all;
}

TEST_CASE("blobs: a small blob stays inline, a large one is offloaded and journaled") {
  BlobFixture f;
  absl::StatusOr<StreamWriter> w = OpenStream("ep-1", "writer-a", f.Options(1024));
  LAKE_REQUIRE_OK(w);
  std::string small(100, 's');
  std::string large = RandomText(300000, 7);
  LAKE_REQUIRE_OK(w->FieldSet("thumb", FieldValue::Blob(small)));
  LAKE_REQUIRE_OK(w->FieldSet("video", FieldValue::Blob(large)));
  LAKE_REQUIRE_OK(w->Commit());
  FoldedItem item = f.Folded("ep-1");
  const Event& video = item.fields.at("video").values.back();
  REQUIRE(video.blob_location.has_value());
  CHECK(video.blob_inline.empty());
  CHECK(item.fields.at("thumb").values.back().blob_inline == small);
  CHECK(Recorded(f.fs, f.shards) == std::vector<DataLocation>{*video.blob_location});
  for (auto [field, want] : {std::pair<std::string, std::string>{"thumb", small}, {"video", large}}) {
    absl::StatusOr<std::unique_ptr<ObjectReader>> reader = LoadBlob(*f.stage.stage, item, field);
    LAKE_REQUIRE_OK(reader);
    absl::Status end;
    CHECK(ReadAll(**reader, &end) == want);
    LAKE_CHECK_OK(end);
    CHECK((*reader)->verified());
  }
}

TEST_CASE("blobs: load_blob verifies: damaged inline bytes or a damaged object fail the read") {
  BlobFixture f;
  absl::StatusOr<StreamWriter> w = OpenStream("ep-2", "writer-a", f.Options(1024));
  LAKE_REQUIRE_OK(w);
  LAKE_REQUIRE_OK(w->FieldSet("thumb", FieldValue::Blob("tiny bytes")));
  LAKE_REQUIRE_OK(w->FieldSet("video", FieldValue::Blob(RandomText(5000, 8))));
  LAKE_REQUIRE_OK(w->Commit());
  FoldedItem item = f.Folded("ep-2");
  item.fields.at("thumb").values.back().blob_inline[0] ^= 1;
  absl::StatusOr<std::unique_ptr<ObjectReader>> inline_reader =
      LoadBlob(*f.stage.stage, item, "thumb");
  LAKE_REQUIRE_OK(inline_reader);
  absl::Status end;
  ReadAll(**inline_reader, &end);
  CHECK(testing::KindOf(end) == IntegrityKind::kDigestMismatch);
  std::filesystem::resize_file(f.stage.PathOf(*item.fields.at("video").values.back().blob_location),
                               10);
  absl::StatusOr<std::unique_ptr<ObjectReader>> object_reader =
      LoadBlob(*f.stage.stage, item, "video");
  if (object_reader.ok()) {
    ReadAll(**object_reader, &end);
    CHECK(testing::KindOf(end) == IntegrityKind::kSizeShort);
  } else {
    CHECK(testing::KindOf(object_reader.status()) == IntegrityKind::kSizeShort);
  }
}

TEST_CASE("blobs: load_blob names a missing field, a non-blob field and a missing index") {
  BlobFixture f;
  absl::StatusOr<StreamWriter> w = OpenStream("ep-3", "writer-a", f.Options());
  LAKE_REQUIRE_OK(w);
  LAKE_REQUIRE_OK(w->FieldSet("n", FieldValue::Int(3)));
  LAKE_REQUIRE_OK(w->FieldAppend("frames", FieldValue::Blob("one")));
  LAKE_REQUIRE_OK(w->FieldAppend("frames", FieldValue::Blob("two")));
  LAKE_REQUIRE_OK(w->Commit());
  FoldedItem item = f.Folded("ep-3");
  CHECK(absl::IsNotFound(LoadBlob(*f.stage.stage, item, "nope").status()));
  CHECK(absl::IsInvalidArgument(LoadBlob(*f.stage.stage, item, "n").status()));
  CHECK(absl::IsNotFound(LoadBlob(*f.stage.stage, item, "frames", 2).status()));
  absl::StatusOr<std::unique_ptr<ObjectReader>> first = LoadBlob(*f.stage.stage, item, "frames", 0);
  LAKE_REQUIRE_OK(first);
  absl::Status end;
  CHECK(ReadAll(**first, &end) == "one");
  LAKE_CHECK_OK(end);
}

TEST_CASE("blobs: a resumed attempt continues the item through the real log") {
  BlobFixture f;
  {
    absl::StatusOr<StreamWriter> w = OpenStream("ep-4", "writer-a", f.Options());
    LAKE_REQUIRE_OK(w);
    LAKE_REQUIRE_OK(w->FieldSet("stage", FieldValue::Str("first")));
    LAKE_REQUIRE_OK(w->ItemFailed("Timeout", "took too long", ""));
    LAKE_REQUIRE_OK(w->Commit());
  }
  FoldedItem failed = f.Folded("ep-4");
  CHECK(failed.status == ItemStatus::kFailed);
  absl::StatusOr<StreamWriter> resumed = ResumeStream(failed, "writer-b", f.Options());
  LAKE_REQUIRE_OK(resumed);
  CHECK(resumed->attempt() == 1);
  LAKE_REQUIRE_OK(resumed->FieldSet("stage", FieldValue::Str("second")));
  LAKE_REQUIRE_OK(resumed->ItemTerminal(ItemStatus::kCompleted));
  LAKE_REQUIRE_OK(resumed->Commit());
  // The stale writer of attempt 0 is fenced off by the log.
  Event stale = failed.fields.at("stage").values.back();
  stale.item_seq = resumed->next_item_seq();
  REQUIRE(FillDerivedIds(stale).ok());
  CHECK(absl::IsAborted(f.log->Append({stale}).status()));
  FoldedItem done = f.Folded("ep-4");
  CHECK(done.status == ItemStatus::kCompleted);
  CHECK(done.last_attempt == 1);
  CHECK(done.fields.at("stage").values.back().value_str == "second");
}

TEST_CASE("blobs: a damaged blob journal is data loss") {
  BlobFixture f;
  absl::StatusOr<StreamWriter> w = OpenStream("ep-5", "writer-a", f.Options(16));
  LAKE_REQUIRE_OK(w);
  LAKE_REQUIRE_OK(w->FieldSet("a", FieldValue::Blob(std::string(100, 'a'))));
  LAKE_REQUIRE_OK(w->Commit());
  LAKE_REQUIRE_OK(w->FieldSet("b", FieldValue::Blob(std::string(100, 'b'))));
  LAKE_REQUIRE_OK(w->Commit());
  CHECK(Recorded(f.fs, f.shards).size() == 2);
  std::string refs = f.shards + "/" + f.log->shard_id() + "/_lake/object_refs";
  std::filesystem::remove(refs + "/00000000000000000001.refs");
  absl::Status walked = EnumerateEventLogReferences(
      f.fs, f.shards, [](uint64_t, const std::vector<DataLocation>&) { return absl::OkStatus(); });
  CHECK(absl::IsDataLoss(walked));
}

TEST_CASE("blobs: a batch from JSONL records its blob_locations in the journal before it is written") {
  REQUIRE(failpoint::Enabled());
  BlobFixture f;
  // An existing object, named by an event from outside (as `lake events
  // append` and lake_event_log_append_jsonl take them), not by a writer.
  absl::StatusOr<DataLocation> object = f.stage.UploadBytes(testing::RandomBytes(5000, 9));
  LAKE_REQUIRE_OK(object);
  std::string jsonl =
      std::string(R"({"item_id":"r","item_seq":1,"checkpoint_id":"c1",)"
                  R"("event_type":"ITEM_CREATED","writer_epoch":"w"})") +
      "\n" + R"({"item_id":"r","item_seq":2,"checkpoint_id":"c2","event_type":"FIELD_SET",)" +
      R"("field_name":"img","value_kind":"blob","blob_location":)" +
      DataLocationToJson(*object) + R"(,"payload_size":5000,"payload_checksum":")" +
      object->sha256 + R"(","writer_epoch":"w"})" + "\n";
  absl::StatusOr<std::vector<Event>> events = ParseEventJsonLines(jsonl);
  LAKE_REQUIRE_OK(events);
  REQUIRE(events->size() == 2);
  std::vector<std::vector<DataLocation>> recorded_when_written;
  failpoint::ClearAll();
  failpoint::Set(kShardAppendWritten, failpoint::Action::kCallback, [&] {
    recorded_when_written.push_back(Recorded(f.fs, f.shards));
    return absl::OkStatus();
  });
  for (Event& e : *events) {
    LAKE_REQUIRE_OK(f.log->Append({std::move(e)}, Durability::kRelaxed));
  }
  failpoint::ClearAll();
  LAKE_REQUIRE_OK(f.log->Sync());
  REQUIRE(recorded_when_written.size() == 2);
  CHECK(recorded_when_written[0].empty());
  CHECK(recorded_when_written[1] == std::vector<DataLocation>{*object});
}

}  // namespace
}  // namespace lake::events
