#include "tests/support/gc_fixture.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_reader.h"
#include "engine/gc/root_identity.h"
#include "engine/location_uri.h"
#include "engine/sql/prepared_statement.h"
#include "engine/stage_descriptor.h"
#include "tests/support/stage_fixture.h"

namespace lake::testing {
namespace {

io::FileSystem& DefaultFs() {
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  if (!fs.ok()) throw std::runtime_error(fs.status().ToString());
  return **fs;
}

void Check(const absl::Status& s) {
  if (!s.ok()) throw std::runtime_error(s.ToString());
}

}  // namespace

std::set<std::string> CollectableFiles(const std::string& root_dir) {
  std::set<std::string> files;
  for (const std::string& top : {root_dir + "/stage/objects", root_dir + "/tables"}) {
    for (const std::string& file : FilesUnder(top)) files.insert(top + "/" + file);
  }
  return files;
}

absl::Status CollectAtStep(GcTestRoot& root, std::string_view step,
                           const std::function<void()>& operation) {
  std::thread collection;
  absl::Status collected;
  failpoint::ClearAll();
  failpoint::Set(step, failpoint::Action::kCallback, [&] {
    collection = std::thread([&] {
      absl::StatusOr<gc::PlanSummary> plan = root.Plan();
      collected = plan.ok() ? gc::ApplyPlan(root.View(), plan->manifest.plan_id, {}).status()
                            : plan.status();
    });
    return absl::OkStatus();
  });
  operation();
  failpoint::ClearAll();
  collection.join();  // std::system_error when `step` was never reached
  return collected;
}

std::string PathOfFileUri(const std::string& uri) {
  absl::StatusOr<ParsedUri> parsed = ParseLocationUri(uri);
  if (!parsed.ok()) throw std::runtime_error(parsed.status().ToString());
  return parsed->path;
}

GcTestRoot::GcTestRoot(io::FileSystem* fs, const std::string& dir,
                       table::TableStoreOptions options)
    : fs_(fs != nullptr ? *fs : DefaultFs()), options_(options) {
  if (dir.empty()) {
    owned_dir_ = std::make_unique<TempDir>();
    root_dir_ = owned_dir_->path();
  } else {
    root_dir_ = dir;
  }
  Reopen();
}

GcTestRoot::~GcTestRoot() = default;

void GcTestRoot::Close() { tables_.reset(); }

void GcTestRoot::Reopen() {
  tables_.reset();
  absl::StatusOr<std::unique_ptr<TableRoot>> opened = TableRoot::Open(fs_, root_dir_, options_);
  Check(opened.status());
  tables_ = std::move(*opened);
  absl::StatusOr<std::string> id = gc::EnsureRootIdentity(fs_, root_dir_, tables_->stage->store());
  Check(id.status());
  root_id_ = *id;
}

gc::GcRoot GcTestRoot::View() {
  return gc::GcRoot{fs_, root_dir_, *tables_->stage, tables_->registry.get(),
                    StageDescriptorToJson(StageDescriptor{}), root_id_};
}

DataLocation GcTestRoot::Put(size_t n, uint64_t seed) {
  std::vector<uint8_t> bytes = RandomBytes(n, seed == 0 ? next_seed_++ : seed);
  MemorySource source(bytes);
  absl::StatusOr<DataLocation> location = tables_->stage->Upload(source, {});
  Check(location.status());
  return *location;
}

void GcTestRoot::CreateTable(const std::string& name) {
  table::Schema schema;
  schema.columns = {{"id", table::ColumnType::kUtf8}, {"f", table::ColumnType::kFile}};
  absl::StatusOr<table::TableName> parsed = table::ParseTableName(name);
  Check(parsed.status());
  Check(tables_->tables->CreateTable(*parsed, schema).status());
}

uint64_t GcTestRoot::InsertLocation(const std::string& table, const std::string& id,
                                    const DataLocation& location) {
  absl::StatusOr<table::AppendOutcome> outcome =
      tables_->Insert(absl::StrCat("INSERT INTO ", table, " (id, f) VALUES (?, ?)"),
                      {table::CellValue{id}, table::CellValue{location}});
  Check(outcome.status());
  return outcome->version;
}

void GcTestRoot::AgeEverything(absl::Duration age) {
  struct timespec times[2];
  absl::Time then = absl::Now() - age;
  times[0] = times[1] = absl::ToTimespec(then);
  for (const std::string& top : {root_dir_ + "/stage/objects", root_dir_ + "/stage/tenants",
                                 root_dir_ + "/tables"}) {
    if (!std::filesystem::exists(top)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(top)) {
      if (!entry.is_regular_file()) continue;
      ::utimensat(AT_FDCWD, entry.path().c_str(), times, 0);
    }
  }
}

bool GcTestRoot::Exists(const DataLocation& location) {
  return FileExists(location.uri);
}

bool GcTestRoot::FileExists(const std::string& uri) {
  return std::filesystem::exists(PathOfFileUri(uri));
}

gc::PlanOptions GcTestRoot::ShortCutoff() {
  gc::PlanOptions options;
  options.cutoff = absl::ZeroDuration();
  options.allow_short_cutoff = true;
  options.memory_budget = uint64_t{16} << 20;
  return options;
}

absl::StatusOr<gc::PlanSummary> GcTestRoot::Plan(gc::PlanOptions options) {
  return gc::WritePlan(View(), options);
}

std::vector<std::string> GcTestRoot::PlannedUris(const std::string& plan_id) {
  std::vector<std::string> uris;
  absl::StatusOr<gc::PlanManifest> manifest = gc::ReadPlanManifest(fs_, root_dir_, plan_id);
  Check(manifest.status());
  Check(gc::ForEachPlanPage(fs_, root_dir_, *manifest,
                            [&](const gc::PlanPage& page, const std::string&) {
                              for (const gc::Candidate& c : page.entries) uris.push_back(c.uri);
                              return absl::OkStatus();
                            }));
  return uris;
}

}  // namespace lake::testing
