#include "io/s3http/sigv4_signer.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/civil_time.h"

namespace lake::s3http {
namespace {

using Digest = std::array<uint8_t, 32>;

constexpr char kUpperHex[] = "0123456789ABCDEF";
constexpr char kLowerHex[] = "0123456789abcdef";
constexpr std::string_view kScopeTerminator = "aws4_request";

// Header names the signer adds itself; a caller's header of the same name
// would be signed twice or contradict the signer's.
constexpr std::string_view kSignerOwnedHeaders[] = {
    "host", "authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token",
};
// Query keys Presign adds (compared without regard to case).
constexpr std::string_view kPresignOwnedParameters[] = {
    "X-Amz-Algorithm",     "X-Amz-Credential", "X-Amz-Date",           "X-Amz-Expires",
    "X-Amz-SignedHeaders", "X-Amz-Signature",  "X-Amz-Security-Token",
};

// ---- Crypto: OpenSSL objects fetched once per process, contexts once per
// thread (OpenSSL 3 otherwise looks the algorithm up on every call).

const EVP_MD* Sha256Algorithm() {
  static const EVP_MD* md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return fetched != nullptr ? fetched : EVP_sha256();
  }();
  return md;
}

EVP_MAC* HmacAlgorithm() {
  static EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  return mac;
}

// One SHA-256 and one HMAC-SHA256 context per thread, reused for every call
// on that thread (re-initialised each time, so no state leaks between uses).
class ThreadCrypto {
 public:
  ThreadCrypto() : md_ctx_(EVP_MD_CTX_new()) {
    EVP_MAC* mac = HmacAlgorithm();
    if (mac != nullptr) mac_ctx_ = EVP_MAC_CTX_new(mac);
    char digest_name[] = "SHA256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
        OSSL_PARAM_construct_end(),
    };
    if (md_ctx_ == nullptr || mac_ctx_ == nullptr ||
        EVP_MAC_CTX_set_params(mac_ctx_, params) != 1) {
      std::abort();  // only when OpenSSL cannot allocate or lacks SHA-256
    }
  }
  ~ThreadCrypto() {
    EVP_MAC_CTX_free(mac_ctx_);
    EVP_MD_CTX_free(md_ctx_);
  }
  ThreadCrypto(const ThreadCrypto&) = delete;
  ThreadCrypto& operator=(const ThreadCrypto&) = delete;

  Digest Sha256(std::string_view data) {
    Digest out;
    unsigned int len = 0;
    if (EVP_DigestInit_ex(md_ctx_, Sha256Algorithm(), nullptr) != 1 ||
        EVP_DigestUpdate(md_ctx_, data.data(), data.size()) != 1 ||
        EVP_DigestFinal_ex(md_ctx_, out.data(), &len) != 1 || len != out.size()) {
      std::abort();
    }
    return out;
  }

  Digest HmacSha256(const uint8_t* key, size_t key_len, std::string_view data) {
    Digest out;
    size_t len = 0;
    if (EVP_MAC_init(mac_ctx_, key, key_len, nullptr) != 1 ||
        EVP_MAC_update(mac_ctx_, reinterpret_cast<const unsigned char*>(data.data()),
                       data.size()) != 1 ||
        EVP_MAC_final(mac_ctx_, out.data(), &len, out.size()) != 1 || len != out.size()) {
      std::abort();
    }
    return out;
  }

 private:
  EVP_MD_CTX* md_ctx_;
  EVP_MAC_CTX* mac_ctx_ = nullptr;
};

ThreadCrypto& Crypto() {
  thread_local ThreadCrypto crypto;
  return crypto;
}

Digest HmacSha256(const Digest& key, std::string_view data) {
  return Crypto().HmacSha256(key.data(), key.size(), data);
}

std::string LowerHex(const Digest& digest) {
  std::string hex(2 * digest.size(), '0');
  for (size_t i = 0; i < digest.size(); ++i) {
    hex[2 * i] = kLowerHex[digest[i] >> 4];
    hex[2 * i + 1] = kLowerHex[digest[i] & 15];
  }
  return hex;
}

// ---- Character classes

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

// RFC 9110 tchar: the bytes of a method or header name.
bool IsTokenChar(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool IsToken(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return IsTokenChar(static_cast<unsigned char>(c));
  });
}

