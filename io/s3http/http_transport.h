// HTTP/1.1 over libcurl for the S3 request layer: one event loop thread per
// transport drives every exchange (libcurl multi), so many requests are in
// flight at once over reused connections while callers block only on their
// own calls.
//
// Invariants:
//  - A request body is borrowed from the caller and sent without a copy of
//    its own; it must stay valid until the HttpCall is destroyed (the
//    destructor aborts an unfinished exchange and waits until the loop has
//    let go of it).
//  - A streamed response body is held in a bounded buffer per call: when it
//    is full the transfer is paused until the caller reads, so memory stays
//    constant whatever the object's size. While a ReadBody waits on an
//    empty buffer, arriving bytes are written straight into the caller's
//    memory instead (one copy fewer), in the same order, and the caller is
//    woken once an eighth of its buffer (at least 128 KiB) is filled, the
//    buffer is full, or the exchange ended.
//  - A collected body larger than TransportOptions::max_collected_body_bytes
//    fails the call instead of growing.
//  - Transport failures are typed: Unavailable for broken or refused
//    connections (retryable), DeadlineExceeded for a stalled exchange (no
//    byte moved for idle_timeout) or a slow connect, Cancelled after Abort.
// This layer knows nothing about S3: no signing, no retries.
#ifndef LAKE_IO_S3HTTP_HTTP_TRANSPORT_H_
#define LAKE_IO_S3HTTP_HTTP_TRANSPORT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "io/s3http/http_header.h"

namespace lake::s3http {

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string url;     // absolute and already encoded
  std::vector<HttpHeader> headers;
  // PUT/POST: the body (possibly empty), borrowed until the call ends.
  bool send_body = false;
  absl::Span<const uint8_t> body;
  // The whole exchange must end within this (DeadlineExceeded otherwise).
  absl::Duration deadline = absl::InfiniteDuration();
};

struct HttpResponseHead {
  int status = 0;
  std::vector<HttpHeader> headers;  // names lowercased, values trimmed

  // The first value of a header (name in lowercase), or null.
  const std::string* Find(std::string_view name) const;
};

struct TransportOptions {
  absl::Duration connect_timeout = absl::Seconds(5);
  // An exchange during which no byte moves for this long is abandoned
  // (a paused stream does not count).
  absl::Duration idle_timeout = absl::Seconds(30);
  // CA bundle for https endpoints (AWS_CA_BUNDLE); empty: the system's.
  std::string ca_bundle;
  long max_connections = 64;
  size_t stream_buffer_bytes = 1 << 20;
  size_t max_collected_body_bytes = 16 << 20;
};

// What happens to a response body.
enum class BodyMode {
  kCollect,  // keep it (bounded) for AwaitBody
  kStream,   // hand it out through ReadBody, with backpressure
  kDiscard,  // drop it
};

struct CallState;
class HttpTransport;

// One exchange in flight. Used by one thread at a time.
class HttpCall {
 public:
  ~HttpCall();
  HttpCall(const HttpCall&) = delete;
  HttpCall& operator=(const HttpCall&) = delete;

  // Blocks until the final status line and headers have arrived.
  absl::StatusOr<HttpResponseHead> AwaitHead();
  // kStream: up to `len` body bytes; 0 once the body has ended cleanly.
  absl::StatusOr<size_t> ReadBody(uint8_t* dst, size_t len);
  // kCollect: blocks until the exchange ends; the whole body.
  absl::StatusOr<std::string> AwaitBody();
  // Blocks until the exchange ends; its transport-level outcome.
  absl::Status AwaitDone();
  // Stops the exchange; later waits return Cancelled (unless it had ended).
  void Abort();

 private:
  friend class HttpTransport;
  HttpCall(HttpTransport* transport, std::shared_ptr<CallState> state)
      : transport_(transport), state_(std::move(state)) {}

  HttpTransport* transport_;
  std::shared_ptr<CallState> state_;
};

class HttpTransport {
 public:
  static absl::StatusOr<std::unique_ptr<HttpTransport>> Create(
      const TransportOptions& options);
  ~HttpTransport();  // aborts what is in flight, then stops the loop

  const TransportOptions& options() const { return options_; }

  // Thread-safe. The exchange starts at once on the loop thread.
  std::unique_ptr<HttpCall> Start(HttpRequest request, BodyMode mode);

 private:
  friend class HttpCall;
  class Loop;
  explicit HttpTransport(const TransportOptions& options);

  TransportOptions options_;
  std::unique_ptr<Loop> loop_;
};

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_HTTP_TRANSPORT_H_
