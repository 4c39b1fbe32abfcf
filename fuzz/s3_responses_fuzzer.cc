// Fuzzes the XML parsers of io/s3http/s3_responses.h. The whole input is
// given to every parser (ParseS3Error, S3ErrorResponseStatus, the five
// result parsers, both key encodings of ListObjectsV2 and of
// ListMultipartUploads, and the parser of the CompleteMultipartUpload
// body); the input's bytes also describe a list of
// parts for the CompleteMultipartUpload serializer.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding.
//   2. Every refusal is typed: either malformed server output
//      (IsMalformedResponse, InvalidArgument or ResourceExhausted, no S3Error
//      payload) or an S3 error document found in place of a result
//      (GetS3Error gives it back, with http_status 200).
//   3. Accepted results satisfy the header's invariants: S3 error codes are
//      1..128 of [A-Za-z0-9._-] and resources hold no '?' or '#'; upload ids
//      are 1..1024 visible ASCII; parts number 1..10000 strictly ascending
//      above the marker with sizes up to 5 GiB, and a truncated listing has
//      a next marker that advances; keys are 1..1024 bytes of valid UTF-8
//      without NUL, sizes below 2^63, and a truncated listing has a token;
//      an upload listing's uploads have such keys, not descending nor below
//      the key marker, valid upload ids, and a truncated one has a next key
//      marker and next markers that differ from the request's;
//      at most 10000 entries; every ETag and timestamp re-serialises to a
//      form that parses back equal.
//   4. S3 errors: the status is never OK, GetS3Error returns exactly the
//      parsed error, and the message is printable ASCII and bounded; for an
//      S3Error made by hand from the input too, with the resource's query
//      cut off and the status a fixed point.
//   5. CompleteMultipartUpload: a parsed body re-serialises, parses back to
//      the same parts, and that serialisation is a fixed point; parts made
//      from the input serialise exactly when they are non-empty, in
//      1..10000 and strictly ascending, and then round-trip.
//   6. DeleteObjects: an accepted result's keys are valid keys and its
//      failures carry valid codes; a parsed request body (1..1000 keys)
//      re-serialises and parses back to the same keys.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/property_check.h"
#include "io/s3http/s3_responses.h"

