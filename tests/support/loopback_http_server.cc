#include "tests/support/loopback_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace lake::testing {
namespace {

bool SendAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = ::send(fd, data, len, MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

void ResetConnection(int fd) {
  struct linger hard = {1, 0};  // close with RST
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  ::close(fd);
}

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 412: return "Precondition Failed";
    case 416: return "Range Not Satisfiable";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

}  // namespace

LoopbackHttpServer::LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 64) != 0) {
    throw std::runtime_error("cannot listen on loopback");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { Accept(); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  ::close(listen_fd_);
  acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (std::thread& worker : workers_) worker.join();
}

void LoopbackHttpServer::Accept() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    ++accepted_;
    std::lock_guard<std::mutex> lock(mu_);
    open_fds_.push_back(fd);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

void LoopbackHttpServer::Serve(int fd) {
  // Forgets the connection before closing it, so the destructor never shuts
  // down a descriptor number that has been reused meanwhile.
  auto forget = [this, fd] {
    std::lock_guard<std::mutex> lock(mu_);
    open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
  };
  auto close_fd = [&] {
    forget();
    ::close(fd);
  };
  std::string buffer;
  char chunk[65536];
  for (;;) {
    // Read a request head.
    size_t head_end;
    while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) {
        close_fd();
        return;
      }
      buffer.append(chunk, static_cast<size_t>(n));
    }
    TestHttpRequest request;
    std::vector<std::string> lines =
        absl::StrSplit(buffer.substr(0, head_end), "\r\n");
    std::vector<std::string> first = absl::StrSplit(lines[0], ' ');
    if (first.size() >= 2) {
      request.method = first[0];
      request.target = first[1];
    }
    for (size_t i = 1; i < lines.size(); ++i) {
      size_t colon = lines[i].find(':');
      if (colon == std::string::npos) continue;
      std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
      std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
      request.headers[name] = value;
    }
    buffer.erase(0, head_end + 4);
    size_t content_length = 0;
    if (auto it = request.headers.find("content-length"); it != request.headers.end()) {
      (void)absl::SimpleAtoi(it->second, &content_length);
    }
    while (buffer.size() < content_length) {
      ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) {
        close_fd();
        return;
      }
      buffer.append(chunk, static_cast<size_t>(n));
    }
    request.body = buffer.substr(0, content_length);
    buffer.erase(0, content_length);

    TestHttpResponse response = handler_(request);
    ++served_;
    if (response.delay > absl::ZeroDuration()) absl::SleepFor(response.delay);
    if (response.drop) {
      close_fd();
      return;
    }
    long long length = response.content_length >= 0
                           ? response.content_length
                           : static_cast<long long>(response.body.size());
    std::string head = absl::StrCat("HTTP/1.1 ", response.status, " ",
                                    Reason(response.status), "\r\n");
    bool has_length = false;
    for (const auto& [name, value] : response.headers) {
      if (absl::EqualsIgnoreCase(name, "content-length")) has_length = true;
      absl::StrAppend(&head, name, ": ", value, "\r\n");
    }
    if (!has_length) absl::StrAppend(&head, "Content-Length: ", length, "\r\n");
    absl::StrAppend(&head, "\r\n");
    if (!SendAll(fd, head.data(), head.size())) {
      close_fd();
      return;
    }
    bool head_only = request.method == "HEAD";
    if (response.reset_after_body_bytes >= 0) {
      size_t n = std::min<size_t>(response.body.size(),
                                  static_cast<size_t>(response.reset_after_body_bytes));
      SendAll(fd, response.body.data(), n);
      absl::SleepFor(absl::Milliseconds(20));
      forget();
      ResetConnection(fd);
      return;
    }
    if (!head_only && !SendAll(fd, response.body.data(), response.body.size())) {
      close_fd();
      return;
    }
    if (!head_only && static_cast<long long>(response.body.size()) < length) {
      close_fd();  // a body shorter than announced: the connection ends early
      return;
    }
  }
}

}  // namespace lake::testing
