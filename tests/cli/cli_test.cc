// The `lake` command line as CLI.md specifies it: what goes to stdout, what
// to stderr, and the exit codes.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/managed_key.h"
#include "engine/root_format_record.h"
#include "engine/root_stage_record.h"
#include "tests/cli/lake_cli.h"
#include "tests/support/s3_fixture.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"
#include "engine/sha256.h"

namespace {

using lake::testing::Lake;
using lake::testing::Lines;
using lake::testing::ObjectPath;
using lake::testing::Put;
using lake::testing::Result;
using lake::testing::Slurp;
using lake::testing::TempDir;
using lake::testing::WriteSource;

TEST_CASE("put prints the canonical DataLocation on stdout; cat writes the bytes back") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "video.mp4", 2 * 1024 * 1024 + 3, 1);
  Result put = Lake(dir, {"put", "video.mp4", "--content-type", "video/mp4"});
  REQUIRE_MESSAGE(put.exit_code == 0, put.err);
  std::string json = put.out.substr(0, put.out.size() - 1);
  CHECK(json.rfind("{\"uri\":\"file:///", 0) == 0);
  CHECK(json.find("\"content_type\":\"video/mp4\"") != std::string::npos);
  CHECK(json.find("\"size_bytes\":" + std::to_string(bytes.size())) != std::string::npos);
  CHECK(json.find(lake::testing::Sha256Hex(
            reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())) != std::string::npos);
  CHECK(json.find(' ') == std::string::npos);
  CHECK(std::filesystem::is_directory(dir.Join("lake-data/stage/objects")));

  Result cat = Lake(dir, {"cat", json});
  CHECK(cat.exit_code == 0);
  CHECK(cat.out == bytes);
  CHECK(cat.err.empty());

  std::ofstream(dir.Join("loc.json")) << put.out;
  Result from_file = Lake(dir, {"cat", "@loc.json"});
  CHECK(from_file.exit_code == 0);
  CHECK(from_file.out == bytes);
}

TEST_CASE("put reads stdin for '-' and honours --root and $LAKE_ROOT") {
  TempDir dir;
  Result put = Lake(dir, {"--root", "elsewhere", "put", "-"}, "hello from stdin");
  REQUIRE_MESSAGE(put.exit_code == 0, put.err);
  CHECK(std::filesystem::is_directory(dir.Join("elsewhere/stage/objects")));
  std::string json = put.out.substr(0, put.out.size() - 1);
  CHECK(Lake(dir, {"cat", json, "--root", "elsewhere"}).out == "hello from stdin");
  Result env = Lake(dir, {"cat", json}, "", {"LAKE_ROOT=elsewhere"});
  CHECK(env.exit_code == 0);
  CHECK(env.out == "hello from stdin");
}

TEST_CASE("cat --range writes [START, END) and START.. runs to the end") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "f", 100000, 2);
  std::string json = Put(dir, "f");
  CHECK(Lake(dir, {"cat", json, "--range", "10..20"}).out == bytes.substr(10, 10));
  CHECK(Lake(dir, {"cat", json, "--range", "99990.."}).out == bytes.substr(99990));
  CHECK(Lake(dir, {"cat", json, "--range=0..100000"}).out == bytes);
}

TEST_CASE("cat -o writes OUT only once the bytes are verified") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "f", 300000, 3);
  std::string json = Put(dir, "f");
  Result ok = Lake(dir, {"cat", json, "-o", "out.bin"});
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.empty());
  CHECK(Slurp(dir.Join("out.bin")) == bytes);

  std::string path = ObjectPath(json);
  std::string tampered = bytes;
  tampered[5] ^= 1;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << tampered;
  Result bad = Lake(dir, {"cat", json, "-o", "bad.bin"});
  CHECK(bad.exit_code == 3);
  CHECK_FALSE(std::filesystem::exists(dir.Join("bad.bin")));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK(entry.path().filename().string().find("lake-partial") == std::string::npos);
  }
}

TEST_CASE("integrity failures exit 3 and name the kind") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "f", 50000, 4);
  std::string json = Put(dir, "f");
  std::string path = ObjectPath(json);
  struct Case {
    std::string stored;
    std::vector<std::string> extra;
    std::string kind;
  };
  std::string flipped = bytes;
  flipped[100] ^= 0x10;
  for (const Case& c : {Case{flipped, {}, "DigestMismatch"},
                        Case{bytes.substr(0, bytes.size() - 1), {}, "SizeShort"},
                        Case{bytes + "x", {}, "SizeLong"},
                        Case{bytes.substr(0, 40000), {"--range", "39000..41000"}, "PrematureEof"}}) {
    CAPTURE(c.kind);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << c.stored;
    std::vector<std::string> args = {"cat", json};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    Result r = Lake(dir, args);
    CHECK(r.exit_code == 3);
    CHECK(r.err.find(c.kind) != std::string::npos);
  }
}

TEST_CASE("invalid input exits 2: malformed location, containment, bad range, bad flags") {
  TempDir dir;
  WriteSource(dir, "f", 1000, 5);
  std::string json = Put(dir, "f");
  std::string sha(64, 'a');
  auto loc = [&](const std::string& uri) {
    return "{\"uri\":\"" + uri + "\",\"content_type\":\"a/b\",\"size_bytes\":1,\"sha256\":\"" +
           sha + "\"}";
  };
  std::vector<std::vector<std::string>> cases = {
      {"cat", "{not json"},
      {"cat", loc("file://host/etc/passwd")},
      {"cat", loc("file:///etc/passwd")},
      {"cat", loc("file:///a/../b")},
      {"cat", json, "--range", "5..5"},
      {"cat", json, "--range", "abc"},
      {"cat", json, "--range", "10..1"},
      {"cat", json, "--range", "0..1001"},
      {"cat", json, "--no-such-flag"},
      {"cat"},
      {"put"},
      {"put", "f", "--content-type", ""},
      {"put", "f", "--tenant", "../x"},
      {"put", "f", "--stage", "s3://bucket/prefix"},
      {"frobnicate"},
      {},
  };
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    CAPTURE(joined);
    Result r = Lake(dir, args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_FALSE(r.err.empty());
  }
}

TEST_CASE("a missing object or location file exits 6") {
  TempDir dir;
  WriteSource(dir, "f", 10, 6);
  std::string json = Put(dir, "f");
  std::filesystem::remove(ObjectPath(json));
  CHECK(Lake(dir, {"cat", json}).exit_code == 6);
  CHECK(Lake(dir, {"cat", "@missing.json"}).exit_code == 6);
  CHECK(Lake(dir, {"put", "missing-file"}).exit_code == 6);
}

size_t FilesIn(const std::string& dir, const std::string& suffix) {
  size_t n = 0;
  if (!std::filesystem::is_directory(dir)) return 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    n += entry.path().string().ends_with(suffix) ? 1 : 0;
  }
  return n;
}

TEST_CASE("pin keeps an object until unpin; both refuse what they cannot check") {
  TempDir dir;
  WriteSource(dir, "f", 1000, 40);
  std::string json = Put(dir, "f");
  // The put's lease went with it: nothing of it is left protected.
  CHECK(FilesIn(dir.Join("lake-data/gc/leases"), ".lease") == 0);
  Result pin = Lake(dir, {"pin", json});
  REQUIRE_MESSAGE(pin.exit_code == 0, pin.err);
  CHECK(pin.out.empty());
  CHECK(FilesIn(dir.Join("lake-data/gc/pins"), ".pin") == 1);
  CHECK(Lake(dir, {"pin", json}).exit_code == 0);  // again: fine
  std::ofstream(dir.Join("loc.json")) << json;
  CHECK(Lake(dir, {"unpin", "@loc.json"}).exit_code == 0);
  CHECK(FilesIn(dir.Join("lake-data/gc/pins"), ".pin") == 0);
  Result again = Lake(dir, {"unpin", json});
  CHECK(again.exit_code == 6);
  CHECK(again.err.find("not pinned") != std::string::npos);

  std::string longer = json;
  longer.replace(longer.find("\"size_bytes\":1000"), 17, "\"size_bytes\":1001");
  CHECK(Lake(dir, {"pin", longer}).exit_code == 3);
  std::string outside = json;
  outside.replace(outside.find("file:///"), 8, "file:///etc/");
  CHECK(Lake(dir, {"pin", outside}).exit_code == 2);
  std::filesystem::remove(ObjectPath(json));
  CHECK(Lake(dir, {"pin", json}).exit_code == 6);
  CHECK(Lake(dir, {"pin"}).exit_code == 2);
  CHECK(Lake(dir, {"unpin", json, json}).exit_code == 2);
  CHECK(FilesIn(dir.Join("lake-data/gc/pins"), ".pin") == 0);
  for (const char* command : {"pin", "unpin"}) {
    Result help = Lake(dir, {command, "--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.out.find(std::string("usage: lake [global options] ") + command) == 0);
  }
}

TEST_CASE("tenants: put under one tenant, refused under another") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "f", 10, 7);
  Result put = Lake(dir, {"put", "f", "--tenant", "alice"});
  REQUIRE(put.exit_code == 0);
  CHECK(put.out.find("/tenants/alice/objects/") != std::string::npos);
  std::string json = put.out.substr(0, put.out.size() - 1);
  CHECK(Lake(dir, {"cat", json, "--tenant", "alice"}).out == bytes);
  CHECK(Lake(dir, {"cat", json, "--tenant", "bob"}).exit_code == 2);
}

TEST_CASE("stage list and clean-staging") {
  TempDir dir;
  WriteSource(dir, "f", 10, 8);
  std::string json = Put(dir, "f");
  Result list = Lake(dir, {"stage", "list"});
  CHECK(list.exit_code == 0);
  CHECK(list.out.find("\t10\n") != std::string::npos);
  Result list_json = Lake(dir, {"stage", "list", "--json"});
  CHECK(list_json.out.find("\"size_bytes\":10}") != std::string::npos);
  std::ofstream(dir.Join("lake-data/stage/.staging/0193aaaa-0000-7000-8000-000000000000.uploading"))
      << "leftover";
  Result clean = Lake(dir, {"stage", "clean-staging"});
  CHECK(clean.exit_code == 0);
  CHECK(clean.out == "1\n");
  CHECK(Lake(dir, {"stage", "bogus"}).exit_code == 2);
}

TEST_CASE("--help works on every command and --version prints the version") {
  TempDir dir;
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--help"}, {"help"}, {"put", "--help"}, {"cat", "--help"},
        {"stage", "--help"}, {"cat", "-h"}}) {
    Result r = Lake(dir, args);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("usage: lake") != std::string::npos);
  }
  Result v = Lake(dir, {"--version"});
  CHECK(v.exit_code == 0);
  CHECK(v.out.rfind("lake ", 0) == 0);
  // Without a terminal on stderr there is no progress bar.
  WriteSource(dir, "f", 3 * 1024 * 1024, 9);
  Result put = Lake(dir, {"put", "f"});
  CHECK(put.err.empty());
}

TEST_CASE("--help names every table subcommand, and where gc plan spills") {
  TempDir dir;
  // lake --help's lines on tables, as words.
  std::string lake_help = Lake(dir, {"--help"}).out;
  size_t from = lake_help.find("  table ");
  REQUIRE(from != std::string::npos);
  std::string table_words = lake_help.substr(from, lake_help.find("  insert ", from) - from);
  for (char& c : table_words) {
    if (c == ',' || c == '(' || c == '\n') c = ' ';
  }
  Result table_help = Lake(dir, {"table", "--help"});
  for (const char* sub : {"create", "list", "describe", "versions", "compact", "drop", "tag",
                          "untag", "expire"}) {
    CAPTURE(sub);
    CHECK(table_words.find(std::string(" ") + sub + " ") != std::string::npos);
    CHECK(table_help.out.find(std::string("table ") + sub + " ") != std::string::npos);
  }
  Result gc_help = Lake(dir, {"gc", "--help"});
  CHECK(gc_help.out.find("<root>/gc/tmp") != std::string::npos);
  CHECK(gc_help.out.find("DIR/lake-gc-spill") != std::string::npos);
}

}  // namespace

