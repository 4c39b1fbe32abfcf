// The texts of the AWS credential sources: the shared credentials and config
// files, the container and IMDS JSON documents, the STS
// AssumeRoleWithWebIdentity response and STS errors. Every refusal is typed
// and never repeats a value of its input.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "io/s3http/credential_formats.h"
#include "tests/support/status_checks.h"

namespace lake::s3http {
namespace {

constexpr char kId[] = "AKIDEXAMPLE0000000001";
constexpr char kSecret[] = "SECRETwJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzz";
constexpr char kToken[] = "TOKENFwoGZXIvYXdzEJr//////////wEaDEXAMPLEzzzz";

// 2030-01-01T00:00:00Z
const absl::Time kJan2030 = absl::FromUnixSeconds(1893456000);

bool Contains(const absl::Status& status, std::string_view needle) {
  return absl::StrContains(status.ToString(), absl::string_view(needle.data(), needle.size()));
}

template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& value) {
  return value.status();
}

// A refusal with `code` whose text holds `needle` and none of the secrets.
void CheckRefused(const absl::Status& status, absl::StatusCode code, std::string_view needle = "") {
  CHECK_MESSAGE(status.code() == code, status.ToString());
  if (!needle.empty()) CHECK_MESSAGE(Contains(status, needle), status.ToString());
  CHECK_FALSE(Contains(status, kSecret));
  CHECK_FALSE(Contains(status, kToken));
}

absl::StatusOr<ProfileFile> Credentials(std::string_view text) {
  return ParseProfileFile(text, ProfileFileKind::kCredentials);
}
absl::StatusOr<ProfileFile> Config(std::string_view text) {
  return ParseProfileFile(text, ProfileFileKind::kConfig);
}

// --- Credentials values ----------------------------------------------------------

TEST_CASE("valid credentials are visible ASCII within IAM's bounds") {
  LAKE_CHECK_OK(ValidateCredentials({kId, kSecret, std::nullopt}));
  LAKE_CHECK_OK(ValidateCredentials({kId, kSecret, std::string(kToken)}));
  CheckRefused(ValidateCredentials({"", kSecret, std::nullopt}),
               absl::StatusCode::kInvalidArgument, "access key id is empty");
  CheckRefused(ValidateCredentials({"AKID/1", kSecret, std::nullopt}),
               absl::StatusCode::kInvalidArgument, "access key id holds ',' or '/'");
  CheckRefused(ValidateCredentials({std::string(129, 'A'), kSecret, std::nullopt}),
               absl::StatusCode::kInvalidArgument, "longer than 128");
  CheckRefused(ValidateCredentials({kId, "", std::nullopt}), absl::StatusCode::kInvalidArgument,
               "secret access key is empty");
  CheckRefused(ValidateCredentials({kId, std::string(kSecret) + " ", std::nullopt}),
               absl::StatusCode::kInvalidArgument, "secret access key holds a byte");
  CheckRefused(ValidateCredentials({kId, kSecret, std::string("")}),
               absl::StatusCode::kInvalidArgument, "session token is empty");
  CheckRefused(ValidateCredentials({kId, kSecret, std::string(kToken) + "\r\nX: y"}),
               absl::StatusCode::kInvalidArgument, "session token holds a byte");
  CheckRefused(ValidateCredentials({kId, kSecret, std::string(kMaxSessionTokenBytes + 1, 'T')}),
               absl::StatusCode::kInvalidArgument, "session token is longer");
}

TEST_CASE("a web identity token file is trimmed and must be a visible ASCII token") {
  absl::StatusOr<std::string> token = ParseWebIdentityToken("  eyJhbGciOi.eyJzdWIi.c2ln\n");
  LAKE_REQUIRE_OK(token);
  CHECK(*token == "eyJhbGciOi.eyJzdWIi.c2ln");
  CheckRefused(StatusOf(ParseWebIdentityToken("\n")), absl::StatusCode::kInvalidArgument,
               "shorter than 4");
  CheckRefused(StatusOf(ParseWebIdentityToken("abc")), absl::StatusCode::kInvalidArgument);
  CheckRefused(StatusOf(ParseWebIdentityToken("eyJ one two")), absl::StatusCode::kInvalidArgument,
               "visible ASCII");
  CheckRefused(StatusOf(ParseWebIdentityToken(std::string(kMaxWebIdentityTokenBytes + 1, 'e'))),
               absl::StatusCode::kInvalidArgument, "longer than 20000");
  CHECK(ParseWebIdentityToken(std::string(kMaxWebIdentityTokenBytes, 'e')).ok());
}

// --- Profile files -----------------------------------------------------------------

TEST_CASE("a credentials file: profiles, comments, whitespace, lowercased keys") {
  absl::StatusOr<ProfileFile> file = Credentials(
      "# a comment\n"
      "; another\n"
      "[default]\n"
      "aws_access_key_id = AKID1\n"
      "AWS_SECRET_ACCESS_KEY\t=secret1  \n"
      "\n"
      "[ work ]   # trailing comment\n"
      "aws_access_key_id: AKID2\n"
      "aws_secret_access_key = a=b:c # not a comment\n");
  LAKE_REQUIRE_OK(file);
  REQUIRE(file->profiles.size() == 2);
  CHECK(file->profiles["default"]["aws_access_key_id"] == "AKID1");
  CHECK(file->profiles["default"]["aws_secret_access_key"] == "secret1");
  CHECK(file->profiles["work"]["aws_access_key_id"] == "AKID2");
  CHECK(file->profiles["work"]["aws_secret_access_key"] == "a=b:c # not a comment");
}

TEST_CASE("a credentials file names profiles literally; a config file by [profile NAME]") {
  absl::StatusOr<ProfileFile> credentials = Credentials("[profile x]\nk = 1\n");
  LAKE_REQUIRE_OK(credentials);
  CHECK(credentials->profiles.count("profile x") == 1);

  absl::StatusOr<ProfileFile> config = Config(
      "[default]\nregion = us-east-1\n"
      "[profile  dev ]\nregion = eu-west-1\n"
      "[profile default]\noutput = json\n"
      "[sso-session corp]\nsso_region = us-east-1\n"
      "[services s3-local]\ns3 =\n  endpoint_url = http://localhost\n"
      "[plain]\nregion = ap-south-1\n"
      "[profile]\nregion = nowhere\n");
  LAKE_REQUIRE_OK(config);
  REQUIRE(config->profiles.size() == 2);
  CHECK(config->profiles["default"]["region"] == "us-east-1");
  CHECK(config->profiles["default"]["output"] == "json");
  CHECK(config->profiles["dev"]["region"] == "eu-west-1");
}

TEST_CASE("duplicates merge and the later one wins") {
  absl::StatusOr<ProfileFile> file = Credentials(
      "[default]\naws_access_key_id = first\nregion = a\n"
      "[other]\nx = 1\n"
      "[default]\naws_access_key_id = second\naws_access_key_id = third\n");
  LAKE_REQUIRE_OK(file);
  CHECK(file->profiles["default"]["aws_access_key_id"] == "third");
  CHECK(file->profiles["default"]["region"] == "a");
  CHECK(file->profiles["other"]["x"] == "1");
}

TEST_CASE("continuation lines extend the property above, past comments and blank lines") {
  absl::StatusOr<ProfileFile> file = Config(
      "[default]\n"
      "s3 =\n"
      "  max_concurrent_requests = 20\n"
      "  # a comment inside\n"
      "\n"
      "  addressing_style = path\n"
      "region = us-west-2\n"
      "  indented_key = v\n");
  LAKE_REQUIRE_OK(file);
  CHECK(file->profiles["default"]["s3"] ==
        "\nmax_concurrent_requests = 20\naddressing_style = path");
  CHECK(file->profiles["default"]["region"] == "us-west-2\nindented_key = v");

  // Properties indented alike are separate properties.
  absl::StatusOr<ProfileFile> indented = Credentials("[a]\n  k1 = 1\n  k2 = 2\n");
  LAKE_REQUIRE_OK(indented);
  CHECK(indented->profiles["a"]["k1"] == "1");
  CHECK(indented->profiles["a"]["k2"] == "2");
}

TEST_CASE("CRLF line ends and a byte order mark are accepted") {
  absl::StatusOr<ProfileFile> file =
      Credentials("\xEF\xBB\xBF[default]\r\naws_access_key_id = AKID\r\n");
  LAKE_REQUIRE_OK(file);
  CHECK(file->profiles["default"]["aws_access_key_id"] == "AKID");
}

TEST_CASE("malformed profile files are refused by line number, never echoing a value") {
  struct Case {
    std::string text;
    std::string needle;
  };
  const std::string secret_line = std::string("aws_secret_access_key ") + kSecret + "\n";
  std::vector<Case> cases = {
      {std::string("aws_secret_access_key = ") + kSecret + "\n", "line 1: a property before any"},
      {"[default]\n" + secret_line, "line 2: expected a [section]"},
      {std::string("[default\naws_secret_access_key = ") + kSecret, "line 1: a section line without"},
      {std::string("[default] ") + kSecret + "\n", "line 1: text after the ']'"},
      {"[   ]\n", "line 1: an empty section name"},
      {std::string("[default]\n = ") + kSecret + "\n", "line 2: a property without a key"},
      {std::string("[default]\nk = ") + kSecret + std::string("\0", 1) + "\n", "line 2: holds a control character"},
      {std::string("[default]\nk = ") + kSecret + "\r\r\n", "line 2: holds a control character"},
      {std::string("[default]\nk = ") + kSecret + "\xC3\x28\n", "line 2: is not valid UTF-8"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.needle);
    CheckRefused(StatusOf(Credentials(c.text)), absl::StatusCode::kInvalidArgument, c.needle);
    CheckRefused(StatusOf(Config(c.text)), absl::StatusCode::kInvalidArgument, c.needle);
  }
  CheckRefused(StatusOf(Credentials(std::string(kMaxProfileFileBytes + 1, '#'))),
               absl::StatusCode::kResourceExhausted, "over the limit");
  LAKE_CHECK_OK(Credentials(std::string(kMaxProfileFileBytes, '#')));
}

// --- Profile resolution ----------------------------------------------------------------

ProfileFile MustParse(std::string_view text, ProfileFileKind kind) {
  absl::StatusOr<ProfileFile> file = ParseProfileFile(text, kind);
  REQUIRE_MESSAGE(file.ok(), file.status().ToString());
  return *file;
}

absl::StatusOr<ProfileCredentials> Resolve(std::string_view credentials, std::string_view config,
                                           std::string_view profile = "default") {
  return ResolveProfileCredentials(MustParse(credentials, ProfileFileKind::kCredentials),
                                   MustParse(config, ProfileFileKind::kConfig), profile);
}

TEST_CASE("a profile's static keys, from either file, the credentials file winning") {
  absl::StatusOr<ProfileCredentials> resolved = Resolve(
      "[default]\naws_access_key_id = AKIDCRED\naws_secret_access_key = secretcred\n",
      "[default]\naws_access_key_id = AKIDCONF\naws_session_token = tokenconf\nregion = eu-west-1\n");
  LAKE_REQUIRE_OK(resolved);
  CHECK(resolved->profile_found);
  REQUIRE(resolved->credentials.has_value());
  CHECK(resolved->credentials->access_key_id == "AKIDCRED");
  CHECK(resolved->credentials->secret_access_key == "secretcred");
  CHECK(resolved->credentials->session_token == std::optional<std::string>("tokenconf"));
  CHECK(resolved->region == "eu-west-1");
  CHECK_FALSE(resolved->web_identity.has_value());

  absl::StatusOr<ProfileCredentials> from_config = Resolve(
      "", "[profile dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = s\n", "dev");
  LAKE_REQUIRE_OK(from_config);
  REQUIRE(from_config->credentials.has_value());
  CHECK(from_config->credentials->access_key_id == "AKIDDEV");
  CHECK_FALSE(from_config->credentials->session_token.has_value());
}

TEST_CASE("a missing profile, and a profile without credentials, are told apart") {
  absl::StatusOr<ProfileCredentials> missing = Resolve("[a]\nx = 1\n", "[profile b]\nx = 1\n", "c");
  LAKE_REQUIRE_OK(missing);
  CHECK_FALSE(missing->profile_found);
  CHECK_FALSE(missing->credentials.has_value());

  absl::StatusOr<ProfileCredentials> region_only = Resolve("", "[default]\nregion = us-east-1\n");
  LAKE_REQUIRE_OK(region_only);
  CHECK(region_only->profile_found);
  CHECK_FALSE(region_only->credentials.has_value());
  CHECK_FALSE(region_only->web_identity.has_value());

  // Empty values are absent; a lone session token is ignored.
  absl::StatusOr<ProfileCredentials> empty = Resolve(
      "[default]\naws_access_key_id =\naws_secret_access_key =\naws_session_token = t\n", "");
  LAKE_REQUIRE_OK(empty);
  CHECK(empty->profile_found);
  CHECK_FALSE(empty->credentials.has_value());
}

TEST_CASE("a profile's web identity role") {
  absl::StatusOr<ProfileCredentials> resolved = Resolve(
      "", "[profile eks]\nrole_arn = arn:aws:iam::123456789012:role/lake\n"
          "web_identity_token_file = /var/run/token\nrole_session_name = lake-test\n"
          "aws_access_key_id = ignored\n",
      "eks");
  LAKE_REQUIRE_OK(resolved);
  REQUIRE(resolved->web_identity.has_value());
  CHECK(resolved->web_identity->role_arn == "arn:aws:iam::123456789012:role/lake");
  CHECK(resolved->web_identity->token_file == "/var/run/token");
  CHECK(resolved->web_identity->session_name == "lake-test");
  CHECK_FALSE(resolved->credentials.has_value());
}

TEST_CASE("incomplete or unsupported profiles are typed errors naming keys only") {
  const std::string arn = "role_arn = arn:aws:iam::123456789012:role/lake\n";
  CheckRefused(StatusOf(Resolve(std::string("[default]\naws_secret_access_key = ") + kSecret, "")),
               absl::StatusCode::kInvalidArgument, "must be set together");
  CheckRefused(StatusOf(Resolve("[default]\naws_access_key_id = AKID\n", "")),
               absl::StatusCode::kInvalidArgument, "must be set together");
  CheckRefused(StatusOf(Resolve(std::string("[default]\naws_access_key_id = AK/ID\n"
                                            "aws_secret_access_key = ") + kSecret, "")),
               absl::StatusCode::kInvalidArgument, "access key id holds");
  CheckRefused(StatusOf(Resolve(std::string("[default]\naws_access_key_id = AKID\n"
                                            "aws_secret_access_key = ") + kSecret +
                                    "\naws_session_token = " + kToken + " x\n", "")),
               absl::StatusCode::kInvalidArgument, "session token holds");
  CheckRefused(StatusOf(Resolve("", "[default]\n" + arn)), absl::StatusCode::kInvalidArgument,
               "role_arn without web_identity_token_file");
  CheckRefused(StatusOf(Resolve("", "[default]\nweb_identity_token_file = /t\n")),
               absl::StatusCode::kInvalidArgument, "web_identity_token_file without role_arn");
  CheckRefused(StatusOf(Resolve("", "[default]\n" + arn + "source_profile = base\n")),
               absl::StatusCode::kUnimplemented, "AssumeRole");
  CheckRefused(StatusOf(Resolve("", "[default]\n" + arn + "credential_source = Ec2InstanceMetadata\n")),
               absl::StatusCode::kUnimplemented, "AssumeRole");
  CheckRefused(StatusOf(Resolve("", "[default]\ncredential_process = /bin/creds\n")),
               absl::StatusCode::kUnimplemented, "credential_process");
  CheckRefused(StatusOf(Resolve("", "[default]\nsso_session = corp\n")),
               absl::StatusCode::kUnimplemented, "SSO");
  CheckRefused(StatusOf(Resolve("", "[default]\nrole_arn = not-an-arn\nweb_identity_token_file = /t\n")),
               absl::StatusCode::kInvalidArgument, "role ARN");
  CheckRefused(StatusOf(Resolve("", "[default]\n" + arn +
                                        "web_identity_token_file = /t\nrole_session_name = a b\n")),
               absl::StatusCode::kInvalidArgument, "role session name");
}

TEST_CASE("web identity roles are validated field by field") {
  WebIdentityRole role{"arn:aws:iam::123456789012:role/lake", "/t", ""};
  LAKE_CHECK_OK(ValidateWebIdentityRole(role));
  role.session_name = "a";
  CHECK(absl::IsInvalidArgument(ValidateWebIdentityRole(role)));
  role.session_name = std::string(64, 'a');
  LAKE_CHECK_OK(ValidateWebIdentityRole(role));
  role.session_name = "";
  role.token_file = std::string("/t\0x", 4);
  CHECK(absl::IsInvalidArgument(ValidateWebIdentityRole(role)));
  role.token_file = "/t";
  role.role_arn = "arn:short";
  CHECK(absl::IsInvalidArgument(ValidateWebIdentityRole(role)));
}

// --- JSON -------------------------------------------------------------------------------

std::string ContainerJson(const std::string& extra = "") {
  return std::string("{\"RoleArn\":\"arn:aws:iam::123456789012:role/task\",\"AccessKeyId\":\"") +
         kId + "\",\"SecretAccessKey\":\"" + kSecret + "\",\"Token\":\"" + kToken +
         "\",\"Expiration\":\"2030-01-01T00:00:00Z\"" + extra + "}";
}

std::string ImdsJson(const std::string& code = "Success") {
  return std::string("{\n  \"Code\" : \"") + code +
         "\",\n  \"LastUpdated\" : \"2029-12-31T23:00:00Z\",\n  \"Type\" : \"AWS-HMAC\",\n"
         "  \"AccessKeyId\" : \"" + kId + "\",\n  \"SecretAccessKey\" : \"" + kSecret +
         "\",\n  \"Token\" : \"" + kToken + "\",\n  \"Expiration\" : \"2030-01-01T00:00:00Z\"\n}";
}

TEST_CASE("container credentials JSON") {
  absl::StatusOr<TemporaryCredentials> parsed =
      ParseCredentialsJson(ContainerJson(), CredentialsJsonKind::kContainer);
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->credentials.access_key_id == kId);
  CHECK(parsed->credentials.secret_access_key == kSecret);
  CHECK(parsed->credentials.session_token == std::optional<std::string>(kToken));
  CHECK(parsed->expiration == std::optional<absl::Time>(kJan2030));

