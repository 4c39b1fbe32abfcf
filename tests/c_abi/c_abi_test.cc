// The C ABI, through include/lake.h only (this file sees no internal
// header), linked against the shared library.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lake.h"

namespace {

// RAII for the handles, so failing checks do not leak.
struct ErrorFree { void operator()(lake_error* e) const { lake_error_free(e); } };
struct LocationFree { void operator()(lake_location* l) const { lake_location_free(l); } };
struct StageFree { void operator()(lake_stage* s) const { lake_stage_free(s); } };
struct ReaderFree { void operator()(lake_reader* r) const { lake_reader_free(r); } };
using Error = std::unique_ptr<lake_error, ErrorFree>;
using Location = std::unique_ptr<lake_location, LocationFree>;
using Stage = std::unique_ptr<lake_stage, StageFree>;
using Reader = std::unique_ptr<lake_reader, ReaderFree>;

struct ScratchDir {
  ScratchDir() {
    std::string pattern = "/tmp/lake-cabi-XXXXXX";
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string path;
};

std::vector<uint8_t> Bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

Stage OpenLocal(const std::string& root, const char* tenant = nullptr) {
  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_local_root(opts, root.c_str(), nullptr) == LAKE_OK);
  if (tenant != nullptr) REQUIRE(lake_stage_options_set_tenant(opts, tenant, nullptr) == LAKE_OK);
  lake_stage* stage = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_stage_open(opts, &stage, &err);
  lake_stage_options_free(opts);
  REQUIRE_MESSAGE(status == LAKE_OK, (err ? lake_error_message(err) : ""));
  return Stage(stage);
}

struct MemoryReader {
  const std::vector<uint8_t>* bytes;
  size_t offset = 0;
  static int64_t Read(void* ctx, uint8_t* buf, size_t cap) {
    auto* r = static_cast<MemoryReader*>(ctx);
    size_t n = std::min(cap, r->bytes->size() - r->offset);
    if (n > 0) memcpy(buf, r->bytes->data() + r->offset, n);
    r->offset += n;
    return static_cast<int64_t>(n);
  }
};

Location Upload(lake_stage* stage, const std::vector<uint8_t>& bytes,
                const lake_upload_options* opts = nullptr) {
  MemoryReader reader{&bytes};
  lake_location* loc = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_stage_upload_reader(stage, &MemoryReader::Read, &reader, opts, &loc, &err);
  Error owned(err);
  REQUIRE_MESSAGE(status == LAKE_OK, (err ? lake_error_message(err) : ""));
  return Location(loc);
}

// Reads to the end; returns the final status and fills *error.
lake_status ReadAllBytes(lake_reader* reader, std::vector<uint8_t>* out, Error* error) {
  std::vector<uint8_t> buf(65536 + 3);
  for (;;) {
    size_t n = 0;
    lake_error* err = nullptr;
    lake_status status = lake_reader_read(reader, buf.data(), buf.size(), &n, &err);
    if (status != LAKE_OK) {
      error->reset(err);
      return status;
    }
    if (n == 0) return LAKE_OK;
    out->insert(out->end(), buf.begin(), buf.begin() + static_cast<long>(n));
  }
}

std::string PathOfUri(const char* uri) { return std::string(uri).substr(strlen("file://")); }

TEST_CASE("the header and the library agree on the ABI version") {
  CHECK(lake_abi_version() == LAKE_ABI_VERSION);
  CHECK(strlen(lake_version_string()) > 0);
  CHECK(std::string(lake_status_name(LAKE_INTEGRITY)) == "LAKE_INTEGRITY");
  CHECK(std::string(lake_integrity_kind_name(LAKE_INTEGRITY_DIGEST_MISMATCH)) == "DigestMismatch");
  CHECK(std::string(lake_integrity_kind_name(LAKE_INTEGRITY_OBJECT_CHANGED)) == "ObjectChanged");
}

TEST_CASE("a NULL argument is a typed error, never a crash") {
  lake_error* err = nullptr;
  CHECK(lake_stage_open(nullptr, nullptr, &err) == LAKE_INVALID_ARGUMENT);
  REQUIRE(err != nullptr);
  CHECK(lake_error_code(err) == LAKE_INVALID_ARGUMENT);
  CHECK(strstr(lake_error_message(err), "NULL") != nullptr);
  lake_error_free(err);
  CHECK(lake_reader_read(nullptr, nullptr, 0, nullptr, nullptr) == LAKE_INVALID_ARGUMENT);
  // Frees accept NULL.
  lake_error_free(nullptr);
  lake_location_free(nullptr);
  lake_stage_free(nullptr);
  lake_reader_free(nullptr);
  lake_writer_free(nullptr);
}

TEST_CASE("stage options without a root or with a bad tenant are refused") {
  lake_stage_options* opts = lake_stage_options_new();
  lake_stage* stage = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_stage_open(opts, &stage, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_stage_options_set_tenant(opts, "../x", &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  CHECK(lake_stage_options_set_local_root(opts, "", nullptr) == LAKE_INVALID_ARGUMENT);
  lake_stage_options_free(opts);
}

TEST_CASE("locations: JSON round trip, accessors, and typed refusal") {
  std::string sha(64, 'B');
  lake_location* loc = nullptr;
  REQUIRE(lake_location_new("file:///srv/stage/objects/00/x", "video/mp4", 42, sha.c_str(), &loc,
                            nullptr) == LAKE_OK);
  Location owned(loc);
  CHECK(std::string(lake_location_sha256(loc)) == std::string(64, 'b'));
  CHECK(lake_location_size_bytes(loc) == 42);
  std::string json = lake_location_json(loc);
  CHECK(json == "{\"uri\":\"file:///srv/stage/objects/00/x\",\"content_type\":\"video/mp4\","
                "\"size_bytes\":42,\"sha256\":\"" + std::string(64, 'b') + "\"}");
  lake_location* back = nullptr;
  REQUIRE(lake_location_from_json(json.data(), json.size(), &back, nullptr) == LAKE_OK);
  Location back_owned(back);
  CHECK(std::string(lake_location_uri(back)) == lake_location_uri(loc));

  lake_error* err = nullptr;
  std::string bad = "{\"uri\":\"file:///x\",\"content_type\":\"a/b\",\"size_bytes\":1,\"sha256\":\"abc\"}";
  CHECK(lake_location_from_json(bad.data(), bad.size(), &back, &err) == LAKE_INVALID_ARGUMENT);
  REQUIRE(err != nullptr);
  CHECK(lake_error_integrity_kind(err) == LAKE_INTEGRITY_INVALID_LOCATION);
  CHECK(lake_error_retryable(err) == 0);
  lake_error_free(err);
}

TEST_CASE("upload, verified read and range read through the C ABI") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  const char* backend = lake_stage_io_backend(stage.get());
  const char* forced = getenv("LAKE_IO");
  CHECK(std::string(backend) == (forced && std::string(forced) == "sync" ? "sync" : "io_uring"));

  std::vector<uint8_t> bytes = Bytes(3 * 1024 * 1024 + 9, 1);
  lake_upload_options* opts = lake_upload_options_new();
  REQUIRE(lake_upload_options_set_content_type(opts, "model/weights", nullptr) == LAKE_OK);
  uint64_t last_progress = 0;
  lake_upload_options_set_progress(
      opts, [](void* ctx, uint64_t done, uint64_t) { *static_cast<uint64_t*>(ctx) = done; },
      &last_progress);
  Location loc = Upload(stage.get(), bytes, opts);
  lake_upload_options_free(opts);
  CHECK(last_progress == bytes.size());
  CHECK(lake_location_size_bytes(loc.get()) == bytes.size());
  CHECK(std::string(lake_location_content_type(loc.get())) == "model/weights");

  lake_reader* raw = nullptr;
  REQUIRE(lake_reader_open(stage.get(), loc.get(), &raw, nullptr) == LAKE_OK);
  Reader reader(raw);
  std::vector<uint8_t> out;
  Error error;
  CHECK(ReadAllBytes(reader.get(), &out, &error) == LAKE_OK);
  CHECK(out == bytes);
  CHECK(lake_reader_verified(reader.get()) == 1);
  CHECK(lake_reader_close(reader.get(), nullptr) == LAKE_OK);
  size_t n = 0;
  uint8_t b;
  CHECK(lake_reader_read(reader.get(), &b, 1, &n, nullptr) == LAKE_INVALID_ARGUMENT);

  REQUIRE(lake_reader_open_range(stage.get(), loc.get(), 1000, 5000, &raw, nullptr) == LAKE_OK);
  Reader range(raw);
  out.clear();
  CHECK(ReadAllBytes(range.get(), &out, &error) == LAKE_OK);
  CHECK(out == std::vector<uint8_t>(bytes.begin() + 1000, bytes.begin() + 5000));
  CHECK(lake_reader_verified(range.get()) == 0);

  lake_error* err = nullptr;
  CHECK(lake_reader_open_range(stage.get(), loc.get(), 10, 10, &raw, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
}

TEST_CASE("zero-copy views: the same bytes and the same verified end") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  std::vector<uint8_t> bytes = Bytes(4 * 1024 * 1024 + 5, 11);
  Location loc = Upload(stage.get(), bytes);
  lake_reader* raw = nullptr;
  REQUIRE(lake_reader_open(stage.get(), loc.get(), &raw, nullptr) == LAKE_OK);
  Reader reader(raw);
  std::vector<uint8_t> out;
  for (;;) {
    const void* data = nullptr;
    size_t n = 0;
    REQUIRE(lake_reader_read_view(reader.get(), &data, 1 << 20, &n, nullptr) == LAKE_OK);
    CHECK(n <= (1u << 20));
    if (n == 0) break;
    const uint8_t* p = static_cast<const uint8_t*>(data);
    out.insert(out.end(), p, p + n);
  }
  CHECK(out == bytes);
  CHECK(lake_reader_verified(reader.get()) == 1);
  const void* data = nullptr;
  size_t n = 1;
  CHECK(lake_reader_read_view(reader.get(), &data, 0, &n, nullptr) == LAKE_INVALID_ARGUMENT);
}

TEST_CASE("an integrity failure carries its kind and counts") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  std::vector<uint8_t> bytes = Bytes(10000, 2);
  Location loc = Upload(stage.get(), bytes);
  std::ofstream(PathOfUri(lake_location_uri(loc.get())), std::ios::binary | std::ios::app) << 'x';

  lake_reader* raw = nullptr;
  REQUIRE(lake_reader_open(stage.get(), loc.get(), &raw, nullptr) == LAKE_OK);
  Reader reader(raw);
  std::vector<uint8_t> out;
  Error error;
  CHECK(ReadAllBytes(reader.get(), &out, &error) == LAKE_INTEGRITY);
  REQUIRE(error != nullptr);
  CHECK(lake_error_code(error.get()) == LAKE_INTEGRITY);
  CHECK(lake_error_integrity_kind(error.get()) == LAKE_INTEGRITY_SIZE_LONG);
  CHECK(lake_error_expected(error.get()) == 10000);
  CHECK(lake_error_observed(error.get()) == 10001);
  CHECK(lake_error_retryable(error.get()) == 0);
  CHECK(lake_reader_verified(reader.get()) == 0);
}

TEST_CASE("uploading a path; a missing path is NOT_FOUND") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  std::vector<uint8_t> bytes = Bytes(123457, 3);
  std::string path = dir.path + "/in.bin";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  lake_location* loc = nullptr;
  REQUIRE(lake_stage_upload_path(stage.get(), path.c_str(), nullptr, &loc, nullptr) == LAKE_OK);
  Location owned(loc);
  CHECK(lake_location_size_bytes(loc) == bytes.size());
  lake_error* err = nullptr;
  CHECK(lake_stage_upload_path(stage.get(), (dir.path + "/nope").c_str(), nullptr, &loc, &err) ==
        LAKE_NOT_FOUND);
  lake_error_free(err);
}

TEST_CASE("a cancelled upload returns LAKE_CANCELLED and leaves nothing") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  lake_cancel_token* token = lake_cancel_token_new();
  lake_upload_options* opts = lake_upload_options_new();
  lake_upload_options_set_cancel_token(opts, token);
  struct Ctx {
    lake_cancel_token* token;
    uint64_t sent = 0;
  } ctx{token};
  auto read = [](void* c, uint8_t* buf, size_t cap) -> int64_t {
    auto* ctx = static_cast<Ctx*>(c);
    if (ctx->sent > (4u << 20)) lake_cancel_token_cancel(ctx->token);
    memset(buf, 7, cap);
    ctx->sent += cap;
    return static_cast<int64_t>(cap);  // an endless source
  };
  lake_location* loc = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_stage_upload_reader(stage.get(), read, &ctx, opts, &loc, &err) == LAKE_CANCELLED);
  CHECK(lake_cancel_token_is_cancelled(token) == 1);
  lake_error_free(err);
  lake_upload_options_free(opts);
  lake_cancel_token_free(token);
  CHECK(std::filesystem::is_empty(dir.path + "/stage/.staging"));
  CHECK(std::filesystem::is_empty(dir.path + "/stage/objects"));
}

TEST_CASE("a failing read callback fails the upload with LAKE_IO") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  auto read = [](void*, uint8_t*, size_t) -> int64_t { return -5; };
  lake_location* loc = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_stage_upload_reader(stage.get(), read, nullptr, nullptr, &loc, &err) == LAKE_IO);
  lake_error_free(err);
  CHECK(std::filesystem::is_empty(dir.path + "/stage/.staging"));
}

