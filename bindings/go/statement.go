package lake

// #include <stdlib.h>
// #include "trampolines.h"
import "C"

import (
	"fmt"
	"io"
	"runtime"
	"time"
	"unsafe"
)

// Statement is a prepared statement of lake's SQL subset (lake_statement).
// One goroutine at a time (calls are serialised). Closing it releases the
// streams bound to its FILE parameters; its query results stay readable
// until the root closes.
type Statement struct {
	h       *handle
	db      *Db
	sources map[int]*readSource // read sources bound to FILE parameters
}

// File is a FILE value uploaded from a path when the INSERT runs.
type File struct {
	Path        string
	ContentType string // "" for application/octet-stream
}

// Stream is a FILE value uploaded from a reader when the INSERT runs; lake
// pulls it in several calls. An error or panic of Reader is the INSERT's
// error.
type Stream struct {
	Reader      io.Reader
	ContentType string
}

// Text is a value parsed by its column's type, as the CLI's --param
// (lake_statement_bind_text).
type Text string

// Prepare prepares sql against its table (lake_db_prepare).
func (d *Db) Prepare(sql string) (*Statement, error) {
	p, done, err := d.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	csql := cstring(sql)
	defer free(csql)
	var out *C.lake_statement
	var e *C.lake_error
	if err := check(C.lake_db_prepare((*C.lake_db)(p), csql, &out, &e), e); err != nil {
		return nil, err
	}
	s := &Statement{db: d, sources: map[int]*readSource{}}
	s.h = newHandle("Statement", unsafe.Pointer(out), true, func(p unsafe.Pointer) error {
		C.lake_statement_free((*C.lake_statement)(p))
		return nil
	}, d.h)
	s.h.onClose = append(s.h.onClose, func() {
		for i, src := range s.sources {
			src.drop()
			delete(s.sources, i)
		}
	})
	runtime.KeepAlive(d)
	return s, nil
}

// ParameterCount is the number of ? placeholders
// (lake_statement_parameter_count).
func (s *Statement) ParameterCount() (int, error) {
	p, done, err := s.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	n := int(C.lake_statement_parameter_count((*C.lake_statement)(p)))
	runtime.KeepAlive(s)
	return n, nil
}

// Bind binds placeholder index (1-based) to v: nil (null), int, int64,
// float64, bool, string (utf8), []byte (binary), time.Time (timestamp),
// Text, File, Stream, an io.Reader (a Stream) or a *Location (an existing
// object). lake checks the value against the column's type at once.
func (s *Statement) Bind(index int, v any) error {
	p, done, err := s.h.use()
	if err != nil {
		return err
	}
	defer done()
	stmt := (*C.lake_statement)(p)
	i := C.size_t(index)
	var e *C.lake_error
	var status C.lake_status
	var src *readSource
	switch v := v.(type) {
	case nil:
		status = C.lake_statement_bind_null(stmt, i, &e)
	case int:
		status = C.lake_statement_bind_int64(stmt, i, C.int64_t(v), &e)
	case int64:
		status = C.lake_statement_bind_int64(stmt, i, C.int64_t(v), &e)
	case float64:
		status = C.lake_statement_bind_float64(stmt, i, C.double(v), &e)
	case bool:
		status = C.lake_statement_bind_bool(stmt, i, cbool(v), &e)
	case string:
		text := C.CBytes([]byte(v))
		defer C.free(text)
		status = C.lake_statement_bind_utf8(stmt, i, (*C.char)(text), C.size_t(len(v)), &e)
	case []byte:
		bytes := C.CBytes(v)
		defer C.free(bytes)
		status = C.lake_statement_bind_binary(stmt, i, bytes, C.size_t(len(v)), &e)
	case time.Time:
		status = C.lake_statement_bind_timestamp_micros(stmt, i, C.int64_t(v.UnixMicro()), &e)
	case Text:
		text := cstring(string(v))
		defer free(text)
		status = C.lake_statement_bind_text(stmt, i, text, &e)
	case File:
		path := cstring(v.Path)
		defer free(path)
		var ct *C.char
		if v.ContentType != "" {
			ct = cstring(v.ContentType)
			defer free(ct)
		}
		status = C.lake_statement_bind_file_path(stmt, i, path, ct, &e)
	case Stream:
		src = newReadSource(v.Reader)
		var ct *C.char
		if v.ContentType != "" {
			ct = cstring(v.ContentType)
			defer free(ct)
		}
		status = C.lake_statement_bind_file_reader(stmt, i, C.lk_read_fn(), src.ctx(), ct, &e)
	case io.Reader:
		src = newReadSource(v)
		status = C.lake_statement_bind_file_reader(stmt, i, C.lk_read_fn(), src.ctx(), nil, &e)
	case *Location:
		lp, ldone, err := v.h.use()
		if err != nil {
			return err
		}
		status = C.lake_statement_bind_location(stmt, i, (*C.lake_location)(lp), &e)
		ldone()
	default:
		return fmt.Errorf("lake: cannot bind a %T", v)
	}
	if err := check(status, e); err != nil {
		if src != nil {
			src.drop()
		}
		return err
	}
	if old := s.sources[index]; old != nil {
		old.drop()
		delete(s.sources, index)
	}
	if src != nil {
		s.sources[index] = src
	}
	runtime.KeepAlive(s)
	return nil
}