  // Token and Expiration are optional for a container endpoint (and empty
  // counts as absent there).
  absl::StatusOr<TemporaryCredentials> long_term = ParseCredentialsJson(
      std::string("{\"AccessKeyId\":\"") + kId + "\",\"SecretAccessKey\":\"" + kSecret +
          "\",\"Token\":\"\"}",
      CredentialsJsonKind::kContainer);
  LAKE_REQUIRE_OK(long_term);
  CHECK_FALSE(long_term->credentials.session_token.has_value());
  CHECK_FALSE(long_term->expiration.has_value());
}

TEST_CASE("IMDS credentials JSON needs Code Success, a token and an expiration") {
  absl::StatusOr<TemporaryCredentials> parsed =
      ParseCredentialsJson(ImdsJson(), CredentialsJsonKind::kImds);
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->credentials.session_token == std::optional<std::string>(kToken));
  CHECK(parsed->expiration == std::optional<absl::Time>(kJan2030));

  CheckRefused(StatusOf(ParseCredentialsJson(ImdsJson("AssumeRoleUnauthorizedAccess"),
                                             CredentialsJsonKind::kImds)),
               absl::StatusCode::kInvalidArgument, "\"Code\" is not \"Success\"");
  CheckRefused(StatusOf(ParseCredentialsJson(ContainerJson(), CredentialsJsonKind::kImds)),
               absl::StatusCode::kInvalidArgument, "\"Code\" is missing");
}

