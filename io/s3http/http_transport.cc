#include "io/s3http/http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <thread>

#include "absl/base/call_once.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace lake::s3http {

// Shared between an HttpCall (its owner's thread) and the loop thread.
// Fields marked "loop" are touched only by the loop thread; the rest only
// under `mu`.
struct CallState {
  CallState(HttpRequest r, BodyMode m, const TransportOptions& options)
      : request(std::move(r)), mode(m), options(options) {}

  const HttpRequest request;
  const BodyMode mode;
  const TransportOptions& options;

  // loop
  CURL* easy = nullptr;
  curl_slist* header_list = nullptr;
  size_t upload_offset = 0;
  std::vector<HttpHeader> pending_headers;

  absl::Mutex mu;
  absl::CondVar changed;
  bool head_ready = false;
  HttpResponseHead head;
  bool done = false;
  bool released = false;  // the loop will not touch this call again
  absl::Status outcome;
  absl::Status local_failure;  // from a callback, e.g. a body too large
  bool abort_requested = false;
  std::string collected;
  // kStream: a ring buffer of received bytes, allocated when first needed
  // (a reader that keeps up takes every byte directly and needs none).
  std::vector<uint8_t> ring;
  size_t ring_capacity = 0;
  size_t ring_start = 0;
  size_t ring_size = 0;
  bool paused = false;
  // kStream: the buffer of a ReadBody waiting while the ring is empty. The
  // loop writes arriving bytes straight into it (no copy through the ring)
  // until it is full or the reader takes them; bytes that do not fit go to
  // the ring, after them. Set and cleared only by ReadBody.
  uint8_t* reader_dst = nullptr;
  size_t reader_capacity = 0;
  size_t reader_filled = 0;
};

namespace {

constexpr long kCurlBufferBytes = 256 * 1024;
// A reader waiting for body bytes is woken when an eighth of its buffer,
// and at least this much, has been written into it (or it is full, or the
// exchange ended): one wakeup per several network reads rather than per
// read, fewer still for the large buffers of throughput-minded readers.
constexpr size_t kReaderWakeBytes = 128 * 1024;

size_t ReaderWakeBytes(size_t capacity) {
  return std::min(capacity, std::max(kReaderWakeBytes, capacity / 8));
}

absl::once_flag curl_init_once;

absl::Status CurlStatus(CURLcode code, const char* error_buffer,
                        const std::string& method, const std::string& url) {
  // The URL may carry a presigned query: never repeat it.
  std::string where = absl::StrCat(method, " ", url.substr(0, url.find('?')));
  std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
  std::string message = absl::StrCat(where, ": ", detail);
  switch (code) {
    case CURLE_OK:
      return absl::OkStatus();
    case CURLE_OPERATION_TIMEDOUT:
      return absl::DeadlineExceededError(message);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_FAIL_REWIND:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return absl::UnavailableError(message);
    case CURLE_ABORTED_BY_CALLBACK:
      return absl::CancelledError(message);
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return absl::InvalidArgumentError(message);
    default:
      return absl::UnknownError(message);
  }
}

std::string_view TrimLine(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ' ||
                        s.back() == '\t')) {
    s.remove_suffix(1);
  }
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* call = static_cast<CallState*>(user);
  size_t n = size * count;
  std::string_view line(data, n);
  if (line.substr(0, 5) == "HTTP/") {  // a new status line: a new response
    call->pending_headers.clear();
    return n;
  }
  if (line == "\r\n" || line == "\n") {
    long code = 0;
    curl_easy_getinfo(call->easy, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 100 && code < 200) {  // interim (100 Continue)
      call->pending_headers.clear();
      return n;
    }
    absl::MutexLock lock(&call->mu);
    call->head.status = static_cast<int>(code);
    call->head.headers = std::move(call->pending_headers);
    call->head_ready = true;
    call->changed.SignalAll();
    return n;
  }
  if ((line.front() == ' ' || line.front() == '\t') && !call->pending_headers.empty()) {
    absl::StrAppend(&call->pending_headers.back().value, " ", std::string(TrimLine(line)));
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;  // not a header: ignore
  HttpHeader header;
  header.name = absl::AsciiStrToLower(std::string(line.substr(0, colon)));
  header.value = std::string(TrimLine(line.substr(colon + 1)));
  call->pending_headers.push_back(std::move(header));
  return n;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* call = static_cast<CallState*>(user);
  size_t n = size * count;
  absl::MutexLock lock(&call->mu);
  if (call->abort_requested) return 0;
  switch (call->mode) {
    case BodyMode::kDiscard:
      return n;
    case BodyMode::kCollect:
      if (call->collected.size() + n > call->options.max_collected_body_bytes) {
        call->local_failure = absl::ResourceExhaustedError(absl::StrCat(
            "response body exceeds ", call->options.max_collected_body_bytes,
            " bytes"));
        return 0;
      }
      call->collected.append(data, n);
      return n;
    case BodyMode::kStream: {
      std::vector<uint8_t>& ring = call->ring;
      if (call->reader_dst != nullptr && call->ring_size == 0) {
        // A reader waits: hand it the bytes directly. What does not fit
        // goes to the (empty) ring, which holds two libcurl buffers while
        // one callback delivers at most one: it always fits.
        size_t direct = std::min(n, call->reader_capacity - call->reader_filled);
        std::memcpy(call->reader_dst + call->reader_filled, data, direct);
        call->reader_filled += direct;
        data += direct;
        n -= direct;
        if (n == 0) {
          // Wake the reader once a useful amount is there (or its buffer is
          // full); the end of the exchange wakes it in any case.
          if (call->reader_filled >= ReaderWakeBytes(call->reader_capacity)) {
            call->changed.SignalAll();
          }
          return direct;
        }
        call->changed.SignalAll();
        if (ring.empty()) ring.resize(call->ring_capacity);
        std::memcpy(ring.data(), data, n);
        call->ring_start = 0;
        call->ring_size = n;
        return direct + n;
      }
      if (ring.empty()) ring.resize(call->ring_capacity);
      if (ring.size() - call->ring_size < n) {
        call->paused = true;  // resumed by ReadBody once there is room
        return CURL_WRITEFUNC_PAUSE;
      }
      size_t end = (call->ring_start + call->ring_size) % ring.size();
      size_t first = std::min(n, ring.size() - end);
      std::memcpy(ring.data() + end, data, first);
      std::memcpy(ring.data(), data + first, n - first);
      call->ring_size += n;
      call->changed.SignalAll();
      return n;
    }
  }
  return 0;
}

