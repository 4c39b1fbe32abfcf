#include "tests/support/fault_http_proxy.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace lake::testing {
namespace {

using HeaderLines = std::vector<std::pair<std::string, std::string>>;

// Lets the bytes sent before a reset reach the client before the RST does.
constexpr absl::Duration kBeforeReset = absl::Milliseconds(20);

bool SendAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

std::string PercentDecoded(absl::string_view text) {
  int length = 0;
  char* decoded = curl_easy_unescape(nullptr, text.data(), static_cast<int>(text.size()), &length);
  if (decoded == nullptr) return std::string(text);
  std::string out(decoded, static_cast<size_t>(length));
  curl_free(decoded);
  return out;
}

// Buffered reads from one socket.
class SocketReader {
 public:
  explicit SocketReader(int fd) : fd_(fd) {}
  void Reset(int fd) {
    fd_ = fd;
    buffer_.clear();
  }
  // Bytes up to and including `delimiter`; false at EOF or error first.
  bool ReadUntil(const std::string& delimiter, std::string* out) {
    size_t at;
    while ((at = buffer_.find(delimiter)) == std::string::npos) {
      if (!Fill()) return false;
    }
    out->assign(buffer_, 0, at + delimiter.size());
    buffer_.erase(0, at + delimiter.size());
    return true;
  }
  bool ReadExactly(size_t n, std::string* out) {
    while (buffer_.size() < n) {
      if (!Fill()) return false;
    }
    out->append(buffer_, 0, n);
    buffer_.erase(0, n);
    return true;
  }
  void ReadToClose(std::string* out) {
    while (Fill()) {
    }
    out->append(buffer_);
    buffer_.clear();
  }
  bool buffered() const { return !buffer_.empty(); }

 private:
  bool Fill() {
    char chunk[65536];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  std::string buffer_;
};

// "Name: value" lines of a head after its first line; the head ends with
// an empty line.
HeaderLines ParseHeaderLines(absl::string_view head) {
  HeaderLines headers;
  std::vector<absl::string_view> lines = absl::StrSplit(head, "\r\n");
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t colon = lines[i].find(':');
    if (colon == absl::string_view::npos) continue;
    headers.emplace_back(std::string(lines[i].substr(0, colon)),
                         std::string(absl::StripAsciiWhitespace(lines[i].substr(colon + 1))));
  }
  return headers;
}

const std::string* FindHeader(const HeaderLines& headers, absl::string_view name) {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, name)) return &value;
  }
  return nullptr;
}

void RemoveHeader(HeaderLines& headers, absl::string_view name) {
  std::erase_if(headers, [&](const auto& h) { return absl::EqualsIgnoreCase(h.first, name); });
}