bool HasLineBreakOrNul(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

bool IsHeaderWhitespace(char c) { return c == ' ' || c == '\t'; }

bool IsScopeComponent(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_';
  });
}

bool IsLowerHexSha256(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return AsciiLower(x) == AsciiLower(y);
         });
}

// Copies runs of kept bytes in one append each: most keys are mostly
// unreserved, and signing cost is dominated by such loops.
void AppendPercentEncoded(std::string_view decoded, bool keep_slash, std::string& out) {
  size_t run_start = 0;
  for (size_t i = 0; i < decoded.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(decoded[i]);
    if (IsUnreserved(c) || (keep_slash && c == '/')) continue;
    out.append(decoded.data() + run_start, i - run_start);
    const char escape[3] = {'%', kUpperHex[c >> 4], kUpperHex[c & 15]};
    out.append(escape, 3);
    run_start = i + 1;
  }
  out.append(decoded.data() + run_start, decoded.size() - run_start);
}

// ---- Validation (messages name fields, never values)

absl::Status ValidateCredentials(const Credentials& credentials) {
  const std::string& id = credentials.access_key_id;
  bool id_ok = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return c > ' ' && c < 0x7f && c != ',' && c != '/';
  });
  if (!id_ok) {
    return absl::InvalidArgumentError(
        "SigV4: the access key id must be non-empty printable ASCII without ' ', ',' or '/'");
  }
  if (credentials.secret_access_key.empty()) {
    return absl::InvalidArgumentError("SigV4: the secret access key is empty");
  }
  if (credentials.session_token.has_value() &&
      (credentials.session_token->empty() || HasLineBreakOrNul(*credentials.session_token))) {
    return absl::InvalidArgumentError(
        "SigV4: a session token, when present, must be non-empty and hold no CR, LF or NUL");
  }
  return absl::OkStatus();
}

absl::Status ValidateHeader(const HttpHeader& header) {
  if (!IsToken(header.name)) {
    return absl::InvalidArgumentError(
        "SigV4: a header name is empty or not an HTTP token (no spaces, controls or ':')");
  }
  std::string lower = AsciiLower(header.name);
  for (std::string_view owned : kSignerOwnedHeaders) {
    if (lower == owned) {
      return absl::InvalidArgumentError("SigV4: header '" + lower +
                                        "' is added by the signer and cannot be given");
    }
  }
  if (HasLineBreakOrNul(header.value)) {
    return absl::InvalidArgumentError("SigV4: the value of header '" + lower +
                                      "' holds CR, LF or NUL");
  }
  return absl::OkStatus();
}

absl::Status ValidatePayloadHash(std::string_view payload_sha256) {
  if (payload_sha256 == kUnsignedPayload || IsLowerHexSha256(payload_sha256)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      "SigV4: the payload hash must be 64 lowercase hex digits or UNSIGNED-PAYLOAD");
}

// Everything but the payload hash, which only some modes read.
absl::Status ValidateRequest(const SigningRequest& request) {
  if (!IsToken(request.method)) {
    return absl::InvalidArgumentError("SigV4: the method is empty or not an HTTP token");
  }
  bool host_ok = !request.host.empty() && std::all_of(request.host.begin(), request.host.end(),
                                                      [](char c) { return c > ' ' && c != 0x7f; });
  if (!host_ok) {
    return absl::InvalidArgumentError(
        "SigV4: the host is empty or holds whitespace or control bytes");
  }
  if (request.path.empty() || request.path.front() != '/') {
    return absl::InvalidArgumentError("SigV4: the path must start with '/'");
  }
  for (const HttpHeader& header : request.headers) {
    if (absl::Status status = ValidateHeader(header); !status.ok()) return status;
  }
  return absl::OkStatus();
}

// ---- Canonical pieces

// Encodes query parameters into one buffer and sorts views of it: two
// allocations for the whole query instead of two per parameter.
class CanonicalQueryBuilder {
 public:
  explicit CanonicalQueryBuilder(size_t expected) { pairs_.reserve(expected); }

  void Add(std::string_view key, std::string_view value) {
    size_t key_begin = buffer_.size();
    AppendPercentEncoded(key, /*keep_slash=*/false, buffer_);
    size_t value_begin = buffer_.size();
    AppendPercentEncoded(value, /*keep_slash=*/false, buffer_);
    pairs_.push_back({key_begin, value_begin, buffer_.size()});
  }

