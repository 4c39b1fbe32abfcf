// The AWS default credentials chain, in its usual order. The first source
// that has credentials wins; temporary credentials are refreshed before
// they expire.
//
//   1. environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
//   (shared files, web identity, container and IMDSv2 sources follow)
#ifndef LAKE_IO_S3HTTP_CREDENTIALS_CHAIN_H_
#define LAKE_IO_S3HTTP_CREDENTIALS_CHAIN_H_

#include <memory>

#include "io/s3http/credentials_provider.h"
#include "io/s3http/http_transport.h"

namespace lake::s3http {

// Credentials from the process environment; NotFound when it has none.
absl::StatusOr<Credentials> CredentialsFromEnvironment();

// The default chain. `transport` serves the sources that ask a local
// endpoint (STS, container, IMDS) and must outlive the provider.
absl::StatusOr<std::unique_ptr<CredentialsProvider>> DefaultCredentialsChain(
    HttpTransport& transport);

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_CREDENTIALS_CHAIN_H_