size_t OnUpload(char* buffer, size_t size, size_t count, void* user) {
  auto* call = static_cast<CallState*>(user);
  size_t remaining = call->request.body.size() - call->upload_offset;
  size_t n = std::min(size * count, remaining);
  if (n > 0) std::memcpy(buffer, call->request.body.data() + call->upload_offset, n);
  call->upload_offset += n;
  return n;
}

// libcurl rewinds the body when it resends a request on a fresh connection
// after a reused one turned out dead.
int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* call = static_cast<CallState*>(user);
  if (origin != SEEK_SET || offset < 0 ||
      static_cast<size_t>(offset) > call->request.body.size()) {
    return CURL_SEEKFUNC_CANTSEEK;
  }
  call->upload_offset = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

}  // namespace

const std::string* HttpResponseHead::Find(std::string_view name) const {
  for (const HttpHeader& header : headers) {
    if (header.name == name) return &header.value;
  }
  return nullptr;
}

class HttpTransport::Loop {
 public:
  explicit Loop(const TransportOptions& options) : options_(options) {}

  absl::Status Init() {
    absl::call_once(curl_init_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    multi_ = curl_multi_init();
    if (multi_ == nullptr) return absl::InternalError("curl_multi_init failed");
    curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, options_.max_connections);
    thread_ = std::thread([this] { Run(); });
    return absl::OkStatus();
  }

  ~Loop() {
    if (multi_ == nullptr) return;
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    curl_multi_wakeup(multi_);
    thread_.join();
    curl_multi_cleanup(multi_);
  }

  void Submit(std::shared_ptr<CallState> call) {
    {
      absl::MutexLock lock(&mu_);
      incoming_.push_back(std::move(call));
    }
    curl_multi_wakeup(multi_);
  }

  void RequestUnpause(std::shared_ptr<CallState> call) {
    {
      absl::MutexLock lock(&mu_);
      unpause_.push_back(std::move(call));
    }
    curl_multi_wakeup(multi_);
  }

  void RequestAbort(std::shared_ptr<CallState> call) {
    {
      absl::MutexLock lock(&mu_);
      abort_.push_back(std::move(call));
    }
    curl_multi_wakeup(multi_);
  }