TEST_CASE("expirations are ISO-8601 with Z or a numeric offset") {
  auto expiration = [](const std::string& text) {
    std::string json = std::string("{\"AccessKeyId\":\"") + kId + "\",\"SecretAccessKey\":\"" +
                       kSecret + "\",\"Expiration\":\"" + text + "\"}";
    return ParseCredentialsJson(json, CredentialsJsonKind::kContainer);
  };
  CHECK(expiration("2030-01-01T00:00:00Z")->expiration == kJan2030);
  CHECK(expiration("2030-01-01T00:00:00.250Z")->expiration == kJan2030 + absl::Milliseconds(250));
  CHECK(expiration("2030-01-01T01:30:00+01:30")->expiration == kJan2030);
  CHECK(expiration("2029-12-31T19:00:00-05:00")->expiration == kJan2030);
  for (const char* bad : {"2030-01-01", "2030-01-01T00:00:00", "2030-13-01T00:00:00Z",
                          "2030-01-01T00:00:00+24:00", "2030-01-01 00:00:00Z", "tomorrow"}) {
    CAPTURE(bad);
    CheckRefused(expiration(bad).status(), absl::StatusCode::kInvalidArgument, "\"Expiration\"");
  }
}

TEST_CASE("malformed credential JSON is refused without echoing values") {
  struct Case {
    std::string body;
    std::string needle;
  };
  std::vector<Case> cases = {
      {std::string("{\"SecretAccessKey\":\"") + kSecret + "\"", "not a JSON document"},
      {std::string("[\"") + kSecret + "\"]", "not a JSON object"},
      {std::string("{\"SecretAccessKey\":\"") + kSecret + "\"}", "\"AccessKeyId\" is missing"},
      {std::string("{\"AccessKeyId\":1,\"SecretAccessKey\":\"") + kSecret + "\"}",
       "\"AccessKeyId\" is not a string"},
      {std::string("{\"AccessKeyId\":\"A\",\"AccessKeyId\":\"B\",\"SecretAccessKey\":\"") +
           kSecret + "\"}",
       "a field appears twice"},
      {std::string("{\"AccessKeyId\":\"AKID\",\"SecretAccessKey\":\"") + kSecret +
           "\",\"Token\":\"" + kToken + " \"}",
       "session token holds"},
      {std::string("{\"AccessKeyId\":\"AKID\",\"SecretAccessKey\":\"") + kSecret + "\xff\"}",
       "not a JSON document"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.needle);
    CheckRefused(StatusOf(ParseCredentialsJson(c.body, CredentialsJsonKind::kContainer)),
                 absl::StatusCode::kInvalidArgument, c.needle);
  }
  CheckRefused(StatusOf(ParseCredentialsJson(ContainerJson(",\"Pad\":\"" +
                                                           std::string(kMaxCredentialResponseBytes, 'x') +
                                                           "\""),
                                             CredentialsJsonKind::kContainer)),
               absl::StatusCode::kResourceExhausted, "over the limit");
  // Nesting elsewhere in the document is only data.
  LAKE_CHECK_OK(ParseCredentialsJson(ContainerJson(",\"Deep\":" + std::string(1000, '[') +
                                                   std::string(1000, ']')),
                                     CredentialsJsonKind::kContainer));
}

