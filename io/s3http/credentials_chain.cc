#include "io/s3http/credentials_chain.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "io/errno_status.h"
#include "io/s3http/credential_formats.h"
#include "io/s3http/s3_headers.h"

namespace lake::s3http {
namespace {

using Clock = std::function<absl::Time()>;

constexpr char kSourcePayloadUrl[] = "type.lake.dev/CredentialSource";

constexpr CredentialSource kSources[] = {
    CredentialSource::kEnvironment, CredentialSource::kSharedFiles,
    CredentialSource::kWebIdentity, CredentialSource::kContainer, CredentialSource::kImds};

// Every variable the chain reads.
constexpr const char* kVariables[] = {
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
    "AWS_ROLE_SESSION_NAME",
    "AWS_ENDPOINT_URL_STS",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    "AWS_EC2_METADATA_DISABLED",
    "AWS_EC2_METADATA_SERVICE_ENDPOINT",
    "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE",
    "HOME",
};

// IMDSv2 session tokens are asked for with the longest lifetime IMDS
// grants (6 hours); a fresh one is taken for every refresh anyway.
constexpr char kImdsTokenTtlSeconds[] = "21600";
constexpr char kImdsIpv6Endpoint[] = "http://[fd00:ec2::254]";
// An IMDS session token or an IAM role name is short; anything longer is
// not IMDS.
constexpr size_t kMaxImdsTokenBytes = 4096;
constexpr size_t kMaxRoleNameBytes = 64;
// Container authorization tokens (ECS, EKS Pod Identity) are well under
// this; the file is read with this bound.
constexpr size_t kMaxAuthorizationTokenBytes = 16 << 10;

// --- Errors -----------------------------------------------------------------------

absl::Status SourceError(CredentialSource source, absl::StatusCode code,
                         std::string_view message) {
  std::string name(CredentialSourceName(source));
  absl::Status status(code, absl::StrCat("AWS credentials from ", name, ": ",
                                         std::string(message)));
  status.SetPayload(kSourcePayloadUrl, absl::Cord(name));
  return status;
}

// `cause` in the words of `source`, with `context` before its message. The
// cause's payloads are dropped: only text this module chose goes on.
absl::Status SourceError(CredentialSource source, std::string_view context,
                         const absl::Status& cause) {
  return SourceError(source, cause.code(),
                     absl::StrCat(std::string(context), ": ", std::string(cause.message())));
}

// The status of an HTTP answer other than 200 from `what`. Bodies are never
// repeated: they may hold credentials.
absl::Status HttpFailure(CredentialSource source, std::string_view what, int http_status) {
  absl::StatusCode code = absl::StatusCode::kFailedPrecondition;
  if (http_status == 401 || http_status == 403) {
    code = absl::StatusCode::kPermissionDenied;
  } else if (http_status == 408 || http_status == 429 ||
             (http_status >= 500 && http_status <= 599)) {
    code = absl::StatusCode::kUnavailable;
  }
  return SourceError(source, code,
                     absl::StrCat(std::string(what), " answered HTTP ", http_status));
}

// --- The environment ---------------------------------------------------------------

std::optional<std::string> Var(const CredentialsEnvironment& environment, const char* name) {
  auto it = environment.find(name);
  if (it == environment.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::string Shown(std::string_view configured) { return SanitizedExcerpt(configured, 128); }

// "~" and "~/..." expanded with HOME, as the AWS SDKs do; nullopt when HOME
// is needed and unset.
std::optional<std::string> ExpandHome(const CredentialsEnvironment& environment,
                                      const std::string& path) {
  if (path != "~" && !absl::StartsWith(path, "~/")) return path;
  std::optional<std::string> home = Var(environment, "HOME");
  if (!home) return std::nullopt;
  return *home + path.substr(1);
}

// --- Files ---------------------------------------------------------------------------

// A regular file of at most `max_bytes`. NotFound when it does not exist.
absl::StatusOr<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: a FIFO at the path must not hang the chain.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return io::ErrnoStatus(errno, "open", path);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return io::ErrnoStatus(error, "stat", path);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  std::string text;
  char buffer[8192];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      ::close(fd);
      return io::ErrnoStatus(error, "read", path);
    }
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      return absl::ResourceExhaustedError(
          absl::StrCat(path, " is over the limit of ", max_bytes, " bytes"));
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

// --- URLs ------------------------------------------------------------------------------

struct HttpUrl {
  bool https = false;
  std::string origin;  // "scheme://authority": safe to show
  std::string host;    // lowercased; "[...]" for IPv6
  bool has_path = false;
};

// An absolute http(s) URL of visible ASCII, without user info or fragment
// (and without a query unless `allow_query`). Refusals name `variable`,
// never the value.
absl::StatusOr<HttpUrl> ParseHttpUrl(std::string_view url, std::string_view variable,
                                     bool allow_query) {
  auto refuse = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(variable), " is not an http:// or https:// URL without user info",
        allow_query ? " or fragment" : ", query or fragment"));
  };
  HttpUrl out;
  std::string lower = absl::AsciiStrToLower(absl::string_view(url.data(), url.size()));
  size_t scheme_end;
  if (absl::StartsWith(lower, "https://")) {
    out.https = true;
    scheme_end = 8;
  } else if (absl::StartsWith(lower, "http://")) {
    scheme_end = 7;
  } else {
    return refuse();
  }
  for (char c : url) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (byte < 0x21 || byte > 0x7E) return refuse();
  }
  if (url.find('#') != std::string_view::npos) return refuse();
  if (!allow_query && url.find('?') != std::string_view::npos) return refuse();
  size_t authority_end = url.find_first_of("/?", scheme_end);
  if (authority_end == std::string_view::npos) authority_end = url.size();
  std::string_view authority = url.substr(scheme_end, authority_end - scheme_end);
  if (authority.empty() || authority.find('@') != std::string_view::npos) return refuse();
  std::string_view host = authority;
  if (host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos) return refuse();
    host = host.substr(0, close + 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (host.empty()) return refuse();
  out.origin = std::string(url.substr(0, authority_end));
  out.host = absl::AsciiStrToLower(absl::string_view(host.data(), host.size()));
  out.has_path = authority_end < url.size() && url[authority_end] == '/';
  return out;
}

