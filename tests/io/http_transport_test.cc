// The libcurl transport against a loopback server: bodies in and out,
// several exchanges in flight over reused connections, bounded streaming,
// and every transport failure typed.
#include <doctest/doctest.h>

#include <atomic>

#include "absl/time/clock.h"
#include "io/s3http/http_transport.h"
#include "tests/support/loopback_http_server.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::s3http {
namespace {

using testing::LoopbackHttpServer;
using testing::TestHttpRequest;
using testing::TestHttpResponse;

std::unique_ptr<HttpTransport> NewTransport(TransportOptions options = {}) {
  absl::StatusOr<std::unique_ptr<HttpTransport>> transport = HttpTransport::Create(options);
  REQUIRE(transport.ok());
  return std::move(*transport);
}

HttpRequest Get(const std::string& url) { return HttpRequest{"GET", url, {}, false, {}}; }

TEST_CASE("a GET returns the status, lowercased headers and the body") {
  LoopbackHttpServer server([](const TestHttpRequest& request) {
    TestHttpResponse response;
    response.headers = {{"X-Echo-Target", request.target}, {"ETag", "\"abc\""}};
    response.body = "hello";
    return response;
  });
  auto transport = NewTransport();
  auto call = transport->Start(Get(server.url() + "/a/b?x=1"), BodyMode::kCollect);
  absl::StatusOr<HttpResponseHead> head = call->AwaitHead();
  LAKE_REQUIRE_OK(head);
  CHECK(head->status == 200);
  REQUIRE(head->Find("x-echo-target") != nullptr);
  CHECK(*head->Find("x-echo-target") == "/a/b?x=1");
  CHECK(*head->Find("etag") == "\"abc\"");
  absl::StatusOr<std::string> body = call->AwaitBody();
  LAKE_REQUIRE_OK(body);
  CHECK(*body == "hello");
}

TEST_CASE("a PUT sends the borrowed body exactly, with its length and no Expect") {
  std::string received;
  std::map<std::string, std::string> headers;
  LoopbackHttpServer server([&](const TestHttpRequest& request) {
    received = request.body;
    headers = request.headers;
    return TestHttpResponse{};
  });
  auto transport = NewTransport();
  std::vector<uint8_t> body = testing::RandomBytes(3 * 1024 * 1024 + 1, 1);
  HttpRequest put{"PUT", server.url() + "/k", {{"x-amz-meta", "v"}}, true, body};
  auto call = transport->Start(put, BodyMode::kDiscard);
  LAKE_REQUIRE_OK(call->AwaitDone());
  CHECK(received == std::string(body.begin(), body.end()));
  CHECK(headers["content-length"] == std::to_string(body.size()));
  CHECK(headers.count("expect") == 0);
  CHECK(headers["x-amz-meta"] == "v");

  HttpRequest empty{"PUT", server.url() + "/empty", {}, true, {}};
  auto call2 = transport->Start(empty, BodyMode::kDiscard);
  LAKE_REQUIRE_OK(call2->AwaitDone());
  CHECK(received.empty());
  CHECK(headers["content-length"] == "0");
}

TEST_CASE("HEAD, POST and DELETE use their methods") {
  std::vector<std::string> methods;
  LoopbackHttpServer server([&](const TestHttpRequest& request) {
    methods.push_back(request.method + ":" + request.body);
    TestHttpResponse response;
    response.body = "ignored for HEAD";
    return response;
  });
  auto transport = NewTransport();
  std::string xml = "<x/>";
  auto head = transport->Start({"HEAD", server.url() + "/", {}, false, {}}, BodyMode::kDiscard);
  LAKE_REQUIRE_OK(head->AwaitDone());
  auto post = transport->Start(
      {"POST", server.url() + "/", {}, true,
       absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(xml.data()), xml.size())},
      BodyMode::kDiscard);
  LAKE_REQUIRE_OK(post->AwaitDone());
  auto del = transport->Start({"DELETE", server.url() + "/", {}, false, {}}, BodyMode::kDiscard);
  LAKE_REQUIRE_OK(del->AwaitDone());
  CHECK(methods == std::vector<std::string>{"HEAD:", "POST:<x/>", "DELETE:"});
}

