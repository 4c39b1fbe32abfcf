// Hostile and broken input, end to end (CLI.md, "Exit codes" and "Messages"):
// every command given malformed arguments — unknown flags, malformed
// locations, huge or negative numbers, invalid UTF-8 and control characters
// in names and values, a missing root, a read-only root, a full disk — exits
// with its documented code, says what was wrong in one line on stderr that
// names the offending flag, value or path (a usage error may add its hint
// line, "Run 'lake CMD --help' for usage."), and changes nothing already
// committed.
//
// Each case starts from a root with committed state (a table with a FILE
// column, an event log with events, an object in the stage; built once,
// copied back for each case), runs the hostile commands, and compares a
// snapshot with the one taken when the root was built: the logical views
// (the table, a query, the event log's tree and events, the stage's
// objects, pending appends) and the bytes of every file under the stage's
// objects/, tables/ and datagen/. The registry is compared only through the
// views: RocksDB rewrites its own files (LOG, MANIFEST, OPTIONS) whenever it
// opens.
//
// The read-only root and the full disk are made in a private mount namespace
// when the test runs as root (a read-only bind mount, a small tmpfs); else
// lake runs as nobody, or the root loses its write permission, and
// failpoints stand in for ENOSPC. Each case says which it used;
// LAKE_TEST_NO_MOUNTS=1 runs the fallbacks.
#include <doctest/doctest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "engine/table/table_log_format.h"
#include "tests/cli/lake_cli.h"
#include "tests/support/test_files.h"