bool IsLoopbackIpv4(std::string_view host) {
  int octets = 0;
  int first = -1;
  while (!host.empty()) {
    size_t dot = host.find('.');
    std::string_view part = host.substr(0, dot);
    if (part.empty() || part.size() > 3) return false;
    int value = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    if (value > 255) return false;
    if (first < 0) first = value;
    ++octets;
    if (dot == std::string_view::npos) break;
    host.remove_prefix(dot + 1);
    if (host.empty()) return false;
  }
  return octets == 4 && first == 127;
}

// The hosts the AWS SDKs let a full container URI reach over plain http:
// loopback, the ECS agent and the EKS Pod Identity agent.
bool IsAllowedContainerHttpHost(std::string_view host) {
  return IsLoopbackIpv4(host) || host == "localhost" || host == "[::1]" ||
         host == "169.254.170.2" || host == "169.254.170.23" || host == "[fd00:ec2::23]";
}

// --- HTTP ------------------------------------------------------------------------------

struct HttpResult {
  int status = 0;
  std::string body;
};

// One exchange; the body is read up to kMaxCredentialResponseBytes. Transport
// failures keep their code; unless `shown` is empty, their message has the
// URL replaced by `shown` (the path of a container URI may be a capability).
absl::StatusOr<HttpResult> Exchange(HttpTransport& transport, HttpRequest request,
                                    std::string_view shown) {
  std::string url_without_query = request.url.substr(0, request.url.find('?'));
  auto reworded = [&](const absl::Status& status) {
    std::string message(status.message());
    if (!shown.empty()) {
      message = absl::StrReplaceAll(
          message, {{url_without_query, absl::string_view(shown.data(), shown.size())}});
    }
    return absl::Status(status.code(), message);
  };
  std::unique_ptr<HttpCall> call = transport.Start(std::move(request), BodyMode::kStream);
  absl::StatusOr<HttpResponseHead> head = call->AwaitHead();
  if (!head.ok()) return reworded(head.status());
  HttpResult result;
  result.status = head->status;
  uint8_t buffer[16384];
  for (;;) {
    absl::StatusOr<size_t> n = call->ReadBody(buffer, sizeof buffer);
    if (!n.ok()) return reworded(n.status());
    if (*n == 0) break;
    if (result.body.size() + *n > kMaxCredentialResponseBytes) {
      call->Abort();
      return absl::ResourceExhaustedError(absl::StrCat(
          "the response body is over the limit of ", kMaxCredentialResponseBytes, " bytes"));
    }
    result.body.append(reinterpret_cast<const char*>(buffer), *n);
  }
  return result;
}

// --- Refreshing --------------------------------------------------------------------------

using Fetch = std::function<absl::StatusOr<TemporaryCredentials>()>;

// Credentials that expired already are no answer.
absl::Status CheckNotExpired(CredentialSource source, const TemporaryCredentials& fresh,
                             absl::Time now) {
  if (fresh.expiration && *fresh.expiration <= now) {
    return SourceError(source, absl::StatusCode::kUnavailable,
                       absl::StrCat("the credentials returned expired at ",
                                    absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", *fresh.expiration,
                                                     absl::UTCTimeZone())));
  }
  return absl::OkStatus();
}

// When credentials fetched at `now` should be replaced.
absl::Time RefreshTime(absl::Time now, const TemporaryCredentials& credentials) {
  if (!credentials.expiration) return now + kCredentialsUnstatedLifetime;
  absl::Duration lifetime = *credentials.expiration - now;
  return *credentials.expiration - std::min(kCredentialsRefreshAhead, lifetime / 2);
}

