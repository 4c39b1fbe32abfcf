// The SigV4 signer against the aws-sig-v4-test-suite (every case that
// applies to S3, in header and query mode), the five worked examples of the
// S3 API reference (s3-examples.json), and S3's own rules: keys encoded once
// and never normalised, expiry bounds, refused header bytes, and secrets
// that never leak. Test data: $LAKE_TESTDATA/sigv4 (missing data fails).
#include "io/s3http/sigv4_signer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::s3http {
namespace {

using nlohmann::json;

// ---- Test data

std::string SigV4DataDir() {
  const char* root = std::getenv("LAKE_TESTDATA");
  REQUIRE_MESSAGE(root != nullptr,
                  "LAKE_TESTDATA is not set (meson test sets it; by hand: "
                  "LAKE_TESTDATA=<project>/tests/testdata)");
  return std::string(root) + "/sigv4";
}

std::string SuiteDir() { return SigV4DataDir() + "/aws-sig-v4-test-suite"; }

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json ReadJson(const std::string& path) {
  json parsed = json::parse(ReadText(path), nullptr, /*allow_exceptions=*/false);
  REQUIRE_MESSAGE(!parsed.is_discarded(), "invalid JSON in " << path);
  return parsed;
}

std::string JsonString(const json& object, const char* key) {
  REQUIRE_MESSAGE((object.contains(key) && object[key].is_string()), "missing string " << key);
  return object[key].get<std::string>();
}

// The 38 case folders: 32 that apply to S3, and 6 that do not. The
// README ("Which cases apply to S3") excludes "the six cases with
// "normalize": true that have dot segments or repeated slashes. S3 would
// sign the literal path." Their *-unnormalized twins show the S3 behaviour
// and are applicable.
const std::vector<std::string> kApplicableCases = {
    "get-header-key-duplicate",
    "get-header-value-multiline",
    "get-header-value-order",
    "get-header-value-trim",
    "get-relative-relative-unnormalized",
    "get-relative-unnormalized",
    "get-slash-dot-slash-unnormalized",
    "get-slash-pointless-dot-unnormalized",
    "get-slash-unnormalized",
    "get-slashes-unnormalized",
    "get-space-normalized",  // nothing to normalise: applies
    "get-space-unnormalized",
    "get-unreserved",
    "get-utf8",
    "get-vanilla",
    "get-vanilla-empty-query-key",
    "get-vanilla-query",
    "get-vanilla-query-order-encoded",
    "get-vanilla-query-order-key-case",
    "get-vanilla-query-unreserved",
    "get-vanilla-utf8-query",
    "get-vanilla-with-session-token",
    "post-header-key-case",
    "post-header-key-sort",
    "post-header-value-case",
    // Generic services attach the token after signing; reproduced with
    // sign_session_token off (S3 signs it: see post-sts-header-before).
    "post-sts-header-after",
    "post-sts-header-before",
    "post-vanilla",
    "post-vanilla-empty-query-value",
    "post-vanilla-query",
    "post-x-www-form-urlencoded",
    "post-x-www-form-urlencoded-parameters",
};
const std::vector<std::string> kNotApplicableToS3 = {
    "get-relative-normalized",             // "/example/.."              -> "/"
    "get-relative-relative-normalized",    // "/example1/example2/../.." -> "/"
    "get-slash-dot-slash-normalized",      // "/./"                      -> "/"
    "get-slash-normalized",                // "//"                       -> "/"
    "get-slash-pointless-dot-normalized",  // "/./example"               -> "/example"
    "get-slashes-normalized",              // "//example//"              -> "/example/"
};

// ---- request.txt

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string PercentDecode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%') {
      REQUIRE(i + 2 < text.size());
      int hi = HexDigit(text[i + 1]);
      int lo = HexDigit(text[i + 2]);
      REQUIRE((hi >= 0 && lo >= 0));
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::vector<QueryParameter> ParseQuery(const std::string& query) {
  std::vector<QueryParameter> parameters;
  if (query.empty()) return parameters;
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t end = query.find('&', pos);
    if (end == std::string::npos) end = query.size();
    std::string item = query.substr(pos, end - pos);
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      parameters.push_back({PercentDecode(item), ""});
    } else {
      parameters.push_back({PercentDecode(item.substr(0, eq)), PercentDecode(item.substr(eq + 1))});
    }
    pos = end + 1;
  }
  return parameters;
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

struct HttpMessage {
  std::string method;
  std::string target;  // path and query, as on the request line
  std::vector<HttpHeader> headers;
  std::string body;
};

// The suite's HTTP text: a request line "METHOD SP target SP HTTP/1.1" (the
// target may hold raw spaces), headers, an optional blank line and body. A
// header line that starts with whitespace continues the previous header;
// it is joined with one space (the signer collapses whitespace runs, so the
// value reads "value1 value2 value3", as the suite expects).
HttpMessage ParseHttpMessage(const std::string& text) {
  std::vector<std::string> lines = SplitLines(text);
  REQUIRE(!lines.empty());
  HttpMessage message;
  const std::string& request_line = lines[0];
  size_t first_space = request_line.find(' ');
  const std::string version = " HTTP/1.1";
  REQUIRE(first_space != std::string::npos);
  REQUIRE(request_line.size() > first_space + version.size());
  REQUIRE(request_line.compare(request_line.size() - version.size(), version.size(), version) == 0);
  message.method = request_line.substr(0, first_space);
  message.target =
      request_line.substr(first_space + 1, request_line.size() - version.size() - first_space - 1);
  size_t i = 1;
  for (; i < lines.size() && !lines[i].empty(); ++i) {
    const std::string& line = lines[i];
    if (line[0] == ' ' || line[0] == '\t') {
      REQUIRE(!message.headers.empty());
      message.headers.back().value += " " + line;
      continue;
    }
    size_t colon = line.find(':');
    REQUIRE(colon != std::string::npos);
    message.headers.push_back({line.substr(0, colon), line.substr(colon + 1)});
  }
  if (i < lines.size()) {
    size_t body_start = 0;
    for (size_t k = 0; k <= i; ++k) body_start += lines[k].size() + 1;
    message.body = body_start < text.size() ? text.substr(body_start) : "";
  }
  return message;
}

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

