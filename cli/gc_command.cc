// lake gc plan | show | status | apply | verify (CLI.md, "Garbage collection").
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"

namespace lake::cli {
namespace {

using nlohmann::json;

constexpr char kUsage[] =
    "usage: lake [global options] gc SUBCOMMAND\n"
    "\n"
    "Garbage collection of the root's stage (every tenant) and table directories:\n"
    "first a plan, which deletes nothing, then apply.\n"
    "\n"
    "  plan [--cutoff DURATION] [--allow-short-cutoff] [--memory-budget BYTES]\n"
    "       [--temp-dir DIR] [--json]\n"
    "      write a plan of what nothing references — no table version, event log,\n"
    "      pending append, lease or pin — and was modified more than the cutoff\n"
    "      ago (default 7d; 24h or more unless --allow-short-cutoff: a shorter\n"
    "      one may take an upload whose INSERT has not committed). Prints the\n"
    "      plan id, totals and totals per tenant. DURATION: 7d, 36h, 90m, 1h30m.\n"
    "      Its sorts hold --memory-budget (default 64 MiB) and spill the rest to\n"
    "      <root>/gc/tmp, or to DIR/lake-gc-spill with --temp-dir; what a killed\n"
    "      plan left there, the next one removes.\n"
    "  show PLAN [--json]\n"
    "      every candidate of the plan: URI, size, kind (object or table_file),\n"
    "      tenant; the whole plan, verified as apply reads it\n"
    "  status [PLAN] [--json]\n"
    "      the kept plans (the newest five) and how far each was applied:\n"
    "      planned, applying, done or voided\n"
    "  apply PLAN [--max-deletes-per-second N] [--json]\n"
    "      delete the plan's candidates, page by page. Exits 4, deleting nothing\n"
    "      more, when the root changed since the plan (make a new one); exits 3,\n"
    "      deleting nothing, when the plan is damaged. After a crash or failure,\n"
    "      run it again: it resumes.\n"
    "  verify [--deep] [--json]\n"
    "      check that every object a table, event log or pending append refers\n"
    "      to exists with its size (--deep: read it whole and check its SHA-256),\n"
    "      and every table file a version names; prints each problem with what\n"
    "      refers to it; exits 3 when there is any\n";

// A one-line phase counter on stderr, only when stderr is a terminal.
class GcProgress {
 public:
  GcProgress() : enabled_(::isatty(STDERR_FILENO) == 1) {}
  ~GcProgress() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
  }
  static void Callback(void* ctx, const char* phase, uint64_t done, uint64_t total) {
    static_cast<GcProgress*>(ctx)->Update(phase, done, total);
  }
  bool enabled() const { return enabled_; }

