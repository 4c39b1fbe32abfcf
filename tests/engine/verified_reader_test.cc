// The verified full read (managed-objects.md, "Full opens are
// integrity-verified"): exactly size_bytes, the right SHA-256, checked at EOF.
#include <doctest/doctest.h>

#include "engine/integrity_error.h"
#include "engine/verified_reader.h"
#include "tests/support/memory_object_stream.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using testing::MemoryObjectStream;
using testing::StreamLog;

DataLocation LocationOf(const std::vector<uint8_t>& bytes, uint64_t size) {
  return *MakeDataLocation("file:///stage/objects/00/x", "application/octet-stream",
                           size, testing::Sha256Hex(bytes));
}

// Reads to the end with an odd buffer size; returns the final status and
// the bytes delivered.
absl::Status Drain(ObjectReader& reader, std::vector<uint8_t>* out) {
  uint8_t buf[1000];
  for (;;) {
    absl::StatusOr<size_t> n = reader.Read(buf, sizeof buf);
    if (!n.ok()) return n.status();
    if (*n == 0) return absl::OkStatus();
    out->insert(out->end(), buf, buf + *n);
  }
}

absl::Status ReadObject(const std::vector<uint8_t>& stored, const DataLocation& location,
                        StreamLog* log = nullptr, std::vector<uint8_t>* out = nullptr) {
  StreamLog local_log;
  std::vector<uint8_t> local_out;
  VerifiedReader reader(std::make_unique<MemoryObjectStream>(stored, log ? log : &local_log),
                        location);
  return Drain(reader, out ? out : &local_out);
}

void CheckIntegrity(const absl::Status& status, IntegrityKind kind, uint64_t expected,
                    uint64_t observed) {
  REQUIRE_FALSE(status.ok());
  CHECK(absl::IsDataLoss(status));
  std::optional<IntegrityDetail> detail = GetIntegrityDetail(status);
  REQUIRE(detail.has_value());
  CHECK(detail->kind == kind);
  CHECK(detail->expected == expected);
  CHECK(detail->observed == observed);
}

TEST_CASE("an intact object reads back whole and verified") {
  std::vector<uint8_t> bytes = testing::RandomBytes(100000, 1);
  StreamLog log;
  std::vector<uint8_t> out;
  VerifiedReader reader(std::make_unique<MemoryObjectStream>(bytes, &log),
                        LocationOf(bytes, bytes.size()));
  CHECK_FALSE(reader.verified());
  LAKE_CHECK_OK(Drain(reader, &out));
  CHECK(out == bytes);
  CHECK(reader.verified());
  // Asked for at most size_bytes plus the one-byte probe.
  CHECK(log.bytes_requested <= bytes.size() + 1);
}

TEST_CASE("an empty object verifies") {
  std::vector<uint8_t> empty;
  LAKE_CHECK_OK(ReadObject(empty, LocationOf(empty, 0)));
}

TEST_CASE("one flipped byte is a digest mismatch at EOF") {
  std::vector<uint8_t> bytes = testing::RandomBytes(5000, 2);
  DataLocation location = LocationOf(bytes, bytes.size());
  std::vector<uint8_t> tampered = bytes;
  tampered[2500] ^= 0x01;
  CheckIntegrity(ReadObject(tampered, location), IntegrityKind::kDigestMismatch, 5000, 5000);
}

TEST_CASE("a truncated object is SizeShort") {
  std::vector<uint8_t> bytes = testing::RandomBytes(5000, 3);
  DataLocation location = LocationOf(bytes, bytes.size());
  std::vector<uint8_t> truncated(bytes.begin(), bytes.end() - 1);
  CheckIntegrity(ReadObject(truncated, location), IntegrityKind::kSizeShort, 5000, 4999);
}

TEST_CASE("one appended byte is SizeLong, found by the private probe") {
  std::vector<uint8_t> bytes = testing::RandomBytes(5000, 4);
  DataLocation location = LocationOf(bytes, bytes.size());
  std::vector<uint8_t> longer = bytes;
  longer.push_back(7);
  std::vector<uint8_t> out;
  CheckIntegrity(ReadObject(longer, location, nullptr, &out), IntegrityKind::kSizeLong,
                 5000, 5001);
  CHECK(out.size() == 5000);  // the probed byte is never delivered
}