TEST_CASE("several exchanges run at once and reuse their connections") {
  LoopbackHttpServer server([](const TestHttpRequest&) {
    TestHttpResponse response;
    response.delay = absl::Milliseconds(300);
    response.body = "x";
    return response;
  });
  auto transport = NewTransport();
  for (int round = 0; round < 2; ++round) {
    absl::Time start = absl::Now();
    std::vector<std::unique_ptr<HttpCall>> calls;
    for (int i = 0; i < 8; ++i) {
      calls.push_back(transport->Start(Get(server.url() + "/" + std::to_string(i)),
                                       BodyMode::kCollect));
    }
    for (auto& call : calls) LAKE_CHECK_OK(call->AwaitBody());
    CHECK(absl::Now() - start < absl::Milliseconds(8 * 300 / 2));
  }
  CHECK(server.requests_served() == 16);
  // The second round reused the first round's connections (a loaded
  // machine may still race one or two new ones).
  CHECK(server.connections_accepted() >= 8);
  CHECK(server.connections_accepted() <= 10);
}

// A loopback server whose every answer is `size` random bytes, and a
// transport with a 512 KiB stream buffer to read them through.
struct BigBody {
  BigBody(size_t size, unsigned seed) : bytes(RandomText(size, seed)) {
    TransportOptions options;
    options.stream_buffer_bytes = 512 * 1024;
    transport = NewTransport(options);
  }
  static std::string RandomText(size_t size, unsigned seed) {
    std::vector<uint8_t> random = testing::RandomBytes(size, seed);
    return std::string(random.begin(), random.end());
  }
  // The streamed GET of the body, its head received.
  std::unique_ptr<HttpCall> StartStream() {
    auto call = transport->Start(Get(server.url() + "/big"), BodyMode::kStream);
    LAKE_REQUIRE_OK(call->AwaitHead());
    return call;
  }

  std::string bytes;
  LoopbackHttpServer server{[this](const TestHttpRequest&) {
    TestHttpResponse response;
    response.body = bytes;
    return response;
  }};
  std::unique_ptr<HttpTransport> transport;
};

TEST_CASE("a streamed body arrives whole through a bounded buffer, however slow the reader") {
  BigBody big(12 * 1024 * 1024, 2);
  auto call = big.StartStream();
  std::string received;
  std::vector<uint8_t> buf(100000);
  for (int i = 0;; ++i) {
    absl::StatusOr<size_t> n = call->ReadBody(buf.data(), buf.size());
    LAKE_REQUIRE_OK(n);
    if (*n == 0) break;
    received.append(reinterpret_cast<const char*>(buf.data()), *n);
    if (i % 16 == 0) absl::SleepFor(absl::Milliseconds(5));  // a slow consumer
  }
  CHECK(received == big.bytes);
}

TEST_CASE("a streamed body read into buffers larger and smaller than the stream buffer arrives whole and in order") {
  BigBody big(9 * 1024 * 1024 + 3, 3);
  auto call = big.StartStream();
  // A reader that waits with a buffer gets the bytes written into it; one
  // that is busy finds them in the stream buffer, after those.
  const size_t sizes[] = {4 * 1024 * 1024, 1, 300 * 1024, 7, 2 * 1024 * 1024, 65536};
  std::string received;
  std::vector<uint8_t> buf(4 * 1024 * 1024);
  for (int i = 0;; ++i) {
    absl::StatusOr<size_t> n = call->ReadBody(buf.data(), sizes[i % 6]);
    LAKE_REQUIRE_OK(n);
    if (*n == 0) break;
    REQUIRE(*n <= sizes[i % 6]);
    received.append(reinterpret_cast<const char*>(buf.data()), *n);
    if (i % 5 == 0) absl::SleepFor(absl::Milliseconds(3));  // sometimes busy
  }
  CHECK(received == big.bytes);
}

