// The XML documents an S3 server sends back, parsed into plain values, and
// the one XML document lake sends (the CompleteMultipartUpload body). Pure
// functions of their input (no I/O, no clock, thread-safe), fuzzed by
// fuzz/s3_responses_fuzzer.cc.
//
// Every body is hostile until parsed. The rules, the same for every
// document:
//   - At most kMaxResponseBodyBytes; a larger body is refused unread
//     (ResourceExhausted). The caller should stop receiving at that size.
//   - Parsed by expat as UTF-8, whatever the document declares. A DOCTYPE is
//     refused outright (so no entity, internal or external, is ever
//     defined or expanded), as is element nesting deeper than kMaxXmlDepth
//     and more than kMaxListEntries repeated entries (Part, Contents, ...).
//   - Leading whitespace before the document is skipped: S3 sends spaces
//     while a CompleteMultipartUpload is in progress to keep the connection
//     alive, before the XML declaration.
//   - The elements lake reads must be in the S3 namespace
//     (kS3XmlNamespace) or in none; an element of another namespace is
//     treated as unknown. Unknown elements are ignored, with everything
//     inside them (so the echoed StringToSign, CanonicalRequest and
//     signature of a SignatureDoesNotMatch error are never read). A field
//     lake reads must hold text only and appear once.
//   - Text is taken exactly as written (after XML unescaping): no trimming.
//     Numbers follow ParseDecimal, times ParseS3Timestamp and ETags
//     ParseETag (s3_headers.h); booleans are "true" or "false".
//
// Malformed input (bad XML, a limit exceeded, a required field missing, a
// value out of range) is refused with InvalidArgument (ResourceExhausted for
// an oversize body) carrying a payload that IsMalformedResponse() detects:
// the server, not lake's caller, is at fault. When a success parser finds
// an <Error> document instead (S3 does that for CompleteMultipartUpload,
// with HTTP 200), it returns that error as S3ErrorStatus() with
// http_status 200, detectable with GetS3Error().
#ifndef LAKE_IO_S3HTTP_S3_RESPONSES_H_
#define LAKE_IO_S3HTTP_S3_RESPONSES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "io/s3http/s3_headers.h"

namespace lake::s3http {

inline constexpr std::string_view kS3XmlNamespace =
    "http://s3.amazonaws.com/doc/2006-03-01/";

// The largest body parsed. A full page of ListObjectsV2 (1,000 keys of up
// to 1,024 bytes) or ListParts (1,000 parts) is well under 2 MiB; 16 MiB
// leaves room for XML-escaped keys and verbose servers while bounding what
// a hostile server can make lake hold.
inline constexpr size_t kMaxResponseBodyBytes = size_t{16} << 20;

// S3's documents nest at most four deep (ListBucketResult > Contents >
// Owner > ID); deeper nesting is refused before it costs anything.
inline constexpr int kMaxXmlDepth = 8;

// Repeated entries in one document. S3 pages hold at most 1,000 (max-keys,
// max-parts); 10,000 is the most parts an upload can have.
inline constexpr size_t kMaxListEntries = 10000;

// S3's largest part (5 GiB) and the largest size lake accepts for an
// object (below 2^63, as DataLocation.size_bytes).
inline constexpr uint64_t kMaxPartSizeBytes = uint64_t{5} << 30;
inline constexpr uint64_t kMaxObjectSizeBytes = (uint64_t{1} << 63) - 1;

// S3 keys are 1..1,024 bytes of UTF-8.
inline constexpr size_t kMaxKeyBytes = 1024;

// True when `status` is a refusal of malformed server output by a parser
// of this file (see above).
bool IsMalformedResponse(const absl::Status& status);

// ---------------------------------------------------------------------------
// Errors.
//
// <Error><Code/><Message/><Resource/><RequestId/><HostId/></Error>. Only
// Code is required (RGW sends no Message). Code is 1..128 of
// [A-Za-z0-9._-]. `resource` never holds a query string or fragment (a
// presigned URL's signature must not reach a log), and words of `message`
// that look like signing material ("X-Amz-Signature=...", "Credential=",
// "Signature=", "AWSAccessKeyId=") are replaced by "[redacted]".
struct S3Error {
  int http_status = 0;
  std::string code;  // empty only when the body was no <Error> document
  std::string message;
  std::string request_id;
  std::string host_id;
  std::string resource;

