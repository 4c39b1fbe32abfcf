// A push-style ObjectWriter for stores whose uploads pull from a source
// (S3, host stores): Write() hands the bytes through a bounded pipe to the
// store's upload, which runs on a thread of its own. Memory: the pipe
// (kPushPipeBytes) plus whatever the store's upload holds.
//
// Commit() ends the stream and waits for the upload's result. Destroying a
// writer that was not committed ends the stream with an error, so the
// upload fails (and cleans up) instead of publishing a truncated object.
#ifndef LAKE_ENGINE_PUSH_UPLOAD_BRIDGE_H_
#define LAKE_ENGINE_PUSH_UPLOAD_BRIDGE_H_

#include <functional>
#include <memory>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "engine/managed_object_store.h"

namespace lake {

inline constexpr size_t kPushPipeBytes = 1 << 20;

class PushUploadBridge final : public ObjectWriter, private UploadSource {
 public:
  using PullUpload = std::function<absl::StatusOr<StoredObject>(UploadSource&)>;

  explicit PushUploadBridge(PullUpload upload);
  ~PushUploadBridge() override;

  absl::Status Write(const uint8_t* data, size_t len) override;
  absl::StatusOr<StoredObject> Commit() override;

 private:
  // UploadSource, read by the upload's thread.
  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  void Finish(absl::Status end);

  absl::Mutex mu_;
  std::vector<uint8_t> pipe_ ABSL_GUARDED_BY(mu_);
  size_t pipe_start_ ABSL_GUARDED_BY(mu_) = 0;
  size_t pipe_size_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;      // no more writes
  absl::Status end_status_ ABSL_GUARDED_BY(mu_);  // error seen by the reader
  bool upload_done_ ABSL_GUARDED_BY(mu_) = false;
  absl::StatusOr<StoredObject> result_ ABSL_GUARDED_BY(mu_);
  bool committed_ = false;
  std::thread thread_;
};

}  // namespace lake

#endif  // LAKE_ENGINE_PUSH_UPLOAD_BRIDGE_H_
