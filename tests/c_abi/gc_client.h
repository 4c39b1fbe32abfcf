// What the garbage-collection tests of the C ABI (gc_test.cc,
// gc_host_store_test.cc) share, through include/lake.h only: a scratch
// directory, owned handles, an error's message, an INSERT of a location,
// options with a short cutoff, plan and apply returning their JSON, the
// candidates `lake_gc_show` streams, and one field of a JSON text.
#ifndef LAKE_TESTS_C_ABI_GC_CLIENT_H_
#define LAKE_TESTS_C_ABI_GC_CLIENT_H_

#include <doctest/doctest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lake.h"

namespace lake_gc_client {

// A directory /tmp/<prefix>-XXXXXX, removed with everything in it.
struct Scratch {
  explicit Scratch(const std::string& prefix) {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string path;
};

// The message of `err` ("" for none); frees it.
inline std::string Message(lake_error* err) {
  std::string text = err != nullptr ? lake_error_message(err) : "";
  lake_error_free(err);
  return text;
}

struct DbFree {
  void operator()(lake_db* d) const { lake_db_free(d); }
};
struct GcOptionsFree {
  void operator()(lake_gc_options* o) const { lake_gc_options_free(o); }
};
using Db = std::unique_ptr<lake_db, DbFree>;
using GcOptions = std::unique_ptr<lake_gc_options, GcOptionsFree>;

// INSERT INTO ns.t (f) VALUES (`loc`); the test case stops if it fails.
inline void InsertLocation(lake_db* db, const lake_location* loc) {
  lake_statement* stmt = nullptr;
  REQUIRE(lake_db_prepare(db, "INSERT INTO ns.t (f) VALUES (?)", &stmt, nullptr) == LAKE_OK);
  REQUIRE(lake_statement_bind_location(stmt, 1, loc, nullptr) == LAKE_OK);
  lake_error* err = nullptr;
  lake_status status = lake_statement_insert(stmt, nullptr, nullptr, &err);
  lake_statement_free(stmt);
  REQUIRE_MESSAGE(status == LAKE_OK, Message(err));
}

// Options with a cutoff of `seconds`, short ones allowed.
inline GcOptions CutoffOptions(uint64_t seconds) {
  GcOptions opts(lake_gc_options_new());
  lake_gc_options_set_cutoff_seconds(opts.get(), seconds);
  lake_gc_options_set_allow_short_cutoff(opts.get(), 1);
  return opts;
}

// The value of "key":N or "key":"…" in one JSON text (enough for tests).
inline std::string Field(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  at += key.size() + 3;
  if (json[at] == '"') return json.substr(at + 1, json.find('"', at + 1) - at - 1);
  return json.substr(at, json.find_first_of(",}]", at) - at);
}

// Keeps what a call returned: its JSON when it succeeded, else its message.
inline lake_status JsonOrMessage(lake_status status, char* json, lake_error* err,
                                 std::string* json_or_message) {
  if (status == LAKE_OK) {
    *json_or_message = json;
    lake_string_free(json);
  } else {
    *json_or_message = Message(err);
  }
  return status;
}

// lake_gc_plan; the plan's JSON or the error's message in `json_or_message`.
inline lake_status Plan(lake_db* db, const lake_gc_options* opts, std::string* json_or_message) {
  char* json = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_gc_plan(db, opts, &json, &err);
  return JsonOrMessage(status, json, err, json_or_message);
}

// lake_gc_apply; the outcome's JSON or the error's message in
// `json_or_message`.
inline lake_status Apply(lake_db* db, const std::string& plan_id, const lake_gc_options* opts,
                         std::string* json_or_message) {
  char* json = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_gc_apply(db, plan_id.c_str(), opts, &json, &err);
  return JsonOrMessage(status, json, err, json_or_message);
}

// The candidates lake_gc_show streams, in its order.
struct CandidateList {
  std::vector<std::string> uris;
  std::vector<std::string> kinds;
  static int Collect(void* ctx, const lake_gc_candidate* c) {
    auto* list = static_cast<CandidateList*>(ctx);
    list->uris.push_back(c->uri);
    list->kinds.push_back(c->kind);
    return 0;
  }
};

}  // namespace lake_gc_client

#endif  // LAKE_TESTS_C_ABI_GC_CLIENT_H_
