// The AWS default credentials chain: every source against a local endpoint
// or temporary files, the order of the sources, refreshing temporary
// credentials with an injected clock, failing fast without IMDS, and a scan
// of every failure for secrets.
//
// No test reads the real ~/.aws or asks a real metadata service: every
// environment names a temporary HOME and either disables IMDS or points it
// at a loopback endpoint.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "io/s3http/credentials_chain.h"
#include "tests/support/loopback_http_server.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::s3http {
namespace {

using testing::LoopbackHttpServer;
using testing::TempDir;
using testing::TestHttpRequest;
using testing::TestHttpResponse;

// 2030-01-01T00:00:00Z: far from the real clock, so an accidental use of
// absl::Now() shows.
const absl::Time kStart = absl::FromUnixSeconds(1893456000);

constexpr char kRoleArn[] = "arn:aws:iam::123456789012:role/lake-reader";

// --- Fixtures ---------------------------------------------------------------------

class FakeClock {
 public:
  absl::Time Now() {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration by) {
    absl::MutexLock lock(&mu_);
    now_ += by;
  }
  void Set(absl::Time to) {
    absl::MutexLock lock(&mu_);
    now_ = to;
  }
  std::function<absl::Time()> Function() {
    return [this] { return Now(); };
  }

 private:
  absl::Mutex mu_;
  absl::Time now_ = kStart;
};

// A loopback endpoint that records every request and answers through a
// handler that a test may swap.
class Endpoint {
 public:
  using Handler = std::function<TestHttpResponse(const TestHttpRequest&)>;

  explicit Endpoint(Handler handler = nullptr)
      : handler_(std::move(handler)),
        server_([this](const TestHttpRequest& request) { return Serve(request); }) {}

  void SetHandler(Handler handler) {
    std::lock_guard<std::mutex> lock(mu_);
    handler_ = std::move(handler);
  }
  std::vector<TestHttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  size_t count() const { return requests().size(); }
  std::string url() const { return server_.url(); }

 private:
  TestHttpResponse Serve(const TestHttpRequest& request) {
    Handler handler;
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(request);
      handler = handler_;
    }
    if (!handler) return TestHttpResponse{404};
    return handler(request);
  }

  mutable std::mutex mu_;
  Handler handler_;
  std::vector<TestHttpRequest> requests_;
  LoopbackHttpServer server_;  // last: its threads stop before the rest goes
};

// A loopback port that accepts connections (the kernel completes them) but
// never answers: a metadata service that has gone silent.
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("cannot listen on loopback");
    }
    port_ = ntohs(addr.sin_port);
  }
  ~SilentListener() { ::close(fd_); }
  std::string url() const { return absl::StrCat("http://127.0.0.1:", port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A loopback URL where nothing listens (connections are refused).
std::string ClosedPortUrl() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  ::close(fd);
  return absl::StrCat("http://127.0.0.1:", port);
}

std::unique_ptr<HttpTransport> NewTransport() {
  absl::StatusOr<std::unique_ptr<HttpTransport>> transport =
      HttpTransport::Create(TransportOptions{});
  REQUIRE(transport.ok());
  return std::move(*transport);
}

void WriteText(const std::string& path, const std::string& text) {
  testing::WriteFile(path, std::vector<uint8_t>(text.begin(), text.end()));
}

// Options whose environment is `variables` plus a private HOME and IMDS
// disabled (unless the test sets either).
struct Chain {
  TempDir home;
  FakeClock clock;
  std::unique_ptr<HttpTransport> transport = NewTransport();

  CredentialsChainOptions Options(CredentialsEnvironment variables) {
    CredentialsChainOptions options;
    options.environment = std::move(variables);
    options.environment.emplace("HOME", home.path());
    options.environment.emplace("AWS_EC2_METADATA_DISABLED", "true");
    options.clock = clock.Function();
    return options;
  }
  absl::StatusOr<ResolvedCredentials> Resolve(CredentialsEnvironment variables) {
    return ResolveCredentialsChain(*transport, Options(std::move(variables)));
  }
  absl::StatusOr<ResolvedCredentials> ResolveWith(CredentialsChainOptions options) {
    return ResolveCredentialsChain(*transport, std::move(options));
  }
  std::string AwsDir() {
    std::string dir = home.Join(".aws");
    std::filesystem::create_directories(dir);
    return dir;
  }
};

// The credentials a resolved chain gives now.
Credentials Current(const absl::StatusOr<ResolvedCredentials>& resolved) {
  REQUIRE_MESSAGE(resolved.ok(), resolved.status().ToString());
  absl::StatusOr<Credentials> credentials = resolved->provider->Get();
  REQUIRE_MESSAGE(credentials.ok(), credentials.status().ToString());
  return *credentials;
}

std::string Iso(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

std::string CredentialsJson(const std::string& id, absl::Time expiration,
                            const std::string& secret = "container-secret",
                            const std::string& token = "container-token") {
  return absl::StrCat("{\"AccessKeyId\":\"", id, "\",\"SecretAccessKey\":\"", secret,
                      "\",\"Token\":\"", token, "\",\"Expiration\":\"", Iso(expiration), "\"}");
}

TestHttpResponse Ok(std::string body) {
  TestHttpResponse response;
  response.body = std::move(body);
  return response;
}

TestHttpResponse Reply(int status, std::string body = "") {
  TestHttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i] == '+' ? ' ' : text[i]);
    }
  }
  return out;
}

std::map<std::string, std::string> ParseForm(const std::string& body) {
  std::map<std::string, std::string> form;
  for (absl::string_view pair : absl::StrSplit(body, '&')) {
    std::vector<std::string> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    form[PercentDecode(kv[0])] = kv.size() > 1 ? PercentDecode(kv[1]) : "";
  }
  return form;
}

std::string StsXml(const std::string& id, absl::Time expiration,
                   const std::string& secret = "sts-secret", const std::string& token = "sts-token") {
  return absl::StrCat(
      "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
      "<AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>",
      id, "</AccessKeyId><SecretAccessKey>", secret, "</SecretAccessKey><SessionToken>", token,
      "</SessionToken><Expiration>", Iso(expiration),
      "</Expiration></Credentials></AssumeRoleWithWebIdentityResult>"
      "</AssumeRoleWithWebIdentityResponse>");
}

// An IMDSv2 service: a token for a PUT, then the role and its credentials
// for requests that carry that token.
Endpoint::Handler ImdsHandler(std::function<std::string()> document,
                              std::string token = "imds-session-token") {
  return [document = std::move(document), token](const TestHttpRequest& request) {
    if (request.method == "PUT" && request.target == "/latest/api/token") {
      auto ttl = request.headers.find("x-aws-ec2-metadata-token-ttl-seconds");
      if (ttl == request.headers.end()) return Reply(400);
      return Ok(token);
    }
    auto presented = request.headers.find("x-aws-ec2-metadata-token");
    if (presented == request.headers.end() || presented->second != token) return Reply(401);
    if (request.target == "/latest/meta-data/iam/security-credentials/") return Ok("lake-role\n");
    if (request.target == "/latest/meta-data/iam/security-credentials/lake-role") {
      return Ok(document());
    }
    return Reply(404);
  };
}