  // "k=v&k=v", sorted by encoded key, then encoded value. string_view
  // compares bytes as unsigned char, as SigV4 requires.
  std::string Build() {
    auto key = [this](const Pair& p) {
      return std::string_view(buffer_).substr(p.key_begin, p.value_begin - p.key_begin);
    };
    auto value = [this](const Pair& p) {
      return std::string_view(buffer_).substr(p.value_begin, p.end - p.value_begin);
    };
    std::sort(pairs_.begin(), pairs_.end(), [&](const Pair& a, const Pair& b) {
      int by_key = key(a).compare(key(b));
      return by_key != 0 ? by_key < 0 : value(a) < value(b);
    });
    std::string out;
    out.reserve(buffer_.size() + 2 * pairs_.size());
    for (const Pair& pair : pairs_) {
      if (!out.empty()) out.push_back('&');
      out.append(key(pair)).push_back('=');
      out.append(value(pair));
    }
    return out;
  }

 private:
  struct Pair {
    size_t key_begin;
    size_t value_begin;
    size_t end;
  };
  std::string buffer_;
  std::vector<Pair> pairs_;
};

// A header's canonical value: trimmed, inner whitespace runs as one space.
// Appends the words between runs in one piece each.
void AppendCanonicalHeaderValue(std::string_view value, std::string& out) {
  size_t begin = 0;
  size_t end = value.size();
  while (begin < end && IsHeaderWhitespace(value[begin])) ++begin;
  while (end > begin && IsHeaderWhitespace(value[end - 1])) --end;
  size_t word_start = begin;
  for (size_t i = begin; i < end; ++i) {
    if (!IsHeaderWhitespace(value[i])) continue;
    out.append(value.data() + word_start, i - word_start);
    out.push_back(' ');
    while (IsHeaderWhitespace(value[i + 1])) ++i;  // the value ends in a non-space
    word_start = i + 1;
  }
  out.append(value.data() + word_start, end - word_start);
}

struct HeaderEntry {
  std::string name;  // lowercase
  std::string_view value;
};

struct CanonicalHeaders {
  std::string lines;           // "name:value\n" per distinct name, sorted
  std::string signed_headers;  // "name;name"
};

// Sorted by name; equal names keep their given order and join with ','.
CanonicalHeaders Canonicalize(std::vector<HeaderEntry> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const HeaderEntry& a, const HeaderEntry& b) { return a.name < b.name; });
  CanonicalHeaders out;
  size_t total = 0;
  for (const HeaderEntry& entry : entries) total += entry.name.size() + entry.value.size() + 2;
  out.lines.reserve(total);
  out.signed_headers.reserve(total);
  for (size_t i = 0; i < entries.size(); ++i) {
    bool continues = i > 0 && entries[i].name == entries[i - 1].name;
    if (continues) {
      out.lines.back() = ',';  // replaces the '\n' of the previous value
    } else {
      if (!out.signed_headers.empty()) out.signed_headers.push_back(';');
      out.signed_headers += entries[i].name;
      out.lines += entries[i].name;
      out.lines.push_back(':');
    }
    AppendCanonicalHeaderValue(entries[i].value, out.lines);
    out.lines.push_back('\n');
  }
  return out;
}

std::vector<HeaderEntry> RequestHeaderEntries(const SigningRequest& request, size_t extra) {
  std::vector<HeaderEntry> entries;
  entries.reserve(request.headers.size() + 1 + extra);
  entries.push_back({"host", request.host});
  for (const HttpHeader& header : request.headers) {
    entries.push_back({AsciiLower(header.name), header.value});
  }
  return entries;
}

std::string CanonicalRequest(std::string_view method, std::string_view canonical_uri,
                             std::string_view canonical_query, const CanonicalHeaders& headers,
                             std::string_view payload_hash) {
  std::string out;
  out.reserve(method.size() + canonical_uri.size() + canonical_query.size() + headers.lines.size() +
              headers.signed_headers.size() + payload_hash.size() + 5);
  out.append(method).push_back('\n');
  out.append(canonical_uri).push_back('\n');
  out.append(canonical_query).push_back('\n');
  out.append(headers.lines).push_back('\n');
  out.append(headers.signed_headers).push_back('\n');
  out.append(payload_hash);
  return out;
}

