// The XML documents of S3: errors and their statuses, multipart results,
// listings, the CompleteMultipartUpload body, and the refusals of hostile
// documents. The example documents follow the formats of the S3 API
// reference and what RGW sends (shared/recipes/s3-test-server.md).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "io/s3http/s3_responses.h"
#include "tests/support/status_checks.h"

namespace lake::s3http {
namespace {

constexpr std::string_view kXmlDeclaration =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
const std::string kNs = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";

// 2010-11-10T20:48:34.000Z
constexpr int64_t kNov10Micros = int64_t{1289422114} * 1000000;

void CheckMalformed(const absl::Status& status, std::string_view needle = "") {
  CHECK_MESSAGE(!status.ok(), "accepted");
  CHECK_MESSAGE(IsMalformedResponse(status), status.ToString());
  CHECK(!GetS3Error(status).has_value());
  if (!needle.empty()) {
    CHECK_MESSAGE(std::string(status.message()).find(needle) != std::string::npos,
                  status.ToString());
  }
}

template <typename T>
void CheckMalformed(const absl::StatusOr<T>& parsed, std::string_view needle = "") {
  CheckMalformed(parsed.status(), needle);
}

// --- Documents -----------------------------------------------------------------

std::string InitiateDocument(const std::string& ns, const std::string& upload_id) {
  return std::string(kXmlDeclaration) + "<InitiateMultipartUploadResult" + ns +
         "><Bucket>example-bucket</Bucket><Key>videos/episode.mp4</Key>"
         "<UploadId>" + upload_id + "</UploadId></InitiateMultipartUploadResult>";
}

std::string PartElement(const std::string& number, const std::string& size,
                        const std::string& etag =
                            "&quot;7778aef83f66abc1fa1e8477f296d394&quot;") {
  return "<Part><PartNumber>" + number + "</PartNumber>"
         "<LastModified>2010-11-10T20:48:34.000Z</LastModified>"
         "<ETag>" + etag + "</ETag><Size>" + size + "</Size></Part>";
}

std::string ListPartsDocument(const std::string& ns, const std::string& head,
                              const std::string& parts) {
  return std::string(kXmlDeclaration) + "<ListPartsResult" + ns + ">\n"
         "  <Bucket>example-bucket</Bucket>\n"
         "  <Key>example-object</Key>\n" + head +
         "  <Initiator><ID>arn:aws:iam::111122223333:user/some-user</ID>"
         "<DisplayName>some-user</DisplayName></Initiator>\n"
         "  <Owner><ID>75aa57f09aa0c8caeab4f8c24e99d10f8e7faeeb</ID>"
         "<DisplayName>someName</DisplayName></Owner>\n"
         "  <StorageClass>STANDARD</StorageClass>\n"
         "  <MaxParts>1000</MaxParts>\n" + parts + "\n</ListPartsResult>\n";
}

const std::string kUploadIdElement =
    "  <UploadId>XXBsb2FkIElEIGZvciBlbHZpbmcncyVcdS1tb3ZpZS5tMnRzEEEwbG9hZA</UploadId>\n";

std::string ListPartsWithParts(const std::string& parts,
                               const std::string& tail =
                                   "<IsTruncated>false</IsTruncated>") {
  return ListPartsDocument(kNs, kUploadIdElement + tail, parts);
}

std::string ContentsElement(const std::string& key, const std::string& size = "434234",
                            const std::string& etag =
                                "&quot;fba9dede5f27731c9771645a39863328&quot;") {
  return "<Contents><Key>" + key + "</Key>"
         "<LastModified>2009-10-12T17:50:30.000Z</LastModified>"
         "<ETag>" + etag + "</ETag><Size>" + size + "</Size>"
         "<Owner><ID>75aa57f09aa0c8caeab4f8c24e99d10f8e7faeeb</ID></Owner>"
         "<StorageClass>STANDARD</StorageClass></Contents>";
}

std::string ListBucketDocument(const std::string& ns, const std::string& head,
                               const std::string& entries) {
  return std::string(kXmlDeclaration) + "<ListBucketResult" + ns + ">"
         "<Name>example-bucket</Name>" + head + "<MaxKeys>1000</MaxKeys>" +
         entries + "</ListBucketResult>";
}

std::string ErrorDocument(const std::string& code, const std::string& extra = "") {
  return std::string(kXmlDeclaration) + "<Error><Code>" + code + "</Code>"
         "<Message>The specified key does not exist.</Message>"
         "<Resource>/example-bucket/videos/episode.mp4</Resource>"
         "<RequestId>4442587FB7D0A2F9</RequestId>"
         "<HostId>bWFkZSB1cCBob3N0IGlk</HostId>" + extra + "</Error>";
}

const ETag kPartETag{"7778aef83f66abc1fa1e8477f296d394", std::nullopt};

// --- Errors --------------------------------------------------------------------

TEST_CASE("an S3 error document gives code, message, request id, host id and resource") {
  absl::StatusOr<S3Error> error = ParseS3Error(404, ErrorDocument("NoSuchKey"));
  LAKE_REQUIRE_OK(error);
  CHECK(error->http_status == 404);
  CHECK(error->code == "NoSuchKey");
  CHECK(error->message == "The specified key does not exist.");
  CHECK(error->resource == "/example-bucket/videos/episode.mp4");
  CHECK(error->request_id == "4442587FB7D0A2F9");
  CHECK(error->host_id == "bWFkZSB1cCBob3N0IGlk");
}

TEST_CASE("an RGW error document without Message parses") {
  absl::StatusOr<S3Error> error = ParseS3Error(
      404, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchKey</Code>"
           "<BucketName>lake</BucketName>"
           "<RequestId>tx00000a1b2c3d4e5f60718-0065f1a2b3-1014-default</RequestId>"
           "<HostId>1014-default-default</HostId></Error>");
  LAKE_REQUIRE_OK(error);
  CHECK(error->code == "NoSuchKey");
  CHECK(error->message.empty());
  CHECK(error->request_id == "tx00000a1b2c3d4e5f60718-0065f1a2b3-1014-default");
}

TEST_CASE("an error document in the S3 namespace parses") {
  absl::StatusOr<S3Error> error = ParseS3Error(
      403, "<Error" + kNs + "><Code>AccessDenied</Code></Error>");
  LAKE_REQUIRE_OK(error);
  CHECK(error->code == "AccessDenied");
}

TEST_CASE("an error document without Code is refused") {
  CheckMalformed(ParseS3Error(500, "<Error><Message>x</Message></Error>"), "<Code> is missing");
}

TEST_CASE("an error code outside A-Z a-z 0-9 . _ - is refused") {
  CheckMalformed(ParseS3Error(500, "<Error><Code>No Such Key</Code></Error>"));
  CheckMalformed(ParseS3Error(500, "<Error><Code></Code></Error>"));
  CheckMalformed(ParseS3Error(500, "<Error><Code>" + std::string(129, 'A') +
                                       "</Code></Error>"));
}

TEST_CASE("the Resource of an error loses its query string") {
  absl::StatusOr<S3Error> error = ParseS3Error(
      403, "<Error><Code>AccessDenied</Code><Resource>/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
           "&amp;X-Amz-Credential=AKIDEXAMPLE%2F20240101&amp;X-Amz-Signature=abcdef"
           "</Resource></Error>");
  LAKE_REQUIRE_OK(error);
  CHECK(error->resource == "/b/k");
}

TEST_CASE("signing material in an error message is redacted") {
  absl::StatusOr<S3Error> error = ParseS3Error(
      403, "<Error><Code>AccessDenied</Code><Message>Request has expired: "
           "https://b.example/k?X-Amz-Signature=deadbeef and Signature=abc</Message></Error>");
  LAKE_REQUIRE_OK(error);
  CHECK(error->message == "Request has expired: [redacted] and [redacted]");
}

TEST_CASE("the echoed signing details of SignatureDoesNotMatch are never read") {
  std::string body =
      "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we "
      "calculated does not match the signature you provided.</Message>"
      "<AWSAccessKeyId>AKIAIOSFODNN7EXAMPLE</AWSAccessKeyId>"
      "<StringToSign>AWS4-HMAC-SHA256\n20240101T000000Z</StringToSign>"
      "<SignatureProvided>6d0f1e2c</SignatureProvided>"
      "<CanonicalRequest>GET\n/k\n</CanonicalRequest>"
      "<RequestId>R1</RequestId></Error>";
  absl::Status status = S3ErrorResponseStatus(403, body);
  CHECK(absl::IsPermissionDenied(status));
  std::string everything = status.ToString(absl::StatusToStringMode::kWithEverything);
  CHECK(everything.find("AKIAIOSFODNN7EXAMPLE") == std::string::npos);
  CHECK(everything.find("6d0f1e2c") == std::string::npos);
  CHECK(everything.find("AWS4-HMAC-SHA256") == std::string::npos);
}

TEST_CASE("the status of an S3 error names the code and request id and carries the error") {
  S3Error error = *ParseS3Error(404, ErrorDocument("NoSuchKey"));
  absl::Status status = S3ErrorStatus(error);
  CHECK(absl::IsNotFound(status));
  std::string message(status.message());
  CHECK(message.find("NoSuchKey") != std::string::npos);
  CHECK(message.find("4442587FB7D0A2F9") != std::string::npos);
  CHECK(message.find("HTTP 404") != std::string::npos);
  std::optional<S3Error> carried = GetS3Error(status);
  REQUIRE(carried.has_value());
  CHECK(*carried == error);
}

TEST_CASE("a status without the payload carries no S3 error") {
  CHECK(!GetS3Error(absl::NotFoundError("x")).has_value());
  CHECK(!GetS3Error(absl::OkStatus()).has_value());
  absl::Status forged = absl::NotFoundError("x");
  forged.SetPayload("type.lake.dev/S3Error", absl::Cord("404:3:abc"));
  CHECK(!GetS3Error(forged).has_value());
}

TEST_CASE("the payload carries any S3 error back exactly, with colons and odd statuses") {
  S3Error error{-7, "Code:With.Colons", "a:b:c\n", "", "host:0:", "/b/k:1"};
  std::optional<S3Error> carried = GetS3Error(S3ErrorStatus(error));
  REQUIRE(carried.has_value());
  CHECK(*carried == error);
}

TEST_CASE("S3 error codes map to statuses") {
  struct Case {
    const char* code;
    int http_status;
    absl::StatusCode expected;
  };
  const Case cases[] = {
      {"NoSuchKey", 404, absl::StatusCode::kNotFound},
      {"NoSuchBucket", 404, absl::StatusCode::kNotFound},
      {"NoSuchUpload", 404, absl::StatusCode::kNotFound},
      {"AccessDenied", 403, absl::StatusCode::kPermissionDenied},
      {"SignatureDoesNotMatch", 403, absl::StatusCode::kPermissionDenied},
      {"InvalidAccessKeyId", 403, absl::StatusCode::kPermissionDenied},
      {"PreconditionFailed", 412, absl::StatusCode::kFailedPrecondition},
      {"InvalidRange", 416, absl::StatusCode::kOutOfRange},
      {"InvalidArgument", 400, absl::StatusCode::kInvalidArgument},
      {"EntityTooSmall", 400, absl::StatusCode::kInvalidArgument},
      {"InvalidPart", 400, absl::StatusCode::kInvalidArgument},
      {"InvalidPartOrder", 400, absl::StatusCode::kInvalidArgument},
      {"XAmzContentSHA256Mismatch", 400, absl::StatusCode::kDataLoss},
      {"BadDigest", 400, absl::StatusCode::kDataLoss},
      {"SlowDown", 503, absl::StatusCode::kUnavailable},
      {"ServiceUnavailable", 503, absl::StatusCode::kUnavailable},
      {"InternalError", 500, absl::StatusCode::kUnavailable},
      {"InternalError", 200, absl::StatusCode::kUnavailable},
      {"RequestTimeout", 400, absl::StatusCode::kUnavailable},
      {"NotImplemented", 501, absl::StatusCode::kUnimplemented},
  };
  for (const Case& c : cases) {
    S3Error error;
    error.http_status = c.http_status;
    error.code = c.code;
    CHECK_MESSAGE(S3ErrorStatus(error).code() == c.expected, c.code);
  }
}

TEST_CASE("unknown S3 error codes map by HTTP status, any 5xx but 501 being retryable") {
  struct Case {
    int http_status;
    absl::StatusCode expected;
  };
  const Case cases[] = {
      {500, absl::StatusCode::kUnavailable}, {502, absl::StatusCode::kUnavailable},
      {503, absl::StatusCode::kUnavailable}, {599, absl::StatusCode::kUnavailable},
      {501, absl::StatusCode::kUnimplemented}, {429, absl::StatusCode::kUnavailable},
      {408, absl::StatusCode::kUnavailable}, {400, absl::StatusCode::kInvalidArgument},
      {401, absl::StatusCode::kUnauthenticated}, {403, absl::StatusCode::kPermissionDenied},
      {404, absl::StatusCode::kNotFound}, {405, absl::StatusCode::kUnimplemented},
      {409, absl::StatusCode::kAborted}, {411, absl::StatusCode::kInvalidArgument},
      {412, absl::StatusCode::kFailedPrecondition}, {416, absl::StatusCode::kOutOfRange},
      {301, absl::StatusCode::kFailedPrecondition}, {200, absl::StatusCode::kUnknown},
  };
  for (const Case& c : cases) {
    S3Error error;
    error.http_status = c.http_status;
    error.code = "SomethingNew";
    CHECK_MESSAGE(S3ErrorStatus(error).code() == c.expected, c.http_status);
  }
}

TEST_CASE("a failed response without an S3 error document maps by HTTP status") {
  absl::Status head_miss = S3ErrorResponseStatus(404, "");
  CHECK(absl::IsNotFound(head_miss));
  std::optional<S3Error> error = GetS3Error(head_miss);
  REQUIRE(error.has_value());
  CHECK(error->http_status == 404);
  CHECK(error->code.empty());
  CHECK(absl::IsUnavailable(
      S3ErrorResponseStatus(502, "<html><body>Bad Gateway</body></html>")));
  CHECK(absl::IsNotFound(S3ErrorResponseStatus(404, ErrorDocument("NoSuchKey"))));
}

TEST_CASE("the status of an S3 error never shows a query string, even from a hand-made error") {
  S3Error error;
  error.http_status = 403;
  error.code = "AccessDenied";
  error.resource = "/b/k?X-Amz-Signature=secret";
  error.message = "see X-Amz-Credential=AKID/2024";
  absl::Status status = S3ErrorStatus(error);
  std::string everything = status.ToString(absl::StatusToStringMode::kWithEverything);
  CHECK(everything.find("secret") == std::string::npos);
  CHECK(everything.find("AKID") == std::string::npos);
  CHECK(GetS3Error(status)->resource == "/b/k");
}

TEST_CASE("the status message of an S3 error is printable and bounded") {
  S3Error error;
  error.http_status = 500;
  error.code = "InternalError";
  for (const std::string& text :
       {std::string(10000, 'x'), "\r\nInjected: 1\x1b[31m" + std::string(10000, '\x01')}) {
    error.message = text;
    error.request_id = text;
    error.resource = text;
    std::string message(S3ErrorStatus(error).message());
    CHECK(message.size() < 1200);
    for (char c : message) CHECK((c >= 0x20 && c < 0x7F));
  }
}

// --- InitiateMultipartUploadResult ---------------------------------------------

TEST_CASE("InitiateMultipartUploadResult gives the upload id, bucket and key") {
  absl::StatusOr<InitiateMultipartUploadResult> result =
      ParseInitiateMultipartUploadResult(
          InitiateDocument(kNs, "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA"));
  LAKE_REQUIRE_OK(result);
  CHECK(result->upload_id == "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA");
  CHECK(result->bucket == "example-bucket");
  CHECK(result->key == "videos/episode.mp4");
}

TEST_CASE("InitiateMultipartUploadResult without a namespace parses") {
  absl::StatusOr<InitiateMultipartUploadResult> result =
      ParseInitiateMultipartUploadResult(InitiateDocument("", "2~abcDEF_-.xyz"));
  LAKE_REQUIRE_OK(result);
  CHECK(result->upload_id == "2~abcDEF_-.xyz");
}

TEST_CASE("InitiateMultipartUploadResult with a prefixed S3 namespace parses") {
  absl::StatusOr<InitiateMultipartUploadResult> result =
      ParseInitiateMultipartUploadResult(
          "<s3:InitiateMultipartUploadResult xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
          "<s3:UploadId>u1</s3:UploadId></s3:InitiateMultipartUploadResult>");
  LAKE_REQUIRE_OK(result);
  CHECK(result->upload_id == "u1");
}

TEST_CASE("InitiateMultipartUploadResult without UploadId is refused") {
  CheckMalformed(ParseInitiateMultipartUploadResult(
                     "<InitiateMultipartUploadResult" + kNs +
                     "><Bucket>b</Bucket><Key>k</Key></InitiateMultipartUploadResult>"),
                 "<UploadId> is missing");
}

TEST_CASE("an UploadId that is empty, too long or holds spaces or controls is refused") {
  CheckMalformed(ParseInitiateMultipartUploadResult(InitiateDocument(kNs, "")));
  CheckMalformed(ParseInitiateMultipartUploadResult(InitiateDocument(kNs, "a b")));
  CheckMalformed(ParseInitiateMultipartUploadResult(InitiateDocument(kNs, "a&#9;b")));
  CheckMalformed(ParseInitiateMultipartUploadResult(InitiateDocument(kNs, "\xC3\xA9")));
  CheckMalformed(
      ParseInitiateMultipartUploadResult(InitiateDocument(kNs, std::string(1025, 'u'))));
}

TEST_CASE("elements of another namespace are not S3's") {
  // The root in another namespace: not the document asked for.
  CheckMalformed(ParseInitiateMultipartUploadResult(
                     "<InitiateMultipartUploadResult xmlns=\"urn:evil\">"
                     "<UploadId>u1</UploadId></InitiateMultipartUploadResult>"),
                 "unexpected root element");
  // A field in another namespace: unknown, so UploadId is missing.
  CheckMalformed(ParseInitiateMultipartUploadResult(
                     "<InitiateMultipartUploadResult xmlns:e=\"urn:evil\">"
                     "<e:UploadId>u1</e:UploadId></InitiateMultipartUploadResult>"),
                 "<UploadId> is missing");
}

TEST_CASE("another document than the one expected is refused") {
  CheckMalformed(ParseInitiateMultipartUploadResult(ListPartsWithParts("")),
                 "unexpected root element <ListPartsResult>");
}

// --- ListPartsResult -----------------------------------------------------------

TEST_CASE("ListPartsResult gives the parts, the markers and the upload id") {
  std::string body = ListPartsDocument(
      kNs,
      kUploadIdElement +
          "  <PartNumberMarker>1</PartNumberMarker>\n"
          "  <NextPartNumberMarker>3</NextPartNumberMarker>\n"
          "  <IsTruncated>true</IsTruncated>\n",
      PartElement("2", "10485760") +
          PartElement("3", "5242880", "\"aaaa18db4cc2f85cedef654fccc4a4a8\""));
  absl::StatusOr<ListPartsResult> result = ParseListPartsResult(body);
  LAKE_REQUIRE_OK(result);
  CHECK(result->upload_id == "XXBsb2FkIElEIGZvciBlbHZpbmcncyVcdS1tb3ZpZS5tMnRzEEEwbG9hZA");
  CHECK(result->bucket == "example-bucket");
  CHECK(result->key == "example-object");
  CHECK(result->part_number_marker == 1);
  CHECK(result->next_part_number_marker == 3);
  CHECK(result->is_truncated);
  REQUIRE(result->parts.size() == 2);
  CHECK(result->parts[0] == ListedPart{2, kPartETag, 10485760, kNov10Micros});
  CHECK(result->parts[1].part_number == 3);
  CHECK(result->parts[1].etag.hex == "aaaa18db4cc2f85cedef654fccc4a4a8");
  CHECK(result->parts[1].size_bytes == 5242880);
}

TEST_CASE("ListPartsResult without a namespace and without parts parses") {
  absl::StatusOr<ListPartsResult> result = ParseListPartsResult(
      ListPartsDocument("", kUploadIdElement + "<IsTruncated>false</IsTruncated>", ""));
  LAKE_REQUIRE_OK(result);
  CHECK(result->parts.empty());
  CHECK(!result->is_truncated);
  CHECK(result->part_number_marker == 0);
}

TEST_CASE("ListPartsResult without UploadId is refused") {
  CheckMalformed(ParseListPartsResult(ListPartsDocument(
                     kNs, "<IsTruncated>false</IsTruncated>", PartElement("1", "5"))),
                 "<UploadId> is missing");
}

TEST_CASE("ListPartsResult without IsTruncated is refused") {
  CheckMalformed(ParseListPartsResult(ListPartsDocument(kNs, kUploadIdElement, "")),
                 "<IsTruncated> is missing");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts("", "<IsTruncated>yes</IsTruncated>")),
                 "<IsTruncated>");
}

