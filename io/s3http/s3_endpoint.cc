#include "io/s3http/s3_endpoint.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "io/s3http/sigv4_signer.h"

namespace lake::s3http {
namespace {

bool IsHostChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
         c == '_';
}

int DefaultPort(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

}  // namespace

std::string S3Endpoint::Authority() const {
  if (port == 0 || port == DefaultPort(scheme)) return host;
  return absl::StrCat(host, ":", port);
}

absl::StatusOr<S3Endpoint> ParseS3Endpoint(std::string_view url, bool path_style) {
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("S3 endpoint \"", std::string(url), "\" ", std::string(why)));
  };
  S3Endpoint endpoint;
  endpoint.path_style = path_style;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return refuse("must start with http:// or https://");
  endpoint.scheme = absl::AsciiStrToLower(std::string(url.substr(0, sep)));
  if (endpoint.scheme != "http" && endpoint.scheme != "https") {
    return refuse("must start with http:// or https://");
  }
  std::string_view rest = url.substr(sep + 3);
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.empty()) return refuse("has no host");
  if (rest.find_first_of("/?#@") != std::string_view::npos) {
    return refuse("must be scheme://host[:port] without a path, query or user");
  }
  std::string_view host = rest;
  std::string_view port;
  if (rest.front() == '[') {  // [IPv6]
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return refuse("has an unclosed IPv6 bracket");
    host = rest.substr(0, close + 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return refuse("has junk after the IPv6 address");
      port = after.substr(1);
    }
  } else if (size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    for (char c : host) {
      if (!IsHostChar(c)) return refuse("has an invalid host");
    }
  } else {
    for (char c : host) {
      if (!IsHostChar(c)) return refuse("has an invalid host");
    }
  }
  if (host.empty()) return refuse("has no host");
  endpoint.host = absl::AsciiStrToLower(std::string(host));
  if (!port.empty() || rest.back() == ':') {
    int value = 0;
    if (port.empty() || port.size() > 5 ||
        !absl::SimpleAtoi(absl::string_view(port.data(), port.size()), &value) ||
        value < 1 || value > 65535 || !absl::ascii_isdigit(static_cast<unsigned char>(port[0]))) {
      return refuse("has an invalid port");
    }
    endpoint.port = value;
  }
  return endpoint;
}

std::string DefaultS3EndpointUrl(std::string_view region) {
  return absl::StrCat("https://s3.", std::string(region), ".amazonaws.com");
}

S3Target TargetOf(const S3Endpoint& endpoint, std::string_view bucket,
                  std::string_view key, std::string_view encoded_query) {
  bool path_style = endpoint.path_style || bucket.find('.') != std::string_view::npos;
  S3Target target;
  std::string authority = endpoint.Authority();
  if (path_style) {
    target.host_header = authority;
    target.signed_path = absl::StrCat("/", std::string(bucket));
    if (!key.empty()) absl::StrAppend(&target.signed_path, "/", std::string(key));
  } else {
    target.host_header = absl::StrCat(std::string(bucket), ".", authority);
    target.signed_path = absl::StrCat("/", std::string(key));
  }
  target.url = absl::StrCat(endpoint.scheme, "://", target.host_header,
                            EncodeCanonicalUri(target.signed_path));
  if (!encoded_query.empty()) absl::StrAppend(&target.url, "?", std::string(encoded_query));
  return target;
}

}  // namespace lake::s3http