TEST_CASE("writers: write then close publishes; close is fallible and once; free discards") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  std::vector<uint8_t> bytes = Bytes(2 * 1024 * 1024 + 1, 4);
  lake_writer* writer = nullptr;
  REQUIRE(lake_writer_open(stage.get(), nullptr, &writer, nullptr) == LAKE_OK);
  REQUIRE(lake_writer_write(writer, bytes.data(), 1000, nullptr) == LAKE_OK);
  REQUIRE(lake_writer_write(writer, bytes.data() + 1000, bytes.size() - 1000, nullptr) == LAKE_OK);
  lake_location* loc = nullptr;
  REQUIRE(lake_writer_close(writer, &loc, nullptr) == LAKE_OK);
  Location owned(loc);
  lake_error* err = nullptr;
  CHECK(lake_writer_close(writer, &loc, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  lake_writer_free(writer);
  CHECK(lake_location_size_bytes(owned.get()) == bytes.size());

  REQUIRE(lake_writer_open(stage.get(), nullptr, &writer, nullptr) == LAKE_OK);
  REQUIRE(lake_writer_write(writer, bytes.data(), bytes.size(), nullptr) == LAKE_OK);
  lake_writer_free(writer);
  CHECK(std::filesystem::is_empty(dir.path + "/stage/.staging"));
}

TEST_CASE("batched ranges report a status per range and the first failure") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  std::vector<uint8_t> a = Bytes(100000, 5), b = Bytes(50000, 6);
  Location la = Upload(stage.get(), a), lb = Upload(stage.get(), b);
  std::vector<uint8_t> buf(4 * 1000);
  lake_range ranges[4];
  memset(ranges, 0, sizeof ranges);
  ranges[0] = {la.get(), 0, 1000, buf.data(), LAKE_OK, 0, nullptr};
  ranges[1] = {lb.get(), 49000, 50000, buf.data() + 1000, LAKE_OK, 0, nullptr};
  ranges[2] = {lb.get(), 49500, 50500, buf.data() + 2000, LAKE_OK, 0, nullptr};  // past the end
  ranges[3] = {la.get(), 99000, 100000, buf.data() + 3000, LAKE_OK, 0, nullptr};
  lake_error* err = nullptr;
  CHECK(lake_stage_read_ranges(stage.get(), ranges, 4, &err) == LAKE_INVALID_ARGUMENT);
  REQUIRE(err != nullptr);
  CHECK(strstr(lake_error_message(err), "1 of 4") != nullptr);
  lake_error_free(err);
  CHECK(ranges[0].status == LAKE_OK);
  CHECK(ranges[1].status == LAKE_OK);
  CHECK(ranges[2].status == LAKE_INVALID_ARGUMENT);
  CHECK(ranges[2].error != nullptr);
  CHECK(ranges[3].status == LAKE_OK);
  CHECK(ranges[3].bytes_read == 1000);
  CHECK(memcmp(buf.data(), a.data(), 1000) == 0);
  CHECK(memcmp(buf.data() + 1000, b.data() + 49000, 1000) == 0);
  CHECK(memcmp(buf.data() + 3000, a.data() + 99000, 1000) == 0);
  for (lake_range& r : ranges) lake_error_free(r.error);
  CHECK(lake_stage_read_ranges(stage.get(), ranges, 0, nullptr) == LAKE_OK);

  // An object cut short: the batch's error carries the range's integrity
  // details, as the range's own error does.
  std::string uri = lake_location_uri(la.get());
  REQUIRE(uri.rfind("file://", 0) == 0);
  std::filesystem::resize_file(uri.substr(7), 50000);
  lake_range cut = {la.get(), 99000, 100000, buf.data(), LAKE_OK, 0, nullptr};
  err = nullptr;
  CHECK(lake_stage_read_ranges(stage.get(), &cut, 1, &err) == LAKE_INTEGRITY);
  REQUIRE(err != nullptr);
  REQUIRE(cut.error != nullptr);
  CHECK(lake_error_integrity_kind(cut.error) != LAKE_INTEGRITY_NONE);
  CHECK(lake_error_integrity_kind(err) == lake_error_integrity_kind(cut.error));
  lake_error_free(err);
  lake_error_free(cut.error);
}

TEST_CASE("list, delete and staging cleanup through the C ABI") {
  ScratchDir dir;
  Stage stage = OpenLocal(dir.path + "/stage");
  Location loc = Upload(stage.get(), Bytes(10, 7));
  std::vector<std::string> uris;
  auto emit = [](void* ctx, const lake_list_entry* entry) {
    static_cast<std::vector<std::string>*>(ctx)->push_back(entry->uri);
    return 0;
  };
  REQUIRE(lake_stage_list(stage.get(), emit, &uris, nullptr) == LAKE_OK);
  CHECK(uris == std::vector<std::string>{lake_location_uri(loc.get())});
  REQUIRE(lake_stage_delete(stage.get(), loc.get(), nullptr) == LAKE_OK);
  uris.clear();
  REQUIRE(lake_stage_list(stage.get(), emit, &uris, nullptr) == LAKE_OK);
  CHECK(uris.empty());

  std::ofstream(dir.path + "/stage/.staging/0193aaaa-0000-7000-8000-000000000000.uploading") << "x";
  uint64_t removed = 0;
  REQUIRE(lake_stage_clean_staging(stage.get(), &removed, nullptr) == LAKE_OK);
  CHECK(removed == 1);
}

TEST_CASE("a tenant stage refuses another tenant's location with INVALID_LOCATION") {
  ScratchDir dir;
  Stage alice = OpenLocal(dir.path + "/stage", "alice");
  Stage bob = OpenLocal(dir.path + "/stage", "bob");
  Location loc = Upload(alice.get(), Bytes(10, 8));
  CHECK(strstr(lake_location_uri(loc.get()), "/tenants/alice/objects/") != nullptr);
  lake_reader* reader = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_reader_open(bob.get(), loc.get(), &reader, &err) == LAKE_INVALID_ARGUMENT);
  REQUIRE(err != nullptr);
  CHECK(lake_error_integrity_kind(err) == LAKE_INTEGRITY_INVALID_LOCATION);
  lake_error_free(err);
}

TEST_CASE("the process buffer budget has a floor") {
  lake_error* err = nullptr;
  CHECK(lake_set_buffer_budget(1024, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  CHECK(lake_set_buffer_budget(64u << 20, nullptr) == LAKE_OK);
}

// ---------------------------------------------------------------------------
// A host-provided store: objects in a map, behind the callback table.

struct HostStore {
  std::mutex mu;
  std::map<std::string, std::vector<uint8_t>> objects;
  int destroyed = 0;
  bool fail_uploads = false;
  bool stop_upload_early = false;

  struct Stream {
    std::vector<uint8_t> bytes;
    size_t offset;
  };

  static lake_status Upload(void* ctx, const char* uri, const char*, lake_read_fn read,
                            void* read_ctx, char* message, size_t cap) {
    auto* store = static_cast<HostStore*>(ctx);
    if (store->fail_uploads) {
      snprintf(message, cap, "disk on fire");
      return LAKE_IO;
    }
    std::vector<uint8_t> bytes;
    uint8_t buf[4096];
    for (;;) {
      int64_t n = read(read_ctx, buf, sizeof buf);
      if (n < 0) return LAKE_IO;
      if (n == 0) break;
      bytes.insert(bytes.end(), buf, buf + n);
      if (store->stop_upload_early) break;
    }
    std::lock_guard<std::mutex> lock(store->mu);
    store->objects[uri] = std::move(bytes);
    return LAKE_OK;
  }
  static lake_status Open(void* ctx, const char* uri, uint64_t start, void** stream, char*, size_t) {
    auto* store = static_cast<HostStore*>(ctx);
    std::lock_guard<std::mutex> lock(store->mu);
    auto it = store->objects.find(uri);
    if (it == store->objects.end()) return LAKE_NOT_FOUND;
    *stream = new Stream{it->second, static_cast<size_t>(start)};
    return LAKE_OK;
  }
  static lake_status ReadStream(void*, void* stream, uint8_t* buf, size_t cap, size_t* n, char*,
                                size_t) {
    auto* s = static_cast<Stream*>(stream);
    *n = s->offset >= s->bytes.size() ? 0 : std::min(cap, s->bytes.size() - s->offset);
    memcpy(buf, s->bytes.data() + s->offset, *n);
    s->offset += *n;
    return LAKE_OK;
  }
  static void CloseStream(void*, void* stream) { delete static_cast<Stream*>(stream); }
  static lake_status List(void* ctx, const char* prefix, lake_list_fn emit, void* emit_ctx, char*,
                          size_t) {
    auto* store = static_cast<HostStore*>(ctx);
    std::lock_guard<std::mutex> lock(store->mu);
    for (auto& [uri, bytes] : store->objects) {
      if (uri.rfind(prefix, 0) != 0) continue;
      lake_list_entry entry{uri.c_str(), bytes.size(), 0};
      if (emit(emit_ctx, &entry) != 0) break;
    }
    return LAKE_OK;
  }
  static lake_status Remove(void* ctx, const char* uri, char*, size_t) {
    auto* store = static_cast<HostStore*>(ctx);
    std::lock_guard<std::mutex> lock(store->mu);
    store->objects.erase(uri);
    return LAKE_OK;
  }
  static void Destroy(void* ctx) { ++static_cast<HostStore*>(ctx)->destroyed; }

  lake_host_store Table(const char* root) {
    return lake_host_store{LAKE_HOST_STORE_VERSION, this, root, &Upload, &Open, &ReadStream,
                           &CloseStream, &List, &Remove, &Destroy};
  }
};

Stage OpenHost(HostStore& host, const char* root, const char* tenant = nullptr) {
  lake_host_store table = host.Table(root);
  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_host_store(opts, &table, nullptr) == LAKE_OK);
  if (tenant) REQUIRE(lake_stage_options_set_tenant(opts, tenant, nullptr) == LAKE_OK);
  lake_stage* stage = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_stage_open(opts, &stage, &err);
  lake_stage_options_free(opts);
  Error owned(err);
  REQUIRE_MESSAGE(status == LAKE_OK, (err ? lake_error_message(err) : ""));
  return Stage(stage);
}

TEST_CASE("a host store's root_uri is copied: the caller's string may go after the set call") {
  HostStore host;
  std::string root = "s3://host-bucket/copied";
  lake_host_store table = host.Table(root.c_str());
  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_host_store(opts, &table, nullptr) == LAKE_OK);
  std::fill(root.begin(), root.end(), 'x');  // the caller reuses its buffer
  lake_stage* raw = nullptr;
  REQUIRE(lake_stage_open(opts, &raw, nullptr) == LAKE_OK);
  lake_stage_options_free(opts);
  Stage stage(raw);
  Location loc = Upload(stage.get(), Bytes(1000, 4));
  CHECK(std::string(lake_location_uri(loc.get())).rfind("s3://host-bucket/copied/objects/", 0) == 0);
}

TEST_CASE("a host store moves the bytes; lake hashes, verifies and contains them") {
  HostStore host;
  {
    Stage stage = OpenHost(host, "s3://host-bucket/prefix");
    CHECK(std::string(lake_stage_io_backend(stage.get())) == "host");
    std::vector<uint8_t> bytes = Bytes(300000, 9);
    Location loc = Upload(stage.get(), bytes);
    std::string uri = lake_location_uri(loc.get());
    CHECK(uri.rfind("s3://host-bucket/prefix/objects/", 0) == 0);
    REQUIRE(host.objects.count(uri) == 1);

    lake_reader* raw = nullptr;
    REQUIRE(lake_reader_open(stage.get(), loc.get(), &raw, nullptr) == LAKE_OK);
    Reader reader(raw);
    std::vector<uint8_t> out;
    Error error;
    CHECK(ReadAllBytes(reader.get(), &out, &error) == LAKE_OK);
    CHECK(out == bytes);
    CHECK(lake_reader_verified(reader.get()) == 1);

    // The host's bytes change: verification catches it.
    host.objects[uri][100] ^= 1;
    REQUIRE(lake_reader_open(stage.get(), loc.get(), &raw, nullptr) == LAKE_OK);
    Reader tampered(raw);
    out.clear();
    CHECK(ReadAllBytes(tampered.get(), &out, &error) == LAKE_INTEGRITY);
    CHECK(lake_error_integrity_kind(error.get()) == LAKE_INTEGRITY_DIGEST_MISMATCH);

    // Ranges and batches go through the host's streams.
    host.objects[uri][100] ^= 1;
    REQUIRE(lake_reader_open_range(stage.get(), loc.get(), 50, 150, &raw, nullptr) == LAKE_OK);
    Reader range(raw);
    out.clear();
    CHECK(ReadAllBytes(range.get(), &out, &error) == LAKE_OK);
    CHECK(out == std::vector<uint8_t>(bytes.begin() + 50, bytes.begin() + 150));
    std::vector<uint8_t> buf(10);
    lake_range batch = {loc.get(), 299990, 300000, buf.data(), LAKE_OK, 0, nullptr};
    CHECK(lake_stage_read_ranges(stage.get(), &batch, 1, nullptr) == LAKE_OK);
    CHECK(std::equal(buf.begin(), buf.end(), bytes.end() - 10));

    // Locations outside the host's root are refused before any callback.
    std::string outside = "{\"uri\":\"s3://host-bucket/prefix-evil/objects/00/x\","
                          "\"content_type\":\"a/b\",\"size_bytes\":1,\"sha256\":\"" +
                          std::string(64, 'a') + "\"}";
    lake_location* out_loc = nullptr;
    REQUIRE(lake_location_from_json(outside.data(), outside.size(), &out_loc, nullptr) == LAKE_OK);
    Location out_owned(out_loc);
    lake_error* err = nullptr;
    CHECK(lake_reader_open(stage.get(), out_loc, &raw, &err) == LAKE_INVALID_ARGUMENT);
    CHECK(lake_error_integrity_kind(err) == LAKE_INTEGRITY_INVALID_LOCATION);
    lake_error_free(err);

    // List and delete go through the host.
    std::vector<std::string> uris;
    auto emit = [](void* ctx, const lake_list_entry* entry) {
      static_cast<std::vector<std::string>*>(ctx)->push_back(entry->uri);
      return 0;
    };
    REQUIRE(lake_stage_list(stage.get(), emit, &uris, nullptr) == LAKE_OK);
    CHECK(uris == std::vector<std::string>{uri});
    REQUIRE(lake_stage_delete(stage.get(), loc.get(), nullptr) == LAKE_OK);
    CHECK(host.objects.empty());

    // Push writers work too: lake pulls from the writer for the host.
    lake_writer* writer = nullptr;
    REQUIRE(lake_writer_open(stage.get(), nullptr, &writer, nullptr) == LAKE_OK);
    REQUIRE(lake_writer_write(writer, bytes.data(), bytes.size(), nullptr) == LAKE_OK);
    lake_location* pushed = nullptr;
    REQUIRE(lake_writer_close(writer, &pushed, nullptr) == LAKE_OK);
    lake_writer_free(writer);
    Location pushed_owned(pushed);
    CHECK(std::string(lake_location_sha256(pushed)) == lake_location_sha256(loc.get()));
    CHECK(host.objects.count(lake_location_uri(pushed)) == 1);
    CHECK(std::string(lake_stage_descriptor(stage.get())).empty());
  }
  CHECK(host.destroyed == 1);
}

TEST_CASE("a host upload that fails or stops early never yields a location") {
  HostStore host;
  Stage stage = OpenHost(host, "file:///host/root");
  std::vector<uint8_t> bytes = Bytes(100000, 10);
  MemoryReader reader{&bytes};
  lake_location* loc = nullptr;
  lake_error* err = nullptr;

  host.fail_uploads = true;
  CHECK(lake_stage_upload_reader(stage.get(), &MemoryReader::Read, &reader, nullptr, &loc, &err) ==
        LAKE_IO);
  REQUIRE(err != nullptr);
  CHECK(strstr(lake_error_message(err), "disk on fire") != nullptr);
  lake_error_free(err);

  host.fail_uploads = false;
  host.stop_upload_early = true;
  err = nullptr;
  reader.offset = 0;
  CHECK(lake_stage_upload_reader(stage.get(), &MemoryReader::Read, &reader, nullptr, &loc, &err) ==
        LAKE_IO);
  lake_error_free(err);
  CHECK(host.objects.empty());  // what the host stored was taken back
}