namespace {

// A root recording an S3 stage on the project's RGW server (scripts/test
// exports its address and credentials).
struct S3Root {
  S3Root() : bucket(lake::testing::UniqueBucketName()) {
    const char* state = std::getenv("LAKE_S3_STATE_DIR");
    REQUIRE_MESSAGE(state != nullptr, "S3 CLI tests need scripts/s3-test-server (scripts/test starts it)");
    std::string mb = std::string("scripts/s3-test-server mb ") + state + " " + bucket + " >/dev/null";
    REQUIRE(std::system(("cd " + std::string(std::getenv("LAKE_SOURCE_ROOT")) + " && " + mb).c_str()) == 0);
  }
  // Best effort: the server keeps a bounded number of buckets.
  ~S3Root() {
    std::string rb = std::string("scripts/s3-test-server rb ") +
                     std::getenv("LAKE_S3_STATE_DIR") + " " + bucket + " >/dev/null 2>&1";
    (void)std::system(("cd " + std::string(std::getenv("LAKE_SOURCE_ROOT")) + " && " + rb).c_str());
  }
  S3Root(const S3Root&) = delete;
  S3Root& operator=(const S3Root&) = delete;
  std::vector<std::string> Flags() const {
    return {"--stage", "s3://" + bucket + "/cli data", "--path-style"};
  }
  std::string bucket;
};

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_CASE("S3 CLI: a root records its S3 stage; put, cat, ranges and presign use it") {
  TempDir dir;
  S3Root s3;
  std::string bytes = WriteSource(dir, "f", 700000, 20);
  Result put = Lake(dir, Concat({"put", "f"}, s3.Flags()));
  REQUIRE_MESSAGE(put.exit_code == 0, put.err);
  CHECK(put.out.rfind("{\"uri\":\"s3://" + s3.bucket + "/cli%20data/objects/", 0) == 0);
  std::string json = put.out.substr(0, put.out.size() - 1);

  // Later commands need no stage flags: the root remembers.
  Result describe = Lake(dir, {"stage", "describe"});
  CHECK(describe.exit_code == 0);
  CHECK(describe.out.find("\"kind\":\"s3\"") != std::string::npos);
  CHECK(describe.out.find("\"bucket\":\"" + s3.bucket + "\"") != std::string::npos);
  CHECK(describe.out.find(std::getenv("AWS_SECRET_ACCESS_KEY")) == std::string::npos);
  CHECK(Lake(dir, {"cat", json}).out == bytes);
  CHECK(Lake(dir, {"cat", json, "--range", "100..200"}).out == bytes.substr(100, 100));

  Result presign = Lake(dir, {"presign", json, "--ttl", "120"});
  CHECK(presign.exit_code == 0);
  CHECK(presign.out.find("X-Amz-Signature=") != std::string::npos);
  CHECK(presign.err.empty());
  CHECK(Lake(dir, {"presign", json, "--ttl", "3601"}).exit_code == 2);

  // Flags that disagree with the record are refused.
  Result other = Lake(dir, {"--stage", "s3://other-bucket/x", "stage", "describe"});
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("disagree") != std::string::npos);
  // Flags that agree are accepted, with --stage or without it.
  CHECK(Lake(dir, Concat({"stage", "describe"}, s3.Flags())).exit_code == 0);
  Result path_style = Lake(dir, {"--path-style", "stage", "describe"});
  CHECK_MESSAGE(path_style.exit_code == 0, path_style.err);
  Result region = Lake(dir, {"--region", "xx-nowhere-9", "stage", "describe"});
  CHECK(region.exit_code == 2);
  CHECK(region.err.find("disagree") != std::string::npos);
}

TEST_CASE("presign is refused on a local stage; S3 details disagree with it, and a new root needs --stage") {
  TempDir dir;
  WriteSource(dir, "f", 10, 21);
  std::string json = Put(dir, "f");
  CHECK(Lake(dir, {"presign", json}).exit_code == 2);
  Result endpoint = Lake(dir, {"--endpoint", "http://127.0.0.1:1", "stage", "describe"});
  CHECK(endpoint.exit_code == 2);
  CHECK(endpoint.err.find("disagree") != std::string::npos);
  // A new root given S3 details without --stage records nothing.
  Result fresh = Lake(dir, {"--root", "fresh", "--region", "us-east-1", "stage", "describe"});
  CHECK(fresh.exit_code == 2);
  CHECK(fresh.err.find("S3 stage URI") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.Join("fresh/stage.json")));
  Result local = Lake(dir, {"--root", "fresh", "stage", "describe"});
  CHECK(local.out == "{\"version\":1,\"kind\":\"local\"}\n");
}

TEST_CASE("a root whose stage is a host store is refused with exit 2: only its host can open it") {
  TempDir dir;
  // A root a program made over its own store (lake_stage_options_set_host_store).
  absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
  REQUIRE(fs.ok());
  std::string root = dir.Join("hosted");
  std::filesystem::create_directories(root);
  REQUIRE(lake::WriteRootFormatRecord(**fs, root).ok());
  lake::StageDescriptor host;
  host.kind = lake::StageDescriptor::Kind::kHost;
  host.host_id = "warehouse-7";
  REQUIRE(lake::WriteRootStageRecord(**fs, root, host).ok());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--root", "hosted", "gc", "plan"},
        std::vector<std::string>{"--root", "hosted", "stage", "list"}}) {
    Result refused = Lake(dir, args);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("host store (host id 'warehouse-7')") != std::string::npos);
    CHECK(refused.err.find("the lake CLI and a follower cannot") != std::string::npos);
  }
}

}  // namespace

namespace {

TEST_CASE("tables CLI: create, insert with --file/--param/--location, query, versions, describe") {
  TempDir dir;
  Result created = Lake(dir, {"table", "create", "robots.episodes", "--column",
                              "episode_id:utf8", "--column", "n:int64", "--column", "video:file",
                              "--column", "at:timestamp"});
  REQUIRE_MESSAGE(created.exit_code == 0, created.err);
  WriteSource(dir, "ep1.mp4", 5000, 1);
  Result inserted = Lake(dir, {"insert",
                               "INSERT INTO robots.episodes (episode_id, n, video, at) "
                               "VALUES (?, ?, ?, ?)",
                               "--param", "ep-1", "--param", "42", "--file", "ep1.mp4:video/mp4",
                               "--param", "2026-11-30T07:35:56.000123Z"});
  REQUIRE_MESSAGE(inserted.exit_code == 0, inserted.err);
  CHECK(inserted.out == "1\n");
  Result query = Lake(dir, {"query", "SELECT * FROM robots.episodes", "--json"});
  REQUIRE_MESSAGE(query.exit_code == 0, query.err);
  std::vector<std::string> rows = Lines(query.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].find("\"episode_id\":\"ep-1\"") != std::string::npos);
  CHECK(rows[0].find("\"n\":42") != std::string::npos);
  CHECK(rows[0].find("\"at\":\"2026-11-30T07:35:56.000123Z\"") != std::string::npos);
  CHECK(rows[0].find("\"content_type\":\"video/mp4\"") != std::string::npos);
  CHECK(rows[0].find("\"size_bytes\":5000") != std::string::npos);
  // The columns in the order selected, the FILE's keys in DATALOCATION.md's.
  size_t at = 0;
  for (std::string_view key : {"{\"episode_id\":", ",\"n\":", ",\"video\":{\"uri\":",
                               ",\"content_type\":", ",\"size_bytes\":", ",\"sha256\":",
                               "},\"at\":"}) {
    CAPTURE(key);
    size_t found = rows[0].find(key);
    REQUIRE(found != std::string::npos);
    CHECK(found >= at);
    at = found;
  }
  // The FILE value of the row, as a location file, appended again without an upload.
  size_t start = rows[0].find("\"video\":") + 8;
  size_t end = rows[0].find('}', start) + 1;
  std::ofstream(dir.Join("loc.json")) << rows[0].substr(start, end - start);
  Result again = Lake(dir, {"insert",
                            "INSERT INTO robots.episodes (episode_id, video) VALUES (?, ?)",
                            "--param", "ep-2", "--location", "@loc.json"});
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(again.out == "2\n");
  Result objects = Lake(dir, {"stage", "list", "--json"});
  CHECK(Lines(objects.out).size() == 1);  // one upload only
  Result where = Lake(dir, {"query", "SELECT episode_id, n FROM robots.episodes WHERE n = ?",
                            "--param", "42"});
  REQUIRE_MESSAGE(where.exit_code == 0, where.err);
  CHECK(where.out == "episode_id\tn\nep-1\t42\n");
  Result old = Lake(dir, {"query", "SELECT episode_id FROM robots.episodes AS OF VERSION 1"});
  CHECK(old.out == "episode_id\nep-1\n");
  Result versions = Lake(dir, {"table", "versions", "robots.episodes", "--json"});
  CHECK(Lines(versions.out).size() == 2);
  Result described = Lake(dir, {"table", "describe", "robots.episodes", "--json"});
  CHECK(described.out.find("\"total_rows\":2") != std::string::npos);
  Result compacted = Lake(dir, {"table", "compact", "robots.episodes"});
  CHECK(compacted.exit_code == 0);
  CHECK(compacted.out == "3\n");
  // One table log segment, the active one: no rolled segment to rewrite.
  Result segments = Lake(dir, {"table", "compact", "robots.episodes", "--segments"});
  CHECK(segments.exit_code == 0);
  CHECK(segments.out == "no mostly-dead segment to rewrite: version 3\n");
  Result segments_json = Lake(dir, {"table", "compact", "robots.episodes", "--segments", "--json"});
  CHECK(segments_json.exit_code == 0);
  CHECK(segments_json.out == "{\"compacted\":false,\"version\":3}\n");
  CHECK(Lake(dir, {"table", "list", "--segments"}).exit_code == 2);
  Result listed = Lake(dir, {"table", "list"});
  CHECK(listed.out.find("robots.episodes\tversion 3") != std::string::npos);
  Result pending = Lake(dir, {"recover", "--list", "--json"});
  CHECK(pending.exit_code == 0);
  CHECK(pending.out.empty());
}