void SetHeader(HeaderLines& headers, absl::string_view name, std::string value) {
  for (auto& [key, existing] : headers) {
    if (absl::EqualsIgnoreCase(key, name)) {
      existing = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::string(name), std::move(value));
}

std::string SerializeHead(absl::string_view first_line, const HeaderLines& headers) {
  std::string head = absl::StrCat(first_line, "\r\n");
  for (const auto& [name, value] : headers) absl::StrAppend(&head, name, ": ", value, "\r\n");
  absl::StrAppend(&head, "\r\n");
  return head;
}

// A request from the client. `raw_head` is what arrived; when `rewritten`,
// the head is rebuilt from the first line and the header lines.
struct ClientRequest {
  std::string first_line;
  std::string raw_head;
  HeaderLines headers;
  std::string body;
  bool rewritten = false;

  std::string Wire() const {
    return (rewritten ? SerializeHead(first_line, headers) : raw_head) + body;
  }
};

// A complete answer from the upstream server, its body de-framed.
struct UpstreamResponse {
  std::string status_line;
  int status = 0;
  HeaderLines headers;
  std::string body;
  bool has_body = true;  // false for HEAD, 1xx, 204, 304
  bool close = false;    // the server ends the connection after it

  // The head as sent to the client: the body framed by Content-Length.
  std::string Head() const { return SerializeHead(status_line, headers); }
};

std::string SynthesizedError(int status, const std::string& code, bool head_request,
                             int sequence) {
  std::string body;
  if (!code.empty()) {
    body = absl::StrCat(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>", code,
        "</Code><Message>injected by the fault proxy</Message><RequestId>fault-proxy-",
        sequence, "</RequestId></Error>");
  }
  std::string head = absl::StrCat("HTTP/1.1 ", status, " ", Reason(status), "\r\n",
                                  "x-amz-request-id: fault-proxy-", sequence, "\r\n");
  if (!body.empty()) absl::StrAppend(&head, "Content-Type: application/xml\r\n");
  absl::StrAppend(&head, "Content-Length: ", head_request ? 0 : body.size(), "\r\n\r\n");
  return head_request ? head : head + body;
}

// SignedHeaders and the region of an Authorization header's signature.
struct SignatureScope {
  std::vector<std::string> signed_headers;
  std::string region;
};

std::optional<SignatureScope> ParseAuthorization(absl::string_view authorization) {
  auto field = [&](absl::string_view name) -> std::optional<absl::string_view> {
    size_t at = authorization.find(name);
    if (at == absl::string_view::npos) return std::nullopt;
    absl::string_view rest = authorization.substr(at + name.size());
    return rest.substr(0, rest.find(','));
  };
  std::optional<absl::string_view> credential = field("Credential=");
  std::optional<absl::string_view> signed_headers = field("SignedHeaders=");
  if (!credential || !signed_headers) return std::nullopt;
  std::vector<std::string> scope = absl::StrSplit(*credential, '/');
  if (scope.size() != 5) return std::nullopt;
  SignatureScope parsed;
  parsed.signed_headers = absl::StrSplit(*signed_headers, ';');
  parsed.region = scope[2];
  return parsed;
}

// Signs `request` again as its client would have signed it as it now is:
// same region, same signed headers except those no longer present.
bool Resign(ClientRequest& request, const s3http::Credentials& credentials) {
  const std::string* authorization = FindHeader(request.headers, "authorization");
  const std::string* host = FindHeader(request.headers, "host");
  const std::string* payload = FindHeader(request.headers, "x-amz-content-sha256");
  if (authorization == nullptr || host == nullptr || payload == nullptr) return false;
  std::optional<SignatureScope> scope = ParseAuthorization(*authorization);
  if (!scope) return false;
  absl::StatusOr<s3http::SigV4Signer> signer = s3http::SigV4Signer::Create(scope->region, "s3");
  if (!signer.ok()) return false;

  std::vector<absl::string_view> line = absl::StrSplit(request.first_line, ' ');
  if (line.size() != 3) return false;
  absl::string_view target = line[1];
  absl::string_view path = target.substr(0, target.find('?'));
  s3http::SigningRequest signing;
  signing.method = std::string(line[0]);
  signing.host = *host;
  signing.path = PercentDecoded(path);
  if (size_t q = target.find('?'); q != absl::string_view::npos) {
    for (absl::string_view pair : absl::StrSplit(target.substr(q + 1), '&', absl::SkipEmpty())) {
      std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
      signing.query.push_back({PercentDecoded(kv.first), PercentDecoded(kv.second)});
    }
  }
  for (const auto& [name, value] : request.headers) {
    std::string lower = absl::AsciiStrToLower(name);
    bool signer_owned = lower == "host" || lower == "authorization" || lower == "x-amz-date" ||
                        lower == "x-amz-content-sha256" || lower == "x-amz-security-token";
    bool was_signed = std::find(scope->signed_headers.begin(), scope->signed_headers.end(),
                                lower) != scope->signed_headers.end();
    if (!signer_owned && was_signed) signing.headers.push_back({name, value});
  }
  signing.payload_sha256 = *payload;
  absl::StatusOr<s3http::HeaderSignature> signature =
      signer->SignHeaders(signing, credentials, absl::Now());
  if (!signature.ok()) return false;
  for (const s3http::HttpHeader& header : signature->headers) {
    SetHeader(request.headers, header.name, header.value);
  }
  request.rewritten = true;
  return true;
}

}  // namespace

