package lake

// #include <stdlib.h>
// #include "trampolines.h"
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

func (d *Db) experimentCall(pipeline, experiment string, call func(*C.lake_db, *C.char, *C.char, **C.lake_error) C.lake_status) error {
	cp, ce := cstring(pipeline), cstring(experiment)
	defer free(cp)
	defer free(ce)
	return d.do(func(p *C.lake_db, e **C.lake_error) C.lake_status { return call(p, cp, ce, e) })
}

// CreateExperiment creates pipeline/experiment (lake_experiment_create).
func (d *Db) CreateExperiment(pipeline, experiment string) error {
	return d.experimentCall(pipeline, experiment, func(p *C.lake_db, a, b *C.char, e **C.lake_error) C.lake_status {
		return C.lake_experiment_create(p, a, b, e)
	})
}

// DeleteExperiment deletes an experiment's log (lake_experiment_delete).
func (d *Db) DeleteExperiment(pipeline, experiment string) error {
	return d.experimentCall(pipeline, experiment, func(p *C.lake_db, a, b *C.char, e **C.lake_error) C.lake_status {
		return C.lake_experiment_delete(p, a, b, e)
	})
}

// Experiments lists experiments ("" pipeline: every one) as JSON
// (lake_experiment_list).
func (d *Db) Experiments(pipeline string) (string, error) {
	var cp *C.char
	if pipeline != "" {
		cp = cstring(pipeline)
		defer free(cp)
	}
	return d.doJSON(func(p *C.lake_db, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_experiment_list(p, cp, out, e)
	})
}

// DescribeExperiment describes an experiment as JSON
// (lake_experiment_describe).
func (d *Db) DescribeExperiment(pipeline, experiment string) (string, error) {
	var out *C.char
	err := d.experimentCall(pipeline, experiment, func(p *C.lake_db, a, b *C.char, e **C.lake_error) C.lake_status {
		return C.lake_experiment_describe(p, a, b, &out, e)
	})
	return takeString(out), err
}

// CompactExperiment merges an experiment's idle shards
// (lake_experiment_compact).
func (d *Db) CompactExperiment(pipeline, experiment string) (string, error) {
	var out *C.char
	err := d.experimentCall(pipeline, experiment, func(p *C.lake_db, a, b *C.char, e **C.lake_error) C.lake_status {
		return C.lake_experiment_compact(p, a, b, &out, e)
	})
	return takeString(out), err
}

// EventLog is an experiment's event log (lake_event_log). Safe for
// concurrent use. Closing it first closes its event writers, folded items
// and the blob readers opened from them.
type EventLog struct {
	h  *handle
	db *Db
}

// OpenEventLog opens an experiment's log (lake_event_log_open); writable
// takes a shard of its own.
func (d *Db) OpenEventLog(pipeline, experiment string, writable bool) (*EventLog, error) {
	p, done, err := d.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	cp, ce := cstring(pipeline), cstring(experiment)
	defer free(cp)
	defer free(ce)
	var out *C.lake_event_log
	var e *C.lake_error
	if err := check(C.lake_event_log_open((*C.lake_db)(p), cp, ce, cbool(writable), &out, &e), e); err != nil {
		return nil, withCallbacks(err, d.states()...)
	}
	return &EventLog{db: d, h: newHandle("EventLog", unsafe.Pointer(out), false, func(p unsafe.Pointer) error {
		C.lake_event_log_free((*C.lake_event_log)(p))
		return nil
	}, d.h)}, nil
}

func (l *EventLog) do(call func(*C.lake_event_log, **C.lake_error) C.lake_status) error {
	p, done, err := l.h.use()
	if err != nil {
		return err
	}
	defer done()
	var e *C.lake_error
	err = check(call((*C.lake_event_log)(p), &e), e)
	runtime.KeepAlive(l)
	return withCallbacks(err, l.db.states()...)
}