struct SuiteCase {
  std::string name;
  SigningRequest request;
  Credentials credentials;
  std::string region;
  std::string service;
  absl::Time time;
  absl::Duration expires;
  SigningOptions options;  // the switches the case needs
  json context;
};

absl::Time ParseRfc3339(const std::string& text) {
  absl::Time time;
  std::string error;
  REQUIRE_MESSAGE(absl::ParseTime(absl::RFC3339_full, text, &time, &error), error);
  return time;
}

SuiteCase LoadSuiteCase(const std::string& name) {
  SuiteCase c;
  c.name = name;
  std::string dir = SuiteDir() + "/" + name;
  HttpMessage message = ParseHttpMessage(ReadText(dir + "/request.txt"));
  c.request.method = message.method;
  size_t question = message.target.find('?');
  c.request.path = message.target.substr(0, question);
  // No suite path holds '%': the path as written is the decoded path, and
  // one encoding pass gives the expected canonical URI (README).
  REQUIRE(c.request.path.find('%') == std::string::npos);
  if (question != std::string::npos)
    c.request.query = ParseQuery(message.target.substr(question + 1));
  for (const HttpHeader& header : message.headers) {
    if (Lower(header.name) == "host") {
      c.request.host = Trim(header.value);
    } else {
      c.request.headers.push_back(header);
    }
  }
  REQUIRE(!c.request.host.empty());
  c.request.payload_sha256 = testing::Sha256Hex(
      reinterpret_cast<const uint8_t*>(message.body.data()), message.body.size());

  c.context = ReadJson(dir + "/context.json");
  const json& credentials = c.context["credentials"];
  c.credentials.access_key_id = JsonString(credentials, "access_key_id");
  c.credentials.secret_access_key = JsonString(credentials, "secret_access_key");
  if (credentials.contains("token")) c.credentials.session_token = JsonString(credentials, "token");
  c.region = JsonString(c.context, "region");
  c.service = JsonString(c.context, "service");
  c.time = ParseRfc3339(JsonString(c.context, "timestamp"));
  REQUIRE(c.context["expiration_in_seconds"].is_number_integer());
  c.expires = absl::Seconds(c.context["expiration_in_seconds"].get<int64_t>());

  // S3 signs the literal path, whatever the case's "normalize" says (the
  // applicable cases have nothing to normalise). The generic suite signs
  // x-amz-content-sha256 only when "sign_body" is set, presigns with the
  // body's hash, and leaves the token unsigned when "omit_session_token".
  c.options.normalize_path = false;
  REQUIRE(c.context["sign_body"].is_boolean());
  c.options.sign_content_sha256_header = c.context["sign_body"].get<bool>();
  c.options.presign_unsigned_payload = false;
  c.options.sign_session_token =
      !(c.context.contains("omit_session_token") && c.context["omit_session_token"].get<bool>());
  return c;
}

SigV4Signer MakeSigner(const std::string& region, const std::string& service,
                       SigningOptions options = {}) {
  absl::StatusOr<SigV4Signer> signer = SigV4Signer::Create(region, service, options);
  LAKE_REQUIRE_OK(signer);
  return std::move(*signer);
}

// A suite case signed in each mode, with `options` (default: the case's).
HeaderSignature SignByHeader(const SuiteCase& c, std::optional<SigningOptions> options = {}) {
  SigV4Signer signer = MakeSigner(c.region, c.service, options.value_or(c.options));
  absl::StatusOr<HeaderSignature> signed_request =
      signer.SignHeaders(c.request, c.credentials, c.time);
  LAKE_REQUIRE_OK(signed_request);
  return *std::move(signed_request);
}

PresignedQuery SignByQuery(const SuiteCase& c, std::optional<SigningOptions> options = {}) {
  SigV4Signer signer = MakeSigner(c.region, c.service, options.value_or(c.options));
  absl::StatusOr<PresignedQuery> presigned =
      signer.Presign(c.request, c.credentials, c.time, c.expires);
  LAKE_REQUIRE_OK(presigned);
  return *std::move(presigned);
}

std::string CaseFile(const std::string& name, const std::string& file) {
  return ReadText(SuiteDir() + "/" + name + "/" + file);
}

std::string HeaderValue(const std::vector<HttpHeader>& headers, const std::string& name) {
  for (const HttpHeader& header : headers) {
    if (Lower(header.name) == Lower(name)) return header.value;
  }
  FAIL("no header " << name);
  return "";
}

// (lowercase name, value) pairs, sorted: a multiset of headers.
std::multiset<std::pair<std::string, std::string>> HeaderSet(
    const std::vector<HttpHeader>& headers) {
  std::multiset<std::pair<std::string, std::string>> set;
  for (const HttpHeader& header : headers) set.insert({Lower(header.name), header.value});
  return set;
}

// A query as a multiset of canonically encoded "k=v" items.
std::multiset<std::string> QueryItemSet(const std::string& query) {
  std::multiset<std::string> items;
  for (const QueryParameter& p : ParseQuery(query)) {
    items.insert(EncodeQueryComponent(p.key) + "=" + EncodeQueryComponent(p.value));
  }
  return items;
}

// ---- The aws-sig-v4-test-suite

TEST_CASE("SigV4: the suite holds 38 cases: 32 apply to S3 and 6 (path normalisation) do not") {
  CHECK(kApplicableCases.size() == 32);
  CHECK(kNotApplicableToS3.size() == 6);
  std::set<std::string> listed(kApplicableCases.begin(), kApplicableCases.end());
  listed.insert(kNotApplicableToS3.begin(), kNotApplicableToS3.end());
  CHECK(listed.size() == 38);
  for (const std::string& name : listed) {
    CAPTURE(name);
    // Every expected file is present (ReadText fails the test otherwise).
    for (const char* file :
         {"request.txt", "context.json", "header-canonical-request.txt",
          "header-string-to-sign.txt", "header-signature.txt", "header-signed-request.txt",
          "query-canonical-request.txt", "query-string-to-sign.txt", "query-signature.txt",
          "query-signed-request.txt"}) {
      ReadText(SuiteDir() + "/" + name + "/" + file);
    }
  }
  for (const std::string& name : kNotApplicableToS3) {
    CAPTURE(name);
    json context = ReadJson(SuiteDir() + "/" + name + "/context.json");
    CHECK(context["normalize"] == true);
  }
}

