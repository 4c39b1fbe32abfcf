#include "registry/writer_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "io/durable_paths.h"

namespace lake::registry {
namespace {

// An owner answers a request in milliseconds; a peer that sends nothing
// for this long is dropped so the server never hangs on it.
constexpr int kRequestReadTimeoutMs = 10'000;

absl::Status Errno(std::string_view what, const std::string& path) {
  int e = errno;
  return absl::ErrnoToStatus(e, absl::StrCat(std::string(what), " ", path));
}

// A socket address for `path`; a path too long for sun_path goes through
// the /proc/self/fd entry of its directory, opened into `*dir_fd`.
absl::StatusOr<sockaddr_un> AddressOf(const std::string& path, int* dir_fd) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::string name = path;
  if (name.size() >= sizeof(address.sun_path)) {
    *dir_fd = ::open(io::ParentPath(path).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (*dir_fd < 0) return Errno("open the directory of", path);
    name = absl::StrCat("/proc/self/fd/", *dir_fd, "/", path.substr(path.rfind('/') + 1));
    if (name.size() >= sizeof(address.sun_path)) {
      return absl::InvalidArgumentError(absl::StrCat("socket name too long: ", path));
    }
  }
  std::memcpy(address.sun_path, name.c_str(), name.size() + 1);
  return address;
}

struct FdCloser {
  int fd = -1;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// Writes all of `bytes`; false on any failure.
bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads exactly `n` bytes, waiting at most `timeout_ms` for each piece
// (-1: no bound); false on end of stream, error or timeout.
bool ReadExactly(int fd, char* out, size_t n, int timeout_ms) {
  while (n > 0) {
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    ssize_t got = ::recv(fd, out, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

// One send for the length and the message: the peer wakes once.
bool SendFrame(int fd, const std::string& message) {
  std::string frame(4, '\0');
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((message.size() >> (8 * i)) & 0xff);
  frame += message;
  return WriteAll(fd, frame);
}

// One frame's message; nullopt when the stream ended, failed, timed out or
// announced more than the bound.
std::optional<std::string> ReceiveFrame(int fd, int timeout_ms) {
  unsigned char length[4];
  if (!ReadExactly(fd, reinterpret_cast<char*>(length), 4, timeout_ms)) return std::nullopt;
  size_t n = 0;
  for (int i = 0; i < 4; ++i) n |= size_t{length[i]} << (8 * i);
  if (n > kMaxForwardedMessageBytes) return std::nullopt;
  std::string message(n, '\0');
  if (!ReadExactly(fd, message.data(), n, timeout_ms)) return std::nullopt;
  return message;
}

}  // namespace

absl::StatusOr<std::unique_ptr<WriterChannelServer>> WriterChannelServer::Start(
    std::string socket_path, Handler handler) {
  FdCloser dir;
  absl::StatusOr<sockaddr_un> address = AddressOf(socket_path, &dir.fd);
  if (!address.ok()) return address.status();
  FdCloser listener{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  if (listener.fd < 0) return Errno("create a socket for", socket_path);
  // A socket file left by an owner that died: nobody listens on it.
  if (::unlink(address->sun_path) != 0 && errno != ENOENT) {
    return Errno("remove the stale socket", socket_path);
  }
  if (::bind(listener.fd, reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) != 0) {
    return Errno("bind", socket_path);
  }
  if (::listen(listener.fd, 64) != 0) return Errno("listen on", socket_path);
  int wake = ::eventfd(0, EFD_CLOEXEC);
  if (wake < 0) return Errno("create the wake-up eventfd of", socket_path);
  auto server = std::unique_ptr<WriterChannelServer>(
      new WriterChannelServer(std::move(socket_path), std::move(handler), listener.fd, wake));
  listener.fd = -1;
  server->thread_ = std::thread([s = server.get()] { s->Serve(); });
  return server;
}

WriterChannelServer::WriterChannelServer(std::string socket_path, Handler handler,
                                         int listen_fd, int wake_fd)
    : socket_path_(std::move(socket_path)),
      handler_(std::move(handler)),
      listen_fd_(listen_fd),
      wake_fd_(wake_fd) {}

WriterChannelServer::~WriterChannelServer() {
  uint64_t one = 1;
  ssize_t ignored = ::write(wake_fd_, &one, sizeof(one));
  (void)ignored;
  if (thread_.joinable()) thread_.join();
  // Removed before the listener closes: a writer then finds no socket, not
  // one that refuses.
  FdCloser dir;
  absl::StatusOr<sockaddr_un> address = AddressOf(socket_path_, &dir.fd);
  if (address.ok()) ::unlink(address->sun_path);
  ::close(listen_fd_);
  ::close(wake_fd_);
}

void WriterChannelServer::Serve() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    int ready = ::poll(fds, 2, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (fds[1].revents & POLLIN) != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    int connection = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    ServeOne(connection);
    ::close(connection);
  }
}

void WriterChannelServer::ServeOne(int connection) {
  std::optional<std::string> request = ReceiveFrame(connection, kRequestReadTimeoutMs);
  if (!request) return;
  ForwardedReply reply;
  absl::StatusOr<ForwardedWrite> write = DecodeForwardedWrite(*request);
  if (write.ok()) {
    reply = handler_(*write);
  } else {
    reply.status = write.status();
  }
  SendFrame(connection, EncodeForwardedReply(reply));
}

absl::StatusOr<ForwardedReply> ForwardToOwner(const std::string& socket_path,
                                              const ForwardedWrite& write) {
  FdCloser dir;
  absl::StatusOr<sockaddr_un> address = AddressOf(socket_path, &dir.fd);
  if (!address.ok()) return address.status();
  FdCloser connection{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  if (connection.fd < 0) return Errno("create a socket for", socket_path);
  if (::connect(connection.fd, reinterpret_cast<const sockaddr*>(&*address),
                sizeof(*address)) != 0) {
    if (errno == ENOENT || errno == ECONNREFUSED) {
      return absl::UnavailableError(
          absl::StrCat("no process owns the registry: nothing listens at ", socket_path));
    }
    return Errno("connect to", socket_path);
  }
  if (!SendFrame(connection.fd, EncodeForwardedWrite(write))) {
    return absl::UnknownError(absl::StrCat("the registry's owner at ", socket_path,
                                           " closed the connection during a request"));
  }
  std::optional<std::string> reply = ReceiveFrame(connection.fd, -1);
  if (!reply) {
    return absl::UnknownError(absl::StrCat("the registry's owner at ", socket_path,
                                           " closed the connection before replying"));
  }
  return DecodeForwardedReply(*reply);
}

}  // namespace lake::registry