namespace {

using namespace lake::s3http;

using lake::fuzz::Check;

// A reference UTF-8 check (RFC 3629), written independently of the
// library's: decode with explicit ranges per lead byte.
bool ReferenceUtf8(std::string_view text) {
  size_t i = 0;
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  auto in = [](unsigned char b, unsigned char lo, unsigned char hi) {
    return b >= lo && b <= hi;
  };
  while (i < text.size()) {
    unsigned char b0 = byte(i);
    size_t left = text.size() - i;
    if (b0 <= 0x7F) {
      i += 1;
    } else if (in(b0, 0xC2, 0xDF) && left >= 2 && in(byte(i + 1), 0x80, 0xBF)) {
      i += 2;
    } else if (left >= 3 && in(byte(i + 2), 0x80, 0xBF) &&
               ((b0 == 0xE0 && in(byte(i + 1), 0xA0, 0xBF)) ||
                (in(b0, 0xE1, 0xEC) && in(byte(i + 1), 0x80, 0xBF)) ||
                (b0 == 0xED && in(byte(i + 1), 0x80, 0x9F)) ||
                (in(b0, 0xEE, 0xEF) && in(byte(i + 1), 0x80, 0xBF)))) {
      i += 3;
    } else if (left >= 4 && in(byte(i + 2), 0x80, 0xBF) &&
               in(byte(i + 3), 0x80, 0xBF) &&
               ((b0 == 0xF0 && in(byte(i + 1), 0x90, 0xBF)) ||
                (in(b0, 0xF1, 0xF3) && in(byte(i + 1), 0x80, 0xBF)) ||
                (b0 == 0xF4 && in(byte(i + 1), 0x80, 0x8F)))) {
      i += 4;
    } else {
      return false;
    }
  }
  return true;
}

void CheckRefusal(const absl::Status& status) {
  Check(!status.ok());
  std::optional<S3Error> error = GetS3Error(status);
  if (error.has_value()) {
    Check(!IsMalformedResponse(status));
    Check(error->http_status == 200);
    Check(!error->code.empty());
    return;
  }
  Check(IsMalformedResponse(status));
  Check(absl::IsInvalidArgument(status) || absl::IsResourceExhausted(status));
}

void CheckETagValue(const ETag& etag) {
  absl::StatusOr<ETag> reparsed = ParseETag(FormatETag(etag));
  Check(reparsed.ok() && *reparsed == etag);
}

void CheckTimestamp(int64_t micros) {
  absl::StatusOr<int64_t> reparsed = ParseS3Timestamp(FormatS3Timestamp(micros));
  Check(reparsed.ok() && *reparsed == micros);
}

void CheckKey(std::string_view key, bool may_be_empty) {
  Check(may_be_empty || !key.empty());
  Check(key.size() <= kMaxKeyBytes);
  Check(key.find('\0') == std::string_view::npos);
  Check(ReferenceUtf8(key));
}

void CheckErrorStatus(const S3Error& error) {
  absl::Status status = S3ErrorStatus(error);
  Check(!status.ok());
  std::optional<S3Error> carried = GetS3Error(status);
  Check(carried.has_value() && *carried == error);
  Check(status.message().size() <= 1200);
  for (char c : status.message()) Check(c >= 0x20 && c < 0x7F);
}

// An S3Error made by hand from the input (five fields split at '\n'):
// its status is never OK, shows nothing after a '?' of the resource, and
// carries the error with the resource cut there.
void CheckHandMadeError(std::string_view data, int http_status) {
  S3Error error;
  error.http_status = http_status;
  for (std::string* field : {&error.code, &error.message, &error.request_id,
                             &error.host_id, &error.resource}) {
    size_t end = data.find('\n');
    *field = std::string(data.substr(0, end));
    data.remove_prefix(end == std::string_view::npos ? data.size() : end + 1);
  }
  absl::Status status = S3ErrorStatus(error);
  Check(!status.ok());
  Check(status.message().size() <= 1200);
  for (char c : status.message()) Check(c >= 0x20 && c < 0x7F);
  std::optional<S3Error> carried = GetS3Error(status);
  Check(carried.has_value());
  Check(carried->http_status == http_status && carried->code == error.code &&
        carried->request_id == error.request_id && carried->host_id == error.host_id);
  Check(carried->resource == error.resource.substr(0, error.resource.find_first_of("?#")));
  Check(S3ErrorStatus(*carried) == status);
}

void CheckS3Error(std::string_view body, int http_status) {
  absl::StatusOr<S3Error> error = ParseS3Error(http_status, body);
  absl::Status response = S3ErrorResponseStatus(http_status, body);
  Check(!response.ok() && GetS3Error(response).has_value());
  if (!error.ok()) {
    Check(IsMalformedResponse(error.status()));
    Check(GetS3Error(response)->code.empty());
    return;
  }
  Check(error->http_status == http_status);
  Check(!error->code.empty() && error->code.size() <= 128);
  for (char c : error->code) {
    Check((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
  }
  Check(error->resource.find_first_of("?#") == std::string::npos);
  CheckErrorStatus(*error);
  Check(*GetS3Error(response) == *error);
}

void CheckInitiate(std::string_view body) {
  absl::StatusOr<InitiateMultipartUploadResult> result =
      ParseInitiateMultipartUploadResult(body);
  if (!result.ok()) return CheckRefusal(result.status());
  Check(!result->upload_id.empty() && result->upload_id.size() <= 1024);
  for (char c : result->upload_id) Check(c > 0x20 && c < 0x7F);
}

void CheckListParts(std::string_view body) {
  absl::StatusOr<ListPartsResult> result = ParseListPartsResult(body);
  if (!result.ok()) return CheckRefusal(result.status());
  Check(!result->upload_id.empty());
  Check(result->parts.size() <= kMaxListEntries);
  Check(result->part_number_marker >= 0 &&
        result->part_number_marker <= kMaxPartNumber);
  int previous = result->part_number_marker;
  for (const ListedPart& part : result->parts) {
    Check(part.part_number >= kMinPartNumber && part.part_number <= kMaxPartNumber);
    Check(part.part_number > previous);
    Check(part.size_bytes <= kMaxPartSizeBytes);
    CheckETagValue(part.etag);
    CheckTimestamp(part.last_modified_micros);
    previous = part.part_number;
  }
  if (result->is_truncated) {
    Check(result->next_part_number_marker.has_value());
    Check(*result->next_part_number_marker > result->part_number_marker);
    Check(*result->next_part_number_marker >= previous);
  }
}

void CheckListObjects(std::string_view body, KeyEncoding encoding) {
  absl::StatusOr<ListObjectsV2Result> result =
      ParseListObjectsV2Result(body, encoding);
  if (!result.ok()) return CheckRefusal(result.status());
  Check(result->contents.size() + result->common_prefixes.size() <= kMaxListEntries);
  CheckKey(result->prefix, true);
  for (const ListedObject& object : result->contents) {
    CheckKey(object.key, false);
    Check(object.size_bytes <= kMaxObjectSizeBytes);
    CheckETagValue(object.etag);
    CheckTimestamp(object.last_modified_micros);
  }
  for (const std::string& prefix : result->common_prefixes) CheckKey(prefix, false);
  Check(result->is_truncated != result->next_continuation_token.empty());
}

bool IsUploadId(std::string_view id) {
  if (id.empty() || id.size() > 1024) return false;
  for (char c : id) {
    if (c <= 0x20 || c >= 0x7F) return false;
  }
  return true;
}

void CheckListUploads(std::string_view body, KeyEncoding encoding) {
  absl::StatusOr<ListMultipartUploadsResult> result =
      ParseListMultipartUploadsResult(body, encoding);
  if (!result.ok()) return CheckRefusal(result.status());
  Check(result->uploads.size() + result->common_prefixes.size() <= kMaxListEntries);
  CheckKey(result->prefix, true);
  CheckKey(result->key_marker, true);
  Check(result->upload_id_marker.empty() || IsUploadId(result->upload_id_marker));
  std::string previous = result->key_marker;
  for (const ListedMultipartUpload& upload : result->uploads) {
    CheckKey(upload.key, false);
    Check(upload.key >= previous);
    previous = upload.key;
    Check(IsUploadId(upload.upload_id));
    CheckTimestamp(upload.initiated_micros);
  }
  for (const std::string& prefix : result->common_prefixes) CheckKey(prefix, false);
  if (result->is_truncated) {
    CheckKey(result->next_key_marker, false);
    Check(result->next_upload_id_marker.empty() || IsUploadId(result->next_upload_id_marker));
    Check(result->next_key_marker != result->key_marker ||
          result->next_upload_id_marker != result->upload_id_marker);
  } else {
    Check(result->next_key_marker.empty() && result->next_upload_id_marker.empty());
  }
}

void CheckCompleteResult(std::string_view body) {
  absl::StatusOr<CompleteMultipartUploadResult> result =
      ParseCompleteMultipartUploadResult(body);
  if (!result.ok()) return CheckRefusal(result.status());
  if (result->etag.has_value()) CheckETagValue(*result->etag);
}

void CheckCompleteBodyRoundTrip(std::span<const CompletedPart> parts) {
  absl::StatusOr<std::string> body = SerializeCompleteMultipartUpload(parts);
  Check(body.ok());
  absl::StatusOr<std::vector<CompletedPart>> reparsed =
      ParseCompleteMultipartUpload(*body);
  Check(reparsed.ok());
  Check(reparsed->size() == parts.size());
  for (size_t i = 0; i < parts.size(); ++i) Check((*reparsed)[i] == parts[i]);
  Check(*SerializeCompleteMultipartUpload(*reparsed) == *body);
}

void CheckCompleteBody(std::string_view body) {
  absl::StatusOr<std::vector<CompletedPart>> parts =
      ParseCompleteMultipartUpload(body);
  if (!parts.ok()) {
    Check(IsMalformedResponse(parts.status()));
    return;
  }
  CheckCompleteBodyRoundTrip(*parts);
}

// Parts from the input, 3 bytes each: a part number (two bytes, taken
// modulo 10002 so that 0 and 10001 occur) and a byte choosing the ETag.
void CheckSerializer(std::string_view data) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::vector<CompletedPart> parts;
  for (size_t i = 0; i + 3 <= data.size() && parts.size() < 64; i += 3) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(data[i + k]); };
    CompletedPart part;
    part.part_number = (byte(0) << 8 | byte(1)) % 10002;
    part.etag.hex.assign(32, kHex[byte(2) & 15]);
    if (byte(2) >> 4 != 0) part.etag.part_count = byte(2) >> 4;
    parts.push_back(part);
  }
  bool valid = !parts.empty();
  int previous = 0;
  for (const CompletedPart& part : parts) {
    valid = valid && part.part_number >= 1 && part.part_number <= 10000 &&
            part.part_number > previous;
    previous = part.part_number;
  }
  absl::StatusOr<std::string> body = SerializeCompleteMultipartUpload(parts);
  Check(body.ok() == valid);
  if (!body.ok()) {
    Check(absl::IsInvalidArgument(body.status()));
    Check(!IsMalformedResponse(body.status()));
    return;
  }
  CheckCompleteBodyRoundTrip(parts);
}