TEST_CASE("a connection reset mid-body fails the read as Unavailable") {
  LoopbackHttpServer server([](const TestHttpRequest&) {
    TestHttpResponse response;
    response.body = std::string(1 << 20, 'a');
    response.reset_after_body_bytes = 100000;
    return response;
  });
  auto transport = NewTransport();
  auto call = transport->Start(Get(server.url() + "/"), BodyMode::kStream);
  LAKE_REQUIRE_OK(call->AwaitHead());
  std::vector<uint8_t> buf(65536);
  size_t total = 0;
  absl::Status failure;
  for (;;) {
    absl::StatusOr<size_t> n = call->ReadBody(buf.data(), buf.size());
    if (!n.ok()) {
      failure = n.status();
      break;
    }
    REQUIRE(*n > 0);  // a clean end would be a lie
    total += *n;
  }
  CHECK(total <= 100000);
  CHECK(absl::IsUnavailable(failure));
}

TEST_CASE("a body shorter than its Content-Length is a failure, not an end") {
  LoopbackHttpServer server([](const TestHttpRequest&) {
    TestHttpResponse response;
    response.body = "short";
    response.content_length = 100;
    return response;
  });
  auto transport = NewTransport();
  auto call = transport->Start(Get(server.url() + "/"), BodyMode::kCollect);
  CHECK(absl::IsUnavailable(call->AwaitBody().status()));
}

TEST_CASE("a stalled exchange is abandoned after the idle timeout") {
  LoopbackHttpServer server([](const TestHttpRequest&) {
    TestHttpResponse response;
    response.delay = absl::Seconds(4);
    return response;
  });
  TransportOptions options;
  options.idle_timeout = absl::Seconds(1);
  auto transport = NewTransport(options);
  absl::Time start = absl::Now();
  auto call = transport->Start(Get(server.url() + "/"), BodyMode::kCollect);
  CHECK(absl::IsDeadlineExceeded(call->AwaitBody().status()));
  CHECK(absl::Now() - start < absl::Seconds(3.5));
}

TEST_CASE("a refused connection is Unavailable; a malformed URL InvalidArgument") {
  int dead_port;
  {
    LoopbackHttpServer server([](const TestHttpRequest&) { return TestHttpResponse{}; });
    dead_port = server.port();
  }
  auto transport = NewTransport();
  auto call = transport->Start(Get("http://127.0.0.1:" + std::to_string(dead_port) + "/"),
                               BodyMode::kCollect);
  CHECK(absl::IsUnavailable(call->AwaitHead().status()));
  auto bad = transport->Start(Get("nope://x"), BodyMode::kCollect);
  CHECK(absl::IsInvalidArgument(bad->AwaitDone()));
}

TEST_CASE("a collected body over the limit fails instead of growing") {
  LoopbackHttpServer server([](const TestHttpRequest&) {
    TestHttpResponse response;
    response.body = std::string(2 * 1024 * 1024, 'z');
    return response;
  });
  TransportOptions options;
  options.max_collected_body_bytes = 1024 * 1024;
  auto transport = NewTransport(options);
  auto call = transport->Start(Get(server.url() + "/"), BodyMode::kCollect);
  CHECK(absl::IsResourceExhausted(call->AwaitBody().status()));
}

TEST_CASE("aborting a stream stops it; destroying a call in flight is safe") {
  LoopbackHttpServer server([](const TestHttpRequest&) {
    TestHttpResponse response;
    response.body = std::string(8 * 1024 * 1024, 'q');
    return response;
  });
  auto transport = NewTransport();
  auto call = transport->Start(Get(server.url() + "/"), BodyMode::kStream);
  LAKE_REQUIRE_OK(call->AwaitHead());
  uint8_t buf[100];
  LAKE_REQUIRE_OK(call->ReadBody(buf, sizeof buf));
  call->Abort();
  absl::Status status;
  for (;;) {
    absl::StatusOr<size_t> n = call->ReadBody(buf, sizeof buf);
    if (!n.ok()) {
      status = n.status();
      break;
    }
    if (*n == 0) break;
  }
  CHECK(absl::IsCancelled(status));
  for (int i = 0; i < 5; ++i) {
    auto abandoned = transport->Start(Get(server.url() + "/"), BodyMode::kStream);
  }
}

}  // namespace
}  // namespace lake::s3http
