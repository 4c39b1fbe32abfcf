#include "io/s3http/credentials_chain.h"

#include <cstdlib>

namespace lake::s3http {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

absl::StatusOr<Credentials> CredentialsFromEnvironment() {
  Credentials credentials;
  credentials.access_key_id = Env("AWS_ACCESS_KEY_ID");
  credentials.secret_access_key = Env("AWS_SECRET_ACCESS_KEY");
  if (credentials.access_key_id.empty() && credentials.secret_access_key.empty()) {
    return absl::NotFoundError("no credentials in the environment");
  }
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return absl::InvalidArgumentError(
        "the environment sets only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  }
  if (std::string token = Env("AWS_SESSION_TOKEN"); !token.empty()) {
    credentials.session_token = token;
  }
  return credentials;
}

absl::StatusOr<std::unique_ptr<CredentialsProvider>> DefaultCredentialsChain(
    HttpTransport& /*transport*/) {
  absl::StatusOr<Credentials> environment = CredentialsFromEnvironment();
  if (environment.ok()) {
    return std::unique_ptr<CredentialsProvider>(
        new StaticCredentialsProvider(std::move(*environment)));
  }
  if (!absl::IsNotFound(environment.status())) return environment.status();
  return absl::PermissionDeniedError(
      "no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
}

}  // namespace lake::s3http