TEST_CASE("a host store table is validated") {
  HostStore host;
  lake_host_store table = host.Table("not a uri");
  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_host_store(opts, &table, nullptr) == LAKE_OK);
  lake_stage* stage = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_stage_open(opts, &stage, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  table = host.Table("s3://bucket/p");
  table.version = 99;
  REQUIRE(lake_stage_options_set_host_store(opts, &table, nullptr) == LAKE_OK);
  err = nullptr;
  CHECK(lake_stage_open(opts, &stage, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  lake_stage_options_free(opts);
}

}  // namespace

namespace {

TEST_CASE("a root records its local stage and reopens it") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  lake_db* db = nullptr;
  REQUIRE(lake_db_open(root.c_str(), nullptr, &db, nullptr) == LAKE_OK);
  CHECK(std::string(lake_stage_descriptor(lake_db_stage(db))) == "{\"version\":1,\"kind\":\"local\"}");
  Location loc = Upload(lake_db_stage(db), Bytes(100, 30));
  CHECK(std::string(lake_location_uri(loc.get())).find("/root/stage/objects/") != std::string::npos);
  lake_db_free(db);
  CHECK(std::filesystem::exists(root + "/stage.json"));

  // S3 options disagree with the recorded local stage.
  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_s3(opts, "s3://some-bucket/p", nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  CHECK(lake_db_open(root.c_str(), opts, &db, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  lake_stage_options_free(opts);

  // A damaged record is refused, not guessed at.
  std::ofstream(root + "/stage.json", std::ios::trunc) << "{\"version\":1}";
  err = nullptr;
  CHECK(lake_db_open(root.c_str(), nullptr, &db, &err) == LAKE_INTEGRITY);
  lake_error_free(err);
}

// A version 2 format record (`printf 'lake_root_format=2' | sha256sum`): a
// layout newer than this lake's.
constexpr char kNewerFormatRecord[] =
    "{\"lake_root_format\":2,\"sha256\":"
    "\"e4764586bc60d7448d7f6029ee1d3477576804ae78d435da58f4da7ef3b98663\"}\n";

TEST_CASE("a new root records its format version") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  lake_db* db = nullptr;
  REQUIRE(lake_db_open(root.c_str(), nullptr, &db, nullptr) == LAKE_OK);
  lake_db_free(db);
  std::ifstream in(root + "/format.json");
  std::string record((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(record.find("{\"lake_root_format\":1,") == 0);
}

TEST_CASE("a root of a newer format is refused before anything else of it is read") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  std::filesystem::create_directories(root);
  std::ofstream(root + "/format.json") << kNewerFormatRecord;
  std::ofstream(root + "/stage.json") << "not a stage record";  // never read
  for (bool follower : {false, true}) {
    CAPTURE(follower);
    lake_db* db = nullptr;
    lake_error* err = nullptr;
    lake_status status = follower ? lake_db_open_follower(root.c_str(), 0, &db, &err)
                                  : lake_db_open(root.c_str(), nullptr, &db, &err);
    CHECK(status == LAKE_UNSUPPORTED);
    std::string message = lake_error_message(err);
    CHECK(message.find("format version 2") != std::string::npos);
    CHECK(message.find("up to 1") != std::string::npos);
    lake_error_free(err);
    CHECK(db == nullptr);
  }
  CHECK_FALSE(std::filesystem::exists(root + "/registry"));
  CHECK_FALSE(std::filesystem::exists(root + "/stage"));
}

TEST_CASE("a root created before format records keeps opening, and is left as it was") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  lake_db* db = nullptr;
  REQUIRE(lake_db_open(root.c_str(), nullptr, &db, nullptr) == LAKE_OK);
  const char* columns[] = {"x:int64"};
  REQUIRE(lake_table_create(db, "a.t", columns, 1, nullptr) == LAKE_OK);
  lake_db_free(db);
  std::filesystem::remove(root + "/format.json");
  REQUIRE(lake_db_open(root.c_str(), nullptr, &db, nullptr) == LAKE_OK);
  lake_db_free(db);
  REQUIRE(lake_db_open_follower(root.c_str(), 0, &db, nullptr) == LAKE_OK);
  lake_db_free(db);
  CHECK_FALSE(std::filesystem::exists(root + "/format.json"));
}

TEST_CASE("S3 stage options are validated") {
  lake_stage_options* opts = lake_stage_options_new();
  lake_error* err = nullptr;
  CHECK(lake_stage_options_set_s3(opts, "s3://Bad_Bucket/x", &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_stage_options_set_s3(opts, "http://x/y", &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_stage_options_set_s3(opts, "s3://bucket/a/../b", &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  for (uint32_t bad : {0u, 17u}) {
    err = nullptr;
    CHECK(lake_stage_options_set_s3_concurrency(opts, bad, &err) == LAKE_INVALID_ARGUMENT);
    lake_error_free(err);
  }
  CHECK(lake_stage_options_set_s3_concurrency(opts, 16, nullptr) == LAKE_OK);
  err = nullptr;
  CHECK(lake_stage_options_set_s3_endpoint(opts, "http://host/path", &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_stage_options_set_descriptor(opts, "{\"version\":7}", 13, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  lake_stage_options_free(opts);
}

TEST_CASE("S3 download streams and range size are validated") {
  lake_stage_options* opts = lake_stage_options_new();
  for (uint32_t bad : {0u, 17u}) {
    lake_error* err = nullptr;
    CHECK(lake_stage_options_set_s3_download_streams(opts, bad, &err) == LAKE_INVALID_ARGUMENT);
    lake_error_free(err);
  }
  for (uint64_t bad : {uint64_t{0}, uint64_t{64 * 1024 - 1}, (uint64_t{1} << 30) + 1}) {
    lake_error* err = nullptr;
    CHECK(lake_stage_options_set_s3_download_range_size(opts, bad, &err) == LAKE_INVALID_ARGUMENT);
    lake_error_free(err);
  }
  CHECK(lake_stage_options_set_s3_download_streams(opts, 1, nullptr) == LAKE_OK);
  CHECK(lake_stage_options_set_s3_download_streams(opts, 16, nullptr) == LAKE_OK);
  CHECK(lake_stage_options_set_s3_download_range_size(opts, 64 * 1024, nullptr) == LAKE_OK);
  CHECK(lake_stage_options_set_s3_download_range_size(opts, uint64_t{1} << 30, nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  CHECK(lake_stage_options_set_s3_download_streams(nullptr, 4, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  lake_stage_options_free(opts);
}

TEST_CASE("S3 C ABI: an S3 stage: upload, verified read, presign, descriptor") {
  const char* endpoint = getenv("AWS_ENDPOINT_URL");
  const char* state = getenv("LAKE_S3_STATE_DIR");
  REQUIRE_MESSAGE(endpoint != nullptr, "needs scripts/s3-test-server (scripts/test starts it)");
  REQUIRE(state != nullptr);
  std::string bucket = "lake-cabi-" + std::to_string(getpid()) + "-" + std::to_string(rand() % 100000);
  const char* source = getenv("LAKE_SOURCE_ROOT");
  REQUIRE(source != nullptr);
  REQUIRE(system(("cd " + std::string(source) + " && scripts/s3-test-server mb " + state + " " +
                  bucket + " >/dev/null").c_str()) == 0);

  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_s3(opts, ("s3://" + bucket + "/c abi").c_str(), nullptr) == LAKE_OK);
  REQUIRE(lake_stage_options_set_s3_endpoint(opts, endpoint, nullptr) == LAKE_OK);
  lake_stage_options_set_s3_path_style(opts, 1);
  REQUIRE(lake_stage_options_set_s3_part_size(opts, 256 * 1024, nullptr) == LAKE_OK);
  // 600000 bytes are three 200000-byte ranges: read as a parallel download.
  REQUIRE(lake_stage_options_set_s3_download_streams(opts, 2, nullptr) == LAKE_OK);
  REQUIRE(lake_stage_options_set_s3_download_range_size(opts, 200000, nullptr) == LAKE_OK);
  lake_stage* raw = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_stage_open(opts, &raw, &err);
  lake_stage_options_free(opts);
  REQUIRE_MESSAGE(status == LAKE_OK, (err ? lake_error_message(err) : ""));
  Stage stage(raw);
  CHECK(std::string(lake_stage_io_backend(stage.get())) == "s3");
  std::string descriptor = lake_stage_descriptor(stage.get());
  CHECK(descriptor.find("\"kind\":\"s3\"") != std::string::npos);
  CHECK(descriptor.find("\"prefix\":\"c abi\"") != std::string::npos);

  std::vector<uint8_t> bytes = Bytes(600000, 31);
  Location loc = Upload(stage.get(), bytes);
  lake_reader* reader = nullptr;
  REQUIRE(lake_reader_open(stage.get(), loc.get(), &reader, nullptr) == LAKE_OK);
  Reader owned(reader);
  std::vector<uint8_t> out;
  Error error;
  CHECK(ReadAllBytes(reader, &out, &error) == LAKE_OK);
  CHECK(out == bytes);
  CHECK(lake_reader_verified(reader) == 1);

  char* url = nullptr;
  REQUIRE(lake_stage_presign(stage.get(), loc.get(), 60, &url, nullptr) == LAKE_OK);
  CHECK(std::string(url).find("X-Amz-Signature=") != std::string::npos);
  lake_string_free(url);
  err = nullptr;
  CHECK(lake_stage_presign(stage.get(), loc.get(), 3601, &url, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);

  // Opening from the descriptor reaches the same objects.
  opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_descriptor(opts, descriptor.data(), descriptor.size(), nullptr) ==
          LAKE_OK);
  REQUIRE(lake_stage_open(opts, &raw, nullptr) == LAKE_OK);
  lake_stage_options_free(opts);
  Stage again(raw);
  REQUIRE(lake_reader_open(again.get(), loc.get(), &reader, nullptr) == LAKE_OK);
  Reader owned_again(reader);
  out.clear();
  CHECK(ReadAllBytes(reader, &out, &error) == LAKE_OK);
  CHECK(out == bytes);
}

}  // namespace

namespace {

struct DbFree { void operator()(lake_db* d) const { lake_db_free(d); } };
struct StatementFree { void operator()(lake_statement* s) const { lake_statement_free(s); } };
using Db = std::unique_ptr<lake_db, DbFree>;
using Statement = std::unique_ptr<lake_statement, StatementFree>;

// The root at `root` opened as a writer (created if need be), or the test
// case stops.
Db OpenDb(const std::string& root) {
  lake_db* raw = nullptr;
  REQUIRE(lake_db_open(root.c_str(), nullptr, &raw, nullptr) == LAKE_OK);
  return Db(raw);
}

struct ReadState {
  std::string bytes;
  size_t offset = 0;
};
int64_t ReadFromState(void* ctx, uint8_t* buf, size_t cap) {
  auto* state = static_cast<ReadState*>(ctx);
  size_t n = std::min(cap, state->bytes.size() - state->offset);
  memcpy(buf, state->bytes.data() + state->offset, n);
  state->offset += n;
  return static_cast<int64_t>(n);
}

TEST_CASE("a follower changes nothing in a root: no tables or no stage record is NOT_FOUND") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  lake_db* raw = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_db_open_follower(root.c_str(), 0, &raw, &err) == LAKE_NOT_FOUND);
  lake_error_free(err);
  CHECK_FALSE(std::filesystem::exists(root));
  REQUIRE(lake_db_open(root.c_str(), nullptr, &raw, nullptr) == LAKE_OK);
  const char* columns[] = {"x:int64"};
  REQUIRE(lake_table_create(raw, "a.t", columns, 1, nullptr) == LAKE_OK);
  lake_db_free(raw);
  // The stage record gone: a follower does not write a new one.
  std::filesystem::remove(root + "/stage.json");
  err = nullptr;
  CHECK(lake_db_open_follower(root.c_str(), 0, &raw, &err) == LAKE_NOT_FOUND);
  CHECK(std::string(lake_error_message(err)).find("stage record") != std::string::npos);
  lake_error_free(err);
  CHECK_FALSE(std::filesystem::exists(root + "/stage.json"));
}

TEST_CASE("lake_table_compact_segments: with no rolled segment nothing is rewritten") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  const char* columns[] = {"name:utf8"};
  REQUIRE(lake_table_create(db.get(), "ml.runs", columns, 1, nullptr) == LAKE_OK);
  lake_statement* raw_stmt = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "INSERT INTO ml.runs (name) VALUES (?)", &raw_stmt,
                          nullptr) == LAKE_OK);
  Statement insert(raw_stmt);
  REQUIRE(lake_statement_bind_utf8(insert.get(), 1, "a", 1, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_insert(insert.get(), nullptr, nullptr, nullptr) == LAKE_OK);
  char* json = nullptr;
  REQUIRE(lake_table_compact_segments(db.get(), "ml.runs", &json, nullptr) == LAKE_OK);
  CHECK(std::string(json) == "{\"compacted\":false,\"version\":1}");
  lake_string_free(json);
  CHECK(lake_table_compact_segments(db.get(), "ml.runs", nullptr, nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  CHECK(lake_table_compact_segments(db.get(), "ml.nope", nullptr, &err) == LAKE_NOT_FOUND);
  lake_error_free(err);
}

TEST_CASE("lake_table_tag and lake_table_expire: a retired version is NOT_FOUND, also for a follower") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  Db db = OpenDb(root);
  const char* columns[] = {"name:utf8"};
  REQUIRE(lake_table_create(db.get(), "ml.runs", columns, 1, nullptr) == LAKE_OK);
  for (const char* name : {"a", "b", "c"}) {
    lake_statement* raw_stmt = nullptr;
    REQUIRE(lake_db_prepare(db.get(), "INSERT INTO ml.runs (name) VALUES (?)", &raw_stmt,
                            nullptr) == LAKE_OK);
    Statement insert(raw_stmt);
    REQUIRE(lake_statement_bind_utf8(insert.get(), 1, name, 1, nullptr) == LAKE_OK);
    REQUIRE(lake_statement_insert(insert.get(), nullptr, nullptr, nullptr) == LAKE_OK);
  }
  lake_error* err = nullptr;
  REQUIRE(lake_table_tag(db.get(), "ml.runs", "golden", 1, nullptr) == LAKE_OK);
  CHECK(lake_table_tag(db.get(), "ml.runs", "golden", 2, &err) == LAKE_CONFLICT);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_table_expire(db.get(), "ml.runs", 0, -1, nullptr, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  char* json = nullptr;
  REQUIRE(lake_table_expire(db.get(), "ml.runs", 1, -1, &json, nullptr) == LAKE_OK);
  CHECK(std::string(json) == "{\"current_version\":3,\"retired\":[2]}");
  lake_string_free(json);

  lake_db* raw_follower = nullptr;
  REQUIRE(lake_db_open_follower(root.c_str(), 1, &raw_follower, nullptr) == LAKE_OK);
  Db follower(raw_follower);
  for (lake_db* reader : {db.get(), follower.get()}) {
    lake_statement* raw_stmt = nullptr;
    REQUIRE(lake_db_prepare(reader, "SELECT name FROM ml.runs AS OF VERSION 2", &raw_stmt,
                            nullptr) == LAKE_OK);
    Statement query(raw_stmt);
    struct ArrowArrayStream stream;
    err = nullptr;
    CHECK(lake_statement_query(query.get(), &stream, &err) == LAKE_NOT_FOUND);
    REQUIRE(err != nullptr);
    CHECK(std::string(lake_error_message(err)).find("version 2 of ml.runs was expired") !=
          std::string::npos);
    lake_error_free(err);
  }
  REQUIRE(lake_table_describe(db.get(), "ml.runs", &json, nullptr) == LAKE_OK);
  CHECK(std::string(json).find("\"expired_versions\":1") != std::string::npos);
  CHECK(std::string(json).find("\"tag\":\"golden\"") != std::string::npos);
  lake_string_free(json);
  REQUIRE(lake_table_untag(db.get(), "ml.runs", "golden", nullptr) == LAKE_OK);
  err = nullptr;
  CHECK(lake_table_untag(db.get(), "ml.runs", "golden", &err) == LAKE_NOT_FOUND);
  lake_error_free(err);
}

TEST_CASE("lake_table_drop takes the table out of every lookup; its name is free; a prepared INSERT then fails NOT_FOUND") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  Db db = OpenDb(root);
  const char* columns[] = {"name:utf8"};
  REQUIRE(lake_table_create(db.get(), "ml.runs", columns, 1, nullptr) == LAKE_OK);
  lake_statement* raw_stmt = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "INSERT INTO ml.runs (name) VALUES (?)", &raw_stmt, nullptr) ==
          LAKE_OK);
  Statement insert(raw_stmt);
  REQUIRE(lake_statement_bind_utf8(insert.get(), 1, "a", 1, nullptr) == LAKE_OK);

  REQUIRE(lake_table_drop(db.get(), "ml.runs", nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  char* json = nullptr;
  CHECK(lake_table_describe(db.get(), "ml.runs", &json, &err) == LAKE_NOT_FOUND);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_statement_insert(insert.get(), nullptr, nullptr, &err) == LAKE_NOT_FOUND);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_table_drop(db.get(), "ml.runs", &err) == LAKE_NOT_FOUND);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_table_drop(db.get(), "not a name", &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  CHECK(lake_table_drop(nullptr, "ml.runs", nullptr) == LAKE_INVALID_ARGUMENT);
  REQUIRE(lake_table_create(db.get(), "ml.runs", columns, 1, nullptr) == LAKE_OK);
  REQUIRE(lake_table_list(db.get(), &json, nullptr) == LAKE_OK);
  CHECK(std::string(json).find("\"version\":0") != std::string::npos);
  lake_string_free(json);
}

// The rows of `sql` (a count(*) SELECT) through the C ABI.
int64_t CountThroughC(lake_db* db, const char* sql) {
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db, sql, &raw, nullptr) == LAKE_OK);
  Statement count(raw);
  ArrowArrayStream stream{};
  REQUIRE(lake_statement_query(count.get(), &stream, nullptr) == LAKE_OK);
  ArrowArray batch{};
  REQUIRE(stream.get_next(&stream, &batch) == 0);
  REQUIRE((batch.release != NULL));
  REQUIRE(batch.n_children == 1);
  int64_t rows = static_cast<const int64_t*>(batch.children[0]->buffers[1])[0];
  batch.release(&batch);
  stream.release(&stream);
  return rows;
}

// A table ml.runs (name utf8, n int64) holding n = 1..5 at version 1.
void CreateFiveRuns(lake_db* db) {
  const char* columns[] = {"name:utf8", "n:int64"};
  REQUIRE(lake_table_create(db, "ml.runs", columns, 2, nullptr) == LAKE_OK);
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db, "INSERT INTO ml.runs (name, n) VALUES (?, ?), (?, ?), (?, ?), (?, ?), (?, ?)",
                          &raw, nullptr) == LAKE_OK);
  Statement insert(raw);
  for (int i = 1; i <= 5; ++i) {
    std::string name = "run-" + std::to_string(i);
    REQUIRE(lake_statement_bind_utf8(insert.get(), 2 * i - 1, name.data(), name.size(), nullptr) ==
            LAKE_OK);
    REQUIRE(lake_statement_bind_int64(insert.get(), 2 * i, i, nullptr) == LAKE_OK);
  }
  REQUIRE(lake_statement_insert(insert.get(), nullptr, nullptr, nullptr) == LAKE_OK);
}

TEST_CASE("a DELETE through the C ABI gives the new version and the rows it deleted") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  lake_db* raw = nullptr;
  REQUIRE(lake_db_open(root.c_str(), nullptr, &raw, nullptr) == LAKE_OK);
  Db db(raw);
  CreateFiveRuns(db.get());
  lake_statement* raw_stmt = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "DELETE FROM ml.runs WHERE n >= ?", &raw_stmt, nullptr) ==
          LAKE_OK);
  Statement del(raw_stmt);
  CHECK(lake_statement_parameter_count(del.get()) == 1);
  REQUIRE(lake_statement_bind_int64(del.get(), 1, 4, nullptr) == LAKE_OK);
  uint64_t version = 0;
  uint64_t rows = 0;
  REQUIRE(lake_statement_execute(del.get(), &version, &rows, nullptr) == LAKE_OK);
  CHECK(version == 2);
  CHECK(rows == 2);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs") == 3);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs AS OF VERSION 1") == 5);
  // Run again: nothing more matches, no version is committed.
  REQUIRE(lake_statement_execute(del.get(), &version, &rows, nullptr) == LAKE_OK);
  CHECK(version == 2);
  CHECK(rows == 0);
}

