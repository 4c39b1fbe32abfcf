// Where S3 credentials come from. The default chain (credentials_chain.h)
// walks the AWS sources in their usual order; tests hand in fixed ones.
// Credentials never appear in a status message, a log line or any text
// lake prints.
#ifndef LAKE_IO_S3HTTP_CREDENTIALS_PROVIDER_H_
#define LAKE_IO_S3HTTP_CREDENTIALS_PROVIDER_H_

#include "absl/status/statusor.h"
#include "io/s3http/sigv4_signer.h"

namespace lake::s3http {

class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  // The credentials to sign the next request with; temporary ones are
  // refreshed before they expire. Thread-safe.
  virtual absl::StatusOr<Credentials> Get() = 0;
};

class StaticCredentialsProvider final : public CredentialsProvider {
 public:
  explicit StaticCredentialsProvider(Credentials credentials)
      : credentials_(std::move(credentials)) {}
  absl::StatusOr<Credentials> Get() override { return credentials_; }

 private:
  Credentials credentials_;
};

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_CREDENTIALS_PROVIDER_H_
