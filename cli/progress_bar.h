// A one-line progress bar on stderr, drawn only when stderr is a terminal
// (CLI.md) and at most ten times a second.
#ifndef LAKE_CLI_PROGRESS_BAR_H_
#define LAKE_CLI_PROGRESS_BAR_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace lake::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // clears the line

  bool enabled() const { return enabled_; }
  void Update(uint64_t done, uint64_t total);

  // A lake_progress_fn whose ctx is a ProgressBar*.
  static void Callback(void* ctx, uint64_t done, uint64_t total);

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace lake::cli

#endif  // LAKE_CLI_PROGRESS_BAR_H_
