// The small records of orphan-upload collection and of checkpoint
// directories: the plan's uploads record (engine/gc/planned_uploads_format.h)
// and a root's record of a checkpoint directory outside it
// (engine/s3/checkpoint_dir_record_format.h). Golden bytes, round trips and
// fail-closed decoding.
#include <doctest/doctest.h>

#include <string>

#include "absl/strings/str_replace.h"
#include "engine/gc/planned_uploads_format.h"
#include "engine/s3/checkpoint_dir_record_format.h"
#include "tests/support/status_checks.h"

namespace lake {
namespace {

constexpr char kPlanId[] = "01890a5d-ac96-774b-bcce-b302099a8057";

gc::PlannedUploads OneUpload() {
  gc::PlannedUploads planned;
  planned.plan_id = kPlanId;
  planned.uploads.push_back(
      gc::PlannedUpload{"s3://bucket/lake-data/aa/bb", "2~abc", 1700000000000000, 1234});
  return planned;
}

constexpr char kGoldenUploads[] =
    R"({"format":1,"plan_id":"01890a5d-ac96-774b-bcce-b302099a8057","sha256":"eddc4bcf360accabf4cc9c3ce92e6b9868a9e43a89111b0671b4bee71f5cb6f5","uploads":[{"bytes":1234,"initiated_unix_micros":1700000000000000,"upload_id":"2~abc","uri":"s3://bucket/lake-data/aa/bb"}]})"
    "\n";

TEST_CASE("a plan's uploads record is fixed (golden) and decodes back") {
  absl::StatusOr<std::string> encoded = gc::EncodePlannedUploads(OneUpload());
  LAKE_REQUIRE_OK(encoded);
  CHECK(*encoded == kGoldenUploads);
  absl::StatusOr<gc::PlannedUploads> decoded = gc::DecodePlannedUploads(kGoldenUploads);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == OneUpload());
}

TEST_CASE("a plan's uploads record that was changed, or is of another format, is refused") {
  CHECK(absl::IsDataLoss(gc::DecodePlannedUploads(
                             absl::StrReplaceAll(kGoldenUploads, {{"1234", "1235"}}))
                             .status()));
  CHECK(absl::IsDataLoss(gc::DecodePlannedUploads("").status()));
  CHECK(absl::IsDataLoss(gc::DecodePlannedUploads("[]").status()));
  gc::PlannedUploads planned = OneUpload();
  absl::StatusOr<std::string> encoded = gc::EncodePlannedUploads(planned);
  LAKE_REQUIRE_OK(encoded);
  // Re-sealed with another format, an extra field, or a missing one.
  CHECK(absl::IsDataLoss(gc::DecodePlannedUploads(absl::StrReplaceAll(
                             *encoded, {{"\"format\":1", "\"format\":2"}}))
                             .status()));
}

TEST_CASE("a plan's uploads record refuses bad uris, ids, sizes and order") {
  auto refused = [](gc::PlannedUploads p) {
    return absl::IsInvalidArgument(gc::EncodePlannedUploads(p).status());
  };
  gc::PlannedUploads p = OneUpload();
  p.plan_id = "not-a-uuid";
  CHECK(refused(p));
  p = OneUpload();
  p.uploads[0].uri = "s3://bucket/a key";
  CHECK(refused(p));
  p = OneUpload();
  p.uploads[0].upload_id = "";
  CHECK(refused(p));
  p = OneUpload();
  p.uploads[0].upload_id = std::string(1025, 'u');
  CHECK(refused(p));
  p = OneUpload();
  p.uploads[0].bytes = uint64_t{1} << 63;
  CHECK(refused(p));
  p = OneUpload();
  p.uploads.push_back(p.uploads[0]);  // a duplicate
  CHECK(refused(p));
  p = OneUpload();
  p.uploads.push_back(p.uploads[0]);
  p.uploads[1].upload_id = "2~abb";  // same uri, lower id
  CHECK(refused(p));
  p.uploads[1].upload_id = "2~abd";
  LAKE_CHECK_OK(gc::EncodePlannedUploads(p));
  p = OneUpload();
  p.uploads.assign(gc::kMaxPlannedUploads + 1, p.uploads[0]);
  CHECK(refused(p));
}

TEST_CASE("a checkpoint directory record is named by its digest (golden) and decodes back") {
  absl::StatusOr<EncodedCheckpointDirRecord> record = EncodeCheckpointDirRecord("/srv/ckpt");
  LAKE_REQUIRE_OK(record);
  CHECK(record->bytes == "lake upload checkpoint directory 1\n/srv/ckpt\n");
  CHECK(record->name == "2524e52449296e680d875c8fcf87bbbb339f95584af1f0a55fece5abbe50d60c.dir");
  absl::StatusOr<std::string> dir = DecodeCheckpointDirRecord(record->name, record->bytes);
  LAKE_REQUIRE_OK(dir);
  CHECK(*dir == "/srv/ckpt");
}

TEST_CASE("a checkpoint directory record fails closed") {
  absl::StatusOr<EncodedCheckpointDirRecord> record = EncodeCheckpointDirRecord("/srv/ckpt");
  LAKE_REQUIRE_OK(record);
  auto refused = [](std::string_view name, std::string_view bytes) {
    return absl::IsDataLoss(DecodeCheckpointDirRecord(name, bytes).status());
  };
  CHECK(refused(std::string(64, '0') + ".dir", record->bytes));  // another digest
  CHECK(refused(record->name, "lake upload checkpoint directory 2\n/srv/ckpt\n"));
  CHECK(refused(record->name, "lake upload checkpoint directory 1\n/srv/ckpt"));
  CHECK(refused(record->name, "lake upload checkpoint directory 1\nsrv/ckpt\n"));
  CHECK(refused(record->name, "lake upload checkpoint directory 1\n/a\n/b\n"));
  CHECK(refused(record->name, "lake upload checkpoint directory 1\n\n"));
  CHECK(absl::IsInvalidArgument(EncodeCheckpointDirRecord("relative/dir").status()));
  CHECK(absl::IsInvalidArgument(EncodeCheckpointDirRecord("/a\nb").status()));
  CHECK(absl::IsInvalidArgument(EncodeCheckpointDirRecord("").status()));
}

}  // namespace
}  // namespace lake
