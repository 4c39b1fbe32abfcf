// Package duckdbtest is the part of DuckDB's C API (duckdb.h, 1.x) the
// binding's S-013 test calls: it loads libduckdb.so with dlopen (fetched by
// scripts/fetch-duckdb), scans an Arrow C stream as a view and runs
// one-value queries. Test support only; it knows nothing of lake.
package duckdbtest

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// duckdb_result as duckdb.h 1.x lays it out (six 8-byte fields).
typedef struct { uint64_t f[3]; void* columns; char* error; void* internal; } duck_result;

typedef struct {
  void* lib;
  void* db;
  void* conn;
  int (*open)(const char*, void**);
  void (*close)(void**);
  int (*connect)(void*, void**);
  void (*disconnect)(void**);
  int (*query)(void*, const char*, duck_result*);
  void (*destroy_result)(duck_result*);
  const char* (*result_error)(duck_result*);
  uint64_t (*row_count)(duck_result*);
  char* (*value_varchar)(duck_result*, uint64_t, uint64_t);
  void (*free)(void*);
  int (*arrow_scan)(void*, const char*, void*);
} duck;

static const char* duck_load(duck* d, const char* path) {
  d->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!d->lib) return dlerror();
#define SYM(field, name) if (!(*(void**)&d->field = dlsym(d->lib, name))) return name;
  SYM(open, "duckdb_open") SYM(close, "duckdb_close") SYM(connect, "duckdb_connect")
  SYM(disconnect, "duckdb_disconnect") SYM(query, "duckdb_query")
  SYM(destroy_result, "duckdb_destroy_result") SYM(result_error, "duckdb_result_error")
  SYM(row_count, "duckdb_row_count") SYM(value_varchar, "duckdb_value_varchar")
  SYM(free, "duckdb_free") SYM(arrow_scan, "duckdb_arrow_scan")
#undef SYM
  if (d->open(NULL, &d->db) != 0) return "duckdb_open failed";
  if (d->connect(d->db, &d->conn) != 0) return "duckdb_connect failed";
  return NULL;
}

static int duck_scan(duck* d, const char* name, void* stream) {
  return d->arrow_scan(d->conn, name, stream);
}

// The first value of sql's result, malloc'd; NULL with *error set on failure.
static char* duck_one(duck* d, const char* sql, char** error) {
  duck_result r;
  memset(&r, 0, sizeof r);
  char* out = NULL;
  *error = NULL;
  if (d->query(d->conn, sql, &r) != 0) {
    const char* e = d->result_error(&r);
    *error = strdup(e ? e : "duckdb_query failed");
  } else if (d->row_count(&r) == 1) {
    char* v = d->value_varchar(&r, 0, 0);
    if (v) {
      out = strdup(v);
      d->free(v);
    }
  }
  d->destroy_result(&r);
  return out;
}

static void duck_close(duck* d) {
  if (d->conn) d->disconnect(&d->conn);
  if (d->db) d->close(&d->db);
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// streamSize is sizeof(struct ArrowArrayStream): five pointers.
const streamSize = 5 * 8

// DB is an in-memory DuckDB database with one connection.
type DB struct {
	d       *C.duck
	streams []unsafe.Pointer
}

// Open loads the library at path and opens an in-memory database.
func Open(path string) (*DB, error) {
	d := (*C.duck)(C.calloc(1, C.size_t(unsafe.Sizeof(C.duck{}))))
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if msg := C.duck_load(d, cpath); msg != nil {
		err := errors.New("duckdb: " + C.GoString(msg))
		C.duck_close(d)
		C.free(unsafe.Pointer(d))
		return nil, err
	}
	return &DB{d: d}, nil
}

// NewStream is memory for one struct ArrowArrayStream, owned by the DB
// (DuckDB reads it while the view is scanned).
func (db *DB) NewStream() unsafe.Pointer {
	p := C.calloc(1, streamSize)
	db.streams = append(db.streams, p)
	return p
}

// Scan makes the Arrow C stream at stream the view name (duckdb_arrow_scan).
func (db *DB) Scan(name string, stream unsafe.Pointer) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if C.duck_scan(db.d, cname, stream) != 0 {
		return errors.New("duckdb_arrow_scan failed")
	}
	return nil
}

// One runs sql and returns its single value as text ("" when none).
func (db *DB) One(sql string) (string, error) {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var cerr *C.char
	out := C.duck_one(db.d, csql, &cerr)
	if cerr != nil {
		defer C.free(unsafe.Pointer(cerr))
		return "", errors.New("duckdb: " + C.GoString(cerr))
	}
	if out == nil {
		return "", nil
	}
	defer C.free(unsafe.Pointer(out))
	return C.GoString(out), nil
}

// Close closes the database and frees the streams' memory.
func (db *DB) Close() {
	C.duck_close(db.d)
	C.free(unsafe.Pointer(db.d))
	for _, p := range db.streams {
		C.free(p)
	}
}