TEST_CASE("part numbers 0 and 10001 are refused") {
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(PartElement("0", "5"))),
                 "<PartNumber>");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(PartElement("10001", "5"))),
                 "<PartNumber>");
  LAKE_CHECK_OK(ParseListPartsResult(ListPartsWithParts(PartElement("10000", "5"))));
}

TEST_CASE("non-numeric, signed and oversize part sizes are refused") {
  for (const char* size : {"", "abc", "-5", "+5", " 5", "5.0", "5368709121",
                           "99999999999999999999999"}) {
    CheckMalformed(ParseListPartsResult(ListPartsWithParts(PartElement("1", size))),
                   "<Size>");
  }
  LAKE_CHECK_OK(ParseListPartsResult(ListPartsWithParts(PartElement("1", "5368709120"))));
}

TEST_CASE("a part without ETag, Size or LastModified, or with an invalid ETag, is refused") {
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(
                     "<Part><PartNumber>1</PartNumber><Size>5</Size>"
                     "<LastModified>2010-11-10T20:48:34.000Z</LastModified></Part>")),
                 "Part[1]: <ETag> is missing");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(
                     "<Part><PartNumber>1</PartNumber><ETag>\"7778aef83f66abc1fa1e8477f296d394\"</ETag>"
                     "<LastModified>2010-11-10T20:48:34.000Z</LastModified></Part>")),
                 "<Size> is missing");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(
                     "<Part><PartNumber>1</PartNumber><ETag>\"7778aef83f66abc1fa1e8477f296d394\"</ETag>"
                     "<Size>5</Size></Part>")),
                 "<LastModified> is missing");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(PartElement("1", "5", "\"xyz\""))),
                 "<ETag>");
}

