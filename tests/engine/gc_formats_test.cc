// The collector's persisted formats: plan pages, plan manifests, apply
// progress records and root identity records. Golden bytes pin each
// encoding; every damaged or non-canonical input is refused as DataLoss.
#include <doctest/doctest.h>

#include <string>

#include "engine/gc/apply_progress_format.h"
#include "engine/gc/plan_manifest_format.h"
#include "engine/gc/plan_page_format.h"
#include "engine/gc/root_identity_record.h"
#include "absl/strings/str_cat.h"
#include "engine/sha256.h"
#include <nlohmann/json.hpp>
#include "tests/support/status_checks.h"

namespace lake::gc {
namespace {

constexpr char kPlanId[] = "01890a5d-ac96-774b-bcce-b302099a8057";
constexpr char kRootId[] = "01890a5d-ac96-774b-bcce-b302099a8058";
const std::string kHashA(64, 'a');
const std::string kHashB(64, 'b');

PlanPage SamplePage() {
  PlanPage page;
  page.page_index = 2;
  page.plan_id = kPlanId;
  page.next_page_sha256 = kHashA;
  page.entries = {
      {CandidateKind::kStageObject, "file:///r/stage/objects/01/a", 5, 1000},
      {CandidateKind::kTableFile, "file:///r/tables/ns/t/data/b.frag", 7, -3},
  };
  return page;
}

std::string Le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string Le64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string Le16(uint16_t v) { return std::string(reinterpret_cast<const char*>(&v), 2); }

TEST_CASE("gc plan page: golden bytes") {
  std::string expected = "LAKEGCPG" + Le32(1) + Le32(2) + Le64(2) + kPlanId +
                         std::string(32, '\xaa');
  expected += std::string(1, '\x01') + Le16(28) + "file:///r/stage/objects/01/a" + Le64(5) +
              Le64(1000);
  expected += std::string(1, '\x02') + Le16(33) + "file:///r/tables/ns/t/data/b.frag" + Le64(7) +
              Le64(static_cast<uint64_t>(int64_t{-3}));
  std::string digest = Sha256Hex(expected);
  absl::StatusOr<EncodedPlanPage> encoded = EncodePlanPage(SamplePage());
  LAKE_REQUIRE_OK(encoded);
  CHECK(encoded->sha256 == digest);
  CHECK(encoded->bytes.substr(0, expected.size()) == expected);
  CHECK(encoded->bytes.size() == expected.size() + 32);
  // The identity pins the whole encoding.
  CHECK(encoded->sha256 == "497a138d6a103ad10d2d6a35542572f29cfc4e8f8b7e19c5ea903fec09f6b4bc");
  std::string identity;
  absl::StatusOr<PlanPage> decoded = DecodePlanPage(encoded->bytes, &identity);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == SamplePage());
  CHECK(identity == digest);
}

TEST_CASE("gc plan page: the last page names no next page") {
  PlanPage page = SamplePage();
  page.next_page_sha256.clear();
  absl::StatusOr<EncodedPlanPage> encoded = EncodePlanPage(page);
  LAKE_REQUIRE_OK(encoded);
  absl::StatusOr<PlanPage> decoded = DecodePlanPage(encoded->bytes, nullptr);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->next_page_sha256.empty());
}

TEST_CASE("gc plan page: every flipped byte and every truncation is refused as DataLoss") {
  absl::StatusOr<EncodedPlanPage> encoded = EncodePlanPage(SamplePage());
  LAKE_REQUIRE_OK(encoded);
  for (size_t i = 0; i < encoded->bytes.size(); ++i) {
    std::string damaged = encoded->bytes;
    damaged[i] ^= 0x01;
    CAPTURE(i);
    CHECK(absl::IsDataLoss(DecodePlanPage(damaged, nullptr).status()));
  }
  for (size_t n = 0; n < encoded->bytes.size(); n += 7) {
    CHECK(absl::IsDataLoss(DecodePlanPage(encoded->bytes.substr(0, n), nullptr).status()));
  }
  CHECK(absl::IsDataLoss(DecodePlanPage(encoded->bytes + "x", nullptr).status()));
}

