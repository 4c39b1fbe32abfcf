package lake

// #include <string.h>
// #include "trampolines.h"
import "C"

import (
	"errors"
	"fmt"
	"io"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"
)

// cbBase is what every callback's state shares: the cgo.Handle C receives
// as its context (deleted when the last holder drops it) and the first
// failure (panic or error) of the callback, which the Go call that
// invoked lake returns.
type cbBase struct {
	handle cgo.Handle
	refs   atomic.Int32
	mu     sync.Mutex
	failed *CallbackError
}

type callbackState interface{ base() *cbBase }

func (b *cbBase) base() *cbBase { return b }

// register gives s its cgo.Handle, held once by the caller.
func register[T callbackState](s T) T {
	b := s.base()
	b.handle = cgo.NewHandle(s)
	b.refs.Store(1)
	return s
}

func (b *cbBase) retain() { b.refs.Add(1) }

// replaceState registers next as *slot, dropping the state it replaces (a
// setter called again), and returns it.
func replaceState[P interface {
	*T
	callbackState
}, T any](slot *P, next P) P {
	if *slot != nil {
		(*slot).base().drop()
	}
	*slot = register(next)
	return *slot
}

func (b *cbBase) drop() {
	if b.refs.Add(-1) == 0 {
		b.handle.Delete()
	}
}

func (b *cbBase) ctx() unsafe.Pointer { return C.lk_ctx(C.uintptr_t(b.handle)) }

// fail records a panic value or an error (the first one wins).
func (b *cbBase) fail(panicked any, err error) {
	if err == nil {
		err = &PanicValue{Value: panicked}
	}
	b.mu.Lock()
	if b.failed == nil {
		b.failed = &CallbackError{Panic: panicked, Err: err}
	}
	b.mu.Unlock()
}

// take returns and clears the recorded failure.
func (b *cbBase) take() *CallbackError {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.failed
	b.failed = nil
	return f
}

// withCallbacks merges a call's error with its callbacks' failures: a
// callback's failure wins, carrying lake's error.
func withCallbacks(err error, states ...callbackState) error {
	for _, s := range states {
		if s == nil || s.base() == nil {
			continue
		}
		if f := s.base().take(); f != nil {
			var le *Error
			if errors.As(err, &le) {
				f.Lake = le
			}
			return f
		}
	}
	return err
}

func stateOf[T any](ctx unsafe.Pointer) T {
	return cgo.Handle(uintptr(ctx)).Value().(T)
}

// readSource is an io.Reader lake pulls from (lake_read_fn).
type readSource struct {
	cbBase
	r       io.Reader
	pending error // an error a Read returned with bytes, reported next
}

func newReadSource(r io.Reader) *readSource { return register(&readSource{r: r}) }

//export lakeGoRead
func lakeGoRead(ctx unsafe.Pointer, buf *C.uint8_t, capacity C.size_t) (n C.int64_t) {
	s := stateOf[*readSource](ctx)
	defer func() {
		if p := recover(); p != nil {
			s.fail(p, nil)
			n = -1
		}
	}()
	if capacity == 0 {
		return 0
	}
	if s.pending != nil {
		if s.pending == io.EOF {
			return 0
		}
		s.fail(nil, s.pending)
		return -1
	}
	p := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(capacity))
	for tries := 0; tries < 100; tries++ {
		k, err := s.r.Read(p)
		if k > 0 {
			s.pending = err
			return C.int64_t(k)
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			s.fail(nil, err)
			return -1
		}
	}
	s.fail(nil, io.ErrNoProgress)
	return -1
}

// progressState is a progress function (lake_progress_fn).
type progressState struct {
	cbBase
	fn func(done, total uint64)
}

//export lakeGoProgress
func lakeGoProgress(ctx unsafe.Pointer, done, total C.uint64_t) {
	s := stateOf[*progressState](ctx)
	defer func() {
		if p := recover(); p != nil {
			s.fail(p, nil)
		}
	}()
	s.fn(uint64(done), uint64(total))
}