namespace lake::testing {
namespace {

constexpr char kTable[] = "ml.t";
constexpr char kInsert[] = "INSERT INTO ml.t (id, n, at, f) VALUES (?, ?, ?, ?)";
const std::vector<std::string> kExperiment = {"--pipeline", "p", "--experiment", "x"};
// An operation id no checkpoint has.
constexpr char kUnknownOperation[] = "01a237b5-0000-7000-8000-000000000000";
// Events for `events append` that are valid and new to the committed log.
constexpr char kMoreEvents[] =
    R"({"item_id":"s","item_seq":1,"checkpoint_id":"m1","event_type":"ITEM_CREATED","writer_epoch":"w1"})"
    "\n";

std::string Joined(const std::vector<std::string>& args) {
  std::string joined;
  for (const std::string& a : args) joined += (joined.empty() ? "" : " ") + a;
  return joined;
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// How lake shows a name or value in a message (CLI.md, "Messages"): a
// control character as \n, \r, \t or \xNN, a byte outside valid UTF-8 as
// \xNN, everything else as is.
std::string Shown(const std::string& token) {
  std::string shown;
  for (unsigned char c : token) {
    if (c == '\n') {
      shown += "\\n";
    } else if (c == '\t') {
      shown += "\\t";
    } else if (c == '\r') {
      shown += "\\r";
    } else if (c < 0x20 || c >= 0x7f) {  // these tokens hold no valid UTF-8 past ASCII
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      shown += hex;
    } else {
      shown += static_cast<char>(c);
    }
  }
  return shown;
}

// A root at an absolute path, and who runs lake on it.
struct Root {
  const TempDir& dir;
  std::string path;
  std::optional<LakeRun::User> user;
  std::vector<std::string> env;

  Result Run(const std::vector<std::string>& args, const std::string& input = "") const {
    return Lake(dir, args, LakeRun{input, Concat({"LAKE_ROOT=" + path}, env), user});
  }
  std::string Join(const std::string& name) const { return path + "/" + name; }
};

// ---- snapshots of what is committed ----

// Commands whose output is the root's committed state as lake reads it.
const std::vector<std::vector<std::string>>& Views() {
  static const auto* views = new std::vector<std::vector<std::string>>{
      {"table", "describe", kTable, "--json"},
      {"table", "versions", kTable, "--json"},
      {"query", "SELECT * FROM ml.t", "--json"},
      {"stage", "list", "--json"},
      {"recover", "--list", "--json"},
      {"events", "list", "--json"},
      Concat({"events", "describe", "--json"}, kExperiment),
      Concat({"events", "tree", "r"}, kExperiment),
      Concat({"events", "events", "r"}, kExperiment),
  };
  return *views;
}

// The directories of a root whose files are committed state, byte for byte.
const std::vector<std::string> kCommittedDirs = {"stage/objects", "tables", "datagen"};

// What a view printed, as compared: `stage list` lists the objects in the
// file system's order, so its lines are compared as a set (sorted).
std::string ViewText(const std::vector<std::string>& view, const std::string& out) {
  if (view[0] != "stage") return out;
  std::vector<std::string> lines = Lines(out);
  std::sort(lines.begin(), lines.end());
  return Joined(lines);
}

struct Snapshot {
  std::map<std::string, std::string> views;  // command → its stdout
  std::map<std::string, std::string> files;  // path under the root → bytes
};

// Taken by the test's own user, with the root writable and its disk not full.
Snapshot Take(const Root& root) {
  Root owner{root.dir, root.path, std::nullopt, {}};
  Snapshot s;
  for (const std::vector<std::string>& view : Views()) {
    Result r = owner.Run(view);
    REQUIRE_MESSAGE(r.exit_code == 0, (Joined(view) + ": " + r.err));
    s.views[Joined(view)] = ViewText(view, r.out);
  }
  for (const std::string& sub : kCommittedDirs) {
    if (!std::filesystem::exists(root.Join(sub))) continue;
    for (const std::string& file : FilesUnder(root.Join(sub))) {
      s.files[sub + "/" + file] = Slurp(root.Join(sub + "/" + file));
    }
  }
  return s;
}

// The number a file named <20 digits>.<ext> carries, or -1.
long long VersionOf(const std::string& path, const std::string& ext) {
  static const std::regex name(R"(/(\d{20})\.(manifest|refs)$)");
  std::smatch m;
  if (!std::regex_search(path, m, name) || m[2] != ext) return -1;
  return std::stoll(m[1]);
}

// Files a refused or failed write may add that are not committed state,
// each by design: the manifest and reference delta of the table's next
// version (table_store.h: nothing reads them before a commit names them, and
// the next commit replaces them), and an event shard's segment (shard_log.h:
// each writer session appends to a segment of its own; the views show no
// event was added).
bool IsUncommittedLeftover(const std::string& path, const Snapshot& before) {
  for (const char* ext : {"manifest", "refs"}) {
    long long version = VersionOf(path, ext);
    if (version < 0) continue;
    long long newest = 0;
    for (const auto& [p, bytes] : before.files) newest = std::max(newest, VersionOf(p, ext));
    return version == newest + 1;
  }
  static const std::regex segment(R"(^datagen/.*/shards/[^/]+/segment-\d{20}\.log$)");
  return std::regex_match(path, segment);
}

// For a table log segment (table_log_format.h), the bytes of the records
// `bytes` holds, from offset 0: what a later failed write must leave as it
// was. Past them a failed write may leave records no commit names (never
// read; the next append overwrites them). Nothing for any other file.
std::optional<uint64_t> SegmentRecordsEnd(const std::string& path, const std::string& bytes) {
  static const std::regex name(R"(^tables/.*/_log/(\d{20})\.seg$)");
  std::smatch m;
  if (!std::regex_match(path, m, name)) return std::nullopt;
  absl::StatusOr<lake::table::TableLogScan> scan = lake::table::ScanTableLogRecords(
      bytes, std::stoull(m[1]), lake::table::kTableLogSegmentHeaderBytes);
  REQUIRE_MESSAGE(scan.ok(), scan.status().ToString());
  return scan->valid_end;
}

void CheckNothingCommittedChanged(const Snapshot& before, const Snapshot& after) {
  for (const auto& [view, out] : before.views) {
    CAPTURE(view);
    CHECK(after.views.at(view) == out);
  }
  for (const auto& [path, bytes] : before.files) {
    CAPTURE(path);
    auto it = after.files.find(path);
    REQUIRE_MESSAGE(it != after.files.end(), "a committed file is gone");
    if (std::optional<uint64_t> end = SegmentRecordsEnd(path, bytes)) {
      CHECK_MESSAGE(it->second.size() == bytes.size(), "a segment's size changed");
      CHECK_MESSAGE(it->second.compare(0, *end, bytes, 0, *end) == 0, "a committed record changed");
      continue;
    }
    CHECK_MESSAGE(it->second == bytes, "a committed file changed");
  }
  for (const auto& [path, bytes] : after.files) {
    if (before.files.count(path) > 0) continue;
    CAPTURE(path);
    CHECK_MESSAGE(IsUncommittedLeftover(path, before), "a file appeared");
  }
}

// What BuildCommittedRoot committed that the cases refer to.
struct Committed {
  std::string location;       // a stored object's DataLocation (b.bin's bytes)
  std::string location_file;  // dir/loc.json, holding `location`
};

// A root's committed state: a table of two versions whose rows hold FILE
// values, an object only the stage holds, and an event log with a root, a
// fan-out child with an inline blob, and a blob field naming that object.
Committed BuildCommittedRoot(const Root& root) {
  const TempDir& dir = root.dir;
  WriteSource(dir, "a.bin", 3000, 1);
  std::string b = WriteSource(dir, "b.bin", 2000, 2);
  Result created = root.Run({"table", "create", kTable, "--column", "id:utf8", "--column",
                             "n:int64", "--column", "at:timestamp", "--column", "f:file"});
  REQUIRE_MESSAGE(created.exit_code == 0, created.err);
  Result first = root.Run({"insert", kInsert, "--param", "a", "--param", "1", "--param",
                           "2026-01-01T00:00:00Z", "--file", "a.bin:video/mp4"});
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  Result second = root.Run({"insert", kInsert, "--param", "b", "--param", "-2", "--param", "NULL",
                            "--file", "b.bin"});
  REQUIRE_MESSAGE(second.exit_code == 0, second.err);
  Result put = root.Run({"put", "b.bin"});
  REQUIRE_MESSAGE(put.exit_code == 0, put.err);
  Committed c;
  c.location = put.out.substr(0, put.out.size() - 1);
  c.location_file = dir.Join("loc.json");
  std::ofstream(c.location_file) << put.out;

  Result experiment = root.Run(Concat({"events", "create"}, kExperiment));
  REQUIRE_MESSAGE(experiment.exit_code == 0, experiment.err);
  const std::string sha = Sha256Hex(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  const std::string events =
      R"({"item_id":"r","item_seq":1,"checkpoint_id":"c1","event_type":"ITEM_CREATED","writer_epoch":"w1"})"
      "\n"
      R"({"item_id":"r","item_seq":2,"checkpoint_id":"c1","event_type":"FIELD_SET","field_name":"prompt","value_kind":"str","value_str":"hi","writer_epoch":"w1"})"
      "\n"
      R"({"item_id":"r","item_seq":3,"checkpoint_id":"c2","event_type":"FIELD_SET","field_name":"video","value_kind":"blob","blob_location":)" +
      c.location + R"(,"payload_size":2000,"payload_checksum":")" + sha +
      R"(","writer_epoch":"w1"})"
      "\n"
      R"({"item_id":"r/map:0","item_seq":1,"checkpoint_id":"c3","event_type":"ITEM_CREATED","step_name":"map","step_index":0,"step_kind":"MapReduce","writer_epoch":"w1"})"
      "\n"
      R"({"item_id":"r/map:0","item_seq":2,"checkpoint_id":"c3","event_type":"FIELD_APPEND","field_name":"img","value_kind":"blob","blob_inline_base64":"aGk=","payload_size":2,"payload_checksum":"8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4","writer_epoch":"w1"})"
      "\n";
  Result appended = root.Run(Concat({"events", "append", "-"}, kExperiment), events);
  REQUIRE_MESSAGE(appended.exit_code == 0, appended.err);
  return c;
}

// The committed root every case starts from: built once per process, kept
// as a pristine copy, and copied back to the same path for each case (its
// DataLocations name absolute paths). The root lives in dir/disk/root, so
// that the full-disk case can mount a small file system on dir/disk.
struct Fixture {
  TempDir dir;  // the root, its pristine copy, and the files commands read
  std::string root_path = dir.Join("disk/root");
  std::string pristine_path = dir.Join("pristine");
  Committed committed;
  Snapshot before;

