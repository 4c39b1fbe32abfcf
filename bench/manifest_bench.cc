// The metadata a table's versions write (issue 22 item 7): N single-row
// appends to one table through the engine (linked statically from
// lake_core), then the disk its manifests use, beside what full-list
// manifests (format 2, each listing every fragment so far) would have
// written for the same versions.
//
//   manifest_bench DIR APPENDS
//
// Prints, one "key=value" line per figure: the appends and their rate;
// manifest_files, manifest_bytes (the versions' own manifests' sizes) and
// manifest_disk_bytes (what they take: a table log record's bytes, header
// included, or a file's allocated blocks under _versions/, as du counts)
// and the largest manifest; the same of the whole table directory (table_dir_*:
// manifests, fragments, reference deltas) and of its table log's segments
// (table_log_*; table_log_files is the segment count); full_list_bytes: the sum over every version of the size of its manifest
// as a format 2 full list (the same header and entries, computed exactly
// from each version's resolved list; not written); the current version's
// chain (the files a read opens) and the time a fresh reader takes to
// resolve it.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_status.h"
#include "engine/data_location.h"
#include "engine/local/local_object_store.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"
#include "engine/sha256.h"
#include "engine/stage_descriptor.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/manifest_format.h"
#include "engine/table/table_log_format.h"
#include "engine/table/table_store.h"
#include "registry/registry.h"

namespace {

using lake::bench::Clock;
using lake::bench::Die;
using lake::bench::Must;
using lake::bench::Seconds;

lake::io::FileSystem& Fs() { return *Must(lake::io::DefaultFileSystem(), "file system"); }

// What format 2 would have written for `m`: its header and every entry.
// The regular files under `dir` (recursively): how many, their sizes, and
// the blocks they take on disk (as du counts), the largest file's size.
struct DiskUse {
  uint64_t files = 0, bytes = 0, disk = 0, largest = 0;
};

DiskUse DiskUseUnder(const std::string& dir) {
  DiskUse use;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    struct stat st;
    if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    ++use.files;
    use.bytes += static_cast<uint64_t>(st.st_size);
    use.disk += static_cast<uint64_t>(st.st_blocks) * 512;
    use.largest = std::max(use.largest, static_cast<uint64_t>(st.st_size));
  }
  return use;
}

void PrintDiskUse(const char* prefix, const DiskUse& use) {
  std::printf("%s_files=%llu\n", prefix, static_cast<unsigned long long>(use.files));
  std::printf("%s_bytes=%llu\n", prefix, static_cast<unsigned long long>(use.bytes));
  std::printf("%s_disk_bytes=%llu\n", prefix, static_cast<unsigned long long>(use.disk));
  std::printf("%s_largest_file_bytes=%llu\n", prefix, static_cast<unsigned long long>(use.largest));
}

