// Fuzzes the parsers of io/s3http/credential_formats.h. The whole input is
// given to every parser: the profile file parser (both kinds) and the
// profile resolution, the container and IMDS JSON parsers, the STS
// AssumeRoleWithWebIdentity parser, StsErrorStatus (with an HTTP status from
// the first two bytes) and the web identity token parser.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding.
//   2. Every refusal is typed (InvalidArgument, ResourceExhausted, or
//      Unimplemented for profile features), its text (ToString(), payloads
//      included) is printable ASCII and bounded, and it never contains
//      kMarker, a stand-in for a secret: the seeds put it in every secret
//      position, so mutations move it everywhere. StsErrorStatus, the one
//      function that repeats outside text, is given kMarker as the secret
//      to remove and must never be OK.
//   3. Accepted profile files: names, keys and values are trimmed, keys are
//      lowercase without '=' or ':', nothing holds NUL, and a canonical
//      rewrite of the file parses back to the same profiles.
//   4. Resolved profiles: at most one of static credentials and a web
//      identity role, each valid (ValidateCredentials,
//      ValidateWebIdentityRole).
//   5. Accepted credentials satisfy ValidateCredentials; IMDS and STS ones
//      carry a session token and an expiration.
//   6. Accepted web identity tokens are 4..20,000 bytes of visible ASCII.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/match.h"
#include "fuzz/property_check.h"
#include "io/s3http/credential_formats.h"

namespace {

using namespace lake::s3http;

constexpr std::string_view kMarker = "lakeSECRET";

using lake::fuzz::Check;

bool IsWsp(char c) { return c == ' ' || c == '\t'; }

bool Trimmed(std::string_view text) {
  return text.empty() || (!IsWsp(text.front()) && !IsWsp(text.back()));
}

void CheckRefusal(const absl::Status& status, bool may_be_unimplemented = false) {
  Check(!status.ok());
  Check(absl::IsInvalidArgument(status) || absl::IsResourceExhausted(status) ||
        (may_be_unimplemented && absl::IsUnimplemented(status)));
  std::string text = status.ToString();
  Check(text.size() <= 1024);
  for (char c : text) Check(c >= 0x20 && c < 0x7F);
  Check(!absl::StrContains(text, absl::string_view(kMarker.data(), kMarker.size())));
}

// The canonical spelling of a parsed file: one "[name]" per profile (the
// config kind's "[profile name]"), "key = first line", and each further
// line of a value as an indented continuation.
std::string Rewrite(const ProfileFile& file, ProfileFileKind kind) {
  std::string out;
  for (const auto& [name, properties] : file.profiles) {
    bool plain = kind == ProfileFileKind::kCredentials || name == "default";
    out += (plain ? "[" : "[profile ") + name + "]\n";
    for (const auto& [key, value] : properties) {
      size_t end = value.find('\n');
      out += key + " = " + value.substr(0, end) + "\n";
      while (end != std::string::npos) {
        size_t next = value.find('\n', end + 1);
        out += "  " + value.substr(end + 1, next - end - 1) + "\n";
        end = next;
      }
    }
  }
  return out;
}

void CheckProfileFile(const ProfileFile& file, ProfileFileKind kind) {
  for (const auto& [name, properties] : file.profiles) {
    Check(!name.empty() && Trimmed(name));
    Check(name.find_first_of(std::string_view("]\n\0", 3)) == std::string::npos);
    for (const auto& [key, value] : properties) {
      Check(!key.empty() && Trimmed(key));
      Check(key.find_first_of(std::string_view("=:\n\0", 4)) == std::string::npos);
      for (char c : key) Check(!(c >= 'A' && c <= 'Z'));
      Check(Trimmed(value));
      Check(value.find('\0') == std::string::npos);
    }
  }
  absl::StatusOr<ProfileFile> again = ParseProfileFile(Rewrite(file, kind), kind);
  Check(again.ok());
  Check(again->profiles == file.profiles);
}

void CheckResolved(const absl::StatusOr<ProfileCredentials>& resolved) {
  if (!resolved.ok()) return CheckRefusal(resolved.status(), /*may_be_unimplemented=*/true);
  Check(!(resolved->credentials && resolved->web_identity));
  if (resolved->credentials || resolved->web_identity) Check(resolved->profile_found);
  if (resolved->credentials) Check(ValidateCredentials(*resolved->credentials).ok());
  if (resolved->web_identity) Check(ValidateWebIdentityRole(*resolved->web_identity).ok());
}

void CheckProfiles(std::string_view data) {
  absl::StatusOr<ProfileFile> credentials = ParseProfileFile(data, ProfileFileKind::kCredentials);
  absl::StatusOr<ProfileFile> config = ParseProfileFile(data, ProfileFileKind::kConfig);
  // The kinds differ only in which sections are profiles.
  Check(credentials.ok() == config.ok());
  if (!credentials.ok()) {
    CheckRefusal(credentials.status());
    CheckRefusal(config.status());
    return;
  }
  CheckProfileFile(*credentials, ProfileFileKind::kCredentials);
  CheckProfileFile(*config, ProfileFileKind::kConfig);
  ProfileFile empty;
  CheckResolved(ResolveProfileCredentials(*credentials, *config, "default"));
  CheckResolved(ResolveProfileCredentials(empty, *config, "default"));
  if (!credentials->profiles.empty()) {
    const std::string& first = credentials->profiles.begin()->first;
    CheckResolved(ResolveProfileCredentials(*credentials, empty, first));
  }
  if (!config->profiles.empty()) {
    const std::string& last = config->profiles.rbegin()->first;
    CheckResolved(ResolveProfileCredentials(*credentials, *config, last));
  }
}

void CheckTemporary(const absl::StatusOr<TemporaryCredentials>& parsed, bool temporary) {
  if (!parsed.ok()) return CheckRefusal(parsed.status());
  Check(ValidateCredentials(parsed->credentials).ok());
  if (temporary) {
    Check(parsed->credentials.session_token.has_value());
    Check(parsed->expiration.has_value());
  }
}

void CheckStsError(std::string_view body, int http_status) {
  std::string_view secrets[] = {kMarker};
  absl::Status status = StsErrorStatus(http_status, body, secrets);
  Check(!status.ok());
  std::string text = status.ToString();
  Check(text.size() <= 1024);
  for (char c : text) Check(c >= 0x20 && c < 0x7F);
  Check(!absl::StrContains(text, absl::string_view(kMarker.data(), kMarker.size())));
}

void CheckWebIdentityToken(std::string_view data) {
  absl::StatusOr<std::string> token = ParseWebIdentityToken(data);
  if (!token.ok()) return CheckRefusal(token.status());
  Check(token->size() >= kMinWebIdentityTokenBytes && token->size() <= kMaxWebIdentityTokenBytes);
  for (char c : *token) Check(c > 0x20 && c < 0x7F);
  Check(data.find(*token) != std::string_view::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  CheckProfiles(data);
  CheckTemporary(ParseCredentialsJson(data, CredentialsJsonKind::kContainer), false);
  CheckTemporary(ParseCredentialsJson(data, CredentialsJsonKind::kImds), true);
  CheckTemporary(ParseAssumeRoleWithWebIdentityResponse(data), true);
  int http_status = size >= 2 ? 100 + (bytes[0] << 8 | bytes[1]) % 500 : 400;
  CheckStsError(data, http_status);
  CheckWebIdentityToken(data);
  return 0;
}
