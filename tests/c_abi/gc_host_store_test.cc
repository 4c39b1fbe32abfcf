// Garbage collection of a root whose stage is a host store, through
// include/lake.h only: the host's callbacks list, read, write and remove;
// lake keeps the root's identity, the owner marker, the plan and the
// resumable apply on top.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lake.h"
#include "gc_client.h"

namespace {

namespace fs = std::filesystem;
using namespace lake_gc_client;  // gc_client.h: what the C ABI gc tests share

constexpr const char* kHostRoot = "s3://host-bucket/lake";
constexpr const char* kHostId = "test-warehouse";

// A host's object store over a directory: the object <root>/<key> is the
// file <dir>/<key>, its modification time the file's.
struct DirectoryStore {
  std::string dir;
  std::mutex mu;
  std::atomic<int> removes{0};
  int fail_remove_at = 0;  // the removal (1-based) that fails; 0: none
  bool fail_list = false;

  struct Stream {
    std::ifstream in;
  };

  std::string PathOf(const char* uri) const {
    std::string text(uri);
    std::string root = std::string(kHostRoot) + "/";
    REQUIRE(text.rfind(root, 0) == 0);
    return dir + "/" + text.substr(root.size());
  }

  static DirectoryStore* Of(void* ctx) { return static_cast<DirectoryStore*>(ctx); }

  static lake_status Upload(void* ctx, const char* uri, const char*, lake_read_fn read,
                            void* read_ctx, char*, size_t) {
    std::string path = Of(ctx)->PathOf(uri);
    fs::create_directories(fs::path(path).parent_path());
    std::string temp = path + ".part";
    {
      std::ofstream out(temp, std::ios::binary);
      uint8_t buf[4096];
      for (;;) {
        int64_t n = read(read_ctx, buf, sizeof buf);
        if (n < 0) {
          fs::remove(temp);
          return LAKE_IO;
        }
        if (n == 0) break;
        out.write(reinterpret_cast<const char*>(buf), n);
      }
    }
    fs::rename(temp, path);
    return LAKE_OK;
  }
  static lake_status Open(void* ctx, const char* uri, uint64_t start, void** stream, char*,
                          size_t) {
    std::string path = Of(ctx)->PathOf(uri);
    if (!fs::exists(path)) return LAKE_NOT_FOUND;
    auto* s = new Stream{std::ifstream(path, std::ios::binary)};
    s->in.seekg(static_cast<std::streamoff>(start));
    *stream = s;
    return LAKE_OK;
  }
  static lake_status ReadStream(void*, void* stream, uint8_t* buf, size_t cap, size_t* n, char*,
                                size_t) {
    auto* s = static_cast<Stream*>(stream);
    s->in.read(reinterpret_cast<char*>(buf), static_cast<std::streamsize>(cap));
    *n = static_cast<size_t>(s->in.gcount());
    return LAKE_OK;
  }
  static void CloseStream(void*, void* stream) { delete static_cast<Stream*>(stream); }
  static lake_status List(void* ctx, const char* prefix, lake_list_fn emit, void* emit_ctx,
                          char* message, size_t cap) {
    DirectoryStore* store = Of(ctx);
    if (store->fail_list) {
      snprintf(message, cap, "listing service down");
      return LAKE_IO;
    }
    std::string root = std::string(kHostRoot) + "/";
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(store->dir, ec);
         it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file() || it->path().extension() == ".part") continue;
      std::string uri = root + fs::relative(it->path(), store->dir).string();
      if (uri.rfind(prefix, 0) != 0) continue;
      struct stat info;
      REQUIRE(::stat(it->path().c_str(), &info) == 0);
      int64_t micros = int64_t{info.st_mtim.tv_sec} * 1000000 + info.st_mtim.tv_nsec / 1000;
      lake_list_entry entry{uri.c_str(), static_cast<uint64_t>(fs::file_size(it->path())),
                            micros};
      if (emit(emit_ctx, &entry) != 0) break;
    }
    return LAKE_OK;
  }
  static lake_status Remove(void* ctx, const char* uri, char* message, size_t cap) {
    DirectoryStore* store = Of(ctx);
    int n = ++store->removes;
    if (store->fail_remove_at != 0 && n == store->fail_remove_at) {
      snprintf(message, cap, "remove refused by the host");
      return LAKE_IO;
    }
    fs::remove(store->PathOf(uri));  // an absent object: success
    return LAKE_OK;
  }

  lake_host_store Table() {
    return lake_host_store{LAKE_HOST_STORE_VERSION, this, kHostRoot, &Upload, &Open,
                           &ReadStream, &CloseStream, &List, &Remove, nullptr};
  }
};