  friend bool operator==(const S3Error&, const S3Error&) = default;
};

// Parses an <Error> document received with `http_status`.
absl::StatusOr<S3Error> ParseS3Error(int http_status, std::string_view body);

// The status of an S3 error. By code first:
//   NoSuchKey, NoSuchBucket, NoSuchUpload, NoSuchVersion     NotFound
//   AccessDenied, SignatureDoesNotMatch, InvalidAccessKeyId,
//     RequestTimeTooSkewed, ExpiredToken                     PermissionDenied
//   PreconditionFailed, InvalidObjectState                  FailedPrecondition
//   InvalidRange                                             OutOfRange
//   InvalidArgument, InvalidRequest, InvalidPart,
//     InvalidPartOrder, EntityTooSmall, EntityTooLarge,
//     MalformedXML, InvalidDigest, KeyTooLongError,
//     MissingContentLength, InvalidBucketName                InvalidArgument
//   BadDigest, XAmzContentSHA256Mismatch                     DataLoss
//   OperationAborted                                         Aborted
//   NotImplemented                                           Unimplemented
//   SlowDown, ServiceUnavailable, InternalError,
//     RequestTimeout                                         Unavailable
// then, for any other code, by HTTP status:
//   5xx except 501, 408, 429 Unavailable (retryable); 501, 405 Unimplemented;
//   400, 411 and other 4xx InvalidArgument; 401 Unauthenticated;
//   403 PermissionDenied; 404 NotFound; 409 Aborted; 412 FailedPrecondition;
//   416 OutOfRange; 3xx (a redirect to another region or endpoint: a
//   configuration problem) FailedPrecondition; anything else Unknown.
// Why: InvalidRange is OutOfRange because the request named bytes past the
// object (the engine turns it into a short-object integrity failure); the
// two digest mismatches are DataLoss because the server received other
// bytes than lake hashed, which is corruption on the way, not a bad
// argument (an uploader may re-send the part a bounded number of times).
//
// The message is "S3 <Code> (HTTP <status>): <Message> [resource <R>,
// request id <Id>]", sanitised (SanitizedExcerpt) and bounded; the S3Error
// itself is attached as a payload (GetS3Error). No credentials, signatures
// or query strings appear in either.
absl::Status S3ErrorStatus(const S3Error& error);

// The S3Error carried by a status made by S3ErrorStatus, if any.
std::optional<S3Error> GetS3Error(const absl::Status& status);

// The status of a failed (non-2xx) response: S3ErrorStatus of its <Error>
// body, or, when the body is empty (HEAD) or no valid <Error> document (a
// proxy's HTML page), of an S3Error with only http_status set, mapped by
// status alone.
absl::Status S3ErrorResponseStatus(int http_status, std::string_view body);

// ---------------------------------------------------------------------------
// CreateMultipartUpload: <InitiateMultipartUploadResult>. UploadId is
// required: 1..1,024 visible ASCII bytes (0x21..0x7E), as S3 and RGW make
// them; the request layer percent-encodes it into later URLs.
struct InitiateMultipartUploadResult {
  std::string bucket;  // "" when absent
  std::string key;     // "" when absent
  std::string upload_id;
};

absl::StatusOr<InitiateMultipartUploadResult>
ParseInitiateMultipartUploadResult(std::string_view body);

// ---------------------------------------------------------------------------
// ListParts: <ListPartsResult>. Required: UploadId, IsTruncated, and in
// each <Part> PartNumber, ETag, Size and LastModified. Invariants of an
// accepted result: part numbers in kMinPartNumber..kMaxPartNumber, strictly
// ascending and above part_number_marker; sizes at most kMaxPartSizeBytes;
// when is_truncated, next_part_number_marker is present, above
// part_number_marker and at least the last listed part number (so paging
// always advances).
struct ListedPart {
  int part_number = 0;
  ETag etag;
  uint64_t size_bytes = 0;
  int64_t last_modified_micros = 0;  // Unix microseconds