func (l *EventLog) doJSON(call func(*C.lake_event_log, **C.char, **C.lake_error) C.lake_status) (string, error) {
	var out *C.char
	err := l.do(func(p *C.lake_event_log, e **C.lake_error) C.lake_status { return call(p, &out, e) })
	return takeString(out), err
}

// Refresh makes other writers' acknowledged batches visible
// (lake_event_log_refresh).
func (l *EventLog) Refresh() error {
	return l.do(func(p *C.lake_event_log, e **C.lake_error) C.lake_status { return C.lake_event_log_refresh(p, e) })
}

// AppendJSONL appends raw events (lake_event_log_append_jsonl).
func (l *EventLog) AppendJSONL(jsonl string) (appended, duplicates uint64, err error) {
	text := C.CBytes([]byte(jsonl))
	defer C.free(text)
	var a, d C.uint64_t
	err = l.do(func(p *C.lake_event_log, e **C.lake_error) C.lake_status {
		return C.lake_event_log_append_jsonl(p, (*C.char)(text), C.size_t(len(jsonl)), &a, &d, e)
	})
	return uint64(a), uint64(d), err
}

// Tree is the item tree under a root item as JSON (lake_event_log_tree).
func (l *EventLog) Tree(rootItemID string) (string, error) {
	c := cstring(rootItemID)
	defer free(c)
	return l.doJSON(func(p *C.lake_event_log, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_event_log_tree(p, c, out, e)
	})
}

// Roots lists the root items as JSON (lake_event_log_roots).
func (l *EventLog) Roots() (string, error) {
	return l.doJSON(func(p *C.lake_event_log, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_event_log_roots(p, out, e)
	})
}

// Failures lists failures as JSON (lake_event_log_failures).
func (l *EventLog) Failures() (string, error) {
	return l.doJSON(func(p *C.lake_event_log, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_event_log_failures(p, out, e)
	})
}

// Events are the raw events of a root and its descendants as JSONL
// (lake_event_log_events).
func (l *EventLog) Events(rootItemID string) (string, error) {
	c := cstring(rootItemID)
	defer free(c)
	return l.doJSON(func(p *C.lake_event_log, out **C.char, e **C.lake_error) C.lake_status {
		return C.lake_event_log_events(p, c, out, e)
	})
}

// Close closes the log's children, then the log (lake_event_log_free).
func (l *EventLog) Close() error { return l.h.close() }

// Step is a step's provenance (lake_step); Index < 0 is none.
type Step struct {
	Name, Kind, EnclosingStep, SelectorStep string
	Index                                   int64
}

// cStep is a lake_step in C memory; free releases it.
func cStep(s *Step) (*C.lake_step, func()) {
	if s == nil {
		return nil, func() {}
	}
	p := (*C.lake_step)(C.calloc(1, C.size_t(unsafe.Sizeof(C.lake_step{}))))
	var strs []*C.char
	str := func(v string) *C.char {
		if v == "" {
			return nil
		}
		c := cstring(v)
		strs = append(strs, c)
		return c
	}
	p.name, p.kind = str(s.Name), str(s.Kind)
	p.enclosing_step, p.selector_step = str(s.EnclosingStep), str(s.SelectorStep)
	p.index = C.int64_t(s.Index)
	return p, func() {
		for _, c := range strs {
			free(c)
		}
		C.free(unsafe.Pointer(p))
	}
}

// Blob is a binary field value (LAKE_VALUE_BLOB); JSON is JSON text
// (LAKE_VALUE_JSON). Other values: int64 (int), float64, bool, string.
type (
	Blob []byte
	JSON string
)

