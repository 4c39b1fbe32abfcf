// The AWS default credentials chain. The sources, in order:
//
//   1. environment   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
//   2. shared files  AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials) and
//                    AWS_CONFIG_FILE (~/.aws/config), profile AWS_PROFILE
//                    ("default"): static keys, or a role_arn with a
//                    web_identity_token_file (then as 3, with the profile's
//                    settings)
//   3. web identity  AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN
//                    (+ AWS_ROLE_SESSION_NAME): STS AssumeRoleWithWebIdentity
//                    at AWS_ENDPOINT_URL_STS, else https://sts.<AWS_REGION or
//                    AWS_DEFAULT_REGION or the profile's region>.amazonaws.com
//                    (.com.cn for cn- regions), else https://sts.amazonaws.com
//   4. container     AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (on
//                    http://169.254.170.2), else _FULL_URI (https, or http to
//                    a loopback, ECS or EKS address only), with
//                    AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or _TOKEN as the
//                    Authorization header
//   5. IMDSv2        AWS_EC2_METADATA_SERVICE_ENDPOINT (http://169.254.169.254,
//                    or http://[fd00:ec2::254] when
//                    AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6); skipped when
//                    AWS_EC2_METADATA_DISABLED=true. A session token (PUT
//                    /latest/api/token), then the role name and its
//                    credentials under /latest/meta-data/iam/security-credentials/.
//                    IMDSv1 (no token) is never used.
//
// Rules:
//   - The chain is resolved once, when it is created: the sources are asked
//     in order and the first that has credentials is kept for the
//     provider's lifetime (later changes of the environment or of the files
//     are not seen; temporary credentials are refreshed from that same
//     source). So a stage that cannot get credentials fails when it opens.
//   - A source that is not configured (its variables unset, no such file,
//     no profile "default", IMDS not answering) is skipped. A source that is
//     configured but broken (one of a pair of variables, a malformed file,
//     an AWS_PROFILE that names no profile, an unreadable token file, an
//     STS error, a container endpoint that fails) stops the chain with its
//     error: lake never falls through to other credentials than the ones
//     configured.
//   - An empty variable counts as unset.
//   - When no source has credentials: Unauthenticated, naming what each
//     source lacked. Every other failure carries the source
//     (FailedCredentialSource) and a status code of its kind:
//     InvalidArgument for bad configuration or malformed answers,
//     Unimplemented for profile features lake lacks, PermissionDenied for a
//     refusal (STS, HTTP 401/403), Unavailable or DeadlineExceeded for an
//     endpoint that cannot be reached or fails (retryable).
//   - The HTTP sources use the caller's transport with short deadlines
//     (CredentialsChainOptions): on a machine without IMDS the chain fails
//     within about a second.
//   - Temporary credentials (STS, container, IMDS) are refreshed before
//     they expire: kCredentialsRefreshAhead before, or at half their
//     lifetime when that is shorter. Get() is thread-safe; one caller
//     refreshes while the others keep using the current credentials. A
//     failed refresh keeps the current credentials while they are still
//     valid and is retried after kCredentialsRefreshRetry; once they have
//     expired, Get() returns the refresh's error.
//   - Secrets (secret keys, session tokens, web identity and container
//     authorization tokens) never appear in a status, its payloads, or
//     anything else this module produces.
#ifndef LAKE_IO_S3HTTP_CREDENTIALS_CHAIN_H_
#define LAKE_IO_S3HTTP_CREDENTIALS_CHAIN_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "io/s3http/credentials_provider.h"
#include "io/s3http/http_transport.h"

namespace lake::s3http {

// Refresh temporary credentials this long before they expire (the AWS SDKs
// use a few minutes), or at half their lifetime when that is shorter.
inline constexpr absl::Duration kCredentialsRefreshAhead = absl::Minutes(5);
// After a failed refresh, the next attempt waits this long (while the
// current credentials are valid, they are used meanwhile).
inline constexpr absl::Duration kCredentialsRefreshRetry = absl::Seconds(5);
// Container credentials without an Expiration are fetched again this often.
inline constexpr absl::Duration kCredentialsUnstatedLifetime = absl::Minutes(15);

enum class CredentialSource { kEnvironment, kSharedFiles, kWebIdentity, kContainer, kImds };

// "environment", "shared files", "web identity", "container", "IMDS".
std::string_view CredentialSourceName(CredentialSource source);

// The source a failure of the chain or of one of its providers came from;
// nullopt for any other status (including "no credentials found").
std::optional<CredentialSource> FailedCredentialSource(const absl::Status& status);

// The environment variables the chain reads, by name. An absent or empty
// entry is an unset variable.
using CredentialsEnvironment = std::map<std::string, std::string>;

// A snapshot of the variables named in this header (and HOME, taken from
// the password database when the environment has none).
CredentialsEnvironment CredentialsEnvironmentFromProcess();

struct CredentialsChainOptions {
  CredentialsEnvironment environment;
  // Where AWS_CONTAINER_CREDENTIALS_RELATIVE_URI is resolved (the ECS agent).
  std::string container_relative_base = "http://169.254.170.2";
  // IMDS when AWS_EC2_METADATA_SERVICE_ENDPOINT is unset (and the mode is
  // not IPv6).
  std::string imds_endpoint = "http://169.254.169.254";
  // Each HTTP exchange must end within these (connect included). IMDS is
  // link-local and answers in milliseconds when it exists.
  absl::Duration imds_timeout = absl::Seconds(1);
  absl::Duration container_timeout = absl::Seconds(2);
  absl::Duration sts_timeout = absl::Seconds(10);
  // Decides refreshes and the default role session name; null: absl::Now.
  std::function<absl::Time()> clock;
};

struct ResolvedCredentials {
  CredentialSource source;
  std::unique_ptr<CredentialsProvider> provider;  // non-null
};

// Walks the chain (see above) with `options`. `transport` serves the HTTP
// sources, must outlive the provider, and is only used with per-request
// deadlines (its own timeouts are not changed).
absl::StatusOr<ResolvedCredentials> ResolveCredentialsChain(HttpTransport& transport,
                                                            CredentialsChainOptions options);

// The chain with the process environment and default options: what an S3
// stage uses when it is given no credentials.
absl::StatusOr<std::unique_ptr<CredentialsProvider>> DefaultCredentialsChain(
    HttpTransport& transport);

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_CREDENTIALS_CHAIN_H_
