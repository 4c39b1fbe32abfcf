// Where S3 requests go: an endpoint URL and an addressing style, and the
// URL, Host header and signed path of one request.
//
//   path-style:      http://127.0.0.1:7480/bucket/key      Host: 127.0.0.1:7480
//   virtual-hosted:  https://bucket.s3.amazonaws.com/key   Host: bucket.s3.amazonaws.com
//
// A bucket name with a dot is always addressed path-style (a dotted
// virtual host does not match the endpoint's TLS certificate), as the AWS
// SDKs do. The key is encoded exactly once, the same way for the URL and
// for the signature.
#ifndef LAKE_IO_S3HTTP_S3_ENDPOINT_H_
#define LAKE_IO_S3HTTP_S3_ENDPOINT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::s3http {

struct S3Endpoint {
  std::string scheme;  // "http" or "https"
  std::string host;    // a DNS name or an IPv4 address; IPv6 in brackets
  int port = 0;        // 0: the scheme's default
  bool path_style = false;

  // host[:port] as the Host header carries it.
  std::string Authority() const;
};

// Parses "scheme://host[:port]" (a trailing '/' allowed; no user info, path,
// query or fragment).
absl::StatusOr<S3Endpoint> ParseS3Endpoint(std::string_view url, bool path_style);

// The endpoint AWS serves a region from: https://s3.<region>.amazonaws.com.
std::string DefaultS3EndpointUrl(std::string_view region);

struct S3Target {
  std::string url;          // scheme://authority/encoded-path[?query]
  std::string host_header;  // authority, with the bucket for virtual hosts
  std::string signed_path;  // the decoded path the signature covers
};

// `key` is decoded (any bytes; empty for bucket-level requests);
// `encoded_query` is the canonical query without '?' (may be empty).
S3Target TargetOf(const S3Endpoint& endpoint, std::string_view bucket,
                  std::string_view key, std::string_view encoded_query);

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_S3_ENDPOINT_H_
