// The persisted formats of leases and pins (engine/gc/lease_file_format.h,
// pin_record_format.h): golden bytes, and decoders that fail closed —
// except on the torn tail a crash or a racing append leaves.
#include <doctest/doctest.h>

#include <string>

#include "absl/strings/escaping.h"
#include "engine/gc/lease_file_format.h"
#include "engine/gc/pin_record_format.h"
#include "tests/support/status_checks.h"

namespace lake::gc {
namespace {

constexpr std::string_view kUri = "file:///srv/lake/stage/objects/4d/0190a0b0-0000-7000-8000-00000000004d";

std::string Hex(std::string_view bytes) {
  return absl::BytesToHexString(absl::string_view(bytes.data(), bytes.size()));
}

TEST_CASE("a lease file's header and record have these exact bytes") {
  // magic, version 1, pid 4242, XXH3-64 of those 16 bytes.
  CHECK(Hex(EncodeLeaseFileHeader(4242)) ==
        "4c414b454c454153" "01000000" "92100000" "75245efc0f8c1dcc");
  std::string record = EncodeLeaseRecord("file:///a/b", 1700000000123456);
  // uri length 11, leased at (µs), the URI, XXH3-64 of the three, state 'L'.
  CHECK(Hex(record) ==
        "0b000000" "40222018240a0600"
        "66696c653a2f2f2f612f62"
        "23ec615e6e313300"
        "4c");
}

std::string FileWith(const std::vector<std::string>& uris) {
  std::string bytes = EncodeLeaseFileHeader(7);
  int64_t at = 1000;
  for (const std::string& uri : uris) bytes += EncodeLeaseRecord(uri, at++);
  return bytes;
}

TEST_CASE("a lease file decodes to its records, held or released in place") {
  std::string bytes = FileWith({std::string(kUri), "s3://bucket/lake/objects/aa/x"});
  absl::StatusOr<DecodedLeaseFile> decoded = DecodeLeaseFile(bytes);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->pid == 7);
  REQUIRE(decoded->records.size() == 2);
  CHECK(decoded->records[0].uri == kUri);
  CHECK(decoded->records[0].leased_unix_micros == 1000);
  CHECK_FALSE(decoded->records[0].released);
  CHECK(decoded->records[1].uri == "s3://bucket/lake/objects/aa/x");
  CHECK(decoded->records_end == bytes.size());
  CHECK_FALSE(decoded->torn_tail);
  // Releasing overwrites the state byte and nothing else.
  bytes[decoded->records[0].state_offset] = kLeaseReleased;
  decoded = DecodeLeaseFile(bytes);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->records[0].released);
  CHECK_FALSE(decoded->records[1].released);
}

TEST_CASE("a lease file cut anywhere in its last record keeps the records before it") {
  std::string whole = FileWith({"file:///a/1", "file:///a/2", "file:///a/3"});
  size_t last = whole.size() - EncodeLeaseRecord("file:///a/3", 0).size();
  for (size_t cut = last; cut < whole.size(); ++cut) {
    CAPTURE(cut);
    absl::StatusOr<DecodedLeaseFile> decoded = DecodeLeaseFile(whole.substr(0, cut));
    LAKE_REQUIRE_OK(decoded);
    CHECK(decoded->records.size() == 2);
    CHECK(decoded->records_end == last);
    CHECK(decoded->torn_tail == (cut > last));
  }
  // A file whose creation never finished holds nothing.
  for (size_t cut : {size_t{0}, size_t{5}, kLeaseHeaderBytes - 1}) {
    absl::StatusOr<DecodedLeaseFile> decoded = DecodeLeaseFile(whole.substr(0, cut));
    LAKE_REQUIRE_OK(decoded);
    CHECK(decoded->records.empty());
  }
}