 private:
  void Run() {
    for (;;) {
      std::vector<std::shared_ptr<CallState>> incoming, unpause, abort;
      bool stopping;
      {
        absl::MutexLock lock(&mu_);
        incoming.swap(incoming_);
        unpause.swap(unpause_);
        abort.swap(abort_);
        stopping = stopping_;
      }
      for (auto& call : incoming) Setup(call);
      for (auto& call : abort) {
        if (active_.count(call->easy) > 0) Finish(call.get(), CURLE_ABORTED_BY_CALLBACK);
      }
      for (auto& call : unpause) {
        if (active_.count(call->easy) > 0) curl_easy_pause(call->easy, CURLPAUSE_CONT);
      }
      if (stopping) {
        while (!active_.empty()) Finish(active_.begin()->second.get(), CURLE_ABORTED_BY_CALLBACK);
        return;
      }
      int running = 0;
      curl_multi_perform(multi_, &running);
      int queued = 0;
      while (CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
        if (message->msg != CURLMSG_DONE) continue;
        auto it = active_.find(message->easy_handle);
        if (it != active_.end()) Finish(it->second.get(), message->data.result);
      }
      curl_multi_poll(multi_, nullptr, 0, 1000, nullptr);
    }
  }

  void Setup(std::shared_ptr<CallState>& call) {
    CURL* easy = curl_easy_init();
    if (easy == nullptr) {
      absl::MutexLock lock(&call->mu);
      call->outcome = absl::ResourceExhaustedError("curl_easy_init failed");
      call->done = call->released = true;
      call->changed.SignalAll();
      return;
    }
    call->easy = easy;
    const HttpRequest& request = call->request;
    curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(easy, CURLOPT_PRIVATE, call.get());
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(absl::ToInt64Milliseconds(options_.connect_timeout)));
    // Stall detection: under 1 byte/s for idle_timeout (paused streams excepted).
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                     std::max<long>(1, static_cast<long>(absl::ToInt64Seconds(options_.idle_timeout))));
    if (request.deadline != absl::InfiniteDuration()) {
      curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                       std::max<long>(1, static_cast<long>(absl::ToInt64Milliseconds(request.deadline))));
    }
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, kCurlBufferBytes);
    curl_easy_setopt(easy, CURLOPT_UPLOAD_BUFFERSIZE, kCurlBufferBytes);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffers_[easy].data());
    error_buffers_[easy][0] = '\0';
    if (!options_.ca_bundle.empty()) {
      curl_easy_setopt(easy, CURLOPT_CAINFO, options_.ca_bundle.c_str());
    }
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, call.get());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, call.get());

    if (request.method == "HEAD") {
      curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (request.method == "PUT" || (request.method == "POST")) {
      if (request.method == "PUT") {
        curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
      } else {
        curl_easy_setopt(easy, CURLOPT_POST, 1L);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
      }
      curl_easy_setopt(easy, CURLOPT_READFUNCTION, &OnUpload);
      curl_easy_setopt(easy, CURLOPT_READDATA, call.get());
      curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, &OnSeek);
      curl_easy_setopt(easy, CURLOPT_SEEKDATA, call.get());
    } else if (request.method != "GET") {
      curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }

    bool has_content_type = false;
    for (const HttpHeader& header : request.headers) {
      if (absl::EqualsIgnoreCase(header.name, "content-type")) has_content_type = true;
      call->header_list = curl_slist_append(
          call->header_list, absl::StrCat(header.name, ": ", header.value).c_str());
    }
    // No 100-continue round trip, no default POST content type, and no
    // Accept header that the signer did not see.
    call->header_list = curl_slist_append(call->header_list, "Expect:");
    call->header_list = curl_slist_append(call->header_list, "Accept:");
    if (!has_content_type) {
      call->header_list = curl_slist_append(call->header_list, "Content-Type:");
    }
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, call->header_list);

    if (call->mode == BodyMode::kStream) {
      call->ring_capacity = std::max<size_t>(options_.stream_buffer_bytes,
                                             2 * static_cast<size_t>(kCurlBufferBytes));
    }
    active_[easy] = call;
    curl_multi_add_handle(multi_, easy);
  }

  // Ends a call: releases libcurl's handle and publishes the outcome.
  void Finish(CallState* call, CURLcode code) {
    CURL* easy = call->easy;
    std::shared_ptr<CallState> keep = active_[easy];
    curl_multi_remove_handle(multi_, easy);
    absl::Status status =
        CurlStatus(code, error_buffers_[easy].data(), call->request.method, call->request.url);
    curl_easy_cleanup(easy);
    error_buffers_.erase(easy);
    curl_slist_free_all(call->header_list);
    call->header_list = nullptr;
    active_.erase(easy);
    absl::MutexLock lock(&call->mu);
    if (call->abort_requested) {
      status = absl::CancelledError("the exchange was aborted");
    } else if (!call->local_failure.ok()) {
      status = call->local_failure;
    } else if (status.ok() && !call->head_ready) {
      status = absl::UnavailableError("the server closed the exchange without a response");
    }
    call->outcome = status;
    call->done = true;
    call->released = true;
    call->easy = nullptr;
    call->changed.SignalAll();
  }

  const TransportOptions& options_;
  CURLM* multi_ = nullptr;
  std::thread thread_;
  absl::Mutex mu_;
  std::vector<std::shared_ptr<CallState>> incoming_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<CallState>> unpause_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<CallState>> abort_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // loop
  std::map<CURL*, std::shared_ptr<CallState>> active_;
  std::map<CURL*, std::array<char, CURL_ERROR_SIZE>> error_buffers_;
};