std::string CredentialScope(const AmzDate& date, std::string_view region,
                            std::string_view service) {
  std::string scope;
  scope.reserve(date.date.size() + region.size() + service.size() + 16);
  scope.append(date.date).push_back('/');
  scope.append(region).push_back('/');
  scope.append(service).push_back('/');
  scope.append(kScopeTerminator);
  return scope;
}

std::string StringToSign(const AmzDate& date, std::string_view scope,
                         std::string_view canonical_request) {
  std::string out;
  out.reserve(kSigV4Algorithm.size() + date.date_time.size() + scope.size() + 64 + 3);
  out.append(kSigV4Algorithm).push_back('\n');
  out.append(date.date_time).push_back('\n');
  out.append(scope).push_back('\n');
  out.append(LowerHex(Crypto().Sha256(canonical_request)));
  return out;
}

void AppendTwoDigits(int value, std::string& out) {
  out.push_back(static_cast<char>('0' + value / 10));
  out.push_back(static_cast<char>('0' + value % 10));
}

}  // namespace

// ---- Pure helpers

std::string EncodeCanonicalUri(std::string_view decoded_path) {
  std::string out;
  out.reserve(decoded_path.size() + decoded_path.size() / 4);
  AppendPercentEncoded(decoded_path, /*keep_slash=*/true, out);
  return out;
}

std::string EncodeQueryComponent(std::string_view decoded) {
  std::string out;
  out.reserve(decoded.size() + decoded.size() / 4);
  AppendPercentEncoded(decoded, /*keep_slash=*/false, out);
  return out;
}

std::string CanonicalQueryString(std::span<const QueryParameter> parameters) {
  CanonicalQueryBuilder builder(parameters.size());
  for (const QueryParameter& parameter : parameters) builder.Add(parameter.key, parameter.value);
  return builder.Build();
}

std::string NormalizePath(std::string_view decoded_path) {
  std::vector<std::string_view> segments;
  bool trailing_slash = false;
  size_t pos = 0;
  while (pos <= decoded_path.size()) {
    size_t slash = decoded_path.find('/', pos);
    if (slash == std::string_view::npos) slash = decoded_path.size();
    std::string_view segment = decoded_path.substr(pos, slash - pos);
    bool last = slash == decoded_path.size();
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (!segment.empty() && segment != ".") {
      segments.push_back(segment);
    }
    if (last) trailing_slash = segment.empty() || segment == "." || segment == "..";
    pos = slash + 1;
  }
  std::string out = "/";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out.push_back('/');
    out.append(segments[i]);
  }
  if (trailing_slash && !segments.empty()) out.push_back('/');
  return out;
}

absl::StatusOr<AmzDate> FormatAmzDate(absl::Time time) {
  if (time == absl::InfiniteFuture() || time == absl::InfinitePast()) {
    return absl::InvalidArgumentError("SigV4: the signing time is infinite");
  }
  absl::CivilSecond civil = absl::ToCivilSecond(time, absl::UTCTimeZone());
  if (civil.year() < 1970 || civil.year() > 9999) {
    return absl::InvalidArgumentError("SigV4: the signing time is outside years 1970..9999");
  }
  AmzDate out;
  int year = static_cast<int>(civil.year());
  out.date.reserve(8);
  AppendTwoDigits(year / 100, out.date);
  AppendTwoDigits(year % 100, out.date);
  AppendTwoDigits(civil.month(), out.date);
  AppendTwoDigits(civil.day(), out.date);
  out.date_time.reserve(16);
  out.date_time = out.date;
  out.date_time.push_back('T');
  AppendTwoDigits(civil.hour(), out.date_time);
  AppendTwoDigits(civil.minute(), out.date_time);
  AppendTwoDigits(civil.second(), out.date_time);
  out.date_time.push_back('Z');
  return out;
}

std::string PayloadSha256Hex(std::string_view payload) {
  return LowerHex(Crypto().Sha256(payload));
}