const std::string* ProxiedRequest::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? nullptr : &it->second;
}

bool RequestMatcher::Matches(const ProxiedRequest& request) const {
  if (!method.empty() && method != request.method) return false;
  if (!absl::StrContains(request.path, path_contains)) return false;
  if (!absl::StrContains(request.query, query_contains)) return false;
  if (with_range.has_value() && *with_range != (request.Header("range") != nullptr)) return false;
  return !predicate || predicate(request);
}

Fault Fault::Respond(int status, std::string code) {
  Fault fault;
  fault.kind = Kind::kRespond;
  fault.status = status;
  fault.error_code = !code.empty()     ? std::move(code)
                     : status == 503 ? "ServiceUnavailable"
                                     : "InternalError";
  return fault;
}

Fault Fault::RespondWithoutBody(int status) {
  Fault fault;
  fault.kind = Kind::kRespond;
  fault.status = status;
  return fault;
}

Fault Fault::ResetAfterBodyBytes(int64_t n) {
  Fault fault;
  fault.kind = Kind::kResetAfterBodyBytes;
  fault.body_bytes = n;
  return fault;
}

Fault Fault::TruncateAfterBodyBytes(int64_t n) {
  Fault fault;
  fault.kind = Kind::kTruncateAfterBodyBytes;
  fault.body_bytes = n;
  return fault;
}

Fault Fault::IgnoreRange() {
  Fault fault;
  fault.kind = Kind::kIgnoreRange;
  return fault;
}

Fault Fault::RewriteContentRange(std::string value) {
  Fault fault;
  fault.kind = Kind::kRewriteContentRange;
  fault.value = std::move(value);
  return fault;
}

Fault Fault::RewriteContentLength(uint64_t value) {
  Fault fault;
  fault.kind = Kind::kRewriteContentLength;
  fault.value = std::to_string(value);
  return fault;
}

Fault Fault::Stall(absl::Duration delay, int64_t after_body_bytes) {
  Fault fault;
  fault.kind = Kind::kDelay;
  fault.delay = delay;
  fault.body_bytes = after_body_bytes;
  return fault;
}

Fault Fault::ReplaceBody(std::string body) {
  Fault fault;
  fault.kind = Kind::kReplaceBody;
  fault.value = std::move(body);
  return fault;
}

Fault Fault::LoseResponse() {
  Fault fault;
  fault.kind = Kind::kLoseResponse;
  return fault;
}

// One client connection and its upstream connection, served on one thread.
class FaultHttpProxy::Connection {
 public:
  Connection(FaultHttpProxy& proxy, int client_fd)
      : proxy_(proxy), client_fd_(client_fd), client_(client_fd), upstream_(-1) {}
  ~Connection() {
    CloseUpstream();
    proxy_.Forget(client_fd_);
    ::close(client_fd_);
  }

  void Serve() {
    for (;;) {
      ClientRequest request;
      if (!ReadRequest(&request)) return;
      ProxiedRequest seen = Describe(request);
      if (FindHeader(request.headers, "transfer-encoding") != nullptr) {
        (void)SendAll(client_fd_, SynthesizedError(501, "NotImplemented", false, 0));
        return;  // lake never sends a chunked request
      }
      std::optional<Fault> fault = proxy_.Classify(seen);
      bool head_request = seen.method == "HEAD";
      if (!fault) {
        if (!ForwardAndRelay(request, head_request)) return;
        continue;
      }
      if (!Apply(*fault, request, head_request, seen.rule)) return;
    }
  }

