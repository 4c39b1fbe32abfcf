package lake

// #include <stdlib.h>
// #include "trampolines.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// GcOptions configure GcPlan, GcApply and GcVerify (lake_gc_options). One
// goroutine at a time; a child of its cancel token.
type GcOptions struct {
	h        *handle
	token    *CancelToken
	progress *gcProgressState
}

// NewGcOptions makes default options (lake_gc_options_new).
func NewGcOptions() (*GcOptions, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	o := &GcOptions{}
	o.h = newHandle("GcOptions", unsafe.Pointer(C.lake_gc_options_new()), true, func(p unsafe.Pointer) error {
		C.lake_gc_options_free((*C.lake_gc_options)(p))
		return nil
	})
	o.h.onClose = append(o.h.onClose, func() {
		if o.progress != nil {
			o.progress.drop()
		}
	})
	return o, nil
}

func (o *GcOptions) set(call func(*C.lake_gc_options, **C.lake_error) C.lake_status) error {
	defer runtime.KeepAlive(o)
	return checkedCall(o.h, call)
}

// SetCutoffSeconds sets the cutoff (lake_gc_options_set_cutoff_seconds).
func (o *GcOptions) SetCutoffSeconds(seconds uint64) error {
	return o.set(func(p *C.lake_gc_options, _ **C.lake_error) C.lake_status {
		C.lake_gc_options_set_cutoff_seconds(p, C.uint64_t(seconds))
		return C.LAKE_OK
	})
}

// SetAllowShortCutoff allows cutoffs under 24 hours
// (lake_gc_options_set_allow_short_cutoff).
func (o *GcOptions) SetAllowShortCutoff(allow bool) error {
	return o.set(func(p *C.lake_gc_options, _ **C.lake_error) C.lake_status {
		C.lake_gc_options_set_allow_short_cutoff(p, cbool(allow))
		return C.LAKE_OK
	})
}

// SetMemoryBudget caps the sorts' memory (lake_gc_options_set_memory_budget).
func (o *GcOptions) SetMemoryBudget(bytes uint64) error {
	return o.set(func(p *C.lake_gc_options, e **C.lake_error) C.lake_status {
		return C.lake_gc_options_set_memory_budget(p, C.uint64_t(bytes), e)
	})
}

// SetTempDir sets where sorts spill (lake_gc_options_set_temp_dir).
func (o *GcOptions) SetTempDir(dir string) error {
	cdir := cstring(dir)
	defer free(cdir)
	return o.set(func(p *C.lake_gc_options, e **C.lake_error) C.lake_status {
		return C.lake_gc_options_set_temp_dir(p, cdir, e)
	})
}

// SetMaxDeletesPerSecond limits an S3 apply's deletes
// (lake_gc_options_set_max_deletes_per_second).
func (o *GcOptions) SetMaxDeletesPerSecond(n uint64) error {
	return o.set(func(p *C.lake_gc_options, _ **C.lake_error) C.lake_status {
		C.lake_gc_options_set_max_deletes_per_second(p, C.uint64_t(n))
		return C.LAKE_OK
	})
}

// SetProgress calls fn with each phase's progress
// (lake_gc_options_set_progress).
func (o *GcOptions) SetProgress(fn func(phase string, done, total uint64)) error {
	return o.set(func(p *C.lake_gc_options, _ **C.lake_error) C.lake_status {
		C.lake_gc_options_set_progress(p, C.lk_gc_progress_fn(), replaceState(&o.progress, &gcProgressState{fn: fn}).ctx())
		return C.LAKE_OK
	})
}

// SetCancelToken makes the collection watch token
// (lake_gc_options_set_cancel_token); the options become its child.
func (o *GcOptions) SetCancelToken(token *CancelToken) error {
	ptrs, done, err := useAll(token.h, o.h)
	if err != nil {
		return err
	}
	defer done()
	C.lake_gc_options_set_cancel_token((*C.lake_gc_options)(ptrs[1]), (*C.lake_cancel_token)(ptrs[0]))
	if o.token != token {
		if o.token != nil {
			o.h.disown(o.token.h) // the options borrow only the token they were last given
		}
		o.h.adopt(token.h)
	}
	o.token = token
	return nil
}