TEST_CASE("a declared size too small is SizeLong, too large SizeShort") {
  std::vector<uint8_t> bytes = testing::RandomBytes(5000, 5);
  std::string sha = testing::Sha256Hex(bytes);
  DataLocation small = *MakeDataLocation("file:///s/objects/0/x", "a/b", 4999, sha);
  DataLocation large = *MakeDataLocation("file:///s/objects/0/x", "a/b", 5001, sha);
  CheckIntegrity(ReadObject(bytes, small), IntegrityKind::kSizeLong, 4999, 5000);
  CheckIntegrity(ReadObject(bytes, large), IntegrityKind::kSizeShort, 5001, 5000);
}

TEST_CASE("only delivered bytes are hashed: the digest of the declared prefix fails") {
  std::vector<uint8_t> bytes = testing::RandomBytes(5000, 6);
  std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + 4000);
  // Size and digest of the first 4000 bytes, but storage holds more.
  DataLocation location = LocationOf(prefix, prefix.size());
  CheckIntegrity(ReadObject(bytes, location), IntegrityKind::kSizeLong, 4000, 4001);
}

TEST_CASE("a failure is sticky") {
  std::vector<uint8_t> bytes = testing::RandomBytes(10, 7);
  DataLocation location = LocationOf(bytes, 11);
  StreamLog log;
  VerifiedReader reader(std::make_unique<MemoryObjectStream>(bytes, &log), location);
  std::vector<uint8_t> out;
  absl::Status first = Drain(reader, &out);
  uint8_t buf[4];
  absl::StatusOr<size_t> again = reader.Read(buf, sizeof buf);
  CHECK_FALSE(again.ok());
  CHECK(again.status() == first);
  CHECK_FALSE(reader.verified());
}

TEST_CASE("stopping early claims nothing") {
  std::vector<uint8_t> bytes = testing::RandomBytes(10000, 8);
  StreamLog log;
  VerifiedReader reader(std::make_unique<MemoryObjectStream>(bytes, &log),
                        LocationOf(bytes, bytes.size()));
  uint8_t buf[100];
  LAKE_CHECK_OK(reader.Read(buf, sizeof buf));
  LAKE_CHECK_OK(reader.Close());
  CHECK(log.closed);
  CHECK_FALSE(reader.verified());
}

TEST_CASE("a zero-capacity read is refused rather than mistaken for EOF") {
  std::vector<uint8_t> bytes = testing::RandomBytes(10, 9);
  StreamLog log;
  VerifiedReader reader(std::make_unique<MemoryObjectStream>(bytes, &log),
                        LocationOf(bytes, bytes.size()));
  uint8_t buf[1];
  CHECK(absl::IsInvalidArgument(reader.Read(buf, 0).status()));
}

}  // namespace
}  // namespace lake

namespace lake {
namespace {

TEST_CASE("views verify exactly like copies: the bytes, the end, the failures") {
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 10);
  for (bool tamper : {false, true}) {
    CAPTURE(tamper);
    std::vector<uint8_t> stored = bytes;
    if (tamper) stored[123456] ^= 1;
    StreamLog log;
    VerifiedReader reader(std::make_unique<MemoryObjectStream>(stored, &log),
                          LocationOf(bytes, bytes.size()));
    std::vector<uint8_t> out;
    absl::Status end;
    for (;;) {
      absl::StatusOr<absl::Span<const uint8_t>> view = reader.ReadView(10007);
      if (!view.ok()) {
        end = view.status();
        break;
      }
      CHECK(view->size() <= 10007);
      if (view->empty()) break;
      out.insert(out.end(), view->begin(), view->end());
    }
    CHECK(out == stored);
    if (tamper) {
      CHECK(testing::KindOf(end) == IntegrityKind::kDigestMismatch);
      CHECK_FALSE(reader.verified());
    } else {
      LAKE_CHECK_OK(end);
      CHECK(reader.verified());
    }
  }
}

}  // namespace
}  // namespace lake