TEST_CASE("parts that do not ascend, or repeat, are refused") {
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(PartElement("2", "5") +
                                                         PartElement("1", "5"))),
                 "must ascend");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(PartElement("2", "5") +
                                                         PartElement("2", "5"))),
                 "must ascend");
}

TEST_CASE("parts at or below PartNumberMarker are refused") {
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(
                     PartElement("3", "5"),
                     "<PartNumberMarker>3</PartNumberMarker><IsTruncated>false</IsTruncated>")),
                 "must ascend");
}

TEST_CASE("a truncated part listing must name a next marker that advances") {
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(
                     PartElement("1", "5"), "<IsTruncated>true</IsTruncated>")),
                 "<NextPartNumberMarker> is missing");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(
                     PartElement("4", "5"),
                     "<PartNumberMarker>3</PartNumberMarker>"
                     "<NextPartNumberMarker>3</NextPartNumberMarker>"
                     "<IsTruncated>true</IsTruncated>")),
                 "does not advance");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(
                     PartElement("1", "5") + PartElement("2", "5"),
                     "<NextPartNumberMarker>1</NextPartNumberMarker>"
                     "<IsTruncated>true</IsTruncated>")),
                 "does not advance");
}

// --- ListBucketResult (ListObjectsV2) --------------------------------------------

