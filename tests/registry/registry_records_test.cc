// The registry's value encodings: canonical, and failing closed on damage.
#include <doctest/doctest.h>

#include <string>

#include "absl/strings/escaping.h"
#include "registry/registry_keys.h"
#include "registry/registry_records.h"
#include "tests/support/status_checks.h"

namespace lake::registry {
namespace {

using table::ColumnType;

TableRecord SampleTable() {
  return TableRecord{7,
                     {"media", "clips"},
                     table::Schema{{{"id", ColumnType::kInt64}, {"video", ColumnType::kFile}}},
                     3,
                     "tables/media/clips/_lake/manifests/3.manifest",
                     1700000000000000};
}

VersionRecord SampleVersion() {
  return VersionRecord{3, 2, "tables/media/clips/_lake/manifests/3.manifest",
                       std::string(64, 'c'), "op-3", 1700000000000003};
}

AppendOperationRecord SampleOperation() {
  return AppendOperationRecord{"op-3", 7, 3, std::string(64, 'e'), 1700000000000003};
}

// Every strict prefix and every single-bit change of `value` fails `decode`
// with DataLoss.
template <typename Decode>
void CheckEveryDamageIsDataLoss(const std::string& value, Decode decode) {
  for (size_t len = 0; len < value.size(); ++len) {
    CAPTURE(len);
    CHECK(absl::IsDataLoss(decode(value.substr(0, len)).status()));
  }
  for (size_t i = 0; i < value.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = value;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      CAPTURE(i);
      CAPTURE(bit);
      CHECK(absl::IsDataLoss(decode(damaged).status()));
    }
  }
  CHECK(absl::IsDataLoss(decode(value + "x").status()));
}

TEST_CASE("the counter record's encoding is fixed (golden)") {
  CHECK(absl::BytesToHexString(EncodeCounterRecord(42)) ==
        "01072a0000000000000038249ac03e5e140d");
  CHECK(*DecodeCounterRecord(absl::HexStringToBytes("01072a0000000000000038249ac03e5e140d")) ==
        42);
}

// The bytes every kind of record has on disk today: a registry written by an
// earlier lake must keep reading, and a change of the encoders shows here.
TEST_CASE("every record's encoding is fixed (golden)") {
  auto hex = [](const std::string& bytes) { return absl::BytesToHexString(bytes); };
  CHECK(hex(EncodeStageDescriptorRecord("{\"kind\":\"local\"}")) ==
        "0101100000007b226b696e64223a226c6f63616c227d8270e0f50f29e045");
  CHECK(hex(EncodeNamespaceRecord(NamespaceRecord{"media", -5})) ==
        "0102050000006d65646961fbffffffffffffff7ceb28ecce8b96dc");
  const std::string table =
      "01030700000000000000050000006d6564696105000000636c6970730200000002000000696402050000"
      "00766964656f0703000000000000002d0000007461626c65732f6d656469612f636c6970732f5f6c616b"
      "652f6d616e6966657374732f332e6d616e696665737400401e18240a060080cfe73a911fad03";
  CHECK(hex(EncodeTableRecord(SampleTable())) == table);
  CHECK(*DecodeTableRecord(absl::HexStringToBytes(table)) == SampleTable());
  CHECK(hex(EncodeTableIdIndexRecord({"media", "clips"})) ==
        "0104050000006d6564696105000000636c69707369cce65ec311b3f9");
  CHECK(hex(EncodeVersionRecord(7, SampleVersion())) ==
        "01050700000000000000030000000000000002000000000000002d0000007461626c65732f6d65646961"
        "2f636c6970732f5f6c616b652f6d616e6966657374732f332e6d616e6966657374400000006363636363"
        "636363636363636363636363636363636363636363636363636363636363636363636363636363636363"
        "6363636363636363636363636363636363040000006f702d3303401e18240a06004a7294c9f652c682");
  CHECK(hex(EncodeAppendOperationRecord(SampleOperation())) ==
        "0106040000006f702d330700000000000000030000000000000040000000656565656565656565656565"
        "656565656565656565656565656565656565656565656565656565656565656565656565656565656565"
        "6565656565656565656503401e18240a0600d22943c4f6b1d46c");
  CHECK(TableKey({"media", "clips"}) == "t/media.clips");
}

TEST_CASE("a dropped table's record is the table's body and the drop time (golden)") {
  DroppedTableRecord dropped{SampleTable(), 1700000000000009};
  const std::string golden = absl::BytesToHexString(EncodeDroppedTableRecord(dropped));
  // Kind 8, then exactly the body of the table record (kind 3) and an i64.
  const std::string table_body = absl::BytesToHexString(EncodeTableRecord(SampleTable()))
                                     .substr(4, (EncodeTableRecord(SampleTable()).size() - 10) * 2);
  CHECK(golden.substr(0, 4) == "0108");
  CHECK(golden.substr(4, table_body.size()) == table_body);
  CHECK(golden ==
        "01080700000000000000050000006d6564696105000000636c6970730200000002000000696402050000"
        "00766964656f0703000000000000002d0000007461626c65732f6d656469612f636c6970732f5f6c616b"
        "652f6d616e6966657374732f332e6d616e696665737400401e18240a0600"
        "09401e18240a06005670b2c68c4a4beb");
  CHECK(*DecodeDroppedTableRecord(absl::HexStringToBytes(golden)) == dropped);
  CHECK(DroppedTableKey(7) == "d/0000000000000007");
  CheckEveryDamageIsDataLoss(EncodeDroppedTableRecord(dropped),
                             [](std::string_view v) { return DecodeDroppedTableRecord(v); });
  // A table record is not a dropped table's, nor the other way round.
  CHECK(absl::IsDataLoss(DecodeDroppedTableRecord(EncodeTableRecord(SampleTable())).status()));
  CHECK(absl::IsDataLoss(DecodeTableRecord(EncodeDroppedTableRecord(dropped)).status()));
}

TEST_CASE("tag and retired-version records are fixed (golden) and fail closed") {
  TagRecord tag{7, "golden", 3, 1700000000000009};
  RetiredVersionRecord retired{7, 2, 1700000000000010};
  const std::string tag_hex = absl::BytesToHexString(EncodeTagRecord(tag));
  const std::string retired_hex = absl::BytesToHexString(EncodeRetiredVersionRecord(retired));
  // Kind 9: table id 7, "golden", version 3, the time; kind 10: table id 7,
  // version 2, the time; each then its digest.
  CHECK(tag_hex ==
        "0109070000000000000006000000676f6c64656e030000000000000009401e18240a0600"
        "65277a8538b0806a");
  CHECK(retired_hex ==
        "010a070000000000000002000000000000000a401e18240a0600"
        "1cce7724b61b3b9d");
  CHECK(*DecodeTagRecord(absl::HexStringToBytes(tag_hex)) == tag);
  CHECK(*DecodeRetiredVersionRecord(absl::HexStringToBytes(retired_hex)) == retired);
  CHECK(TagKey(7, "golden") == "g/0000000000000007/golden");
  CHECK(RetiredVersionKey(7, 2) == "x/0000000000000007/00000000000000000002");
  CheckEveryDamageIsDataLoss(EncodeTagRecord(tag),
                             [](std::string_view v) { return DecodeTagRecord(v); });
  CheckEveryDamageIsDataLoss(EncodeRetiredVersionRecord(retired),
                             [](std::string_view v) { return DecodeRetiredVersionRecord(v); });
  // Well framed, invalid content: a tag that is no identifier, version 0.
  CHECK(absl::IsDataLoss(DecodeTagRecord(EncodeTagRecord({7, "no tag", 3, 0})).status()));
  CHECK(absl::IsDataLoss(DecodeTagRecord(EncodeTagRecord({7, "t", 0, 0})).status()));
  CHECK(absl::IsDataLoss(
      DecodeRetiredVersionRecord(EncodeRetiredVersionRecord({7, 0, 0})).status()));
  CHECK(absl::IsDataLoss(DecodeTagRecord(EncodeRetiredVersionRecord(retired)).status()));
}

TEST_CASE("a reference base record round-trips and fails closed") {
  ReferenceBaseRecord base{7, 3, std::string(64, 'b'), 1700000000000011};
  std::string encoded = EncodeReferenceBaseRecord(base);
  CHECK(absl::BytesToHexString(encoded.substr(0, 2)) == "010b");
  CHECK(*DecodeReferenceBaseRecord(encoded) == base);
  CHECK(ReferenceBaseKey(7) == "b/0000000000000007");
  CheckEveryDamageIsDataLoss(encoded,
                             [](std::string_view v) { return DecodeReferenceBaseRecord(v); });
  CHECK(absl::IsDataLoss(
      DecodeReferenceBaseRecord(EncodeReferenceBaseRecord({7, 0, std::string(64, 'b'), 0}))
          .status()));
  CHECK(absl::IsDataLoss(
      DecodeReferenceBaseRecord(EncodeReferenceBaseRecord({7, 3, "nothex", 0})).status()));
}

TEST_CASE("a deferred mark record round-trips and fails closed") {
  DeferredMarkRecord mark{7, "0b5c3a1e-8f2d-4c6b-9a7e-1d2f3a4b5c6d", 1700000000000012};
  std::string encoded = EncodeDeferredMarkRecord(mark);
  CHECK(absl::BytesToHexString(encoded.substr(0, 2)) == "010c");
  CHECK(*DecodeDeferredMarkRecord(encoded) == mark);
  CHECK(DeferredMarkKey(7) == "u/0000000000000007");
  CheckEveryDamageIsDataLoss(encoded,
                             [](std::string_view v) { return DecodeDeferredMarkRecord(v); });
  CHECK(absl::IsDataLoss(DecodeDeferredMarkRecord(EncodeDeferredMarkRecord({0, "b", 0})).status()));
  CHECK(absl::IsDataLoss(DecodeDeferredMarkRecord(EncodeDeferredMarkRecord({7, "", 0})).status()));
  CHECK(absl::IsDataLoss(
      DecodeDeferredMarkRecord(EncodeDeferredMarkRecord({7, "has space", 0})).status()));
  CHECK(absl::IsDataLoss(
      DecodeDeferredMarkRecord(EncodeDeferredMarkRecord({7, std::string(65, 'b'), 0})).status()));
}

TEST_CASE("records round-trip") {
  CHECK(*DecodeStageDescriptorRecord(EncodeStageDescriptorRecord("{\"kind\":\"local\"}")) ==
        "{\"kind\":\"local\"}");
  NamespaceRecord ns{"media", -5};
  CHECK(*DecodeNamespaceRecord(EncodeNamespaceRecord(ns)) == ns);
  CHECK(*DecodeTableRecord(EncodeTableRecord(SampleTable())) == SampleTable());
  CHECK(*DecodeTableIdIndexRecord(EncodeTableIdIndexRecord({"media", "clips"})) ==
        table::TableName{"media", "clips"});
  CHECK(*DecodeVersionRecord(EncodeVersionRecord(7, SampleVersion()), 7) == SampleVersion());
  CHECK(*DecodeAppendOperationRecord(EncodeAppendOperationRecord(SampleOperation())) ==
        SampleOperation());
  CHECK(*DecodeCounterRecord(EncodeCounterRecord(1)) == 1);
}

TEST_CASE("a table at version 0 has no manifest") {
  TableRecord empty = SampleTable();
  empty.current_version = 0;
  empty.manifest_path = "";
  CHECK(*DecodeTableRecord(EncodeTableRecord(empty)) == empty);
  TableRecord inconsistent = empty;
  inconsistent.manifest_path = "m";
  CHECK(absl::IsInvalidArgument(ValidateTableRecord(inconsistent)));
  CHECK(absl::IsDataLoss(DecodeTableRecord(EncodeTableRecord(inconsistent)).status()));
}

TEST_CASE("every truncation and bit flip is DataLoss") {
  SUBCASE("table") {
    CheckEveryDamageIsDataLoss(EncodeTableRecord(SampleTable()),
                               [](std::string_view v) { return DecodeTableRecord(v); });
  }
  SUBCASE("version") {
    CheckEveryDamageIsDataLoss(EncodeVersionRecord(7, SampleVersion()),
                               [](std::string_view v) { return DecodeVersionRecord(v, 7); });
  }
  SUBCASE("append operation") {
    CheckEveryDamageIsDataLoss(EncodeAppendOperationRecord(SampleOperation()),
                               [](std::string_view v) { return DecodeAppendOperationRecord(v); });
  }
  SUBCASE("counter") {
    CheckEveryDamageIsDataLoss(EncodeCounterRecord(9),
                               [](std::string_view v) { return DecodeCounterRecord(v); });
  }
}

TEST_CASE("an unknown format version is DataLoss, named") {
  std::string value = EncodeCounterRecord(9);
  value[0] = 2;
  absl::StatusOr<uint64_t> decoded = DecodeCounterRecord(value);
  CHECK(absl::IsDataLoss(decoded.status()));
  CHECK(decoded.status().message() ==
        "registry counter record is damaged: unknown format version 2 (this lake reads "
        "version 1)");
}

TEST_CASE("a record of another kind is DataLoss") {
  absl::StatusOr<TableRecord> decoded = DecodeTableRecord(EncodeCounterRecord(9));
  CHECK(absl::IsDataLoss(decoded.status()));
  CHECK(decoded.status().message() == "registry table record is damaged: it holds record kind 7");
}

TEST_CASE("a version record of another table is DataLoss") {
  absl::StatusOr<VersionRecord> decoded =
      DecodeVersionRecord(EncodeVersionRecord(7, SampleVersion()), 8);
  CHECK(absl::IsDataLoss(decoded.status()));
  CHECK(decoded.status().message() ==
        "registry version record is damaged: it belongs to table 7, not table 8");
}

TEST_CASE("well-framed records with invalid content are DataLoss") {
  TableRecord bad_name = SampleTable();
  bad_name.name.table = "no-dashes";
  CHECK(absl::IsDataLoss(DecodeTableRecord(EncodeTableRecord(bad_name)).status()));
  TableRecord bad_schema = SampleTable();
  bad_schema.schema.columns.push_back(bad_schema.schema.columns[0]);  // duplicate name
  CHECK(absl::IsDataLoss(DecodeTableRecord(EncodeTableRecord(bad_schema)).status()));
  VersionRecord bad_digest = SampleVersion();
  bad_digest.reference_delta_sha256 = "abc";
  CHECK(absl::IsDataLoss(DecodeVersionRecord(EncodeVersionRecord(7, bad_digest), 7).status()));
  AppendOperationRecord bad_op = SampleOperation();
  bad_op.operation_id = "with space";
  CHECK(absl::IsDataLoss(DecodeAppendOperationRecord(EncodeAppendOperationRecord(bad_op)).status()));
  CHECK(absl::IsDataLoss(DecodeCounterRecord(EncodeCounterRecord(0)).status()));
  CHECK(absl::IsDataLoss(DecodeStageDescriptorRecord(EncodeStageDescriptorRecord("")).status()));
}

TEST_CASE("content checks name what is wrong") {
  CHECK(ValidateSha256Hex(std::string(64, '0'), "x").ok());
  CHECK(ValidateSha256Hex(std::string(64, 'F'), "batch_sha256").message() ==
        "batch_sha256 must be 64 lowercase hex digits, not \"" + std::string(64, 'F') + "\"");
  CHECK(ValidateOperationId("0f8a-uuid:1").ok());
  CHECK(absl::IsInvalidArgument(ValidateOperationId("")));
  CHECK(absl::IsInvalidArgument(ValidateOperationId(std::string(kMaxOperationIdBytes + 1, 'a'))));
  CHECK(absl::IsInvalidArgument(ValidateOperationId("tab\there")));
  CHECK(absl::IsInvalidArgument(ValidateManifestPath("")));
  CHECK(absl::IsInvalidArgument(ValidateManifestPath(std::string("a\0b", 3))));
}

TEST_CASE("keys sort as their records do") {
  CHECK(TableKey({"ns", "t"}) == "t/ns.t");
  CHECK(TableIdKey(255) == "i/00000000000000ff");
  CHECK(VersionKey(255, 12) == "v/00000000000000ff/00000000000000000012");
  CHECK(TableVersionsPrefix(255) == "v/00000000000000ff/");
  CHECK(OperationKey("op") == "o/op");
  CHECK(NamespaceKey("ns") == "n/ns");
  CHECK(VersionKey(1, 9) < VersionKey(1, 10));
  CHECK(VersionKey(1, UINT64_MAX) < VersionKey(2, 0));
  CHECK(TableKey({"a", "z"}) < TableKey({"a0", "b"}));
  CHECK(TableKey({"a", "z"}) < TableKey({"a_", "b"}));
}

}  // namespace
}  // namespace lake::registry