TEST_CASE("gc plan page: the encoder refuses unordered, empty, oversized and bad entries") {
  PlanPage page = SamplePage();
  std::swap(page.entries[0], page.entries[1]);
  CHECK(absl::IsInvalidArgument(EncodePlanPage(page).status()));
  page.entries.clear();
  CHECK(absl::IsInvalidArgument(EncodePlanPage(page).status()));
  page = SamplePage();
  page.entries.resize(kMaxPlanPageEntries + 1, page.entries[0]);
  CHECK(absl::IsInvalidArgument(EncodePlanPage(page).status()));
  page = SamplePage();
  page.entries[0].uri = "file:///with space";
  CHECK(absl::IsInvalidArgument(EncodePlanPage(page).status()));
  page = SamplePage();
  page.entries[1].uri = page.entries[0].uri;  // a duplicate is not ascending
  CHECK(absl::IsInvalidArgument(EncodePlanPage(page).status()));
  page = SamplePage();
  page.plan_id = "not-a-uuid";
  CHECK(absl::IsInvalidArgument(EncodePlanPage(page).status()));
}

PlanManifest SampleManifest() {
  PlanManifest m;
  m.plan_id = kPlanId;
  m.root_id = kRootId;
  m.stage_descriptor = R"({"kind":"local","version":1})";
  m.cutoff_seconds = 604800;
  m.created_unix_micros = 1700000000000000;
  m.listing_unix_micros = 1700000000000001;
  m.snapshot_unix_micros = 1700000000000002;
  m.fingerprint = kHashA;
  m.fingerprint_tables = kHashB;
  m.fingerprint_event_logs = kHashA;
  m.fingerprint_pending_appends = kHashB;
  m.fingerprint_pins = kHashA;
  m.objects = 1500;
  m.object_bytes = 123456;
  m.table_files = 1;
  m.table_file_bytes = 10;
  m.pages = 2;
  m.first_page_sha256 = kHashB;
  return m;
}

TEST_CASE("gc plan manifest: golden text, and it decodes back") {
  absl::StatusOr<std::string> text = EncodePlanManifest(SampleManifest());
  LAKE_REQUIRE_OK(text);
  CHECK(*text ==
        R"({"created_unix_micros":1700000000000000,"cutoff_seconds":604800,"fingerprint":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","fingerprint_event_logs":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","fingerprint_pending_appends":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","fingerprint_pins":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","fingerprint_tables":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","first_page_sha256":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","format":1,"listing_unix_micros":1700000000000001,"object_bytes":123456,"objects":1500,"pages":2,"plan_id":"01890a5d-ac96-774b-bcce-b302099a8057","root_id":"01890a5d-ac96-774b-bcce-b302099a8058","sha256":"3d5ff6da1264c4942d118b9b6c3af371c332517345ff9b1186373c5424671a41","snapshot_unix_micros":1700000000000002,"stage":"{\"kind\":\"local\",\"version\":1}","table_file_bytes":10,"table_files":1})" "\n");
  absl::StatusOr<PlanManifest> decoded = DecodePlanManifest(*text);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == SampleManifest());
}

TEST_CASE("gc plan manifest: a changed value, an extra or missing field is refused") {
  std::string text = *EncodePlanManifest(SampleManifest());
  std::string changed = text;
  changed.replace(changed.find("1500"), 4, "1501");
  CHECK(absl::IsDataLoss(DecodePlanManifest(changed).status()));
  nlohmann::json extra = nlohmann::json::parse(text);
  extra.erase("sha256");
  extra["extra"] = 1;
  nlohmann::json resealed_extra = extra;
  resealed_extra["sha256"] = Sha256Hex(extra.dump());
  CHECK(absl::IsDataLoss(DecodePlanManifest(resealed_extra.dump()).status()));
  nlohmann::json missing = nlohmann::json::parse(text);
  missing.erase("sha256");
  missing.erase("pages");
  nlohmann::json resealed = missing;
  resealed["sha256"] = Sha256Hex(missing.dump());
  CHECK(absl::IsDataLoss(DecodePlanManifest(resealed.dump()).status()));
  CHECK(absl::IsDataLoss(DecodePlanManifest("").status()));
  CHECK(absl::IsDataLoss(DecodePlanManifest(text.substr(0, text.size() / 2)).status()));
}

