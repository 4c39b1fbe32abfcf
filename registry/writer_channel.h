// The channel through which a root's writer processes reach the one that
// owns its registry (registry.h): a Unix stream socket at
// <root>/writer.sock, one forwarded write per connection (the records of
// writer_channel_format.h, one frame each way).
//
// The owner runs a WriterChannelServer: one thread accepts a connection,
// reads one request, runs it through its handler (the owner's own
// Registry), writes the reply and closes. Requests need no concurrency:
// a writer forwards only while it holds the root's commit turn
// (commit_lock.h). Everything a request carries is decoded by the
// fail-closed decoder before it is run.
//
// Paths longer than a socket address allows are reached through the
// directory's /proc/self/fd entry (Linux).
#ifndef LAKE_REGISTRY_WRITER_CHANNEL_H_
#define LAKE_REGISTRY_WRITER_CHANNEL_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "registry/writer_channel_format.h"

namespace lake::registry {

// The socket's name, in the directory of the writer lock.
inline constexpr std::string_view kWriterSocketName = "writer.sock";

class WriterChannelServer {
 public:
  using Handler = std::function<ForwardedReply(const ForwardedWrite&)>;

  // Binds `socket_path` (replacing a socket file a crashed owner left: the
  // caller holds the writer lock, so no live owner listens there) and
  // starts serving.
  static absl::StatusOr<std::unique_ptr<WriterChannelServer>> Start(std::string socket_path,
                                                                    Handler handler);
  // Stops accepting, finishes the request in hand, removes the socket file.
  ~WriterChannelServer();
  WriterChannelServer(const WriterChannelServer&) = delete;
  WriterChannelServer& operator=(const WriterChannelServer&) = delete;

 private:
  WriterChannelServer(std::string socket_path, Handler handler, int listen_fd, int wake_fd);
  void Serve();
  void ServeOne(int connection);

  const std::string socket_path_;
  const Handler handler_;
  const int listen_fd_;
  const int wake_fd_;  // an eventfd: written once to stop Serve
  std::thread thread_;
};

// Sends `write` to the owner listening at `socket_path` and waits for its
// reply. Unavailable when no process listens there (nothing was sent).
// Once the request may have been read, a lost connection is Unknown: the
// owner may have run it or not.
absl::StatusOr<ForwardedReply> ForwardToOwner(const std::string& socket_path,
                                              const ForwardedWrite& write);

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_WRITER_CHANNEL_H_