// Temporary credentials from one source, refreshed before they expire.
// Invariant: current_ is the last good answer; refresh_at_ is when it
// should be replaced; after a failed refresh nobody tries again before
// retry_at_, and last_error_ is that failure.
class RefreshingCredentialsProvider final : public CredentialsProvider {
 public:
  RefreshingCredentialsProvider(CredentialSource source, Fetch fetch, Clock clock,
                                TemporaryCredentials first)
      : source_(source), fetch_(std::move(fetch)), clock_(std::move(clock)) {
    current_ = std::move(first);
    refresh_at_ = RefreshTime(clock_(), current_);
  }

  absl::StatusOr<Credentials> Get() override {
    absl::MutexLock lock(&mu_);
    for (;;) {
      absl::Time now = clock_();
      if (now < refresh_at_) return current_.credentials;
      if (refreshing_) {
        if (Valid(now)) return current_.credentials;
        mu_.Await(absl::Condition(&idle_));
        continue;
      }
      if (now < retry_at_) {
        if (Valid(now)) return current_.credentials;
        return last_error_;
      }
      Refresh();
    }
  }

 private:
  bool Valid(absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !current_.expiration || now < *current_.expiration;
  }

  // Fetches without holding mu_, so callers with valid credentials are not
  // held up; leaves either fresh credentials or a retry time.
  void Refresh() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    refreshing_ = true;
    idle_ = false;
    mu_.Unlock();
    absl::StatusOr<TemporaryCredentials> fresh = fetch_();
    mu_.Lock();
    refreshing_ = false;
    idle_ = true;
    absl::Time now = clock_();
    absl::Status usable = fresh.ok() ? CheckNotExpired(source_, *fresh, now) : fresh.status();
    if (usable.ok()) {
      current_ = std::move(*fresh);
      refresh_at_ = RefreshTime(now, current_);
      retry_at_ = absl::InfinitePast();
      last_error_ = absl::OkStatus();
      return;
    }
    last_error_ = usable;
    retry_at_ = now + kCredentialsRefreshRetry;
  }

  const CredentialSource source_;
  const Fetch fetch_;
  const Clock clock_;
  absl::Mutex mu_;
  TemporaryCredentials current_ ABSL_GUARDED_BY(mu_);
  absl::Time refresh_at_ ABSL_GUARDED_BY(mu_);
  absl::Time retry_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
  bool refreshing_ ABSL_GUARDED_BY(mu_) = false;
  bool idle_ ABSL_GUARDED_BY(mu_) = true;
};

// --- The chain's context and probes --------------------------------------------------------

struct ChainContext {
  HttpTransport& transport;
  const CredentialsChainOptions& options;
  Clock clock;

  std::optional<std::string> Var(const char* name) const {
    return s3http::Var(options.environment, name);
  }
};

// What asking one source gave: credentials (a provider), "not configured"
// (why, for the final message), or the error of a configured source.
struct Probe {
  std::unique_ptr<CredentialsProvider> provider;
  std::string absent;
  absl::Status error;
};

Probe Absent(std::string why) { return Probe{nullptr, std::move(why), absl::OkStatus()}; }
Probe Failed(absl::Status error) { return Probe{nullptr, "", std::move(error)}; }
Probe Found(std::unique_ptr<CredentialsProvider> provider) {
  return Probe{std::move(provider), "", absl::OkStatus()};
}

// The first answer of a refreshing source: an error, or the provider.
Probe StartRefreshing(const ChainContext& context, CredentialSource source, Fetch fetch) {
  absl::StatusOr<TemporaryCredentials> first = fetch();
  if (!first.ok()) return Failed(first.status());
  if (absl::Status usable = CheckNotExpired(source, *first, context.clock()); !usable.ok()) {
    return Failed(usable);
  }
  return Found(std::make_unique<RefreshingCredentialsProvider>(source, std::move(fetch),
                                                               context.clock, std::move(*first)));
}

// --- 1. Environment ----------------------------------------------------------------------------

Probe ProbeEnvironment(const ChainContext& context) {
  constexpr CredentialSource kSource = CredentialSource::kEnvironment;
  std::optional<std::string> id = context.Var("AWS_ACCESS_KEY_ID");
  std::optional<std::string> secret = context.Var("AWS_SECRET_ACCESS_KEY");
  if (!id && !secret) return Absent("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set");
  if (!id || !secret) {
    return Failed(SourceError(
        kSource, absl::StatusCode::kInvalidArgument,
        "only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set; set both"));
  }
  Credentials credentials{*id, *secret, context.Var("AWS_SESSION_TOKEN")};
  if (absl::Status valid = ValidateCredentials(credentials); !valid.ok()) {
    return Failed(SourceError(kSource, "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or "
                                       "AWS_SESSION_TOKEN", valid));
  }
  return Found(std::make_unique<StaticCredentialsProvider>(std::move(credentials)));
}

