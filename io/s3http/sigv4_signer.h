// AWS Signature Version 4 (AWS4-HMAC-SHA256) for lake's S3 request layer:
// Authorization-header signing and query-string (presigned URL) signing.
// Hand-rolled on purpose (ARCHITECTURE.md); OpenSSL does the SHA-256 and
// HMAC-SHA256.
//
// S3 rules, which are the defaults (SigningOptions):
//   - The path is the DECODED object path ("/bucket/key" or "/key"): any
//     bytes, including spaces, '%', '+', '?', '#', raw UTF-8, "." and ".."
//     segments and repeated slashes. It is never normalised, and it is
//     percent-encoded exactly once (EncodeCanonicalUri). That encoding is
//     also the path the request layer puts on the wire, so what is signed
//     is what is sent.
//   - Header signing always adds and signs x-amz-content-sha256.
//   - Presigned URLs sign the payload as UNSIGNED-PAYLOAD.
//   - A session token is signed (header x-amz-security-token, or query
//     parameter X-Amz-Security-Token).
// Each default can be switched off, only to reproduce the generic
// (non-S3) cases of the aws-sig-v4-test-suite.
//
// The canonical request (what is hashed into the string to sign):
//
//   METHOD '\n' CANONICAL_URI '\n' CANONICAL_QUERY '\n'
//   ( lowercase-name ':' canonical-value '\n' )*   sorted by name
//   '\n' SIGNED_HEADERS '\n' PAYLOAD_HASH
//
//   - CANONICAL_QUERY: every key and value EncodeQueryComponent-ed, pairs
//     sorted by encoded key, then encoded value, joined "k=v&k=v".
//   - Header values: leading and trailing spaces and tabs removed, each
//     inner run of spaces and tabs replaced by one space; a name given more
//     than once becomes one line, its values joined by ',' in the order
//     given. Every header of the request is signed.
//
// Secrets: the secret access key never appears in any returned string or
// error message. Error messages name the offending field (and a header's
// or parameter's name), never a value. The session token does appear where
// it must be sent (a returned header, the presigned query).
#ifndef LAKE_IO_S3HTTP_SIGV4_SIGNER_H_
#define LAKE_IO_S3HTTP_SIGV4_SIGNER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "io/s3http/http_header.h"

namespace lake::s3http {

// The algorithm name, first line of every string to sign.
inline constexpr std::string_view kSigV4Algorithm = "AWS4-HMAC-SHA256";
// The payload hash of a request whose body is not signed (S3 presigned
// URLs; streaming uploads whose parts carry their own checksums).
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
// SigV4 refuses presigned URLs valid for longer than 7 days
// (X-Amz-Expires <= 604800). The engine applies its own, shorter, one-hour
// cap on top; this module enforces only the protocol's limit.
inline constexpr absl::Duration kMaxPresignExpiry = absl::Hours(7 * 24);

struct Credentials {
  // Printable ASCII without ' ', ',' or '/' (it is one field of the
  // Authorization header's "Credential=" component).
  std::string access_key_id;
  // Any non-empty bytes. Only ever used as HMAC key material.
  std::string secret_access_key;
  // Temporary (STS) credentials only; when present it is non-empty and
  // free of CR, LF and NUL.
  std::optional<std::string> session_token;
};

struct QueryParameter {
  std::string key;    // decoded
  std::string value;  // decoded; "" for a bare key ("?uploads")
};

// What is signed. Every field is validated by the signing calls; a request
// that fails validation is refused with InvalidArgument before anything is
// computed.
struct SigningRequest {
  // An HTTP token ("GET", "PUT", ...), used as given (case matters).
  std::string method;
  // The Host header value exactly as it will be sent, with ":port" when
  // the port is not the scheme's default. No whitespace or control bytes.
  std::string host;
  // The decoded path; starts with '/'. Any bytes after that.
  std::string path;
  // Decoded query parameters in any order; duplicates allowed. For header
  // signing, send them as CanonicalQueryString(query) so that the wire
  // query is the signed one.
  std::vector<QueryParameter> query;
  // The other headers that will be sent exactly as given, all of them
  // signed. Names are HTTP tokens (any case); values hold no CR, LF or
  // NUL (a multi-line header is the caller's to join into one value). The
  // signer owns Host, Authorization, X-Amz-Date, X-Amz-Content-Sha256 and
  // X-Amz-Security-Token: giving any of them here is InvalidArgument.
  std::vector<HttpHeader> headers;
  // SHA-256 of the body as 64 lowercase hex digits, or kUnsignedPayload.
  // Not read by Presign under the S3 default (presign_unsigned_payload).
  std::string payload_sha256;
};

// S3 defaults. Switching any of them off reproduces the generic services
// of the aws-sig-v4-test-suite; lake's request layer never does.
struct SigningOptions {
  // Remove "." and ".." segments and repeated slashes before encoding the
  // path (RFC 3986 remove_dot_segments; a trailing slash is kept). S3
  // signs the literal path, so this is off.
  bool normalize_path = false;
  // Header signing: add and sign x-amz-content-sha256 = payload_sha256.
  bool sign_content_sha256_header = true;
  // Presign: the payload hash is kUnsignedPayload instead of
  // request.payload_sha256.
  bool presign_unsigned_payload = true;
  // Sign the session token. When false (services that attach the token
  // after signing: the suite's post-sts-header-after), the token is still
  // returned for sending (header, or query parameter before
  // X-Amz-Signature) but is not part of the canonical request.
  bool sign_session_token = true;
};

// The intermediate texts, for tests and for debugging a SignatureDoesNotMatch
// (S3 returns its own canonical request and string to sign in the error).
struct SigningDetails {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;  // 64 lowercase hex digits
};

struct HeaderSignature {
  // The headers to add to the request, in this order: X-Amz-Date,
  // x-amz-content-sha256 (when signed), X-Amz-Security-Token (when the
  // credentials hold a token), Authorization.
  std::vector<HttpHeader> headers;
  // The Authorization value (also in `headers`).
  std::string authorization;
  SigningDetails details;
};

struct PresignedQuery {
  // The complete encoded query, ready to append after '?': the canonical
  // query (the request's own parameters and the X-Amz-* ones), then an
  // unsigned X-Amz-Security-Token when sign_session_token is off, then
  // "X-Amz-Signature=<hex>".
  std::string query;
  SigningDetails details;
};

// HMAC-SHA256("AWS4" + secret, date) -> region -> service -> "aws4_request".
using SigningKey = std::array<uint8_t, 32>;

// Signs requests for one region and service. Immutable after creation
// except for an internal cache of derived signing keys: the HMAC chain runs
// once per (secret, scope date) and is reused until the date or the secret
// changes (the cache holds a SHA-256 fingerprint of the secret, never the
// secret). All methods are const and safe to call from many threads at
// once. Movable, not copyable; a moved-from signer may only be destroyed
// or assigned to.
class SigV4Signer {
 public:
  // `region` and `service` are non-empty [A-Za-z0-9._-]; else
  // InvalidArgument.
  static absl::StatusOr<SigV4Signer> Create(std::string region, std::string service,
                                            SigningOptions options = {});