std::string ImdsJson(const std::string& id, absl::Time expiration,
                     const std::string& secret = "imds-secret",
                     const std::string& token = "imds-token") {
  return absl::StrCat("{\"Code\":\"Success\",\"LastUpdated\":\"", Iso(kStart),
                      "\",\"Type\":\"AWS-HMAC\",\"AccessKeyId\":\"", id,
                      "\",\"SecretAccessKey\":\"", secret, "\",\"Token\":\"", token,
                      "\",\"Expiration\":\"", Iso(expiration), "\"}");
}

void CheckFailed(const absl::Status& status, absl::StatusCode code,
                 std::optional<CredentialSource> source, std::string_view needle = "") {
  CHECK_MESSAGE(status.code() == code, status.ToString());
  CHECK_MESSAGE(FailedCredentialSource(status) == source, status.ToString());
  if (!needle.empty()) {
    CHECK_MESSAGE(absl::StrContains(status.message(), absl::string_view(needle.data(), needle.size())),
                  status.ToString());
  }
}

template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& value) {
  return value.status();
}

// --- 1. Environment --------------------------------------------------------------------------

TEST_CASE("environment: the key pair and an optional session token") {
  Chain chain;
  absl::StatusOr<ResolvedCredentials> resolved =
      chain.Resolve({{"AWS_ACCESS_KEY_ID", "AKIDENV"}, {"AWS_SECRET_ACCESS_KEY", "env-secret"}});
  Credentials credentials = Current(resolved);
  CHECK(resolved->source == CredentialSource::kEnvironment);
  CHECK(credentials.access_key_id == "AKIDENV");
  CHECK(credentials.secret_access_key == "env-secret");
  CHECK_FALSE(credentials.session_token.has_value());

  Credentials with_token = Current(chain.Resolve({{"AWS_ACCESS_KEY_ID", "AKIDENV"},
                                                  {"AWS_SECRET_ACCESS_KEY", "env-secret"},
                                                  {"AWS_SESSION_TOKEN", "env-token"}}));
  CHECK(with_token.session_token == std::optional<std::string>("env-token"));
}

TEST_CASE("environment: half a key pair or a bad value is a typed error, not a fallback") {
  Chain chain;
  Endpoint container([&](const TestHttpRequest&) {
    return Ok(CredentialsJson("AKIDCONTAINER", kStart + absl::Hours(1)));
  });
  std::string full_uri = container.url() + "/creds";
  CheckFailed(StatusOf(chain.Resolve({{"AWS_SECRET_ACCESS_KEY", "env-secret"},
                                      {"AWS_CONTAINER_CREDENTIALS_FULL_URI", full_uri}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kEnvironment,
              "only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_ACCESS_KEY_ID", "AKID"},
                                      {"AWS_CONTAINER_CREDENTIALS_FULL_URI", full_uri}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kEnvironment);
  CheckFailed(StatusOf(chain.Resolve({{"AWS_ACCESS_KEY_ID", "AK/ID"},
                                      {"AWS_SECRET_ACCESS_KEY", "env-secret"}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kEnvironment,
              "access key id holds");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_ACCESS_KEY_ID", "AKID"},
                                      {"AWS_SECRET_ACCESS_KEY", "env-secret\n"}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kEnvironment,
              "secret access key holds");
  CHECK(container.count() == 0);
}

TEST_CASE("no source has credentials: Unauthenticated, naming what each lacked") {
  Chain chain;
  absl::Status status = StatusOf(chain.Resolve(CredentialsEnvironment{}));
  CheckFailed(status, absl::StatusCode::kUnauthenticated, std::nullopt);
  for (const char* part : {"no AWS credentials found", "environment: AWS_ACCESS_KEY_ID",
                           "shared files: no profile 'default' in", "web identity: AWS_WEB_IDENTITY",
                           "container: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                           "IMDS: disabled by AWS_EC2_METADATA_DISABLED"}) {
    CHECK_MESSAGE(absl::StrContains(status.message(), part), status.ToString());
  }
}

// --- 2. Shared files -----------------------------------------------------------------------------

TEST_CASE("shared files: the default profile of ~/.aws/credentials") {
  Chain chain;
  WriteText(chain.AwsDir() + "/credentials",
            "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = file-secret\n"
            "aws_session_token = file-token\n");
  absl::StatusOr<ResolvedCredentials> resolved = chain.Resolve(CredentialsEnvironment{});
  Credentials credentials = Current(resolved);
  CHECK(resolved->source == CredentialSource::kSharedFiles);
  CHECK(credentials.access_key_id == "AKIDFILE");
  CHECK(credentials.secret_access_key == "file-secret");
  CHECK(credentials.session_token == std::optional<std::string>("file-token"));
}

TEST_CASE("shared files: AWS_PROFILE chooses a profile, here of ~/.aws/config") {
  Chain chain;
  WriteText(chain.AwsDir() + "/config",
            "[default]\nregion = us-east-1\n"
            "[profile dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = dev-secret\n");
  Credentials credentials = Current(chain.Resolve({{"AWS_PROFILE", "dev"}}));
  CHECK(credentials.access_key_id == "AKIDDEV");
}

TEST_CASE("shared files: the path variables, ~ expansion, and the credentials file winning") {
  Chain chain;
  TempDir elsewhere;
  WriteText(chain.home.Join("creds.ini"),
            "[work]\naws_access_key_id = AKIDCREDS\naws_secret_access_key = creds-secret\n");
  WriteText(elsewhere.Join("config.ini"),
            "[profile work]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = config-secret\n"
            "aws_session_token = config-token\n");
  // The default paths hold other credentials, which must not be read.
  WriteText(chain.AwsDir() + "/credentials",
            "[work]\naws_access_key_id = AKIDWRONG\naws_secret_access_key = wrong\n");
  Credentials credentials = Current(chain.Resolve({{"AWS_PROFILE", "work"},
                                                   {"AWS_SHARED_CREDENTIALS_FILE", "~/creds.ini"},
                                                   {"AWS_CONFIG_FILE", elsewhere.Join("config.ini")}}));
  CHECK(credentials.access_key_id == "AKIDCREDS");
  CHECK(credentials.secret_access_key == "creds-secret");
  CHECK(credentials.session_token == std::optional<std::string>("config-token"));
}

TEST_CASE("shared files: an AWS_PROFILE that names no profile is an error") {
  Chain chain;
  WriteText(chain.AwsDir() + "/credentials",
            "[default]\naws_access_key_id = AKID\naws_secret_access_key = s\n");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_PROFILE", "missing"}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kSharedFiles,
              "AWS_PROFILE names profile 'missing'");
}

TEST_CASE("shared files: a malformed or unreadable file stops the chain") {
  Chain chain;
  Endpoint container([&](const TestHttpRequest&) {
    return Ok(CredentialsJson("AKIDCONTAINER", kStart + absl::Hours(1)));
  });
  CredentialsEnvironment environment = {
      {"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/creds"}};
  WriteText(chain.AwsDir() + "/credentials", "[default]\naws_access_key_id AKID\n");
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kInvalidArgument,
              CredentialSource::kSharedFiles, "/.aws/credentials: line 2: expected");

  WriteText(chain.AwsDir() + "/credentials", "[default]\nregion = x\n");
  WriteText(chain.AwsDir() + "/config", "[profile x\n");
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kInvalidArgument,
              CredentialSource::kSharedFiles, "the config file");

  std::filesystem::remove(chain.AwsDir() + "/config");
  std::filesystem::create_directories(chain.AwsDir() + "/config");  // not a regular file
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kInvalidArgument,
              CredentialSource::kSharedFiles, "is not a regular file");

  std::filesystem::remove(chain.AwsDir() + "/config");
  WriteText(chain.AwsDir() + "/config", "[default]\naws_secret_access_key = s\n");
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kInvalidArgument,
              CredentialSource::kSharedFiles, "must be set together");
  CHECK(container.count() == 0);
}

