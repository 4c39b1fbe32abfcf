// Fuzzes the SigV4 canonicalisation of lake::s3http (sigv4_signer.h): path
// and query-component encoding, path normalisation, the canonical query,
// and both signing modes on requests built from the input.
//
// The whole input is first used as a raw byte string:
//   1. EncodeCanonicalUri(input) holds only unreserved bytes, '/', and %XX
//      with uppercase hex; each %XX stands for a byte that had to be
//      escaped; decoding it gives the input back.
//   2. EncodeQueryComponent(input): the same, and '/' is escaped too.
//   3. NormalizePath('/' + input) starts with '/', has no empty, "." or
//      ".." segment, and is a fixed point of NormalizePath.
//
// Then the input is read as a request, one record per '\n'-separated line:
//   line 1            the decoded path (a path without a leading '/' must
//                     be refused)
//   "?key=value"      a query parameter ('=' optional)
//   "Hname:value"     a header (':' optional)
//   "Mmethod"         the method (default GET)
//   "Ttoken"          a session token
//   "E<digits>"       presign expiry in seconds (default 3600)
//   "O<c>"            the four SigningOptions switches: bits of c
// and signed in header mode and query mode:
//   4. Acceptance matches an independent reference of the validation rules
//      exactly (accepted iff valid; a refusal is InvalidArgument).
//   5. Accepted: the canonical request is METHOD, the encoded (and, when
//      switched on, normalised) path, CanonicalQueryString of the parameters,
//      sorted lowercase unique header names, the signed-header list equal to
//      those names, and the payload hash; the canonical query holds one item
//      per parameter, in sorted order. The string to sign carries the
//      SHA-256 of the canonical request (checked with OpenSSL's one-shot
//      SHA256, not the signer's code). The Authorization header and the
//      presigned query end with the signature.
//   6. Deterministic: the same signer again (cached signing key) and a
//      fresh signer give identical results.
//   7. The secret (which holds a CR, a byte no accepted output can hold)
//      appears in no output and no error message.
// A violation traps.
#include <openssl/sha.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/property_check.h"
#include "io/s3http/sigv4_signer.h"