  SigV4Signer(SigV4Signer&&) noexcept;
  SigV4Signer& operator=(SigV4Signer&&) noexcept;
  ~SigV4Signer();

  // Authorization-header signing at time `now` (seconds are truncated; its
  // UTC year must be in 1970..9999). InvalidArgument when the request,
  // credentials or time is invalid.
  absl::StatusOr<HeaderSignature> SignHeaders(const SigningRequest& request,
                                              const Credentials& credentials, absl::Time now) const;

  // Query-string signing: a URL valid for `expires` from `now`. `expires`
  // is a whole number of seconds in [1 s, kMaxPresignExpiry], else
  // InvalidArgument, as for a query key the signer adds (X-Amz-Algorithm,
  // -Credential, -Date, -Expires, -SignedHeaders, -Signature,
  // -Security-Token; any case). Signs the request's headers (at least
  // Host), no X-Amz-Date header.
  absl::StatusOr<PresignedQuery> Presign(const SigningRequest& request,
                                         const Credentials& credentials, absl::Time now,
                                         absl::Duration expires) const;

  const std::string& region() const { return region_; }
  const std::string& service() const { return service_; }
  const SigningOptions& options() const { return options_; }

 private:
  class KeyCache;
  SigV4Signer(std::string region, std::string service, SigningOptions options);

  std::string region_;
  std::string service_;
  SigningOptions options_;
  std::unique_ptr<KeyCache> key_cache_;
};

// ---- Pure helpers (also used by the request layer and the fuzz target).
// Functions of their arguments only; safe from any thread.

// The S3 canonical URI of a decoded path: each byte that is RFC 3986
// unreserved (A-Z a-z 0-9 - . _ ~) or '/' is kept, every other byte becomes
// %XX with uppercase hex. Encodes exactly once; never normalises.
std::string EncodeCanonicalUri(std::string_view decoded_path);

// One query key or value: like EncodeCanonicalUri, but '/' is encoded too.
// (So are '=', '&', '+' and ' ', which is "%20", never '+'.)
std::string EncodeQueryComponent(std::string_view decoded);

// The canonical query string of decoded parameters: pairs encoded, sorted
// by encoded key then encoded value (bytewise), joined "k=v&k=v". A
// parameter with an empty value is "k=". Empty for no parameters.
std::string CanonicalQueryString(std::span<const QueryParameter> parameters);

// Generic services only (SigningOptions::normalize_path): removes "." and
// ".." segments and empty segments (repeated slashes); ".." above the root
// is dropped. The result starts with '/', and ends with '/' when the input
// did (or ended in a "." or ".." segment) and is not just "/".
std::string NormalizePath(std::string_view decoded_path);

struct AmzDate {
  std::string date_time;  // "20150830T123600Z" (X-Amz-Date)
  std::string date;       // "20150830" (credential scope)
};
// UTC, seconds truncated. InvalidArgument outside years 1970..9999
// (including infinite times).
absl::StatusOr<AmzDate> FormatAmzDate(absl::Time time);

// SHA-256 of an in-memory payload as 64 lowercase hex digits: the
// payload_sha256 of a SigningRequest whose body is at hand (XML bodies,
// small objects). Streams hash incrementally elsewhere.
std::string PayloadSha256Hex(std::string_view payload);

// The signing key for a scope. `date` is "YYYYMMDD". No validation: the
// caller (SigV4Signer) validates first.
SigningKey DeriveSigningKey(std::string_view secret_access_key, std::string_view date,
                            std::string_view region, std::string_view service);

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_SIGV4_SIGNER_H_