SigningKey DeriveSigningKey(std::string_view secret_access_key, std::string_view date,
                            std::string_view region, std::string_view service) {
  std::string seed = "AWS4";
  seed.append(secret_access_key);
  Digest key =
      Crypto().HmacSha256(reinterpret_cast<const uint8_t*>(seed.data()), seed.size(), date);
  OPENSSL_cleanse(seed.data(), seed.size());
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  return HmacSha256(key, kScopeTerminator);
}

// ---- The signer

// A few recently derived keys, looked up by (SHA-256 of the secret, scope
// date); region and service are the signer's. Small and fixed: a signer
// sees one secret at a time, two around a rotation or midnight UTC.
class SigV4Signer::KeyCache {
 public:
  KeyCache(std::string_view region, std::string_view service)
      : region_(region), service_(service) {}
  ~KeyCache() { OPENSSL_cleanse(entries_.data(), sizeof(entries_)); }

  SigningKey Get(std::string_view secret, std::string_view date) {
    Digest fingerprint = Crypto().Sha256(secret);
    {
      absl::ReaderMutexLock lock(&mu_);
      for (const Entry& entry : entries_) {
        if (entry.used && entry.fingerprint == fingerprint &&
            std::string_view(entry.date, sizeof(entry.date)) == date) {
          return entry.key;
        }
      }
    }
    SigningKey key = DeriveSigningKey(secret, date, region_, service_);
    if (date.size() == sizeof(Entry::date)) {
      absl::MutexLock lock(&mu_);
      Entry& slot = entries_[next_];
      next_ = (next_ + 1) % entries_.size();
      slot.used = true;
      slot.fingerprint = fingerprint;
      std::memcpy(slot.date, date.data(), sizeof(slot.date));
      slot.key = key;
    }
    return key;
  }

 private:
  struct Entry {
    bool used = false;
    Digest fingerprint{};
    char date[8] = {};  // "YYYYMMDD"
    SigningKey key{};
  };

  const std::string region_;
  const std::string service_;
  absl::Mutex mu_;
  std::array<Entry, 4> entries_ ABSL_GUARDED_BY(mu_);
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
};

absl::StatusOr<SigV4Signer> SigV4Signer::Create(std::string region, std::string service,
                                                SigningOptions options) {
  if (!IsScopeComponent(region)) {
    return absl::InvalidArgumentError("SigV4: the region must be non-empty [A-Za-z0-9._-]");
  }
  if (!IsScopeComponent(service)) {
    return absl::InvalidArgumentError("SigV4: the service must be non-empty [A-Za-z0-9._-]");
  }
  return SigV4Signer(std::move(region), std::move(service), options);
}

SigV4Signer::SigV4Signer(std::string region, std::string service, SigningOptions options)
    : region_(std::move(region)),
      service_(std::move(service)),
      options_(options),
      key_cache_(std::make_unique<KeyCache>(region_, service_)) {}

SigV4Signer::SigV4Signer(SigV4Signer&&) noexcept = default;
SigV4Signer& SigV4Signer::operator=(SigV4Signer&&) noexcept = default;
SigV4Signer::~SigV4Signer() = default;

absl::StatusOr<HeaderSignature> SigV4Signer::SignHeaders(const SigningRequest& request,
                                                         const Credentials& credentials,
                                                         absl::Time now) const {
  if (absl::Status status = ValidateCredentials(credentials); !status.ok()) return status;
  if (absl::Status status = ValidateRequest(request); !status.ok()) return status;
  if (absl::Status status = ValidatePayloadHash(request.payload_sha256); !status.ok()) {
    return status;
  }
  absl::StatusOr<AmzDate> date = FormatAmzDate(now);
  if (!date.ok()) return date.status();

  const std::optional<std::string>& token = credentials.session_token;
  bool sign_token = token.has_value() && options_.sign_session_token;
  std::vector<HeaderEntry> entries = RequestHeaderEntries(request, 3);
  entries.push_back({"x-amz-date", date->date_time});
  if (options_.sign_content_sha256_header) {
    entries.push_back({"x-amz-content-sha256", request.payload_sha256});
  }
  if (sign_token) entries.push_back({"x-amz-security-token", *token});
  CanonicalHeaders headers = Canonicalize(std::move(entries));

  std::string path = options_.normalize_path ? NormalizePath(request.path) : request.path;
  std::string scope = CredentialScope(*date, region_, service_);
  HeaderSignature out;
  out.details.canonical_request =
      CanonicalRequest(request.method, EncodeCanonicalUri(path),
                       CanonicalQueryString(request.query), headers, request.payload_sha256);
  out.details.string_to_sign = StringToSign(*date, scope, out.details.canonical_request);
  SigningKey key = key_cache_->Get(credentials.secret_access_key, date->date);
  out.details.signature = LowerHex(HmacSha256(key, out.details.string_to_sign));

  out.authorization.reserve(200);
  out.authorization.append(kSigV4Algorithm);
  out.authorization.append(" Credential=").append(credentials.access_key_id);
  out.authorization.append("/").append(scope);
  out.authorization.append(", SignedHeaders=").append(headers.signed_headers);
  out.authorization.append(", Signature=").append(out.details.signature);

  out.headers.reserve(4);
  out.headers.push_back({"X-Amz-Date", date->date_time});
  if (options_.sign_content_sha256_header) {
    out.headers.push_back({"x-amz-content-sha256", request.payload_sha256});
  }
  if (token.has_value()) out.headers.push_back({"X-Amz-Security-Token", *token});
  out.headers.push_back({"Authorization", out.authorization});
  return out;
}