TEST_CASE("tables CLI: query with a predicate, ORDER BY and count(*)") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "k:utf8", "--column", "n:int64", "--column",
                     "not:bool"}).exit_code == 0);
  for (const auto& [k, n] : std::vector<std::pair<std::string, std::string>>{
           {"c", "3"}, {"a", "1"}, {"d", "NULL"}, {"b", "2"}}) {
    Result inserted = Lake(dir, {"insert", "INSERT INTO a.t (k, n) VALUES (?, ?)", "--param", k, "--param", n});
    REQUIRE_MESSAGE(inserted.exit_code == 0, inserted.err);
  }
  Result sorted = Lake(dir, {"query", "SELECT k FROM a.t WHERE n >= ? OR n IS NULL ORDER BY n DESC", "--param", "2"});
  REQUIRE_MESSAGE(sorted.exit_code == 0, sorted.err);
  CHECK(sorted.out == "k\nd\nc\nb\n");  // nulls first in DESC
  Result top = Lake(dir, {"query", "SELECT k, n FROM a.t WHERE k IN (?, ?, ?) ORDER BY k LIMIT 2", "--param", "d",
                          "--param", "b", "--param", "a"});
  REQUIRE_MESSAGE(top.exit_code == 0, top.err);
  CHECK(top.out == "k\tn\na\t1\nb\t2\n");
  Result count = Lake(dir, {"query", "SELECT count(*) FROM a.t WHERE NOT n = ? AND \"not\" IS NULL", "--param", "1"});
  REQUIRE_MESSAGE(count.exit_code == 0, count.err);
  CHECK(count.out == "count\n2\n");
  Result bad = Lake(dir, {"query", "SELECT k FROM a.t WHERE n => ?", "--param", "1"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("offset 27") != std::string::npos);
  // The sorts left nothing under <root>/sort.
  CHECK(std::filesystem::is_directory(dir.Join("lake-data/sort")));  // the ORDER BYs ran there
  CHECK(std::filesystem::is_empty(dir.Join("lake-data/sort")));
}

TEST_CASE("lake exec DELETE prints the new version and the rows it deleted") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "k:utf8", "--column", "n:int64"})
              .exit_code == 0);
  for (const auto& [k, n] : std::vector<std::pair<std::string, std::string>>{
           {"a", "1"}, {"b", "2"}, {"c", "3"}}) {
    REQUIRE(Lake(dir, {"insert", "INSERT INTO a.t (k, n) VALUES (?, ?)", "--param", k, "--param", n})
                .exit_code == 0);
  }
  Result deleted = Lake(dir, {"exec", "DELETE FROM a.t WHERE n >= ?", "--param", "2"});
  REQUIRE_MESSAGE(deleted.exit_code == 0, deleted.err);
  CHECK(deleted.out == "4\t2\n");
  CHECK(Lake(dir, {"query", "SELECT k FROM a.t"}).out == "k\na\n");
  CHECK(Lake(dir, {"query", "SELECT k FROM a.t AS OF VERSION 3"}).out == "k\na\nb\nc\n");
  // Nothing left to match: no version, 0 rows.
  Result again = Lake(dir, {"exec", "DELETE FROM a.t WHERE n >= ?", "--param", "2", "--json"});
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(again.out == "{\"deleted_rows\":0,\"version\":4}\n");
  Result all = Lake(dir, {"exec", "DELETE FROM a.t"});
  REQUIRE_MESSAGE(all.exit_code == 0, all.err);
  CHECK(all.out == "5\t1\n");
  CHECK(Lake(dir, {"query", "SELECT count(*) FROM a.t"}).out == "count\n0\n");
}

TEST_CASE("lake exec INSERT … REPLACE WHERE prints the version, rows deleted and inserted") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "k:utf8", "--column", "n:int64",
                     "--column", "f:file"})
              .exit_code == 0);
  REQUIRE(Lake(dir, {"insert", "INSERT INTO a.t (k, n) VALUES (?, ?), (?, ?)", "--param", "a",
                     "--param", "1", "--param", "b", "--param", "2"})
              .exit_code == 0);
  WriteSource(dir, "clip.bin", 2000, 5);
  Result replaced = Lake(dir, {"exec", "INSERT INTO a.t REPLACE WHERE n = ? (k, n, f) VALUES (?, ?, ?)",
                               "--param", "2", "--param", "c", "--param", "3", "--file",
                               dir.Join("clip.bin") + ":video/mp4"});
  REQUIRE_MESSAGE(replaced.exit_code == 0, replaced.err);
  CHECK(replaced.out == "2\t1\t1\n");
  CHECK(Lake(dir, {"query", "SELECT k FROM a.t"}).out == "k\na\nc\n");
  CHECK(Lake(dir, {"query", "SELECT k FROM a.t AS OF VERSION 1"}).out == "k\na\nb\n");
  Result json = Lake(dir, {"exec", "INSERT INTO a.t REPLACE WHERE k = ? (k) VALUES (?)", "--param",
                           "nobody", "--param", "d", "--json"});
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  CHECK(json.out == "{\"deleted_rows\":0,\"inserted_rows\":1,\"version\":3}\n");
}

TEST_CASE("lake exec refuses a replace-where outside the grammar, naming the token") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "n:int64"}).exit_code == 0);
  Result bad = Lake(dir, {"exec", "INSERT INTO a.t REPLACE n = ? (n) VALUES (?)", "--param", "1",
                          "--param", "2"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("expected WHERE, found 'n' at offset 24") != std::string::npos);
  CHECK(Lake(dir, {"query", "SELECT count(*) FROM a.t"}).out == "count\n0\n");
}

// A table a.t (n int64) at version 3, one row per version.
void CreateThreeVersions(const TempDir& dir) {
  REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "n:int64"}).exit_code == 0);
  for (const char* n : {"1", "2", "3"}) {
    REQUIRE(Lake(dir, {"insert", "INSERT INTO a.t (n) VALUES (?)", "--param", n}).exit_code == 0);
  }
}

TEST_CASE("lake exec DROP TABLE drops the table") {
  TempDir dir;
  CreateThreeVersions(dir);
  Result dropped = Lake(dir, {"exec", "DROP TABLE a.t"});
  REQUIRE_MESSAGE(dropped.exit_code == 0, dropped.err);
  CHECK(dropped.out == "3\t0\n");
  CHECK(Lake(dir, {"query", "SELECT * FROM a.t"}).exit_code == 6);
  CHECK(Lake(dir, {"exec", "DROP TABLE a.t"}).exit_code == 6);
}

TEST_CASE("lake exec ALTER TABLE tags, expires around the tag, and untags") {
  TempDir dir;
  CreateThreeVersions(dir);
  Result tagged = Lake(dir, {"exec", "ALTER TABLE a.t CREATE TAG first AS OF VERSION 1"});
  REQUIRE_MESSAGE(tagged.exit_code == 0, tagged.err);
  CHECK(tagged.out == "1\t0\n");
  CHECK(Lake(dir, {"exec", "ALTER TABLE a.t CREATE TAG first AS OF VERSION 2"}).exit_code == 4);
  Result expired = Lake(dir, {"exec", "alter table a.t expire versions keep last 1", "--json"});
  REQUIRE_MESSAGE(expired.exit_code == 0, expired.err);
  CHECK(expired.out == "{\"retired_versions\":1,\"version\":3}\n");
  CHECK(Lake(dir, {"query", "SELECT n FROM a.t AS OF VERSION 1"}).out == "n\n1\n");
  CHECK(Lake(dir, {"query", "SELECT n FROM a.t AS OF VERSION 2"}).exit_code == 6);
  Result untagged = Lake(dir, {"exec", "ALTER TABLE a.t DROP TAG first"});
  REQUIRE_MESSAGE(untagged.exit_code == 0, untagged.err);
  CHECK(untagged.out == "3\t0\n");
  CHECK(Lake(dir, {"exec", "ALTER TABLE a.t DROP TAG first"}).exit_code == 6);
}

TEST_CASE("lake exec refuses ALTER TABLE outside the grammar, naming the token") {
  TempDir dir;
  CreateThreeVersions(dir);
  Result bad = Lake(dir, {"exec", "ALTER TABLE a.t EXPIRE VERSIONS OLDER THAN 3 WEEKS"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("expected SECONDS, MINUTES, HOURS or DAYS, found 'WEEKS' at offset 45") !=
        std::string::npos);
  Result none = Lake(dir, {"exec", "ALTER TABLE a.t EXPIRE VERSIONS"});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("expected KEEP LAST or OLDER THAN") != std::string::npos);
  CHECK(Lake(dir, {"query", "SELECT n FROM a.t AS OF VERSION 1"}).out == "n\n1\n");
}

TEST_CASE("lake exec refuses a SELECT, an INSERT, a bad value and a missing table") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "n:int64"}).exit_code == 0);
  CHECK(Lake(dir, {"exec", "SELECT * FROM a.t"}).exit_code == 2);
  CHECK(Lake(dir, {"exec", "INSERT INTO a.t (n) VALUES (?)", "--param", "1"}).exit_code == 2);
  Result bad_value = Lake(dir, {"exec", "DELETE FROM a.t WHERE n = ?", "--param", "one"});
  CHECK(bad_value.exit_code == 2);
  CHECK(bad_value.err.find("int64") != std::string::npos);
  CHECK(Lake(dir, {"exec", "DELETE FROM a.nope"}).exit_code == 6);
  CHECK(Lake(dir, {"exec", "DELETE FROM a.t WHERE"}).exit_code == 2);
  CHECK(Lake(dir, {"query", "SELECT * FROM a.t"}).out == "n\n");
}

TEST_CASE("tables CLI: errors have their exit codes and leave nothing behind") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "x:int64", "--column", "f:file"})
              .exit_code == 0);
  WriteSource(dir, "f.bin", 100, 2);
  // SQL outside the subset, a bad value, a missing table: exit 2 / 6, no upload.
  Result bad_sql = Lake(dir, {"insert", "INSERT INTO a.t (x, f) VALUES (?, 'x')", "--param", "1",
                              "--file", "f.bin"});
  CHECK(bad_sql.exit_code == 2);
  Result bad_value =
      Lake(dir, {"insert", "INSERT INTO a.t (x, f) VALUES (?, ?)", "--param", "one", "--file",
                 "f.bin"});
  CHECK(bad_value.exit_code == 2);
  CHECK(bad_value.err.find("int64") != std::string::npos);
  Result missing = Lake(dir, {"query", "SELECT * FROM a.nope"});
  CHECK(missing.exit_code == 6);
  Result count = Lake(dir, {"insert", "INSERT INTO a.t (x) VALUES (?)"});
  CHECK(count.exit_code == 2);
  Result exists = Lake(dir, {"table", "create", "a.t", "--column", "x:int64"});
  CHECK(exists.exit_code == 4);
  Result bad_type = Lake(dir, {"table", "create", "a.u", "--column", "x:integer"});
  CHECK(bad_type.exit_code == 2);
  CHECK(Lines(Lake(dir, {"stage", "list", "--json"}).out).empty());
  CHECK(Lake(dir, {"query", "SELECT * FROM a.t"}).out == "x\tf\n");
}

// Damages a byte in the middle of the one fragment of a.t in the root of
// `dir`, wherever it lies (a table log record, or a file).
void DamageOnlyFragment(const TempDir& dir) {
  absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
  REQUIRE(fs.ok());
  const std::string root_dir = dir.Join("lake-data");
  absl::StatusOr<std::unique_ptr<lake::testing::TableRoot>> root =
      lake::testing::TableRoot::Open(**fs, root_dir);
  REQUIRE_MESSAGE(root.ok(), root.status().ToString());
  std::vector<lake::table::FragmentRef> fragments =
      lake::testing::ManifestOf(**root, "a.t", 1).fragments;
  REQUIRE(fragments.size() == 1);
  lake::testing::TablePathBytes at = lake::testing::LocateTablePath(
      (*root)->tables->TableDir(*lake::table::ParseTableName("a.t")), fragments[0].path);
  lake::testing::DamageTableByte(at, static_cast<std::streamoff>(at.size / 2), std::ios::beg);
}

