// Scope and ownership of garbage collection (engine/gc/root_identity.h):
// a root's id, the owner marker it writes into its stage, and the refusal
// of a stage whose marker is missing or names another root.
#include <doctest/doctest.h>

#include "engine/gc/root_identity.h"
#include "engine/gc/root_identity_record.h"
#include "io/whole_file.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::gc {
namespace {

io::FileSystem& Fs() { return **io::DefaultFileSystem(); }

std::string ReadText(const std::string& path) {
  std::vector<uint8_t> bytes = testing::ReadFile(path);
  return std::string(bytes.begin(), bytes.end());
}

TEST_CASE("gc ownership: a writer's first open gives the root an id and marks its stage") {
  testing::StageFixture fixture;
  const std::string root = fixture.dir.path();
  CHECK(!ReadRootId(Fs(), root)->has_value());
  absl::StatusOr<std::string> id = EnsureRootIdentity(Fs(), root, fixture.stage->store());
  LAKE_REQUIRE_OK(id);
  absl::StatusOr<std::optional<std::string>> recorded = ReadRootId(Fs(), root);
  LAKE_REQUIRE_OK(recorded);
  REQUIRE(recorded->has_value());
  CHECK(**recorded == *id);
  // The marker lies in the stage, outside objects/, and names the same id.
  std::string marker = ReadText(fixture.stage_root() + "/_lake/owner");
  CHECK(*DecodeRootIdentityRecord(marker, "marker") == *id);
  LAKE_CHECK_OK(CheckStageOwnership(fixture.stage->store(), *id));
  // A later open keeps the id and touches nothing.
  absl::StatusOr<std::string> again = EnsureRootIdentity(Fs(), root, fixture.stage->store());
  LAKE_REQUIRE_OK(again);
  CHECK(*again == *id);
  // The marker is not an object of the stage.
  bool listed_marker = false;
  LAKE_CHECK_OK(fixture.stage->List([&](const ListedObject& o) {
    listed_marker = listed_marker || o.uri.find("_lake") != std::string::npos;
    return true;
  }));
  CHECK(!listed_marker);
}

TEST_CASE("gc ownership: a stage without an owner marker is refused, saying to open as writer") {
  testing::StageFixture fixture;
  absl::Status s = CheckStageOwnership(fixture.stage->store(),
                                       "01890a5d-ac96-774b-bcce-b302099a8058");
  CHECK(absl::IsFailedPrecondition(s));
  CHECK(std::string(s.message()).find("open the root once as a writer") != std::string::npos);
}

TEST_CASE("gc ownership: a stage whose marker names another root is refused for both roots") {
  testing::StageFixture fixture;
  testing::TempDir other_root;
  absl::StatusOr<std::string> owner =
      EnsureRootIdentity(Fs(), fixture.dir.path(), fixture.stage->store());
  LAKE_REQUIRE_OK(owner);
  LAKE_REQUIRE_OK(CheckStageOwnership(fixture.stage->store(), *owner));
  // A second root opened on the same stage keeps the marker and claims it.
  std::unique_ptr<ManagedStage> shared = fixture.OpenAnother("");
  absl::StatusOr<std::string> second = EnsureRootIdentity(Fs(), other_root.path(), shared->store());
  LAKE_REQUIRE_OK(second);
  CHECK(*second != *owner);
  CHECK(*DecodeRootIdentityRecord(ReadText(fixture.stage_root() + "/_lake/owner"), "m") == *owner);
  absl::Status refused_second = CheckStageOwnership(shared->store(), *second);
  CHECK(absl::IsFailedPrecondition(refused_second));
  CHECK(std::string(refused_second.message()).find("names another root") != std::string::npos);
  absl::Status refused_owner = CheckStageOwnership(fixture.stage->store(), *owner);
  CHECK(absl::IsFailedPrecondition(refused_owner));
  CHECK(std::string(refused_owner.message()).find("claimed") != std::string::npos);
}

TEST_CASE("gc ownership: a damaged owner marker fails closed as DataLoss") {
  testing::StageFixture fixture;
  absl::StatusOr<std::string> id = EnsureRootIdentity(Fs(), fixture.dir.path(),
                                                      fixture.stage->store());
  LAKE_REQUIRE_OK(id);
  std::string path = fixture.stage_root() + "/_lake/owner";
  std::string text = ReadText(path);
  text[20] = text[20] == '0' ? '1' : '0';
  testing::WriteFile(path, std::vector<uint8_t>(text.begin(), text.end()));
  CHECK(absl::IsDataLoss(CheckStageOwnership(fixture.stage->store(), *id)));
}

}  // namespace
}  // namespace lake::gc