absl::StatusOr<PresignedQuery> SigV4Signer::Presign(const SigningRequest& request,
                                                    const Credentials& credentials, absl::Time now,
                                                    absl::Duration expires) const {
  if (absl::Status status = ValidateCredentials(credentials); !status.ok()) return status;
  if (absl::Status status = ValidateRequest(request); !status.ok()) return status;
  if (!options_.presign_unsigned_payload) {
    if (absl::Status status = ValidatePayloadHash(request.payload_sha256); !status.ok()) {
      return status;
    }
  }
  if (expires < absl::Seconds(1) || expires > kMaxPresignExpiry ||
      expires != absl::Seconds(absl::ToInt64Seconds(expires))) {
    return absl::InvalidArgumentError(
        "SigV4: a presigned URL expires after a whole number of seconds in 1..604800");
  }
  for (const QueryParameter& parameter : request.query) {
    for (std::string_view owned : kPresignOwnedParameters) {
      if (EqualsIgnoreCase(parameter.key, owned)) {
        return absl::InvalidArgumentError("SigV4: query parameter '" + std::string(owned) +
                                          "' is added by the signer and cannot be given");
      }
    }
  }
  absl::StatusOr<AmzDate> date = FormatAmzDate(now);
  if (!date.ok()) return date.status();

  const std::optional<std::string>& token = credentials.session_token;
  bool sign_token = token.has_value() && options_.sign_session_token;
  CanonicalHeaders headers = Canonicalize(RequestHeaderEntries(request, 0));
  std::string scope = CredentialScope(*date, region_, service_);

  CanonicalQueryBuilder query(request.query.size() + 6);
  for (const QueryParameter& parameter : request.query) query.Add(parameter.key, parameter.value);
  query.Add("X-Amz-Algorithm", kSigV4Algorithm);
  query.Add("X-Amz-Credential", credentials.access_key_id + "/" + scope);
  query.Add("X-Amz-Date", date->date_time);
  query.Add("X-Amz-Expires", std::to_string(absl::ToInt64Seconds(expires)));
  if (sign_token) query.Add("X-Amz-Security-Token", *token);
  query.Add("X-Amz-SignedHeaders", headers.signed_headers);
  std::string canonical_query = query.Build();

  std::string path = options_.normalize_path ? NormalizePath(request.path) : request.path;
  std::string_view payload =
      options_.presign_unsigned_payload ? kUnsignedPayload : request.payload_sha256;
  PresignedQuery out;
  out.details.canonical_request =
      CanonicalRequest(request.method, EncodeCanonicalUri(path), canonical_query, headers, payload);
  out.details.string_to_sign = StringToSign(*date, scope, out.details.canonical_request);
  SigningKey key = key_cache_->Get(credentials.secret_access_key, date->date);
  out.details.signature = LowerHex(HmacSha256(key, out.details.string_to_sign));

  out.query = std::move(canonical_query);
  if (token.has_value() && !sign_token) {
    out.query.append("&X-Amz-Security-Token=").append(EncodeQueryComponent(*token));
  }
  out.query.append("&X-Amz-Signature=").append(out.details.signature);
  return out;
}

}  // namespace lake::s3http