TEST_CASE("a DELETE without WHERE through the C ABI deletes every row") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  lake_db* raw = nullptr;
  REQUIRE(lake_db_open(root.c_str(), nullptr, &raw, nullptr) == LAKE_OK);
  Db db(raw);
  CreateFiveRuns(db.get());
  lake_statement* raw_stmt = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "DELETE FROM ml.runs", &raw_stmt, nullptr) == LAKE_OK);
  Statement del(raw_stmt);
  uint64_t rows = 0;
  REQUIRE(lake_statement_execute(del.get(), nullptr, &rows, nullptr) == LAKE_OK);
  CHECK(rows == 5);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs") == 0);
}

TEST_CASE("lake_statement_execute refuses an unbound placeholder, an INSERT and a SELECT") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  lake_db* raw = nullptr;
  REQUIRE(lake_db_open(root.c_str(), nullptr, &raw, nullptr) == LAKE_OK);
  Db db(raw);
  CreateFiveRuns(db.get());
  for (const char* sql : {"DELETE FROM ml.runs WHERE n = ?", "SELECT * FROM ml.runs",
                          "INSERT INTO ml.runs (n) VALUES (?)"}) {
    CAPTURE(sql);
    lake_statement* raw_stmt = nullptr;
    REQUIRE(lake_db_prepare(db.get(), sql, &raw_stmt, nullptr) == LAKE_OK);
    Statement stmt(raw_stmt);
    lake_error* err = nullptr;
    CHECK(lake_statement_execute(stmt.get(), nullptr, nullptr, &err) == LAKE_INVALID_ARGUMENT);
    lake_error_free(err);
  }
  // A DELETE is not a query either.
  lake_statement* raw_stmt = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "DELETE FROM ml.runs", &raw_stmt, nullptr) == LAKE_OK);
  Statement del(raw_stmt);
  ArrowArrayStream stream{};
  CHECK(lake_statement_query(del.get(), &stream, nullptr) == LAKE_INVALID_ARGUMENT);
  CHECK(lake_statement_execute(nullptr, nullptr, nullptr, nullptr) == LAKE_INVALID_ARGUMENT);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs") == 5);
}

// ---- Replace-where ----

constexpr char kReplaceRun[] =
    "INSERT INTO ml.runs REPLACE WHERE n >= ? (name, n) VALUES (?, ?), (?, ?), (?, ?)";

// Prepares kReplaceRun: replaces the rows with n >= `from` by three rows
// named `prefix`-1..3 with n = 10..12.
Statement PrepareReplaceRuns(lake_db* db, int64_t from, const std::string& prefix) {
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db, kReplaceRun, &raw, nullptr) == LAKE_OK);
  Statement stmt(raw);
  REQUIRE(lake_statement_parameter_count(stmt.get()) == 7);
  REQUIRE(lake_statement_bind_int64(stmt.get(), 1, from, nullptr) == LAKE_OK);
  for (int i = 0; i < 3; ++i) {
    std::string name = prefix + "-" + std::to_string(i + 1);
    REQUIRE(lake_statement_bind_utf8(stmt.get(), 2 + 2 * i, name.data(), name.size(), nullptr) ==
            LAKE_OK);
    REQUIRE(lake_statement_bind_int64(stmt.get(), 3 + 2 * i, 10 + i, nullptr) == LAKE_OK);
  }
  return stmt;
}

TEST_CASE("a replace-where through the C ABI gives the new version and both counts") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  Statement replace = PrepareReplaceRuns(db.get(), 4, "new");
  uint64_t version = 0;
  uint64_t rows = 0;
  REQUIRE(lake_statement_execute(replace.get(), &version, &rows, nullptr) == LAKE_OK);
  CHECK(version == 2);
  CHECK(rows == 2);
  uint64_t deleted = 0;
  uint64_t inserted = 0;
  lake_statement_changes(replace.get(), &deleted, &inserted);
  CHECK(deleted == 2);
  CHECK(inserted == 3);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs") == 6);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs AS OF VERSION 1") == 5);
}

TEST_CASE("a replace-where's counts are zero before a run and after a DELETE none") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  Statement replace = PrepareReplaceRuns(db.get(), 4, "new");
  uint64_t deleted = 7;
  uint64_t inserted = 7;
  lake_statement_changes(replace.get(), &deleted, &inserted);
  CHECK(deleted == 0);
  CHECK(inserted == 0);
  lake_statement_changes(nullptr, &deleted, &inserted);
  CHECK(deleted == 0);
  lake_statement_changes(replace.get(), nullptr, nullptr);
}

TEST_CASE("a replace-where through the C ABI refuses a bad WHERE value, committing nothing") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  lake_statement* raw = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_db_prepare(db.get(), "INSERT INTO ml.runs REPLACE n = ? (n) VALUES (?)", &raw, &err) ==
        LAKE_INVALID_ARGUMENT);
  CHECK(std::string(lake_error_message(err)).find("expected WHERE, found 'n' at offset 28") !=
        std::string::npos);
  lake_error_free(err);
  Statement replace = PrepareReplaceRuns(db.get(), 4, "new");
  err = nullptr;
  CHECK(lake_statement_bind_text(replace.get(), 1, "four", &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  lake_statement_free(replace.release());
  REQUIRE(lake_db_prepare(db.get(), kReplaceRun, &raw, nullptr) == LAKE_OK);
  Statement unbound(raw);
  err = nullptr;
  CHECK(lake_statement_execute(unbound.get(), nullptr, nullptr, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs") == 5);
}

// A table ml.clips (name utf8, video file) with clip-1 at version 1.
void CreateClips(lake_db* db) {
  const char* columns[] = {"name:utf8", "video:file"};
  REQUIRE(lake_table_create(db, "ml.clips", columns, 2, nullptr) == LAKE_OK);
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db, "INSERT INTO ml.clips (name) VALUES (?)", &raw, nullptr) == LAKE_OK);
  Statement insert(raw);
  REQUIRE(lake_statement_bind_utf8(insert.get(), 1, "clip-1", 6, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_insert(insert.get(), nullptr, nullptr, nullptr) == LAKE_OK);
}

// A reader that runs `between` at its first call (while the replace-where
// uploads, after it read its base), then reads `bytes`.
struct InterposingReader {
  ReadState state;
  std::function<void()> between;
};
int64_t ReadInterposing(void* ctx, uint8_t* buf, size_t cap) {
  auto* reader = static_cast<InterposingReader*>(ctx);
  if (reader->between) {
    reader->between();
    reader->between = nullptr;
  }
  return ReadFromState(&reader->state, buf, cap);
}

// Runs the replace-where of clip-1 by clip-2 (its video from `reader`):
// its status, with the error's message.
std::pair<lake_status, std::string> ReplaceClip(lake_db* db, InterposingReader* reader) {
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db,
                          "INSERT INTO ml.clips REPLACE WHERE name = ? (name, video) VALUES (?, ?)",
                          &raw, nullptr) == LAKE_OK);
  Statement replace(raw);
  REQUIRE(lake_statement_bind_utf8(replace.get(), 1, "clip-1", 6, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_bind_utf8(replace.get(), 2, "clip-2", 6, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_bind_file_reader(replace.get(), 3, ReadInterposing, reader, "video/mp4",
                                          nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  lake_status status = lake_statement_execute(replace.get(), nullptr, nullptr, &err);
  std::string message = err != nullptr ? lake_error_message(err) : "";
  lake_error_free(err);
  return {status, message};
}

// The names of ml.clips' current rows, sorted, joined by ','.
std::string ClipNames(lake_db* db) {
  std::vector<std::string> names;
  for (const char* name : {"clip-1", "clip-2", "clip-3"}) {
    lake_statement* raw = nullptr;
    REQUIRE(lake_db_prepare(db, "SELECT count(*) FROM ml.clips WHERE name = ?", &raw, nullptr) ==
            LAKE_OK);
    Statement count(raw);
    REQUIRE(lake_statement_bind_utf8(count.get(), 1, name, strlen(name), nullptr) == LAKE_OK);
    ArrowArrayStream stream{};
    REQUIRE(lake_statement_query(count.get(), &stream, nullptr) == LAKE_OK);
    ArrowArray batch{};
    REQUIRE(stream.get_next(&stream, &batch) == 0);
    REQUIRE((batch.release != NULL));
    int64_t rows = static_cast<const int64_t*>(batch.children[0]->buffers[1])[0];
    batch.release(&batch);
    stream.release(&stream);
    for (int64_t i = 0; i < rows; ++i) names.push_back(name);
  }
  std::string joined;
  for (const std::string& n : names) joined += (joined.empty() ? "" : ",") + n;
  return joined;
}

void InsertClip(lake_db* db, const std::string& name) {
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db, "INSERT INTO ml.clips (name) VALUES (?)", &raw, nullptr) == LAKE_OK);
  Statement insert(raw);
  REQUIRE(lake_statement_bind_utf8(insert.get(), 1, name.data(), name.size(), nullptr) == LAKE_OK);
  REQUIRE(lake_statement_insert(insert.get(), nullptr, nullptr, nullptr) == LAKE_OK);
}

TEST_CASE("an INSERT on another thread of the same db during a replace-where is a conflict") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateClips(db.get());
  InterposingReader reader;
  reader.state.bytes = std::string(5000, 'v');
  reader.between = [&] {
    std::thread other([&] { InsertClip(db.get(), "clip-3"); });
    other.join();
  };
  auto [status, message] = ReplaceClip(db.get(), &reader);
  CHECK(status == LAKE_CONFLICT);
  CAPTURE(message);
  // The INSERT stands; nothing of the replace-where was committed.
  CHECK(ClipNames(db.get()) == "clip-1,clip-3");
}

// Runs in a fresh copy of this binary: inserts clip-3 into the root's
// ml.clips, as another process.
constexpr char kClipInserterChild[] = "child process: an INSERT during another's replace-where";

TEST_CASE(kClipInserterChild * doctest::skip()) {
  const char* root = getenv("LAKE_CABI_CHILD_ROOT");
  REQUIRE(root != nullptr);
  Db db = OpenDb(root);
  InsertClip(db.get(), "clip-3");
}

TEST_CASE("an INSERT by another process during a replace-where is a conflict") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  Db db = OpenDb(root);
  CreateClips(db.get());
  InterposingReader reader;
  reader.state.bytes = std::string(5000, 'v');
  int child_status = -1;
  reader.between = [&] {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      setenv("LAKE_CABI_CHILD_ROOT", root.c_str(), 1);
      int quiet = open("/dev/null", O_WRONLY);
      if (quiet >= 0) dup2(quiet, 1);
      std::string filter = std::string("--test-case=") + kClipInserterChild;
      execl("/proc/self/exe", "c_abi_tests", "--no-skip", filter.c_str(), "--no-version",
            (char*)nullptr);
      _exit(127);
    }
    REQUIRE(waitpid(pid, &child_status, 0) == pid);
  };
  auto [status, message] = ReplaceClip(db.get(), &reader);
  REQUIRE(WIFEXITED(child_status));
  REQUIRE(WEXITSTATUS(child_status) == 0);
  CHECK(status == LAKE_CONFLICT);
  CAPTURE(message);
  CHECK(ClipNames(db.get()) == "clip-1,clip-3");
  // Run again, it replaces on the new base.
  InterposingReader again;
  again.state.bytes = std::string(5000, 'w');
  CHECK(ReplaceClip(db.get(), &again).first == LAKE_OK);
  CHECK(ClipNames(db.get()) == "clip-2,clip-3");
}