// --- STS -----------------------------------------------------------------------------------

std::string StsResponse(const std::string& ns, const std::string& credentials) {
  return "<AssumeRoleWithWebIdentityResponse" + ns +
         ">\n  <AssumeRoleWithWebIdentityResult>\n"
         "    <SubjectFromWebIdentityToken>system:serviceaccount:ns:sa</SubjectFromWebIdentityToken>\n"
         "    <Audience>sts.amazonaws.com</Audience>\n"
         "    <AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/lake/s</Arn>"
         "<AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser>\n"
         "    <Credentials>" + credentials + "</Credentials>\n"
         "    <Provider>arn:aws:iam::123456789012:oidc-provider/example</Provider>\n"
         "  </AssumeRoleWithWebIdentityResult>\n"
         "  <ResponseMetadata><RequestId>ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE</RequestId>"
         "</ResponseMetadata>\n</AssumeRoleWithWebIdentityResponse>\n";
}

std::string StsCredentials(const std::string& expiration = "2030-01-01T00:00:00Z") {
  return std::string("<SessionToken>") + kToken + "</SessionToken><SecretAccessKey>" + kSecret +
         "</SecretAccessKey><Expiration>" + expiration + "</Expiration><AccessKeyId>" + kId +
         "</AccessKeyId>";
}