namespace lake::s3http {
namespace {

using lake::fuzz::Check;

bool IsUnreservedByte(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

int UpperHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Checks property 1 or 2 for one encoding and returns its decoding.
std::string CheckEncodedAndDecode(std::string_view encoded, bool slash_kept) {
  std::string decoded;
  for (size_t i = 0; i < encoded.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(encoded[i]);
    if (c != '%') {
      Check(IsUnreservedByte(c) || (slash_kept && c == '/'));
      decoded.push_back(static_cast<char>(c));
      continue;
    }
    Check(i + 2 < encoded.size());
    int hi = UpperHexValue(encoded[i + 1]);
    int lo = UpperHexValue(encoded[i + 2]);
    Check(hi >= 0 && lo >= 0);
    unsigned char byte = static_cast<unsigned char>(hi * 16 + lo);
    Check(!IsUnreservedByte(byte) && !(slash_kept && byte == '/'));  // escaped once, only if needed
    decoded.push_back(static_cast<char>(byte));
    i += 2;
  }
  return decoded;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t end = text.find(separator, pos);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(pos));
      return parts;
    }
    parts.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
}

void CheckNormalizedPath(std::string_view raw) {
  std::string path = "/" + std::string(raw);
  std::string normalized = NormalizePath(path);
  Check(!normalized.empty() && normalized[0] == '/');
  std::vector<std::string_view> segments = Split(std::string_view(normalized).substr(1), '/');
  for (size_t i = 0; i < segments.size(); ++i) {
    bool last = i + 1 == segments.size();
    Check(segments[i] != "." && segments[i] != "..");
    Check(!segments[i].empty() || (last && (normalized == "/" || normalized.back() == '/')));
  }
  Check(NormalizePath(normalized) == normalized);
}

// ---- The request read from the input

struct FuzzRequest {
  SigningRequest request;
  std::optional<std::string> token;
  int64_t expires_seconds = 3600;
  SigningOptions options;
};

// "a=b=c" -> {"a", "b=c"}; no separator: {text, ""}.
std::pair<std::string, std::string> SplitOnce(std::string_view text, char separator) {
  size_t at = text.find(separator);
  if (at == std::string_view::npos) return {std::string(text), ""};
  return {std::string(text.substr(0, at)), std::string(text.substr(at + 1))};
}

FuzzRequest ParseRequest(std::string_view input) {
  FuzzRequest out;
  std::vector<std::string_view> lines = Split(input, '\n');
  out.request.method = "GET";
  out.request.host = "bucket.s3.us-east-1.amazonaws.com";
  out.request.path = std::string(lines[0]);
  out.request.payload_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) continue;
    std::string_view rest = line.substr(1);
    switch (line[0]) {
      case '?': {
        auto [key, value] = SplitOnce(rest, '=');
        out.request.query.push_back({std::move(key), std::move(value)});
        break;
      }
      case 'H': {
        auto [name, value] = SplitOnce(rest, ':');
        out.request.headers.push_back({std::move(name), std::move(value)});
        break;
      }
      case 'M':
        out.request.method = std::string(rest);
        break;
      case 'T':
        out.token = std::string(rest);
        break;
      case 'E': {
        bool negative = !rest.empty() && rest[0] == '-';
        int64_t seconds = 0;
        for (char c : rest.substr(negative ? 1 : 0, 8)) {
          if (c < '0' || c > '9') break;
          seconds = seconds * 10 + (c - '0');
        }
        out.expires_seconds = negative ? -seconds : seconds;
        break;
      }
      case 'O': {
        unsigned bits = rest.empty() ? 0 : static_cast<unsigned char>(rest[0]);
        out.options.normalize_path = bits & 1;
        out.options.sign_content_sha256_header = bits & 2;
        out.options.presign_unsigned_payload = bits & 4;
        out.options.sign_session_token = bits & 8;
        break;
      }
      default:
        break;
    }
  }
  return out;
}

// ---- The reference validation (property 4), written from the header's
// contract, not from the signer's code.

bool IsTokenByte(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  for (char t : std::string_view("!#$%&'*+-.^_`|~")) {
    if (c == static_cast<unsigned char>(t)) return true;
  }
  return false;
}