// cValue is a lake_value in C memory; free releases it.
func cValue(v any) (*C.lake_value, func(), error) {
	p := (*C.lake_value)(C.calloc(1, C.size_t(unsafe.Sizeof(C.lake_value{}))))
	var bytes unsafe.Pointer
	setBytes := func(b []byte) {
		if len(b) > 0 {
			bytes = C.CBytes(b)
		}
		p.bytes, p.len = bytes, C.size_t(len(b))
	}
	switch v := v.(type) {
	case int:
		p.kind, p.i64 = C.LAKE_VALUE_INT, C.int64_t(v)
	case int64:
		p.kind, p.i64 = C.LAKE_VALUE_INT, C.int64_t(v)
	case float64:
		p.kind, p.f64 = C.LAKE_VALUE_FLOAT, C.double(v)
	case bool:
		p.kind, p.boolean = C.LAKE_VALUE_BOOL, cbool(v)
	case string:
		p.kind = C.LAKE_VALUE_STR
		setBytes([]byte(v))
	case JSON:
		p.kind = C.LAKE_VALUE_JSON
		setBytes([]byte(v))
	case Blob:
		p.kind = C.LAKE_VALUE_BLOB
		setBytes(v)
	case []byte:
		p.kind = C.LAKE_VALUE_BLOB
		setBytes(v)
	default:
		C.free(unsafe.Pointer(p))
		return nil, nil, fmt.Errorf("lake: no event value for a %T", v)
	}
	return p, func() {
		if bytes != nil {
			C.free(bytes)
		}
		C.free(unsafe.Pointer(p))
	}, nil
}

// EventWriter writes one item's events (lake_event_writer). One goroutine
// at a time (calls are serialised); a child of its log.
type EventWriter struct {
	h   *handle
	log *EventLog
}

func (l *EventLog) newWriter(call func(*C.lake_event_log, **C.lake_event_writer, **C.lake_error) C.lake_status) (*EventWriter, error) {
	p, done, err := l.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	var out *C.lake_event_writer
	var e *C.lake_error
	if err := check(call((*C.lake_event_log)(p), &out, &e), e); err != nil {
		return nil, err
	}
	return &EventWriter{log: l, h: newHandle("EventWriter", unsafe.Pointer(out), true, func(p unsafe.Pointer) error {
		C.lake_event_writer_free((*C.lake_event_writer)(p))
		return nil
	}, l.h)}, nil
}

// OpenWriter starts a new item (lake_event_writer_open); createdBy is nil
// for a root item.
func (l *EventLog) OpenWriter(itemID, writerEpoch string, createdBy *Step) (*EventWriter, error) {
	ci, ce := cstring(itemID), cstring(writerEpoch)
	defer free(ci)
	defer free(ce)
	st, freeStep := cStep(createdBy)
	defer freeStep()
	return l.newWriter(func(p *C.lake_event_log, out **C.lake_event_writer, e **C.lake_error) C.lake_status {
		return C.lake_event_writer_open(p, ci, ce, st, out, e)
	})
}

// ResumeWriter continues an item in a new attempt
// (lake_event_writer_resume).
func (l *EventLog) ResumeWriter(itemID, writerEpoch string) (*EventWriter, error) {
	ci, ce := cstring(itemID), cstring(writerEpoch)
	defer free(ci)
	defer free(ce)
	return l.newWriter(func(p *C.lake_event_log, out **C.lake_event_writer, e **C.lake_error) C.lake_status {
		return C.lake_event_writer_resume(p, ci, ce, out, e)
	})
}

func (w *EventWriter) do(call func(*C.lake_event_writer, **C.lake_error) C.lake_status) error {
	p, done, err := w.h.use()
	if err != nil {
		return err
	}
	defer done()
	var e *C.lake_error
	err = check(call((*C.lake_event_writer)(p), &e), e)
	runtime.KeepAlive(w)
	return withCallbacks(err, w.log.db.states()...)
}

func (w *EventWriter) stepCall(step *Step, call func(*C.lake_event_writer, *C.lake_step, **C.lake_error) C.lake_status) error {
	st, freeStep := cStep(step)
	defer freeStep()
	return w.do(func(p *C.lake_event_writer, e **C.lake_error) C.lake_status { return call(p, st, e) })
}