  friend bool operator==(const ListedPart&, const ListedPart&) = default;
};

struct ListPartsResult {
  std::string bucket;  // "" when absent
  std::string key;     // "" when absent
  std::string upload_id;
  int part_number_marker = 0;  // 0 when absent
  std::optional<int> next_part_number_marker;
  bool is_truncated = false;
  std::vector<ListedPart> parts;
};

absl::StatusOr<ListPartsResult> ParseListPartsResult(std::string_view body);

// ---------------------------------------------------------------------------
// ListObjectsV2: <ListBucketResult>. Required: IsTruncated, and in each
// <Contents> Key, Size, ETag and LastModified; NextContinuationToken (non-
// empty) when truncated. Keys are 1..kMaxKeyBytes bytes of valid UTF-8
// without NUL; sizes at most kMaxObjectSizeBytes. KeyCount is reported as
// sent, not checked against the entries (servers disagree on whether it
// counts CommonPrefixes).
//
// Keys may hold any UTF-8, XML-escaped in the document ("a &amp; b").
// With encoding-type=url in the request, the server percent-encodes Key,
// Prefix (and the CommonPrefixes' Prefix) and says <EncodingType>url
// </EncodingType>; KeyEncoding::kUrl decodes them (%XX, and '+' as a space,
// which is how S3 encodes a space). The declared encoding must be the one
// asked for: a server that ignored encoding-type=url (or encoded without
// being asked) is refused rather than guessed at. The default, kNone, is
// for requests sent without encoding-type.
enum class KeyEncoding { kNone, kUrl };

struct ListedObject {
  std::string key;  // decoded
  uint64_t size_bytes = 0;
  ETag etag;
  int64_t last_modified_micros = 0;  // Unix microseconds

  friend bool operator==(const ListedObject&, const ListedObject&) = default;
};

struct ListObjectsV2Result {
  std::string bucket;  // <Name>, "" when absent
  std::string prefix;  // decoded; "" when absent
  std::vector<ListedObject> contents;
  std::vector<std::string> common_prefixes;  // decoded
  bool is_truncated = false;
  std::string next_continuation_token;  // opaque; "" unless truncated
  std::optional<uint64_t> key_count;
};

absl::StatusOr<ListObjectsV2Result> ParseListObjectsV2Result(
    std::string_view body, KeyEncoding encoding = KeyEncoding::kNone);

// ---------------------------------------------------------------------------
// ListMultipartUploads: <ListMultipartUploadsResult>, the multipart uploads
// begun and neither completed nor aborted. Required: IsTruncated, and in
// each <Upload> Key, UploadId and Initiated; when truncated, NextKeyMarker
// (non-empty) and NextUploadIdMarker (may be empty), which must differ from
// the request's markers (so paging always advances). Keys and prefixes as
// in ListObjectsV2 (KeyEncoding the same way); upload ids as in
// InitiateMultipartUploadResult. Uploads come in key order: keys must not
// descend, nor fall below KeyMarker (one key may hold several uploads, in
// the server's order). Initiator, Owner and StorageClass are not read.
struct ListedMultipartUpload {
  std::string key;  // decoded
  std::string upload_id;
  int64_t initiated_micros = 0;  // Unix microseconds