TEST_CASE("tables CLI: a query over a damaged fragment exits 3, on either layout") {
  for (const char* layout : {"LAKE_TABLE_LOG_VERSIONS=1", "LAKE_TABLE_LOG_VERSIONS=0"}) {
    CAPTURE(layout);
    TempDir dir;
    REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "x:int64"}).exit_code == 0);
    REQUIRE(Lake(dir, {"insert", "INSERT INTO a.t (x) VALUES (?)", "--param", "7"}, "", {layout})
                .exit_code == 0);
    REQUIRE(Lake(dir, {"query", "SELECT * FROM a.t"}).out == "x\n7\n");
    DamageOnlyFragment(dir);
    Result damaged = Lake(dir, {"query", "SELECT * FROM a.t"});
    CHECK_MESSAGE(damaged.exit_code == 3, damaged.err);
  }
}

TEST_CASE("tables CLI, versions as files: a query over a missing fragment file exits 3") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "a.t", "--column", "x:int64"}).exit_code == 0);
  REQUIRE(Lake(dir, {"insert", "INSERT INTO a.t (x) VALUES (?)", "--param", "7"}, "",
               {"LAKE_TABLE_LOG_VERSIONS=0"})
              .exit_code == 0);
  std::vector<std::string> fragments;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path())) {
    if (entry.path().extension() == ".frag") fragments.push_back(entry.path().string());
  }
  REQUIRE(fragments.size() == 1);
  REQUIRE(Lake(dir, {"query", "SELECT * FROM a.t"}).out == "x\n7\n");
  std::filesystem::remove(fragments[0]);
  Result missing = Lake(dir, {"query", "SELECT * FROM a.t", "--json"});
  CHECK_MESSAGE(missing.exit_code == 3, missing.err);
  CHECK(missing.err.find("missing") != std::string::npos);
}

}  // namespace

namespace {

// Every byte of every file under `dir`, for scanning.
std::string AllBytesUnder(const std::string& dir) {
  std::string all;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) all += Slurp(entry.path().string());
  }
  return all;
}

TEST_CASE("S3 CLI: tables on an S3 stage; a crashed insert recovers; no credential is stored or printed") {
  TempDir dir;
  S3Root s3;
  std::string secret = std::getenv("AWS_SECRET_ACCESS_KEY");
  REQUIRE(secret.size() >= 16);
  std::vector<Result> results;
  results.push_back(Lake(dir, Concat({"table", "create", "s.t", "--column", "id:utf8", "--column",
                                      "f:file"},
                                     s3.Flags())));
  REQUIRE_MESSAGE(results.back().exit_code == 0, results.back().err);
  WriteSource(dir, "a.bin", 300000, 30);
  WriteSource(dir, "b.bin", 200000, 31);
  results.push_back(Lake(dir, {"insert", "INSERT INTO s.t (id, f) VALUES (?, ?)", "--param", "a",
                               "--file", "a.bin"}));
  REQUIRE_MESSAGE(results.back().exit_code == 0, results.back().err);
  // Killed once its checkpoint is written, before its commit is queued
  // (a queued one the next writer commits): the upload happened, the row
  // did not.
  results.push_back(Lake(dir, {"insert", "INSERT INTO s.t (id, f) VALUES (?, ?)", "--param", "b",
                               "--file", "b.bin"},
                         "", {"LAKE_FAILPOINTS=table_log.written=kill"}));
  CHECK(results.back().exit_code == 128 + SIGKILL);
  results.push_back(Lake(dir, {"recover", "--list"}));
  CHECK(Lines(results.back().out).size() == 1);
  // The checkpoint (and everything else the root holds) has no credential.
  std::string stored = AllBytesUnder(dir.path() + "/lake-data");
  CHECK(stored.find(secret) == std::string::npos);
  CHECK(stored.find(std::getenv("AWS_ACCESS_KEY_ID")) == std::string::npos);
  results.push_back(Lake(dir, {"recover"}));
  CHECK(results.back().exit_code == 0);
  CHECK(results.back().out.find("committed") != std::string::npos);
  results.push_back(Lake(dir, {"query", "SELECT id, f FROM s.t", "--json"}));
  REQUIRE(results.back().exit_code == 0);
  std::vector<std::string> rows = Lines(results.back().out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].find("\"uri\":\"s3://" + s3.bucket + "/cli%20data/objects/") != std::string::npos);
  CHECK(rows[1].find("\"id\":\"b\"") != std::string::npos);
  // The object of the recovered row reads back verified from S3.
  size_t start = rows[1].find("\"f\":") + 4;
  std::string location = rows[1].substr(start, rows[1].find('}', start) + 1 - start);
  results.push_back(Lake(dir, {"cat", location}));
  CHECK(results.back().exit_code == 0);
  CHECK(results.back().out.size() == 200000);
  results.push_back(Lake(dir, {"table", "describe", "s.t"}));
  for (const Result& r : results) {
    CHECK(r.out.find(secret) == std::string::npos);
    CHECK(r.err.find(secret) == std::string::npos);
  }
}

}  // namespace

namespace {

// ---- lake events (EVENT-LOG.md; CLI.md, "Event JSONL") ----

const std::vector<std::string> kExperiment = {"--pipeline", "p", "--experiment", "x"};

// `lake events SUB ARGS… --pipeline p --experiment x`.
Result Events(const TempDir& dir, const std::vector<std::string>& args,
              const std::string& input = "") {
  std::vector<std::string> all = {"events"};
  all.insert(all.end(), args.begin(), args.end());
  all.insert(all.end(), kExperiment.begin(), kExperiment.end());
  return Lake(dir, all, input);
}

// A root "r" with a field, and a fan-out child "r/map:0" holding an inline
// blob "hi" in an appended list field, then failing.
constexpr char kRootAndChild[] =
    R"({"item_id":"r","item_seq":1,"checkpoint_id":"c1","event_type":"ITEM_CREATED","writer_epoch":"w1"})"
    "\n"
    R"({"item_id":"r","item_seq":2,"checkpoint_id":"c1","event_type":"FIELD_SET","field_name":"prompt","value_kind":"str","value_str":"hi","writer_epoch":"w1"})"
    "\n"
    R"({"item_id":"r/map:0","item_seq":1,"checkpoint_id":"c2","event_type":"ITEM_CREATED","step_name":"map","step_index":0,"step_kind":"MapReduce","writer_epoch":"w1"})"
    "\n"
    R"({"item_id":"r/map:0","item_seq":2,"checkpoint_id":"c2","event_type":"FIELD_APPEND","field_name":"img","value_kind":"blob","blob_inline_base64":"aGk=","payload_size":2,"payload_checksum":"8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4","writer_epoch":"w1"})"
    "\n"
    R"({"item_id":"r/map:0","item_seq":3,"checkpoint_id":"c2","event_type":"FAILED","error_type":"Boom","error_dump":"x","writer_epoch":"w1"})"
    "\n";

// Creates p/x and appends kRootAndChild.
void CreateWithRootAndChild(const TempDir& dir) {
  Result create = Events(dir, {"create"});
  REQUIRE_MESSAGE(create.exit_code == 0, create.err);
  std::ofstream(dir.Join("a.jsonl")) << kRootAndChild;
  Result append = Events(dir, {"append", "a.jsonl"});
  REQUIRE_MESSAGE(append.exit_code == 0, append.err);
}

TEST_CASE("events CLI: create, list, describe and delete an experiment") {
  TempDir dir;
  Result create = Events(dir, {"create"});
  REQUIRE_MESSAGE(create.exit_code == 0, create.err);
  CHECK(create.out.empty());
  CHECK(Events(dir, {"create"}).exit_code == 4);
  CHECK(Lake(dir, {"events", "create", "--pipeline", "q", "--experiment", "y"}).exit_code == 0);

  Result all = Lake(dir, {"events", "list", "--json"});
  REQUIRE_MESSAGE(all.exit_code == 0, all.err);
  std::vector<std::string> lines = Lines(all.out);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].rfind(R"({"pipeline":"p","experiment":"x","created_at":")", 0) == 0);
  CHECK(lines[1].rfind(R"({"pipeline":"q","experiment":"y","created_at":")", 0) == 0);
  Result of_p = Lake(dir, {"events", "list", "--pipeline", "p"});
  CHECK(of_p.exit_code == 0);
  CHECK(of_p.out.rfind("p\tx\t", 0) == 0);
  CHECK(Lines(of_p.out).size() == 1);

  Result describe = Events(dir, {"describe", "--json"});
  REQUIRE_MESSAGE(describe.exit_code == 0, describe.err);
  CHECK(describe.out.find(R"("items":0,"events":0})") != std::string::npos);
  CHECK(Events(dir, {"describe"}).out.find("events      0\n") != std::string::npos);

  Result del = Events(dir, {"delete"});
  CHECK_MESSAGE(del.exit_code == 0, del.err);
  CHECK(Events(dir, {"delete"}).exit_code == 6);
  CHECK(Lines(Lake(dir, {"events", "list", "--json"}).out).size() == 1);
}

TEST_CASE("events CLI: appended events fold, tree, list roots, failures and raw events") {
  TempDir dir;
  CreateWithRootAndChild(dir);
  Result fold = Events(dir, {"fold", "r"});
  REQUIRE_MESSAGE(fold.exit_code == 0, fold.err);
  CHECK(Lines(fold.out).size() == 1);
  CHECK(fold.out.rfind(R"({"item_id":"r","root_item_id":"r","parent_item_id":null,"status":"running")",
                       0) == 0);
  CHECK(fold.out.find(R"("fields":{"prompt":"hi"})") != std::string::npos);
  Result child = Events(dir, {"fold", "r/map:0"});
  CHECK(child.out.find(R"("status":"failed")") != std::string::npos);

  Result tree = Events(dir, {"tree", "r"});
  REQUIRE_MESSAGE(tree.exit_code == 0, tree.err);
  CHECK(Lines(tree.out).size() == 1);
  CHECK(tree.out.find(R"("created_by_step":"map")") != std::string::npos);
  CHECK(tree.out.find(R"("orphans":[])") != std::string::npos);

  Result roots = Events(dir, {"roots"});
  CHECK(roots.out == R"({"roots":[{"item_id":"r","status":"running"}],)"
                     R"("counts":{"running":1,"completed":0,"filtered":0,"failed":0}})"
                     "\n");
  Result failures = Events(dir, {"failures"});
  CHECK(Lines(failures.out).size() == 1);
  CHECK(failures.out.find(R"("item_id":"r/map:0","item_seq":3)") != std::string::npos);
  CHECK(failures.out.find(R"("error_type":"Boom")") != std::string::npos);

  Result events = Events(dir, {"events", "r"});
  REQUIRE_MESSAGE(events.exit_code == 0, events.err);
  std::vector<std::string> lines = Lines(events.out);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].find(R"("event_type":"ITEM_CREATED")") != std::string::npos);
  CHECK(lines[4].find(R"("event_type":"FAILED")") != std::string::npos);
}

TEST_CASE("events CLI: appending the same events again absorbs them as duplicates") {
  TempDir dir;
  CreateWithRootAndChild(dir);
  Result again = Events(dir, {"append", "-", "--json"}, kRootAndChild);
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(again.out == "{\"appended\":0,\"duplicates\":5}\n");
  Result quiet = Events(dir, {"append", "a.jsonl"});
  CHECK(quiet.out.empty());
  CHECK(quiet.err == "appended 0 events, 5 duplicates absorbed\n");
  CHECK(Events(dir, {"describe", "--json"}).out.find(R"("items":2,"events":5})") !=
        std::string::npos);
}

TEST_CASE("events CLI: a fencing violation exits 4 and appends nothing") {
  TempDir dir;
  CreateWithRootAndChild(dir);
  std::string fold = Events(dir, {"fold", "r"}).out;
  Result fenced = Events(
      dir, {"append", "-"},
      R"({"item_id":"r","item_seq":2,"checkpoint_id":"c9","event_type":"FIELD_SET","field_name":"prompt","value_kind":"str","value_str":"other","writer_epoch":"w1"})"
      "\n");
  CHECK(fenced.exit_code == 4);
  CHECK(fenced.err.find("fencing") != std::string::npos);
  CHECK(Events(dir, {"fold", "r"}).out == fold);
}

