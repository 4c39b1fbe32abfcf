package lake

// #include <stdlib.h>
// #include "trampolines.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Db is a lake root (lake_db). Safe for concurrent use. Closing it first
// closes its children — its stage's readers and writers, its statements,
// query results and their batches, its event logs and theirs — and then
// releases its writer lock at once.
type Db struct {
	h    *handle
	host *hostState

	stageMu sync.Mutex
	stage   *Stage
}

func wrapDb(p *C.lake_db, host *hostState) *Db {
	return &Db{host: host, h: newHandle("Db", unsafe.Pointer(p), false, func(p unsafe.Pointer) error {
		C.lake_db_free((*C.lake_db)(p))
		return nil
	})}
}

// Open opens the root at dir, creating it if needed (lake_db_open). opts
// may be nil (a local stage in dir/stage).
func Open(dir string, opts *StageOptions) (*Db, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	var oh *handle
	if opts != nil {
		oh = opts.h
	}
	ptrs, done, err := useAll(oh)
	if err != nil {
		return nil, err
	}
	defer done()
	cdir := cstring(dir)
	defer free(cdir)
	var out *C.lake_db
	var e *C.lake_error
	if err := check(C.lake_db_open(cdir, (*C.lake_stage_options)(ptrs[0]), &out, &e), e); err != nil {
		if opts != nil {
			return nil, withCallbacks(err, opts.hostState())
		}
		return nil, err
	}
	var host *hostState
	if opts != nil {
		host = opts.adoptHost()
	}
	runtime.KeepAlive(opts)
	return wrapDb(out, host), nil
}

// OpenFollower opens an existing root to read its tables as a follower
// (lake_db_open_follower).
func OpenFollower(dir string, maxStalenessMs uint32) (*Db, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	cdir := cstring(dir)
	defer free(cdir)
	var out *C.lake_db
	var e *C.lake_error
	if err := check(C.lake_db_open_follower(cdir, C.uint32_t(maxStalenessMs), &out, &e), e); err != nil {
		return nil, err
	}
	return wrapDb(out, nil), nil
}

func (d *Db) states(more ...callbackState) []callbackState {
	if d.host != nil {
		more = append(more, d.host)
	}
	return more
}

// Close closes the root's children, then the root (lake_db_free).
func (d *Db) Close() error { return d.h.close() }

// Stage is the root's stage (lake_db_stage), owned by the root: closing
// the returned Stage only closes its readers and writers.
func (d *Db) Stage() (*Stage, error) {
	p, done, err := d.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	d.stageMu.Lock()
	defer d.stageMu.Unlock()
	if d.stage == nil || d.stage.h.closed() {
		sp := C.lake_db_stage((*C.lake_db)(p))
		d.stage = &Stage{host: d.host, h: newHandle("Stage", unsafe.Pointer(sp), false, nil, d.h)}
	}
	return d.stage, nil
}

// do runs a call on the root's pointer.
func (d *Db) do(call func(*C.lake_db, **C.lake_error) C.lake_status) error {
	p, done, err := d.h.use()
	if err != nil {
		return err
	}
	defer done()
	var e *C.lake_error
	err = check(call((*C.lake_db)(p), &e), e)
	runtime.KeepAlive(d)
	return withCallbacks(err, d.states()...)
}

// doJSON runs a call that returns JSON text lake allocated.
func (d *Db) doJSON(call func(*C.lake_db, **C.char, **C.lake_error) C.lake_status) (string, error) {
	var out *C.char
	err := d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status { return call(p, &out, e) })
	s := takeString(out)
	return s, err
}

// doLocation runs a call taking a location of the caller.
func (d *Db) doLocation(loc *Location, call func(*C.lake_db, *C.lake_location, **C.lake_error) C.lake_status) error {
	ptrs, done, err := useAll(d.h, loc.h)
	if err != nil {
		return err
	}
	defer done()
	var e *C.lake_error
	err = check(call((*C.lake_db)(ptrs[0]), (*C.lake_location)(ptrs[1]), &e), e)
	runtime.KeepAlive(d)
	runtime.KeepAlive(loc)
	return err
}

// Pin keeps an existing object from garbage collection (lake_db_pin).
func (d *Db) Pin(loc *Location) error {
	return d.doLocation(loc, func(p *C.lake_db, l *C.lake_location, e **C.lake_error) C.lake_status {
		return C.lake_db_pin(p, l, e)
	})
}

// Unpin removes a pin (lake_db_unpin).
func (d *Db) Unpin(loc *Location) error {
	return d.doLocation(loc, func(p *C.lake_db, l *C.lake_location, e **C.lake_error) C.lake_status {
		return C.lake_db_unpin(p, l, e)
	})
}

// ViewAgeMicros is a follower's view age, 0 for the writer, -1 before the
// first table call (lake_db_view_age_micros).
func (d *Db) ViewAgeMicros() (int64, error) {
	p, done, err := d.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	v := int64(C.lake_db_view_age_micros((*C.lake_db)(p)))
	runtime.KeepAlive(d)
	return v, nil
}

// SetBusyTimeout sets how long a table write waits for another writer's
// commit (lake_db_set_busy_timeout).
func (d *Db) SetBusyTimeout(ms uint32) error {
	return d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status {
		return C.lake_db_set_busy_timeout(p, C.uint32_t(ms), e)
	})
}

// Uploads calls fn with each resumable upload checkpoint of the root's
// stage; fn returns false to stop (lake_db_uploads_list).
func (d *Db) Uploads(fn func(UploadInfo) bool) error {
	state := register(&uploadInfoState{fn: fn})
	defer state.drop()
	err := d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status {
		return C.lake_db_uploads_list(p, C.lk_upload_info_fn(), state.ctx(), e)
	})
	return withCallbacks(err, state)
}