const std::string kStsNs = " xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"";

TEST_CASE("an AssumeRoleWithWebIdentity response, with or without the STS namespace") {
  for (const std::string& ns : {kStsNs, std::string()}) {
    absl::StatusOr<TemporaryCredentials> parsed =
        ParseAssumeRoleWithWebIdentityResponse(StsResponse(ns, StsCredentials()));
    LAKE_REQUIRE_OK(parsed);
    CHECK(parsed->credentials.access_key_id == kId);
    CHECK(parsed->credentials.secret_access_key == kSecret);
    CHECK(parsed->credentials.session_token == std::optional<std::string>(kToken));
    CHECK(parsed->expiration == std::optional<absl::Time>(kJan2030));
  }
  // XML escapes are undone.
  absl::StatusOr<TemporaryCredentials> escaped = ParseAssumeRoleWithWebIdentityResponse(
      StsResponse(kStsNs, "<SessionToken>a&amp;b</SessionToken><SecretAccessKey>s&#x2F;s"
                          "</SecretAccessKey><Expiration>2030-01-01T00:00:00Z</Expiration>"
                          "<AccessKeyId>AKID</AccessKeyId>"));
  LAKE_REQUIRE_OK(escaped);
  CHECK(escaped->credentials.session_token == std::optional<std::string>("a&b"));
  CHECK(escaped->credentials.secret_access_key == "s/s");
}