TEST_CASE("ListObjectsV2 gives keys, sizes, ETags and times in microseconds") {
  std::string body = ListBucketDocument(
      kNs, "<Prefix></Prefix><KeyCount>2</KeyCount><IsTruncated>false</IsTruncated>",
      ContentsElement("my-image.jpg") +
          ContentsElement("my-third-image.jpg", "64994",
                          "&quot;1b2cf535f27731c974343645a3985328-3&quot;"));
  absl::StatusOr<ListObjectsV2Result> result =
      ParseListObjectsV2Result(body, KeyEncoding::kNone);
  LAKE_REQUIRE_OK(result);
  CHECK(result->bucket == "example-bucket");
  CHECK(result->prefix.empty());
  CHECK(result->key_count == 2);
  CHECK(!result->is_truncated);
  REQUIRE(result->contents.size() == 2);
  CHECK(result->contents[0] ==
        ListedObject{"my-image.jpg", 434234,
                     ETag{"fba9dede5f27731c9771645a39863328", std::nullopt},
                     int64_t{1255369830} * 1000000});
  CHECK(result->contents[1].size_bytes == 64994);
  CHECK(result->contents[1].etag.part_count == 3);
}

TEST_CASE("ListObjectsV2 without a namespace parses") {
  absl::StatusOr<ListObjectsV2Result> result = ParseListObjectsV2Result(
      ListBucketDocument("", "<IsTruncated>false</IsTruncated>", ContentsElement("a")),
      KeyEncoding::kNone);
  LAKE_REQUIRE_OK(result);
  REQUIRE(result->contents.size() == 1);
  CHECK(result->contents[0].key == "a");
}

TEST_CASE("ListObjectsV2 keys are unescaped XML and may hold any UTF-8, spaces and '&'") {
  std::string body = ListBucketDocument(
      kNs, "<IsTruncated>false</IsTruncated>",
      ContentsElement("caf\xC3\xA9 &amp; cr\xC3\xA8me/\xE6\x97\xA5\xE6\x9C\xAC &lt;1&gt; "
                      "&#x1F600;  ") +
          ContentsElement("<![CDATA[a&b <c>]]>") + ContentsElement(" lead"));
  absl::StatusOr<ListObjectsV2Result> result =
      ParseListObjectsV2Result(body, KeyEncoding::kNone);
  LAKE_REQUIRE_OK(result);
  REQUIRE(result->contents.size() == 3);
  CHECK(result->contents[0].key ==
        "caf\xC3\xA9 & cr\xC3\xA8me/\xE6\x97\xA5\xE6\x9C\xAC <1> \xF0\x9F\x98\x80  ");
  CHECK(result->contents[1].key == "a&b <c>");
  CHECK(result->contents[2].key == " lead");
}

TEST_CASE("url-encoded listings are decoded when encoding-type=url was asked") {
  std::string body = ListBucketDocument(
      kNs,
      "<Prefix>photos%2F2024+%26+more%2F</Prefix><EncodingType>url</EncodingType>"
      "<IsTruncated>false</IsTruncated>",
      ContentsElement("photos/2024+%26+more/caf%C3%A9+%2B1%25.jpg") +
          "<CommonPrefixes><Prefix>photos/2024+%26+more/sub%20dir/</Prefix></CommonPrefixes>");
  absl::StatusOr<ListObjectsV2Result> result =
      ParseListObjectsV2Result(body, KeyEncoding::kUrl);
  LAKE_REQUIRE_OK(result);
  CHECK(result->prefix == "photos/2024 & more/");
  REQUIRE(result->contents.size() == 1);
  CHECK(result->contents[0].key == "photos/2024 & more/caf\xC3\xA9 +1%.jpg");
  REQUIRE(result->common_prefixes.size() == 1);
  CHECK(result->common_prefixes[0] == "photos/2024 & more/sub dir/");
}

TEST_CASE("a listing whose encoding is not the one asked for is refused") {
  std::string encoded = ListBucketDocument(
      kNs, "<EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>",
      ContentsElement("a%20b"));
  std::string plain =
      ListBucketDocument(kNs, "<IsTruncated>false</IsTruncated>", ContentsElement("a%20b"));
  CheckMalformed(ParseListObjectsV2Result(encoded, KeyEncoding::kNone), "<EncodingType>");
  CheckMalformed(ParseListObjectsV2Result(plain, KeyEncoding::kUrl), "<EncodingType>");
  CHECK(ParseListObjectsV2Result(plain, KeyEncoding::kNone)->contents[0].key == "a%20b");
}