 private:
  // Whether the connection stays open for the next request.
  bool Apply(const Fault& fault, ClientRequest& request, bool head_request, int rule) {
    using Kind = Fault::Kind;
    if (fault.kind == Kind::kRespond) {
      return SendAll(client_fd_,
                     SynthesizedError(fault.status, fault.error_code, head_request, rule));
    }
    if (fault.kind == Kind::kIgnoreRange) {
      RemoveHeader(request.headers, "range");
      request.rewritten = true;
      if (!proxy_.options_.resign_credentials ||
          !Resign(request, *proxy_.options_.resign_credentials)) {
        (void)SendAll(client_fd_, SynthesizedError(500, "FaultProxyCannotResign", false, rule));
        return false;
      }
      return ForwardAndRelay(request, head_request);
    }
    std::optional<UpstreamResponse> response = Forward(request, head_request);
    if (!response) return BadGateway();
    absl::string_view body = response->body;
    switch (fault.kind) {
      case Kind::kLoseResponse:
        return false;
      case Kind::kResetAfterBodyBytes:
        (void)SendAll(client_fd_, response->Head() + std::string(Prefix(body, fault.body_bytes)));
        absl::SleepFor(kBeforeReset);
        ResetClient();
        return false;
      case Kind::kTruncateAfterBodyBytes:
        (void)SendAll(client_fd_, response->Head() + std::string(Prefix(body, fault.body_bytes)));
        return false;
      case Kind::kRewriteContentRange:
        SetHeader(response->headers, "Content-Range", fault.value);
        return Relay(*response);
      case Kind::kReplaceBody:
        response->body = fault.value;
        SetHeader(response->headers, "Content-Length", std::to_string(fault.value.size()));
        return Relay(*response);
      case Kind::kRewriteContentLength: {
        uint64_t announced = 0;
        (void)absl::SimpleAtoi(fault.value, &announced);
        SetHeader(response->headers, "Content-Length", fault.value);
        absl::string_view sent = head_request ? absl::string_view() : Prefix(body, announced);
        if (!SendAll(client_fd_, response->Head() + std::string(sent))) return false;
        return head_request || announced == body.size();
      }
      case Kind::kDelay: {
        size_t split = fault.body_bytes == Fault::kBeforeHead ? 0 : Prefix(body, fault.body_bytes).size();
        std::string first = fault.body_bytes == Fault::kBeforeHead
                                ? std::string()
                                : response->Head() + std::string(body.substr(0, split));
        if (!first.empty() && !SendAll(client_fd_, first)) return false;
        if (!WaitWhileClientStays(fault.delay)) return false;
        std::string rest = fault.body_bytes == Fault::kBeforeHead
                               ? response->Head() + std::string(body)
                               : std::string(body.substr(split));
        return SendAll(client_fd_, rest) && !response->close;
      }
      default:
        return Relay(*response);
    }
  }

  static absl::string_view Prefix(absl::string_view body, int64_t n) {
    return body.substr(0, static_cast<size_t>(std::max<int64_t>(0, n)));
  }
  static absl::string_view Prefix(absl::string_view body, uint64_t n) {
    return body.substr(0, static_cast<size_t>(std::min<uint64_t>(n, body.size())));
  }

  bool ReadRequest(ClientRequest* request) {
    if (!client_.ReadUntil("\r\n\r\n", &request->raw_head)) return false;
    request->first_line = request->raw_head.substr(0, request->raw_head.find("\r\n"));
    request->headers = ParseHeaderLines(request->raw_head);
    uint64_t length = 0;
    if (const std::string* value = FindHeader(request->headers, "content-length")) {
      if (!absl::SimpleAtoi(*value, &length)) return false;
    }
    return client_.ReadExactly(static_cast<size_t>(length), &request->body);
  }

  static ProxiedRequest Describe(const ClientRequest& request) {
    ProxiedRequest seen;
    std::vector<std::string> line = absl::StrSplit(request.first_line, ' ');
    if (line.size() >= 2) {
      seen.method = line[0];
      seen.target = line[1];
    }
    size_t q = seen.target.find('?');
    seen.path = seen.target.substr(0, q);
    seen.query = q == std::string::npos ? "" : seen.target.substr(q + 1);
    for (const auto& [name, value] : request.headers) {
      seen.headers[absl::AsciiStrToLower(name)] = value;
    }
    seen.body_bytes = request.body.size();
    if (seen.body_bytes <= ProxiedRequest::kLoggedBodyBytes) seen.body = request.body;
    return seen;
  }

  bool ForwardAndRelay(const ClientRequest& request, bool head_request) {
    std::optional<UpstreamResponse> response = Forward(request, head_request);
    if (!response) return BadGateway();
    return Relay(*response);
  }