  Fixture() {
    std::filesystem::create_directories(root_path);
    Root root{dir, root_path, std::nullopt, {}};
    committed = BuildCommittedRoot(root);
    std::ofstream(dir.Join("more.jsonl")) << kMoreEvents;
    before = Take(root);
    std::filesystem::copy(root_path, pristine_path, std::filesystem::copy_options::recursive);
  }
};

Fixture& Shared() {
  static Fixture fixture;
  return fixture;
}

// The committed root, as BuildCommittedRoot left it (whatever the case
// before did to it).
Root FreshRoot() {
  Fixture& f = Shared();
  std::filesystem::remove_all(f.root_path);
  std::filesystem::copy(f.pristine_path, f.root_path, std::filesystem::copy_options::recursive);
  return Root{f.dir, f.root_path, std::nullopt, {}};
}

// ---- what a refusal looks like ----

// lake's stderr for a failed command: one line "lake: …" that names
// `token`; a usage error (exit 2) may add the hint line.
void CheckOneLineNaming(const Result& r, const std::string& token) {
  CAPTURE(r.err);
  CHECK_FALSE(r.err.empty());
  if (r.err.empty()) return;
  CHECK(r.err.back() == '\n');
  std::vector<std::string> lines = Lines(r.err);
  static const std::regex hint(R"(Run 'lake( [a-z]+)? --help' for usage\.)");
  bool with_hint = lines.size() == 2 && r.exit_code == 2 && std::regex_match(lines[1], hint);
  CHECK((lines.size() == 1 || with_hint));
  CHECK(lines[0].rfind("lake: ", 0) == 0);
  CHECK_MESSAGE(lines[0].find(token) != std::string::npos, ("the message does not name " + token));
}

struct Refusal {
  std::vector<std::string> args;
  int exit_code;
  std::string names;  // as lake shows it (Shown)
  std::string input = "";
};

void CheckRefused(const Root& root, const Refusal& c) {
  CAPTURE(Joined(c.args));
  Result r = root.Run(c.args, c.input);
  CHECK(r.exit_code == c.exit_code);
  CHECK(r.out.empty());
  CheckOneLineNaming(r, c.names);
}

// ---- the commands ----

// Every command and subcommand, with arguments that are valid on the
// committed root: what a hostile flag is added to.
std::vector<std::vector<std::string>> EveryCommand(const Committed& c) {
  std::vector<std::vector<std::string>> all = {
      {"put", "a.bin"},
      {"cat", c.location},
      {"presign", c.location},
      {"stage", "describe"},
      {"stage", "list"},
      {"stage", "clean-staging"},
      {"table", "create", "ml.u", "--column", "x:int64"},
      {"table", "list"},
      {"table", "describe", kTable},
      {"table", "versions", kTable},
      {"table", "compact", kTable},
      {"table", "compact", kTable, "--segments"},
      {"table", "drop", kTable},
      {"insert", "INSERT INTO ml.t (id) VALUES (?)", "--param", "z"},
      {"query", "SELECT * FROM ml.t"},
      {"recover"},
      {"recover", "--list"},
      {"recover", "--discard", kUnknownOperation},
      {"events", "list"},
  };
  for (std::vector<std::string> sub :
       {std::vector<std::string>{"create"}, {"describe"}, {"delete"}, {"append", "-"},
        {"fold", "r"}, {"tree", "r"}, {"roots"}, {"failures"}, {"events", "r"},
        {"blob", "r/map:0", "img"}, {"compact"}}) {
    all.push_back(Concat(Concat({"events"}, sub), kExperiment));
  }
  return all;
}

// ---- 1. flags ----

TEST_CASE("every command refuses an unknown flag: exit 2, one line naming the flag") {
  Root root = FreshRoot();
  const Committed& c = Shared().committed;
  const Snapshot& before = Shared().before;

  for (const std::vector<std::string>& command : EveryCommand(c)) {
    CheckRefused(root, {Concat(command, {"--no-such-flag"}), 2, "--no-such-flag"});
    CheckRefused(root, {Concat(command, {"--bo\n\xffgus"}), 2, Shown("--bo\n\xffgus")});
  }
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"put", "a.bin"}, {"table", "list"}, {"recover", "--list"},
        Concat({"events", "fold", "r"}, kExperiment)}) {
    for (const auto& [flag, names] : std::vector<std::pair<std::string, std::string>>{
             {"-Z", "-Z"},
             {"--help=yes", "--help"},
             {"--bo\xffgus", Shown("--bo\xffgus")},
             {"--bo\x1b[2Jgus", Shown("--bo\x1b[2Jgus")},
         }) {
      CheckRefused(root, {Concat(command, {flag}), 2, names});
    }
  }
  // A flag's value missing, given twice, or a subcommand unknown.
  for (const Refusal& r : std::vector<Refusal>{
           {{"put", "a.bin", "--content-type"}, 2, "--content-type"},
           {{"put", "a.bin", "--content-type", "a/b", "--content-type", "a/c"}, 2,
            "--content-type"},
           {{"cat", c.location, "--range"}, 2, "--range"},
           {{"table", "create", "ml.u", "--column"}, 2, "--column"},
           {{"events", "fold", "r", "--pipeline", "p", "--experiment"}, 2, "--experiment"},
           {{"query", "SELECT * FROM ml.t", "--param"}, 2, "--param"},
           {{"put", "a.bin", "--root"}, 2, "--root"},
           {{"table", "frobnicate"}, 2, "frobnicate"},
           {{"stage", "frob\xffnicate"}, 2, Shown("frob\xffnicate")},
           {Concat({"events", "frob\nnicate"}, kExperiment), 2, Shown("frob\nnicate")},
           {{"frobnicate"}, 2, "frobnicate"},
           {{"frob\xffnicate"}, 2, Shown("frob\xffnicate")},
       }) {
    CheckRefused(root, r);
  }
  // Global flags before the command, or with no command at all.
  for (const Refusal& r : std::vector<Refusal>{
           {{"--no-such-flag", "put", "a.bin"}, 2, "--no-such-flag"},
           {{"--no-such-flag"}, 2, "--no-such-flag"},
           {{"--root"}, 2, "--root"},
           {{"--stage"}, 2, "--stage"},
       }) {
    CheckRefused(root, r);
  }
  CheckNothingCommittedChanged(before, Take(root));
}

// ---- 2. locations ----

