package lake

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// handle is the Go side of one lake handle: the pointer, the lock every
// call holds, and the family lake.h orders its frees by.
//
// Invariants: ptr is nil exactly when the handle is closed; ptr is read
// only under mu (shared for calls on thread-safe handles, exclusive for
// calls on one-thread-at-a-time handles and for close); a handle's
// children are closed before it is released; a handle is in each parent's
// kids set until it is closed.
type handle struct {
	kind      string
	exclusive bool // lake.h allows one thread at a time
	release   func(unsafe.Pointer) error
	onClose   []func() // run after release: frees what the binding kept for it

	mu   sync.RWMutex
	ptr  unsafe.Pointer
	open atomic.Bool

	family  sync.Mutex
	kids    map[*handle]struct{}
	parents []*handle
}

var (
	openHandles   atomic.Int64
	leakedHandles atomic.Int64
	// nativeEntries counts the calls that passed a handle's closed check
	// on their way into lake (tests read it to prove a closed handle never
	// calls lake).
	nativeEntries atomic.Int64
)

// OpenHandles is the number of handles this binding has open (made and not
// yet closed, by their own Close or a parent's).
func OpenHandles() int64 { return openHandles.Load() }

// LeakedHandles is the number of handles the garbage collector found
// unreachable while still open. Their lake memory is never freed.
func LeakedHandles() int64 { return leakedHandles.Load() }

// newHandle wraps ptr; the caller holds every parent's lock (so no parent
// can be closing).
func newHandle(kind string, ptr unsafe.Pointer, exclusive bool,
	release func(unsafe.Pointer) error, parents ...*handle) *handle {
	h := &handle{kind: kind, exclusive: exclusive, release: release, ptr: ptr}
	h.open.Store(true)
	for _, p := range parents {
		if p == nil {
			continue
		}
		h.parents = append(h.parents, p)
		p.family.Lock()
		if p.kids == nil {
			p.kids = map[*handle]struct{}{}
		}
		p.kids[h] = struct{}{}
		p.family.Unlock()
	}
	openHandles.Add(1)
	runtime.SetFinalizer(h, reportLeak)
	return h
}

func reportLeak(h *handle) {
	if h.open.Load() {
		leakedHandles.Add(1)
		fmt.Fprintf(os.Stderr, "lake: a %s was garbage collected without Close; it leaks\n", h.kind)
	}
}

// adopt makes h a child of parent (both locked by the caller), as when
// options are given a cancel token after they were made.
func (h *handle) adopt(parent *handle) {
	parent.family.Lock()
	if parent.kids == nil {
		parent.kids = map[*handle]struct{}{}
	}
	parent.kids[h] = struct{}{}
	parent.family.Unlock()
	h.parents = append(h.parents, parent)
}

// disown undoes adopt: h is no longer parent's child.
func (h *handle) disown(parent *handle) {
	parent.family.Lock()
	delete(parent.kids, h)
	parent.family.Unlock()
	for i, p := range h.parents {
		if p == parent {
			h.parents = append(h.parents[:i], h.parents[i+1:]...)
			break
		}
	}
}

// use enters a call: it locks the handle (shared or exclusive) and returns
// its pointer and the unlock, or ErrClosed.
func (h *handle) use() (unsafe.Pointer, func(), error) {
	if h.exclusive {
		h.mu.Lock()
		if h.ptr == nil {
			h.mu.Unlock()
			return nil, nil, ErrClosed
		}
		nativeEntries.Add(1)
		return h.ptr, h.mu.Unlock, nil
	}
	h.mu.RLock()
	if h.ptr == nil {
		h.mu.RUnlock()
		return nil, nil, ErrClosed
	}
	nativeEntries.Add(1)
	return h.ptr, h.mu.RUnlock, nil
}

// useAll enters a call on several handles, locking them in the order
// given (ancestors before descendants: token, options, stage or db,
// statement), and returns their pointers. A nil handle gives a nil
// pointer.
func useAll(hs ...*handle) ([]unsafe.Pointer, func(), error) {
	ptrs := make([]unsafe.Pointer, len(hs))
	var unlocks []func()
	done := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	for i, h := range hs {
		if h == nil {
			continue
		}
		p, unlock, err := h.use()
		if err != nil {
			done()
			return nil, nil, err
		}
		ptrs[i] = p
		unlocks = append(unlocks, unlock)
	}
	return ptrs, done, nil
}

// close closes the handle's children, then releases it; a second close is
// a no-op. It waits for calls in flight on the handle.
func (h *handle) close() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	if h.ptr == nil {
		h.mu.Unlock()
		return nil
	}
	for {
		h.family.Lock()
		var kid *handle
		for k := range h.kids {
			kid = k
			break
		}
		if kid != nil {
			delete(h.kids, kid)
		}
		h.family.Unlock()
		if kid == nil {
			break
		}
		kid.close()
	}
	var err error
	if h.release != nil {
		err = h.release(h.ptr)
	}
	h.ptr = nil
	h.open.Store(false)
	for _, f := range h.onClose {
		f()
	}
	h.onClose = nil
	h.mu.Unlock()
	for _, p := range h.parents {
		p.family.Lock()
		delete(p.kids, h)
		p.family.Unlock()
	}
	h.parents = nil
	openHandles.Add(-1)
	// A closed handle cannot leak: drop the finalizer, so the collector
	// frees it in one cycle.
	runtime.SetFinalizer(h, nil)
	return err
}

// closed reports whether the handle was closed (for tests and Stringers).
func (h *handle) closed() bool { return !h.open.Load() }