  friend bool operator==(const ListedMultipartUpload&, const ListedMultipartUpload&) = default;
};

struct ListMultipartUploadsResult {
  std::string bucket;      // "" when absent
  std::string prefix;      // decoded; "" when absent
  std::string key_marker;  // decoded; "" when absent
  std::string upload_id_marker;
  bool is_truncated = false;
  std::string next_key_marker;        // decoded; "" unless truncated
  std::string next_upload_id_marker;  // "" unless truncated (may be "" then too)
  std::vector<ListedMultipartUpload> uploads;
  std::vector<std::string> common_prefixes;  // decoded
};

absl::StatusOr<ListMultipartUploadsResult> ParseListMultipartUploadsResult(
    std::string_view body, KeyEncoding encoding = KeyEncoding::kNone);

// ---------------------------------------------------------------------------
// CompleteMultipartUpload: <CompleteMultipartUploadResult>, or an <Error>
// document with HTTP 200 (returned as S3ErrorStatus). Required: Bucket and
// Key. ETag is optional and may be empty: RGW returns <ETag></ETag> here
// (HEAD and GET give the right "<md5>-N"); a non-empty one must parse.
struct CompleteMultipartUploadResult {
  std::string location;  // "" when absent
  std::string bucket;
  std::string key;
  std::optional<ETag> etag;  // absent when missing or empty
};

absl::StatusOr<CompleteMultipartUploadResult>
ParseCompleteMultipartUploadResult(std::string_view body);

// The request body of CompleteMultipartUpload:
//   <CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
//   <Part><PartNumber>1</PartNumber><ETag>"…"</ETag></Part>…
//   </CompleteMultipartUpload>
// (one line, no XML declaration). `parts` must be non-empty, at most
// kMaxPartNumber long, with part numbers in kMinPartNumber..kMaxPartNumber
// strictly ascending (unsorted or duplicate input is refused, not sorted:
// it means the caller lost track of its parts). InvalidArgument otherwise.
struct CompletedPart {
  int part_number = 0;
  ETag etag;

  friend bool operator==(const CompletedPart&, const CompletedPart&) = default;
};

absl::StatusOr<std::string> SerializeCompleteMultipartUpload(
    std::span<const CompletedPart> parts);

// The inverse, under the rules of this file and of the serializer (for
// tests, fuzzing and test servers).
absl::StatusOr<std::vector<CompletedPart>> ParseCompleteMultipartUpload(
    std::string_view body);

// ---------------------------------------------------------------------------
// DeleteObjects (POST ?delete). The request body lake sends:
//   <Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>
//   <Object><Key>…</Key></Object>…</Delete>
// (one line, no XML declaration; quiet, so the answer lists only the keys
// that failed). `keys` must be 1..kMaxDeleteObjectsKeys keys of 1..kMaxKeyBytes
// bytes of valid UTF-8 holding no character XML 1.0 cannot carry (C0
// controls other than tab, LF and CR); InvalidArgument otherwise.
inline constexpr size_t kMaxDeleteObjectsKeys = 1000;

absl::StatusOr<std::string> SerializeDeleteObjects(std::span<const std::string> keys);
// The inverse (for tests, fuzzing and test servers).
absl::StatusOr<std::vector<std::string>> ParseDeleteObjectsRequest(std::string_view body);

// The answer: <DeleteResult>, with <Deleted> entries (Key required; quiet
// mode sends none) and <Error> entries (Key and Code required, Code as in
// <Error> documents; Message optional). A whole-request <Error> document
// is returned as its S3ErrorStatus.
struct DeleteObjectsFailure {
  std::string key;
  std::string code;
  std::string message;  // sanitised

  friend bool operator==(const DeleteObjectsFailure&, const DeleteObjectsFailure&) = default;
};

struct DeleteObjectsResult {
  std::vector<std::string> deleted;
  std::vector<DeleteObjectsFailure> failures;
};

absl::StatusOr<DeleteObjectsResult> ParseDeleteObjectsResult(std::string_view body);

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_S3_RESPONSES_H_