// ---- DROP TABLE and ALTER TABLE through prepared statements ----

// Prepares and runs `sql` (no placeholders): its status; *version and
// *count as lake_statement_execute gives them; the error's message.
lake_status ExecuteSql(lake_db* db, const char* sql, uint64_t* version = nullptr,
                       uint64_t* count = nullptr, std::string* message = nullptr) {
  lake_statement* raw = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_db_prepare(db, sql, &raw, &err);
  if (status == LAKE_OK) {
    Statement stmt(raw);
    status = lake_statement_execute(stmt.get(), version, count, &err);
  }
  if (message != nullptr) *message = err != nullptr ? lake_error_message(err) : "";
  lake_error_free(err);
  return status;
}

// Appends one more row to ml.runs (a new version).
void AppendRun(lake_db* db, int64_t n) {
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db, "INSERT INTO ml.runs (n) VALUES (?)", &raw, nullptr) == LAKE_OK);
  Statement insert(raw);
  REQUIRE(lake_statement_bind_int64(insert.get(), 1, n, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_insert(insert.get(), nullptr, nullptr, nullptr) == LAKE_OK);
}

// Whether `sql` (a query) can be run: its status.
lake_status QueryStatus(lake_db* db, const char* sql) {
  lake_statement* raw = nullptr;
  lake_status status = lake_db_prepare(db, sql, &raw, nullptr);
  if (status != LAKE_OK) return status;
  Statement stmt(raw);
  ArrowArrayStream stream{};
  status = lake_statement_query(stmt.get(), &stream, nullptr);
  if (status == LAKE_OK) stream.release(&stream);
  return status;
}

TEST_CASE("DROP TABLE through a prepared statement drops the table") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  uint64_t version = 0;
  uint64_t count = 9;
  REQUIRE(ExecuteSql(db.get(), "DROP TABLE ml.runs", &version, &count) == LAKE_OK);
  CHECK(version == 1);
  CHECK(count == 0);
  CHECK(QueryStatus(db.get(), "SELECT * FROM ml.runs") == LAKE_NOT_FOUND);
  // Its name is free at once.
  const char* columns[] = {"n:int64"};
  CHECK(lake_table_create(db.get(), "ml.runs", columns, 1, nullptr) == LAKE_OK);
}

TEST_CASE("DROP TABLE of a table dropped since it was prepared is NOT_FOUND") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "DROP TABLE ml.runs", &raw, nullptr) == LAKE_OK);
  Statement drop(raw);
  REQUIRE(lake_table_drop(db.get(), "ml.runs", nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  CHECK(lake_statement_execute(drop.get(), nullptr, nullptr, &err) == LAKE_NOT_FOUND);
  lake_error_free(err);
}

TEST_CASE("ALTER TABLE CREATE TAG pins a version that EXPIRE VERSIONS then keeps") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  AppendRun(db.get(), 6);
  AppendRun(db.get(), 7);
  uint64_t version = 0;
  REQUIRE(ExecuteSql(db.get(), "ALTER TABLE ml.runs CREATE TAG first AS OF VERSION 1", &version) ==
          LAKE_OK);
  CHECK(version == 1);
  uint64_t retired = 0;
  REQUIRE(ExecuteSql(db.get(), "ALTER TABLE ml.runs EXPIRE VERSIONS KEEP LAST 1", &version,
                     &retired) == LAKE_OK);
  CHECK(version == 3);
  CHECK(retired == 1);  // version 2; version 1 is tagged
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs AS OF VERSION 1") == 5);
  CHECK(QueryStatus(db.get(), "SELECT * FROM ml.runs AS OF VERSION 2") == LAKE_NOT_FOUND);
}

TEST_CASE("ALTER TABLE CREATE TAG of a tag the table has is a conflict") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  REQUIRE(ExecuteSql(db.get(), "ALTER TABLE ml.runs CREATE TAG v AS OF VERSION 1") == LAKE_OK);
  CHECK(ExecuteSql(db.get(), "ALTER TABLE ml.runs CREATE TAG v AS OF VERSION 1") == LAKE_CONFLICT);
}

TEST_CASE("ALTER TABLE CREATE TAG of a version the table never had is NOT_FOUND") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  CHECK(ExecuteSql(db.get(), "ALTER TABLE ml.runs CREATE TAG v AS OF VERSION 9") == LAKE_NOT_FOUND);
}

TEST_CASE("ALTER TABLE DROP TAG of a tag the table does not have is NOT_FOUND") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  CHECK(ExecuteSql(db.get(), "ALTER TABLE ml.runs DROP TAG v") == LAKE_NOT_FOUND);
}

TEST_CASE("ALTER TABLE DROP TAG unpins the version, so an expiry retires it") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  AppendRun(db.get(), 6);
  REQUIRE(ExecuteSql(db.get(), "ALTER TABLE ml.runs CREATE TAG first AS OF VERSION 1") == LAKE_OK);
  uint64_t version = 0;
  REQUIRE(ExecuteSql(db.get(), "ALTER TABLE ml.runs DROP TAG first", &version) == LAKE_OK);
  CHECK(version == 2);
  uint64_t retired = 0;
  REQUIRE(ExecuteSql(db.get(), "ALTER TABLE ml.runs EXPIRE VERSIONS KEEP LAST 1", nullptr,
                     &retired) == LAKE_OK);
  CHECK(retired == 1);
  CHECK(QueryStatus(db.get(), "SELECT * FROM ml.runs AS OF VERSION 1") == LAKE_NOT_FOUND);
}

TEST_CASE("ALTER TABLE EXPIRE VERSIONS OLDER THAN spares versions younger than the bound") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  AppendRun(db.get(), 6);
  uint64_t retired = 9;
  REQUIRE(ExecuteSql(db.get(), "ALTER TABLE ml.runs EXPIRE VERSIONS OLDER THAN 1 HOUR", nullptr,
                     &retired) == LAKE_OK);
  CHECK(retired == 0);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs AS OF VERSION 1") == 5);
}

TEST_CASE("DROP TABLE and ALTER TABLE outside the grammar name the token, changing nothing") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  AppendRun(db.get(), 6);
  std::string message;
  CHECK(ExecuteSql(db.get(), "ALTER TABLE ml.runs EXPIRE VERSIONS KEEP LAST 0", nullptr, nullptr,
                   &message) == LAKE_INVALID_ARGUMENT);
  CHECK(message.find("found 0 at offset 46") != std::string::npos);
  CHECK(ExecuteSql(db.get(), "DROP TABLES ml.runs", nullptr, nullptr, &message) ==
        LAKE_INVALID_ARGUMENT);
  CHECK(message.find("expected TABLE, found 'TABLES' at offset 5") != std::string::npos);
  CHECK(ExecuteSql(db.get(), "ALTER TABLE ml.runs CREATE TAG 1st AS OF VERSION 1", nullptr,
                   nullptr, &message) == LAKE_INVALID_ARGUMENT);
  CHECK(message.find("offset 31") != std::string::npos);
  CHECK(ExecuteSql(db.get(), "DROP TABLE ml.nope") == LAKE_NOT_FOUND);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs AS OF VERSION 1") == 5);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs") == 6);
}