TEST_CASE("SigV4: header signing reproduces every S3-applicable suite case byte for byte") {
  for (const std::string& name : kApplicableCases) {
    CAPTURE(name);
    HeaderSignature signed_request = SignByHeader(LoadSuiteCase(name));
    CHECK(signed_request.details.canonical_request ==
          CaseFile(name, "header-canonical-request.txt"));
    CHECK(signed_request.details.string_to_sign == CaseFile(name, "header-string-to-sign.txt"));
    CHECK(signed_request.details.signature == CaseFile(name, "header-signature.txt"));
    HttpMessage expected = ParseHttpMessage(CaseFile(name, "header-signed-request.txt"));
    CHECK(signed_request.authorization == HeaderValue(expected.headers, "Authorization"));
  }
}

TEST_CASE("SigV4: header signing adds exactly the headers of the suite's signed requests") {
  // Including post-sts-header-after's unsigned X-Amz-Security-Token.
  for (const std::string& name : kApplicableCases) {
    CAPTURE(name);
    HeaderSignature signed_request = SignByHeader(LoadSuiteCase(name));
    auto before = HeaderSet(ParseHttpMessage(CaseFile(name, "request.txt")).headers);
    auto after = HeaderSet(ParseHttpMessage(CaseFile(name, "header-signed-request.txt")).headers);
    std::multiset<std::pair<std::string, std::string>> added;
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                        std::inserter(added, added.end()));
    CHECK(HeaderSet(signed_request.headers) == added);
  }
}

TEST_CASE("SigV4: query signing reproduces every S3-applicable suite case byte for byte") {
  for (const std::string& name : kApplicableCases) {
    CAPTURE(name);
    PresignedQuery presigned = SignByQuery(LoadSuiteCase(name));
    CHECK(presigned.details.canonical_request == CaseFile(name, "query-canonical-request.txt"));
    CHECK(presigned.details.string_to_sign == CaseFile(name, "query-string-to-sign.txt"));
    CHECK(presigned.details.signature == CaseFile(name, "query-signature.txt"));
  }
}

TEST_CASE(
    "SigV4: the presigned query carries exactly the parameters of the suite's signed requests") {
  // Including post-sts-header-after's unsigned X-Amz-Security-Token.
  for (const std::string& name : kApplicableCases) {
    CAPTURE(name);
    PresignedQuery presigned = SignByQuery(LoadSuiteCase(name));
    HttpMessage expected = ParseHttpMessage(CaseFile(name, "query-signed-request.txt"));
    size_t question = expected.target.find('?');
    REQUIRE(question != std::string::npos);
    CHECK(QueryItemSet(presigned.query) == QueryItemSet(expected.target.substr(question + 1)));
    // The signature comes last, after everything that was signed.
    std::string tail = "&X-Amz-Signature=" + presigned.details.signature;
    REQUIRE(presigned.query.size() > tail.size());
    CHECK(presigned.query.substr(presigned.query.size() - tail.size()) == tail);
  }
}

TEST_CASE("SigV4: the six normalising suite cases match only with path normalisation switched on") {
  for (const std::string& name : kNotApplicableToS3) {
    CAPTURE(name);
    SuiteCase c = LoadSuiteCase(name);
    SigningOptions generic = c.options;
    generic.normalize_path = true;
    HeaderSignature by_header = SignByHeader(c, generic);
    CHECK(by_header.details.canonical_request == CaseFile(name, "header-canonical-request.txt"));
    CHECK(by_header.details.signature == CaseFile(name, "header-signature.txt"));
    PresignedQuery by_query = SignByQuery(c, generic);
    CHECK(by_query.details.canonical_request == CaseFile(name, "query-canonical-request.txt"));
    CHECK(by_query.details.signature == CaseFile(name, "query-signature.txt"));

    // S3 (the default) signs the literal path: the *-unnormalized twin.
    HeaderSignature literal = SignByHeader(c);
    std::string twin =
        name.substr(0, name.size() - std::string("normalized").size()) + "unnormalized";
    CHECK(literal.details.canonical_request == CaseFile(twin, "header-canonical-request.txt"));
    CHECK(literal.details.signature != by_header.details.signature);
  }
}

// ---- s3-examples.json

struct S3Examples {
  std::string region;
  std::string service;
  std::string amz_date;
  Credentials credentials;
  absl::Time time;
  std::vector<json> header_signed;  // "signing": "header"
  std::vector<json> query_signed;   // "signing": "query"
};

S3Examples LoadS3Examples() {
  S3Examples examples;
  json root = ReadJson(SigV4DataDir() + "/s3-examples.json");
  examples.region = JsonString(root, "region");
  examples.service = JsonString(root, "service");
  examples.credentials.access_key_id = JsonString(root["credentials"], "access_key_id");
  examples.credentials.secret_access_key = JsonString(root["credentials"], "secret_access_key");
  // "20130524T000000Z" (absl::ParseTime's %Y would read every digit).
  examples.amz_date = JsonString(root, "amz_date");
  REQUIRE(examples.amz_date.size() == 16);
  auto field = [&](size_t pos, size_t len) {
    return std::stoi(examples.amz_date.substr(pos, len));
  };
  examples.time = absl::FromCivil(absl::CivilSecond(field(0, 4), field(4, 2), field(6, 2),
                                                    field(9, 2), field(11, 2), field(13, 2)),
                                  absl::UTCTimeZone());
  CHECK(JsonString(root, "date") == examples.amz_date.substr(0, 8));
  REQUIRE(root["examples"].is_array());
  for (const json& example : root["examples"]) {
    std::string signing = JsonString(example, "signing");
    REQUIRE((signing == "header" || signing == "query"));
    (signing == "header" ? examples.header_signed : examples.query_signed).push_back(example);
  }
  REQUIRE(examples.header_signed.size() == 4);
  REQUIRE(examples.query_signed.size() == 1);
  return examples;
}