TEST_CASE("a torn last record, zero pages included, is a tail; damage before it is DataLoss") {
  std::vector<std::string> uris;
  for (int i = 0; i < 1000; ++i) uris.push_back("file:///a/" + std::to_string(i));
  std::string whole = FileWith(uris);
  // The last append lost its first page: zeros, then the rest of it.
  std::string torn = whole + std::string(300, '\0') + "tail";
  absl::StatusOr<DecodedLeaseFile> decoded = DecodeLeaseFile(torn);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->records.size() == 1000);
  // The same damage far from the end: not a torn append.
  std::string damaged = whole;
  damaged[kLeaseHeaderBytes + 20] ^= 0x40;
  CHECK(absl::IsDataLoss(DecodeLeaseFile(damaged).status()));
  std::string bad_state = whole;
  absl::StatusOr<DecodedLeaseFile> good = DecodeLeaseFile(whole);
  LAKE_REQUIRE_OK(good);
  bad_state[good->records[3].state_offset] = 'X';
  CHECK(absl::IsDataLoss(DecodeLeaseFile(bad_state).status()));
  std::string bad_header = whole;
  bad_header[9] = 2;  // version 2
  CHECK(absl::IsDataLoss(DecodeLeaseFile(bad_header).status()));
  bad_header = whole;
  bad_header[0] = 'X';
  CHECK(absl::IsDataLoss(DecodeLeaseFile(bad_header).status()));
}

TEST_CASE("zeros after the records end them, however many; a stray byte far past them is DataLoss") {
  std::string records = FileWith({"file:///a/1", "file:///a/2"});
  std::string padded = records + std::string(200000, '\0');
  absl::StatusOr<DecodedLeaseFile> decoded = DecodeLeaseFile(padded);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->records.size() == 2);
  CHECK(decoded->records_end == records.size());
  CHECK_FALSE(decoded->torn_tail);
  // A torn append in the zeros: its remains close to the records' end.
  std::string torn = padded;
  torn.replace(records.size() + 4100, 5, "stray");
  decoded = DecodeLeaseFile(torn);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->records.size() == 2);
  CHECK(decoded->torn_tail);
  // Bytes no single lost append could have left.
  std::string stray = padded;
  stray[records.size() + 100000] = 'x';
  CHECK(absl::IsDataLoss(DecodeLeaseFile(stray).status()));
  // A header and zeros: a file made, no lease in it yet.
  decoded = DecodeLeaseFile(EncodeLeaseFileHeader(3) + std::string(65536, '\0'));
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->records.empty());
  CHECK(decoded->pid == 3);
}

TEST_CASE("a lease record's URI must be a valid location URI") {
  std::string bytes = EncodeLeaseFileHeader(1) + EncodeLeaseRecord("http://x/y", 1);
  bytes += std::string(kMaxTornTailBytes, 'z');  // so it is not the tail
  CHECK(absl::IsDataLoss(DecodeLeaseFile(bytes).status()));
}

TEST_CASE("a pin record has these exact bytes and decodes back") {
  PinRecord pin{"file:///a/b", 1700000000123456};
  std::string bytes = EncodePinRecord(pin);
  CHECK(Hex(bytes) ==
        "4c414b4550494e31" "01000000" "0b000000"
        "66696c653a2f2f2f612f62"
        "40222018240a0600"
        "791c6fe9ca6e272d");
  absl::StatusOr<PinRecord> decoded = DecodePinRecord(bytes);
  LAKE_REQUIRE_OK(decoded);
  CHECK(decoded->uri == pin.uri);
  CHECK(decoded->pinned_unix_micros == pin.pinned_unix_micros);
}

TEST_CASE("a pin record that is short, long, damaged or of another version is DataLoss") {
  std::string bytes = EncodePinRecord(PinRecord{"file:///a/b", 1});
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    CHECK(absl::IsDataLoss(DecodePinRecord(bytes.substr(0, cut)).status()));
  }
  CHECK(absl::IsDataLoss(DecodePinRecord(bytes + "x").status()));
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string damaged = bytes;
    damaged[at] ^= 0x01;
    CAPTURE(at);
    CHECK_FALSE(DecodePinRecord(damaged).ok());
  }
  CHECK(absl::IsDataLoss(DecodePinRecord(EncodePinRecord(PinRecord{"http://x/y", 1})).status()));
}

}  // namespace
}  // namespace lake::gc