  bool Relay(const UpstreamResponse& response) {
    std::string wire = response.Head();
    if (response.has_body) wire += response.body;
    return SendAll(client_fd_, wire) && !response.close;
  }

  bool BadGateway() {
    (void)SendAll(client_fd_, SynthesizedError(502, "FaultProxyUpstreamFailed", false, 0));
    return false;
  }

  // Sends the request upstream and reads the whole answer. A reused
  // connection the server has closed meanwhile is replaced once.
  std::optional<UpstreamResponse> Forward(const ClientRequest& request, bool head_request) {
    std::string wire = request.Wire();
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool fresh = upstream_fd_ < 0;
      if (fresh && !ConnectUpstream()) return std::nullopt;
      ++proxy_.forwarded_;
      UpstreamResponse response;
      bool got_any = false;
      if (SendAll(upstream_fd_, wire) && ReadResponse(head_request, &response, &got_any)) {
        if (response.close) CloseUpstream();
        return response;
      }
      CloseUpstream();
      if (fresh || got_any) return std::nullopt;
    }
    return std::nullopt;
  }

  bool ReadResponse(bool head_request, UpstreamResponse* response, bool* got_any) {
    std::string head;
    for (;;) {  // interim 1xx answers are dropped
      if (!upstream_.ReadUntil("\r\n\r\n", &head)) return false;
      *got_any = true;
      response->status_line = head.substr(0, head.find("\r\n"));
      std::vector<absl::string_view> parts = absl::StrSplit(response->status_line, ' ');
      if (parts.size() < 2 || !absl::SimpleAtoi(parts[1], &response->status)) return false;
      if (response->status >= 200) break;
      head.clear();
    }
    response->headers = ParseHeaderLines(head);
    const std::string* connection = FindHeader(response->headers, "connection");
    response->close = connection != nullptr && absl::EqualsIgnoreCase(*connection, "close");
    int status = response->status;
    if (head_request || status == 204 || status == 304) {
      response->has_body = false;
      return true;
    }
    const std::string* encoding = FindHeader(response->headers, "transfer-encoding");
    const std::string* length = FindHeader(response->headers, "content-length");
    if (encoding != nullptr && absl::StrContains(absl::AsciiStrToLower(*encoding), "chunked")) {
      if (!ReadChunked(&response->body)) return false;
      RemoveHeader(response->headers, "transfer-encoding");
      SetHeader(response->headers, "Content-Length", std::to_string(response->body.size()));
      return true;
    }
    if (length != nullptr) {
      uint64_t n = 0;
      if (!absl::SimpleAtoi(*length, &n)) return false;
      return upstream_.ReadExactly(static_cast<size_t>(n), &response->body);
    }
    upstream_.ReadToClose(&response->body);
    response->close = true;
    SetHeader(response->headers, "Content-Length", std::to_string(response->body.size()));
    return true;
  }

  bool ReadChunked(std::string* body) {
    for (;;) {
      std::string line;
      if (!upstream_.ReadUntil("\r\n", &line)) return false;
      uint64_t size = 0;
      absl::string_view digits = absl::string_view(line).substr(0, line.find_first_of(";\r"));
      if (!absl::SimpleHexAtoi(absl::StripAsciiWhitespace(digits), &size)) return false;
      if (size == 0) {
        for (;;) {  // trailers, up to the empty line
          if (!upstream_.ReadUntil("\r\n", &line)) return false;
          if (line == "\r\n") return true;
        }
      }
      std::string crlf;
      if (!upstream_.ReadExactly(static_cast<size_t>(size), body) ||
          !upstream_.ReadExactly(2, &crlf)) {
        return false;
      }
    }
  }

  bool ConnectUpstream() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(proxy_.upstream_port_));
    if (::inet_pton(AF_INET, proxy_.upstream_host_.c_str(), &addr.sin_addr) != 1 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      return false;
    }
    proxy_.Track(fd);
    upstream_fd_ = fd;
    upstream_.Reset(fd);
    return true;
  }

  void CloseUpstream() {
    if (upstream_fd_ < 0) return;
    proxy_.Forget(upstream_fd_);
    ::close(upstream_fd_);
    upstream_fd_ = -1;
    upstream_.Reset(-1);
  }

  // True when `delay` passed with the client still waiting; false as soon
  // as it hangs up (or sends anything) or the proxy stops.
  bool WaitWhileClientStays(absl::Duration delay) {
    absl::Time deadline = absl::Now() + delay;
    for (;;) {
      absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) return !proxy_.stopping_;
      pollfd watch{client_fd_, POLLIN | POLLRDHUP, 0};
      int ready = ::poll(&watch, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
      if (ready > 0) return false;
      if (ready < 0 && errno != EINTR) return false;
    }
  }

  void ResetClient() {
    struct linger hard = {1, 0};  // close with RST
    ::setsockopt(client_fd_, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  }

  FaultHttpProxy& proxy_;
  int client_fd_;
  SocketReader client_;
  int upstream_fd_ = -1;
  SocketReader upstream_;
};