// --- 3. Web identity (also for profiles) ---------------------------------------------------------

bool IsRegionName(std::string_view region) {
  if (region.empty() || region.size() > 64) return false;
  for (char c : region) {
    if (!absl::ascii_islower(static_cast<unsigned char>(c)) &&
        !absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '-') {
      return false;
    }
  }
  return true;
}

// The STS endpoint: AWS_ENDPOINT_URL_STS, else regional, else global.
absl::StatusOr<std::string> StsEndpoint(const ChainContext& context,
                                        const std::string& profile_region) {
  if (std::optional<std::string> url = context.Var("AWS_ENDPOINT_URL_STS")) {
    absl::StatusOr<HttpUrl> parsed = ParseHttpUrl(*url, "AWS_ENDPOINT_URL_STS", false);
    if (!parsed.ok()) return parsed.status();
    return parsed->has_path ? *url : *url + "/";
  }
  std::string region = context.Var("AWS_REGION")
                           .value_or(context.Var("AWS_DEFAULT_REGION").value_or(profile_region));
  if (region.empty() || region == "aws-global") return std::string("https://sts.amazonaws.com/");
  if (!IsRegionName(region)) {
    return absl::InvalidArgumentError(
        "the region (AWS_REGION, AWS_DEFAULT_REGION or the profile's) must be 1 to 64 of "
        "a-z 0-9 -");
  }
  const char* domain = absl::StartsWith(region, "cn-") ? "amazonaws.com.cn" : "amazonaws.com";
  return absl::StrCat("https://sts.", region, ".", domain, "/");
}

// "Action=...&..." with every value EncodeQueryComponent-ed.
std::string FormBody(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  std::vector<std::string> pairs;
  for (const auto& [key, value] : fields) {
    pairs.push_back(absl::StrCat(std::string(key), "=", EncodeQueryComponent(value)));
  }
  return absl::StrJoin(pairs, "&");
}

// AssumeRoleWithWebIdentity, reading the token file afresh each time (it
// is rotated by whoever mounts it).
class StsWebIdentityFetcher {
 public:
  StsWebIdentityFetcher(const ChainContext& context, CredentialSource source, WebIdentityRole role,
                        std::string endpoint)
      : transport_(context.transport),
        source_(source),
        role_(std::move(role)),
        endpoint_(std::move(endpoint)),
        timeout_(context.options.sts_timeout) {
    if (role_.session_name.empty()) {
      role_.session_name = absl::StrCat("lake-", absl::ToUnixSeconds(context.clock()));
    }
  }

  absl::StatusOr<TemporaryCredentials> operator()() const {
    absl::StatusOr<std::string> file = ReadBoundedFile(role_.token_file, kMaxWebIdentityTokenBytes + 1024);
    if (!file.ok()) {
      return SourceError(source_, "reading the web identity token file", file.status());
    }
    absl::StatusOr<std::string> token = ParseWebIdentityToken(*file);
    if (!token.ok()) {
      return SourceError(source_, absl::StrCat("the web identity token file ", role_.token_file),
                         token.status());
    }
    std::string body = FormBody({{"Action", "AssumeRoleWithWebIdentity"},
                                 {"Version", "2011-06-15"},
                                 {"RoleArn", role_.role_arn},
                                 {"RoleSessionName", role_.session_name},
                                 {"WebIdentityToken", *token}});
    HttpRequest request;
    request.method = "POST";
    request.url = endpoint_;
    request.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
    request.send_body = true;
    request.body = absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(body.data()), body.size());
    request.deadline = timeout_;
    std::string what = absl::StrCat("STS AssumeRoleWithWebIdentity at ", endpoint_);
    absl::StatusOr<HttpResult> result = Exchange(transport_, std::move(request), "");
    if (!result.ok()) return SourceError(source_, what, result.status());
    if (result->status != 200) {
      std::string_view secrets[] = {*token};
      absl::Status status = StsErrorStatus(result->status, result->body, secrets);
      return SourceError(source_, what, status);
    }
    absl::StatusOr<TemporaryCredentials> credentials =
        ParseAssumeRoleWithWebIdentityResponse(result->body);
    if (!credentials.ok()) return SourceError(source_, what, credentials.status());
    return credentials;
  }

 private:
  HttpTransport& transport_;
  CredentialSource source_;
  WebIdentityRole role_;
  std::string endpoint_;
  absl::Duration timeout_;
};

Probe StartWebIdentity(const ChainContext& context, CredentialSource source,
                       WebIdentityRole role, const std::string& profile_region) {
  absl::StatusOr<std::string> endpoint = StsEndpoint(context, profile_region);
  if (!endpoint.ok()) return Failed(SourceError(source, "the STS endpoint", endpoint.status()));
  return StartRefreshing(context, source,
                         StsWebIdentityFetcher(context, source, std::move(role), *endpoint));
}