TEST_CASE("DROP TABLE and ALTER TABLE run only with lake_statement_execute") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CreateFiveRuns(db.get());
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "DROP TABLE ml.runs", &raw, nullptr) == LAKE_OK);
  Statement drop(raw);
  CHECK(lake_statement_parameter_count(drop.get()) == 0);
  lake_error* err = nullptr;
  CHECK(lake_statement_insert(drop.get(), nullptr, nullptr, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  ArrowArrayStream stream{};
  CHECK(lake_statement_query(drop.get(), &stream, nullptr) == LAKE_INVALID_ARGUMENT);
  CHECK(CountThroughC(db.get(), "SELECT count(*) FROM ml.runs") == 5);
}

TEST_CASE("tables through the C ABI: insert with a reader, query as an Arrow stream, open its FILE") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  Db db = OpenDb(root);
  const char* columns[] = {"name:utf8", "score:float64", "ok:bool", "blob:binary", "video:file"};
  lake_error* err = nullptr;
  REQUIRE(lake_table_create(db.get(), "ml.runs", columns, 5, &err) == LAKE_OK);
  CHECK(lake_table_create(db.get(), "ml.runs", columns, 5, &err) == LAKE_CONFLICT);
  lake_error_free(err);
  err = nullptr;

  lake_statement* raw_stmt = nullptr;
  REQUIRE(lake_db_prepare(db.get(),
                          "INSERT INTO ml.runs (name, score, ok, blob, video) VALUES (?, ?, ?, ?, ?)",
                          &raw_stmt, &err) == LAKE_OK);
  Statement insert(raw_stmt);
  CHECK(lake_statement_parameter_count(insert.get()) == 5);
  ReadState video{std::string(70000, 'v')};
  REQUIRE(lake_statement_bind_utf8(insert.get(), 1, "run-1", 5, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_bind_float64(insert.get(), 2, 0.5, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_bind_bool(insert.get(), 3, 1, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_bind_binary(insert.get(), 4, "\x00\x01", 2, nullptr) == LAKE_OK);
  // A type mismatch is refused when bound.
  CHECK(lake_statement_bind_int64(insert.get(), 1, 3, &err) == LAKE_INVALID_ARGUMENT);
  CHECK(std::string(lake_error_message(err)).find("utf8") != std::string::npos);
  lake_error_free(err);
  err = nullptr;
  REQUIRE(lake_statement_bind_file_reader(insert.get(), 5, ReadFromState, &video, "video/mp4",
                                          nullptr) == LAKE_OK);
  uint64_t version = 0;
  REQUIRE(lake_statement_insert(insert.get(), nullptr, &version, &err) == LAKE_OK);
  CHECK(version == 1);

  REQUIRE(lake_db_prepare(db.get(), "SELECT name, video FROM ml.runs WHERE ok = ?", &raw_stmt,
                          nullptr) == LAKE_OK);
  Statement select(raw_stmt);
  REQUIRE(lake_statement_bind_text(select.get(), 1, "true", nullptr) == LAKE_OK);
  ArrowArrayStream stream{};
  REQUIRE(lake_statement_query(select.get(), &stream, nullptr) == LAKE_OK);
  select.reset();  // the stream outlives its statement
  ArrowSchema schema{};
  REQUIRE(stream.get_schema(&stream, &schema) == 0);
  CHECK(std::string(schema.format) == "+s");
  REQUIRE(schema.n_children == 2);
  CHECK(std::string(schema.children[1]->format) == "+s");
  ArrowArray batch{};
  REQUIRE(stream.get_next(&stream, &batch) == 0);
  REQUIRE((batch.release != NULL));
  CHECK(batch.length == 1);
  lake_location* loc = nullptr;
  REQUIRE(lake_location_from_arrow(&schema, &batch, 1, 0, &loc, nullptr) == LAKE_OK);
  Location location(loc);
  CHECK(lake_location_size_bytes(location.get()) == 70000);
  CHECK(std::string(lake_location_content_type(location.get())) == "video/mp4");
  CHECK(lake_location_from_arrow(&schema, &batch, 0, 0, &loc, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  err = nullptr;
  // The location opens for a verified read through the root's stage.
  lake_reader* raw_reader = nullptr;
  REQUIRE(lake_reader_open(lake_db_stage(db.get()), location.get(), &raw_reader, nullptr) == LAKE_OK);
  Reader reader(raw_reader);
  std::string back;
  for (;;) {
    char chunk[65536];
    size_t n = 0;
    REQUIRE(lake_reader_read(reader.get(), chunk, sizeof chunk, &n, nullptr) == LAKE_OK);
    if (n == 0) break;
    back.append(chunk, n);
  }
  CHECK(back == video.bytes);
  batch.release(&batch);
  ArrowArray end{};
  REQUIRE(stream.get_next(&stream, &end) == 0);
  CHECK((end.release == NULL));
  schema.release(&schema);
  stream.release(&stream);

  // A follower in this process reads the same table without the writer's lock.
  lake_db* raw_follower = nullptr;
  REQUIRE(lake_db_open_follower(root.c_str(), 10, &raw_follower, nullptr) == LAKE_OK);
  Db follower(raw_follower);
  char* json = nullptr;
  REQUIRE(lake_table_list(follower.get(), &json, nullptr) == LAKE_OK);
  CHECK(std::string(json).find("\"name\":\"ml.runs\"") != std::string::npos);
  lake_string_free(json);
  CHECK(lake_db_view_age_micros(follower.get()) >= 0);
  const char* one[] = {"x:int64"};
  CHECK(lake_table_create(follower.get(), "ml.other", one, 1, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  REQUIRE(lake_db_pending_appends(db.get(), &json, nullptr) == LAKE_OK);
  CHECK(std::string(json) == "[]");
  lake_string_free(json);

  // The INSERT runs again: its values stay bound, but the reader was read
  // to its end by the first run, so that FILE must be bound again.
  CHECK(lake_statement_insert(insert.get(), nullptr, &version, &err) == LAKE_INVALID_ARGUMENT);
  CHECK(std::string(lake_error_message(err)).find("parameter 5 of 5 is not bound") !=
        std::string::npos);
  lake_error_free(err);
  err = nullptr;
  ReadState second_video{std::string(100, 'w')};
  REQUIRE(lake_statement_bind_file_reader(insert.get(), 5, ReadFromState, &second_video,
                                          "video/mp4", nullptr) == LAKE_OK);
  REQUIRE(lake_statement_insert(insert.get(), nullptr, &version, &err) == LAKE_OK);
  CHECK(version == 2);
  REQUIRE(lake_table_describe(db.get(), "ml.runs", &json, nullptr) == LAKE_OK);
  CHECK(std::string(json).find("\"total_rows\":2") != std::string::npos);
  // Two small appends share the active log segment: no rolled one to list.
  CHECK(std::string(json).find("\"log_segments\":[]") != std::string::npos);
  lake_string_free(json);

  // A reader bound again and again replaces the one before: the statement
  // keeps one per parameter, not one per call (glibc's count of allocated
  // bytes; an AddressSanitizer build reports none and checks nothing here).
  size_t allocated_before = mallinfo2().uordblks;
  for (int i = 0; i < 20000; ++i) {
    REQUIRE(lake_statement_bind_file_reader(insert.get(), 5, ReadFromState, &second_video,
                                            "video/mp4", nullptr) == LAKE_OK);
  }
  size_t allocated_after = mallinfo2().uordblks;
  CHECK(allocated_after < allocated_before + 64 * 1024);
}

// ---- appends that fail, and the checkpoints they leave ----

// Failpoints reach the library only through the environment of a process
// that has not hit one yet (they are read once): this case runs in a fresh
// copy of this binary (RunInsertChild) and is skipped otherwise.
constexpr char kInsertChild[] = "child process: one INSERT under LAKE_FAILPOINTS";

// The root of a table ml.ops (id utf8) with no row, its writer lock free.
std::string CreateOpsRoot(const ScratchDir& dir) {
  std::string root = dir.path + "/root";
  Db db = OpenDb(root);
  const char* columns[] = {"id:utf8"};
  REQUIRE(lake_table_create(db.get(), "ml.ops", columns, 1, nullptr) == LAKE_OK);
  return root;
}

// Inserts one row into ml.ops; the outcome as "<status> <retryable>
// <pending operation id, or ->".
std::string InsertOp(lake_db* db) {
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db, "INSERT INTO ml.ops (id) VALUES (?)", &raw, nullptr) == LAKE_OK);
  Statement insert(raw);
  REQUIRE(lake_statement_bind_utf8(insert.get(), 1, "op", 2, nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  uint64_t version = 0;
  lake_status status = lake_statement_insert(insert.get(), nullptr, &version, &err);
  Error owned(err);
  const char* pending = lake_error_pending_operation_id(err);
  std::ostringstream outcome;
  outcome << lake_status_name(status) << " " << lake_error_retryable(err) << " "
          << (pending != nullptr ? pending : "-");
  return outcome.str();
}

TEST_CASE(kInsertChild * doctest::skip()) {
  const char* root = getenv("LAKE_CABI_CHILD_ROOT");
  REQUIRE(root != nullptr);
  Db db = OpenDb(root);
  std::ofstream(std::string(root) + ".outcome") << InsertOp(db.get());
}

// Runs kInsertChild on `root` with LAKE_FAILPOINTS=`failpoints`; its outcome.
std::string RunInsertChild(const std::string& root, const std::string& failpoints) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("LAKE_FAILPOINTS", failpoints.c_str(), 1);
    setenv("LAKE_CABI_CHILD_ROOT", root.c_str(), 1);
    int quiet = open("/dev/null", O_WRONLY);
    if (quiet >= 0) dup2(quiet, 1);  // its doctest summary; failures go to stderr too
    std::string filter = std::string("--test-case=") + kInsertChild;
    execl("/proc/self/exe", "c_abi_tests", "--no-skip", filter.c_str(), "--no-version",
          (char*)nullptr);
    _exit(127);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::ifstream in(root + ".outcome");
  std::string outcome;
  std::getline(in, outcome);
  return outcome;
}

std::string JsonOf(lake_status (*call)(lake_db*, char**, lake_error**), lake_db* db) {
  char* json = nullptr;
  lake_error* err = nullptr;
  lake_status status = call(db, &json, &err);
  Error owned(err);
  REQUIRE_MESSAGE(status == LAKE_OK, (err ? lake_error_message(err) : ""));
  std::string text(json);
  lake_string_free(json);
  return text;
}

std::string TotalRows(lake_db* db) {
  char* json = nullptr;
  REQUIRE(lake_table_describe(db, "ml.ops", &json, nullptr) == LAKE_OK);
  std::string text(json);
  lake_string_free(json);
  size_t at = text.find("\"total_rows\":");
  REQUIRE(at != std::string::npos);
  return text.substr(at + 13, text.find_first_of(",}", at) - at - 13);
}

TEST_CASE("an INSERT that may still commit names its operation, is not retryable, and recover settles it") {
  ScratchDir dir;
  std::string root = CreateOpsRoot(dir);
  // The commit happened, then the INSERT failed.
  std::string outcome = RunInsertChild(root, "table_append.committed=error");
  REQUIRE(outcome.size() == strlen("LAKE_IO 0 ") + 36);
  CHECK(outcome.rfind("LAKE_IO 0 ", 0) == 0);
  std::string operation_id = outcome.substr(strlen("LAKE_IO 0 "));
  Db db = OpenDb(root);
  std::string pending = JsonOf(lake_db_pending_appends, db.get());
  CHECK(pending.find("\"operation_id\":\"" + operation_id + "\"") != std::string::npos);
  CHECK(pending.find("\"state\":\"already-committed\"") != std::string::npos);
  std::string recovered = JsonOf(lake_db_recover, db.get());
  CHECK(recovered.find(operation_id) != std::string::npos);
  CHECK(recovered.find("\"result\":\"already-committed\"") != std::string::npos);
  CHECK(TotalRows(db.get()) == "1");
  CHECK(JsonOf(lake_db_pending_appends, db.get()) == "[]");
}

TEST_CASE("an INSERT that failed before its commit has no pending operation: run again, it appends once") {
  ScratchDir dir;
  std::string root = CreateOpsRoot(dir);
  // A transient failure before the commit: nothing will commit, so retry.
  CHECK(RunInsertChild(root, "table_append.fragment_written=error") == "LAKE_IO 1 -");
  Db db = OpenDb(root);
  CHECK(JsonOf(lake_db_pending_appends, db.get()) == "[]");
  CHECK(JsonOf(lake_db_recover, db.get()) == "[]");
  CHECK(TotalRows(db.get()) == "0");
  CHECK(InsertOp(db.get()) == "LAKE_OK 0 -");
  CHECK(JsonOf(lake_db_recover, db.get()) == "[]");
  CHECK(TotalRows(db.get()) == "1");
  // No error, or another kind of error, names no operation.
  CHECK(lake_error_pending_operation_id(nullptr) == nullptr);
}

// A UUIDv7 made now (its random bits fixed).
std::string OperationIdNow() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  unsigned long long ms = static_cast<unsigned long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
  char text[64];
  snprintf(text, sizeof text, "%08llx-%04llx-7abc-8def-0123456789ab", (ms >> 16) & 0xffffffff,
           ms & 0xffff);
  return text;
}

// ---- many writer processes ----

// Writes `bytes` to `path` and inserts the row (id, that file) through
// `insert` (INSERT INTO ml.files (id, video) VALUES (?, ?)): "ok", or the
// failure's status name and message.
std::string InsertFileRow(lake_statement* insert, const std::string& id, const std::string& path,
                          const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  REQUIRE(lake_statement_bind_utf8(insert, 1, id.data(), id.size(), nullptr) == LAKE_OK);
  REQUIRE(lake_statement_bind_file_path(insert, 2, path.c_str(), "video/mp4", nullptr) ==
          LAKE_OK);
  lake_error* err = nullptr;
  uint64_t version = 0;
  lake_status status = lake_statement_insert(insert, nullptr, &version, &err);
  Error owned(err);
  if (status == LAKE_OK) return "ok";
  return std::string(lake_status_name(status)) + " " + lake_error_message(err);
}

// Runs in a fresh copy of this binary (RunWriterChildren), skipped otherwise.
constexpr char kWriterChild[] = "child process: one of many writers inserting rows with files";
constexpr int kWriterProcesses = 8;
constexpr int kRowsPerWriter = 6;

size_t WriterFileSize(int worker, int row) { return 20000 + 1000 * worker + row; }

TEST_CASE(kWriterChild * doctest::skip()) {
  const char* root = getenv("LAKE_CABI_CHILD_ROOT");
  const char* worker_env = getenv("LAKE_CABI_WORKER");
  REQUIRE(root != nullptr);
  REQUIRE(worker_env != nullptr);
  int worker = atoi(worker_env);
  std::string outcome_path = std::string(root) + ".outcome-" + worker_env;
  Db db = OpenDb(root);
  REQUIRE(lake_db_set_busy_timeout(db.get(), 120000, nullptr) == LAKE_OK);
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "INSERT INTO ml.files (id, video) VALUES (?, ?)", &raw,
                          nullptr) == LAKE_OK);
  Statement insert(raw);
  std::string outcome = "ok";
  for (int row = 0; row < kRowsPerWriter && outcome == "ok"; ++row) {
    std::string id = "w" + std::to_string(worker) + "-" + std::to_string(row);
    outcome = InsertFileRow(insert.get(), id, std::string(root) + "." + id + ".bin",
                            Bytes(WriterFileSize(worker, row), 1000 + worker * 10 + row));
  }
  std::ofstream(outcome_path) << outcome;
}

// Starts kWriterProcesses copies of kWriterChild on `root` at once and
// returns their outcomes once all have exited.
std::vector<std::string> RunWriterChildren(const std::string& root) {
  std::vector<pid_t> pids;
  for (int worker = 0; worker < kWriterProcesses; ++worker) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      setenv("LAKE_CABI_CHILD_ROOT", root.c_str(), 1);
      setenv("LAKE_CABI_WORKER", std::to_string(worker).c_str(), 1);
      int quiet = open("/dev/null", O_WRONLY);
      if (quiet >= 0) dup2(quiet, 1);
      std::string filter = std::string("--test-case=") + kWriterChild;
      execl("/proc/self/exe", "c_abi_tests", "--no-skip", filter.c_str(), "--no-version",
            (char*)nullptr);
      _exit(127);
    }
    pids.push_back(pid);
  }
  std::vector<std::string> outcomes;
  for (int worker = 0; worker < kWriterProcesses; ++worker) {
    int status = 0;
    REQUIRE(waitpid(pids[worker], &status, 0) == pids[worker]);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    std::ifstream in(root + ".outcome-" + std::to_string(worker));
    std::string outcome;
    std::getline(in, outcome);
    outcomes.push_back(outcome);
  }
  return outcomes;
}

// The string at `row` of an Arrow utf8 array.
std::string Utf8At(const ArrowArray* array, int64_t row) {
  const int32_t* offsets = static_cast<const int32_t*>(array->buffers[1]);
  const char* data = static_cast<const char*>(array->buffers[2]);
  int64_t at = array->offset + row;
  return std::string(data + offsets[at], offsets[at + 1] - offsets[at]);
}

TEST_CASE("8 writer processes insert rows with files into one table at once: all succeed, every row once") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  {
    Db db = OpenDb(root);
    const char* columns[] = {"id:utf8", "video:file"};
    REQUIRE(lake_table_create(db.get(), "ml.files", columns, 2, nullptr) == LAKE_OK);
  }
  std::vector<std::string> outcomes = RunWriterChildren(root);
  for (int worker = 0; worker < kWriterProcesses; ++worker) {
    CHECK_MESSAGE(outcomes[worker] == "ok", "writer ", worker, ": ", outcomes[worker]);
  }
  Db db = OpenDb(root);
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "SELECT id, video FROM ml.files", &raw, nullptr) == LAKE_OK);
  Statement select(raw);
  ArrowArrayStream stream{};
  REQUIRE(lake_statement_query(select.get(), &stream, nullptr) == LAKE_OK);
  ArrowSchema schema{};
  REQUIRE(stream.get_schema(&stream, &schema) == 0);
  std::map<std::string, int> seen;
  for (;;) {
    ArrowArray batch{};
    REQUIRE(stream.get_next(&stream, &batch) == 0);
    if (batch.release == NULL) break;
    for (int64_t row = 0; row < batch.length; ++row) {
      std::string id = Utf8At(batch.children[0], row);
      ++seen[id];
      // Each row's file is the one its writer uploaded: its size, verified
      // to the end.
      lake_location* loc = nullptr;
      REQUIRE(lake_location_from_arrow(&schema, &batch, 1, row, &loc, nullptr) == LAKE_OK);
      Location location(loc);
      int worker = 0;
      int index = 0;
      REQUIRE(sscanf(id.c_str(), "w%d-%d", &worker, &index) == 2);
      CHECK(lake_location_size_bytes(location.get()) == WriterFileSize(worker, index));
      lake_reader* raw_reader = nullptr;
      REQUIRE(lake_reader_open(lake_db_stage(db.get()), location.get(), &raw_reader, nullptr) ==
              LAKE_OK);
      Reader reader(raw_reader);
      std::vector<uint8_t> back;
      Error error;
      REQUIRE(ReadAllBytes(reader.get(), &back, &error) == LAKE_OK);
      CHECK(back == Bytes(WriterFileSize(worker, index), 1000 + worker * 10 + index));
    }
    batch.release(&batch);
  }
  schema.release(&schema);
  stream.release(&stream);
  CHECK(seen.size() == static_cast<size_t>(kWriterProcesses * kRowsPerWriter));
  for (const auto& [id, count] : seen) CHECK_MESSAGE(count == 1, id);
  // One version per row; no append was left pending.
  char* json = nullptr;
  REQUIRE(lake_table_describe(db.get(), "ml.files", &json, nullptr) == LAKE_OK);
  CHECK(std::string(json).find("\"version\":" + std::to_string(kWriterProcesses * kRowsPerWriter)) !=
        std::string::npos);
  lake_string_free(json);
  CHECK(JsonOf(lake_db_pending_appends, db.get()) == "[]");
}