// StepStarted records a driver step's start (lake_event_writer_step_started).
func (w *EventWriter) StepStarted(step Step) error {
	return w.stepCall(&step, func(p *C.lake_event_writer, s *C.lake_step, e **C.lake_error) C.lake_status {
		return C.lake_event_writer_step_started(p, s, e)
	})
}

// StepCompleted records a step's end (lake_event_writer_step_completed).
func (w *EventWriter) StepCompleted(step Step) error {
	return w.stepCall(&step, func(p *C.lake_event_writer, s *C.lake_step, e **C.lake_error) C.lake_status {
		return C.lake_event_writer_step_completed(p, s, e)
	})
}

func (w *EventWriter) field(name string, value any, step *Step, set bool) error {
	v, freeValue, err := cValue(value)
	if err != nil {
		return err
	}
	defer freeValue()
	cn := cstring(name)
	defer free(cn)
	return w.stepCall(step, func(p *C.lake_event_writer, s *C.lake_step, e **C.lake_error) C.lake_status {
		if set {
			return C.lake_event_writer_field_set(p, cn, v, s, e)
		}
		return C.lake_event_writer_field_append(p, cn, v, s, e)
	})
}

// SetField sets a field, last writer wins (lake_event_writer_field_set);
// step may be nil.
func (w *EventWriter) SetField(name string, value any, step *Step) error {
	return w.field(name, value, step, true)
}

// AppendField appends to a field (lake_event_writer_field_append).
func (w *EventWriter) AppendField(name string, value any, step *Step) error {
	return w.field(name, value, step, false)
}

// Terminal marks the item completed, or filtered
// (lake_event_writer_terminal).
func (w *EventWriter) Terminal(filtered bool, step *Step) error {
	return w.stepCall(step, func(p *C.lake_event_writer, s *C.lake_step, e **C.lake_error) C.lake_status {
		return C.lake_event_writer_terminal(p, cbool(filtered), s, e)
	})
}

// Failed marks the item failed (lake_event_writer_failed).
func (w *EventWriter) Failed(errorType, errorDump, traceback string, step *Step) error {
	a, b, c := cstring(errorType), cstring(errorDump), cstring(traceback)
	defer free(a)
	defer free(b)
	defer free(c)
	return w.stepCall(step, func(p *C.lake_event_writer, s *C.lake_step, e **C.lake_error) C.lake_status {
		return C.lake_event_writer_failed(p, a, b, c, s, e)
	})
}

// Commit appends the pending events atomically (lake_event_writer_commit).
func (w *EventWriter) Commit() error {
	return w.do(func(p *C.lake_event_writer, e **C.lake_error) C.lake_status { return C.lake_event_writer_commit(p, e) })
}

// Attempt is the writer's attempt number (lake_event_writer_attempt).
func (w *EventWriter) Attempt() (uint32, error) {
	var a C.uint32_t
	err := w.do(func(p *C.lake_event_writer, _ **C.lake_error) C.lake_status {
		a = C.lake_event_writer_attempt(p)
		return C.LAKE_OK
	})
	return uint32(a), err
}

// Close frees the writer; uncommitted events are dropped
// (lake_event_writer_free).
func (w *EventWriter) Close() error { return w.h.close() }

// FoldedItem is an item folded from its events (lake_folded_item).
// Immutable; a child of its log, parent of its blob readers.
type FoldedItem struct {
	h   *handle
	log *EventLog
}

// Fold folds an item; nil (and no error) when the item has no
// ITEM_CREATED (lake_event_log_fold).
func (l *EventLog) Fold(itemID string) (*FoldedItem, error) {
	p, done, err := l.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	ci := cstring(itemID)
	defer free(ci)
	var out *C.lake_folded_item
	var e *C.lake_error
	if err := check(C.lake_event_log_fold((*C.lake_event_log)(p), ci, &out, &e), e); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, nil
	}
	return &FoldedItem{log: l, h: newHandle("FoldedItem", unsafe.Pointer(out), false, func(p unsafe.Pointer) error {
		C.lake_folded_item_free((*C.lake_folded_item)(p))
		return nil
	}, l.h)}, nil
}