Probe ProbeWebIdentity(const ChainContext& context) {
  constexpr CredentialSource kSource = CredentialSource::kWebIdentity;
  std::optional<std::string> token_file = context.Var("AWS_WEB_IDENTITY_TOKEN_FILE");
  std::optional<std::string> role_arn = context.Var("AWS_ROLE_ARN");
  if (!token_file && !role_arn) {
    return Absent("AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN are not set");
  }
  if (!token_file || !role_arn) {
    return Failed(SourceError(
        kSource, absl::StatusCode::kInvalidArgument,
        "only one of AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN is set; set both"));
  }
  std::optional<std::string> expanded = ExpandHome(context.options.environment, *token_file);
  if (!expanded) {
    return Failed(SourceError(kSource, absl::StatusCode::kInvalidArgument,
                              "AWS_WEB_IDENTITY_TOKEN_FILE starts with ~ and HOME is not set"));
  }
  WebIdentityRole role{*role_arn, *expanded, context.Var("AWS_ROLE_SESSION_NAME").value_or("")};
  if (absl::Status valid = ValidateWebIdentityRole(role); !valid.ok()) {
    return Failed(SourceError(kSource, "AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE or "
                                       "AWS_ROLE_SESSION_NAME", valid));
  }
  return StartWebIdentity(context, kSource, std::move(role), "");
}

// --- 2. Shared files -----------------------------------------------------------------------------

// A profile file, or an empty one when it does not exist.
absl::StatusOr<ProfileFile> LoadProfileFile(const std::optional<std::string>& path,
                                            ProfileFileKind kind) {
  if (!path) return ProfileFile();
  absl::StatusOr<std::string> text = ReadBoundedFile(*path, kMaxProfileFileBytes);
  if (absl::IsNotFound(text.status())) return ProfileFile();
  if (!text.ok()) return text.status();
  absl::StatusOr<ProfileFile> file = ParseProfileFile(*text, kind);
  if (!file.ok()) {
    return absl::Status(file.status().code(),
                        absl::StrCat(*path, ": ", std::string(file.status().message())));
  }
  return file;
}