TEST_CASE("url-encoded keys with bad escapes, invalid UTF-8 or NUL are refused") {
  for (const char* key : {"a%2", "a%zz", "a%", "%C3", "%C0%AF", "%ED%A0%80", "a%00b"}) {
    CheckMalformed(ParseListObjectsV2Result(
                       ListBucketDocument(kNs,
                                          "<EncodingType>url</EncodingType>"
                                          "<IsTruncated>false</IsTruncated>",
                                          ContentsElement(key)),
                       KeyEncoding::kUrl),
                   "<Key>");
  }
}

TEST_CASE("empty and over-long keys are refused") {
  CheckMalformed(ParseListObjectsV2Result(
                     ListBucketDocument(kNs, "<IsTruncated>false</IsTruncated>",
                                        ContentsElement("")),
                     KeyEncoding::kNone),
                 "<Key> is empty");
  CheckMalformed(ParseListObjectsV2Result(
                     ListBucketDocument(kNs, "<IsTruncated>false</IsTruncated>",
                                        ContentsElement(std::string(1025, 'k'))),
                     KeyEncoding::kNone),
                 "<Key> is longer");
  LAKE_CHECK_OK(ParseListObjectsV2Result(
      ListBucketDocument(kNs, "<IsTruncated>false</IsTruncated>",
                         ContentsElement(std::string(1024, 'k'))),
      KeyEncoding::kNone));
}