// The example's request as lake's request layer would describe it: the
// signer adds x-amz-date and x-amz-content-sha256 itself, and Host is a
// field of its own.
SigningRequest S3ExampleRequest(const json& example, const std::string& amz_date) {
  SigningRequest request;
  request.method = JsonString(example, "method");
  request.path = JsonString(example, "path");
  for (const json& pair : example["query"]) {
    request.query.push_back({pair[0].get<std::string>(), pair[1].get<std::string>()});
  }
  request.payload_sha256 = JsonString(example, "payload_sha256");
  for (const json& pair : example["headers"]) {
    std::string name = pair[0].get<std::string>();
    std::string value = pair[1].get<std::string>();
    if (name == "host") {
      request.host = value;
    } else if (name == "x-amz-date") {
      CHECK(value == amz_date);
    } else if (name == "x-amz-content-sha256") {
      CHECK(value == request.payload_sha256);
    } else {
      request.headers.push_back({name, value});
    }
  }
  return request;
}

TEST_CASE("SigV4: the four header-signed S3 examples are reproduced with the S3 defaults") {
  S3Examples examples = LoadS3Examples();
  SigV4Signer signer = MakeSigner(examples.region, examples.service);
  for (const json& example : examples.header_signed) {
    CAPTURE(JsonString(example, "name"));
    SigningRequest request = S3ExampleRequest(example, examples.amz_date);
    std::string payload = JsonString(example, "payload");
    CHECK(testing::Sha256Hex(reinterpret_cast<const uint8_t*>(payload.data()), payload.size()) ==
          request.payload_sha256);
    CHECK(PayloadSha256Hex(payload) == request.payload_sha256);
    CHECK(EncodeCanonicalUri(request.path) == JsonString(example, "canonical_uri"));
    absl::StatusOr<HeaderSignature> signed_request =
        signer.SignHeaders(request, examples.credentials, examples.time);
    LAKE_REQUIRE_OK(signed_request);
    CHECK(signed_request->details.canonical_request == JsonString(example, "canonical_request"));
    CHECK(signed_request->details.string_to_sign == JsonString(example, "string_to_sign"));
    CHECK(signed_request->details.signature == JsonString(example, "signature"));
    CHECK(signed_request->authorization ==
          "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
          "SignedHeaders=" +
              JsonString(example, "signed_headers") +
              ", Signature=" + JsonString(example, "signature"));
  }
}

TEST_CASE("SigV4: the presigned S3 example (X-Amz-Expires=86400) is reproduced, URL included") {
  S3Examples examples = LoadS3Examples();
  SigV4Signer signer = MakeSigner(examples.region, examples.service);
  for (const json& example : examples.query_signed) {
    CAPTURE(JsonString(example, "name"));
    SigningRequest request = S3ExampleRequest(example, examples.amz_date);
    // Its "query" lists the X-Amz-* parameters the signer adds (notes);
    // the request itself has none.
    for (const QueryParameter& p : request.query) CHECK(p.key.rfind("X-Amz-", 0) == 0);
    std::string listed = CanonicalQueryString(request.query);
    request.query.clear();
    request.payload_sha256.clear();  // presigned: UNSIGNED-PAYLOAD regardless
    absl::StatusOr<PresignedQuery> presigned =
        signer.Presign(request, examples.credentials, examples.time,
                       absl::Seconds(example["expires"].get<int64_t>()));
    LAKE_REQUIRE_OK(presigned);
    CHECK(presigned->details.canonical_request == JsonString(example, "canonical_request"));
    CHECK(presigned->details.string_to_sign == JsonString(example, "string_to_sign"));
    CHECK(presigned->details.signature == JsonString(example, "signature"));
    CHECK(presigned->query == listed + "&X-Amz-Signature=" + JsonString(example, "signature"));
    CHECK("https://" + request.host + EncodeCanonicalUri(request.path) + "?" + presigned->query ==
          JsonString(example, "presigned_url"));
  }
}

// ---- S3 path rules

const Credentials kCredentials = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                  std::nullopt};
const absl::Time kTime = absl::FromUnixSeconds(1440938160);  // 2015-08-30T12:36:00Z

SigningRequest BasicRequest(std::string path) {
  SigningRequest request;
  request.method = "GET";
  request.host = "bucket.s3.us-east-1.amazonaws.com";
  request.path = std::move(path);
  request.payload_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  return request;
}

// The second line of a canonical request.
std::string CanonicalUriOf(const std::string& canonical_request) {
  size_t first = canonical_request.find('\n');
  size_t second = canonical_request.find('\n', first + 1);
  return canonical_request.substr(first + 1, second - first - 1);
}

// The canonical URI that header signing and presigning each sign for `path`.
std::pair<std::string, std::string> SignedCanonicalUris(const SigV4Signer& signer,
                                                        const std::string& path) {
  absl::StatusOr<HeaderSignature> by_header =
      signer.SignHeaders(BasicRequest(path), kCredentials, kTime);
  LAKE_REQUIRE_OK(by_header);
  absl::StatusOr<PresignedQuery> by_query =
      signer.Presign(BasicRequest(path), kCredentials, kTime, absl::Hours(1));
  LAKE_REQUIRE_OK(by_query);
  return {CanonicalUriOf(by_header->details.canonical_request),
          CanonicalUriOf(by_query->details.canonical_request)};
}

TEST_CASE(
    "SigV4: object keys with spaces, reserved characters and UTF-8 are encoded exactly once") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/bucket/my key.txt", "/bucket/my%20key.txt"},
      {"/bucket/a+b", "/bucket/a%2Bb"},
      {"/bucket/100%", "/bucket/100%25"},
      {"/bucket/already%2Fencoded", "/bucket/already%252Fencoded"},
      {"/bucket/frag#ment", "/bucket/frag%23ment"},
      {"/bucket/what?x=1&y", "/bucket/what%3Fx%3D1%26y"},
      {"/bucket/caf\xC3\xA9/\xE1\x88\xB4", "/bucket/caf%C3%A9/%E1%88%B4"},
      {"/bucket/-._~AZaz09", "/bucket/-._~AZaz09"},
      {"/bucket/!*'();:@$,[]", "/bucket/%21%2A%27%28%29%3B%3A%40%24%2C%5B%5D"},
      {std::string("/bucket/nul\0tab\t", 16), "/bucket/nul%00tab%09"},
      {"/bucket/\x7F\xFF", "/bucket/%7F%FF"},
  };
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const auto& [path, encoded] : cases) {
    CAPTURE(path);
    CHECK(EncodeCanonicalUri(path) == encoded);
    CHECK(SignedCanonicalUris(signer, path) == std::make_pair(encoded, encoded));
  }
}