// noticeState receives notices of resumable uploads (lake_notice_fn).
type noticeState struct {
	cbBase
	fn func(line string)
}

//export lakeGoNotice
func lakeGoNotice(ctx unsafe.Pointer, line *C.char) {
	s := stateOf[*noticeState](ctx)
	defer func() {
		if p := recover(); p != nil {
			s.fail(p, nil)
		}
	}()
	s.fn(C.GoString(line))
}

// ListEntry is one published object of a listing.
type ListEntry struct {
	URI            string
	SizeBytes      uint64
	ModifiedMicros int64 // Unix microseconds
}

// listState receives a listing's entries (lake_list_fn); fn returns false
// to stop.
type listState struct {
	cbBase
	fn func(ListEntry) bool
}

//export lakeGoListEntry
func lakeGoListEntry(ctx unsafe.Pointer, uri *C.char, size C.uint64_t, modified C.int64_t) (stop C.int) {
	s := stateOf[*listState](ctx)
	defer func() {
		if p := recover(); p != nil {
			s.fail(p, nil)
			stop = 1
		}
	}()
	if s.fn(ListEntry{URI: C.GoString(uri), SizeBytes: uint64(size), ModifiedMicros: int64(modified)}) {
		return 0
	}
	return 1
}

// UploadInfo is one resumable upload checkpoint (lake_upload_info).
type UploadInfo struct {
	ID, SourcePath, URI                        string
	PartsDone, BytesDone, SizeBytes, PartBytes uint64
	UpdatedMicros                              int64
	Stale, Locked                              bool
	Error                                      string // why it cannot be read, "" if it can
}

type uploadInfoState struct {
	cbBase
	fn func(UploadInfo) bool
}

//export lakeGoUploadInfo
func lakeGoUploadInfo(ctx unsafe.Pointer, info *C.lake_upload_info) (stop C.int) {
	s := stateOf[*uploadInfoState](ctx)
	defer func() {
		if p := recover(); p != nil {
			s.fail(p, nil)
			stop = 1
		}
	}()
	u := UploadInfo{
		ID: goStr(info.id), SourcePath: goStr(info.source_path), URI: goStr(info.uri),
		PartsDone: uint64(info.parts_done), BytesDone: uint64(info.bytes_done),
		SizeBytes: uint64(info.size_bytes), PartBytes: uint64(info.part_bytes),
		UpdatedMicros: int64(info.updated_unix_micros), Stale: info.stale != 0,
		Locked: info.locked != 0, Error: goStr(info.error),
	}
	if s.fn(u) {
		return 0
	}
	return 1
}