// An item "b" created, then its blob field set to the DataLocation `json`
// (canonical form) of `size` bytes and digest `sha256`, as two batches.
std::string EventsWithBlobAt(const std::string& json, size_t size, const std::string& sha256) {
  return R"({"item_id":"b","item_seq":1,"checkpoint_id":"b1","event_type":"ITEM_CREATED","writer_epoch":"w1"})"
         "\n"
         R"({"item_id":"b","item_seq":2,"checkpoint_id":"b2","event_type":"FIELD_SET","field_name":"img","value_kind":"blob","blob_location":)" +
         json + R"(,"payload_size":)" + std::to_string(size) + R"(,"payload_checksum":")" +
         sha256 + R"(","writer_epoch":"w1"})"
                  "\n";
}

TEST_CASE("events CLI: a blob_location outside the stage, missing or of another size is refused") {
  TempDir dir;
  REQUIRE(Events(dir, {"create"}).exit_code == 0);
  std::string bytes = WriteSource(dir, "f", 1000, 9);
  const std::string sha = lake::testing::Sha256Hex(
      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  const std::string stored = Put(dir, "f");
  const std::string removed = Put(dir, "f");
  REQUIRE(removed != stored);
  std::filesystem::remove(ObjectPath(removed));
  std::string longer = stored;
  longer.replace(longer.find("\"size_bytes\":1000"), 17, "\"size_bytes\":1001");
  const std::string outside =
      R"({"uri":"file:///etc/passwd","content_type":"text/plain","size_bytes":1000,"sha256":")" +
      sha + "\"}";
  struct Refused {
    std::string what, events;
    int exit_code;
  };
  for (const Refused& r : {Refused{"outside", EventsWithBlobAt(outside, 1000, sha), 2},
                           Refused{"missing", EventsWithBlobAt(removed, 1000, sha), 6},
                           Refused{"longer", EventsWithBlobAt(longer, 1001, sha), 3}}) {
    CAPTURE(r.what);
    Result refused = Events(dir, {"append", "-"}, r.events);
    CHECK(refused.exit_code == r.exit_code);
    CHECK(refused.err.find("blob_location") != std::string::npos);
    CHECK(Events(dir, {"fold", "b"}).out == "null\n");  // not even the batch before it
  }
  Result accepted = Events(dir, {"append", "-"}, EventsWithBlobAt(stored, 1000, sha));
  CHECK_MESSAGE(accepted.exit_code == 0, accepted.err);
  CHECK(Events(dir, {"blob", "b", "img"}).out == bytes);
}

TEST_CASE("events CLI: an unknown experiment exits 6") {
  TempDir dir;
  for (const std::string sub : {"describe", "delete", "roots", "failures", "compact"}) {
    CAPTURE(sub);
    Result r = Events(dir, {sub});
    CHECK(r.exit_code == 6);
    CHECK(r.out.empty());
  }
  CHECK(Events(dir, {"fold", "r"}).exit_code == 6);
  CHECK(Events(dir, {"append", "-"}, kRootAndChild).exit_code == 6);
}

TEST_CASE("events CLI: the fold of an unknown item prints null and exits 0") {
  TempDir dir;
  CreateWithRootAndChild(dir);
  Result r = Events(dir, {"fold", "nobody"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "null\n");
  CHECK(r.err.empty());
}

TEST_CASE("events CLI: blob writes the last value of a list field, verified, to stdout or -o") {
  TempDir dir;
  CreateWithRootAndChild(dir);
  std::string more =
      R"({"item_id":"r/map:0","item_seq":4,"attempt":1,"checkpoint_id":"c3","event_type":"FIELD_APPEND","field_name":"img","value_kind":"blob","blob_inline_base64":"eW8=","payload_size":2,"payload_checksum":"e9058ab198f6908f702111b0c0fb5b36f99d00554521886c40e2891b349dc7a1","writer_epoch":"w1"})"
      "\n";
  // The only value, then (in a resumed attempt) a second one: the last is
  // written.
  Result out = Events(dir, {"blob", "r/map:0", "img"});
  CHECK_MESSAGE(out.exit_code == 0, out.err);
  CHECK(out.out == "hi");
  Result file = Events(dir, {"blob", "r/map:0", "img", "-o", "out.bin"});
  CHECK_MESSAGE(file.exit_code == 0, file.err);
  CHECK(file.out.empty());
  CHECK(Slurp(dir.Join("out.bin")) == "hi");
  CHECK(Events(dir, {"append", "-"}, more).exit_code == 0);
  Result last = Events(dir, {"blob", "r/map:0", "img"});
  CHECK_MESSAGE(last.out == "yo", last.err);
  Result nothing = Events(dir, {"blob", "r/map:0", "nothing"});
  CHECK_MESSAGE(nothing.exit_code == 6, nothing.err);
  CHECK(Events(dir, {"blob", "nobody", "img", "-o", "none.bin"}).exit_code == 6);
  CHECK_FALSE(std::filesystem::exists(dir.Join("none.bin")));
}

// Starts `lake ARGS…` in `dir` with stdin a pipe it blocks on; *input_fd is
// the pipe's write end. Its output is discarded.
pid_t StartLake(const TempDir& dir, const std::vector<std::string>& args, int* input_fd) {
  const char* cli = std::getenv("LAKE_CLI");
  REQUIRE(cli != nullptr);
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(dir.path().c_str()) != 0) _exit(120);
    dup2(fds[0], 0);
    close(fds[0]);
    close(fds[1]);
    int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    unsetenv("LAKE_ROOT");
    std::vector<char*> argv = {const_cast<char*>(cli)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(cli, argv.data());
    _exit(121);
  }
  close(fds[0]);
  *input_fd = fds[1];
  return pid;
}

TEST_CASE("events CLI: compact merges shards and keeps every fold identical") {
  TempDir dir;
  REQUIRE(Events(dir, {"create"}).exit_code == 0);
  // Two appends at once write two shards: the first holds its shard while
  // it waits for its input.
  int input = -1;
  std::vector<std::string> args = {"events", "append", "-"};
  args.insert(args.end(), kExperiment.begin(), kExperiment.end());
  pid_t first = StartLake(dir, args, &input);
  std::string second =
      R"({"item_id":"s","item_seq":1,"checkpoint_id":"c5","event_type":"ITEM_CREATED","writer_epoch":"w2"})"
      "\n";
  // Waits (up to 10 s) for the first process to take its shard.
  for (int i = 0; i < 100; ++i) {
    if (Events(dir, {"describe", "--json"}).out.find(R"("shards":1)") != std::string::npos) break;
    usleep(100000);
  }
  REQUIRE(Events(dir, {"append", "-"}, second).exit_code == 0);
  std::string text = kRootAndChild;
  REQUIRE(write(input, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(input);
  int status = 0;
  REQUIRE(waitpid(first, &status, 0) == first);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(Events(dir, {"describe", "--json"}).out.find(R"("shards":2,"items":3,"events":6})") !=
        std::string::npos);

  const std::vector<std::string> items = {"r", "r/map:0", "s"};
  std::vector<std::string> before;
  for (const std::string& item : items) before.push_back(Events(dir, {"fold", item}).out);
  std::string roots = Events(dir, {"roots"}).out;
  Result compact = Events(dir, {"compact"});
  REQUIRE_MESSAGE(compact.exit_code == 0, compact.err);
  CHECK_MESSAGE(compact.out.rfind(R"({"compacted":true,)", 0) == 0, compact.out);
  CHECK_MESSAGE(compact.out.find(R"("merged_shards":2,"skipped_shards":0,"events":6})") !=
                    std::string::npos,
                compact.out);
  for (size_t i = 0; i < items.size(); ++i) {
    CAPTURE(items[i]);
    CHECK(Events(dir, {"fold", items[i]}).out == before[i]);
  }
  CHECK(Events(dir, {"roots"}).out == roots);
  CHECK(Events(dir, {"describe", "--json"}).out.find(R"("shards":1,"items":3,"events":6})") !=
        std::string::npos);
}

// ---- Issue 18: `-o` into what is not a regular file; reads while a writer works ----

// The names in `dir` that are temporaries of a -o.
std::vector<std::string> PartialFiles(const TempDir& dir) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    std::string name = entry.path().filename().string();
    if (name.find(".lake-partial-") != std::string::npos) found.push_back(name);
  }
  return found;
}

// Every byte readable from non-blocking `fd` now.
std::string DrainNonBlocking(int fd) {
  std::string bytes;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
  return bytes;
}

// The file type (S_IFMT bits) of what `path` resolves to; 0 for nothing.
mode_t TypeOf(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// Makes a FIFO at `path` and opens its read end (non-blocking), as the
// program on its far side would before the command runs.
int FifoWithReader(const std::string& path) {
  REQUIRE(mkfifo(path.c_str(), 0644) == 0);
  int reader = open(path.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  return reader;
}

// An object small enough (< 64 KiB, a pipe's buffer) to be written whole
// into a FIFO or socket whose reader reads only after the command exits.
constexpr size_t kPipeSizedObject = 50000;

TEST_CASE("cat -o into a character device writes through it: the node stays a device, no temporary is left") {
  TempDir dir;
  WriteSource(dir, "f", 300000, 31);
  std::string json = Put(dir, "f");
  // A null device of the scratch directory, never the machine's /dev/null.
  std::string null_device = dir.Join("null");
  if (mknod(null_device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    MESSAGE("skipped: mknod needs CAP_MKNOD (", std::strerror(errno), ")");
    return;
  }
  if (int fd = open(null_device.c_str(), O_WRONLY); fd < 0) {
    MESSAGE("skipped: device nodes cannot be opened here (", std::strerror(errno), ")");
    return;
  } else {
    close(fd);
  }
  REQUIRE(symlink("null", dir.Join("link-to-null").c_str()) == 0);
  for (const std::string& out : {std::string("null"), std::string("link-to-null")}) {
    CAPTURE(out);
    Result r = Lake(dir, {"cat", json, "-o", out});
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    struct stat st {};
    REQUIRE(stat(null_device.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    CHECK(st.st_rdev == makedev(1, 3));
    REQUIRE(lstat(dir.Join("link-to-null").c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));  // decided by what the path resolves to
    CHECK(PartialFiles(dir).empty());
  }
}

TEST_CASE("cat -o into a FIFO writes to its reader; a failed verification still exits 3") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "f", kPipeSizedObject, 32);
  std::string json = Put(dir, "f");
  int reader = FifoWithReader(dir.Join("fifo"));
  Result ok = Lake(dir, {"cat", json, "-o", "fifo"});
  CHECK_MESSAGE(ok.exit_code == 0, ok.err);
  CHECK(DrainNonBlocking(reader) == bytes);

  std::string tampered = bytes;
  tampered[7] ^= 1;
  std::ofstream(ObjectPath(json), std::ios::binary | std::ios::trunc) << tampered;
  Result bad = Lake(dir, {"cat", json, "-o", "fifo"});
  CHECK(bad.exit_code == 3);
  CHECK(bad.err.find("DigestMismatch") != std::string::npos);
  CHECK(DrainNonBlocking(reader) == tampered);  // written as read; the exit code tells
  close(reader);
  CHECK(TypeOf(dir.Join("fifo")) == S_IFIFO);
  CHECK(PartialFiles(dir).empty());
}

TEST_CASE("cat -o into a unix socket streams to its listener and leaves the socket in place") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "f", kPipeSizedObject, 33);
  std::string json = Put(dir, "f");
  std::string path = dir.Join("sock");
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  REQUIRE(listener >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof(address.sun_path));
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  REQUIRE(listen(listener, 1) == 0);
  Result r = Lake(dir, {"cat", json, "-o", "sock"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  int connection = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
  CHECK(connection >= 0);
  if (connection >= 0) {
    CHECK(DrainNonBlocking(connection) == bytes);
    close(connection);
  }
  close(listener);
  CHECK(TypeOf(path) == S_IFSOCK);
  CHECK(PartialFiles(dir).empty());
}

TEST_CASE("events blob -o into a FIFO writes to its reader and leaves the FIFO in place") {
  TempDir dir;
  CreateWithRootAndChild(dir);
  int reader = FifoWithReader(dir.Join("fifo"));
  Result r = Events(dir, {"blob", "r/map:0", "img", "-o", "fifo"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(DrainNonBlocking(reader) == "hi");
  close(reader);
  CHECK(TypeOf(dir.Join("fifo")) == S_IFIFO);
  CHECK(PartialFiles(dir).empty());
}

TEST_CASE("cat -o over an existing regular file keeps it until the bytes are verified") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "f", 300000, 34);
  std::string json = Put(dir, "f");
  std::ofstream(dir.Join("out.bin")) << "old";
  std::string tampered = bytes;
  tampered[9] ^= 1;
  std::ofstream(ObjectPath(json), std::ios::binary | std::ios::trunc) << tampered;
  CHECK(Lake(dir, {"cat", json, "-o", "out.bin"}).exit_code == 3);
  CHECK(Slurp(dir.Join("out.bin")) == "old");
  CHECK(PartialFiles(dir).empty());
  std::ofstream(ObjectPath(json), std::ios::binary | std::ios::trunc) << bytes;
  Result ok = Lake(dir, {"cat", json, "-o", "out.bin"});
  CHECK_MESSAGE(ok.exit_code == 0, ok.err);
  CHECK(Slurp(dir.Join("out.bin")) == bytes);
  CHECK(PartialFiles(dir).empty());
}

TEST_CASE("cat -o through a symlink to a regular file replaces the file and keeps the link") {
  TempDir dir;
  std::string bytes = WriteSource(dir, "f", 300000, 35);
  std::string json = Put(dir, "f");
  std::filesystem::create_directory(dir.Join("data"));
  std::ofstream(dir.Join("data/target.bin")) << "old";
  REQUIRE(symlink("data/target.bin", dir.Join("link.bin").c_str()) == 0);
  Result r = Lake(dir, {"cat", json, "-o", "link.bin"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::filesystem::is_symlink(dir.Join("link.bin")));
  CHECK(Slurp(dir.Join("data/target.bin")) == bytes);
  CHECK(PartialFiles(dir).empty());
}

// Opens the write end of `fifo` once `reader` (a lake process) has opened
// it for reading; -1 if the process exits first or 20 s pass.
int OpenWhenReaderArrives(const std::string& fifo, pid_t reader) {
  for (int i = 0; i < 2000; ++i) {
    int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      return fd;
    }
    int status = 0;
    if (waitpid(reader, &status, WNOHANG) == reader) return -1;
    usleep(10000);
  }
  return -1;
}

TEST_CASE("reads never wait on a writer: query and table list|describe|versions during a long insert see the table as it was; other writers commit meanwhile") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "robots.episodes", "--column", "episode_id:utf8",
                     "--column", "video:file"})
              .exit_code == 0);
  WriteSource(dir, "ep1.mp4", 5000, 36);
  const std::string insert = "INSERT INTO robots.episodes (episode_id, video) VALUES (?, ?)";
  Result first = Lake(dir, {"insert", insert, "--param", "ep-1", "--file", "ep1.mp4"});
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);

  // A second insert uploads from a FIFO this test feeds: it is mid-way
  // from before it opens the FIFO until it is closed (it holds no lock
  // while it uploads: the commit turn is taken only around its commit).
  REQUIRE(mkfifo(dir.Join("slow.mp4").c_str(), 0644) == 0);
  int unused_stdin = -1;
  pid_t writer = StartLake(dir, {"insert", insert, "--param", "ep-2", "--file", "slow.mp4"},
                           &unused_stdin);
  int feed = OpenWhenReaderArrives(dir.Join("slow.mp4"), writer);
  REQUIRE(feed >= 0);
  std::string part(100000, 'x');
  REQUIRE(write(feed, part.data(), part.size()) == static_cast<ssize_t>(part.size()));

  Result query = Lake(dir, {"query", "SELECT episode_id FROM robots.episodes"});
  CHECK_MESSAGE(query.exit_code == 0, query.err);
  CHECK(query.out == "episode_id\nep-1\n");
  CHECK(query.err.empty());  // a fresh view: quietly
  Result list = Lake(dir, {"table", "list"});
  CHECK_MESSAGE(list.exit_code == 0, list.err);
  CHECK(list.out.find("robots.episodes\tversion 1\t") == 0);
  CHECK(list.err.empty());
  Result described = Lake(dir, {"table", "describe", "robots.episodes", "--json"});
  CHECK_MESSAGE(described.exit_code == 0, described.err);
  CHECK(described.out.find("\"total_rows\":1") != std::string::npos);
  Result versions = Lake(dir, {"table", "versions", "robots.episodes"});
  CHECK_MESSAGE(versions.exit_code == 0, versions.err);
  CHECK(Lines(versions.out).size() == 1);
  // Nor do writers wait on an upload: another process creates a table and
  // commits an INSERT while the first one is still uploading.
  Result created = Lake(dir, {"table", "create", "robots.other", "--column", "a:utf8"});
  CHECK_MESSAGE(created.exit_code == 0, created.err);
  WriteSource(dir, "ep3.mp4", 3000, 37);
  Result third = Lake(dir, {"insert", insert, "--param", "ep-3", "--file", "ep3.mp4"});
  CHECK_MESSAGE(third.exit_code == 0, third.err);
  CHECK(Lake(dir, {"query", "SELECT episode_id FROM robots.episodes"}).out ==
        "episode_id\nep-1\nep-3\n");

  REQUIRE(write(feed, part.data(), part.size()) == static_cast<ssize_t>(part.size()));
  close(feed);
  close(unused_stdin);
  int status = 0;
  REQUIRE(waitpid(writer, &status, 0) == writer);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  Result after = Lake(dir, {"query", "SELECT episode_id FROM robots.episodes"});
  CHECK_MESSAGE(after.exit_code == 0, after.err);
  // The slow INSERT went on the version current when it committed.
  CHECK(after.out == "episode_id\nep-1\nep-3\nep-2\n");
  CHECK(Lake(dir, {"table", "list"}).out.find("robots.episodes\tversion 3\t") == 0);
}