TEST_CASE("SigV4: '.', '..' and repeated slashes in keys are signed literally, never normalised") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const std::string path : {"/bucket/a/../b", "/bucket/./a", "/bucket//a//b//", "/bucket/..",
                                 "/bucket/a/.", "//", "/.../..../"}) {
    CAPTURE(path);
    CHECK(EncodeCanonicalUri(path) == path);
    CHECK(SignedCanonicalUris(signer, path) == std::make_pair(path, path));
  }
}

TEST_CASE(
    "SigV4: path normalisation (generic services only) removes dot segments and empty segments") {
  CHECK(NormalizePath("/") == "/");
  CHECK(NormalizePath("/example/..") == "/");
  CHECK(NormalizePath("/example1/example2/../..") == "/");
  CHECK(NormalizePath("/./") == "/");
  CHECK(NormalizePath("//") == "/");
  CHECK(NormalizePath("/./example") == "/example");
  CHECK(NormalizePath("//example//") == "/example/");
  CHECK(NormalizePath("/a/b/../c/./d") == "/a/c/d");
  CHECK(NormalizePath("/a/b/.") == "/a/b/");
  CHECK(NormalizePath("/a/b/..") == "/a/");
  CHECK(NormalizePath("/../../a") == "/a");
  CHECK(NormalizePath("/example space/") == "/example space/");
  CHECK(NormalizePath("/.../a") == "/.../a");
}

TEST_CASE("SigV4: the request path must start with '/'") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const std::string path : {"", "bucket/key", "%2Fkey"}) {
    CAPTURE(path);
    CHECK(signer.SignHeaders(BasicRequest(path), kCredentials, kTime).status().code() ==
          absl::StatusCode::kInvalidArgument);
    CHECK(signer.Presign(BasicRequest(path), kCredentials, kTime, absl::Hours(1)).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
}

// ---- Query strings

TEST_CASE("SigV4: query components encode everything but unreserved bytes, '/' and '=' included") {
  CHECK(EncodeQueryComponent("") == "");
  CHECK(EncodeQueryComponent("-._~AZaz09") == "-._~AZaz09");
  CHECK(EncodeQueryComponent("a/b") == "a%2Fb");
  CHECK(EncodeQueryComponent("k=v&x") == "k%3Dv%26x");
  CHECK(EncodeQueryComponent("a b+c") == "a%20b%2Bc");
  CHECK(EncodeQueryComponent("100%") == "100%25");
  CHECK(EncodeQueryComponent("\xE1\x88\xB4") == "%E1%88%B4");
  CHECK(EncodeQueryComponent("#?") == "%23%3F");
}

TEST_CASE("SigV4: the canonical query sorts by encoded key, then value, and keeps duplicates") {
  std::vector<QueryParameter> parameters = {
      {"b", "2"},
      {"a", "2"},
      {"a", "1"},
      {"A", "z"},
      {"a b", "x"},
      {"a", ""},
      {"prefix", "dir/sub dir/"},
  };
  CHECK(CanonicalQueryString(parameters) == "A=z&a=&a=1&a=2&a%20b=x&b=2&prefix=dir%2Fsub%20dir%2F");
  CHECK(CanonicalQueryString({}) == "");
  // Sorted by the encoded bytes: "%" (0x25) sorts before letters and "-".
  std::vector<QueryParameter> encoded_order = {
      {"Param-3", "Value3"}, {"Param", "Value2"}, {"\xE1\x88\xB4", "Value1"}};
  CHECK(CanonicalQueryString(encoded_order) == "%E1%88%B4=Value1&Param=Value2&Param-3=Value3");
}

TEST_CASE("SigV4: a listing prefix with spaces and reserved characters is signed encoded once") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  SigningRequest request = BasicRequest("/bucket");
  request.query = {
      {"list-type", "2"}, {"prefix", "tenant a/x+y%z?#/\xC3\xA9/"}, {"delimiter", "/"}};
  absl::StatusOr<HeaderSignature> signed_request = signer.SignHeaders(request, kCredentials, kTime);
  LAKE_REQUIRE_OK(signed_request);
  std::vector<std::string> lines = SplitLines(signed_request->details.canonical_request);
  REQUIRE(lines.size() > 2);
  CHECK(lines[2] == "delimiter=%2F&list-type=2&prefix=tenant%20a%2Fx%2By%25z%3F%23%2F%C3%A9%2F");
}

// ---- Headers

