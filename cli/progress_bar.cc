#include "cli/progress_bar.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>

namespace lake::cli {
namespace {

constexpr int kBarWidth = 30;

}  // namespace

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), enabled_(::isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void ProgressBar::Update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100) &&
      !(total > 0 && done >= total)) {
    return;
  }
  last_draw_ = now;
  drawn_ = true;
  double mib = static_cast<double>(done) / (1 << 20);
  if (total == 0) {
    std::fprintf(stderr, "\r\033[K%s %.1f MiB", label_.c_str(), mib);
    return;
  }
  int filled = static_cast<int>(kBarWidth * static_cast<double>(done) / static_cast<double>(total));
  if (filled > kBarWidth) filled = kBarWidth;
  std::fprintf(stderr, "\r\033[K%s [%.*s%*s] %3d%% %.1f MiB", label_.c_str(),
               filled, "##############################", kBarWidth - filled, "",
               static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)),
               mib);
}

void ProgressBar::Callback(void* ctx, uint64_t done, uint64_t total) {
  static_cast<ProgressBar*>(ctx)->Update(done, total);
}

}  // namespace lake::cli