TEST_CASE("malformed locations: exit 2, one line naming the location and its fault") {
  Root root = FreshRoot();
  const Committed& c = Shared().committed;
  const Snapshot& before = Shared().before;

  const std::string sha(64, 'a');
  auto location = [&](const std::string& uri, const std::string& size = "1",
                      const std::string& type = "a/b", const std::string& digest = "") {
    return R"({"uri":")" + uri + R"(","content_type":")" + type + R"(","size_bytes":)" + size +
           R"(,"sha256":")" + (digest.empty() ? sha : digest) + R"("})";
  };
  const std::string object_uri = c.location.substr(8, c.location.find('"', 8) - 8);
  struct Bad {
    std::string location;
    std::string names;
  };
  const std::vector<Bad> bad = {
      {"{not json", "not valid JSON"},
      {"", "not valid JSON"},
      {"[]", "must be an object"},
      {R"({"uri":"file:///x"})", "content_type"},
      {location(object_uri, "-1"), "size_bytes"},
      {location(object_uri, "18446744073709551616"), "size_bytes"},
      {location(object_uri, "1.5"), "size_bytes"},
      {location(object_uri, "\"2000\""), "size_bytes"},
      {location(object_uri, "2000", "a/b", "xyz"), "sha256"},
      {location(object_uri, "2000", "a/b\\n"), "content_type"},
      {location("file:///etc/passwd"), "file:///etc/passwd"},
      {location("file://host/etc/passwd"), "file://host/etc/passwd"},
      {location(root.Join("stage/objects/../../x").insert(0, "file://")), "objects/../../x"},
      {location("s3://bucket/key"), "s3://bucket/key"},
      {location("http://example.com/x"), "http://example.com/x"},
      {location("file:///a%00b"), "file:///a%00b"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.location);
    CheckRefused(root, {{"cat", b.location}, 2, b.names});
    CheckRefused(root, {{"presign", b.location}, 2, b.names});
    CheckRefused(root, {{"insert", "INSERT INTO ml.t (id, f) VALUES (?, ?)", "--param", "l",
                         "--location", b.location},
                        2,
                        b.names});
  }
  // In an event's blob_location (a JSON value there, not a text).
  for (const auto& [blob, names] : std::vector<std::pair<std::string, std::string>>{
           {location("file:///etc/passwd", "2000"), "file:///etc/passwd"},
           {location(object_uri, "-1"), "line 1"},
           {"[]", "line 1"},
           {"\"file:///x\"", "line 1"}}) {
    CAPTURE(blob);
    const std::string line =
        R"({"item_id":"r","item_seq":4,"checkpoint_id":"c9","event_type":"FIELD_SET","field_name":"v","value_kind":"blob","blob_location":)" +
        blob + R"(,"payload_size":2000,"payload_checksum":")" + sha + R"(","writer_epoch":"w1"})" + "\n";
    CheckRefused(root, {Concat({"events", "append", "-"}, kExperiment), 2, names, line});
  }
  CheckNothingCommittedChanged(before, Take(root));
}

TEST_CASE("input paths that are directories or empty exit 2, missing files 6: one line naming them") {
  Root root = FreshRoot();
  const TempDir& dir = root.dir;
  const Committed& c = Shared().committed;
  const Snapshot& before = Shared().before;
  const std::string directory = dir.Join("a-directory");
  const std::string missing = dir.Join("missing.json");
  std::filesystem::create_directories(directory);
  for (const Refusal& r : std::vector<Refusal>{
           {{"cat", "@" + directory}, 2, directory},
           {{"cat", "@" + missing}, 6, missing},
           {{"cat", "@"}, 2, "'@'"},
           {{"insert", "INSERT INTO ml.t (id, f) VALUES (?, ?)", "--param", "x", "--location",
             "@" + directory},
            2,
            directory},
           {Concat({"events", "append", directory}, kExperiment), 2, directory},
           {Concat({"events", "append", missing}, kExperiment), 6, missing},
           {{"put", directory}, 2, directory},
           {{"cat", c.location, "-o", ""}, 2, "-o"},
           {Concat({"events", "blob", "r/map:0", "img", "-o", ""}, kExperiment), 2, "-o"},
       }) {
    CheckRefused(root, r);
  }
  CheckNothingCommittedChanged(before, Take(root));
}

// ---- 3. numbers ----

TEST_CASE("huge and negative numbers: exit 2, one line naming the number") {
  Root root = FreshRoot();
  const Committed& c = Shared().committed;
  const Snapshot& before = Shared().before;

  const std::string kU64Past = "18446744073709551616";  // 2^64
  for (const std::string& range :
       {std::string("-1..5"), std::string("1..-5"), kU64Past + "..", "0.." + kU64Past,
        std::string("99999999999999999999999..1"), std::string("1e3..2e3"),
        std::string("0x10.."), std::string(" 1..2"), std::string("..")}) {
    CheckRefused(root, {{"cat", c.location, "--range", range}, 2, range});
  }
  // Well-formed ranges the object does not have: named by their bounds.
  CheckRefused(root, {{"cat", c.location, "--range", "18446744073709551615.."}, 2,
                      "18446744073709551615"});
  CheckRefused(root, {{"cat", c.location, "--range", "0..18446744073709551615"}, 2,
                      "18446744073709551615"});
  CheckRefused(root, {{"cat", c.location, "--range", "10..5"}, 2, "[10, 5)"});
  for (const std::string& ttl : {std::string("-1"), std::string("4294967296"), kU64Past,
                                 std::string("1e3"), std::string(""), std::string("60s")}) {
    CheckRefused(root, {{"presign", c.location, "--ttl", ttl}, 2, "--ttl " + ttl});
  }
  const std::string query = "SELECT * FROM ml.t";
  for (const auto& [sql, names] : std::vector<std::pair<std::string, std::string>>{
           {query + " LIMIT " + kU64Past, kU64Past},
           {query + " LIMIT -1", "-1"},
           {query + " LIMIT 99999999999999999999999999", "99999999999999999999999999"},
           {query + " AS OF VERSION " + kU64Past, kU64Past},
           {query + " AS OF VERSION -1", "-1"},
       }) {
    CheckRefused(root, {{"query", sql}, 2, names});
  }
  CheckRefused(root, {{"query", query + " AS OF VERSION 18446744073709551615"}, 6,
                      "18446744073709551615"});
  // --param for int64 and timestamp columns.
  for (const std::string& n : {std::string("9223372036854775808"),
                               std::string("-9223372036854775809"), kU64Past,
                               std::string("1e3"), std::string("0x10"), std::string(" 1"),
                               std::string("")}) {
    CheckRefused(root, {{"insert", "INSERT INTO ml.t (id, n) VALUES (?, ?)", "--param", "x",
                         "--param", n},
                        2,
                        "'" + n + "'"});
    CheckRefused(root, {{"query", "SELECT * FROM ml.t WHERE n = ?", "--param", n}, 2,
                        "'" + n + "'"});
  }
  for (const std::string& at :
       {std::string("99999999999999999999"), std::string("-9223372036854775809"),
        std::string("10000-01-01T00:00:00Z"), std::string("2026-13-01T00:00:00Z"),
        std::string("2026-01-01T00:00:00+25:00"), std::string("2026-01-01T00:00:00")}) {
    CheckRefused(root, {{"insert", "INSERT INTO ml.t (id, at) VALUES (?, ?)", "--param", "x",
                         "--param", at},
                        2,
                        "'" + at + "'"});
  }
  // Numbers in event JSONL: each key names itself.
  auto event = [](const std::string& fields) {
    return R"({"item_id":"q","checkpoint_id":"c9","event_type":"ITEM_CREATED","writer_epoch":"w1",)" +
           fields + "}\n";
  };
  for (const auto& [fields, names] : std::vector<std::pair<std::string, std::string>>{
           {R"("item_seq":-1)", "item_seq"},
           {R"("item_seq":0)", "item_seq"},
           {R"("item_seq":)" + kU64Past, "item_seq"},
           {R"("item_seq":18446744073709551615)", "item_seq"},
           {R"("item_seq":1.5)", "item_seq"},
           {R"("item_seq":1e3)", "item_seq"},
           {R"("item_seq":"1")", "item_seq"},
           {R"("item_seq":1,"attempt":-1)", "attempt"},
           {R"("item_seq":1,"attempt":4294967296)", "attempt"},
           {R"("item_seq":1,"event_ts":)" + kU64Past, "event_ts"},
       }) {
    CheckRefused(root, {Concat({"events", "append", "-"}, kExperiment), 2, names, event(fields)});
  }
  const std::string field =
      R"({"item_id":"r","item_seq":4,"checkpoint_id":"c9","event_type":"FIELD_SET","field_name":"v","writer_epoch":"w1",)";
  for (const auto& [value, names] : std::vector<std::pair<std::string, std::string>>{
           {R"("value_kind":"int","value_i64":9223372036854775808)", "value_i64"},
           {R"("value_kind":"int","value_i64":-9223372036854775809)", "value_i64"},
           {R"("value_kind":"float","value_f64":1e999)", "line 1"},
           {R"("value_kind":"blob","blob_inline_base64":"aGk=","payload_size":-1,"payload_checksum":"8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4")",
            "payload_size"},
           {R"("value_kind":"blob","blob_inline_base64":"aGk=","payload_size":18446744073709551616,"payload_checksum":"8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4")",
            "payload_size"},
       }) {
    CheckRefused(root,
                 {Concat({"events", "append", "-"}, kExperiment), 2, names, field + value + "}\n"});
  }
  CheckNothingCommittedChanged(before, Take(root));
}

// ---- 4. bytes that are not text ----

TEST_CASE("invalid UTF-8 and control characters in names and values: exit 2, one line naming them") {
  Root root = FreshRoot();
  const TempDir& dir = root.dir;
  const Committed& c = Shared().committed;
  const Snapshot& before = Shared().before;

  // Invalid UTF-8 (a lone byte, a cut sequence, an encoded surrogate) and
  // a control character; the sequences on the names that show them.
  for (const std::string& bad : {std::string("b\xff"), std::string("b\nc")}) {
    CAPTURE(Shown(bad));
    // Names of tables and columns (the schema shows a non-identifier byte as '?').
    CheckRefused(root, {{"table", "create", "ml." + bad, "--column", "x:int64"}, 2, "table name"});
    CheckRefused(root, {{"table", "create", "ml.u", "--column", bad + ":int64"}, 2, "column"});
    CheckRefused(root, {{"table", "create", "ml.u", "--column", "x:" + bad}, 2, "column"});
    CheckRefused(root, {{"table", "describe", "ml." + bad}, 2, "table name"});
    CheckRefused(root, {{"query", "SELECT * FROM ml." + bad}, 2, "SQL"});
    CheckRefused(root, {{"query", "SELECT " + bad + " FROM ml.t"}, 2, "SQL"});
    // Pipelines, experiments, items and fields of the event log.
    CheckRefused(root, {{"events", "create", "--pipeline", bad, "--experiment", "y"}, 2,
                        Shown(bad)});
    CheckRefused(root, {{"events", "describe", "--pipeline", "p", "--experiment", bad}, 2,
                        Shown(bad)});
    CheckRefused(root, {{"events", "list", "--pipeline", bad}, 2, Shown(bad)});
    for (const char* sub : {"fold", "tree", "events"}) {
      CheckRefused(root, {Concat({"events", sub, bad}, kExperiment), 2, Shown(bad)});
    }
    CheckRefused(root, {Concat({"events", "blob", bad, "img"}, kExperiment), 2, Shown(bad)});
    CheckRefused(root, {Concat({"events", "blob", "r/map:0", bad}, kExperiment), 6, Shown(bad)});
    // Flags whose values are names.
    CheckRefused(root, {{"put", "a.bin", "--content-type", "a/" + bad}, 2, Shown("a/" + bad)});
    CheckRefused(root, {{"put", "a.bin", "--tenant", bad}, 2, "tenant"});
    CheckRefused(root, {{"cat", c.location, "--tenant", bad}, 2, "tenant"});
    CheckRefused(root, {{"--stage", "s3://" + bad + "/p", "stage", "describe"}, 2, "bucket"});
    CheckRefused(root, {{"insert", "INSERT INTO ml.t (id, f) VALUES (?, ?)", "--param", "x",
                         "--file", "a.bin:a/" + bad},
                        2,
                        "content_type"});
    CheckRefused(root, {{"recover", "--discard", bad}, 2, Shown(bad)});
  }
  for (const std::string& bad : {std::string("b\xc3\x28"), std::string("b\xed\xa0\x80")}) {
    CheckRefused(root, {{"events", "create", "--pipeline", bad, "--experiment", "y"}, 2,
                        Shown(bad)});
    CheckRefused(root, {Concat({"events", "fold", bad}, kExperiment), 2, Shown(bad)});
    CheckRefused(root, {{"frob" + bad}, 2, Shown("frob" + bad)});
  }
  // Text values must be valid UTF-8 (a control character is text).
  for (const std::string& bad : {std::string("b\xff"), std::string("b\xc3\x28"),
                                 std::string("\xed\xa0\x80"), std::string("\xf4\x90\x80\x80")}) {
    CheckRefused(root, {{"insert", "INSERT INTO ml.t (id) VALUES (?)", "--param", bad}, 2,
                        "not valid UTF-8"});
    CheckRefused(root, {{"query", "SELECT * FROM ml.t WHERE id = ?", "--param", bad}, 2,
                        "not valid UTF-8"});
    const std::string line =
        R"({"item_id":"r","item_seq":4,"checkpoint_id":"c9","event_type":"FIELD_SET","field_name":"v","value_kind":"str","value_str":")" +
        bad + R"(","writer_epoch":"w1"})" + "\n";
    CheckRefused(root, {Concat({"events", "append", "-"}, kExperiment), 2, "line 1", line});
  }
  // JSON escapes that spell no character, and bytes JSON does not allow.
  for (const std::string& value : {std::string(R"(\udc00)"), std::string(R"(\ud800x)"),
                                   std::string("a\x01z"), std::string("a\nz")}) {
    const std::string line =
        R"({"item_id":"r","item_seq":4,"checkpoint_id":"c9","event_type":"FIELD_SET","field_name":"v","value_kind":"str","value_str":")" +
        value + R"(","writer_epoch":"w1"})" + "\n";
    CheckRefused(root, {Concat({"events", "append", "-"}, kExperiment), 2, "line 1", line});
  }
  CheckRefused(root, {Concat({"events", "append", "-"}, kExperiment), 2, "line 2",
                      std::string(kMoreEvents) + std::string("{\"item_id\":\"s\",\0}\n", 18)});
  // A path is bytes: one that is not UTF-8 is shown escaped when it is
  // missing (a path that exists is read like any other; below).
  for (const std::string& path : {std::string("missing\xff.bin"), std::string("missing\n.bin")}) {
    CheckRefused(root, {{"put", path}, 6, Shown(path)});
    CheckRefused(root, {{"insert", "INSERT INTO ml.t (id, f) VALUES (?, ?)", "--param", "x",
                         "--file", path},
                        6,
                        Shown(path)});
    CheckRefused(root, {Concat({"events", "append", path}, kExperiment), 6, Shown(path)});
    CheckRefused(root, {{"cat", "@" + path}, 6, Shown(path)});
  }
  CheckNothingCommittedChanged(before, Take(root));

  // Accepted: a path that is not UTF-8 names a file like any other, and a
  // utf8 value may hold any character, controls too (--json escapes them).
  WriteSource(dir, "named\xff.bin", 100, 9);
  Result put = root.Run({"put", "named\xff.bin"});
  CHECK_MESSAGE(put.exit_code == 0, put.err);
  Result inserted = root.Run({"insert", "INSERT INTO ml.t (id, f) VALUES (?, ?)", "--param",
                              "line\none\ttab", "--file", "named\xff.bin"});
  CHECK_MESSAGE(inserted.exit_code == 0, inserted.err);
  Result queried = root.Run({"query", "SELECT id FROM ml.t WHERE id = ?", "--param",
                             "line\none\ttab", "--json"});
  CHECK(queried.out == "{\"id\":\"line\\none\\ttab\"}\n");
}

