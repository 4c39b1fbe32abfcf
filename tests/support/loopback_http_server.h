// A small HTTP/1.1 server on 127.0.0.1 for tests: a thread per connection,
// keep-alive, requests framed by Content-Length, and responses chosen by a
// handler — including scripted misbehaviour (a reset mid-body, a stall,
// a body shorter than its Content-Length).
#ifndef LAKE_TESTS_SUPPORT_LOOPBACK_HTTP_SERVER_H_
#define LAKE_TESTS_SUPPORT_LOOPBACK_HTTP_SERVER_H_

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"

namespace lake::testing {

struct TestHttpRequest {
  std::string method;
  std::string target;  // path and query as sent
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
};

struct TestHttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Content-Length sent; by default body.size().
  long long content_length = -1;
  // Misbehaviour: send the head and this many body bytes, then reset the
  // connection (RST).
  long long reset_after_body_bytes = -1;
  // Misbehaviour: wait this long before sending anything.
  absl::Duration delay = absl::ZeroDuration();
  // Misbehaviour: close the connection without any response.
  bool drop = false;
};

class LoopbackHttpServer {
 public:
  using Handler = std::function<TestHttpResponse(const TestHttpRequest&)>;

  explicit LoopbackHttpServer(Handler handler);
  ~LoopbackHttpServer();

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests_served() const { return served_.load(); }
  int connections_accepted() const { return accepted_.load(); }

 private:
  void Accept();
  void Serve(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> served_{0};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> workers_;
  std::vector<int> open_fds_;
};

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_LOOPBACK_HTTP_SERVER_H_
