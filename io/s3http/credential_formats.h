// The texts the AWS credential sources hand lake, parsed into plain values:
// the shared credentials and config files (INI), the JSON document of the
// container credentials endpoint and of IMDS, and the STS
// AssumeRoleWithWebIdentity response (XML). Pure functions of their input
// (no I/O, no clock, thread-safe), fuzzed by
// fuzz/credential_formats_fuzzer.cc. credentials_chain.h does the I/O.
//
// Secrets. These texts carry secret access keys, session tokens and (in a
// request) web identity tokens, so every refusal here is built from fixed
// text, line numbers and the names of the fields this file reads: no byte of
// the input ever reaches an error message, with one documented exception
// (StsErrorStatus, which repeats the server's error code and message after
// removing the secrets it is given).
//
// Refusals: InvalidArgument for malformed input (a file or a document that
// breaks the rules below), ResourceExhausted for input over its size limit,
// Unimplemented for a profile that asks for a credential mechanism lake does
// not have (AssumeRole with a source profile, credential_process, SSO).
#ifndef LAKE_IO_S3HTTP_CREDENTIAL_FORMATS_H_
#define LAKE_IO_S3HTTP_CREDENTIAL_FORMATS_H_

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "io/s3http/sigv4_signer.h"

namespace lake::s3http {

// A shared credentials or config file is a few hundred bytes per profile;
// 1 MiB bounds what lake reads from a path it did not choose.
inline constexpr size_t kMaxProfileFileBytes = size_t{1} << 20;

// A container, IMDS or STS response holds one set of credentials (an STS
// session token is at most a few KiB); 64 KiB leaves room for verbose
// servers while bounding what one can make lake hold.
inline constexpr size_t kMaxCredentialResponseBytes = size_t{64} << 10;

// IAM's limits on the values lake accepts as credentials: an access key id
// is at most 128 characters (IAM AccessKeyId); lake allows a secret of up to
// 1 KiB and a session token of up to 32 KiB (STS does not state a maximum;
// real ones are under 4 KiB).
inline constexpr size_t kMaxAccessKeyIdBytes = 128;
inline constexpr size_t kMaxSecretAccessKeyBytes = 1024;
inline constexpr size_t kMaxSessionTokenBytes = size_t{32} << 10;

// STS AssumeRoleWithWebIdentity: WebIdentityToken is 4..20,000 characters,
// RoleArn 20..2,048, RoleSessionName 2..64 of [A-Za-z0-9_+=,.@-].
inline constexpr size_t kMinWebIdentityTokenBytes = 4;
inline constexpr size_t kMaxWebIdentityTokenBytes = 20000;

inline constexpr std::string_view kStsXmlNamespace =
    "https://sts.amazonaws.com/doc/2011-06-15/";

// OK when `credentials` can sign a request and be carried in headers:
//   access_key_id      1..kMaxAccessKeyIdBytes of visible ASCII (0x21..0x7E)
//                      other than ',' and '/'
//   secret_access_key  1..kMaxSecretAccessKeyBytes of visible ASCII
//   session_token      absent, or 1..kMaxSessionTokenBytes of visible ASCII
// Every credentials value this file returns satisfies it. InvalidArgument
// naming the field otherwise.
absl::Status ValidateCredentials(const Credentials& credentials);

// A web identity token as read from AWS_WEB_IDENTITY_TOKEN_FILE: surrounding
// ASCII whitespace (a trailing newline) removed, then
// kMinWebIdentityTokenBytes..kMaxWebIdentityTokenBytes of visible ASCII
// (JWTs are base64url and dots).
absl::StatusOr<std::string> ParseWebIdentityToken(std::string_view file_text);

// ---------------------------------------------------------------------------
// Shared credentials and config files (~/.aws/credentials, ~/.aws/config).
//
// The grammar, line by line (lines end with LF or CRLF; WSP is space or tab):
//   blank         *WSP
//   comment       *WSP ("#" / ";") *anything
//   section       *WSP "[" name "]" *WSP [ ("#" / ";") *anything ]
//   property      *WSP key *WSP ("=" / ":") value
//   continuation  a line indented deeper than the property line above it
// Rules:
//   - Section names and values are trimmed of WSP. Keys are trimmed and
//     lowercased (AWS_ACCESS_KEY_ID = x works, as in the AWS CLI); they are
//     split from the value at the first '=' or ':'. There are no inline
//     comments: "key = a # b" has the value "a # b".
//   - A continuation line is appended, trimmed, to the property's value
//     after a "\n" (the nested "s3 =\n  max_concurrent_requests = 10" form).
//     Blank and comment lines are skipped; they do not end the property (as
//     in Python's configparser, which the AWS CLI uses).
//   - Credentials file: every section is a profile of that literal name.
//     Config file: "[default]" and "[profile NAME]" are profiles ("[profile
//     default]" is "default" too); other sections ("[sso-session x]",
//     "[services x]", "[foo]") are checked for syntax and ignored.
//   - Duplicates merge, the later one wins: a section seen twice is one
//     profile, and a key repeated in it keeps its last value.
//   - Refused (InvalidArgument, naming the line number only): control
//     characters other than tab (NUL, a CR that does not end a line, ...),
//     invalid UTF-8, a property before any section, an empty section name or
//     key, a section line without "]" or with text after it, a
//     continuation with no property above it, any other line.
//   - At most kMaxProfileFileBytes (ResourceExhausted). A UTF-8 byte order
//     mark at the start is skipped.
enum class ProfileFileKind { kCredentials, kConfig };

// A profile's properties by lowercased key.
using ProfileProperties = std::map<std::string, std::string>;

struct ProfileFile {
  std::map<std::string, ProfileProperties> profiles;  // by profile name
};

absl::StatusOr<ProfileFile> ParseProfileFile(std::string_view text, ProfileFileKind kind);

// AssumeRoleWithWebIdentity settings: a profile's role_arn,
// web_identity_token_file and role_session_name, or the environment's
// AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_SESSION_NAME.
struct WebIdentityRole {
  std::string role_arn;        // "arn:" then 16..2,044 visible ASCII
  std::string token_file;      // a path, non-empty, no NUL
  std::string session_name;    // "" (lake picks one) or 2..64 of [A-Za-z0-9_+=,.@-]
};

// OK when the fields satisfy the comments above; InvalidArgument naming the
// field (never its value) otherwise.
absl::Status ValidateWebIdentityRole(const WebIdentityRole& role);

// What the two files say about one profile. The config file's properties
// are taken first and the credentials file's override them key by key (the
// credentials file wins, as in the AWS CLI). An empty value counts as
// absent. In order:
//   1. role_arn: with web_identity_token_file, a WebIdentityRole; with
//      source_profile or credential_source, Unimplemented (AssumeRole);
//      alone, InvalidArgument. web_identity_token_file without role_arn is
//      InvalidArgument too.
//   2. aws_access_key_id / aws_secret_access_key: both, or InvalidArgument;
//      with aws_session_token when present. Validated (ValidateCredentials).
//   3. credential_process, sso_session or sso_start_url: Unimplemented.
//   4. Otherwise no credentials (a profile that sets only a region).
// An aws_session_token without keys is ignored, as the AWS SDKs do.
// Messages name keys, never the profile (the caller knows it) or values.
struct ProfileCredentials {
  bool profile_found = false;  // either file defines the profile
  // At most one is set; neither when the profile has no credentials.
  std::optional<Credentials> credentials;
  std::optional<WebIdentityRole> web_identity;
  std::string region;  // the profile's region; "" when absent
};

absl::StatusOr<ProfileCredentials> ResolveProfileCredentials(const ProfileFile& credentials_file,
                                                             const ProfileFile& config_file,
                                                             std::string_view profile);

// ---------------------------------------------------------------------------
// Temporary credentials, as the container endpoint, IMDS and STS return them.
struct TemporaryCredentials {
  Credentials credentials;  // satisfies ValidateCredentials
  // When they stop working; absent when the source stated none (a
  // container endpoint may serve long-term keys).
  std::optional<absl::Time> expiration;
};

// The JSON object of the container credentials endpoint (ECS, EKS Pod
// Identity) or of IMDS's iam/security-credentials/<role>:
//   {"AccessKeyId": "...", "SecretAccessKey": "...", "Token": "...",
//    "Expiration": "2024-05-01T12:00:00Z", ...}
//   IMDS adds "Code": "Success", "LastUpdated" and "Type".
// kContainer: AccessKeyId and SecretAccessKey are required, Token and
// Expiration optional (an empty string counts as absent). kImds: Code must be "Success", and AccessKeyId,
// SecretAccessKey, Token and Expiration are required. Every field lake
// reads is a string and appears at most once (a duplicate is refused, not
// resolved); other fields are ignored. Expiration is ISO-8601 UTC,
// "YYYY-MM-DDThh:mm:ss[.fraction]" then "Z" or "+hh:mm"/"-hh:mm". At most
// kMaxCredentialResponseBytes (ResourceExhausted).
enum class CredentialsJsonKind { kContainer, kImds };

absl::StatusOr<TemporaryCredentials> ParseCredentialsJson(std::string_view body,
                                                          CredentialsJsonKind kind);

// The XML of a successful AssumeRoleWithWebIdentity:
//   <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
//    <AssumeRoleWithWebIdentityResult><Credentials>
//     <AccessKeyId/><SecretAccessKey/><SessionToken/><Expiration/>
//    </Credentials>...</AssumeRoleWithWebIdentityResult>...
//   </AssumeRoleWithWebIdentityResponse>
// All four fields are required, each once, text only; Expiration as in
// ParseCredentialsJson. Elements lake reads must be in the STS namespace or
// none; others are ignored with their content. Parsed by expat as UTF-8;
// a DOCTYPE (so any entity) is refused, as is nesting deeper than 8.
// At most kMaxCredentialResponseBytes (ResourceExhausted).
absl::StatusOr<TemporaryCredentials> ParseAssumeRoleWithWebIdentityResponse(std::string_view body);

// The status of a failed STS call (HTTP `http_status`, not 200) whose body
// may be an <ErrorResponse><Error><Type/><Code/><Message/></Error>
// <RequestId/></ErrorResponse> document (same XML rules). By code first:
//   InvalidIdentityToken, ExpiredTokenException, IDPRejectedClaim,
//     AccessDenied, InvalidClientTokenId                       PermissionDenied
//   IDPCommunicationError, Throttling, ServiceUnavailable,
//     InternalFailure, RequestTimeout                          Unavailable
//   RegionDisabledException                                    FailedPrecondition
//   MalformedPolicyDocument, PackedPolicyTooLarge,
//     ValidationError, InvalidParameterValue, MissingParameter,
//     InvalidAction                                            InvalidArgument
// then by HTTP status: 408, 429 and 5xx Unavailable; 401 and 403
// PermissionDenied; other 4xx InvalidArgument; anything else Unknown. A body
// that is no such document is not read (a proxy's page); the status names
// the HTTP status only.
//
// The message is "STS <Code> (HTTP <status>): <Message>". This is the one
// place where outside text reaches a message: every occurrence of each of
// `secrets` (the web identity token of the request, say) in the code and
// message is replaced by "[redacted]" first, and only then is the text
// sanitised (SanitizedExcerpt) and cut to a bounded length, so no secret
// given can appear whole. A code outside 1..128 of [A-Za-z0-9._-] is not
// repeated.
absl::Status StsErrorStatus(int http_status, std::string_view body,
                            std::span<const std::string_view> secrets);

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_CREDENTIAL_FORMATS_H_