TEST_CASE("shared files: missing files and a profile without credentials are skipped") {
  Chain chain;
  Endpoint container([&](const TestHttpRequest&) {
    return Ok(CredentialsJson("AKIDCONTAINER", kStart + absl::Hours(1)));
  });
  CredentialsEnvironment environment = {
      {"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/creds"}};
  absl::StatusOr<ResolvedCredentials> no_files = chain.Resolve(environment);
  CHECK(Current(no_files).access_key_id == "AKIDCONTAINER");
  CHECK(no_files->source == CredentialSource::kContainer);

  WriteText(chain.AwsDir() + "/config", "[default]\nregion = eu-west-1\n");
  absl::StatusOr<ResolvedCredentials> region_only = chain.Resolve(environment);
  CHECK(Current(region_only).access_key_id == "AKIDCONTAINER");
}

TEST_CASE("shared files: a profile's web identity role is assumed through STS") {
  Chain chain;
  Endpoint sts([&](const TestHttpRequest&) {
    return Ok(StsXml("AKIDPROFILESTS", chain.clock.Now() + absl::Hours(1)));
  });
  WriteText(chain.home.Join("token"), "profile-web-token\n");
  WriteText(chain.AwsDir() + "/config",
            absl::StrCat("[profile eks]\nrole_arn = ", kRoleArn,
                         "\nweb_identity_token_file = ~/token\nrole_session_name = from-profile\n"));
  absl::StatusOr<ResolvedCredentials> resolved =
      chain.Resolve({{"AWS_PROFILE", "eks"}, {"AWS_ENDPOINT_URL_STS", sts.url()}});
  Credentials credentials = Current(resolved);
  CHECK(resolved->source == CredentialSource::kSharedFiles);
  CHECK(credentials.access_key_id == "AKIDPROFILESTS");
  REQUIRE(sts.count() == 1);
  std::map<std::string, std::string> form = ParseForm(sts.requests()[0].body);
  CHECK(form["RoleArn"] == kRoleArn);
  CHECK(form["RoleSessionName"] == "from-profile");
  CHECK(form["WebIdentityToken"] == "profile-web-token");
}

// --- 3. Web identity ----------------------------------------------------------------------------

TEST_CASE("web identity: AssumeRoleWithWebIdentity with the token file's token") {
  Chain chain;
  Endpoint sts([&](const TestHttpRequest&) {
    return Ok(StsXml("AKIDSTS", chain.clock.Now() + absl::Hours(1)));
  });
  WriteText(chain.home.Join("token"), "eyJ.web+token/=.sig\n");
  absl::StatusOr<ResolvedCredentials> resolved =
      chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")},
                     {"AWS_ROLE_ARN", kRoleArn},
                     {"AWS_ROLE_SESSION_NAME", "lake-session"},
                     {"AWS_ENDPOINT_URL_STS", sts.url()}});
  Credentials credentials = Current(resolved);
  CHECK(resolved->source == CredentialSource::kWebIdentity);
  CHECK(credentials.access_key_id == "AKIDSTS");
  CHECK(credentials.secret_access_key == "sts-secret");
  CHECK(credentials.session_token == std::optional<std::string>("sts-token"));

  REQUIRE(sts.count() == 1);
  TestHttpRequest request = sts.requests()[0];
  CHECK(request.method == "POST");
  CHECK(request.target == "/");
  CHECK(absl::StartsWith(request.headers["content-type"], "application/x-www-form-urlencoded"));
  CHECK(request.headers.count("authorization") == 0);  // not signed
  std::map<std::string, std::string> form = ParseForm(request.body);
  CHECK(form["Action"] == "AssumeRoleWithWebIdentity");
  CHECK(form["Version"] == "2011-06-15");
  CHECK(form["RoleArn"] == kRoleArn);
  CHECK(form["RoleSessionName"] == "lake-session");
  CHECK(form["WebIdentityToken"] == "eyJ.web+token/=.sig");
}

TEST_CASE("web identity: without AWS_ROLE_SESSION_NAME lake names the session") {
  Chain chain;
  Endpoint sts([&](const TestHttpRequest&) {
    return Ok(StsXml("AKIDSTS", chain.clock.Now() + absl::Hours(1)));
  });
  WriteText(chain.home.Join("token"), "web-token");
  Current(chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")},
                         {"AWS_ROLE_ARN", kRoleArn},
                         {"AWS_ENDPOINT_URL_STS", sts.url() + "/sts/"}}));
  REQUIRE(sts.count() == 1);
  CHECK(sts.requests()[0].target == "/sts/");
  CHECK(ParseForm(sts.requests()[0].body)["RoleSessionName"] == "lake-1893456000");
}

TEST_CASE("web identity: an STS error is typed, with the token removed") {
  Chain chain;
  Endpoint sts([&](const TestHttpRequest& request) {
    std::string token = ParseForm(request.body)["WebIdentityToken"];
    return Reply(400,
                  "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error>"
                  "<Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>Token " +
                      token + " has expired</Message></Error><RequestId>r</RequestId>"
                              "</ErrorResponse>");
  });
  WriteText(chain.home.Join("token"), "eyJ-the-web-identity-token");
  absl::Status status = StatusOf(chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE",
                                                 chain.home.Join("token")},
                                                {"AWS_ROLE_ARN", kRoleArn},
                                                {"AWS_ENDPOINT_URL_STS", sts.url()}}));
  CheckFailed(status, absl::StatusCode::kPermissionDenied, CredentialSource::kWebIdentity,
              "STS InvalidIdentityToken (HTTP 400): Token [redacted] has expired");
  CHECK_FALSE(absl::StrContains(status.ToString(), "eyJ-the-web-identity-token"));
}