// ---- 5. the root ----

TEST_CASE("a missing or unusable root: exit 2 for a bad --root, one line naming the path") {
  Root root = FreshRoot();
  const TempDir& dir = root.dir;
  const Committed& c = Shared().committed;
  const Snapshot& before = Shared().before;
  std::ofstream(dir.Join("a-file")) << "x";

  for (const std::vector<std::string>& command : EveryCommand(c)) {
    CheckRefused(root, {Concat(command, {"--root", dir.Join("a-file/below")}), 2,
                        dir.Join("a-file")});
  }
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"put", "a.bin"}, {"query", "SELECT * FROM ml.t"},
        {"recover", "--list"}, Concat({"events", "append", "-"}, kExperiment)}) {
    CheckRefused(root, {Concat(command, {"--root", ""}), 2, "root"});
    CheckRefused(root, {Concat(command, {"--root", dir.Join("a-file")}), 2, dir.Join("a-file")});
    // A root that cannot be created (lake creates a missing one on first use).
    CheckRefused(root, {Concat(command, {"--root", "/proc/lake-no-root"}), 6,
                        "/proc/lake-no-root"});
  }
  CHECK_FALSE(std::filesystem::exists(dir.Join("a-file/below")));
  // A missing root is created by the first command, reads too (CLI.md,
  // "Global"): it answers as an empty root.
  Result listed = root.Run({"table", "list", "--root", dir.Join("new/root")});
  CHECK(listed.exit_code == 0);
  CHECK(listed.out.empty());
  Result queried = root.Run({"query", "SELECT * FROM ml.t", "--root", dir.Join("new/root")});
  CHECK(queried.exit_code == 6);
  CheckOneLineNaming(queried, "ml.t");
  CheckNothingCommittedChanged(before, Take(root));
}