lake_status TryOpen(const std::string& root, DirectoryStore& store, const char* host_id,
                    lake_db** db, std::string* message) {
  lake_host_store table = store.Table();
  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_host_store(opts, &table, nullptr) == LAKE_OK);
  if (host_id != nullptr) REQUIRE(lake_stage_options_set_host_id(opts, host_id, nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  lake_status status = lake_db_open(root.c_str(), opts, db, &err);
  lake_stage_options_free(opts);
  *message = Message(err);
  return status;
}

Db Open(const std::string& root, DirectoryStore& store, const char* host_id = kHostId) {
  lake_db* db = nullptr;
  std::string message;
  REQUIRE_MESSAGE(TryOpen(root, store, host_id, &db, &message) == LAKE_OK, message);
  return Db(db);
}

lake_location* Put(lake_db* db, const std::string& bytes) {
  lake_writer* writer = nullptr;
  REQUIRE(lake_writer_open(lake_db_stage(db), nullptr, &writer, nullptr) == LAKE_OK);
  REQUIRE(lake_writer_write(writer, bytes.data(), bytes.size(), nullptr) == LAKE_OK);
  lake_location* loc = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_writer_close(writer, &loc, &err);
  lake_writer_free(writer);
  REQUIRE_MESSAGE(status == LAKE_OK, Message(err));
  return loc;
}

// Makes the host's object look `hours` old to its listing.
void Age(DirectoryStore& store, const lake_location* loc, int hours) {
  fs::last_write_time(store.PathOf(lake_location_uri(loc)),
                      fs::file_time_type::clock::now() - std::chrono::hours(hours));
}

bool Stored(DirectoryStore& store, const lake_location* loc) {
  return fs::exists(store.PathOf(lake_location_uri(loc)));
}

struct HostRoot {
  Scratch scratch{"lake-cabi-gchost"};
  GcOptions hour_cutoff = CutoffOptions(3600);  // what plan and apply use
  DirectoryStore store;
  std::string root;
  HostRoot() {
    store.dir = scratch.path + "/host";
    fs::create_directories(store.dir);
    root = scratch.path + "/root";
  }
  std::string MarkerPath() const { return store.dir + "/_lake/owner"; }
};

TEST_CASE("gc host store: a writer's open records the host stage and writes the owner marker "
          "through upload") {
  HostRoot h;
  Db db = Open(h.root, h.store);
  CHECK(std::string(lake_stage_descriptor(lake_db_stage(db.get()))) ==
        "{\"version\":1,\"kind\":\"host\",\"host_id\":\"test-warehouse\"}");
  CHECK(fs::exists(h.MarkerPath()));
  std::ifstream marker(h.MarkerPath());
  std::string text((std::istreambuf_iterator<char>(marker)), std::istreambuf_iterator<char>());
  std::ifstream id_file(h.root + "/root_id.json");
  std::string id_text((std::istreambuf_iterator<char>(id_file)), std::istreambuf_iterator<char>());
  CHECK(text == id_text);  // the marker names this root
}

TEST_CASE("gc host store: plan finds exactly the unreferenced old objects; apply removes them "
          "through remove") {
  HostRoot h;
  Db db = Open(h.root, h.store);
  const char* columns[] = {"f:file"};
  REQUIRE(lake_table_create(db.get(), "ns.t", columns, 1, nullptr) == LAKE_OK);
  lake_location* kept = Put(db.get(), "referenced");
  lake_location* orphan_a = Put(db.get(), "orphan a");
  lake_location* orphan_b = Put(db.get(), "orphan bb");
  lake_location* young = Put(db.get(), "too young to go");
  InsertLocation(db.get(), kept);
  for (const lake_location* old : {kept, orphan_a, orphan_b}) Age(h.store, old, 48);

  std::string plan;
  REQUIRE_MESSAGE(Plan(db.get(), h.hour_cutoff.get(), &plan) == LAKE_OK, plan);
  CHECK(Field(plan, "objects") == "2");
  CHECK(Field(plan, "bytes") == "17");
  std::string plan_id = Field(plan, "plan_id");
  CandidateList list;
  REQUIRE(lake_gc_show(db.get(), plan_id.c_str(), &CandidateList::Collect, &list, nullptr,
                       nullptr) == LAKE_OK);
  std::vector<std::string> expected = {lake_location_uri(orphan_a), lake_location_uri(orphan_b)};
  std::sort(expected.begin(), expected.end());
  std::sort(list.uris.begin(), list.uris.end());
  CHECK(list.uris == expected);

  std::string applied;
  REQUIRE_MESSAGE(Apply(db.get(), plan_id, h.hour_cutoff.get(), &applied) == LAKE_OK, applied);
  CHECK(Field(applied, "state") == "done");
  CHECK(Field(applied, "objects_deleted") == "2");
  CHECK(h.store.removes.load() == 2);
  CHECK_FALSE(Stored(h.store, orphan_a));
  CHECK_FALSE(Stored(h.store, orphan_b));
  CHECK(Stored(h.store, kept));
  CHECK(Stored(h.store, young));
  CHECK(fs::exists(h.MarkerPath()));  // records are never objects
  for (lake_location* loc : {kept, orphan_a, orphan_b, young}) lake_location_free(loc);
}

TEST_CASE("gc host store: a marker naming another root is refused") {
  HostRoot h;
  { Db first = Open(h.root, h.store); }
  // Another root takes the marker over (as a root sharing the store would
  // when it found none).
  fs::remove(h.MarkerPath());
  { Db other = Open(h.scratch.path + "/other-root", h.store); }
  REQUIRE(fs::exists(h.MarkerPath()));
  Db db = Open(h.root, h.store);
  std::string message;
  CHECK(Plan(db.get(), h.hour_cutoff.get(), &message) == LAKE_INVALID_ARGUMENT);
  CHECK(message.find("names another root") != std::string::npos);
}

TEST_CASE("gc host store: a missing marker is refused") {
  HostRoot h;
  Db db = Open(h.root, h.store);
  fs::remove(h.MarkerPath());
  std::string message;
  CHECK(Plan(db.get(), h.hour_cutoff.get(), &message) == LAKE_INVALID_ARGUMENT);
  CHECK(message.find("no owner marker") != std::string::npos);
}

TEST_CASE("gc host store: an open with another host id, without one, or with another kind of "
          "stage is refused") {
  HostRoot h;
  { Db db = Open(h.root, h.store); }
  lake_db* db = nullptr;
  std::string message;
  CHECK(TryOpen(h.root, h.store, "another-warehouse", &db, &message) == LAKE_INVALID_ARGUMENT);
  CHECK(message.find("host id 'another-warehouse' asked, 'test-warehouse' recorded") !=
        std::string::npos);
  CHECK(TryOpen(h.root, h.store, nullptr, &db, &message) == LAKE_INVALID_ARGUMENT);
  CHECK(message.find("needs a stable host id") != std::string::npos);
  // Without the host's store (as the CLI or a follower opens it).
  CHECK(lake_db_open(h.root.c_str(), nullptr, &db, nullptr) == LAKE_INVALID_ARGUMENT);
  // A root with a local stage refuses a host store.
  std::string local_root = h.scratch.path + "/local-root";
  REQUIRE(lake_db_open(local_root.c_str(), nullptr, &db, nullptr) == LAKE_OK);
  lake_db_free(db);
  CHECK(TryOpen(local_root, h.store, kHostId, &db, &message) == LAKE_INVALID_ARGUMENT);
  CHECK(message.find("stage 'host' asked, 'local' recorded") != std::string::npos);
}

TEST_CASE("gc host store: a failing remove stops apply with a typed error; a rerun resumes") {
  HostRoot h;
  Db db = Open(h.root, h.store);
  // Three pages (1,000 entries each): the failure falls in the second.
  std::vector<lake_location*> orphans;
  for (int i = 0; i < 2100; ++i) {
    orphans.push_back(Put(db.get(), "orphan " + std::to_string(i)));
    Age(h.store, orphans.back(), 48);
  }
  std::string plan;
  REQUIRE_MESSAGE(Plan(db.get(), h.hour_cutoff.get(), &plan) == LAKE_OK, plan);
  CHECK(Field(plan, "objects") == "2100");
  std::string plan_id = Field(plan, "plan_id");

  h.store.fail_remove_at = 1500;
  std::string failed;
  CHECK(Apply(db.get(), plan_id, h.hour_cutoff.get(), &failed) == LAKE_IO);
  CHECK(failed.find("remove refused by the host") != std::string::npos);
  size_t left = 0;
  for (const lake_location* loc : orphans) left += Stored(h.store, loc) ? 1 : 0;
  CHECK(left == 2100 - 1499);  // the removals before the failure are done

  char* status = nullptr;
  REQUIRE(lake_gc_status(db.get(), plan_id.c_str(), &status, nullptr) == LAKE_OK);
  CHECK(Field(status, "pages_done") == "1");  // the first page is recorded
  lake_string_free(status);

  h.store.fail_remove_at = 0;
  int before = h.store.removes.load();
  std::string applied;
  REQUIRE_MESSAGE(Apply(db.get(), plan_id, h.hour_cutoff.get(), &applied) == LAKE_OK, applied);
  CHECK(Field(applied, "state") == "done");
  CHECK(Field(applied, "objects_deleted") == "2100");
  // Resumed at the failed page: the first page is not removed again.
  CHECK(h.store.removes.load() - before == 1100);
  for (lake_location* loc : orphans) {
    CHECK_FALSE(Stored(h.store, loc));
    lake_location_free(loc);
  }
}

TEST_CASE("gc host store: a failing list aborts the plan before any plan exists") {
  HostRoot h;
  Db db = Open(h.root, h.store);
  lake_location* orphan = Put(db.get(), "orphan");
  Age(h.store, orphan, 48);
  h.store.fail_list = true;
  std::string message;
  CHECK(Plan(db.get(), h.hour_cutoff.get(), &message) == LAKE_IO);
  CHECK(message.find("listing service down") != std::string::npos);
  char* status = nullptr;
  REQUIRE(lake_gc_status(db.get(), nullptr, &status, nullptr) == LAKE_OK);
  CHECK(std::string(status).find("plan_id") == std::string::npos);
  lake_string_free(status);
  CHECK(Stored(h.store, orphan));
  lake_location_free(orphan);
}

}  // namespace