TEST_CASE("web identity: incomplete or broken settings are typed errors") {
  Chain chain;
  WriteText(chain.home.Join("token"), "web-token");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_ROLE_ARN", kRoleArn}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kWebIdentity, "only one of");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kWebIdentity, "only one of");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")},
                                      {"AWS_ROLE_ARN", "role"}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kWebIdentity, "role ARN");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")},
                                      {"AWS_ROLE_ARN", kRoleArn},
                                      {"AWS_ENDPOINT_URL_STS", "ftp://sts.example"}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kWebIdentity,
              "AWS_ENDPOINT_URL_STS is not an http");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")},
                                      {"AWS_ROLE_ARN", kRoleArn},
                                      {"AWS_REGION", "us-east-1.evil.example/"}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kWebIdentity, "the region");
  Endpoint sts;  // never reached
  CheckFailed(StatusOf(chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("missing")},
                                      {"AWS_ROLE_ARN", kRoleArn},
                                      {"AWS_ENDPOINT_URL_STS", sts.url()}})),
              absl::StatusCode::kNotFound, CredentialSource::kWebIdentity,
              "reading the web identity token file");
  WriteText(chain.home.Join("empty"), "\n");
  CheckFailed(StatusOf(chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("empty")},
                                      {"AWS_ROLE_ARN", kRoleArn},
                                      {"AWS_ENDPOINT_URL_STS", sts.url()}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kWebIdentity,
              "web identity token is shorter");
  CHECK(sts.count() == 0);
}

TEST_CASE("web identity: STS failures and malformed answers are typed") {
  Chain chain;
  WriteText(chain.home.Join("token"), "web-token");
  Endpoint sts;
  CredentialsEnvironment environment = {{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")},
                                        {"AWS_ROLE_ARN", kRoleArn},
                                        {"AWS_ENDPOINT_URL_STS", sts.url()}};
  sts.SetHandler([](const TestHttpRequest&) { return Reply(503, "<html>busy</html>"); });
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kUnavailable,
              CredentialSource::kWebIdentity, "STS error (HTTP 503)");
  sts.SetHandler([](const TestHttpRequest&) { return Ok("<AssumeRoleWithWebIdentityResponse/>"); });
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kInvalidArgument,
              CredentialSource::kWebIdentity, "is missing");
  sts.SetHandler([&](const TestHttpRequest&) {
    return Ok(StsXml("AKIDSTS", chain.clock.Now() - absl::Seconds(1)));
  });
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kUnavailable,
              CredentialSource::kWebIdentity, "expired at");
  environment["AWS_ENDPOINT_URL_STS"] = ClosedPortUrl();
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kUnavailable,
              CredentialSource::kWebIdentity, "STS AssumeRoleWithWebIdentity at");
}

TEST_CASE("web identity: each refresh reads the token file again") {
  Chain chain;
  std::atomic<int> calls{0};
  Endpoint sts([&](const TestHttpRequest&) {
    return Ok(StsXml(absl::StrCat("AKIDSTS", ++calls), chain.clock.Now() + absl::Hours(1)));
  });
  WriteText(chain.home.Join("token"), "first-token");
  absl::StatusOr<ResolvedCredentials> resolved =
      chain.Resolve({{"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")},
                     {"AWS_ROLE_ARN", kRoleArn},
                     {"AWS_ENDPOINT_URL_STS", sts.url()}});
  CHECK(Current(resolved).access_key_id == "AKIDSTS1");
  WriteText(chain.home.Join("token"), "rotated-token");
  chain.clock.Advance(absl::Minutes(56));
  CHECK(Current(resolved).access_key_id == "AKIDSTS2");
  REQUIRE(sts.count() == 2);
  CHECK(ParseForm(sts.requests()[0].body)["WebIdentityToken"] == "first-token");
  CHECK(ParseForm(sts.requests()[1].body)["WebIdentityToken"] == "rotated-token");
}

// --- 4. Container -----------------------------------------------------------------------------

TEST_CASE("container: a full URI on loopback, with the authorization token") {
  Chain chain;
  Endpoint container([&](const TestHttpRequest&) {
    return Ok(CredentialsJson("AKIDCONTAINER", chain.clock.Now() + absl::Hours(6)));
  });
  absl::StatusOr<ResolvedCredentials> resolved =
      chain.Resolve({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/v1/creds?x=1"},
                     {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "Basic abc=="}});
  Credentials credentials = Current(resolved);
  CHECK(resolved->source == CredentialSource::kContainer);
  CHECK(credentials.access_key_id == "AKIDCONTAINER");
  CHECK(credentials.secret_access_key == "container-secret");
  CHECK(credentials.session_token == std::optional<std::string>("container-token"));
  REQUIRE(container.count() == 1);
  TestHttpRequest request = container.requests()[0];
  CHECK(request.method == "GET");
  CHECK(request.target == "/v1/creds?x=1");
  CHECK(request.headers["authorization"] == "Basic abc==");
}