 private:
  void Update(const char* phase, uint64_t done, uint64_t total) {
    auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done != total) return;
    last_ = now;
    drawn_ = true;
    if (total == 0) {
      std::fprintf(stderr, "\r\033[K%s %" PRIu64, phase, done);
    } else {
      std::fprintf(stderr, "\r\033[K%s %" PRIu64 "/%" PRIu64, phase, done, total);
    }
  }
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

using DbOwner = std::unique_ptr<lake_db, decltype(&lake_db_free)>;
using OptionsOwner = std::unique_ptr<lake_gc_options, decltype(&lake_gc_options_free)>;

int Finish() { return std::fflush(stdout) == 0 ? kExitOk : kExitStorage; }

void PrintStatusLine(const json& s) {
  std::printf("%s\t%s\t%" PRIu64 "/%" PRIu64 " pages\t%" PRIu64 " objects\t%" PRIu64
              " bytes\t%" PRIu64 " table files\t%s",
              s["plan_id"].get<std::string>().c_str(), s["state"].get<std::string>().c_str(),
              s["pages_done"].get<uint64_t>(), s["pages"].get<uint64_t>(),
              s["objects"].get<uint64_t>(), s["bytes"].get<uint64_t>(),
              s["table_files"].get<uint64_t>(), s["created_at"].get<std::string>().c_str());
  if (!s["reason"].get<std::string>().empty()) {
    std::printf("\t%s", s["reason"].get<std::string>().c_str());
  }
  std::printf("\n");
}

int RunPlan(lake_db* db, const ParsedArgs& args) {
  OptionsOwner opts(lake_gc_options_new(), lake_gc_options_free);
  lake_error* err = nullptr;
  if (std::optional<std::string> cutoff = args.Value("--cutoff")) {
    uint64_t seconds = 0;
    if (!ParseDurationSeconds(*cutoff, &seconds)) {
      return ReportUsage("--cutoff takes a duration such as 7d, 36h, 90m or 1h30m, not " +
                             *cutoff,
                         "gc");
    }
    lake_gc_options_set_cutoff_seconds(opts.get(), seconds);
  }
  lake_gc_options_set_allow_short_cutoff(opts.get(), args.Has("--allow-short-cutoff") ? 1 : 0);
  if (std::optional<std::string> budget = args.Value("--memory-budget")) {
    uint64_t bytes = 0;
    if (!absl::SimpleAtoi(*budget, &bytes)) {
      return ReportUsage("--memory-budget takes a number of bytes", "gc");
    }
    if (lake_gc_options_set_memory_budget(opts.get(), bytes, &err) != LAKE_OK) {
      return ReportFailure(LAKE_INVALID_ARGUMENT, err, "gc plan");
    }
  }
  if (std::optional<std::string> temp = args.Value("--temp-dir")) {
    if (lake_status s = lake_gc_options_set_temp_dir(opts.get(), temp->c_str(), &err);
        s != LAKE_OK) {
      return ReportFailure(s, err, "gc plan");
    }
  }
  GcProgress progress;
  if (progress.enabled()) lake_gc_options_set_progress(opts.get(), &GcProgress::Callback, &progress);
  char* text = nullptr;
  lake_status status = lake_gc_plan(db, opts.get(), &text, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "gc plan");
  json plan = json::parse(text);
  lake_string_free(text);
  if (args.Has("--json")) {
    std::printf("%s\n", plan.dump().c_str());
    return Finish();
  }
  std::printf("plan\t%s\n", plan["plan_id"].get<std::string>().c_str());
  std::printf("objects\t%" PRIu64 "\t%" PRIu64 " bytes\n", plan["objects"].get<uint64_t>(),
              plan["bytes"].get<uint64_t>());
  std::printf("table_files\t%" PRIu64 "\t%" PRIu64 " bytes\n",
              plan["table_files"].get<uint64_t>(), plan["table_file_bytes"].get<uint64_t>());
  std::printf("pages\t%" PRIu64 "\n", plan["pages"].get<uint64_t>());
  for (const json& t : plan["tenants"]) {
    std::string name = t["tenant"].get<std::string>();
    std::printf("tenant\t%s\t%" PRIu64 "\t%" PRIu64 " bytes\n", name.empty() ? "-" : name.c_str(),
                t["objects"].get<uint64_t>(), t["bytes"].get<uint64_t>());
  }
  std::fprintf(stderr, "nothing was deleted; to delete: lake gc apply %s\n",
               plan["plan_id"].get<std::string>().c_str());
  return Finish();
}

struct ShowState {
  bool json;
};

int PrintCandidate(void* ctx, const lake_gc_candidate* c) {
  if (static_cast<ShowState*>(ctx)->json) {
    std::printf("%s\n", json{{"uri", c->uri},
                             {"kind", c->kind},
                             {"size_bytes", c->size_bytes},
                             {"modified_unix_micros", c->modified_unix_micros},
                             {"tenant", c->tenant}}
                            .dump()
                            .c_str());
  } else {
    std::printf("%s\t%" PRIu64 "\t%s\t%s\n", c->uri, c->size_bytes, c->kind,
                c->tenant[0] == '\0' ? "-" : c->tenant);
  }
  return 0;
}

int RunShow(lake_db* db, const ParsedArgs& args) {
  if (args.positionals.size() != 2) return ReportUsage("gc show needs a PLAN id", "gc");
  ShowState state{args.Has("--json")};
  lake_error* err = nullptr;
  lake_status status = lake_gc_show(db, args.positionals[1].c_str(), &PrintCandidate, &state,
                                    nullptr, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "gc show");
  return Finish();
}

int RunStatus(lake_db* db, const ParsedArgs& args) {
  if (args.positionals.size() > 2) return ReportUsage("gc status takes at most a PLAN id", "gc");
  const char* plan = args.positionals.size() == 2 ? args.positionals[1].c_str() : nullptr;
  char* text = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_gc_status(db, plan, &text, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "gc status");
  json statuses = json::parse(text);
  lake_string_free(text);
  for (const json& s : statuses) {
    if (args.Has("--json")) {
      std::printf("%s\n", s.dump().c_str());
    } else {
      PrintStatusLine(s);
    }
  }
  if (statuses.empty() && !args.Has("--json")) std::fprintf(stderr, "no plans\n");
  return Finish();
}

int RunApply(lake_db* db, const ParsedArgs& args) {
  if (args.positionals.size() != 2) return ReportUsage("gc apply needs a PLAN id", "gc");
  OptionsOwner opts(lake_gc_options_new(), lake_gc_options_free);
  if (std::optional<std::string> rate = args.Value("--max-deletes-per-second")) {
    uint64_t per_second = 0;
    if (!absl::SimpleAtoi(*rate, &per_second) || per_second == 0) {
      return ReportUsage("--max-deletes-per-second takes a positive number", "gc");
    }
    lake_gc_options_set_max_deletes_per_second(opts.get(), per_second);
  }
  GcProgress progress;
  if (progress.enabled()) lake_gc_options_set_progress(opts.get(), &GcProgress::Callback, &progress);
  char* text = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_gc_apply(db, args.positionals[1].c_str(), opts.get(), &text, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "gc apply");
  json done = json::parse(text);
  lake_string_free(text);
  if (args.Has("--json")) {
    std::printf("%s\n", done.dump().c_str());
  } else {
    PrintStatusLine(done);
  }
  return Finish();
}

struct VerifyState {
  bool json;
};

int PrintProblem(void* ctx, const lake_gc_problem* p) {
  json referrers = json::array();
  for (size_t i = 0; i < p->referrer_count; ++i) referrers.push_back(p->referrers[i]);
  if (static_cast<VerifyState*>(ctx)->json) {
    std::printf("%s\n", json{{"uri", p->uri},
                             {"problem", p->problem},
                             {"expected_size", p->expected_size},
                             {"observed_size", p->observed_size},
                             {"message", p->message},
                             {"referrers", referrers},
                             {"more_referrers", p->more_referrers}}
                            .dump()
                            .c_str());
    return 0;
  }
  std::printf("%s\t%s\t", p->problem, p->uri);
  for (size_t i = 0; i < p->referrer_count; ++i) {
    std::printf("%s%s", i == 0 ? "" : "; ", p->referrers[i]);
  }
  if (p->more_referrers > 0) std::printf("; and %" PRIu64 " more", p->more_referrers);
  std::printf("\n");
  return 0;
}

int RunVerify(lake_db* db, const ParsedArgs& args) {
  if (args.positionals.size() != 1) return ReportUsage("gc verify takes no argument", "gc");
  OptionsOwner opts(lake_gc_options_new(), lake_gc_options_free);
  GcProgress progress;
  if (progress.enabled()) lake_gc_options_set_progress(opts.get(), &GcProgress::Callback, &progress);
  VerifyState state{args.Has("--json")};
  char* text = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_gc_verify(db, args.Has("--deep") ? 1 : 0, opts.get(), &PrintProblem,
                                      &state, &text, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "gc verify");
  json summary = json::parse(text);
  lake_string_free(text);
  std::fprintf(stderr, "checked %" PRIu64 " objects and %" PRIu64 " table files: %" PRIu64
               " problem(s)\n",
               summary["objects_checked"].get<uint64_t>(),
               summary["table_files_checked"].get<uint64_t>(), summary["problems"].get<uint64_t>());
  if (std::fflush(stdout) != 0) return kExitStorage;
  return summary["problems"].get<uint64_t>() > 0 ? kExitIntegrity : kExitOk;
}

}  // namespace