// ---- 6. a read-only root ----

// Makes a root read-only for the commands of a scope, the strongest way the
// sandbox allows: a read-only bind mount in a private mount namespace (as
// root), else running lake as nobody on a root owned by root, else (not
// root) taking the write permission away.
class ReadOnlyRoot {
 public:
  explicit ReadOnlyRoot(Root& root);
  ~ReadOnlyRoot();
  const char* how() const { return how_; }
  // The file system's words for a refused write.
  const char* reason() const { return reason_; }

 private:
  Root& root_;
  const char* how_ = "";
  const char* reason_ = "";
  bool mounted_ = false;
  std::vector<std::string> chmodded_;
};

// Moves this test process into a private mount namespace (once): mounts it
// makes are seen only by it and its children, and go with it. False when
// the sandbox does not allow it (not root, or no CAP_SYS_ADMIN), or when
// $LAKE_TEST_NO_MOUNTS is set (to run the fallbacks).
bool InPrivateMountNamespace() {
  static const bool entered = [] {
    if (std::getenv("LAKE_TEST_NO_MOUNTS") != nullptr || ::geteuid() != 0) return false;
    if (::unshare(CLONE_NEWNS) != 0) return false;
    // Nothing mounted here may propagate back to the machine's namespace.
    return ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
  }();
  return entered;
}

void ChmodTree(const std::string& path, bool writable, std::vector<std::string>* changed) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
    if (entry.is_symlink()) continue;
    std::filesystem::permissions(entry.path(),
                                 std::filesystem::perms::owner_write |
                                     std::filesystem::perms::group_write |
                                     std::filesystem::perms::others_write,
                                 writable ? std::filesystem::perm_options::add
                                          : std::filesystem::perm_options::remove);
    if (changed) changed->push_back(entry.path().string());
  }
}