// Close frees the options (lake_gc_options_free).
func (o *GcOptions) Close() error { return o.h.close() }

// gcCall runs a collection call with optional options, locking token,
// options and root.
func (d *Db) gcCall(opts *GcOptions, extra []callbackState, call func(*C.lake_db, *C.lake_gc_options, **C.lake_error) C.lake_status) error {
	var th, oh *handle
	if opts != nil {
		oh = opts.h
		if opts.token != nil {
			th = opts.token.h
		}
	}
	ptrs, done, err := useAll(th, oh, d.h)
	if err != nil {
		return err
	}
	defer done()
	var e *C.lake_error
	err = check(call((*C.lake_db)(ptrs[2]), (*C.lake_gc_options)(ptrs[1]), &e), e)
	runtime.KeepAlive(d)
	runtime.KeepAlive(opts)
	if opts != nil && opts.progress != nil {
		extra = append(extra, opts.progress)
	}
	return withCallbacks(err, d.states(extra...)...)
}

// GcPlan writes a collection plan and returns its summary JSON
// (lake_gc_plan); opts may be nil.
func (d *Db) GcPlan(opts *GcOptions) (string, error) {
	var out *C.char
	err := d.gcCall(opts, nil, func(p *C.lake_db, o *C.lake_gc_options, e **C.lake_error) C.lake_status {
		return C.lake_gc_plan(p, o, &out, e)
	})
	return takeString(out), err
}

// GcApply deletes a plan's candidates and returns its final status JSON
// (lake_gc_apply).
func (d *Db) GcApply(planID string, opts *GcOptions) (string, error) {
	cid := cstring(planID)
	defer free(cid)
	var out *C.char
	err := d.gcCall(opts, nil, func(p *C.lake_db, o *C.lake_gc_options, e **C.lake_error) C.lake_status {
		return C.lake_gc_apply(p, cid, o, &out, e)
	})
	return takeString(out), err
}

// GcShow calls fn with every candidate of a plan (false stops it) and
// returns its status JSON (lake_gc_show).
func (d *Db) GcShow(planID string, fn func(GcCandidate) bool) (string, error) {
	cid := cstring(planID)
	defer free(cid)
	state := register(&gcCandidateState{fn: fn})
	defer state.drop()
	var out *C.char
	err := d.gcCall(nil, []callbackState{state}, func(p *C.lake_db, _ *C.lake_gc_options, e **C.lake_error) C.lake_status {
		return C.lake_gc_show(p, cid, C.lk_gc_candidate_fn(), state.ctx(), &out, e)
	})
	return takeString(out), err
}

// GcStatus gives the kept plans ("" for all) or one, as JSON
// (lake_gc_status).
func (d *Db) GcStatus(planID string) (string, error) {
	var cid *C.char
	if planID != "" {
		cid = cstring(planID)
		defer free(cid)
	}
	var out *C.char
	err := d.gcCall(nil, nil, func(p *C.lake_db, _ *C.lake_gc_options, e **C.lake_error) C.lake_status {
		return C.lake_gc_status(p, cid, &out, e)
	})
	return takeString(out), err
}

// GcVerify scrubs the root, calling fn (may be nil) with each problem, and
// returns its summary JSON (lake_gc_verify).
func (d *Db) GcVerify(deep bool, opts *GcOptions, fn func(GcProblem) bool) (string, error) {
	var state *gcProblemState
	var extra []callbackState
	fnPtr, ctx := C.lake_gc_problem_fn(nil), unsafe.Pointer(nil)
	if fn != nil {
		state = register(&gcProblemState{fn: fn})
		defer state.drop()
		extra = append(extra, state)
		fnPtr, ctx = C.lk_gc_problem_fn(), state.ctx()
	}
	var out *C.char
	err := d.gcCall(opts, extra, func(p *C.lake_db, o *C.lake_gc_options, e **C.lake_error) C.lake_status {
		return C.lake_gc_verify(p, cbool(deep), o, fnPtr, ctx, &out, e)
	})
	return takeString(out), err
}