// One writer of the owner-killed test, in a fresh copy of this binary:
// role "owner" opens the root first (it owns the registry), reports ready,
// and at the go inserts one row under LAKE_FAILPOINTS that kill it in the
// middle of its commit, holding the commit turn; role "writer" waits for
// the go and inserts kKilledOwnerRows rows, each with a larger file, so it
// usually reaches the commit turn while the owner holds it.
constexpr char kOwnerKilledChild[] = "child process: a writer while the registry's owner is killed";
constexpr int kKilledOwnerWriters = 3;
constexpr int kKilledOwnerRows = 3;

void WaitForFile(const std::string& path) {
  for (int i = 0; i < 3000 && !std::filesystem::exists(path); ++i) usleep(5000);
}

TEST_CASE(kOwnerKilledChild * doctest::skip()) {
  const char* root_env = getenv("LAKE_CABI_CHILD_ROOT");
  const char* role_env = getenv("LAKE_CABI_ROLE");
  REQUIRE(root_env != nullptr);
  REQUIRE(role_env != nullptr);
  std::string root = root_env;
  std::string role = role_env;
  Db db = OpenDb(root);
  REQUIRE(lake_db_set_busy_timeout(db.get(), 60000, nullptr) == LAKE_OK);
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db.get(), "INSERT INTO ml.files (id, video) VALUES (?, ?)", &raw,
                          nullptr) == LAKE_OK);
  Statement insert(raw);
  std::ofstream(root + ".ready-" + role) << "ready";
  WaitForFile(root + ".go");
  int rows = role == "owner" ? 1 : kKilledOwnerRows;
  size_t size = role == "owner" ? 1000 : 3 << 20;
  std::string outcome = "ok";
  for (int row = 0; row < rows && outcome == "ok"; ++row) {
    std::string id = role + "-" + std::to_string(row);
    outcome = InsertFileRow(insert.get(), id, root + "." + id + ".bin",
                            Bytes(size, 7000 + row + 10 * role.size()));
  }
  std::ofstream(root + ".outcome-" + role) << outcome;
}

pid_t StartOwnerKilledChild(const std::string& root, const std::string& role,
                            const std::string& failpoints) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("LAKE_FAILPOINTS", failpoints.c_str(), 1);
    setenv("LAKE_CABI_CHILD_ROOT", root.c_str(), 1);
    setenv("LAKE_CABI_ROLE", role.c_str(), 1);
    int quiet = open("/dev/null", O_WRONLY);
    if (quiet >= 0) dup2(quiet, 1);
    std::string filter = std::string("--test-case=") + kOwnerKilledChild;
    execl("/proc/self/exe", "c_abi_tests", "--no-skip", filter.c_str(), "--no-version",
          (char*)nullptr);
    _exit(127);
  }
  return pid;
}

std::map<std::string, int> RowIds(lake_db* db, const char* sql) {
  lake_statement* raw = nullptr;
  REQUIRE(lake_db_prepare(db, sql, &raw, nullptr) == LAKE_OK);
  Statement select(raw);
  ArrowArrayStream stream{};
  REQUIRE(lake_statement_query(select.get(), &stream, nullptr) == LAKE_OK);
  std::map<std::string, int> seen;
  for (;;) {
    ArrowArray batch{};
    REQUIRE(stream.get_next(&stream, &batch) == 0);
    if (batch.release == NULL) break;
    for (int64_t row = 0; row < batch.length; ++row) ++seen[Utf8At(batch.children[0], row)];
    batch.release(&batch);
  }
  stream.release(&stream);
  return seen;
}

TEST_CASE("the registry's owner SIGKILLed mid-commit: waiting writers take over and commit; recovery replays its append once") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  {
    Db db = OpenDb(root);
    const char* columns[] = {"id:utf8", "video:file"};
    REQUIRE(lake_table_create(db.get(), "ml.files", columns, 2, nullptr) == LAKE_OK);
  }
  // The owner first: its records written, its commit not queued (group
  // commit would have the others commit a queued one), when it dies.
  pid_t owner = StartOwnerKilledChild(root, "owner", "table_log.written=kill");
  WaitForFile(root + ".ready-owner");
  REQUIRE(std::filesystem::exists(root + ".ready-owner"));
  std::vector<pid_t> writers;
  for (int w = 0; w < kKilledOwnerWriters; ++w) {
    std::string role = "writer" + std::to_string(w);
    writers.push_back(StartOwnerKilledChild(root, role, ""));
    WaitForFile(root + ".ready-" + role);
  }
  std::ofstream(root + ".go") << "go";
  int status = 0;
  REQUIRE(waitpid(owner, &status, 0) == owner);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  for (int w = 0; w < kKilledOwnerWriters; ++w) {
    REQUIRE(waitpid(writers[w], &status, 0) == writers[w]);
    CHECK(WIFEXITED(status));
    std::ifstream in(root + ".outcome-writer" + std::to_string(w));
    std::string outcome;
    std::getline(in, outcome);
    CHECK_MESSAGE(outcome == "ok", "writer ", w, ": ", outcome);
  }
  Db db = OpenDb(root);
  std::map<std::string, int> before = RowIds(db.get(), "SELECT id FROM ml.files");
  CHECK(before.size() == static_cast<size_t>(kKilledOwnerWriters * kKilledOwnerRows));
  CHECK(before.count("owner-0") == 0);
  // The owner's append is pending: recovery commits it once.
  std::string pending = JsonOf(lake_db_pending_appends, db.get());
  CHECK(pending.find("\"state\":\"replayable\"") != std::string::npos);
  std::string recovered = JsonOf(lake_db_recover, db.get());
  CHECK(recovered.find("\"result\":\"committed\"") != std::string::npos);
  CHECK(JsonOf(lake_db_pending_appends, db.get()) == "[]");
  std::map<std::string, int> after = RowIds(db.get(), "SELECT id FROM ml.files");
  CHECK(after.size() == static_cast<size_t>(kKilledOwnerWriters * kKilledOwnerRows + 1));
  for (const auto& [id, count] : after) CHECK_MESSAGE(count == 1, id);
  CHECK(after.count("owner-0") == 1);
}