int RunGc(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  for (const char* name : {"--cutoff", "--memory-budget", "--temp-dir",
                           "--max-deletes-per-second"}) {
    flags.push_back({name, "", true});
  }
  for (const char* name : {"--allow-short-cutoff", "--json", "--deep"}) {
    flags.push_back({name, "", false});
  }
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "gc");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.empty()) {
    return ReportUsage("gc needs a subcommand: plan, show, status, apply or verify", "gc");
  }
  const std::string& sub = args->positionals[0];
  bool plan_flags = args->Value("--cutoff") || args->Has("--allow-short-cutoff") ||
                    args->Value("--memory-budget") || args->Value("--temp-dir");
  if (plan_flags && sub != "plan") {
    return ReportUsage("--cutoff, --allow-short-cutoff, --memory-budget and --temp-dir are "
                       "flags of gc plan",
                       "gc");
  }
  if (args->Value("--max-deletes-per-second") && sub != "apply") {
    return ReportUsage("--max-deletes-per-second is a flag of gc apply", "gc");
  }
  if (args->Has("--deep") && sub != "verify") {
    return ReportUsage("--deep is a flag of gc verify", "gc");
  }
  if (sub != "plan" && sub != "show" && sub != "status" && sub != "apply" && sub != "verify") {
    return ReportUsage("unknown gc subcommand " + sub, "gc");
  }
  if (sub == "plan" && args->positionals.size() != 1) {
    return ReportUsage("gc plan takes no argument", "gc");
  }
  lake_db* opened = nullptr;
  if (int code = OpenRoot(GlobalOptionsFrom(*args), std::nullopt, &opened); code != kExitOk) {
    return code;
  }
  DbOwner db(opened, lake_db_free);
  if (sub == "plan") return RunPlan(db.get(), *args);
  if (sub == "show") return RunShow(db.get(), *args);
  if (sub == "status") return RunStatus(db.get(), *args);
  if (sub == "apply") return RunApply(db.get(), *args);
  return RunVerify(db.get(), *args);
}

}  // namespace lake::cli