TEST_CASE("elements of another namespace are ignored with their content") {
  std::string other = "<x:Credentials xmlns:x=\"urn:other\"><x:AccessKeyId>EVIL</x:AccessKeyId>"
                      "</x:Credentials>";
  absl::StatusOr<TemporaryCredentials> parsed = ParseAssumeRoleWithWebIdentityResponse(
      "<AssumeRoleWithWebIdentityResponse" + kStsNs + "><AssumeRoleWithWebIdentityResult>" +
      other + "<Credentials>" + StsCredentials() +
      "</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->credentials.access_key_id == kId);
}

TEST_CASE("malformed STS responses are refused without echoing values") {
  struct Case {
    std::string body;
    absl::StatusCode code;
    std::string needle;
  };
  std::string without_token = std::string("<SecretAccessKey>") + kSecret +
                              "</SecretAccessKey><Expiration>2030-01-01T00:00:00Z</Expiration>"
                              "<AccessKeyId>AKID</AccessKeyId>";
  std::vector<Case> cases = {
      {StsResponse(kStsNs, without_token), absl::StatusCode::kInvalidArgument,
       "<AssumeRoleWithWebIdentityResult/Credentials/SessionToken> is missing"},
      {StsResponse(kStsNs, StsCredentials() + "<AccessKeyId>AKID2</AccessKeyId>"),
       absl::StatusCode::kInvalidArgument, "appears twice"},
      {StsResponse(kStsNs, StsCredentials("2030-01-01")), absl::StatusCode::kInvalidArgument,
       "<Expiration> is not"},
      {StsResponse(kStsNs, std::string("<SessionToken>") + kToken + "<b/></SessionToken>"),
       absl::StatusCode::kInvalidArgument, "inside the text field"},
      {StsResponse(" xmlns=\"urn:other\"", StsCredentials()), absl::StatusCode::kInvalidArgument,
       "the root element is not"},
      {"<ErrorResponse" + kStsNs + "><Error><Code>x</Code></Error></ErrorResponse>",
       absl::StatusCode::kInvalidArgument, "the root element is not"},
      {StsResponse(kStsNs, StsCredentials()).substr(0, 300), absl::StatusCode::kInvalidArgument,
       "XML error"},
      {"<!DOCTYPE x [<!ENTITY s \"" + std::string(kSecret) + "\">]>" +
           StsResponse(kStsNs, StsCredentials()),
       absl::StatusCode::kInvalidArgument, "DOCTYPE"},
      {"<AssumeRoleWithWebIdentityResponse>"
           "<a><a><a><a><a><a><a><a></a></a></a></a></a></a></a></a>"
           "</AssumeRoleWithWebIdentityResponse>",
       absl::StatusCode::kInvalidArgument, "nest deeper than 8"},
      {StsResponse(kStsNs, StsCredentials() + "<Pad>" +
                               std::string(kMaxCredentialResponseBytes, 'x') + "</Pad>"),
       absl::StatusCode::kResourceExhausted, "over the limit"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.needle);
    CheckRefused(StatusOf(ParseAssumeRoleWithWebIdentityResponse(c.body)), c.code, c.needle);
  }
}

// --- STS errors -------------------------------------------------------------------------------

std::string StsError(const std::string& code, const std::string& message) {
  return "<ErrorResponse" + kStsNs + "><Error><Type>Sender</Type><Code>" + code +
         "</Code><Message>" + message + "</Message></Error><RequestId>r-1</RequestId>"
         "</ErrorResponse>";
}

TEST_CASE("STS errors map by code, then by HTTP status") {
  struct Case {
    std::string code;
    int http_status;
    absl::StatusCode expected;
  };
  std::vector<Case> cases = {
      {"InvalidIdentityToken", 400, absl::StatusCode::kPermissionDenied},
      {"ExpiredTokenException", 400, absl::StatusCode::kPermissionDenied},
      {"AccessDenied", 403, absl::StatusCode::kPermissionDenied},
      {"IDPCommunicationError", 400, absl::StatusCode::kUnavailable},
      {"Throttling", 400, absl::StatusCode::kUnavailable},
      {"RegionDisabledException", 403, absl::StatusCode::kFailedPrecondition},
      {"ValidationError", 400, absl::StatusCode::kInvalidArgument},
      {"SomethingNew", 400, absl::StatusCode::kInvalidArgument},
      {"SomethingNew", 403, absl::StatusCode::kPermissionDenied},
      {"SomethingNew", 503, absl::StatusCode::kUnavailable},
      {"SomethingNew", 302, absl::StatusCode::kUnknown},
  };
  for (const Case& c : cases) {
    CAPTURE(c.code);
    CAPTURE(c.http_status);
    absl::Status status = StsErrorStatus(c.http_status, StsError(c.code, "why"), {});
    CHECK(status.code() == c.expected);
    CHECK(status.message() ==
          "STS " + c.code + " (HTTP " + std::to_string(c.http_status) + "): why");
  }
  // No document: the HTTP status alone.
  absl::Status html = StsErrorStatus(502, "<html>Bad Gateway</html>", {});
  CHECK(absl::IsUnavailable(html));
  CHECK(html.message() == "STS error (HTTP 502)");
  CHECK(absl::IsPermissionDenied(StsErrorStatus(401, "", {})));
  // A code outside the grammar is not repeated.
  absl::Status odd = StsErrorStatus(400, StsError("bad code!", "m"), {});
  CHECK(odd.message() == "STS error (HTTP 400): m");
}

TEST_CASE("an STS error message has the given secrets removed before it is cut") {
  std::string web_token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
  std::string_view secrets[] = {web_token, kSecret};
  absl::Status status = StsErrorStatus(
      400,
      StsError("InvalidIdentityToken",
               "Token " + web_token + " is bad; " + std::string(kSecret) + "\n\t" +
                   std::string(2000, 'z') + web_token),
      secrets);
  CHECK(absl::IsPermissionDenied(status));
  CHECK_FALSE(Contains(status, web_token));
  CHECK_FALSE(Contains(status, kSecret));
  CHECK(Contains(status, "Token [redacted] is bad; [redacted]\\x0a\\x09zzz"));
  CHECK(status.message().size() <= 515);
}

}  // namespace
}  // namespace lake::s3http
