// lake cat LOCATION [--range START..END] [-o OUT] [--tenant T]
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/progress_bar.h"
#include "cli/range_text.h"

namespace lake::cli {
namespace {

constexpr char kUsage[] =
    "usage: lake [global options] cat LOCATION [--range START..END] [-o OUT] [--tenant T]\n"
    "\n"
    "Writes the object's bytes to stdout (or OUT). LOCATION is the DataLocation\n"
    "JSON text, or @PATH of a file holding it. A full read is verified: the\n"
    "command exits 3 naming the integrity failure (SizeShort, SizeLong,\n"
    "DigestMismatch) if the object is not exactly what the location names.\n"
    "With -o, OUT appears only once every byte is verified.\n"
    "\n"
    "  --range START..END  only bytes [START, END) (END omitted: to the end);\n"
    "                      exits 3 with PrematureEof if the object is cut short.\n"
    "                      A range read does not verify the object's SHA-256.\n"
    "  -o, --output OUT    write to OUT instead of stdout\n"
    "  --tenant T          refuse locations outside tenant T\n";

constexpr size_t kMaxWriteBytes = 1 << 20;

bool WriteAll(int fd, const uint8_t* data, size_t len) {
  while (len > 0) {
    ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

// The output: stdout, or a temporary beside OUT renamed over it at the end,
// so OUT never holds unverified bytes.
class Output {
 public:
  explicit Output(std::optional<std::string> path) : path_(std::move(path)) {}
  ~Output() {
    if (fd_ > STDOUT_FILENO) ::close(fd_);
    if (!temp_.empty()) ::unlink(temp_.c_str());
  }
  bool Open() {
    if (!path_) return true;
    temp_ = *path_ + ".lake-partial-" + std::to_string(::getpid());
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) temp_.clear();
    return fd_ >= 0;
  }
  int fd() const { return fd_; }
  bool Finish() {
    if (!path_) return true;
    bool ok = ::close(fd_) == 0 && ::rename(temp_.c_str(), path_->c_str()) == 0;
    fd_ = -1;
    if (ok) temp_.clear();
    return ok;
  }
  std::string name() const { return path_.value_or("stdout"); }

 private:
  std::optional<std::string> path_;
  std::string temp_;
  int fd_ = STDOUT_FILENO;
};

}  // namespace

int RunCat(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--range", "", true});
  flags.push_back({"--output", "-o", true});
  flags.push_back({"--tenant", "", true});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "cat");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) {
    return ReportUsage("cat needs exactly one LOCATION", "cat");
  }
  std::optional<RangeText> range;
  if (std::optional<std::string> text = args->Value("--range")) {
    absl::StatusOr<RangeText> parsed = ParseRangeText(*text);
    if (!parsed.ok()) return ReportUsage(parsed.status(), "cat");
    range = *parsed;
  }
  lake_location* location = nullptr;
  if (int code = LoadLocation(args->positionals[0], &location); code != kExitOk) {
    return code;
  }
  std::unique_ptr<lake_location, void (*)(lake_location*)> location_owner(
      location, lake_location_free);
  lake_db* db = nullptr;
  if (int code = OpenRoot(GlobalOptionsFrom(*args), args->Value("--tenant"), &db);
      code != kExitOk) {
    return code;
  }
  std::unique_ptr<lake_db, void (*)(lake_db*)> db_owner(db, lake_db_free);
  lake_stage* stage = lake_db_stage(db);

  uint64_t total = lake_location_size_bytes(location);
  lake_reader* reader = nullptr;
  lake_error* err = nullptr;
  lake_status status;
  if (range) {
    uint64_t end = range->end.value_or(total);
    status = lake_reader_open_range(stage, location, range->start, end, &reader, &err);
    total = end > range->start ? end - range->start : 0;
  } else {
    status = lake_reader_open(stage, location, &reader, &err);
  }
  if (status != LAKE_OK) return ReportFailure(status, err, "cat");
  std::unique_ptr<lake_reader, void (*)(lake_reader*)> reader_owner(reader, lake_reader_free);

  Output output(args->Value("--output"));
  if (!output.Open()) {
    std::fprintf(stderr, "lake: cannot create %s: %s\n", output.name().c_str(),
                 std::strerror(errno));
    return kExitStorage;
  }
  ProgressBar bar("cat");
  uint64_t done = 0;
  for (;;) {
    // Views of lake's read-ahead buffers: no copy between lake and write().
    const void* data = nullptr;
    size_t n = 0;
    status = lake_reader_read_view(reader, &data, kMaxWriteBytes, &n, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "cat");
    if (n == 0) break;
    if (!WriteAll(output.fd(), static_cast<const uint8_t*>(data), n)) {
      std::fprintf(stderr, "lake: writing %s: %s\n", output.name().c_str(),
                   std::strerror(errno));
      return kExitStorage;
    }
    done += n;
    bar.Update(done, total);
  }
  status = lake_reader_close(reader, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "cat");
  if (!output.Finish()) {
    std::fprintf(stderr, "lake: finishing %s: %s\n", output.name().c_str(),
                 std::strerror(errno));
    return kExitStorage;
  }
  return kExitOk;
}

}  // namespace lake::cli