TEST_CASE("a truncated object listing must carry a continuation token") {
  absl::StatusOr<ListObjectsV2Result> result = ParseListObjectsV2Result(
      ListBucketDocument(kNs,
                         "<IsTruncated>true</IsTruncated>"
                         "<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM="
                         "</NextContinuationToken>",
                         ContentsElement("a")),
      KeyEncoding::kNone);
  LAKE_REQUIRE_OK(result);
  CHECK(result->is_truncated);
  CHECK(result->next_continuation_token == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
  CheckMalformed(ParseListObjectsV2Result(
                     ListBucketDocument(kNs, "<IsTruncated>true</IsTruncated>",
                                        ContentsElement("a")),
                     KeyEncoding::kNone),
                 "<NextContinuationToken> is missing");
  CheckMalformed(ParseListObjectsV2Result(
                     ListBucketDocument(kNs,
                                        "<IsTruncated>true</IsTruncated>"
                                        "<NextContinuationToken></NextContinuationToken>",
                                        ContentsElement("a")),
                     KeyEncoding::kNone),
                 "<NextContinuationToken> is empty");
}

TEST_CASE("an object without Size, or with a non-numeric size, is refused") {
  CheckMalformed(ParseListObjectsV2Result(
                     ListBucketDocument(kNs, "<IsTruncated>false</IsTruncated>",
                                        "<Contents><Key>a</Key><ETag>\"fba9dede5f27731c9771645a39863328\"</ETag>"
                                        "<LastModified>2009-10-12T17:50:30.000Z</LastModified></Contents>"),
                     KeyEncoding::kNone),
                 "Contents[1]: <Size> is missing");
  CheckMalformed(ParseListObjectsV2Result(
                     ListBucketDocument(kNs, "<IsTruncated>false</IsTruncated>",
                                        ContentsElement("a", "12kB")),
                     KeyEncoding::kNone),
                 "<Size>");
  CheckMalformed(ParseListObjectsV2Result(
                     ListBucketDocument(kNs, "<IsTruncated>false</IsTruncated>",
                                        ContentsElement("a", "9223372036854775808")),
                     KeyEncoding::kNone),
                 "<Size>");
}

TEST_CASE("unknown elements are ignored with everything inside them") {
  std::string body = ListBucketDocument(
      kNs,
      "<IsTruncated>false</IsTruncated><Future><IsTruncated>true</IsTruncated>"
      "<Contents><Key>hidden</Key></Contents></Future><ContinuationToken>x</ContinuationToken>",
      ContentsElement("a") + "<?lake processing-instruction?><!-- a comment -->");
  absl::StatusOr<ListObjectsV2Result> result =
      ParseListObjectsV2Result(body, KeyEncoding::kNone);
  LAKE_REQUIRE_OK(result);
  CHECK(!result->is_truncated);
  REQUIRE(result->contents.size() == 1);
  CHECK(result->contents[0].key == "a");
}

// --- CompleteMultipartUploadResult -------------------------------------------------

TEST_CASE("CompleteMultipartUploadResult gives location, bucket, key and ETag") {
  absl::StatusOr<CompleteMultipartUploadResult> result =
      ParseCompleteMultipartUploadResult(
          std::string(kXmlDeclaration) + "<CompleteMultipartUploadResult" + kNs + ">"
          "<Location>http://example-bucket.s3.us-east-1.amazonaws.com/videos/episode.mp4</Location>"
          "<Bucket>example-bucket</Bucket><Key>videos/episode.mp4</Key>"
          "<ETag>\"3858f62230ac3c915f300c664312c11f-9\"</ETag>"
          "</CompleteMultipartUploadResult>");
  LAKE_REQUIRE_OK(result);
  CHECK(result->location ==
        "http://example-bucket.s3.us-east-1.amazonaws.com/videos/episode.mp4");
  CHECK(result->bucket == "example-bucket");
  CHECK(result->key == "videos/episode.mp4");
  REQUIRE(result->etag.has_value());
  CHECK(*result->etag == ETag{"3858f62230ac3c915f300c664312c11f", 9});
}

TEST_CASE("CompleteMultipartUploadResult from RGW with an empty ETag parses without one") {
  absl::StatusOr<CompleteMultipartUploadResult> result =
      ParseCompleteMultipartUploadResult(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUploadResult" + kNs +
          "><Location>http://127.0.0.1:7480/lake/k</Location><Bucket>lake</Bucket>"
          "<Key>k</Key><ETag></ETag></CompleteMultipartUploadResult>");
  LAKE_REQUIRE_OK(result);
  CHECK(result->bucket == "lake");
  CHECK(!result->etag.has_value());
  absl::StatusOr<CompleteMultipartUploadResult> no_etag =
      ParseCompleteMultipartUploadResult(
          "<CompleteMultipartUploadResult><Bucket>lake</Bucket><Key>k</Key>"
          "<ETag/></CompleteMultipartUploadResult>");
  LAKE_REQUIRE_OK(no_etag);
  CHECK(!no_etag->etag.has_value());
}

TEST_CASE("CompleteMultipartUploadResult with an invalid non-empty ETag, or without Key, is refused") {
  CheckMalformed(ParseCompleteMultipartUploadResult(
                     "<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
                     "<ETag>\"nothex\"</ETag></CompleteMultipartUploadResult>"),
                 "<ETag>");
  CheckMalformed(ParseCompleteMultipartUploadResult(
                     "<CompleteMultipartUploadResult><Bucket>b</Bucket>"
                     "</CompleteMultipartUploadResult>"),
                 "<Key> is missing");
}

TEST_CASE("an Error document in a 200 CompleteMultipartUpload response is the typed S3 error") {
  absl::StatusOr<CompleteMultipartUploadResult> result =
      ParseCompleteMultipartUploadResult(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InternalError</Code>"
          "<Message>We encountered an internal error. Please try again.</Message>"
          "<RequestId>656c76696e6727732072657175657374</RequestId>"
          "<HostId>Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7/C1NPcfTWAtRPfTaOFg==</HostId></Error>");
  REQUIRE(!result.ok());
  CHECK(absl::IsUnavailable(result.status()));
  CHECK(!IsMalformedResponse(result.status()));
  std::optional<S3Error> error = GetS3Error(result.status());
  REQUIRE(error.has_value());
  CHECK(error->http_status == 200);
  CHECK(error->code == "InternalError");
  CHECK(error->request_id == "656c76696e6727732072657175657374");
}

TEST_CASE("keep-alive whitespace before the document is skipped") {
  std::string spaces(4096, ' ');
  absl::StatusOr<CompleteMultipartUploadResult> result =
      ParseCompleteMultipartUploadResult(
          spaces + "\n" + std::string(kXmlDeclaration) +
          "<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
          "</CompleteMultipartUploadResult>");
  LAKE_CHECK_OK(result);
  absl::StatusOr<CompleteMultipartUploadResult> error =
      ParseCompleteMultipartUploadResult(spaces + ErrorDocument("SlowDown"));
  CHECK(GetS3Error(error.status())->code == "SlowDown");
}

TEST_CASE("every success parser returns an Error document as the typed S3 error") {
  std::string body = ErrorDocument("NoSuchUpload");
  CHECK(absl::IsNotFound(ParseInitiateMultipartUploadResult(body).status()));
  CHECK(absl::IsNotFound(ParseListPartsResult(body).status()));
  CHECK(absl::IsNotFound(ParseListObjectsV2Result(body, KeyEncoding::kNone).status()));
  CHECK(GetS3Error(ParseListPartsResult(body).status())->code == "NoSuchUpload");
}

TEST_CASE("an Error document without Code in a 200 is malformed, not a success") {
  CheckMalformed(ParseCompleteMultipartUploadResult("<Error><Message>m</Message></Error>"),
                 "<Code> is missing");
}

// --- The CompleteMultipartUpload request body -------------------------------------

TEST_CASE("the CompleteMultipartUpload body lists the parts in order with quoted ETags") {
  std::vector<CompletedPart> parts = {
      {1, ETag{"a54357aff0632cce46d942af68356b38", std::nullopt}},
      {2, ETag{"0c78aef83f66abc1fa1e8477f296d394", std::nullopt}},
      {5, ETag{"acbd18db4cc2f85cedef654fccc4a4d8", std::nullopt}},
  };
  absl::StatusOr<std::string> body = SerializeCompleteMultipartUpload(parts);
  LAKE_REQUIRE_OK(body);
  CHECK(*body ==
        "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Part><PartNumber>1</PartNumber><ETag>\"a54357aff0632cce46d942af68356b38\"</ETag></Part>"
        "<Part><PartNumber>2</PartNumber><ETag>\"0c78aef83f66abc1fa1e8477f296d394\"</ETag></Part>"
        "<Part><PartNumber>5</PartNumber><ETag>\"acbd18db4cc2f85cedef654fccc4a4d8\"</ETag></Part>"
        "</CompleteMultipartUpload>");
}

TEST_CASE("the CompleteMultipartUpload body parses back to the same parts") {
  std::vector<CompletedPart> parts = {{1, kPartETag},
                                      {10000, ETag{"065947336a2f2a95ba8899f3675c3be6", 2}}};
  absl::StatusOr<std::vector<CompletedPart>> parsed =
      ParseCompleteMultipartUpload(*SerializeCompleteMultipartUpload(parts));
  LAKE_REQUIRE_OK(parsed);
  CHECK(*parsed == parts);
  // The S3 API reference's form, with &quot; escapes and whitespace, too.
  parsed = ParseCompleteMultipartUpload(
      "<CompleteMultipartUpload>\n  <Part>\n    <PartNumber>1</PartNumber>\n"
      "    <ETag>&quot;7778aef83f66abc1fa1e8477f296d394&quot;</ETag>\n  </Part>\n"
      "</CompleteMultipartUpload>");
  LAKE_REQUIRE_OK(parsed);
  CHECK(*parsed == std::vector<CompletedPart>{{1, kPartETag}});
}

TEST_CASE("the CompleteMultipartUpload serializer refuses unsorted, duplicate, empty or out-of-range parts") {
  CHECK(absl::IsInvalidArgument(SerializeCompleteMultipartUpload({}).status()));
  std::vector<std::vector<CompletedPart>> refused = {
      {{2, kPartETag}, {1, kPartETag}},
      {{1, kPartETag}, {1, kPartETag}},
      {{0, kPartETag}},
      {{10001, kPartETag}},
      {{-1, kPartETag}},
      {{1, ETag{"NOTHEX", std::nullopt}}},
      {{1, ETag{"7778aef83f66abc1fa1e8477f296d394", 0}}},
  };
  for (const std::vector<CompletedPart>& parts : refused) {
    absl::StatusOr<std::string> body = SerializeCompleteMultipartUpload(parts);
    CHECK(absl::IsInvalidArgument(body.status()));
    CHECK(!IsMalformedResponse(body.status()));
  }
}

// --- Hostile documents -------------------------------------------------------------

TEST_CASE("truncated XML is refused") {
  std::string body = ListPartsWithParts(PartElement("1", "5"));
  for (size_t cut : {size_t{0}, size_t{10}, body.size() / 2, body.size() - 2}) {
    CheckMalformed(ParseListPartsResult(body.substr(0, cut)));
  }
  CheckMalformed(ParseS3Error(500, ""), "XML error");
}

TEST_CASE("a DOCTYPE is refused, with or without entity definitions") {
  std::string laughs =
      "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
      "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
      "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]>"
      "<Error><Code>&lol3;</Code></Error>";
  CheckMalformed(ParseS3Error(500, laughs), "DOCTYPE");
  CheckMalformed(ParseS3Error(500, "<!DOCTYPE Error><Error><Code>X</Code></Error>"),
                 "DOCTYPE");
  CheckMalformed(ParseInitiateMultipartUploadResult(
                     "<!DOCTYPE r [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>"
                     "<InitiateMultipartUploadResult><UploadId>&xxe;</UploadId>"
                     "</InitiateMultipartUploadResult>"),
                 "DOCTYPE");
}

TEST_CASE("an undefined entity reference is refused") {
  CheckMalformed(ParseS3Error(500, "<Error><Code>&xxe;</Code></Error>"), "XML error");
}

TEST_CASE("a body over 16 MiB is refused unread") {
  std::string body = ErrorDocument("NoSuchKey");
  body += std::string(kMaxResponseBodyBytes + 1 - body.size(), ' ');
  absl::StatusOr<S3Error> error = ParseS3Error(404, body);
  CHECK(absl::IsResourceExhausted(error.status()));
  CHECK(IsMalformedResponse(error.status()));
  body.pop_back();  // exactly the limit: trailing whitespace is allowed
  LAKE_CHECK_OK(ParseS3Error(404, body));
}

TEST_CASE("elements nested deeper than the limit are refused, even unknown ones") {
  std::string open, close;
  for (int i = 0; i < kMaxXmlDepth; ++i) {
    open += "<x>";
    close = "</x>" + close;
  }
  // Root + kMaxXmlDepth - 1 levels is fine; one more is refused.
  std::string inner_ok = open.substr(3) + close.substr(4);
  LAKE_CHECK_OK(ParseS3Error(500, "<Error><Code>C</Code>" + inner_ok + "</Error>"));
  CheckMalformed(ParseS3Error(500, "<Error><Code>C</Code>" + open + close + "</Error>"),
                 "nest deeper");
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<x>";
  CheckMalformed(ParseS3Error(500, "<Error>" + deep), "nest deeper");
}

TEST_CASE("more than 10000 entries are refused") {
  std::string parts;
  for (int i = 1; i <= 10000; ++i) parts += PartElement(std::to_string(i), "5");
  LAKE_CHECK_OK(ParseListPartsResult(ListPartsWithParts(parts)));
  parts += PartElement("10001", "5");
  CheckMalformed(ParseListPartsResult(ListPartsWithParts(parts)), "more than 10000 entries");
}

TEST_CASE("a field read twice, or holding elements, is refused") {
  CheckMalformed(ParseS3Error(500, "<Error><Code>A</Code><Code>B</Code></Error>"),
                 "appears twice");
  CheckMalformed(ParseS3Error(500, "<Error><Code>A<b/></Code></Error>"),
                 "inside the text field <Code>");
}

TEST_CASE("junk after the document and a second root are refused") {
  CheckMalformed(ParseS3Error(500, ErrorDocument("A") + "<Error/>"), "XML error");
  CheckMalformed(ParseS3Error(500, ErrorDocument("A") + "junk"), "XML error");
}

TEST_CASE("a document declaring another encoding is still read as UTF-8") {
  // UTF-16 text cannot be UTF-8: refused rather than transcoded.
  const char utf16_bytes[] = "\xFF\xFE<\0E\0r\0r\0o\0r\0/\0>\0";
  std::string utf16(utf16_bytes, sizeof(utf16_bytes) - 1);
  CheckMalformed(ParseS3Error(500, utf16));
  // A Latin-1 declaration over UTF-8 bytes: the bytes are taken as UTF-8.
  absl::StatusOr<S3Error> error = ParseS3Error(
      500, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Error><Code>C</Code>"
           "<Message>caf\xC3\xA9</Message></Error>");
  LAKE_REQUIRE_OK(error);
  CHECK(error->message == "caf\xC3\xA9");
}

// ---- DeleteObjects ----

TEST_CASE("a DeleteObjects body is quiet, escaped, and parses back to its keys") {
  std::vector<std::string> keys = {"p/objects/01/a", "p/a&b<c>", "p/x\ry"};
  absl::StatusOr<std::string> body = SerializeDeleteObjects(keys);
  LAKE_REQUIRE_OK(body);
  CHECK(*body ==
        "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>"
        "<Object><Key>p/objects/01/a</Key></Object>"
        "<Object><Key>p/a&amp;b&lt;c&gt;</Key></Object>"
        "<Object><Key>p/x&#13;y</Key></Object></Delete>");
  absl::StatusOr<std::vector<std::string>> back = ParseDeleteObjectsRequest(*body);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == keys);
}