func goStr(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

type gcProgressState struct {
	cbBase
	fn func(phase string, done, total uint64)
}

//export lakeGoGcProgress
func lakeGoGcProgress(ctx unsafe.Pointer, phase *C.char, done, total C.uint64_t) {
	s := stateOf[*gcProgressState](ctx)
	defer func() {
		if p := recover(); p != nil {
			s.fail(p, nil)
		}
	}()
	s.fn(C.GoString(phase), uint64(done), uint64(total))
}

// GcCandidate is one candidate of a garbage collection plan.
type GcCandidate struct {
	URI            string
	Kind           string // "object", "table_file" or "multipart_upload"
	SizeBytes      uint64
	ModifiedMicros int64
	Tenant         string
}

type gcCandidateState struct {
	cbBase
	fn func(GcCandidate) bool
}

//export lakeGoGcCandidate
func lakeGoGcCandidate(ctx unsafe.Pointer, c *C.lake_gc_candidate) (stop C.int) {
	s := stateOf[*gcCandidateState](ctx)
	defer func() {
		if p := recover(); p != nil {
			s.fail(p, nil)
			stop = 1
		}
	}()
	if s.fn(GcCandidate{URI: goStr(c.uri), Kind: goStr(c.kind), SizeBytes: uint64(c.size_bytes),
		ModifiedMicros: int64(c.modified_unix_micros), Tenant: goStr(c.tenant)}) {
		return 0
	}
	return 1
}

// GcProblem is one problem a scrub (Db.GcVerify) found.
type GcProblem struct {
	URI, Problem               string
	ExpectedSize, ObservedSize uint64
	Message                    string
	Referrers                  []string
	MoreReferrers              uint64
}

type gcProblemState struct {
	cbBase
	fn func(GcProblem) bool
}

//export lakeGoGcProblem
func lakeGoGcProblem(ctx unsafe.Pointer, p *C.lake_gc_problem) (stop C.int) {
	s := stateOf[*gcProblemState](ctx)
	defer func() {
		if r := recover(); r != nil {
			s.fail(r, nil)
			stop = 1
		}
	}()
	g := GcProblem{URI: goStr(p.uri), Problem: goStr(p.problem),
		ExpectedSize: uint64(p.expected_size), ObservedSize: uint64(p.observed_size),
		Message: goStr(p.message), MoreReferrers: uint64(p.more_referrers)}
	if p.referrer_count > 0 {
		refs := unsafe.Slice(p.referrers, int(p.referrer_count))
		for _, r := range refs {
			g.Referrers = append(g.Referrers, goStr(r))
		}
	}
	if s.fn(g) {
		return 0
	}
	return 1
}

// HostStore is an object store written in Go that serves a stage
// (lake_host_store): lake keeps its policy (hashing, verification,
// containment) and the store only moves bytes. Methods may be called from
// any goroutine, concurrently. An error that errors.Is a Status (e.g.
// lake.NotFound) is reported with that status, any other as IO; a panic is
// recovered and becomes the error of the call that invoked the store.
type HostStore interface {
	// RootURI is the stage root ("file:///abs/dir" or "s3://bucket/prefix").
	RootURI() string
	// Upload stores body's bytes under uri, or nothing on failure.
	Upload(uri, contentType string, body io.Reader) error
	// Open streams the object's bytes from start.
	Open(uri string, start uint64) (io.ReadCloser, error)
	// List emits every object whose URI starts with prefix; emit returns
	// false to stop.
	List(prefix string, emit func(ListEntry) bool) error
	// Remove deletes the object; an absent one is no error.
	Remove(uri string) error
}

// hostState is a HostStore as lake's callback table sees it. Each
// successful open holds a reference, released by lake's destroy.
type hostState struct {
	cbBase
	store HostStore
}

func (s *hostState) report(err error, message *C.char, capacity C.size_t) C.int {
	status := IO
	var le *Error
	switch {
	case errors.As(err, &le):
		status = le.Code
	default:
		for _, st := range []Status{InvalidArgument, Integrity, Conflict, NotFound, Cancelled, Internal, Unsupported} {
			if errors.Is(err, st) {
				status = st
				break
			}
		}
	}
	writeMessage(err.Error(), message, capacity)
	return C.int(status)
}

func writeMessage(text string, message *C.char, capacity C.size_t) {
	if message == nil || capacity == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(message)), int(capacity))
	n := copy(b[:len(b)-1], text)
	b[n] = 0
}

// guard recovers a panic of a host callback into the store's failure and
// the status the callback returns.
func (s *hostState) guard(status *C.int, message *C.char, capacity C.size_t) {
	if p := recover(); p != nil {
		s.fail(p, nil)
		writeMessage(fmt.Sprintf("host store panicked: %v", p), message, capacity)
		*status = C.int(IO)
	}
}

// hostBody is the reader lake hands an upload (a lake_read_fn).
type hostBody struct {
	fn  C.lake_read_fn
	ctx unsafe.Pointer
}