bool IsToken(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!IsTokenByte(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool HoldsCrLfNul(std::string_view text) {
  for (char c : text) {
    if (c == '\r' || c == '\n' || c == '\0') return true;
  }
  return false;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool ReferenceRequestValid(const FuzzRequest& in) {
  const SigningRequest& r = in.request;
  if (!IsToken(r.method)) return false;
  if (r.path.empty() || r.path[0] != '/') return false;
  for (const HttpHeader& h : r.headers) {
    if (!IsToken(h.name) || HoldsCrLfNul(h.value)) return false;
    std::string name = Lower(h.name);
    if (name == "host" || name == "authorization" || name == "x-amz-date" ||
        name == "x-amz-content-sha256" || name == "x-amz-security-token") {
      return false;
    }
  }
  if (in.token.has_value() && (in.token->empty() || HoldsCrLfNul(*in.token))) return false;
  return true;
}

bool ReferencePresignValid(const FuzzRequest& in) {
  if (!ReferenceRequestValid(in)) return false;
  if (in.expires_seconds < 1 || in.expires_seconds > 604800) return false;
  for (const QueryParameter& p : in.request.query) {
    std::string key = Lower(p.key);
    for (std::string_view owned :
         {"x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-expires",
          "x-amz-signedheaders", "x-amz-signature", "x-amz-security-token"}) {
      if (key == owned) return false;
    }
  }
  return true;
}

// ---- Properties of accepted results (5)

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : digest) {
    hex.push_back(kHex[b >> 4]);
    hex.push_back(kHex[b & 15]);
  }
  return hex;
}

bool IsLowerHex64(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void CheckCanonicalQuery(std::string_view query, size_t expected_items) {
  if (expected_items == 0) {
    Check(query.empty());
    return;
  }
  std::vector<std::string_view> items = Split(query, '&');
  Check(items.size() == expected_items);
  std::string_view previous_key;
  std::string_view previous_value;
  for (size_t i = 0; i < items.size(); ++i) {
    size_t eq = items[i].find('=');
    Check(eq != std::string_view::npos);
    std::string_view key = items[i].substr(0, eq);
    std::string_view value = items[i].substr(eq + 1);
    CheckEncodedAndDecode(key, /*slash_kept=*/false);
    CheckEncodedAndDecode(value, /*slash_kept=*/false);
    if (i > 0) {
      Check(previous_key < key || (previous_key == key && previous_value <= value));
    }
    previous_key = key;
    previous_value = value;
  }
}

// Checks the canonical request and string to sign; returns the signed
// header list.
std::string CheckDetails(const SigningDetails& details, const FuzzRequest& in, size_t query_items,
                         std::string_view payload_hash) {
  std::vector<std::string_view> lines = Split(details.canonical_request, '\n');
  Check(lines.size() >= 7);
  Check(lines[0] == in.request.method);
  std::string path = in.options.normalize_path ? NormalizePath(in.request.path) : in.request.path;
  Check(lines[1] == EncodeCanonicalUri(path));
  CheckCanonicalQuery(lines[2], query_items);
  // Header lines up to the blank line.
  size_t i = 3;
  std::string names;
  std::string previous;
  for (; i < lines.size() && !lines[i].empty(); ++i) {
    size_t colon = lines[i].find(':');
    Check(colon != std::string_view::npos && colon > 0);
    std::string name(lines[i].substr(0, colon));
    Check(name == Lower(name) && IsToken(name));
    Check(previous.empty() || previous < name);
    std::string_view value = lines[i].substr(colon + 1);
    Check(value.empty() || (value.front() != ' ' && value.back() != ' '));
    Check(value.find("  ") == std::string_view::npos && value.find('\t') == std::string_view::npos);
    if (!names.empty()) names.push_back(';');
    names += name;
    previous = name;
  }
  Check(i + 3 == lines.size());
  Check(lines[i + 1] == names);
  Check(lines[i + 2] == payload_hash);

  std::vector<std::string_view> sts = Split(details.string_to_sign, '\n');
  Check(sts.size() == 4);
  Check(sts[0] == "AWS4-HMAC-SHA256");
  Check(sts[3] == Sha256Hex(details.canonical_request));
  Check(IsLowerHex64(details.signature));
  return names;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

const std::string kSecret("wJalr\r\x01SECRET-never-printed", 27);

void CheckNoSecret(std::string_view text) { Check(text.find(kSecret) == std::string_view::npos); }

void CheckHeaderSignature(const absl::StatusOr<HeaderSignature>& result, const FuzzRequest& in) {
  Check(result.ok() == ReferenceRequestValid(in));
  if (!result.ok()) {
    Check(result.status().code() == absl::StatusCode::kInvalidArgument);
    CheckNoSecret(std::string(result.status().message()));
    return;
  }
  std::string names =
      CheckDetails(result->details, in, in.request.query.size(), in.request.payload_sha256);
  Check(EndsWith(result->authorization, ", Signature=" + result->details.signature));
  Check(result->authorization.find("SignedHeaders=" + names + ",") != std::string::npos);
  Check(!result->headers.empty() && result->headers.back().value == result->authorization);
  for (const HttpHeader& header : result->headers) {
    CheckNoSecret(header.value);
    Check(!HoldsCrLfNul(header.value));
  }
  CheckNoSecret(result->details.canonical_request);
  CheckNoSecret(result->details.string_to_sign);
}

void CheckPresigned(const absl::StatusOr<PresignedQuery>& result, const FuzzRequest& in) {
  Check(result.ok() == ReferencePresignValid(in));
  if (!result.ok()) {
    Check(result.status().code() == absl::StatusCode::kInvalidArgument);
    CheckNoSecret(std::string(result.status().message()));
    return;
  }
  bool token_signed = in.token.has_value() && in.options.sign_session_token;
  size_t items = in.request.query.size() + 5 + (token_signed ? 1 : 0);
  std::string_view payload = in.options.presign_unsigned_payload
                                 ? std::string_view("UNSIGNED-PAYLOAD")
                                 : std::string_view(in.request.payload_sha256);
  CheckDetails(result->details, in, items, payload);
  std::vector<std::string_view> lines = Split(result->details.canonical_request, '\n');
  Check(result->query.compare(0, lines[2].size(), lines[2]) == 0);
  Check(EndsWith(result->query, "&X-Amz-Signature=" + result->details.signature));
  for (std::string_view item : Split(result->query, '&')) {
    size_t eq = item.find('=');
    Check(eq != std::string_view::npos);
    CheckEncodedAndDecode(item.substr(0, eq), /*slash_kept=*/false);
    CheckEncodedAndDecode(item.substr(eq + 1), /*slash_kept=*/false);
  }
  CheckNoSecret(result->query);
  CheckNoSecret(result->details.canonical_request);
}

bool SameHeaderSignature(const absl::StatusOr<HeaderSignature>& a,
                         const absl::StatusOr<HeaderSignature>& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) return a.status() == b.status();
  if (a->headers.size() != b->headers.size()) return false;
  for (size_t i = 0; i < a->headers.size(); ++i) {
    if (a->headers[i].name != b->headers[i].name || a->headers[i].value != b->headers[i].value) {
      return false;
    }
  }
  return a->details.canonical_request == b->details.canonical_request &&
         a->details.string_to_sign == b->details.string_to_sign &&
         a->details.signature == b->details.signature;
}

bool SamePresigned(const absl::StatusOr<PresignedQuery>& a,
                   const absl::StatusOr<PresignedQuery>& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) return a.status() == b.status();
  return a->query == b->query && a->details.canonical_request == b->details.canonical_request &&
         a->details.signature == b->details.signature;
}

}  // namespace
}  // namespace lake::s3http

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lake::s3http;
  std::string_view input(reinterpret_cast<const char*>(data), size);

  // 1-3: the encoders and normalisation on the raw bytes.
  Check(CheckEncodedAndDecode(EncodeCanonicalUri(input), /*slash_kept=*/true) == input);
  Check(CheckEncodedAndDecode(EncodeQueryComponent(input), /*slash_kept=*/false) == input);
  CheckNormalizedPath(input);

  // 4-7: signing.
  FuzzRequest in = ParseRequest(input);
  Credentials credentials = {"AKIDEXAMPLE", kSecret, in.token};
  absl::Time now = absl::FromUnixSeconds(1440938160);  // 2015-08-30T12:36:00Z
  absl::Duration expires = absl::Seconds(in.expires_seconds);
  absl::StatusOr<SigV4Signer> signer = SigV4Signer::Create("us-east-1", "s3", in.options);
  absl::StatusOr<SigV4Signer> fresh = SigV4Signer::Create("us-east-1", "s3", in.options);
  Check(signer.ok() && fresh.ok());

  absl::StatusOr<HeaderSignature> by_header = signer->SignHeaders(in.request, credentials, now);
  CheckHeaderSignature(by_header, in);
  Check(SameHeaderSignature(by_header, signer->SignHeaders(in.request, credentials, now)));
  Check(SameHeaderSignature(by_header, fresh->SignHeaders(in.request, credentials, now)));

  absl::StatusOr<PresignedQuery> by_query = signer->Presign(in.request, credentials, now, expires);
  CheckPresigned(by_query, in);
  Check(SamePresigned(by_query, signer->Presign(in.request, credentials, now, expires)));
  Check(SamePresigned(by_query, fresh->Presign(in.request, credentials, now, expires)));
  return 0;
}