TEST_CASE("a DeleteObjects body refuses no keys, too many, and keys XML cannot carry") {
  CHECK(absl::IsInvalidArgument(SerializeDeleteObjects({}).status()));
  std::vector<std::string> many(kMaxDeleteObjectsKeys + 1, "k");
  CHECK(absl::IsInvalidArgument(SerializeDeleteObjects(many).status()));
  many.pop_back();
  LAKE_CHECK_OK(SerializeDeleteObjects(many));
  for (std::string bad : {std::string(""), std::string("a\x01" "b"), std::string("\xff"),
                          std::string(kMaxKeyBytes + 1, 'k')}) {
    std::vector<std::string> one = {bad};
    CHECK(absl::IsInvalidArgument(SerializeDeleteObjects(one).status()));
  }
}

TEST_CASE("a DeleteObjects answer gives the keys deleted and the keys that failed") {
  absl::StatusOr<DeleteObjectsResult> result = ParseDeleteObjectsResult(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
      "<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Deleted><Key>a</Key></Deleted>"
      "<Error><Key>b&amp;c</Key><Code>AccessDenied</Code><Message>no</Message></Error>"
      "<Error><Key>d</Key><Code>InternalError</Code></Error>"
      "</DeleteResult>");
  LAKE_REQUIRE_OK(result);
  CHECK(result->deleted == std::vector<std::string>{"a"});
  REQUIRE(result->failures.size() == 2);
  CHECK(result->failures[0] == DeleteObjectsFailure{"b&c", "AccessDenied", "no"});
  CHECK(result->failures[1] == DeleteObjectsFailure{"d", "InternalError", ""});
  // Quiet mode with nothing failed: an empty result.
  absl::StatusOr<DeleteObjectsResult> quiet = ParseDeleteObjectsResult("<DeleteResult/>");
  LAKE_REQUIRE_OK(quiet);
  CHECK(quiet->deleted.empty());
  CHECK(quiet->failures.empty());
}

TEST_CASE("a DeleteObjects answer missing a failure's code, or an <Error> instead, is refused") {
  CheckMalformed(ParseDeleteObjectsResult(
      "<DeleteResult><Error><Key>b</Key></Error></DeleteResult>"));
  CheckMalformed(ParseDeleteObjectsResult(
      "<DeleteResult><Error><Key>b</Key><Code>bad code!</Code></Error></DeleteResult>"));
  absl::StatusOr<DeleteObjectsResult> error =
      ParseDeleteObjectsResult("<Error><Code>SlowDown</Code></Error>");
  CHECK(absl::IsUnavailable(error.status()));
  CHECK(GetS3Error(error.status()).has_value());
}

// --- ListMultipartUploadsResult ------------------------------------------------

std::string UploadElement(const std::string& key, const std::string& upload_id,
                          const std::string& initiated = "2010-11-10T20:48:34.000Z") {
  return "<Upload><Key>" + key + "</Key><UploadId>" + upload_id + "</UploadId>"
         "<Initiator><ID>arn:aws:iam::111122223333:user/u</ID><DisplayName>u</DisplayName>"
         "</Initiator><Owner><ID>o</ID><DisplayName>o</DisplayName></Owner>"
         "<StorageClass>STANDARD</StorageClass><Initiated>" + initiated + "</Initiated></Upload>";
}

std::string UploadsDocument(const std::string& ns, const std::string& head,
                            const std::string& uploads) {
  return std::string(kXmlDeclaration) + "<ListMultipartUploadsResult" + ns + ">" +
         "<Bucket>example-bucket</Bucket>" + head + "<MaxUploads>1000</MaxUploads>" + uploads +
         "</ListMultipartUploadsResult>";
}