ReadOnlyRoot::ReadOnlyRoot(Root& root) : root_(root) {
  if (InPrivateMountNamespace() &&
      ::mount(root.path.c_str(), root.path.c_str(), nullptr, MS_BIND, nullptr) == 0) {
    mounted_ = true;
    if (::mount(nullptr, root.path.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) ==
        0) {
      how_ = "a read-only bind mount";
      reason_ = "Read-only file system";
      return;
    }
    ::umount2(root.path.c_str(), MNT_DETACH);
    mounted_ = false;
  }
  if (::geteuid() == 0) {
    // nobody may walk to the root and read it, and write only its TMPDIR
    // (a read opens a follower there).
    std::filesystem::permissions(root.dir.path(), std::filesystem::perms(0755));
    std::string tmp = root.dir.Join("nobody-tmp");
    std::filesystem::create_directories(tmp);
    std::filesystem::permissions(tmp, std::filesystem::perms(01777));
    root.user = LakeRun::User{65534, 65534};
    root.env.push_back("TMPDIR=" + tmp);
    how_ = "lake run as nobody";
    reason_ = "Permission denied";
    return;
  }
  ChmodTree(root.path, false, &chmodded_);
  std::filesystem::permissions(root.path, std::filesystem::perms::owner_write |
                                              std::filesystem::perms::group_write |
                                              std::filesystem::perms::others_write,
                               std::filesystem::perm_options::remove);
  how_ = "the root's write permission removed";
  reason_ = "Permission denied";
}

ReadOnlyRoot::~ReadOnlyRoot() {
  if (mounted_) ::umount2(root_.path.c_str(), MNT_DETACH);
  root_.user.reset();
  root_.env.clear();
  if (!chmodded_.empty()) {
    std::filesystem::permissions(root_.path, std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    ChmodTree(root_.path, true, nullptr);
  }
}

// Every command that writes the root, with valid arguments.
std::vector<std::vector<std::string>> EveryWrite() {
  return {
      {"put", "a.bin"},
      {"put", "-"},
      {"insert", kInsert, "--param", "w", "--param", "3", "--param", "NULL", "--file", "a.bin"},
      {"insert", "INSERT INTO ml.t (id) VALUES (?)", "--param", "w"},
      {"table", "create", "ml.u", "--column", "x:int64"},
      {"table", "compact", kTable},
      {"table", "compact", kTable, "--segments"},
      {"recover"},
      {"events", "create", "--pipeline", "p", "--experiment", "y"},
      Concat({"events", "append", "more.jsonl"}, kExperiment),
      Concat({"events", "delete"}, kExperiment),
      Concat({"events", "compact"}, kExperiment),
  };
}

// Every command that only reads, with valid arguments.
std::vector<std::vector<std::string>> EveryRead(const Committed& c) {
  std::vector<std::vector<std::string>> reads = Views();
  reads.push_back({"cat", c.location});
  reads.push_back({"cat", "@" + c.location_file});
  reads.push_back({"stage", "describe"});
  reads.push_back({"table", "list"});
  reads.push_back({"query", "SELECT id, n FROM ml.t WHERE id = ?", "--param", "a"});
  reads.push_back(Concat({"events", "blob", "r", "video"}, kExperiment));
  reads.push_back(Concat({"events", "blob", "r/map:0", "img"}, kExperiment));
  return reads;
}

TEST_CASE("a read-only root: every read works; every write exits 5, one line naming the path and why") {
  Root root = FreshRoot();
  const Committed& c = Shared().committed;
  const Snapshot& before = Shared().before;
  {
    ReadOnlyRoot read_only(root);
    MESSAGE("read-only root: " << std::string(read_only.how()));
    for (const std::vector<std::string>& read : EveryRead(c)) {
      CAPTURE(Joined(read));
      Result r = root.Run(read);
      CHECK_MESSAGE(r.exit_code == 0, r.err);
      CHECK(r.err.empty());
      auto view = before.views.find(Joined(read));
      if (view != before.views.end()) CHECK(ViewText(read, r.out) == view->second);
    }
    for (const std::vector<std::string>& write : EveryWrite()) {
      CAPTURE(Joined(write));
      Result r = root.Run(write, "bytes for put -");
      CHECK(r.exit_code == 5);
      CHECK(r.out.empty());
      CheckOneLineNaming(r, read_only.reason());
      CheckOneLineNaming(r, root.path);
    }
    // Nothing to write: clean-staging finds no leftover and succeeds.
    Result clean = root.Run({"stage", "clean-staging"});
    CHECK_MESSAGE(clean.exit_code == 0, clean.err);
    CHECK(clean.out == "0\n");
  }
  CheckNothingCommittedChanged(before, Take(root));
}

// ---- 7. a full disk ----

// The disk a root lives on, made full for the commands of a scope: a small
// tmpfs mounted (in a private mount namespace) where the root is built, and
// filled by a file; else, without the privilege, ENOSPC stands in as
// failpoints of the write paths (LAKE_FAILPOINTS).
class SmallDisk {
 public:
  // A disk of `bytes` (whole pages) at `mount_point`.
  SmallDisk(const std::string& mount_point, size_t bytes);
  ~SmallDisk();
  bool mounted() const { return mounted_; }
  // Fills the disk to leave `free_bytes` (in whole pages) or fewer.
  void FillLeaving(size_t free_bytes);
  void Empty();

 private:
  std::string mount_point_;
  std::string filler_;
  bool mounted_ = false;
};

// What the small disk holds beyond a copy of the root (whose table log
// segments are preallocated whole, kTableLogSegmentBytes each).
constexpr size_t kDiskBytes = 8 << 20;

// The bytes of every regular file under `dir`.
size_t BytesUnder(const std::string& dir) {
  size_t bytes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) bytes += entry.file_size();
  }
  return bytes;
}

SmallDisk::SmallDisk(const std::string& mount_point, size_t bytes)
    : mount_point_(mount_point), filler_(mount_point + "/filler") {
  std::filesystem::create_directories(mount_point);
  std::string options = "size=" + std::to_string(bytes) + ",mode=0755";
  mounted_ = InPrivateMountNamespace() &&
             ::mount("tmpfs", mount_point.c_str(), "tmpfs", 0, options.c_str()) == 0;
}

SmallDisk::~SmallDisk() {
  if (mounted_) ::umount2(mount_point_.c_str(), MNT_DETACH);
}

void SmallDisk::FillLeaving(size_t free_bytes) {
  REQUIRE(mounted_);
  std::FILE* f = std::fopen(filler_.c_str(), "ab");
  REQUIRE(f != nullptr);
  std::vector<char> block(64 << 10, 'f');
  while (std::fwrite(block.data(), 1, block.size(), f) == block.size()) {
  }
  std::fclose(f);  // the last short write and the close may fail: the disk is full
  uintmax_t size = std::filesystem::file_size(filler_);
  std::filesystem::resize_file(filler_, size > free_bytes ? size - free_bytes : 0);
}