uint64_t FullListBytes(const lake::table::ResolvedManifest& resolved) {
  lake::table::Manifest header = resolved.manifest;
  header.fragments.clear();
  header.total_rows = 0;
  header.format_version = lake::table::kManifestFormatVersionV2;
  return Must(lake::table::EncodeManifest(header), "encode header").size() +
         resolved.entries_bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: manifest_bench DIR APPENDS\n");
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t appends = std::strtoull(argv[2], nullptr, 10);
  lake::ManagedStage stage(Must(lake::LocalObjectStore::Open(Fs(), dir + "/stage", ""), "stage"));
  std::unique_ptr<lake::registry::Registry> registry =
      Must(lake::registry::Registry::Open(dir + "/registry", dir + "/writer.lock"), "registry");
  std::unique_ptr<lake::table::TableStore> tables =
      Must(lake::table::TableStore::Open(Fs(), dir, *registry, stage,
                                         lake::StageDescriptorToJson(lake::StageDescriptor{})),
           "table store");
  lake::table::Schema schema;
  schema.columns = {{"name", lake::table::ColumnType::kUtf8},
                    {"n", lake::table::ColumnType::kInt64},
                    {"video", lake::table::ColumnType::kFile}};
  const lake::table::TableName name = *lake::table::ParseTableName("bench.rows");
  Must(tables->CreateTable(name, schema).status(), "create table");
  lake::DataLocation location;
  location.uri = lake::FormatFileUri(
      static_cast<lake::LocalObjectStore&>(stage.store()).paths().root() + "/" +
      lake::NewManagedObjectKey(""));
  location.content_type = "application/octet-stream";
  location.size_bytes = 0;
  location.sha256 = lake::Sha256Hex("");

  auto began = Clock::now();
  for (uint64_t i = 0; i < appends; ++i) {
    lake::table::ColumnBatch batch = lake::table::ColumnBatch::Empty(schema);
    Must(batch.AppendRow({std::string("row-") + std::to_string(i), static_cast<int64_t>(i),
                          location}),
         "row");
    lake::registry::TableRecord record = Must(tables->GetTable(name), "table");
    Must(tables->AppendBatch(record, batch, lake::table::AppendBase::kCurrent).status(),
         "append");
  }
  double append_s = Seconds(began);
  std::printf("appends=%llu\n", static_cast<unsigned long long>(appends));
  std::printf("appends_per_s=%.0f\n", appends / append_s);

  const std::string table_dir = tables->TableDir(name);
  std::vector<lake::registry::VersionRecord> versions =
      Must(tables->ListVersions(name), "list versions");
  if (versions.size() != appends) {
    Die(absl::InternalError("expected one version per append"), "list versions");
  }
  // Each version's own manifest, a table log record (the default) or a
  // file of _versions/ (versions as files): a record's disk use is its
  // bytes in the preallocated segment, header included.
  const std::string versions_dir = table_dir + "/" + std::string(lake::table::kTableVersionsDir);
  DiskUse manifests;
  lake::table::ManifestChainReader own(Fs(), table_dir);
  for (const lake::registry::VersionRecord& v : versions) {
    if (!lake::table::IsTableLogPath(v.manifest_path)) continue;
    const uint64_t bytes = Must(own.Resolve(v.version, v.manifest_path), "resolve")->file_bytes;
    ++manifests.files;
    manifests.bytes += bytes;
    manifests.disk += lake::table::TableLogRecordBytes(bytes);
    manifests.largest = std::max(manifests.largest, bytes);
  }
  if (std::filesystem::exists(versions_dir)) {
    DiskUse files = DiskUseUnder(versions_dir);
    manifests.files += files.files;
    manifests.bytes += files.bytes;
    manifests.disk += files.disk;
    manifests.largest = std::max(manifests.largest, files.largest);
  }
  PrintDiskUse("manifest", manifests);
  PrintDiskUse("table_dir", DiskUseUnder(table_dir));
  // The table log's segments (table_log.h): each preallocated whole, so
  // their disk use is the segments' count times the roll bound, about.
  const std::string log_dir = table_dir + "/" + std::string(lake::table::kTableLogDir);
  if (std::filesystem::exists(log_dir)) {
    PrintDiskUse("table_log", DiskUseUnder(log_dir));
  } else {
    PrintDiskUse("table_log", DiskUse{});
  }

  // Every version resolved in order (each link read once).
  lake::table::ManifestChainReader reader(Fs(), table_dir);
  uint64_t full_list_bytes = 0;
  for (uint64_t v = 1; v <= appends; ++v) {
    const lake::table::ResolvedManifest* resolved =
        Must(reader.Resolve(v, versions[v - 1].manifest_path), "resolve");
    full_list_bytes += FullListBytes(*resolved);
  }
  std::printf("full_list_bytes=%llu\n", static_cast<unsigned long long>(full_list_bytes));

  began = Clock::now();
  lake::table::ManifestChainReader fresh(Fs(), table_dir);
  const lake::table::ResolvedManifest* current =
      Must(fresh.Resolve(appends, versions.back().manifest_path), "resolve current");
  std::printf("current_resolve_ms=%.2f\n", Seconds(began) * 1000);
  std::printf("current_chain_files=%zu\n", current->chain_files.size());
  std::printf("current_fragments=%zu\n", current->manifest.fragments.size());
  return 0;
}