TEST_CASE("ListMultipartUploadsResult gives the uploads, the markers and the common prefixes") {
  std::string body = UploadsDocument(
      kNs,
      "<KeyMarker>stage/a</KeyMarker><UploadIdMarker>2~prev</UploadIdMarker>"
      "<NextKeyMarker>stage/c</NextKeyMarker><NextUploadIdMarker>2~next</NextUploadIdMarker>"
      "<Prefix>stage/</Prefix><IsTruncated>true</IsTruncated>",
      UploadElement("stage/a", "2~later") + UploadElement("stage/b &amp; c", "2~x") +
          UploadElement("stage/c", "2~next") +
          "<CommonPrefixes><Prefix>stage/d/</Prefix></CommonPrefixes>");
  absl::StatusOr<ListMultipartUploadsResult> result = ParseListMultipartUploadsResult(body);
  LAKE_REQUIRE_OK(result);
  CHECK(result->bucket == "example-bucket");
  CHECK(result->prefix == "stage/");
  CHECK(result->key_marker == "stage/a");
  CHECK(result->upload_id_marker == "2~prev");
  CHECK(result->is_truncated);
  CHECK(result->next_key_marker == "stage/c");
  CHECK(result->next_upload_id_marker == "2~next");
  REQUIRE(result->uploads.size() == 3);
  CHECK(result->uploads[0] == ListedMultipartUpload{"stage/a", "2~later", kNov10Micros});
  CHECK(result->uploads[1].key == "stage/b & c");
  CHECK(result->uploads[2].upload_id == "2~next");
  CHECK(result->common_prefixes == std::vector<std::string>{"stage/d/"});
}

TEST_CASE("ListMultipartUploadsResult from RGW, empty and untruncated, parses") {
  // What RGW answers for a prefix without uploads.
  absl::StatusOr<ListMultipartUploadsResult> result = ParseListMultipartUploadsResult(
      UploadsDocument(kNs,
                      "<KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker>"
                      "<NextKeyMarker></NextKeyMarker><NextUploadIdMarker></NextUploadIdMarker>"
                      "<Prefix>p/</Prefix><IsTruncated>false</IsTruncated>",
                      ""));
  LAKE_REQUIRE_OK(result);
  CHECK(result->uploads.empty());
  CHECK(!result->is_truncated);
  CHECK(result->next_key_marker.empty());
}

TEST_CASE("a truncated upload listing must name markers that advance") {
  CheckMalformed(ParseListMultipartUploadsResult(UploadsDocument(
                     kNs, "<IsTruncated>true</IsTruncated>", UploadElement("k", "u"))),
                 "<NextKeyMarker> is missing");
  CheckMalformed(ParseListMultipartUploadsResult(UploadsDocument(
                     kNs,
                     "<KeyMarker>k</KeyMarker><UploadIdMarker>u</UploadIdMarker>"
                     "<NextKeyMarker>k</NextKeyMarker><NextUploadIdMarker>u</NextUploadIdMarker>"
                     "<IsTruncated>true</IsTruncated>",
                     "")),
                 "do not advance");
  LAKE_CHECK_OK(ParseListMultipartUploadsResult(UploadsDocument(
      kNs,
      "<KeyMarker>k</KeyMarker><UploadIdMarker>u</UploadIdMarker>"
      "<NextKeyMarker>k</NextKeyMarker><NextUploadIdMarker>v</NextUploadIdMarker>"
      "<IsTruncated>true</IsTruncated>",
      UploadElement("k", "v"))));
}

TEST_CASE("an upload without Key, UploadId or Initiated, or with a bad one, is refused") {
  const std::string head = "<IsTruncated>false</IsTruncated>";
  CheckMalformed(ParseListMultipartUploadsResult(UploadsDocument(
                     kNs, head, "<Upload><UploadId>u</UploadId><Initiated>2010-11-10T20:48:34.000Z"
                                "</Initiated></Upload>")),
                 "Upload[1]: <Key> is missing");
  CheckMalformed(ParseListMultipartUploadsResult(UploadsDocument(
                     kNs, head, "<Upload><Key>k</Key><Initiated>2010-11-10T20:48:34.000Z"
                                "</Initiated></Upload>")),
                 "<UploadId> is missing");
  CheckMalformed(ParseListMultipartUploadsResult(
                     UploadsDocument(kNs, head, "<Upload><Key>k</Key><UploadId>u</UploadId></Upload>")),
                 "<Initiated> is missing");
  CheckMalformed(ParseListMultipartUploadsResult(
                     UploadsDocument(kNs, head, UploadElement("k", "an id with spaces"))),
                 "visible ASCII");
  CheckMalformed(ParseListMultipartUploadsResult(
                     UploadsDocument(kNs, head, UploadElement("k", "u", "yesterday"))),
                 "<Initiated>");
  CheckMalformed(ParseListMultipartUploadsResult(UploadsDocument(kNs, head, UploadElement("", "u"))),
                 "<Key> is empty");
  CheckMalformed(ParseListMultipartUploadsResult(UploadsDocument(kNs, "", "")),
                 "<IsTruncated> is missing");
}

TEST_CASE("uploads out of key order, or below the key marker, are refused") {
  CheckMalformed(ParseListMultipartUploadsResult(UploadsDocument(
                     kNs, "<IsTruncated>false</IsTruncated>",
                     UploadElement("b", "u1") + UploadElement("a", "u2"))),
                 "key order");
  CheckMalformed(ParseListMultipartUploadsResult(UploadsDocument(
                     kNs, "<KeyMarker>m</KeyMarker><IsTruncated>false</IsTruncated>",
                     UploadElement("a", "u1"))),
                 "key order");
  // One key may hold several uploads.
  LAKE_CHECK_OK(ParseListMultipartUploadsResult(UploadsDocument(
      kNs, "<IsTruncated>false</IsTruncated>", UploadElement("a", "u2") + UploadElement("a", "u1"))));
}

TEST_CASE("an url-encoded upload listing is decoded only when asked for") {
  std::string body = UploadsDocument(
      kNs, "<EncodingType>url</EncodingType><Prefix>a%20b/</Prefix><IsTruncated>false</IsTruncated>",
      UploadElement("a%20b/c+d", "u"));
  absl::StatusOr<ListMultipartUploadsResult> result =
      ParseListMultipartUploadsResult(body, KeyEncoding::kUrl);
  LAKE_REQUIRE_OK(result);
  CHECK(result->prefix == "a b/");
  CHECK(result->uploads[0].key == "a b/c d");
  CheckMalformed(ParseListMultipartUploadsResult(body), "EncodingType");
}

TEST_CASE("an Error document in place of an upload listing is the typed S3 error") {
  absl::StatusOr<ListMultipartUploadsResult> result =
      ParseListMultipartUploadsResult(ErrorDocument("NoSuchBucket"));
  CHECK(absl::IsNotFound(result.status()));
  CHECK(GetS3Error(result.status())->code == "NoSuchBucket");
}

}  // namespace
}  // namespace lake::s3http