void SmallDisk::Empty() { std::filesystem::remove(filler_); }

// The bytes of the text the full disk's inserts bind (hex of random bytes;
// an argument may be 128 KiB).
constexpr size_t kBigTextBytes = 120 << 10;
// Room for the registry's write of one commit (its WAL record, a few KiB).
constexpr size_t kRegistryCommitBytes = 16 << 10;

// Every write that needs more than `free_bytes` of the disk: uploads and
// event batches larger than that, and (on a disk with no byte free) any
// write at all.
std::vector<std::vector<std::string>> WritesLargerThan(size_t free_bytes) {
  std::vector<std::vector<std::string>> writes = {
      {"put", "big.bin"},
      {"put", "-"},
      {"insert", kInsert, "--param", "w", "--param", "3", "--param", "NULL", "--file", "big.bin"},
      Concat({"events", "append", "big.jsonl"}, kExperiment),
  };
  // The row of the 120 KiB text: its records and its append checkpoint
  // go to the table log's segment, preallocated already, so the new space
  // it takes is the registry's commit, a few KiB.
  if (free_bytes < kRegistryCommitBytes) {
    writes.push_back({"insert", "INSERT INTO ml.t (id) VALUES (?)", "--param", "@big-text"});
  }
  if (free_bytes == 0) {
    for (std::vector<std::string> w :
         {std::vector<std::string>{"table", "create", "ml.u", "--column", "x:int64"},
          {"table", "compact", kTable},
          Concat({"events", "create", "--pipeline", "p", "--experiment", "y"}, {}),
          Concat({"events", "append", "more.jsonl"}, kExperiment)}) {
      writes.push_back(w);
    }
  }
  return writes;
}

TEST_CASE("a full disk: every write exits 5, one line naming ENOSPC; nothing committed changes") {
  const TempDir& dir = Shared().dir;
  SmallDisk disk(dir.Join("disk"), kDiskBytes + BytesUnder(Shared().pristine_path));
  MESSAGE("full disk: " << std::string(disk.mounted()
                                            ? "a small tmpfs in a private mount namespace"
                                            : "failpoints standing in for ENOSPC"));
  Root root = FreshRoot();  // on the small disk
  const Snapshot& before = Shared().before;
  // Larger than any space left below: a file, a text (an argument may be
  // 128 KiB), and one atomic batch of events.
  std::string big = WriteSource(dir, "big.bin", 400 << 10, 11);
  std::vector<uint8_t> text_bytes = RandomBytes(kBigTextBytes / 2, 12);
  std::string text;
  for (uint8_t b : text_bytes) text += "0123456789abcdef"[b & 15], text += "0123456789abcdef"[b >> 4];
  {
    std::ofstream events(dir.Join("big.jsonl"));
    for (int i = 0; i < 300; ++i) {
      events << R"({"item_id":"big)" << i
             << R"(","item_seq":1,"checkpoint_id":"one-batch","event_type":"ITEM_CREATED","writer_epoch":"w1"})"
             << "\n"
             << R"({"item_id":"big)" << i
             << R"(","item_seq":2,"checkpoint_id":"one-batch","event_type":"FIELD_SET","field_name":"t","value_kind":"str","value_str":")"
             << text.substr(static_cast<size_t>(i) * 100, 1000) << "\",\"writer_epoch\":\"w1\"}\n";
    }
  }

  if (disk.mounted()) {
    // From no byte free to more than a small write needs: each level fails
    // a different step (the writer lock, the registry, a checkpoint, a
    // fragment, an upload's data).
    for (size_t free_bytes : {size_t{0}, size_t{8} << 10, size_t{32} << 10, size_t{128} << 10}) {
      CAPTURE(free_bytes);
      disk.FillLeaving(free_bytes);
      for (std::vector<std::string> write : WritesLargerThan(free_bytes)) {
        std::replace(write.begin(), write.end(), std::string("@big-text"), text);
        CAPTURE(Joined(write).substr(0, 200));
        Result r = root.Run(write, big);
        CHECK(r.exit_code == 5);
        CHECK(r.out.empty());
        CheckOneLineNaming(r, "No space left on device");
      }
      // A read whose follower's TMPDIR is on the full disk.
      std::filesystem::create_directories(dir.Join("disk/tmp"));
      Result read = root.Run({"query", "SELECT id FROM ml.t"});
      CHECK_MESSAGE(read.exit_code == 0, read.err);
      Root tmp_full = root;
      tmp_full.env.push_back("TMPDIR=" + dir.Join("disk/tmp"));
      Result follower = tmp_full.Run({"query", "SELECT id FROM ml.t"});
      CHECK((follower.exit_code == 0 || follower.exit_code == 5));
      if (follower.exit_code != 0) CheckOneLineNaming(follower, "No space left on device");
      disk.Empty();
    }
  } else {
    for (const auto& [write, failpoint] :
         std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"put", "big.bin"}, "local_upload.staging_created"},
             {{"put", "-"}, "local_upload.data_written"},
             {{"insert", kInsert, "--param", "w", "--param", "3", "--param", "NULL", "--file",
               "big.bin"},
              "local_upload.data_written"},
             {{"insert", "INSERT INTO ml.t (id) VALUES (?)", "--param", "w"},
              "table_append.reference_delta_written"},
         }) {
      CAPTURE(Joined(write));
      Root failing = root;
      failing.env.push_back("LAKE_FAILPOINTS=" + failpoint + "=error");
      Result r = failing.Run(write, big);
      CHECK(r.exit_code == 5);
      CHECK(r.out.empty());
      CheckOneLineNaming(r, failpoint);
    }
  }
  CheckNothingCommittedChanged(before, Take(root));
  // The space back, writes work again.
  Result put = root.Run({"put", "big.bin"});
  CHECK_MESSAGE(put.exit_code == 0, put.err);
  Result inserted = root.Run({"insert", kInsert, "--param", "w", "--param", "3", "--param", "NULL",
                              "--file", "big.bin"});
  CHECK_MESSAGE(inserted.exit_code == 0, inserted.err);
  Result appended = root.Run(Concat({"events", "append", "big.jsonl"}, kExperiment));
  CHECK_MESSAGE(appended.exit_code == 0, appended.err);
}

}  // namespace
}  // namespace lake::testing