Probe ProbeSharedFiles(const ChainContext& context) {
  constexpr CredentialSource kSource = CredentialSource::kSharedFiles;
  const CredentialsEnvironment& environment = context.options.environment;
  auto path_of = [&](const char* variable,
                     const char* default_name) -> std::optional<std::string> {
    std::string path = context.Var(variable).value_or(absl::StrCat("~/.aws/", default_name));
    return ExpandHome(environment, path);
  };
  std::optional<std::string> credentials_path = path_of("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  std::optional<std::string> config_path = path_of("AWS_CONFIG_FILE", "config");
  if (!credentials_path && !config_path) {
    return Absent("HOME is not set (nor AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE)");
  }
  const std::string shown_credentials = credentials_path.value_or("(no credentials file)");
  const std::string shown_config = config_path.value_or("(no config file)");
  absl::StatusOr<ProfileFile> credentials_file =
      LoadProfileFile(credentials_path, ProfileFileKind::kCredentials);
  if (!credentials_file.ok()) {
    return Failed(SourceError(kSource, "the credentials file", credentials_file.status()));
  }
  absl::StatusOr<ProfileFile> config_file = LoadProfileFile(config_path, ProfileFileKind::kConfig);
  if (!config_file.ok()) {
    return Failed(SourceError(kSource, "the config file", config_file.status()));
  }

  std::optional<std::string> chosen = context.Var("AWS_PROFILE");
  std::string profile = chosen.value_or("default");
  std::string named = absl::StrCat("profile '", Shown(profile), "' of ", shown_credentials,
                                   " and ", shown_config);
  absl::StatusOr<ProfileCredentials> resolved =
      ResolveProfileCredentials(*credentials_file, *config_file, profile);
  if (!resolved.ok()) return Failed(SourceError(kSource, named, resolved.status()));
  if (!resolved->profile_found) {
    if (chosen) {
      return Failed(SourceError(kSource, absl::StatusCode::kInvalidArgument,
                                absl::StrCat("AWS_PROFILE names profile '", Shown(profile),
                                             "', which neither ", shown_credentials, " nor ", shown_config,
                                             " defines")));
    }
    return Absent(absl::StrCat("no profile 'default' in ", shown_credentials, " or ",
                               shown_config));
  }
  if (resolved->credentials) {
    return Found(std::make_unique<StaticCredentialsProvider>(std::move(*resolved->credentials)));
  }
  if (resolved->web_identity) {
    std::optional<std::string> token_file =
        ExpandHome(environment, resolved->web_identity->token_file);
    if (!token_file) {
      return Failed(SourceError(kSource, absl::StatusCode::kInvalidArgument,
                                absl::StrCat(named, ": web_identity_token_file starts with ~ and "
                                                    "HOME is not set")));
    }
    resolved->web_identity->token_file = *token_file;
    return StartWebIdentity(context, kSource, std::move(*resolved->web_identity),
                            resolved->region);
  }
  return Absent(absl::StrCat(named, " has no credentials"));
}

// --- 4. Container ------------------------------------------------------------------------------

class ContainerFetcher {
 public:
  ContainerFetcher(const ChainContext& context, std::string url, std::string shown,
                   std::optional<std::string> token, std::optional<std::string> token_file)
      : transport_(context.transport),
        url_(std::move(url)),
        shown_(std::move(shown)),
        token_(std::move(token)),
        token_file_(std::move(token_file)),
        timeout_(context.options.container_timeout) {}

  absl::StatusOr<TemporaryCredentials> operator()() const {
    constexpr CredentialSource kSource = CredentialSource::kContainer;
    absl::StatusOr<std::optional<std::string>> token = AuthorizationToken();
    if (!token.ok()) return token.status();
    HttpRequest request;
    request.method = "GET";
    request.url = url_;
    if (*token) request.headers.push_back({"Authorization", **token});
    request.deadline = timeout_;
    std::string what = absl::StrCat("the container endpoint ", shown_);
    absl::StatusOr<HttpResult> result = Exchange(transport_, std::move(request), absl::StrCat(shown_, "/..."));
    if (!result.ok()) {
      return SourceError(kSource, what, result.status());
    }
    if (result->status != 200) return HttpFailure(kSource, what, result->status);
    absl::StatusOr<TemporaryCredentials> credentials =
        ParseCredentialsJson(result->body, CredentialsJsonKind::kContainer);
    if (!credentials.ok()) return SourceError(kSource, what, credentials.status());
    return credentials;
  }

 private:
  // AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (read each time: EKS rotates
  // it), else AWS_CONTAINER_AUTHORIZATION_TOKEN, else none.
  absl::StatusOr<std::optional<std::string>> AuthorizationToken() const {
    constexpr CredentialSource kSource = CredentialSource::kContainer;
    std::string token;
    if (token_file_) {
      absl::StatusOr<std::string> text = ReadBoundedFile(*token_file_, kMaxAuthorizationTokenBytes);
      if (!text.ok()) {
        return SourceError(kSource, "reading AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
                           text.status());
      }
      token = std::string(absl::StripAsciiWhitespace(*text));
    } else if (token_) {
      token = *token_;
    } else {
      return std::optional<std::string>();
    }
    if (token.empty() || !ValidateHeaderValue(token).ok()) {
      return SourceError(kSource, absl::StatusCode::kInvalidArgument,
                         "the container authorization token is empty or holds a control "
                         "character (CR, LF, NUL, ...)");
    }
    return std::optional<std::string>(std::move(token));
  }

  HttpTransport& transport_;
  std::string url_;
  std::string shown_;
  std::optional<std::string> token_;
  std::optional<std::string> token_file_;
  absl::Duration timeout_;
};

Probe ProbeContainer(const ChainContext& context) {
  constexpr CredentialSource kSource = CredentialSource::kContainer;
  std::optional<std::string> relative = context.Var("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
  std::optional<std::string> full = context.Var("AWS_CONTAINER_CREDENTIALS_FULL_URI");
  if (!relative && !full) {
    return Absent("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI are not set");
  }
  std::string url;
  absl::StatusOr<HttpUrl> parsed;
  if (relative) {
    if (relative->front() != '/') {
      return Failed(SourceError(kSource, absl::StatusCode::kInvalidArgument,
                                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI must start with '/'"));
    }
    url = context.options.container_relative_base + *relative;
    parsed = ParseHttpUrl(url, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", true);
  } else {
    url = *full;
    parsed = ParseHttpUrl(url, "AWS_CONTAINER_CREDENTIALS_FULL_URI", true);
    if (parsed.ok() && !parsed->https && !IsAllowedContainerHttpHost(parsed->host)) {
      return Failed(SourceError(
          kSource, absl::StatusCode::kInvalidArgument,
          "AWS_CONTAINER_CREDENTIALS_FULL_URI uses http to a host other than loopback, "
          "169.254.170.2, 169.254.170.23 or fd00:ec2::23; use https"));
    }
  }
  if (!parsed.ok()) return Failed(SourceError(kSource, "the endpoint", parsed.status()));
  // The path of a container URI can be a capability: only the origin is shown.
  ContainerFetcher fetch(context, url, parsed->origin,
                         context.Var("AWS_CONTAINER_AUTHORIZATION_TOKEN"),
                         context.Var("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"));
  return StartRefreshing(context, kSource, std::move(fetch));
}

// --- 5. IMDSv2 ------------------------------------------------------------------------------------

bool IsRoleName(std::string_view name) {
  if (name.empty() || name.size() > kMaxRoleNameBytes) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '+' &&
        c != '=' && c != ',' && c != '.' && c != '@' && c != '-') {
      return false;
    }
  }
  return true;
}

class ImdsFetcher {
 public:
  ImdsFetcher(const ChainContext& context, std::string endpoint)
      : transport_(context.transport),
        endpoint_(std::move(endpoint)),
        timeout_(context.options.imds_timeout) {}

  absl::StatusOr<TemporaryCredentials> operator()() const { return Fetch(nullptr); }

  // As operator(), and when the failure means there is no IMDS (or no role)
  // here, says why in *absent.
  absl::StatusOr<TemporaryCredentials> Fetch(std::string* absent) const {
    constexpr CredentialSource kSource = CredentialSource::kImds;
    std::string what = absl::StrCat("IMDS at ", endpoint_);
    auto set_absent = [&](std::string why) {
      if (absent != nullptr) *absent = std::move(why);
    };

    HttpRequest put = Request("PUT", "/latest/api/token");
    put.headers.push_back({"X-aws-ec2-metadata-token-ttl-seconds", kImdsTokenTtlSeconds});
    put.send_body = true;
    absl::StatusOr<HttpResult> token = Exchange(transport_, std::move(put), "");
    if (!token.ok()) {
      if (absl::IsUnavailable(token.status()) || absl::IsDeadlineExceeded(token.status())) {
        set_absent(absl::StrCat("no answer from ", endpoint_, " within ",
                                absl::FormatDuration(timeout_), " (",
                                absl::StatusCodeToString(token.status().code()), ")"));
      }
      return SourceError(kSource, absl::StrCat(what, ": the session token"), token.status());
    }
    if (token->status != 200) {
      if (token->status == 403 || token->status == 404 || token->status == 405) {
        set_absent(absl::StrCat(what, " gave no IMDSv2 session token (HTTP ", token->status,
                                "); lake does not use IMDSv1"));
      }
      return HttpFailure(kSource, absl::StrCat(what, ": the session token request"),
                         token->status);
    }
    if (token->body.empty() || token->body.size() > kMaxImdsTokenBytes ||
        !ValidateHeaderValue(token->body).ok()) {
      return SourceError(kSource, absl::StatusCode::kInvalidArgument,
                         absl::StrCat(what, ": the session token is malformed"));
    }

    absl::StatusOr<HttpResult> roles =
        Exchange(transport_, Request("GET", kRolesPath, token->body), "");
    if (!roles.ok()) return SourceError(kSource, absl::StrCat(what, ": the role name"), roles.status());
    if (roles->status == 404) {
      set_absent(absl::StrCat(what, " has no IAM role for this instance (HTTP 404)"));
    }
    if (roles->status != 200) {
      return HttpFailure(kSource, absl::StrCat(what, ": the role name request"), roles->status);
    }
    std::string_view listing = roles->body;
    absl::string_view role = absl::StripAsciiWhitespace(
        absl::string_view(listing.data(), listing.find('\n') == std::string_view::npos
                                              ? listing.size()
                                              : listing.find('\n')));
    if (role.empty()) {
      set_absent(absl::StrCat(what, " lists no IAM role for this instance"));
      return SourceError(kSource, absl::StatusCode::kNotFound,
                         absl::StrCat(what, " lists no IAM role for this instance"));
    }
    if (!IsRoleName(std::string_view(role.data(), role.size()))) {
      return SourceError(kSource, absl::StatusCode::kInvalidArgument,
                         absl::StrCat(what, ": the role name is malformed"));
    }
    std::string path = absl::StrCat(kRolesPath, role);
    absl::StatusOr<HttpResult> document =
        Exchange(transport_, Request("GET", path, token->body), "");
    if (!document.ok()) {
      return SourceError(kSource, absl::StrCat(what, ": the role's credentials"), document.status());
    }
    if (document->status != 200) {
      return HttpFailure(kSource, absl::StrCat(what, ": the role's credentials request"),
                         document->status);
    }
    absl::StatusOr<TemporaryCredentials> credentials =
        ParseCredentialsJson(document->body, CredentialsJsonKind::kImds);
    if (!credentials.ok()) return SourceError(kSource, what, credentials.status());
    return credentials;
  }

 private:
  static constexpr char kRolesPath[] = "/latest/meta-data/iam/security-credentials/";

  HttpRequest Request(const char* method, std::string_view path,
                      const std::string& token = "") const {
    HttpRequest request;
    request.method = method;
    request.url = absl::StrCat(endpoint_, std::string(path));
    if (!token.empty()) request.headers.push_back({"X-aws-ec2-metadata-token", token});
    request.deadline = timeout_;
    return request;
  }

  HttpTransport& transport_;
  std::string endpoint_;
  absl::Duration timeout_;
};

Probe ProbeImds(const ChainContext& context) {
  constexpr CredentialSource kSource = CredentialSource::kImds;
  if (std::optional<std::string> disabled = context.Var("AWS_EC2_METADATA_DISABLED");
      disabled && absl::EqualsIgnoreCase(*disabled, "true")) {
    return Absent("disabled by AWS_EC2_METADATA_DISABLED");
  }
  std::string endpoint;
  if (std::optional<std::string> configured = context.Var("AWS_EC2_METADATA_SERVICE_ENDPOINT")) {
    endpoint = *configured;
  } else {
    std::string mode = context.Var("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE").value_or("IPv4");
    if (absl::EqualsIgnoreCase(mode, "IPv6")) {
      endpoint = kImdsIpv6Endpoint;
    } else if (absl::EqualsIgnoreCase(mode, "IPv4")) {
      endpoint = context.options.imds_endpoint;
    } else {
      return Failed(SourceError(kSource, absl::StatusCode::kInvalidArgument,
                                "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE must be IPv4 or IPv6"));
    }
  }
  absl::StatusOr<HttpUrl> parsed =
      ParseHttpUrl(endpoint, "AWS_EC2_METADATA_SERVICE_ENDPOINT", false);
  if (!parsed.ok()) return Failed(SourceError(kSource, "the endpoint", parsed.status()));
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();

  ImdsFetcher fetcher(context, endpoint);
  std::string absent;
  absl::StatusOr<TemporaryCredentials> first = fetcher.Fetch(&absent);
  if (!first.ok()) return absent.empty() ? Failed(first.status()) : Absent(absent);
  if (absl::Status usable = CheckNotExpired(kSource, *first, context.clock()); !usable.ok()) {
    return Failed(usable);
  }
  return Found(std::make_unique<RefreshingCredentialsProvider>(kSource, fetcher, context.clock,
                                                               std::move(*first)));
}

Probe ProbeSource(const ChainContext& context, CredentialSource source) {
  switch (source) {
    case CredentialSource::kEnvironment: return ProbeEnvironment(context);
    case CredentialSource::kSharedFiles: return ProbeSharedFiles(context);
    case CredentialSource::kWebIdentity: return ProbeWebIdentity(context);
    case CredentialSource::kContainer: return ProbeContainer(context);
    case CredentialSource::kImds: return ProbeImds(context);
  }
  return Absent("unknown source");
}

}  // namespace

std::string_view CredentialSourceName(CredentialSource source) {
  switch (source) {
    case CredentialSource::kEnvironment: return "environment";
    case CredentialSource::kSharedFiles: return "shared files";
    case CredentialSource::kWebIdentity: return "web identity";
    case CredentialSource::kContainer: return "container";
    case CredentialSource::kImds: return "IMDS";
  }
  return "unknown";
}

std::optional<CredentialSource> FailedCredentialSource(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kSourcePayloadUrl);
  if (!payload) return std::nullopt;
  for (CredentialSource source : kSources) {
    if (*payload == absl::string_view(CredentialSourceName(source).data(),
                                      CredentialSourceName(source).size())) {
      return source;
    }
  }
  return std::nullopt;
}

CredentialsEnvironment CredentialsEnvironmentFromProcess() {
  CredentialsEnvironment environment;
  for (const char* name : kVariables) {
    if (const char* value = std::getenv(name); value != nullptr && value[0] != '\0') {
      environment[name] = value;
    }
  }
  if (environment.count("HOME") == 0) {
    struct passwd entry;
    struct passwd* found = nullptr;
    std::vector<char> buffer(16384);
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
        found != nullptr && found->pw_dir != nullptr && found->pw_dir[0] != '\0') {
      environment["HOME"] = found->pw_dir;
    }
  }
  return environment;
}