TEST_CASE("the busy timeout is set per db; a NULL db is refused") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  CHECK(lake_db_set_busy_timeout(db.get(), 0, nullptr) == LAKE_OK);
  CHECK(lake_db_set_busy_timeout(db.get(), 250, nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  CHECK(lake_db_set_busy_timeout(nullptr, 250, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
}

TEST_CASE("pending appends say why a checkpoint is stuck; discarding moves it aside, kept") {
  ScratchDir dir;
  std::string root = CreateOpsRoot(dir);
  std::string id = OperationIdNow();
  std::string path = root + "/checkpoints/" + id + ".append";
  std::ofstream(path) << "not a checkpoint";
  Db db = OpenDb(root);
  std::string pending = JsonOf(lake_db_pending_appends, db.get());
  CHECK(pending.find("\"operation_id\":\"" + id + "\"") != std::string::npos);
  CHECK(pending.find("\"state\":\"stuck\"") != std::string::npos);
  CHECK(pending.find("\"reason\":\"damaged: ") != std::string::npos);
  CHECK(JsonOf(lake_db_recover, db.get()).find("\"result\":\"rejected\"") != std::string::npos);

  char* moved = nullptr;
  REQUIRE(lake_db_discard_append(db.get(), id.c_str(), &moved, nullptr) == LAKE_OK);
  CHECK(std::string(moved) == root + "/checkpoints/discarded/" + id + ".append");
  std::ifstream kept(moved);
  std::string bytes((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  CHECK(bytes == "not a checkpoint");
  lake_string_free(moved);
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK(JsonOf(lake_db_pending_appends, db.get()) == "[]");

  lake_error* err = nullptr;
  CHECK(lake_db_discard_append(db.get(), id.c_str(), nullptr, &err) == LAKE_NOT_FOUND);
  CHECK(lake_error_pending_operation_id(err) == nullptr);
  lake_error_free(err);
  CHECK(lake_db_discard_append(db.get(), "../../x", nullptr, nullptr) == LAKE_INVALID_ARGUMENT);
  CHECK(lake_db_discard_append(db.get(), nullptr, nullptr, nullptr) == LAKE_INVALID_ARGUMENT);
}

}  // namespace

namespace {

// ---- Event logs ----

struct EventLogFree { void operator()(lake_event_log* l) const { lake_event_log_free(l); } };
using EventLog = std::unique_ptr<lake_event_log, EventLogFree>;

// A root opened as `tenant`.
Db OpenRootAs(const std::string& root, const char* tenant) {
  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_tenant(opts, tenant, nullptr) == LAKE_OK);
  lake_db* db = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_db_open(root.c_str(), opts, &db, &err);
  lake_stage_options_free(opts);
  Error owned(err);
  REQUIRE_MESSAGE(status == LAKE_OK, (err ? lake_error_message(err) : ""));
  return Db(db);
}

// Two batches: item "r" created (c1), then its blob field set to `loc` (c2).
std::string EventsWithBlobAt(const lake_location* loc) {
  return std::string(R"({"item_id":"r","item_seq":1,"checkpoint_id":"c1",)"
                     R"("event_type":"ITEM_CREATED","writer_epoch":"w"})") +
         "\n" + R"({"item_id":"r","item_seq":2,"checkpoint_id":"c2","event_type":"FIELD_SET",)" +
         R"("field_name":"img","value_kind":"blob","blob_location":)" + lake_location_json(loc) +
         R"(,"payload_size":)" + std::to_string(lake_location_size_bytes(loc)) +
         R"(,"payload_checksum":")" + lake_location_sha256(loc) + R"(","writer_epoch":"w"})" +
         "\n";
}

TEST_CASE("an appended event's blob_location must name a stored object of the log's tenant") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  Db alice = OpenRootAs(root, "alice");
  Db bob = OpenRootAs(root, "bob");
  REQUIRE(lake_experiment_create(alice.get(), "p", "x", nullptr) == LAKE_OK);
  lake_event_log* raw_log = nullptr;
  REQUIRE(lake_event_log_open(alice.get(), "p", "x", 1, &raw_log, nullptr) == LAKE_OK);
  EventLog log(raw_log);

  const std::vector<uint8_t> bytes = Bytes(1000, 40);
  Location mine = Upload(lake_db_stage(alice.get()), bytes);
  Location bobs = Upload(lake_db_stage(bob.get()), bytes);
  // Uploaded through another handle (as by another process: the log's
  // stage has not seen it), then gone.
  Location removed = Upload(lake_db_stage(OpenRootAs(root, "alice").get()), Bytes(1000, 41));
  std::filesystem::remove(PathOfUri(lake_location_uri(removed.get())));
  lake_location* raw = nullptr;
  REQUIRE(lake_location_new("file:///etc/passwd", "text/plain", 1000,
                            lake_location_sha256(mine.get()), &raw, nullptr) == LAKE_OK);
  Location outside(raw);
  REQUIRE(lake_location_new(lake_location_uri(mine.get()), "application/octet-stream", 1001,
                            lake_location_sha256(mine.get()), &raw, nullptr) == LAKE_OK);
  Location longer(raw);

  struct Refused {
    std::string what;
    const lake_location* loc;
    lake_status status;
    lake_integrity_kind kind;
  };
  for (const Refused& r : {
           Refused{"another tenant's", bobs.get(), LAKE_INVALID_ARGUMENT,
                   LAKE_INTEGRITY_INVALID_LOCATION},
           Refused{"outside the stage", outside.get(), LAKE_INVALID_ARGUMENT,
                   LAKE_INTEGRITY_INVALID_LOCATION},
           Refused{"of no stored object", removed.get(), LAKE_NOT_FOUND, LAKE_INTEGRITY_NONE},
           Refused{"longer than its object", longer.get(), LAKE_INTEGRITY,
                   LAKE_INTEGRITY_SIZE_SHORT},
       }) {
    CAPTURE(r.what);
    const std::string jsonl = EventsWithBlobAt(r.loc);
    uint64_t appended = 99, duplicates = 99;
    lake_error* err = nullptr;
    CHECK(lake_event_log_append_jsonl(log.get(), jsonl.data(), jsonl.size(), &appended,
                                      &duplicates, &err) == r.status);
    REQUIRE(err != nullptr);
    CHECK(lake_error_integrity_kind(err) == r.kind);
    CHECK(std::string(lake_error_message(err)).find("blob_location") != std::string::npos);
    lake_error_free(err);
    // Refused before anything was written: not even the batch before it.
    CHECK(appended == 0);
    CHECK(duplicates == 0);
    lake_folded_item* item = nullptr;
    REQUIRE(lake_event_log_fold(log.get(), "r", &item, nullptr) == LAKE_OK);
    CHECK(item == nullptr);
    lake_folded_item_free(item);
  }
  char* json = nullptr;
  REQUIRE(lake_experiment_describe(alice.get(), "p", "x", &json, nullptr) == LAKE_OK);
  CHECK(std::string(json).find("\"events\":0") != std::string::npos);
  lake_string_free(json);

  // The tenant's own object, with its size, is accepted and reads back.
  const std::string jsonl = EventsWithBlobAt(mine.get());
  uint64_t appended = 0;
  lake_error* err = nullptr;
  REQUIRE_MESSAGE(lake_event_log_append_jsonl(log.get(), jsonl.data(), jsonl.size(), &appended,
                                              nullptr, &err) == LAKE_OK,
                  (err ? lake_error_message(err) : ""));
  CHECK(appended == 2);
  lake_folded_item* item = nullptr;
  REQUIRE(lake_event_log_fold(log.get(), "r", &item, nullptr) == LAKE_OK);
  REQUIRE(item != nullptr);
  lake_reader* raw_reader = nullptr;
  REQUIRE(lake_folded_item_open_blob(log.get(), item, "img", 0, &raw_reader, nullptr) == LAKE_OK);
  lake_folded_item_free(item);
  Reader reader(raw_reader);
  std::vector<uint8_t> back;
  Error read_error;
  CHECK(ReadAllBytes(reader.get(), &back, &read_error) == LAKE_OK);
  CHECK(back == bytes);
}

// ---- Garbage collection: pins and the references lock ----

TEST_CASE("pins: an existing object pins and unpins; another size, no object or outside is refused") {
  ScratchDir dir;
  Db db = OpenDb(dir.path + "/root");
  Location loc = Upload(lake_db_stage(db.get()), Bytes(1000, 50));
  CHECK(lake_db_pin(db.get(), loc.get(), nullptr) == LAKE_OK);
  CHECK(lake_db_pin(db.get(), loc.get(), nullptr) == LAKE_OK);
  CHECK(lake_db_unpin(db.get(), loc.get(), nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  CHECK(lake_db_unpin(db.get(), loc.get(), &err) == LAKE_NOT_FOUND);
  lake_error_free(err);

  lake_location* raw = nullptr;
  REQUIRE(lake_location_new(lake_location_uri(loc.get()), "application/octet-stream", 999,
                            lake_location_sha256(loc.get()), &raw, nullptr) == LAKE_OK);
  Location shorter(raw);
  REQUIRE(lake_location_new("file:///etc/passwd", "text/plain", 10,
                            lake_location_sha256(loc.get()), &raw, nullptr) == LAKE_OK);
  Location outside(raw);
  err = nullptr;
  CHECK(lake_db_pin(db.get(), shorter.get(), &err) == LAKE_INTEGRITY);
  CHECK(lake_error_integrity_kind(err) == LAKE_INTEGRITY_SIZE_LONG);
  lake_error_free(err);
  err = nullptr;
  CHECK(lake_db_pin(db.get(), outside.get(), &err) == LAKE_INVALID_ARGUMENT);
  CHECK(lake_error_integrity_kind(err) == LAKE_INTEGRITY_INVALID_LOCATION);
  lake_error_free(err);
  // Uploaded through another handle (as by another process), then gone.
  Location removed = Upload(lake_db_stage(OpenDb(dir.path + "/root").get()), Bytes(1000, 52));
  std::filesystem::remove(PathOfUri(lake_location_uri(removed.get())));
  CHECK(lake_db_pin(db.get(), removed.get(), nullptr) == LAKE_NOT_FOUND);
  CHECK(lake_db_pin(nullptr, loc.get(), nullptr) == LAKE_INVALID_ARGUMENT);
  CHECK(lake_db_unpin(db.get(), nullptr, nullptr) == LAKE_INVALID_ARGUMENT);
}

TEST_CASE("an event append naming a blob_location waits while a collection deletes") {
  ScratchDir dir;
  std::string root = dir.path + "/root";
  Db db = OpenDb(root);
  REQUIRE(lake_experiment_create(db.get(), "p", "x", nullptr) == LAKE_OK);
  lake_event_log* raw_log = nullptr;
  REQUIRE(lake_event_log_open(db.get(), "p", "x", 1, &raw_log, nullptr) == LAKE_OK);
  EventLog log(raw_log);
  Location loc = Upload(lake_db_stage(db.get()), Bytes(1000, 51));
  // A collection's apply in another process holds the references lock
  // (<root>/gc/refs.lock, ARCHITECTURE.md) exclusively while it deletes.
  std::filesystem::create_directories(root + "/gc");
  int lock = open((root + "/gc/refs.lock").c_str(), O_RDWR | O_CREAT, 0644);
  REQUIRE(lock >= 0);
  REQUIRE(flock(lock, LOCK_EX) == 0);
  const std::string jsonl = EventsWithBlobAt(loc.get());
  std::atomic<bool> done{false};
  lake_status status = LAKE_INTERNAL;
  std::thread append([&] {
    status = lake_event_log_append_jsonl(log.get(), jsonl.data(), jsonl.size(), nullptr, nullptr,
                                         nullptr);
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK_FALSE(done);
  flock(lock, LOCK_UN);
  close(lock);
  append.join();
  CHECK(status == LAKE_OK);
}

}  // namespace

namespace {

TEST_CASE("an event log refuses to fold, or list the events of, a text that is no item id") {
  ScratchDir dir;
  Db db = OpenRootAs(dir.path + "/root", "alice");
  REQUIRE(lake_experiment_create(db.get(), "p", "x", nullptr) == LAKE_OK);
  lake_event_log* raw_log = nullptr;
  REQUIRE(lake_event_log_open(db.get(), "p", "x", 0, &raw_log, nullptr) == LAKE_OK);
  EventLog log(raw_log);
  for (const char* bad : {"r\xff", "r\nz", "", "r/map", "r/map:01"}) {
    CAPTURE(bad);
    lake_folded_item* item = nullptr;
    lake_error* err = nullptr;
    CHECK(lake_event_log_fold(log.get(), bad, &item, &err) == LAKE_INVALID_ARGUMENT);
    CHECK(item == nullptr);
    REQUIRE(err != nullptr);
    CHECK(std::string(lake_error_message(err)).find("item id") != std::string::npos);
    lake_error_free(err);
    char* jsonl = nullptr;
    CHECK(lake_event_log_events(log.get(), bad, &jsonl, nullptr) == LAKE_INVALID_ARGUMENT);
    CHECK(jsonl == nullptr);
  }
  // The events of a child item's id: only a root's are listed.
  char* jsonl = nullptr;
  CHECK(lake_event_log_events(log.get(), "r/map:0", &jsonl, nullptr) == LAKE_INVALID_ARGUMENT);
  // A valid id of no item: nothing to fold, no events.
  lake_folded_item* item = nullptr;
  CHECK(lake_event_log_fold(log.get(), "nobody", &item, nullptr) == LAKE_OK);
  CHECK(item == nullptr);
  REQUIRE(lake_event_log_events(log.get(), "nobody", &jsonl, nullptr) == LAKE_OK);
  CHECK(std::string(jsonl).empty());
  lake_string_free(jsonl);
}

}  // namespace

namespace {

// Resumable uploads through the C ABI, on a root of the suite's RGW (the
// crash and resume cases themselves: tests/engine/s3_resume_test.cc and the
// CLI suite).
struct S3Bucket {
  S3Bucket() {
    std::mt19937_64 rng(std::random_device{}());
    char name[40];
    snprintf(name, sizeof name, "lake-cabi-%016llx", static_cast<unsigned long long>(rng()));
    bucket = name;
    REQUIRE_MESSAGE(getenv("LAKE_S3_STATE_DIR") != nullptr, "S3 tests need the RGW server");
    REQUIRE(Server("mb") == 0);
  }
  // Best effort: the server keeps a bounded number of buckets.
  ~S3Bucket() { (void)Server("rb"); }
  S3Bucket(const S3Bucket&) = delete;
  S3Bucket& operator=(const S3Bucket&) = delete;
  int Server(const char* verb) const {
    std::string command = std::string("cd '") + getenv("LAKE_SOURCE_ROOT") +
                          "' && scripts/s3-test-server " + verb + " " +
                          getenv("LAKE_S3_STATE_DIR") + " " + bucket + " >/dev/null";
    return std::system(command.c_str());
  }
  std::string bucket;
};

lake_db* OpenS3Root(const std::string& root, const S3Bucket& s3, uint64_t part_bytes,
                    const char* checkpoint_dir) {
  lake_stage_options* opts = lake_stage_options_new();
  REQUIRE(lake_stage_options_set_s3(opts, ("s3://" + s3.bucket + "/p").c_str(), nullptr) == LAKE_OK);
  REQUIRE(lake_stage_options_set_s3_endpoint(opts, getenv("AWS_ENDPOINT_URL"), nullptr) == LAKE_OK);
  lake_stage_options_set_s3_path_style(opts, 1);
  if (part_bytes != 0) {
    REQUIRE(lake_stage_options_set_s3_part_size(opts, part_bytes, nullptr) == LAKE_OK);
  }
  if (checkpoint_dir != nullptr) {
    REQUIRE(lake_stage_options_set_upload_checkpoint_dir(opts, checkpoint_dir, nullptr) == LAKE_OK);
  }
  lake_db* db = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_db_open(root.c_str(), opts, &db, &err);
  lake_stage_options_free(opts);
  REQUIRE_MESSAGE(status == LAKE_OK, (err ? lake_error_message(err) : ""));
  return db;
}

void Notice(void* ctx, const char* line) { static_cast<std::vector<std::string>*>(ctx)->push_back(line); }

Location UploadPathNoticing(lake_db* db, const std::string& path, std::vector<std::string>* notices) {
  lake_upload_options* opts = lake_upload_options_new();
  lake_upload_options_set_notice(opts, &Notice, notices);
  lake_location* loc = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_stage_upload_path(lake_db_stage(db), path.c_str(), opts, &loc, &err);
  lake_upload_options_free(opts);
  REQUIRE_MESSAGE(status == LAKE_OK, (err ? lake_error_message(err) : ""));
  return Location(loc);
}

int CountUpload(void* ctx, const lake_upload_info*) {
  ++*static_cast<int*>(ctx);
  return 0;
}

int DeleteListed(void* ctx, const lake_list_entry* entry) {
  lake_stage* stage = static_cast<lake_stage*>(ctx);
  lake_location* loc = nullptr;
  if (lake_location_new(entry->uri, "application/octet-stream", entry->size_bytes,
                        std::string(64, '0').c_str(), &loc, nullptr) == LAKE_OK) {
    CHECK(lake_stage_delete(stage, loc, nullptr) == LAKE_OK);
    lake_location_free(loc);
  }
  return 0;
}

TEST_CASE("uploads ABI: a part size set by the caller writes no checkpoint and says so; \"\" turns them off") {
  ScratchDir dir;
  S3Bucket s3;
  std::string root = dir.path + "/root";
  std::string file = dir.path + "/f";
  std::vector<uint8_t> bytes = Bytes(3 << 20, 40);
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  {
    lake_db* db = OpenS3Root(root, s3, 1 << 20, nullptr);
    std::vector<std::string> notices;
    Location loc = UploadPathNoticing(db, file, &notices);
    CHECK(lake_location_size_bytes(loc.get()) == bytes.size());
    REQUIRE(notices.size() == 1);
    CHECK(notices[0].find("no upload checkpoint is written") != std::string::npos);
    int count = 0;
    CHECK(lake_db_uploads_list(db, &CountUpload, &count, nullptr) == LAKE_OK);
    CHECK(count == 0);
    lake_db_free(db);
  }
  {
    lake_db* db = OpenS3Root(root, s3, 0, "");
    std::vector<std::string> notices;
    Location loc = UploadPathNoticing(db, file, &notices);
    CHECK(notices.empty());
    CHECK_FALSE(std::filesystem::exists(root + "/checkpoints/uploads"));
    lake_error* err = nullptr;
    CHECK(lake_db_uploads_resume(db, "0190a0b0-1234-7abc-8def-0123456789ab", nullptr,
                                 nullptr, &err) == LAKE_INVALID_ARGUMENT);  // out is NULL
    lake_error_free(err);
    lake_location* out = nullptr;
    CHECK(lake_db_uploads_resume(db, "0190a0b0-1234-7abc-8def-0123456789ab", nullptr, &out,
                                 nullptr) == LAKE_NOT_FOUND);
    CHECK(lake_db_uploads_abort(db, "0190a0b0-1234-7abc-8def-0123456789ab", nullptr) ==
          LAKE_NOT_FOUND);
    CHECK(lake_stage_list(lake_db_stage(db), &DeleteListed, lake_db_stage(db), nullptr) == LAKE_OK);
    lake_db_free(db);
  }
  CHECK(s3.Server("rb") == 0);
}

TEST_CASE("uploads ABI: a default root upload on S3 keeps its checkpoint only while it runs") {
  ScratchDir dir;
  S3Bucket s3;
  std::string root = dir.path + "/root";
  std::string file = dir.path + "/f";
  std::vector<uint8_t> bytes = Bytes(100000, 41);
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  lake_db* db = OpenS3Root(root, s3, 0, nullptr);
  std::vector<std::string> notices;
  Location loc = UploadPathNoticing(db, file, &notices);
  CHECK(notices.empty());
  // The checkpoint directory exists (it was used) and is empty again.
  CHECK(std::filesystem::is_directory(root + "/checkpoints/uploads"));
  CHECK(std::filesystem::is_empty(root + "/checkpoints/uploads"));
  CHECK(lake_stage_list(lake_db_stage(db), &DeleteListed, lake_db_stage(db), nullptr) == LAKE_OK);
  lake_db_free(db);
  CHECK(s3.Server("rb") == 0);
}

TEST_CASE("uploads ABI: a root opened with a checkpoint directory of its own records it once") {
  ScratchDir dir;
  S3Bucket s3;
  std::string root = dir.path + "/root";
  std::string mine = dir.path + "/my-checkpoints";
  for (int i = 0; i < 2; ++i) {
    lake_db* db = OpenS3Root(root, s3, 0, mine.c_str());
    lake_db_free(db);
  }
  std::vector<std::filesystem::path> records;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/checkpoints/upload-dirs")) {
    records.push_back(entry.path());
  }
  REQUIRE(records.size() == 1);
  CHECK(records[0].extension() == ".dir");
  std::ifstream in(records[0]);
  std::string header, path;
  std::getline(in, header);
  std::getline(in, path);
  CHECK(header == "lake upload checkpoint directory 1");
  CHECK(path == std::filesystem::canonical(mine).string());
  // The root's own directory is never recorded; a plan reports uploads.
  lake_db* db = OpenS3Root(root, s3, 0, nullptr);
  char* json = nullptr;
  lake_gc_options* gc = lake_gc_options_new();
  lake_gc_options_set_cutoff_seconds(gc, 0);
  lake_gc_options_set_allow_short_cutoff(gc, 1);
  lake_error* err = nullptr;
  REQUIRE_MESSAGE(lake_gc_plan(db, gc, &json, &err) == LAKE_OK, (err ? lake_error_message(err) : ""));
  CHECK(std::string(json).find("\"multipart_uploads\":0") != std::string::npos);
  lake_string_free(json);
  lake_gc_options_free(gc);
  lake_db_free(db);
  CHECK(std::distance(std::filesystem::directory_iterator(root + "/checkpoints/upload-dirs"),
                      std::filesystem::directory_iterator()) == 1);
  CHECK(s3.Server("rb") == 0);
}

TEST_CASE("uploads ABI: the checkpoint directory setter refuses NULL") {
  lake_stage_options* opts = lake_stage_options_new();
  lake_error* err = nullptr;
  CHECK(lake_stage_options_set_upload_checkpoint_dir(opts, nullptr, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
  CHECK(lake_stage_options_set_upload_checkpoint_dir(nullptr, "", nullptr) == LAKE_INVALID_ARGUMENT);
  lake_stage_options_free(opts);
}

}  // namespace
