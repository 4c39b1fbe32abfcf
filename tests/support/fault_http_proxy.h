// A fault-injecting HTTP/1.1 reverse proxy on 127.0.0.1 for tests: it sits
// between lake and a real S3 server (RGW) and misbehaves as a test scripts
// it — a synthesized 5xx, a connection reset mid-body, a truncated body,
// Range ignored, a wrong Content-Range or Content-Length, a stall, a lost
// response — while every other request passes through untouched.
//
// Forwarding:
//  - A thread per client connection, keep-alive on both sides; each client
//    connection has its own upstream connection, opened on first use and
//    reopened when the server closed it.
//  - Requests are framed by Content-Length (lake never sends chunked
//    bodies; a chunked request is answered 501). Their bytes go upstream
//    unchanged: the Host header and the SigV4 signature stay valid.
//  - The upstream response is read whole before anything is sent to the
//    client (test objects are small), so every fault acts on a complete,
//    real answer. Bodies are framed by Content-Length; HEAD, 1xx, 204 and
//    304 have none; a chunked body is decoded and sent with a
//    Content-Length instead; a body with neither is read to close.
//
// Rules: a RequestMatcher (method, path and query substrings, whether a
// Range header is present, an optional predicate) and a Fault, applied to
// the first `times` matching requests (kEveryRequest: all of them). Rules
// are tried in the order added; the first matching one with uses left
// fires, the others only count the match.
//
// What a wrong Content-Length means here: the head announces the given
// length and the real body is sent up to that length; when the two
// differ, the connection is closed after the body. The client therefore
// sees either a clean body shorter than the real one (an understated
// length) or a body cut short of what was announced (an overstated one) —
// never stray bytes taken for the next response.
//
// Thread-safe. The destructor closes every connection (a stalled one
// included) and joins every thread.
#ifndef LAKE_TESTS_SUPPORT_FAULT_HTTP_PROXY_H_
#define LAKE_TESTS_SUPPORT_FAULT_HTTP_PROXY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "io/s3http/sigv4_signer.h"

namespace lake::testing {

// One request as the proxy received it from the client.
struct ProxiedRequest {
  std::string method;
  std::string target;  // path and query as sent
  std::string path;    // before '?'
  std::string query;   // after '?', "" when none
  std::map<std::string, std::string> headers;  // names lowercased
  uint64_t body_bytes = 0;
  std::string body;  // the request's body when at most kLoggedBodyBytes, else ""
  int rule = -1;  // the rule that fired on it, -1 when none

  static constexpr uint64_t kLoggedBodyBytes = 64 * 1024;

  // A header's value (name in lowercase), or null.
  const std::string* Header(const std::string& name) const;
};

// Which requests a rule applies to; empty fields match anything.
struct RequestMatcher {
  std::string method;          // "GET", "PUT", "POST", "HEAD", "DELETE"
  std::string path_contains;   // e.g. "/objects/"
  std::string query_contains;  // e.g. "partNumber=", "uploadId=", "uploads"
  std::optional<bool> with_range;  // a Range header present (or absent)
  std::function<bool(const ProxiedRequest&)> predicate;  // also required

  bool Matches(const ProxiedRequest& request) const;
};

// What a rule does to a request it fires on.
struct Fault {
  enum class Kind {
    kRespond,               // answer `status` without forwarding
    kResetAfterBodyBytes,   // forward; send the head and `body_bytes`, then RST
    kTruncateAfterBodyBytes,  // forward; send the head and `body_bytes`, then FIN
    kIgnoreRange,           // strip Range (re-signed), so the server sends 200
    kRewriteContentRange,   // forward; the response's Content-Range := value
    kRewriteContentLength,  // forward; Content-Length := value (see above)
    kDelay,                 // forward; withhold the answer from body byte
                            // `body_bytes` on (kBeforeHead: from its status
                            // line) for `delay`, then send the rest; ends
                            // at once, closing, when the client hangs up
    kLoseResponse,          // forward; read the whole answer, then close
                            // the client's connection without a byte
    kReplaceBody,           // forward; answer with the server's status and
                            // headers but `value` as the body (a server
                            // that did the work and reports something else)
  };
  // For kDelay: the stall comes before the status line.
  static constexpr int64_t kBeforeHead = -1;

  Kind kind = Kind::kRespond;
  int status = 0;          // kRespond
  std::string error_code;  // kRespond: the <Error><Code>; "" sends no body
  int64_t body_bytes = 0;  // kReset…, kTruncate…, kDelay
  std::string value;       // kRewriteContentRange, kRewriteContentLength
  absl::Duration delay;    // kDelay

  // `status` with an S3 <Error> document (InternalError for 500,
  // ServiceUnavailable for 503, else InternalError) or with `code`.
  static Fault Respond(int status, std::string code = "");
  // `status` with Content-Length: 0 and no body.
  static Fault RespondWithoutBody(int status);
  static Fault ResetAfterBodyBytes(int64_t n);
  static Fault TruncateAfterBodyBytes(int64_t n);
  // Needs the proxy's resign_credentials: Range is signed, and a server
  // refuses a request whose signed header went missing.
  static Fault IgnoreRange();
  static Fault RewriteContentRange(std::string value);
  static Fault RewriteContentLength(uint64_t value);
  static Fault Stall(absl::Duration delay, int64_t after_body_bytes = kBeforeHead);
  static Fault LoseResponse();
  static Fault ReplaceBody(std::string body);
};

inline constexpr int kEveryRequest = -1;

class FaultHttpProxy {
 public:
  struct Options {
    // "http://host:port" of the real server.
    std::string upstream_url;
    // Signs again the requests a fault rewrote (kIgnoreRange), with the
    // region and signed headers of the original signature, minus the one
    // removed.
    std::optional<s3http::Credentials> resign_credentials;
  };

  // Listens on 127.0.0.1 at a free port. Throws when it cannot.
  explicit FaultHttpProxy(Options options);
  ~FaultHttpProxy();
  FaultHttpProxy(const FaultHttpProxy&) = delete;
  FaultHttpProxy& operator=(const FaultHttpProxy&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Adds a rule for the first `times` matching requests (kEveryRequest:
  // all); returns its id for matched() and fired().
  int AddRule(RequestMatcher match, Fault fault, int times = 1);
  // Removes every rule (their counters stay readable).
  void ClearRules();

  // Requests that matched rule `id`, whether or not it fired on them.
  int matched(int id) const;
  // Requests rule `id` acted on.
  int fired(int id) const;
  // Requests sent to the upstream server (a re-sent one counts again).
  int forwarded() const;
  // Every request received, in arrival order (since the last ClearLog).
  std::vector<ProxiedRequest> Requests() const;
  void ClearLog();

 private:
  struct Rule {
    RequestMatcher match;
    Fault fault;
    int times;
    bool active = true;
    int matched = 0;
    int fired = 0;
  };
  class Connection;

  void Accept();
  void Track(int fd);
  void Forget(int fd);
  // The fault for `request`, if a rule fires on it; logs the request.
  std::optional<Fault> Classify(ProxiedRequest& request);

  Options options_;
  std::string upstream_host_;
  int upstream_port_ = 0;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> forwarded_{0};
  std::thread acceptor_;

  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  std::vector<ProxiedRequest> log_;
  std::vector<int> open_fds_;
  std::vector<std::thread> workers_;
};

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_FAULT_HTTP_PROXY_H_