TEST_CASE("gc plan manifest: totals its pages cannot hold are refused") {
  PlanManifest m = SampleManifest();
  m.pages = 1;  // 1,501 candidates do not fit one page
  CHECK(absl::IsInvalidArgument(EncodePlanManifest(m).status()));
  m.pages = 0;
  m.first_page_sha256.clear();
  CHECK(absl::IsInvalidArgument(EncodePlanManifest(m).status()));
  m = SampleManifest();
  m.listing_unix_micros = m.snapshot_unix_micros + 1;
  CHECK(absl::IsInvalidArgument(EncodePlanManifest(m).status()));
}

ApplyProgress SampleProgress() {
  ApplyProgress p;
  p.plan_id = kPlanId;
  p.seq = 3;
  p.state = ApplyProgress::State::kApplying;
  p.pages_done = 2;
  p.next_page_sha256 = kHashA;
  p.objects_deleted = 2000;
  p.bytes_deleted = 99;
  p.table_files_deleted = 1;
  p.updated_unix_micros = 1700000000000000;
  return p;
}

TEST_CASE("gc apply progress: golden text, and it decodes back") {
  absl::StatusOr<std::string> text = EncodeApplyProgress(SampleProgress());
  LAKE_REQUIRE_OK(text);
  CHECK(*text ==
        R"({"bytes_deleted":99,"format":1,"next_page_sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","objects_deleted":2000,"pages_done":2,"plan_id":"01890a5d-ac96-774b-bcce-b302099a8057","reason":"","seq":3,"sha256":"fe739bb9145198e31cbc69d49a66823332568dfac5f609e9c0c6cf1d5130960f","state":"applying","table_files_deleted":1,"updated_unix_micros":1700000000000000})" "\n");
  absl::StatusOr<ApplyProgress> decoded = DecodeApplyProgress(*text);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == SampleProgress());
}

TEST_CASE("gc apply progress: a state that disagrees with its next page is refused") {
  ApplyProgress p = SampleProgress();
  p.state = ApplyProgress::State::kDone;
  CHECK(absl::IsInvalidArgument(EncodeApplyProgress(p).status()));
  p.next_page_sha256.clear();
  LAKE_CHECK_OK(EncodeApplyProgress(p));
  p.state = ApplyProgress::State::kApplying;
  CHECK(absl::IsInvalidArgument(EncodeApplyProgress(p).status()));
  std::string text = *EncodeApplyProgress(SampleProgress());
  text.replace(text.find("applying"), 8, "applyinG");
  CHECK(absl::IsDataLoss(DecodeApplyProgress(text).status()));
}

TEST_CASE("gc root identity record: golden text; damaged or foreign text is refused") {
  std::string text = EncodeRootIdentityRecord(kRootId);
  CHECK(text == absl::StrCat("{\"lake_root_id\":\"", kRootId, "\",\"sha256\":\"",
                             Sha256Hex(absl::StrCat("lake_root_id=", kRootId)), "\"}\n"));
  absl::StatusOr<std::string> id = DecodeRootIdentityRecord(text, "the marker");
  LAKE_REQUIRE_OK(id);
  CHECK(*id == kRootId);
  std::string damaged = text;
  damaged[20] = damaged[20] == '0' ? '1' : '0';
  CHECK(absl::IsDataLoss(DecodeRootIdentityRecord(damaged, "the marker").status()));
  CHECK(absl::IsDataLoss(DecodeRootIdentityRecord("{}", "the marker").status()));
  CHECK(absl::IsDataLoss(DecodeRootIdentityRecord("hello", "the marker").status()));
}

}  // namespace
}  // namespace lake::gc