func (f *FoldedItem) str(get func(*C.lake_folded_item) *C.char) (string, error) {
	p, done, err := f.h.use()
	if err != nil {
		return "", err
	}
	defer done()
	return C.GoString(get((*C.lake_folded_item)(p))), nil
}

// JSON is the whole folded item (lake_folded_item_json).
func (f *FoldedItem) JSON() (string, error) {
	return f.str(func(p *C.lake_folded_item) *C.char { return C.lake_folded_item_json(p) })
}

// Status is "running", "completed", "filtered" or "failed"
// (lake_folded_item_status).
func (f *FoldedItem) Status() (string, error) {
	return f.str(func(p *C.lake_folded_item) *C.char { return C.lake_folded_item_status(p) })
}

// LastAttempt is the item's last attempt (lake_folded_item_last_attempt).
func (f *FoldedItem) LastAttempt() (uint32, error) {
	p, done, err := f.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	return uint32(C.lake_folded_item_last_attempt((*C.lake_folded_item)(p))), nil
}

// NextItemSeq is the item's next item_seq (lake_folded_item_next_item_seq).
func (f *FoldedItem) NextItemSeq() (uint64, error) {
	p, done, err := f.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	return uint64(C.lake_folded_item_next_item_seq((*C.lake_folded_item)(p))), nil
}

// ValueCount is the number of values of field
// (lake_folded_item_value_count).
func (f *FoldedItem) ValueCount(field string) (int, error) {
	p, done, err := f.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	cf := cstring(field)
	defer free(cf)
	return int(C.lake_folded_item_value_count((*C.lake_folded_item)(p), cf)), nil
}

// Value is value index of field: int64, float64, bool, string, JSON or
// Blob; an offloaded blob is Blob(nil) — read it with OpenBlob
// (lake_folded_item_value).
func (f *FoldedItem) Value(field string, index int) (any, error) {
	p, done, err := f.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	cf := cstring(field)
	defer free(cf)
	var v C.lake_value
	var e *C.lake_error
	if err := check(C.lake_folded_item_value((*C.lake_folded_item)(p), cf, C.size_t(index), &v, &e), e); err != nil {
		return nil, err
	}
	bytes := func() []byte {
		if v.bytes == nil {
			return nil
		}
		return C.GoBytes(v.bytes, C.int(v.len))
	}
	switch v.kind {
	case C.LAKE_VALUE_INT:
		return int64(v.i64), nil
	case C.LAKE_VALUE_FLOAT:
		return float64(v.f64), nil
	case C.LAKE_VALUE_BOOL:
		return v.boolean != 0, nil
	case C.LAKE_VALUE_STR:
		return string(bytes()), nil
	case C.LAKE_VALUE_JSON:
		return JSON(bytes()), nil
	}
	return Blob(bytes()), nil
}

// OpenBlob opens a verified reader over blob value index of field
// (lake_folded_item_open_blob); a child of the item.
func (f *FoldedItem) OpenBlob(field string, index int) (*Reader, error) {
	ptrs, done, err := useAll(f.log.h, f.h)
	if err != nil {
		return nil, err
	}
	defer done()
	cf := cstring(field)
	defer free(cf)
	var out *C.lake_reader
	var e *C.lake_error
	if err := check(C.lake_folded_item_open_blob((*C.lake_event_log)(ptrs[0]), (*C.lake_folded_item)(ptrs[1]), cf, C.size_t(index), &out, &e), e); err != nil {
		return nil, err
	}
	return newReader(out, f.log.db.host, f.h), nil
}

// Close frees the item and its blob readers (lake_folded_item_free).
func (f *FoldedItem) Close() error { return f.h.close() }