TEST_CASE("container: a relative URI, and the token file preferred to the token") {
  Chain chain;
  Endpoint container([&](const TestHttpRequest&) {
    return Ok(CredentialsJson("AKIDECS", chain.clock.Now() + absl::Hours(6)));
  });
  WriteText(chain.home.Join("auth"), "token-from-file\n");
  CredentialsChainOptions options =
      chain.Options({{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/1234-abcd"},
                     {"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:1/never"},
                     {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", chain.home.Join("auth")},
                     {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "token-from-variable"}});
  options.container_relative_base = container.url();
  CHECK(Current(chain.ResolveWith(std::move(options))).access_key_id == "AKIDECS");
  REQUIRE(container.count() == 1);
  CHECK(container.requests()[0].target == "/v2/credentials/1234-abcd");
  CHECK(container.requests()[0].headers["authorization"] == "token-from-file");
}

TEST_CASE("container: plain http only to loopback, ECS and EKS hosts") {
  Chain chain;
  for (const char* uri : {"http://example.com/creds", "http://10.0.0.1:8080/creds",
                          "http://169.254.169.254/creds", "http://127.0.0.1.example.com/x"}) {
    CAPTURE(uri);
    CheckFailed(StatusOf(chain.Resolve({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", uri}})),
                absl::StatusCode::kInvalidArgument, CredentialSource::kContainer, "use https");
  }
  for (const char* uri : {"http://user:pass@127.0.0.1/creds", "ftp://127.0.0.1/creds",
                          "http://127.0.0.1/creds#f", "http:///creds"}) {
    CAPTURE(uri);
    CheckFailed(StatusOf(chain.Resolve({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", uri}})),
                absl::StatusCode::kInvalidArgument, CredentialSource::kContainer,
                "is not an http:// or https:// URL");
  }
  CheckFailed(StatusOf(chain.Resolve({{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "creds"}})),
              absl::StatusCode::kInvalidArgument, CredentialSource::kContainer,
              "must start with '/'");
}

TEST_CASE("container: HTTP failures, bad tokens and malformed documents are typed") {
  Chain chain;
  Endpoint container;
  CredentialsEnvironment environment = {
      {"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/creds"}};
  container.SetHandler([](const TestHttpRequest&) { return Reply(403, "denied"); });
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kPermissionDenied,
              CredentialSource::kContainer, "answered HTTP 403");
  container.SetHandler([](const TestHttpRequest&) { return Reply(500); });
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kUnavailable,
              CredentialSource::kContainer, "answered HTTP 500");
  container.SetHandler([](const TestHttpRequest&) { return Reply(404); });
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kFailedPrecondition,
              CredentialSource::kContainer, "answered HTTP 404");
  container.SetHandler([](const TestHttpRequest&) { return Ok("{\"AccessKeyId\":"); });
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kInvalidArgument,
              CredentialSource::kContainer, "not a JSON document");
  container.SetHandler([](const TestHttpRequest&) { return Ok(std::string(70000, ' ')); });
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kResourceExhausted,
              CredentialSource::kContainer, "over the limit");
  size_t before = container.count();
  environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "token\r\nX-Injected: 1";
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kInvalidArgument,
              CredentialSource::kContainer, "authorization token");
  environment.erase("AWS_CONTAINER_AUTHORIZATION_TOKEN");
  environment["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = chain.home.Join("missing");
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kNotFound,
              CredentialSource::kContainer, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  CHECK(container.count() == before);
  environment.erase("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = ClosedPortUrl() + "/creds";
  CheckFailed(StatusOf(chain.Resolve(environment)), absl::StatusCode::kUnavailable,
              CredentialSource::kContainer, "the container endpoint http://127.0.0.1:");
}

// --- 5. IMDSv2 ----------------------------------------------------------------------------------

TEST_CASE("IMDS: a session token, then the role, then its credentials, all with the token") {
  Chain chain;
  Endpoint imds(ImdsHandler([&] { return ImdsJson("AKIDIMDS", chain.clock.Now() + absl::Hours(6)); }));
  CredentialsChainOptions options = chain.Options({{"AWS_EC2_METADATA_DISABLED", "false"},
                                                   {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.url() + "/"}});
  absl::StatusOr<ResolvedCredentials> resolved = chain.ResolveWith(std::move(options));
  Credentials credentials = Current(resolved);
  CHECK(resolved->source == CredentialSource::kImds);
  CHECK(credentials.access_key_id == "AKIDIMDS");
  CHECK(credentials.secret_access_key == "imds-secret");
  CHECK(credentials.session_token == std::optional<std::string>("imds-token"));

  std::vector<TestHttpRequest> requests = imds.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].method == "PUT");
  CHECK(requests[0].target == "/latest/api/token");
  CHECK(requests[0].headers["x-aws-ec2-metadata-token-ttl-seconds"] == "21600");
  CHECK(requests[0].headers.count("x-aws-ec2-metadata-token") == 0);
  CHECK(requests[1].method == "GET");
  CHECK(requests[1].target == "/latest/meta-data/iam/security-credentials/");
  CHECK(requests[1].headers["x-aws-ec2-metadata-token"] == "imds-session-token");
  CHECK(requests[2].method == "GET");
  CHECK(requests[2].target == "/latest/meta-data/iam/security-credentials/lake-role");
  CHECK(requests[2].headers["x-aws-ec2-metadata-token"] == "imds-session-token");
}

TEST_CASE("IMDS: options.imds_endpoint is the default endpoint") {
  Chain chain;
  Endpoint imds(ImdsHandler([&] { return ImdsJson("AKIDIMDS", chain.clock.Now() + absl::Hours(6)); }));
  CredentialsChainOptions options = chain.Options({{"AWS_EC2_METADATA_DISABLED", ""}});
  options.imds_endpoint = imds.url();
  CHECK(Current(chain.ResolveWith(std::move(options))).access_key_id == "AKIDIMDS");
}

TEST_CASE("IMDS: AWS_EC2_METADATA_DISABLED=true skips it without a request") {
  Chain chain;
  Endpoint imds(ImdsHandler([&] { return ImdsJson("AKIDIMDS", chain.clock.Now() + absl::Hours(6)); }));
  for (const char* value : {"true", "TRUE", "True"}) {
    CredentialsChainOptions options = chain.Options(
        {{"AWS_EC2_METADATA_DISABLED", value}, {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.url()}});
    CheckFailed(StatusOf(chain.ResolveWith(std::move(options))), absl::StatusCode::kUnauthenticated,
                std::nullopt, "IMDS: disabled by AWS_EC2_METADATA_DISABLED");
  }
  CHECK(imds.count() == 0);
}

TEST_CASE("IMDS: no session token or no role means no credentials; a failing IMDS is an error") {
  Chain chain;
  Endpoint imds;
  CredentialsEnvironment environment = {{"AWS_EC2_METADATA_DISABLED", "false"},
                                        {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.url()}};
  imds.SetHandler([](const TestHttpRequest&) { return Reply(405); });  // IMDSv1 only
  CheckFailed(StatusOf(chain.ResolveWith(chain.Options(environment))),
              absl::StatusCode::kUnauthenticated, std::nullopt, "lake does not use IMDSv1");
  imds.SetHandler([](const TestHttpRequest& request) {
    return request.method == "PUT" ? Ok("t") : Reply(404);
  });
  CheckFailed(StatusOf(chain.ResolveWith(chain.Options(environment))),
              absl::StatusCode::kUnauthenticated, std::nullopt, "has no IAM role");
  imds.SetHandler([](const TestHttpRequest&) { return Reply(503); });
  CheckFailed(StatusOf(chain.ResolveWith(chain.Options(environment))), absl::StatusCode::kUnavailable,
              CredentialSource::kImds, "answered HTTP 503");
  imds.SetHandler(ImdsHandler([] { return std::string("{\"Code\":\"Failure\"}"); }));
  CheckFailed(StatusOf(chain.ResolveWith(chain.Options(environment))),
              absl::StatusCode::kInvalidArgument, CredentialSource::kImds);
  imds.SetHandler([](const TestHttpRequest& request) {
    if (request.method == "PUT") return Ok("t");
    return Ok("../../etc\n");
  });
  CheckFailed(StatusOf(chain.ResolveWith(chain.Options(environment))),
              absl::StatusCode::kInvalidArgument, CredentialSource::kImds, "role name is malformed");
  CheckFailed(StatusOf(chain.ResolveWith(chain.Options(
                  {{"AWS_EC2_METADATA_DISABLED", "false"},
                   {"AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "IPv5"}}))),
              absl::StatusCode::kInvalidArgument, CredentialSource::kImds, "IPv4 or IPv6");
}

TEST_CASE("IMDS: a dead endpoint fails fast with a typed error") {
  Chain chain;
  SilentListener silent;
  for (const std::string& endpoint : {ClosedPortUrl(), silent.url()}) {
    CAPTURE(endpoint);
    CredentialsChainOptions options = chain.Options(
        {{"AWS_EC2_METADATA_DISABLED", "false"}, {"AWS_EC2_METADATA_SERVICE_ENDPOINT", endpoint}});
    absl::Time begin = absl::Now();
    absl::Status status = StatusOf(chain.ResolveWith(std::move(options)));
    absl::Duration elapsed = absl::Now() - begin;
    CheckFailed(status, absl::StatusCode::kUnauthenticated, std::nullopt,
                "IMDS: no answer from " + endpoint + " within 1s");
    CHECK_MESSAGE(elapsed < absl::Seconds(2), absl::FormatDuration(elapsed));
    MESSAGE("dead IMDS at ", endpoint, " failed after ", absl::FormatDuration(elapsed));
  }
}

// --- The order ---------------------------------------------------------------------------------

TEST_CASE("the order: environment, shared files, web identity, container, IMDS") {
  Chain chain;
  Endpoint sts([&](const TestHttpRequest&) {
    return Ok(StsXml("AKIDSTS", chain.clock.Now() + absl::Hours(1)));
  });
  Endpoint container([&](const TestHttpRequest&) {
    return Ok(CredentialsJson("AKIDCONTAINER", chain.clock.Now() + absl::Hours(1)));
  });
  Endpoint imds(ImdsHandler([&] { return ImdsJson("AKIDIMDS", chain.clock.Now() + absl::Hours(1)); }));
  WriteText(chain.home.Join("token"), "web-token");
  WriteText(chain.home.Join("credentials"),
            "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = s\n");
  CredentialsEnvironment environment = {
      {"AWS_ACCESS_KEY_ID", "AKIDENV"},
      {"AWS_SECRET_ACCESS_KEY", "s"},
      {"AWS_SHARED_CREDENTIALS_FILE", chain.home.Join("credentials")},
      {"AWS_WEB_IDENTITY_TOKEN_FILE", chain.home.Join("token")},
      {"AWS_ROLE_ARN", kRoleArn},
      {"AWS_ENDPOINT_URL_STS", sts.url()},
      {"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/creds"},
      {"AWS_EC2_METADATA_DISABLED", "false"},
      {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.url()},
  };
  struct Step {
    const char* expected_id;
    CredentialSource source;
    std::vector<std::string> then_unset;
  };
  std::vector<Step> steps = {
      {"AKIDENV", CredentialSource::kEnvironment, {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}},
      {"AKIDFILE", CredentialSource::kSharedFiles, {"AWS_SHARED_CREDENTIALS_FILE"}},
      {"AKIDSTS", CredentialSource::kWebIdentity, {"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"}},
      {"AKIDCONTAINER", CredentialSource::kContainer, {"AWS_CONTAINER_CREDENTIALS_FULL_URI"}},
      {"AKIDIMDS", CredentialSource::kImds, {}},
  };
  std::vector<size_t> expected_counts[] = {{0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {1, 1, 3}};
  for (size_t i = 0; i < steps.size(); ++i) {
    CAPTURE(steps[i].expected_id);
    absl::StatusOr<ResolvedCredentials> resolved = chain.ResolveWith(chain.Options(environment));
    CHECK(Current(resolved).access_key_id == steps[i].expected_id);
    CHECK(resolved->source == steps[i].source);
    // Later sources were not asked.
    CHECK(std::vector<size_t>{sts.count(), container.count(), imds.count()} == expected_counts[i]);
    for (const std::string& name : steps[i].then_unset) environment.erase(name);
  }
}

// --- Refreshing --------------------------------------------------------------------------------

// A container endpoint that hands out "AKID<n>" valid for `lifetime` from
// the fake clock's now, or fails while `failing` is set.
struct RefreshFixture {
  Chain chain;
  std::atomic<int64_t> lifetime_seconds{3600};
  std::atomic<int> issued{0};
  std::atomic<bool> failing{false};
  std::atomic<bool> omit_expiration{false};
  std::atomic<int64_t> delay_ms{0};
  Endpoint container{[this](const TestHttpRequest&) {
    if (failing) return Reply(500);
    std::string id = absl::StrCat("AKID", ++issued);
    TestHttpResponse response =
        Ok(omit_expiration ? absl::StrCat("{\"AccessKeyId\":\"", id,
                                          "\",\"SecretAccessKey\":\"s\"}")
                           : CredentialsJson(id, chain.clock.Now() + absl::Seconds(lifetime_seconds.load())));
    response.delay = absl::Milliseconds(delay_ms.load());
    return response;
  }};

  absl::StatusOr<ResolvedCredentials> Resolve() {
    return chain.Resolve({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/creds"}});
  }
};

std::string IdOf(CredentialsProvider& provider) {
  absl::StatusOr<Credentials> credentials = provider.Get();
  REQUIRE_MESSAGE(credentials.ok(), credentials.status().ToString());
  return credentials->access_key_id;
}

TEST_CASE("temporary credentials are refreshed 5 minutes before they expire") {
  RefreshFixture f;
  absl::StatusOr<ResolvedCredentials> resolved = f.Resolve();
  LAKE_REQUIRE_OK(resolved);
  CredentialsProvider& provider = *resolved->provider;
  CHECK(IdOf(provider) == "AKID1");
  f.chain.clock.Advance(absl::Minutes(54));
  CHECK(IdOf(provider) == "AKID1");
  CHECK(f.container.count() == 1);
  f.chain.clock.Advance(absl::Minutes(1));  // 5 minutes before expiry
  CHECK(IdOf(provider) == "AKID2");
  CHECK(IdOf(provider) == "AKID2");
  CHECK(f.container.count() == 2);
  f.chain.clock.Advance(absl::Minutes(55));
  CHECK(IdOf(provider) == "AKID3");
}

TEST_CASE("short-lived credentials are refreshed at half their lifetime") {
  RefreshFixture f;
  f.lifetime_seconds = 4 * 60;
  absl::StatusOr<ResolvedCredentials> resolved = f.Resolve();
  LAKE_REQUIRE_OK(resolved);
  f.chain.clock.Advance(absl::Seconds(119));
  CHECK(IdOf(*resolved->provider) == "AKID1");
  f.chain.clock.Advance(absl::Seconds(1));
  CHECK(IdOf(*resolved->provider) == "AKID2");
}

TEST_CASE("a failed refresh keeps valid credentials, retries later, and fails once they expire") {
  RefreshFixture f;
  absl::StatusOr<ResolvedCredentials> resolved = f.Resolve();
  LAKE_REQUIRE_OK(resolved);
  CredentialsProvider& provider = *resolved->provider;
  f.failing = true;
  f.chain.clock.Advance(absl::Minutes(56));
  CHECK(IdOf(provider) == "AKID1");  // the refresh failed; still valid
  CHECK(f.container.count() == 2);
  CHECK(IdOf(provider) == "AKID1");  // no new attempt before the retry time
  CHECK(f.container.count() == 2);
  f.chain.clock.Advance(kCredentialsRefreshRetry);
  CHECK(IdOf(provider) == "AKID1");
  CHECK(f.container.count() == 3);

  f.chain.clock.Set(kStart + absl::Hours(1));  // expired now
  absl::StatusOr<Credentials> expired = provider.Get();
  CheckFailed(expired.status(), absl::StatusCode::kUnavailable, CredentialSource::kContainer,
              "answered HTTP 500");
  CHECK(f.container.count() == 4);
  CheckFailed(provider.Get().status(), absl::StatusCode::kUnavailable,
              CredentialSource::kContainer);
  CHECK(f.container.count() == 4);  // the same error until the retry time

  f.failing = false;
  f.chain.clock.Advance(kCredentialsRefreshRetry);
  CHECK(IdOf(provider) == "AKID2");
}

TEST_CASE("credentials that arrive expired are an error, at the start and on refresh") {
  RefreshFixture f;
  f.lifetime_seconds = -1;
  CheckFailed(StatusOf(f.Resolve()), absl::StatusCode::kUnavailable, CredentialSource::kContainer,
              "expired at 2029-12-31T23:59:59Z");
  f.lifetime_seconds = 3600;
  absl::StatusOr<ResolvedCredentials> resolved = f.Resolve();
  LAKE_REQUIRE_OK(resolved);
  f.lifetime_seconds = 0;
  f.chain.clock.Advance(absl::Minutes(56));
  std::string id = IdOf(*resolved->provider);
  CHECK(f.issued == 3);  // the third, expired on arrival, was refused
  CHECK(id == "AKID2");
}

TEST_CASE("container credentials without an expiration are fetched again after 15 minutes") {
  RefreshFixture f;
  f.omit_expiration = true;
  absl::StatusOr<ResolvedCredentials> resolved = f.Resolve();
  LAKE_REQUIRE_OK(resolved);
  f.chain.clock.Advance(kCredentialsUnstatedLifetime - absl::Seconds(1));
  CHECK(IdOf(*resolved->provider) == "AKID1");
  f.chain.clock.Advance(absl::Seconds(1));
  CHECK(IdOf(*resolved->provider) == "AKID2");
  // They never expire, so a failed refresh keeps them.
  f.failing = true;
  f.chain.clock.Advance(absl::Hours(48));
  CHECK(IdOf(*resolved->provider) == "AKID2");
}

TEST_CASE("IMDS refreshes take a fresh session token") {
  Chain chain;
  std::atomic<int> issued{0};
  Endpoint imds(ImdsHandler([&] {
    return ImdsJson(absl::StrCat("AKIDIMDS", ++issued), chain.clock.Now() + absl::Hours(6));
  }));
  absl::StatusOr<ResolvedCredentials> resolved = chain.ResolveWith(chain.Options(
      {{"AWS_EC2_METADATA_DISABLED", "false"}, {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.url()}}));
  CHECK(Current(resolved).access_key_id == "AKIDIMDS1");
  chain.clock.Advance(absl::Hours(6) - absl::Minutes(5));
  CHECK(Current(resolved).access_key_id == "AKIDIMDS2");
  std::vector<TestHttpRequest> requests = imds.requests();
  REQUIRE(requests.size() == 6);
  CHECK(requests[3].method == "PUT");
  CHECK(requests[3].target == "/latest/api/token");
}

TEST_CASE("concurrent callers share one refresh and never wait while credentials are valid") {
  RefreshFixture f;
  absl::StatusOr<ResolvedCredentials> resolved = f.Resolve();
  LAKE_REQUIRE_OK(resolved);
  CredentialsProvider& provider = *resolved->provider;
  f.delay_ms = 300;

  // Due but valid: one caller refreshes, the others go on with AKID1.
  f.chain.clock.Advance(absl::Minutes(56));
  std::atomic<int> old_ones{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      absl::StatusOr<Credentials> credentials = provider.Get();
      if (!credentials.ok()) ++failures;
      if (credentials.ok() && credentials->access_key_id == "AKID1") ++old_ones;
    });
  }
  for (std::thread& thread : threads) thread.join();
  threads.clear();
  CHECK(failures == 0);
  CHECK(old_ones >= 7);
  CHECK(f.container.count() == 2);
  CHECK(IdOf(provider) == "AKID2");

  // Expired: every caller waits for the one refresh and gets its result.
  f.chain.clock.Advance(absl::Hours(2));
  std::atomic<int> new_ones{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      absl::StatusOr<Credentials> credentials = provider.Get();
      if (credentials.ok() && credentials->access_key_id == "AKID3") ++new_ones;
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(new_ones == 8);
  CHECK(f.container.count() == 3);
}

// --- Secrets ------------------------------------------------------------------------------------

constexpr char kLeakSecret[] = "LEAKSECRETwJalrXUtnFEMIK7MDENGbPxRfiCYzz";
constexpr char kLeakToken[] = "LEAKTOKENFwoGZXIvYXdzEJrwEaDEXAMPLEzzzzz";
constexpr char kLeakWebToken[] = "eyJLEAKWEBTOKEN.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJlLEAK";
constexpr char kLeakAuth[] = "LEAKAUTHORIZATIONTOKENxyzxyz";
constexpr char kLeakImdsToken[] = "LEAKIMDSSESSIONTOKENabcabc";
constexpr char kLeakCapability[] = "/v2/credentials/LEAKCAPABILITY-0123";

TEST_CASE("no failure shows a secret key, session token or web identity token") {
  Chain chain;
  std::vector<std::pair<std::string, absl::Status>> failures;
  auto record = [&](const std::string& what, const absl::Status& status) {
    failures.emplace_back(what, status);
  };
  auto resolve = [&](const std::string& what, CredentialsEnvironment environment) {
    record(what, StatusOf(chain.ResolveWith(chain.Options(std::move(environment)))));
  };
  const std::string secret = kLeakSecret;
  const std::string token = kLeakToken;
  const std::string web_token = kLeakWebToken;
  // Everything a hostile or broken server could say, secrets included.
  const std::string echo = absl::StrCat(secret, " ", token, " ", web_token, " ", kLeakAuth, " ",
                                        kLeakImdsToken);

  // Environment.
  resolve("env: secret only", {{"AWS_SECRET_ACCESS_KEY", secret}});
  resolve("env: bad id", {{"AWS_ACCESS_KEY_ID", "AK/ID"}, {"AWS_SECRET_ACCESS_KEY", secret}});
  resolve("env: bad secret", {{"AWS_ACCESS_KEY_ID", "AKID"}, {"AWS_SECRET_ACCESS_KEY", secret + " x"}});
  resolve("env: bad token", {{"AWS_ACCESS_KEY_ID", "AKID"},
                             {"AWS_SECRET_ACCESS_KEY", secret},
                             {"AWS_SESSION_TOKEN", token + "\r\nX: y"}});

  // Shared files.
  std::string file = chain.home.Join("credentials");
  CredentialsEnvironment files = {{"AWS_SHARED_CREDENTIALS_FILE", file}};
  WriteText(file, "[default]\naws_secret_access_key = " + secret + "\n");
  resolve("file: half a pair", files);
  WriteText(file, "[default]\naws_secret_access_key " + secret + "\n");
  resolve("file: malformed line", files);
  WriteText(file, "[default\naws_secret_access_key = " + secret + "\n");
  resolve("file: malformed section", files);
  WriteText(file, "[default]\naws_access_key_id = AKID\naws_secret_access_key = " + secret +
                      "\naws_session_token = " + token + " " + token + "\n");
  resolve("file: bad token", files);
  WriteText(file, "[default]\naws_access_key_id = AKID\naws_secret_access_key = " + secret +
                      "\x01\n");
  resolve("file: bad secret", files);
  WriteText(file, "[default]\naws_access_key_id = AKID\naws_secret_access_key = " + secret +
                      "\n\xC3\x28" + token + "\n");
  resolve("file: invalid UTF-8", files);
  std::filesystem::remove(file);

  // Web identity, from the environment and from a profile.
  Endpoint sts;
  std::string token_file = chain.home.Join("web-token");
  CredentialsEnvironment web = {{"AWS_WEB_IDENTITY_TOKEN_FILE", token_file},
                                {"AWS_ROLE_ARN", kRoleArn},
                                {"AWS_ENDPOINT_URL_STS", sts.url()}};
  WriteText(token_file, web_token + " " + web_token);
  resolve("web: bad token file", web);
  WriteText(token_file, web_token);
  sts.SetHandler([&](const TestHttpRequest& request) {
    return Reply(400, "<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>" +
                           request.body + " " + echo +
                           "</Message></Error></ErrorResponse>");
  });
  resolve("web: STS error echoing the request", web);
  sts.SetHandler([&](const TestHttpRequest& request) {
    return Reply(500, request.body + echo);
  });
  resolve("web: STS 500 echoing the request", web);
  sts.SetHandler([&](const TestHttpRequest&) { return Ok("<AssumeRoleWithWebIdentityResponse>" + echo); });
  resolve("web: malformed XML", web);
  sts.SetHandler([&](const TestHttpRequest&) {
    return Ok(StsXml("AKID", chain.clock.Now() + absl::Hours(1), secret, token + " " + token));
  });
  resolve("web: bad session token", web);
  sts.SetHandler([&](const TestHttpRequest&) {
    return Ok(StsXml("AKID", chain.clock.Now() - absl::Hours(1), secret, token));
  });
  resolve("web: expired", web);
  sts.SetHandler([&](const TestHttpRequest& request) {
    TestHttpResponse response = Reply(200, request.body + echo);
    response.reset_after_body_bytes = 10;
    return response;
  });
  resolve("web: reset mid-body", web);
  resolve("web: unreachable", {{"AWS_WEB_IDENTITY_TOKEN_FILE", token_file},
                               {"AWS_ROLE_ARN", kRoleArn},
                               {"AWS_ENDPOINT_URL_STS", ClosedPortUrl()}});
  WriteText(chain.home.Join("config"),
            absl::StrCat("[default]\nrole_arn = ", kRoleArn, "\nweb_identity_token_file = ",
                         token_file, "\n"));
  sts.SetHandler([&](const TestHttpRequest& request) {
    return Reply(403, "<ErrorResponse><Error><Code>AccessDenied</Code><Message>" + request.body +
                           "</Message></Error></ErrorResponse>");
  });
  resolve("profile web: STS error", {{"AWS_CONFIG_FILE", chain.home.Join("config")},
                                     {"AWS_ENDPOINT_URL_STS", sts.url()}});

  // Container.
  Endpoint container;
  CredentialsEnvironment box = {{"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/c"},
                                {"AWS_CONTAINER_AUTHORIZATION_TOKEN", kLeakAuth}};
  container.SetHandler([&](const TestHttpRequest&) { return Reply(403, echo); });
  resolve("container: 403", box);
  container.SetHandler([&](const TestHttpRequest&) { return Ok("{\"SecretAccessKey\":\"" + secret + "\""); });
  resolve("container: malformed JSON", box);
  container.SetHandler([&](const TestHttpRequest&) {
    return Ok(CredentialsJson("AKID", chain.clock.Now() + absl::Hours(1), secret, token + " "));
  });
  resolve("container: bad token", box);
  container.SetHandler([&](const TestHttpRequest&) {
    return Ok(CredentialsJson("AKID", chain.clock.Now() - absl::Hours(1), secret, token));
  });
  resolve("container: expired", box);
  resolve("container: bad authorization token",
          {{"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/c"},
           {"AWS_CONTAINER_AUTHORIZATION_TOKEN", std::string(kLeakAuth) + "\r\nX: y"}});
  WriteText(chain.home.Join("auth"), std::string(kLeakAuth) + "\n\x01" + kLeakAuth);
  resolve("container: bad authorization token file",
          {{"AWS_CONTAINER_CREDENTIALS_FULL_URI", container.url() + "/c"},
           {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", chain.home.Join("auth")}});
  {
    CredentialsChainOptions options = chain.Options(
        {{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", kLeakCapability}});
    options.container_relative_base = ClosedPortUrl();
    record("container: unreachable relative URI", StatusOf(chain.ResolveWith(std::move(options))));
  }
  {
    SilentListener silent;
    CredentialsChainOptions options = chain.Options(
        {{"AWS_CONTAINER_CREDENTIALS_FULL_URI", silent.url() + kLeakCapability}});
    options.container_timeout = absl::Milliseconds(200);
    record("container: silent full URI", StatusOf(chain.ResolveWith(std::move(options))));
  }

  // IMDS.
  Endpoint imds;
  CredentialsEnvironment metadata = {{"AWS_EC2_METADATA_DISABLED", "false"},
                                     {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.url()}};
  imds.SetHandler(ImdsHandler(
      [&] {
        return absl::StrCat("{\"Code\":\"", secret, "\",\"AccessKeyId\":\"AKID\",\"SecretAccessKey\":\"",
                            secret, "\",\"Token\":\"", token, "\",\"Expiration\":\"",
                            Iso(chain.clock.Now() + absl::Hours(1)), "\"}");
      },
      kLeakImdsToken));
  resolve("imds: failure code", metadata);
  imds.SetHandler(ImdsHandler([&] { return "{" + echo; }, kLeakImdsToken));
  resolve("imds: malformed JSON", metadata);
  imds.SetHandler(ImdsHandler(
      [&] { return ImdsJson("AKID", chain.clock.Now() - absl::Hours(1), secret, token); },
      kLeakImdsToken));
  resolve("imds: expired", metadata);
  imds.SetHandler([&](const TestHttpRequest& request) {
    if (request.method == "PUT") return Ok(kLeakImdsToken);
    return Reply(500, echo);
  });
  resolve("imds: 500 after the token", metadata);
  imds.SetHandler([&](const TestHttpRequest& request) {
    if (request.method == "PUT") return Ok(std::string(kLeakImdsToken) + "\x01");
    return Reply(500, echo);
  });
  resolve("imds: bad session token", metadata);

  // A refresh that fails after the credentials expired.
  {
    RefreshFixture f;
    absl::StatusOr<ResolvedCredentials> resolved = f.Resolve();
    LAKE_REQUIRE_OK(resolved);
    f.container.SetHandler([&](const TestHttpRequest&) { return Reply(401, echo); });
    f.chain.clock.Advance(absl::Hours(2));
    record("refresh after expiry", resolved->provider->Get().status());
  }

  REQUIRE(failures.size() >= 30);
  for (const auto& [what, status] : failures) {
    CAPTURE(what);
    std::string text = status.ToString();  // message and payloads
    CAPTURE(text);
    CHECK_FALSE(status.ok());
    for (const char* needle : {kLeakSecret, kLeakToken, kLeakWebToken, kLeakAuth, kLeakImdsToken,
                               "LEAKCAPABILITY"}) {
      CHECK_MESSAGE(!absl::StrContains(text, needle), needle);
    }
  }
  MESSAGE(failures.size(), " failing paths scanned");
}

}  // namespace
}  // namespace lake::s3http