void CheckDeleteResult(std::string_view body) {
  absl::StatusOr<DeleteObjectsResult> result = ParseDeleteObjectsResult(body);
  if (!result.ok()) return CheckRefusal(result.status());
  for (const std::string& key : result->deleted) CheckKey(key, false);
  for (const DeleteObjectsFailure& failure : result->failures) {
    CheckKey(failure.key, false);
    Check(!failure.code.empty() && failure.code.size() <= 128);
  }
}

void CheckDeleteRequest(std::string_view body) {
  absl::StatusOr<std::vector<std::string>> keys = ParseDeleteObjectsRequest(body);
  if (!keys.ok()) {
    Check(IsMalformedResponse(keys.status()));
    return;
  }
  Check(!keys->empty() && keys->size() <= kMaxDeleteObjectsKeys);
  absl::StatusOr<std::string> again = SerializeDeleteObjects(*keys);
  if (!again.ok()) {
    // A key holding a control character XML 1.0 cannot carry (expat
    // accepts a character reference to one) is refused, not sent.
    Check(absl::IsInvalidArgument(again.status()));
    return;
  }
  absl::StatusOr<std::vector<std::string>> reparsed = ParseDeleteObjectsRequest(*again);
  Check(reparsed.ok() && *reparsed == *keys);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  int http_status = 100 + static_cast<int>(size % 500);
  CheckS3Error(body, http_status);
  CheckHandMadeError(body, static_cast<int>(size) - 1000);
  CheckInitiate(body);
  CheckListParts(body);
  CheckListObjects(body, KeyEncoding::kNone);
  CheckListObjects(body, KeyEncoding::kUrl);
  CheckListUploads(body, KeyEncoding::kNone);
  CheckListUploads(body, KeyEncoding::kUrl);
  CheckCompleteResult(body);
  CheckCompleteBody(body);
  CheckSerializer(body);
  CheckDeleteResult(body);
  CheckDeleteRequest(body);
  return 0;
}