// ResumeUpload resumes upload id (lake_db_uploads_resume); opts may be nil.
func (d *Db) ResumeUpload(id string, opts *UploadOptions) (*Location, error) {
	th, oh := opts.handles()
	ptrs, done, err := useAll(th, oh, d.h)
	if err != nil {
		return nil, err
	}
	defer done()
	cid := cstring(id)
	defer free(cid)
	var out *C.lake_location
	var e *C.lake_error
	err = check(C.lake_db_uploads_resume((*C.lake_db)(ptrs[2]), cid, (*C.lake_upload_options)(ptrs[1]), &out, &e), e)
	runtime.KeepAlive(opts)
	if err = withCallbacks(err, d.states(opts.states()...)...); err != nil {
		if out != nil {
			C.lake_location_free(out)
		}
		return nil, err
	}
	return wrapLocation(out), nil
}

// AbortUpload aborts upload id and removes its checkpoint
// (lake_db_uploads_abort).
func (d *Db) AbortUpload(id string) error {
	cid := cstring(id)
	defer free(cid)
	return d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status {
		return C.lake_db_uploads_abort(p, cid, e)
	})
}

// CreateTable creates table "ns.table" with columns "name:type"
// (lake_table_create).
func (d *Db) CreateTable(table string, columns []string) error {
	ct := cstring(table)
	defer free(ct)
	n := len(columns)
	arr := (*[1 << 20]*C.char)(C.calloc(C.size_t(n+1), C.size_t(unsafe.Sizeof((*C.char)(nil)))))[: n+1 : n+1]
	defer C.free(unsafe.Pointer(&arr[0]))
	for i, c := range columns {
		arr[i] = cstring(c)
		defer free(arr[i])
	}
	return d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status {
		return C.lake_table_create(p, ct, &arr[0], C.size_t(n), e)
	})
}

// Tables lists the tables as JSON (lake_table_list).
func (d *Db) Tables() (string, error) {
	return d.doJSON(func(p *C.lake_db, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_table_list(p, out, e)
	})
}

func (d *Db) tableJSON(table string, call func(*C.lake_db, *C.char, **C.char, **C.lake_error) C.lake_status) (string, error) {
	ct := cstring(table)
	defer free(ct)
	return d.doJSON(func(p *C.lake_db, out **C.char, e **C.lake_error) C.lake_status {
		return call(p, ct, out, e)
	})
}

// DescribeTable describes a table as JSON (lake_table_describe).
func (d *Db) DescribeTable(table string) (string, error) {
	return d.tableJSON(table, func(p *C.lake_db, t *C.char, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_table_describe(p, t, out, e)
	})
}

// TableVersions lists a table's versions as JSON (lake_table_versions).
func (d *Db) TableVersions(table string) (string, error) {
	return d.tableJSON(table, func(p *C.lake_db, t *C.char, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_table_versions(p, t, out, e)
	})
}

// CompactTable merges the current version's fragments and returns the
// version (lake_table_compact).
func (d *Db) CompactTable(table string) (uint64, error) {
	ct := cstring(table)
	defer free(ct)
	var v C.uint64_t
	err := d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status { return C.lake_table_compact(p, ct, &v, e) })
	return uint64(v), err
}

// CompactTableSegments rewrites the table log's mostly-dead segments
// (lake_table_compact_segments). Returns lake's JSON report.
func (d *Db) CompactTableSegments(table string) (string, error) {
	return d.tableJSON(table, func(p *C.lake_db, t *C.char, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_table_compact_segments(p, t, out, e)
	})
}

// DropTable drops a table (lake_table_drop).
func (d *Db) DropTable(table string) error {
	ct := cstring(table)
	defer free(ct)
	return d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status { return C.lake_table_drop(p, ct, e) })
}

// TagTable names version of table tag (lake_table_tag).
func (d *Db) TagTable(table, tag string, version uint64) error {
	ct, cg := cstring(table), cstring(tag)
	defer free(ct)
	defer free(cg)
	return d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status {
		return C.lake_table_tag(p, ct, cg, C.uint64_t(version), e)
	})
}

// UntagTable removes a tag (lake_table_untag).
func (d *Db) UntagTable(table, tag string) error {
	ct, cg := cstring(table), cstring(tag)
	defer free(ct)
	defer free(cg)
	return d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status { return C.lake_table_untag(p, ct, cg, e) })
}

// ExpireTable retires old versions (lake_table_expire); olderThanSeconds
// < 0 is no such bound. Returns lake's JSON report.
func (d *Db) ExpireTable(table string, keepLast uint64, olderThanSeconds int64) (string, error) {
	return d.tableJSON(table, func(p *C.lake_db, t *C.char, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_table_expire(p, t, C.uint64_t(keepLast), C.int64_t(olderThanSeconds), out, e)
	})
}

// PendingAppends lists append checkpoints that may still commit, as JSON
// (lake_db_pending_appends).
func (d *Db) PendingAppends() (string, error) {
	return d.doJSON(func(p *C.lake_db, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_db_pending_appends(p, out, e)
	})
}

// Recover settles every pending append and reports as JSON
// (lake_db_recover).
func (d *Db) Recover() (string, error) {
	return d.doJSON(func(p *C.lake_db, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_db_recover(p, out, e)
	})
}

// DiscardAppend moves a pending checkpoint aside and returns where
// (lake_db_discard_append).
func (d *Db) DiscardAppend(operationID string) (string, error) {
	cid := cstring(operationID)
	defer free(cid)
	return d.doJSON(func(p *C.lake_db, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_db_discard_append(p, cid, out, e)
	})
}