TEST_CASE("an insert waits for another writer's commit up to --busy-timeout, then exits 4 saying the root is busy") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "create", "robots.episodes", "--column", "episode_id:utf8",
                     "--column", "video:file"})
              .exit_code == 0);
  WriteSource(dir, "ep.mp4", 4000, 38);
  const std::string insert = "INSERT INTO robots.episodes (episode_id, video) VALUES (?, ?)";
  // This test holds the root's commit lock, as a writer mid-commit does.
  int held = open(dir.Join("lake-data/commit.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(held >= 0);
  REQUIRE(flock(held, LOCK_EX) == 0);
  Result busy = Lake(dir, {"--busy-timeout", "200", "insert", insert, "--param", "ep-1", "--file",
                           "ep.mp4"});
  CHECK(busy.exit_code == 4);
  CHECK_MESSAGE(busy.err.find("the root is busy") != std::string::npos, busy.err);
  CHECK(busy.err.find("200ms busy timeout") != std::string::npos);
  // A writer that waits long enough commits once the lock is released.
  int unused_stdin = -1;
  pid_t waiting = StartLake(dir, {"--busy-timeout", "20000", "insert", insert, "--param", "ep-2",
                                  "--file", "ep.mp4"},
                            &unused_stdin);
  usleep(300000);
  int status = 0;
  CHECK(waitpid(waiting, &status, WNOHANG) == 0);  // still waiting
  close(held);
  close(unused_stdin);
  REQUIRE(waitpid(waiting, &status, 0) == waiting);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(Lake(dir, {"query", "SELECT episode_id FROM robots.episodes"}).out == "episode_id\nep-2\n");
  // The flag takes milliseconds.
  CHECK(Lake(dir, {"--busy-timeout", "soon", "table", "list"}).exit_code == 2);
}

TEST_CASE("read commands on a root without tables behave as before: list is empty, a query finds no table") {
  TempDir dir;
  Result list = Lake(dir, {"table", "list", "--json"});
  CHECK_MESSAGE(list.exit_code == 0, list.err);
  CHECK(list.out.empty());
  CHECK(Lake(dir, {"query", "SELECT * FROM a.b"}).exit_code == 6);
  CHECK(Lake(dir, {"table", "describe", "a.b"}).exit_code == 6);
  // Stage flags that disagree with the root's record are still refused.
  CHECK(Lake(dir, {"--stage", "s3://bucket/p", "table", "list"}).exit_code == 2);
  CHECK(Lake(dir, {"--stage", "s3://bucket/p", "query", "SELECT * FROM a.b"}).exit_code == 2);
}

TEST_CASE("events CLI: usage errors exit 2") {
  TempDir dir;
  CHECK(Lake(dir, {"events"}).exit_code == 2);
  CHECK(Events(dir, {"frobnicate"}).exit_code == 2);
  CHECK(Lake(dir, {"events", "create", "--pipeline", "p"}).exit_code == 2);
  CHECK(Lake(dir, {"events", "fold", "r", "--experiment", "x"}).exit_code == 2);
  CHECK(Events(dir, {"fold"}).exit_code == 2);
  CHECK(Events(dir, {"blob", "r"}).exit_code == 2);
  CHECK(Events(dir, {"roots", "extra"}).exit_code == 2);
  CHECK(Events(dir, {"fold", "r", "-o", "f"}).exit_code == 2);
  CHECK(Events(dir, {"roots", "--bogus"}).exit_code == 2);
  CHECK(Lake(dir, {"events", "create", "--pipeline", "p", "--experiment", "bad/name"}).exit_code ==
        2);
  CHECK(Events(dir, {"create"}).exit_code == 0);
  CHECK(Events(dir, {"append", "-"}, "{not json\n").exit_code == 2);
  Result help = Lake(dir, {"events", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("events blob ITEM_ID FIELD") != std::string::npos);
}

// --- the root's format record ---

TEST_CASE("a root of a newer format is refused: exit 2, one line naming both versions") {
  TempDir dir;
  std::filesystem::create_directories(dir.Join("lake-data"));
  // `printf 'lake_root_format=2' | sha256sum`
  std::ofstream(dir.Join("lake-data/format.json"))
      << "{\"lake_root_format\":2,\"sha256\":"
         "\"e4764586bc60d7448d7f6029ee1d3477576804ae78d435da58f4da7ef3b98663\"}\n";
  std::ofstream(dir.Join("f")) << "x";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"put", "f"}, {"table", "list"}, {"stage", "describe"}}) {
    CAPTURE(args[0]);
    Result r = Lake(dir, args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("format version 2") != std::string::npos);
    CHECK(r.err.find("up to 1") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK_FALSE(std::filesystem::exists(dir.Join("lake-data/stage")));
}

// ---- tables: inserts that fail, and recover --list / --discard ----

constexpr char kInsertOp[] = "INSERT INTO ml.ops (id) VALUES (?)";

void CreateOpsTable(const TempDir& dir) {
  Result created = Lake(dir, {"table", "create", "ml.ops", "--column", "id:utf8"});
  REQUIRE_MESSAGE(created.exit_code == 0, created.err);
}

TEST_CASE("tables CLI: table drop takes the table out of every listing at once; its name is free") {
  TempDir dir;
  CreateOpsTable(dir);
  REQUIRE(Lake(dir, {"insert", kInsertOp, "--param", "a"}).exit_code == 0);
  Result dropped = Lake(dir, {"table", "drop", "ml.ops"});
  CHECK(dropped.exit_code == 0);
  CHECK(dropped.out.empty());
  CHECK(dropped.err == "dropped ml.ops\n");
  CHECK(Lake(dir, {"table", "list", "--json"}).out.empty());
  CHECK(Lake(dir, {"query", "SELECT id FROM ml.ops"}).exit_code == 6);
  CHECK(Lake(dir, {"table", "describe", "ml.ops"}).exit_code == 6);
  // The name starts empty again.
  CreateOpsTable(dir);
  CHECK(Lake(dir, {"query", "SELECT id FROM ml.ops"}).out == "id\n");
}

TEST_CASE("tables CLI: table drop of an unknown table exits 6; a bad name exits 2") {
  TempDir dir;
  CreateOpsTable(dir);
  Result unknown = Lake(dir, {"table", "drop", "ml.nope"});
  CHECK(unknown.exit_code == 6);
  CHECK(unknown.err.find("ml.nope") != std::string::npos);
  CHECK(Lake(dir, {"table", "drop", "not a name"}).exit_code == 2);
  CHECK(Lake(dir, {"table", "drop"}).exit_code == 2);
  CHECK(Lake(dir, {"table", "list", "--json"}).out.find("ml.ops") != std::string::npos);
}

TEST_CASE("tables CLI, versions as files: table tag pins a version; expire retires the others; AS OF an expired one exits 6") {
  TempDir dir;
  CreateOpsTable(dir);
  // Versions as files, so that the tag retains a file of its own (in the
  // table log every record would lie in the active segment, which never goes).
  for (const char* id : {"a", "b", "c", "d"}) {
    REQUIRE(Lake(dir, {"insert", kInsertOp, "--param", id}, "", {"LAKE_TABLE_LOG_VERSIONS=0"})
                .exit_code == 0);
  }
  Result tagged = Lake(dir, {"table", "tag", "ml.ops", "golden", "2"});
  CHECK(tagged.exit_code == 0);
  CHECK(tagged.out.empty());
  CHECK(tagged.err == "tagged version 2 of ml.ops as golden\n");
  CHECK(Lake(dir, {"table", "tag", "ml.ops", "golden", "3"}).exit_code == 4);
  CHECK(Lake(dir, {"table", "tag", "ml.ops", "other", "9"}).exit_code == 6);
  CHECK(Lake(dir, {"table", "tag", "ml.ops", "other", "x"}).exit_code == 2);

  Result expired = Lake(dir, {"table", "expire", "ml.ops", "--keep-last", "1"});
  CHECK(expired.exit_code == 0);
  CHECK(expired.out == "expired 2 versions: 1 3\n");
  Result json = Lake(dir, {"table", "expire", "ml.ops", "--older-than", "0s", "--json"});
  CHECK(json.out == "{\"current_version\":4,\"retired\":[]}\n");

  Result gone = Lake(dir, {"query", "SELECT id FROM ml.ops AS OF VERSION 3"});
  CHECK(gone.exit_code == 6);
  CHECK(gone.err.find("version 3 of ml.ops was expired") != std::string::npos);
  CHECK(Lake(dir, {"query", "SELECT id FROM ml.ops AS OF VERSION 2"}).out == "id\na\nb\n");
  Result versions = Lake(dir, {"table", "versions", "ml.ops"});
  CHECK(versions.out.find("\ttag golden") != std::string::npos);
  CHECK(versions.out.find("\texpired ") != std::string::npos);
  Result described = Lake(dir, {"table", "describe", "ml.ops"});
  CHECK(described.out.find("expired    2 versions\n") != std::string::npos);
  CHECK(described.out.find("tag        golden version 2, only it retains 1 files") !=
        std::string::npos);

  Result untagged = Lake(dir, {"table", "untag", "ml.ops", "golden"});
  CHECK(untagged.exit_code == 0);
  CHECK(untagged.err == "removed tag golden of ml.ops\n");
  CHECK(Lake(dir, {"table", "untag", "ml.ops", "golden"}).exit_code == 6);
  CHECK(Lake(dir, {"table", "expire", "ml.ops", "--keep-last", "1"}).out ==
        "expired 1 versions: 2\n");
}

TEST_CASE("tables CLI: table expire needs a bound; bad bounds and stray flags exit 2") {
  TempDir dir;
  CreateOpsTable(dir);
  CHECK(Lake(dir, {"table", "expire", "ml.ops"}).exit_code == 2);
  CHECK(Lake(dir, {"table", "expire", "ml.ops", "--keep-last", "0"}).exit_code == 2);
  CHECK(Lake(dir, {"table", "expire", "ml.ops", "--keep-last", "-1"}).exit_code == 2);
  CHECK(Lake(dir, {"table", "expire", "ml.ops", "--older-than", "soon"}).exit_code == 2);
  CHECK(Lake(dir, {"table", "drop", "ml.ops", "--keep-last", "1"}).exit_code == 2);
  CHECK(Lake(dir, {"table", "tag", "ml.ops", "golden"}).exit_code == 2);
  CHECK(Lake(dir, {"table", "expire", "ml.nope", "--keep-last", "1"}).exit_code == 6);
}

TEST_CASE("tables CLI: an insert that may still commit names its operation and lake recover; exit 5") {
  TempDir dir;
  CreateOpsTable(dir);
  Result inserted = Lake(dir, {"insert", kInsertOp, "--param", "a"}, "",
                         {"LAKE_FAILPOINTS=table_append.committed=error"});
  CHECK(inserted.exit_code == 5);
  CHECK(inserted.out.empty());
  const std::string marker = "lake: insert: operation ";
  size_t at = inserted.err.find(marker);
  REQUIRE_MESSAGE(at != std::string::npos, inserted.err);
  std::string operation_id = inserted.err.substr(at + marker.size(), 36);
  CHECK(inserted.err.find(operation_id + " may still commit: run 'lake recover'") !=
        std::string::npos);
  Result listed = Lake(dir, {"recover", "--list", "--json"});
  CHECK(listed.exit_code == 0);
  REQUIRE(Lines(listed.out).size() == 1);
  CHECK(listed.out.find(operation_id) != std::string::npos);
  CHECK(listed.out.find(R"("state":"already-committed")") != std::string::npos);
  Result recovered = Lake(dir, {"recover"});
  CHECK(recovered.exit_code == 0);
  CHECK(recovered.out.find(operation_id + "\tml.ops\talready-committed\tversion 1") !=
        std::string::npos);
  CHECK(Lake(dir, {"query", "SELECT id FROM ml.ops"}).out == "id\na\n");
}

TEST_CASE("tables CLI: an insert that failed before its commit leaves nothing to recover; run again, it appends once") {
  TempDir dir;
  CreateOpsTable(dir);
  Result inserted = Lake(dir, {"insert", kInsertOp, "--param", "a"}, "",
                         {"LAKE_FAILPOINTS=table_append.fragment_written=error"});
  CHECK(inserted.exit_code == 5);
  CHECK(inserted.err.find("may still commit") == std::string::npos);
  CHECK(Lake(dir, {"recover", "--list", "--json"}).out.empty());
  Result recovered = Lake(dir, {"recover"});
  CHECK(recovered.exit_code == 0);
  CHECK(recovered.out.empty());
  Result again = Lake(dir, {"insert", kInsertOp, "--param", "a"});
  CHECK(again.exit_code == 0);
  CHECK(again.out == "1\n");
  CHECK(Lake(dir, {"query", "SELECT id FROM ml.ops"}).out == "id\na\n");
}

TEST_CASE("tables CLI: recover --list shows a stuck checkpoint and why; --discard moves it aside, kept") {
  TempDir dir;
  CreateOpsTable(dir);
  const std::string id = lake::NewUuidV7();
  const std::string path = dir.Join("lake-data/checkpoints/" + id + ".append");
  std::ofstream(path) << "not a checkpoint";

  Result listed = Lake(dir, {"recover", "--list"});
  CHECK(listed.exit_code == 0);
  REQUIRE(Lines(listed.out).size() == 1);
  CHECK(listed.out.rfind(id + "\t", 0) == 0);
  CHECK(listed.out.find("\tstuck\tdamaged: ") != std::string::npos);
  Result as_json = Lake(dir, {"recover", "--list", "--json"});
  CHECK(as_json.out.find(R"("state":"stuck")") != std::string::npos);
  CHECK(as_json.out.find(R"("reason":"damaged: )") != std::string::npos);
  Result recovered = Lake(dir, {"recover"});
  CHECK(recovered.exit_code == 5);  // a stuck checkpoint is left
  CHECK(recovered.out.find(id + "\t\trejected\tdamaged: ") != std::string::npos);

  Result discarded = Lake(dir, {"recover", "--discard", id});
  CHECK(discarded.exit_code == 0);
  const std::string moved = dir.Join("lake-data/checkpoints/discarded/" + id + ".append");
  REQUIRE(Lines(discarded.out).size() == 1);
  CHECK(std::filesystem::equivalent(Lines(discarded.out)[0], moved));
  CHECK(Slurp(moved) == "not a checkpoint");
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK(Lake(dir, {"recover", "--list", "--json"}).out.empty());
  CHECK(Lake(dir, {"recover"}).exit_code == 0);

  CHECK(Lake(dir, {"recover", "--discard", id}).exit_code == 6);
  CHECK(Lake(dir, {"recover", "--discard", "not-an-id"}).exit_code == 2);
  CHECK(Lake(dir, {"recover", "--discard", id, "--list"}).exit_code == 2);
  CHECK(Lake(dir, {"recover", "--discard"}).exit_code == 2);
  Result help = Lake(dir, {"recover", "--help"});
  CHECK(help.out.find("--discard OPERATION_ID") != std::string::npos);
}

// ---- garbage collection ----

// The value of "key" in a one-line JSON object, as text.
std::string JsonField(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  at += key.size() + 3;
  if (json[at] == '"') return json.substr(at + 1, json.find('"', at + 1) - at - 1);
  return json.substr(at, json.find_first_of(",}", at) - at);
}

TEST_CASE("gc CLI: plan, show, status, apply delete only what nothing references") {
  TempDir dir;
  WriteSource(dir, "a.bin", 1000, 71);
  WriteSource(dir, "b.bin", 2000, 72);
  std::string kept = Put(dir, "a.bin");
  std::string orphan = Put(dir, "b.bin");
  REQUIRE(Lake(dir, {"table", "create", "ns.t", "--column", "f:file"}).exit_code == 0);
  REQUIRE(Lake(dir, {"insert", "INSERT INTO ns.t (f) VALUES (?)", "--location", kept}).exit_code ==
          0);
  // The default cutoff (7 days) keeps everything young.
  Result young = Lake(dir, {"gc", "plan"});
  REQUIRE_MESSAGE(young.exit_code == 0, young.err);
  CHECK(young.out.find("objects\t0\t0 bytes\n") != std::string::npos);
  CHECK(young.err.find("nothing was deleted") != std::string::npos);
  Result plan = Lake(dir, {"gc", "plan", "--cutoff", "0s", "--allow-short-cutoff", "--json"});
  REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
  std::string id = JsonField(plan.out, "plan_id");
  CHECK(JsonField(plan.out, "objects") == "1");
  CHECK(JsonField(plan.out, "bytes") == "2000");
  Result show = Lake(dir, {"gc", "show", id});
  REQUIRE(show.exit_code == 0);
  CHECK(show.out == "file://" + ObjectPath(orphan) + "\t2000\tobject\t-\n");
  Result status = Lake(dir, {"gc", "status", id});
  CHECK(status.out.find(id + "\tplanned\t0/1 pages\t1 objects\t2000 bytes") == 0);
  Result apply = Lake(dir, {"gc", "apply", id});
  REQUIRE_MESSAGE(apply.exit_code == 0, apply.err);
  CHECK(apply.out.find(id + "\tdone\t1/1 pages") == 0);
  CHECK_FALSE(std::filesystem::exists(ObjectPath(orphan)));
  CHECK(std::filesystem::exists(ObjectPath(kept)));
  // Nothing is wrong with what stays.
  Result verify = Lake(dir, {"gc", "verify", "--deep"});
  CHECK_MESSAGE(verify.exit_code == 0, verify.err);
  CHECK(verify.err.find("0 problem(s)") != std::string::npos);
}

TEST_CASE("gc CLI: a short cutoff needs --allow-short-cutoff; bad flags exit 2") {
  TempDir dir;
  Result refused = Lake(dir, {"gc", "plan", "--cutoff", "1h"});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--allow-short-cutoff") != std::string::npos);
  CHECK(Lake(dir, {"gc", "plan", "--cutoff", "soon"}).exit_code == 2);
  CHECK(Lake(dir, {"gc", "show"}).exit_code == 2);
  CHECK(Lake(dir, {"gc", "apply", "not-a-plan"}).exit_code == 2);
  CHECK(Lake(dir, {"gc", "status", "--deep"}).exit_code == 2);
  CHECK(Lake(dir, {"gc", "frobnicate"}).exit_code == 2);
  CHECK(Lake(dir, {"gc", "apply", "01890a5d-ac96-774b-bcce-b302099a8057"}).exit_code == 6);
  Result help = Lake(dir, {"gc", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("verify [--deep]") != std::string::npos);
}

TEST_CASE("gc CLI: a stage whose owner marker names another root is refused: exit 2") {
  TempDir dir;
  REQUIRE(Lake(dir, {"table", "list"}).exit_code == 0);
  std::filesystem::path marker = std::filesystem::path(dir.path()) / "lake-data/stage/_lake/owner";
  REQUIRE(std::filesystem::exists(marker));
  // Another root's marker.
  std::filesystem::remove(marker);
  std::ofstream(marker) << "{\"lake_root_id\":\"01890a5d-ac96-774b-bcce-b302099a8058\",\"sha256\":"
                           "\"" + lake::Sha256Hex("lake_root_id=01890a5d-ac96-774b-bcce-b302099a8058") +
                               "\"}\n";
  Result refused = Lake(dir, {"gc", "plan"});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("names another root") != std::string::npos);
}

TEST_CASE("gc CLI: verify reports a missing object with its table version; exit 3") {
  TempDir dir;
  WriteSource(dir, "a.bin", 100, 73);
  std::string loc = Put(dir, "a.bin");
  REQUIRE(Lake(dir, {"table", "create", "ns.t", "--column", "f:file"}).exit_code == 0);
  REQUIRE(Lake(dir, {"insert", "INSERT INTO ns.t (f) VALUES (?)", "--location", loc}).exit_code ==
          0);
  std::filesystem::remove(ObjectPath(loc));
  Result verify = Lake(dir, {"gc", "verify"});
  CHECK(verify.exit_code == 3);
  CHECK(verify.out == "missing\tfile://" + ObjectPath(loc) + "\ttable ns.t version 1\n");
}

TEST_CASE("gc CLI: an apply after the root changed is voided: exit 4, nothing deleted") {
  TempDir dir;
  WriteSource(dir, "a.bin", 100, 74);
  std::string loc = Put(dir, "a.bin");
  REQUIRE(Lake(dir, {"table", "create", "ns.t", "--column", "f:file"}).exit_code == 0);
  Result plan = Lake(dir, {"gc", "plan", "--cutoff", "0s", "--allow-short-cutoff", "--json"});
  REQUIRE(plan.exit_code == 0);
  std::string id = JsonField(plan.out, "plan_id");
  REQUIRE(Lake(dir, {"insert", "INSERT INTO ns.t (f) VALUES (?)", "--location", loc}).exit_code ==
          0);
  Result apply = Lake(dir, {"gc", "apply", id});
  CHECK(apply.exit_code == 4);
  CHECK(apply.err.find("void") != std::string::npos);
  CHECK(std::filesystem::exists(ObjectPath(loc)));
  CHECK(Lake(dir, {"gc", "status", id}).out.find("\tvoided\t") != std::string::npos);
}

}  // namespace

namespace {

// Removes every object of an S3Root's stage, then its bucket.
void DeleteS3Root(const S3Root& s3) {
  lake::S3StageOptions options;
  options.bucket = s3.bucket;
  options.prefix = "cli data";
  options.endpoint = *lake::s3http::ParseS3Endpoint(lake::testing::TestEndpoint(), true);
  options.region = "us-east-1";
  auto store = lake::S3ObjectStore::Open(
      options,
      std::make_unique<lake::s3http::StaticCredentialsProvider>(lake::testing::TestCredentials()));
  REQUIRE(store.ok());
  std::vector<std::string> uris;
  CHECK((*store)->List([&uris](const lake::ListedObject& o) {
    uris.push_back(o.uri);
    return true;
  }).ok());
  for (const std::string& uri : uris) {
    auto location = lake::MakeDataLocation(uri, "application/octet-stream", 1, std::string(64, '0'));
    REQUIRE(location.ok());
    CHECK((*store)->Delete(*location).ok());
  }
  // The root's own records beneath the prefix (owner marker, claims).
  auto listed = (*store)->client().ListObjectsV2(s3.bucket, "", "");
  if (listed.ok()) {
    for (const auto& object : listed->contents) (void)(*store)->client().DeleteObject(s3.bucket, object.key);
  }
  absl::Status deleted = (*store)->client().DeleteBucket(s3.bucket);
  CHECK_MESSAGE(deleted.ok(), deleted.ToString());
}

// A put killed right after its checkpoint was first published (its
// multipart upload exists, no part recorded).
Result KilledPut(const TempDir& dir, const S3Root& s3, const std::string& file) {
  return Lake(dir, Concat({"put", file}, s3.Flags()), "",
              {"LAKE_FAILPOINTS=upload_checkpoint.published=kill"});
}

TEST_CASE("uploads CLI: a killed put is listed; putting the file again resumes it") {
  TempDir dir;
  S3Root s3;
  std::string bytes = WriteSource(dir, "f", 700000, 90);
  Result killed = KilledPut(dir, s3, "f");
  REQUIRE(killed.exit_code == 128 + SIGKILL);
  Result list = Lake(dir, {"uploads", "list", "--json"});
  REQUIRE_MESSAGE(list.exit_code == 0, list.err);
  std::vector<std::string> lines = Lines(list.out);
  REQUIRE(lines.size() == 1);
  CHECK(list.out.find("\"state\":\"resumable\"") != std::string::npos);
  CHECK(list.out.find("\"source\":\"" + std::filesystem::canonical(dir.Join("f")).string() + "\"") !=
        std::string::npos);
  CHECK(list.out.find("\"size_bytes\":700000") != std::string::npos);
  Result table = Lake(dir, {"uploads", "list"});
  CHECK(table.out.find("0 parts\t0 of 700000 bytes") != std::string::npos);

  Result put = Lake(dir, {"put", "f"});
  REQUIRE_MESSAGE(put.exit_code == 0, put.err);
  CHECK(put.err.find("resuming upload " + JsonField(lines[0], "id")) != std::string::npos);
  CHECK(Lines(put.out).size() == 1);  // stdout: the DataLocation only
  std::string json = put.out.substr(0, put.out.size() - 1);
  CHECK(Lake(dir, {"cat", json}).out == bytes);
  CHECK(Lake(dir, {"uploads", "list", "--json"}).out.empty());
  DeleteS3Root(s3);
}

TEST_CASE("uploads CLI: resume ID completes a killed put; abort ID forgets one; bad IDs fail") {
  TempDir dir;
  S3Root s3;
  std::string bytes = WriteSource(dir, "f", 300000, 91);
  WriteSource(dir, "g", 200000, 92);
  REQUIRE(KilledPut(dir, s3, "f").exit_code == 128 + SIGKILL);
  std::string f_id = JsonField(Lake(dir, {"uploads", "list", "--json"}).out, "id");
  REQUIRE(KilledPut(dir, s3, "g").exit_code == 128 + SIGKILL);
  std::vector<std::string> both = Lines(Lake(dir, {"uploads", "list", "--json"}).out);
  REQUIRE(both.size() == 2);
  std::string g_id = JsonField(both[0], "id") == f_id ? JsonField(both[1], "id")
                                                      : JsonField(both[0], "id");

  Result resumed = Lake(dir, {"uploads", "resume", f_id});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(Lake(dir, {"cat", resumed.out.substr(0, resumed.out.size() - 1)}).out == bytes);
  Result aborted = Lake(dir, {"uploads", "abort", g_id});
  CHECK_MESSAGE(aborted.exit_code == 0, aborted.err);
  CHECK(Lake(dir, {"uploads", "list", "--json"}).out.empty());

  CHECK(Lake(dir, {"uploads", "resume", g_id}).exit_code == 6);
  CHECK(Lake(dir, {"uploads", "abort", "not-an-id"}).exit_code == 2);
  CHECK(Lake(dir, {"uploads", "frobnicate"}).exit_code == 2);
  CHECK(Lake(dir, {"uploads", "resume"}).exit_code == 2);
  DeleteS3Root(s3);
}

TEST_CASE("uploads CLI: a put of a file changed since its checkpoint starts afresh; resume refuses it") {
  TempDir dir;
  S3Root s3;
  WriteSource(dir, "f", 300000, 93);
  REQUIRE(KilledPut(dir, s3, "f").exit_code == 128 + SIGKILL);
  std::string id = JsonField(Lake(dir, {"uploads", "list", "--json"}).out, "id");
  std::filesystem::remove(dir.Join("f"));
  std::string changed = WriteSource(dir, "f", 300001, 94);
  Result refused = Lake(dir, {"uploads", "resume", id});
  CHECK(refused.exit_code == 4);
  CHECK(refused.err.find("changed") != std::string::npos);
  Result put = Lake(dir, {"put", "f"});
  REQUIRE_MESSAGE(put.exit_code == 0, put.err);
  CHECK(put.err.find("stale") != std::string::npos);
  CHECK(Lake(dir, {"cat", put.out.substr(0, put.out.size() - 1)}).out == changed);
  CHECK(Lake(dir, {"uploads", "abort", id}).exit_code == 0);
  DeleteS3Root(s3);
}

TEST_CASE("uploads CLI: a local root has no resumable uploads") {
  TempDir dir;
  Result list = Lake(dir, {"uploads", "list"});
  CHECK(list.exit_code == 0);
  CHECK(list.out.empty());
  CHECK(Lake(dir, {"uploads", "resume", "0190a0b0-1234-7abc-8def-0123456789ab"}).exit_code == 6);
}

}  // namespace