FaultHttpProxy::FaultHttpProxy(Options options) : options_(std::move(options)) {
  absl::string_view url = options_.upstream_url;
  if (!absl::ConsumePrefix(&url, "http://")) {
    throw std::invalid_argument("the fault proxy forwards to http:// only");
  }
  url = absl::StripSuffix(url, "/");
  size_t colon = url.rfind(':');
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(url.substr(colon + 1), &upstream_port_)) {
    throw std::invalid_argument("the upstream URL needs host:port");
  }
  upstream_host_ = std::string(url.substr(0, colon));
  if (upstream_host_ == "localhost") upstream_host_ = "127.0.0.1";

  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 64) != 0) {
    if (listen_fd_ >= 0) ::close(listen_fd_);
    throw std::runtime_error("the fault proxy cannot listen on loopback");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { Accept(); });
}

FaultHttpProxy::~FaultHttpProxy() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (std::thread& worker : workers_) worker.join();
}

void FaultHttpProxy::Accept() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    Track(fd);
    std::lock_guard<std::mutex> lock(mu_);
    workers_.emplace_back([this, fd] { Connection(*this, fd).Serve(); });
  }
}

void FaultHttpProxy::Track(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.push_back(fd);
  if (stopping_) ::shutdown(fd, SHUT_RDWR);
}

// Before a descriptor is closed, so the destructor never shuts down a
// number that has been reused meanwhile.
void FaultHttpProxy::Forget(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase(open_fds_, fd);
}

std::optional<Fault> FaultHttpProxy::Classify(ProxiedRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<Fault> fault;
  for (size_t id = 0; id < rules_.size(); ++id) {
    Rule& rule = rules_[id];
    if (!rule.active || !rule.match.Matches(request)) continue;
    ++rule.matched;
    if (fault || (rule.times != kEveryRequest && rule.fired >= rule.times)) continue;
    ++rule.fired;
    request.rule = static_cast<int>(id);
    fault = rule.fault;
  }
  log_.push_back(request);
  return fault;
}

int FaultHttpProxy::AddRule(RequestMatcher match, Fault fault, int times) {
  if (fault.kind == Fault::Kind::kIgnoreRange && !options_.resign_credentials) {
    throw std::invalid_argument("IgnoreRange needs the proxy's resign_credentials");
  }
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(Rule{std::move(match), std::move(fault), times});
  return static_cast<int>(rules_.size() - 1);
}

void FaultHttpProxy::ClearRules() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Rule& rule : rules_) rule.active = false;
}

int FaultHttpProxy::matched(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return rules_.at(static_cast<size_t>(id)).matched;
}

int FaultHttpProxy::fired(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return rules_.at(static_cast<size_t>(id)).fired;
}

int FaultHttpProxy::forwarded() const { return forwarded_.load(); }

std::vector<ProxiedRequest> FaultHttpProxy::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

void FaultHttpProxy::ClearLog() {
  std::lock_guard<std::mutex> lock(mu_);
  log_.clear();
}

}  // namespace lake::testing