TEST_CASE(
    "SigV4: header names are lower-cased and sorted; values trimmed, whitespace runs collapsed, "
    "duplicates joined in order") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  SigningRequest request = BasicRequest("/bucket/key");
  request.method = "PUT";
  request.headers = {
      {"X-Amz-Meta-Note", " \t two   words\t\tand  a tab \t"},
      {"Content-Type", "text/plain"},
      {"x-amz-meta-list", "b"},
      {"X-AMZ-META-LIST", "  a "},
      {"x-amz-meta-empty", ""},
      {"Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="},
  };
  absl::StatusOr<HeaderSignature> signed_request = signer.SignHeaders(request, kCredentials, kTime);
  LAKE_REQUIRE_OK(signed_request);
  CHECK(signed_request->details.canonical_request ==
        "PUT\n/bucket/key\n\n"
        "content-md5:1B2M2Y8AsgTpgAmY7PhCfg==\n"
        "content-type:text/plain\n"
        "host:bucket.s3.us-east-1.amazonaws.com\n"
        "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        "x-amz-date:20150830T123600Z\n"
        "x-amz-meta-empty:\n"
        "x-amz-meta-list:b,a\n"
        "x-amz-meta-note:two words and a tab\n"
        "\n"
        "content-md5;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-meta-empty;"
        "x-amz-meta-list;x-amz-meta-note\n"
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("SigV4: a header value holding CR, LF or NUL is refused") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const std::string& value :
       {std::string("a\rb"), std::string("a\nb"), std::string("a\r\nX-Evil: 1"),
        std::string("a\0b", 3), std::string("\n")}) {
    SigningRequest request = BasicRequest("/bucket/key");
    request.headers = {{"x-amz-meta-user", value}};
    absl::StatusOr<HeaderSignature> by_header = signer.SignHeaders(request, kCredentials, kTime);
    CHECK(by_header.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(by_header.status().message().find("x-amz-meta-user") != std::string_view::npos);
    CHECK(signer.Presign(request, kCredentials, kTime, absl::Hours(1)).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("SigV4: a header name that is not an HTTP token is refused") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const std::string& name :
       {std::string(""), std::string("x amz"), std::string("x:y"), std::string("x\r\ny"),
        std::string("x\0y", 3), std::string("caf\xC3\xA9")}) {
    SigningRequest request = BasicRequest("/bucket/key");
    request.headers = {{name, "v"}};
    CHECK(signer.SignHeaders(request, kCredentials, kTime).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("SigV4: headers the signer owns cannot be passed in, in any case") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const std::string name :
       {"Host", "authorization", "X-Amz-Date", "X-AMZ-CONTENT-SHA256", "x-amz-security-token"}) {
    CAPTURE(name);
    SigningRequest request = BasicRequest("/bucket/key");
    request.headers = {{name, "v"}};
    CHECK(signer.SignHeaders(request, kCredentials, kTime).status().code() ==
          absl::StatusCode::kInvalidArgument);
    CHECK(signer.Presign(request, kCredentials, kTime, absl::Hours(1)).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("SigV4: the method and host must be clean HTTP text") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const std::string method : {"", "GET ", "G\nET"}) {
    SigningRequest request = BasicRequest("/k");
    request.method = method;
    CHECK(signer.SignHeaders(request, kCredentials, kTime).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
  for (const std::string host : {"", "a b", "host\r\nX: y", "host\t"}) {
    SigningRequest request = BasicRequest("/k");
    request.host = host;
    CHECK(signer.SignHeaders(request, kCredentials, kTime).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
  SigningRequest with_port = BasicRequest("/k");
  with_port.host = "127.0.0.1:9000";
  absl::StatusOr<HeaderSignature> signed_request =
      signer.SignHeaders(with_port, kCredentials, kTime);
  LAKE_REQUIRE_OK(signed_request);
  CHECK(signed_request->details.canonical_request.find("\nhost:127.0.0.1:9000\n") !=
        std::string::npos);
}

// ---- Payload hash, S3 defaults, switches

TEST_CASE("SigV4: the payload hash is 64 lowercase hex digits or UNSIGNED-PAYLOAD") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const std::string hash :
       {"", "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n", "unsigned-payload",
        "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"}) {
    CAPTURE(hash);
    SigningRequest request = BasicRequest("/k");
    request.payload_sha256 = hash;
    CHECK(signer.SignHeaders(request, kCredentials, kTime).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
  SigningRequest unsigned_payload = BasicRequest("/k");
  unsigned_payload.method = "PUT";
  unsigned_payload.payload_sha256 = "UNSIGNED-PAYLOAD";
  absl::StatusOr<HeaderSignature> signed_request =
      signer.SignHeaders(unsigned_payload, kCredentials, kTime);
  LAKE_REQUIRE_OK(signed_request);
  CHECK(HeaderValue(signed_request->headers, "x-amz-content-sha256") == "UNSIGNED-PAYLOAD");
  const std::string& canonical = signed_request->details.canonical_request;
  CHECK(canonical.substr(canonical.rfind('\n') + 1) == "UNSIGNED-PAYLOAD");
}

TEST_CASE("SigV4: S3 header signing signs x-amz-content-sha256 and the session token") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  Credentials temporary = kCredentials;
  temporary.session_token = "FQoGZXIvYXdzE+/token==";
  absl::StatusOr<HeaderSignature> signed_request =
      signer.SignHeaders(BasicRequest("/bucket/key"), temporary, kTime);
  LAKE_REQUIRE_OK(signed_request);
  CHECK(signed_request->details.canonical_request ==
        "GET\n/bucket/key\n\n"
        "host:bucket.s3.us-east-1.amazonaws.com\n"
        "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        "x-amz-date:20150830T123600Z\n"
        "x-amz-security-token:FQoGZXIvYXdzE+/token==\n"
        "\n"
        "host;x-amz-content-sha256;x-amz-date;x-amz-security-token\n"
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  REQUIRE(signed_request->headers.size() == 4);
  CHECK(signed_request->headers[0].name == "X-Amz-Date");
  CHECK(signed_request->headers[0].value == "20150830T123600Z");
  CHECK(signed_request->headers[1].name == "x-amz-content-sha256");
  CHECK(signed_request->headers[2].name == "X-Amz-Security-Token");
  CHECK(signed_request->headers[2].value == "FQoGZXIvYXdzE+/token==");
  CHECK(signed_request->headers[3].name == "Authorization");
  CHECK(signed_request->headers[3].value == signed_request->authorization);
  CHECK(signed_request->authorization ==
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=" +
            signed_request->details.signature);
}

TEST_CASE("SigV4: S3 presigned URLs sign UNSIGNED-PAYLOAD and the session token") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  Credentials temporary = kCredentials;
  temporary.session_token = "tok/en+=";
  SigningRequest request = BasicRequest("/bucket/key");
  request.payload_sha256.clear();  // not read when presigning for S3
  absl::StatusOr<PresignedQuery> presigned =
      signer.Presign(request, temporary, kTime, absl::Hours(1));
  LAKE_REQUIRE_OK(presigned);
  std::string expected_query =
      "X-Amz-Algorithm=AWS4-HMAC-SHA256"
      "&X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2Fs3%2Faws4_request"
      "&X-Amz-Date=20150830T123600Z&X-Amz-Expires=3600"
      "&X-Amz-Security-Token=tok%2Fen%2B%3D&X-Amz-SignedHeaders=host";
  CHECK(presigned->details.canonical_request ==
        "GET\n/bucket/key\n" + expected_query +
            "\nhost:bucket.s3.us-east-1.amazonaws.com\n\nhost\nUNSIGNED-PAYLOAD");
  CHECK(presigned->query == expected_query + "&X-Amz-Signature=" + presigned->details.signature);
}

TEST_CASE("SigV4: presigning refuses query parameters the signer adds, in any case") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  for (const std::string key :
       {"X-Amz-Algorithm", "x-amz-credential", "X-Amz-Date", "X-AMZ-EXPIRES", "X-Amz-SignedHeaders",
        "x-amz-signature", "X-Amz-Security-Token"}) {
    CAPTURE(key);
    SigningRequest request = BasicRequest("/bucket/key");
    request.query = {{key, "1"}};
    CHECK(signer.Presign(request, kCredentials, kTime, absl::Hours(1)).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
  SigningRequest own_parameters = BasicRequest("/bucket/key");
  own_parameters.query = {{"response-content-disposition", "attachment; filename=\"a b.txt\""},
                          {"versionId", "3/L4kqtJl40Nr8X8gdRQBpUMLUo"}};
  absl::StatusOr<PresignedQuery> presigned =
      signer.Presign(own_parameters, kCredentials, kTime, absl::Hours(1));
  LAKE_REQUIRE_OK(presigned);
  CHECK(presigned->query.rfind("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=", 0) == 0);
  CHECK(presigned->query.find("&response-content-disposition=attachment%3B%20filename%3D%22a%20b."
                              "txt%22&versionId=3%2FL4kqtJl40Nr8X8gdRQBpUMLUo&") !=
        std::string::npos);
}

TEST_CASE(
    "SigV4: presign expiry: 1 s to 604800 s (7 days) accepted; 0, 604801 and fractions refused") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  SigningRequest request = BasicRequest("/bucket/key");
  for (int64_t seconds : {int64_t{1}, int64_t{3600}, int64_t{604800}}) {
    CAPTURE(seconds);
    absl::StatusOr<PresignedQuery> presigned =
        signer.Presign(request, kCredentials, kTime, absl::Seconds(seconds));
    LAKE_REQUIRE_OK(presigned);
    CHECK(presigned->query.find("&X-Amz-Expires=" + std::to_string(seconds) + "&") !=
          std::string::npos);
  }
  for (absl::Duration expires :
       {absl::ZeroDuration(), absl::Seconds(604801), absl::Seconds(-1), absl::Milliseconds(1500),
        absl::Milliseconds(500), absl::InfiniteDuration()}) {
    CAPTURE(absl::FormatDuration(expires));
    CHECK(signer.Presign(request, kCredentials, kTime, expires).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
  CHECK(kMaxPresignExpiry == absl::Seconds(604800));
}

// ---- Credentials, scope, time

TEST_CASE("SigV4: credentials are validated: access key id syntax, non-empty secret, clean token") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  std::vector<Credentials> bad = {
      {"", "secret", std::nullopt},        {"AKID/X", "secret", std::nullopt},
      {"AKID X", "secret", std::nullopt},  {"AKID,X", "secret", std::nullopt},
      {"AKID\n", "secret", std::nullopt},  {"AKID", "", std::nullopt},
      {"AKID", "secret", std::string("")}, {"AKID", "secret", std::string("to\r\nken")},
  };
  for (const Credentials& credentials : bad) {
    CHECK(signer.SignHeaders(BasicRequest("/k"), credentials, kTime).status().code() ==
          absl::StatusCode::kInvalidArgument);
    CHECK(signer.Presign(BasicRequest("/k"), credentials, kTime, absl::Hours(1)).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("SigV4: region and service must be non-empty [A-Za-z0-9._-]") {
  CHECK(SigV4Signer::Create("", "s3").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(SigV4Signer::Create("us-east-1", "").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(SigV4Signer::Create("us/east", "s3").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(SigV4Signer::Create("us-east-1", "s 3").status().code() ==
        absl::StatusCode::kInvalidArgument);
  LAKE_CHECK_OK(SigV4Signer::Create("eu-central-1", "s3"));
  LAKE_CHECK_OK(SigV4Signer::Create("auto", "s3"));
}

TEST_CASE("SigV4: amz dates are UTC with seconds truncated, within years 1970..9999") {
  absl::StatusOr<AmzDate> date = FormatAmzDate(kTime + absl::Milliseconds(999));
  LAKE_REQUIRE_OK(date);
  CHECK(date->date_time == "20150830T123600Z");
  CHECK(date->date == "20150830");
  absl::StatusOr<AmzDate> epoch = FormatAmzDate(absl::UnixEpoch());
  LAKE_REQUIRE_OK(epoch);
  CHECK(epoch->date_time == "19700101T000000Z");
  absl::StatusOr<AmzDate> last = FormatAmzDate(
      absl::FromCivil(absl::CivilSecond(9999, 12, 31, 23, 59, 59), absl::UTCTimeZone()));
  LAKE_REQUIRE_OK(last);
  CHECK(last->date_time == "99991231T235959Z");
  for (absl::Time bad :
       {absl::UnixEpoch() - absl::Seconds(1),
        absl::FromCivil(absl::CivilSecond(10000, 1, 1, 0, 0, 0), absl::UTCTimeZone()),
        absl::InfiniteFuture(), absl::InfinitePast()}) {
    CHECK(FormatAmzDate(bad).status().code() == absl::StatusCode::kInvalidArgument);
  }
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  CHECK(signer.SignHeaders(BasicRequest("/k"), kCredentials, absl::InfiniteFuture())
            .status()
            .code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("SigV4: the signing key derivation matches AWS's documented example") {
  // AWS General Reference, "Examples of how to derive a signing key for
  // Signature Version 4": 20120215 / us-east-1 / iam.
  SigningKey key =
      DeriveSigningKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam");
  std::string hex;
  for (uint8_t byte : key) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 15]);
  }
  CHECK(hex == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

// ---- Secrets, determinism, the key cache

TEST_CASE("SigV4: the secret access key never appears in any output or error message") {
  const std::string secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  Credentials credentials = {"AKIDEXAMPLE", secret, std::string("session-token")};
  std::vector<std::string> outputs;
  for (SigningOptions options : {SigningOptions{}, SigningOptions{true, false, false, false}}) {
    SigV4Signer signer = MakeSigner("us-east-1", "s3", options);
    // A key and header value that hold the secret's neighbours but not the
    // secret itself must not make it appear either.
    SigningRequest request = BasicRequest("/bucket/AWS4 key");
    request.query = {{"prefix", "AWS4"}};
    request.headers = {{"x-amz-meta-a", "AWS4"}};
    absl::StatusOr<HeaderSignature> by_header = signer.SignHeaders(request, credentials, kTime);
    LAKE_REQUIRE_OK(by_header);
    for (const HttpHeader& header : by_header->headers)
      outputs.push_back(header.name + ":" + header.value);
    outputs.push_back(by_header->details.canonical_request);
    outputs.push_back(by_header->details.string_to_sign);
    outputs.push_back(by_header->details.signature);
    absl::StatusOr<PresignedQuery> by_query =
        signer.Presign(request, credentials, kTime, absl::Hours(1));
    LAKE_REQUIRE_OK(by_query);
    outputs.push_back(by_query->query);
    outputs.push_back(by_query->details.canonical_request);
    outputs.push_back(by_query->details.string_to_sign);

    // Every kind of refusal.
    SigningRequest bad_header = request;
    bad_header.headers = {{"x-amz-meta-a", "a\nb"}};
    SigningRequest bad_hash = request;
    bad_hash.payload_sha256 = "nope";
    SigningRequest bad_path = request;
    bad_path.path = "key";
    Credentials bad_id = credentials;
    bad_id.access_key_id = "A/B";
    Credentials bad_token = credentials;
    bad_token.session_token = "a\rb";
    outputs.push_back(signer.SignHeaders(bad_header, credentials, kTime).status().ToString());
    outputs.push_back(signer.SignHeaders(bad_hash, credentials, kTime).status().ToString());
    outputs.push_back(signer.SignHeaders(bad_path, credentials, kTime).status().ToString());
    outputs.push_back(signer.SignHeaders(request, bad_id, kTime).status().ToString());
    outputs.push_back(signer.SignHeaders(request, bad_token, kTime).status().ToString());
    outputs.push_back(
        signer.Presign(request, credentials, kTime, absl::Seconds(0)).status().ToString());
    outputs.push_back(
        signer.SignHeaders(request, credentials, absl::InfinitePast()).status().ToString());
  }
  for (const std::string& output : outputs) {
    CAPTURE(output);
    CHECK(output.find(secret) == std::string::npos);
    CHECK(output.find("wJalrXUtnFEMI") == std::string::npos);
    CHECK(output.find("EXAMPLEKEY") == std::string::npos);
  }
}

TEST_CASE("SigV4: signing is deterministic, and the cached key follows date and secret changes") {
  SigV4Signer cached = MakeSigner("us-east-1", "s3");
  Credentials rotated = kCredentials;
  rotated.secret_access_key = "another/secret+key";
  std::vector<absl::Time> times = {kTime, kTime + absl::Hours(1), kTime + absl::Hours(24),
                                   kTime + absl::Hours(48), kTime + absl::Hours(24 * 365)};
  for (int round = 0; round < 2; ++round) {
    for (absl::Time time : times) {
      for (const Credentials* credentials :
           std::vector<const Credentials*>{&kCredentials, &rotated}) {
        // A fresh signer has no cache: it derives the key from scratch.
        SigV4Signer fresh = MakeSigner("us-east-1", "s3");
        absl::StatusOr<HeaderSignature> a =
            cached.SignHeaders(BasicRequest("/k"), *credentials, time);
        absl::StatusOr<HeaderSignature> b =
            fresh.SignHeaders(BasicRequest("/k"), *credentials, time);
        LAKE_REQUIRE_OK(a);
        LAKE_REQUIRE_OK(b);
        CHECK(a->authorization == b->authorization);
        CHECK(a->details.canonical_request == b->details.canonical_request);
      }
    }
  }
  absl::StatusOr<HeaderSignature> day1 =
      cached.SignHeaders(BasicRequest("/k"), kCredentials, kTime);
  absl::StatusOr<HeaderSignature> day2 =
      cached.SignHeaders(BasicRequest("/k"), kCredentials, kTime + absl::Hours(24));
  absl::StatusOr<HeaderSignature> other = cached.SignHeaders(BasicRequest("/k"), rotated, kTime);
  LAKE_REQUIRE_OK(day1);
  LAKE_REQUIRE_OK(day2);
  LAKE_REQUIRE_OK(other);
  CHECK(day1->details.signature != day2->details.signature);
  CHECK(day1->details.signature != other->details.signature);
}

TEST_CASE("SigV4: one signer signs from many threads at once with the same results") {
  SigV4Signer signer = MakeSigner("us-east-1", "s3");
  Credentials rotated = kCredentials;
  rotated.secret_access_key = "another/secret+key";
  auto sign = [&](int i) {
    const Credentials& credentials = i % 2 ? rotated : kCredentials;
    absl::Time time = kTime + absl::Hours(24 * (i % 5));
    absl::StatusOr<HeaderSignature> out =
        signer.SignHeaders(BasicRequest("/bucket/key-" + std::to_string(i % 7)), credentials, time);
    return out.ok() ? out->details.signature : out.status().ToString();
  };
  std::vector<std::string> expected;
  for (int i = 0; i < 70; ++i) expected.push_back(sign(i));
  std::vector<std::vector<std::string>> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < 70; ++i) results[t].push_back(sign(i));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) {
    REQUIRE(results[t].size() == 70 * 20);
    for (size_t k = 0; k < results[t].size(); ++k) {
      if (results[t][k] != expected[k % 70]) FAIL("thread " << t << " result " << k << " differs");
    }
  }
}

}  // namespace
}  // namespace lake::s3http