func (b *hostBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n := C.lk_call_read(b.fn, b.ctx, (*C.uint8_t)(unsafe.Pointer(&p[0])), C.size_t(len(p)))
	switch {
	case n < 0:
		return 0, errors.New("lake: the upload's source failed")
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

//export lakeGoHostUpload
func lakeGoHostUpload(ctx unsafe.Pointer, uri, contentType *C.char, read C.lake_read_fn,
	readCtx unsafe.Pointer, message *C.char, capacity C.size_t) (status C.int) {
	s := stateOf[*hostState](ctx)
	defer s.guard(&status, message, capacity)
	if err := s.store.Upload(C.GoString(uri), C.GoString(contentType), &hostBody{read, readCtx}); err != nil {
		return s.report(err, message, capacity)
	}
	return 0
}

// hostStream is an open stream of a host store; its cgo.Handle is the
// stream pointer lake holds.
type hostStream struct{ r io.ReadCloser }

//export lakeGoHostOpen
func lakeGoHostOpen(ctx unsafe.Pointer, uri *C.char, start C.uint64_t, stream *C.uintptr_t,
	message *C.char, capacity C.size_t) (status C.int) {
	s := stateOf[*hostState](ctx)
	defer s.guard(&status, message, capacity)
	r, err := s.store.Open(C.GoString(uri), uint64(start))
	if err != nil {
		return s.report(err, message, capacity)
	}
	*stream = C.uintptr_t(cgo.NewHandle(&hostStream{r: r}))
	return 0
}

//export lakeGoHostRead
func lakeGoHostRead(ctx unsafe.Pointer, stream C.uintptr_t, buf *C.uint8_t, capacity C.size_t,
	n *C.size_t, message *C.char, msgCap C.size_t) (status C.int) {
	s := stateOf[*hostState](ctx)
	defer s.guard(&status, message, msgCap)
	hs := cgo.Handle(stream).Value().(*hostStream)
	*n = 0
	if capacity == 0 {
		return 0
	}
	p := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(capacity))
	for tries := 0; tries < 100; tries++ {
		k, err := hs.r.Read(p)
		if k > 0 {
			*n = C.size_t(k)
			return 0
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			return s.report(err, message, msgCap)
		}
	}
	return s.report(io.ErrNoProgress, message, msgCap)
}

//export lakeGoHostClose
func lakeGoHostClose(ctx unsafe.Pointer, stream C.uintptr_t) {
	s := stateOf[*hostState](ctx)
	var ignored C.int
	defer s.guard(&ignored, nil, 0)
	if stream == 0 {
		return
	}
	h := cgo.Handle(stream)
	hs := h.Value().(*hostStream)
	h.Delete()
	hs.r.Close()
}

//export lakeGoHostList
func lakeGoHostList(ctx unsafe.Pointer, prefix *C.char, emit C.lake_list_fn, emitCtx unsafe.Pointer,
	message *C.char, capacity C.size_t) (status C.int) {
	s := stateOf[*hostState](ctx)
	defer s.guard(&status, message, capacity)
	err := s.store.List(C.GoString(prefix), func(e ListEntry) bool {
		uri := C.CString(e.URI)
		defer C.free(unsafe.Pointer(uri))
		return C.lk_call_list_emit(emit, emitCtx, uri, C.uint64_t(e.SizeBytes), C.int64_t(e.ModifiedMicros)) == 0
	})
	if err != nil {
		return s.report(err, message, capacity)
	}
	return 0
}

//export lakeGoHostRemove
func lakeGoHostRemove(ctx unsafe.Pointer, uri *C.char, message *C.char, capacity C.size_t) (status C.int) {
	s := stateOf[*hostState](ctx)
	defer s.guard(&status, message, capacity)
	if err := s.store.Remove(C.GoString(uri)); err != nil {
		return s.report(err, message, capacity)
	}
	return 0
}

//export lakeGoHostDestroy
func lakeGoHostDestroy(ctx unsafe.Pointer) {
	stateOf[*hostState](ctx).drop()
}