absl::StatusOr<ResolvedCredentials> ResolveCredentialsChain(HttpTransport& transport,
                                                            CredentialsChainOptions options) {
  Clock clock = options.clock ? options.clock : Clock([] { return absl::Now(); });
  ChainContext context{transport, options, clock};
  std::vector<std::string> lacked;
  for (CredentialSource source : kSources) {
    Probe probe = ProbeSource(context, source);
    if (!probe.error.ok()) return probe.error;
    if (probe.provider != nullptr) return ResolvedCredentials{source, std::move(probe.provider)};
    lacked.push_back(absl::StrCat(std::string(CredentialSourceName(source)), ": ", probe.absent));
  }
  return absl::UnauthenticatedError(
      absl::StrCat("no AWS credentials found (", absl::StrJoin(lacked, "; "), ")"));
}

absl::StatusOr<std::unique_ptr<CredentialsProvider>> DefaultCredentialsChain(
    HttpTransport& transport) {
  CredentialsChainOptions options;
  options.environment = CredentialsEnvironmentFromProcess();
  absl::StatusOr<ResolvedCredentials> resolved =
      ResolveCredentialsChain(transport, std::move(options));
  if (!resolved.ok()) return resolved.status();
  return std::move(resolved->provider);
}

}  // namespace lake::s3http