// BindAll binds args to placeholders 1, 2, ….
func (s *Statement) BindAll(args ...any) error {
	for i, a := range args {
		if err := s.Bind(i+1, a); err != nil {
			return err
		}
	}
	return nil
}

func (s *Statement) sourceStates() []callbackState {
	var out []callbackState
	for _, src := range s.sources {
		out = append(out, src)
	}
	return out
}

// Insert runs an INSERT and returns the new version
// (lake_statement_insert); opts (may be nil) give cancellation and
// progress.
func (s *Statement) Insert(opts *UploadOptions) (uint64, error) {
	th, oh := opts.handles()
	ptrs, done, err := useAll(th, oh, s.h)
	if err != nil {
		return 0, err
	}
	defer done()
	var v C.uint64_t
	var e *C.lake_error
	err = check(C.lake_statement_insert((*C.lake_statement)(ptrs[2]), (*C.lake_upload_options)(ptrs[1]), &v, &e), e)
	runtime.KeepAlive(opts)
	runtime.KeepAlive(s)
	states := append(s.sourceStates(), opts.states()...)
	if err = withCallbacks(err, s.db.states(states...)...); err != nil {
		return 0, err
	}
	return uint64(v), nil
}

// Execute runs a DELETE, replace-where, DROP TABLE or ALTER TABLE and
// returns the version and rows (lake_statement_execute).
func (s *Statement) Execute() (version, rows uint64, err error) {
	p, done, err := s.h.use()
	if err != nil {
		return 0, 0, err
	}
	defer done()
	var v, r C.uint64_t
	var e *C.lake_error
	err = check(C.lake_statement_execute((*C.lake_statement)(p), &v, &r, &e), e)
	runtime.KeepAlive(s)
	return uint64(v), uint64(r), withCallbacks(err, s.db.states(s.sourceStates()...)...)
}

// Changes are the rows the last successful run deleted and inserted
// (lake_statement_changes).
func (s *Statement) Changes() (deleted, inserted uint64, err error) {
	p, done, err := s.h.use()
	if err != nil {
		return 0, 0, err
	}
	defer done()
	var d, i C.uint64_t
	C.lake_statement_changes((*C.lake_statement)(p), &d, &i)
	runtime.KeepAlive(s)
	return uint64(d), uint64(i), nil
}

// Query runs a SELECT (lake_statement_query). The result is a child of the
// root, not of the statement: it stays readable after the statement
// closes.
func (s *Statement) Query() (*QueryResult, error) {
	ptrs, done, err := useAll(s.db.h, s.h)
	if err != nil {
		return nil, err
	}
	defer done()
	stream := (*C.struct_ArrowArrayStream)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_ArrowArrayStream{}))))
	var e *C.lake_error
	if err := check(C.lake_statement_query((*C.lake_statement)(ptrs[1]), stream, &e), e); err != nil {
		C.free(unsafe.Pointer(stream))
		return nil, err
	}
	runtime.KeepAlive(s)
	return newQueryResult(stream, s.db.h), nil
}

// Close frees the statement and what the binding kept for it
// (lake_statement_free).
func (s *Statement) Close() error { return s.h.close() }

// Insert prepares, binds args and runs an INSERT; it returns the version.
func (d *Db) Insert(sql string, args ...any) (uint64, error) {
	s, err := d.Prepare(sql)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if err := s.BindAll(args...); err != nil {
		return 0, err
	}
	return s.Insert(nil)
}

// Query prepares, binds args and runs a SELECT.
func (d *Db) Query(sql string, args ...any) (*QueryResult, error) {
	s, err := d.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.BindAll(args...); err != nil {
		return nil, err
	}
	return s.Query()
}

// Exec prepares, binds args and runs a statement with Execute.
func (d *Db) Exec(sql string, args ...any) (version, rows uint64, err error) {
	s, err := d.Prepare(sql)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	if err := s.BindAll(args...); err != nil {
		return 0, 0, err
	}
	return s.Execute()
}