HttpTransport::HttpTransport(const TransportOptions& options) : options_(options) {}

absl::StatusOr<std::unique_ptr<HttpTransport>> HttpTransport::Create(
    const TransportOptions& options) {
  std::unique_ptr<HttpTransport> transport(new HttpTransport(options));
  transport->loop_ = std::make_unique<Loop>(transport->options_);
  if (absl::Status s = transport->loop_->Init(); !s.ok()) return s;
  return transport;
}

HttpTransport::~HttpTransport() = default;

std::unique_ptr<HttpCall> HttpTransport::Start(HttpRequest request, BodyMode mode) {
  auto state = std::make_shared<CallState>(std::move(request), mode, options_);
  loop_->Submit(state);
  return std::unique_ptr<HttpCall>(new HttpCall(this, std::move(state)));
}

HttpCall::~HttpCall() {
  Abort();
  absl::MutexLock lock(&state_->mu);
  while (!state_->released) state_->changed.Wait(&state_->mu);
}

void HttpCall::Abort() {
  {
    absl::MutexLock lock(&state_->mu);
    if (state_->done || state_->abort_requested) return;
    state_->abort_requested = true;
  }
  transport_->loop_->RequestAbort(state_);
}

absl::StatusOr<HttpResponseHead> HttpCall::AwaitHead() {
  absl::MutexLock lock(&state_->mu);
  while (!state_->head_ready && !state_->done) state_->changed.Wait(&state_->mu);
  if (state_->head_ready && !state_->abort_requested) return state_->head;
  if (!state_->outcome.ok()) return state_->outcome;
  return absl::CancelledError("the exchange was aborted");
}

absl::StatusOr<size_t> HttpCall::ReadBody(uint8_t* dst, size_t len) {
  if (state_->mode != BodyMode::kStream) {
    return absl::FailedPreconditionError("ReadBody needs a streamed call");
  }
  if (len == 0) return absl::InvalidArgumentError("read capacity must be positive");
  bool unpause = false;
  size_t n = 0;
  {
    absl::MutexLock lock(&state_->mu);
    if (state_->ring_size == 0 && !state_->done) {
      // Nothing buffered: let the loop write into `dst` while we wait.
      state_->reader_dst = dst;
      state_->reader_capacity = len;
      state_->reader_filled = 0;
      while (state_->reader_filled == 0 && state_->ring_size == 0 && !state_->done) {
        state_->changed.Wait(&state_->mu);
      }
      size_t direct = state_->reader_filled;
      state_->reader_dst = nullptr;
      state_->reader_capacity = 0;
      state_->reader_filled = 0;
      // Bytes in the ring (if any) came after these.
      if (direct > 0) return direct;
    }
    while (state_->ring_size == 0 && !state_->done) state_->changed.Wait(&state_->mu);
    if (state_->ring_size == 0) {
      if (state_->abort_requested) return absl::CancelledError("the exchange was aborted");
      if (!state_->outcome.ok()) return state_->outcome;
      return 0;
    }
    std::vector<uint8_t>& ring = state_->ring;
    n = std::min(len, state_->ring_size);
    size_t first = std::min(n, ring.size() - state_->ring_start);
    std::memcpy(dst, ring.data() + state_->ring_start, first);
    std::memcpy(dst + first, ring.data(), n - first);
    state_->ring_start = (state_->ring_start + n) % ring.size();
    state_->ring_size -= n;
    // Resume a paused transfer once a whole libcurl buffer fits again.
    if (state_->paused && !state_->done &&
        ring.size() - state_->ring_size >= static_cast<size_t>(kCurlBufferBytes)) {
      state_->paused = false;
      unpause = true;
    }
  }
  if (unpause) transport_->loop_->RequestUnpause(state_);
  return n;
}

absl::StatusOr<std::string> HttpCall::AwaitBody() {
  absl::MutexLock lock(&state_->mu);
  while (!state_->done) state_->changed.Wait(&state_->mu);
  if (!state_->outcome.ok()) return state_->outcome;
  return std::move(state_->collected);
}

absl::Status HttpCall::AwaitDone() {
  absl::MutexLock lock(&state_->mu);
  while (!state_->done) state_->changed.Wait(&state_->mu);
  return state_->outcome;
}

}  // namespace lake::s3http
