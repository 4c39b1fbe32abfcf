package lake

// #include "lake.h"
import "C"

import (
	"errors"
	"fmt"
)

// Status is a lake_status. Each failing status is also an error value, so
// errors.Is(err, lake.NotFound) tells which status a call failed with.
type Status int

const (
	OK              Status = C.LAKE_OK
	InvalidArgument Status = C.LAKE_INVALID_ARGUMENT
	Integrity       Status = C.LAKE_INTEGRITY
	Conflict        Status = C.LAKE_CONFLICT
	IO              Status = C.LAKE_IO
	NotFound        Status = C.LAKE_NOT_FOUND
	Cancelled       Status = C.LAKE_CANCELLED
	Internal        Status = C.LAKE_INTERNAL
	Unsupported     Status = C.LAKE_UNSUPPORTED
)

// Name is lake's constant name of the status ("LAKE_INTEGRITY").
func (s Status) Name() string { return C.GoString(C.lake_status_name(C.lake_status(s))) }

func (s Status) Error() string { return "lake: " + s.Name() }

// statusOf maps a code from lake to a Status; a code this binding does not
// know is Internal.
func statusOf(code int) Status {
	if code < int(OK) || code > int(Unsupported) {
		return Internal
	}
	return Status(code)
}

// IntegrityKind is a lake_integrity_kind: why an object failed verification.
type IntegrityKind int

const (
	IntegrityNone            IntegrityKind = C.LAKE_INTEGRITY_NONE
	IntegritySizeShort       IntegrityKind = C.LAKE_INTEGRITY_SIZE_SHORT
	IntegritySizeLong        IntegrityKind = C.LAKE_INTEGRITY_SIZE_LONG
	IntegrityDigestMismatch  IntegrityKind = C.LAKE_INTEGRITY_DIGEST_MISMATCH
	IntegrityPrematureEOF    IntegrityKind = C.LAKE_INTEGRITY_PREMATURE_EOF
	IntegrityInvalidLocation IntegrityKind = C.LAKE_INTEGRITY_INVALID_LOCATION
	IntegrityObjectChanged   IntegrityKind = C.LAKE_INTEGRITY_OBJECT_CHANGED
)

// String is lake's name of the kind ("DigestMismatch").
func (k IntegrityKind) String() string {
	return C.GoString(C.lake_integrity_kind_name(C.lake_integrity_kind(k)))
}

// Error is a failure lake reported, with everything lake_error carries.
// Use errors.As(err, &e) with e *lake.Error to read it.
type Error struct {
	Code               Status
	Message            string // lake_error_message
	IntegrityKind      IntegrityKind
	Expected, Observed uint64 // byte counts of an integrity failure
	Retryable          bool
	PendingOperationID string // "" when lake gives none
}

func (e *Error) Error() string { return fmt.Sprintf("lake: %s: %s", e.Code.Name(), e.Message) }

// Is reports whether target is e's Status.
func (e *Error) Is(target error) bool {
	s, ok := target.(Status)
	return ok && s == e.Code
}

// errorFrom copies a lake_error into an *Error and frees it.
func errorFrom(status C.lake_status, e *C.lake_error) *Error {
	if e == nil {
		return &Error{Code: statusOf(int(status)), Message: Status(statusOf(int(status))).Name()}
	}
	defer C.lake_error_free(e)
	out := &Error{
		Code:          statusOf(int(C.lake_error_code(e))),
		Message:       C.GoString(C.lake_error_message(e)),
		IntegrityKind: IntegrityKind(C.lake_error_integrity_kind(e)),
		Expected:      uint64(C.lake_error_expected(e)),
		Observed:      uint64(C.lake_error_observed(e)),
		Retryable:     C.lake_error_retryable(e) != 0,
	}
	if id := C.lake_error_pending_operation_id(e); id != nil {
		out.PendingOperationID = C.GoString(id)
	}
	return out
}

// check turns a call's status and error into a Go error (nil for LAKE_OK).
func check(status C.lake_status, e *C.lake_error) error {
	if status == C.LAKE_OK {
		return nil
	}
	return errorFrom(status, e)
}

// checkedCall runs one lake call that reports through a status and an error
// out-parameter on h's object (a *T), with h in use, and returns its error.
func checkedCall[T any](h *handle, call func(*T, **C.lake_error) C.lake_status) error {
	p, done, err := h.use()
	if err != nil {
		return err
	}
	defer done()
	var e *C.lake_error
	return check(call((*T)(p), &e), e)
}

// ErrClosed is the error of a handle used after it, or a parent, was
// closed. lake is not called.
var ErrClosed = errors.New("lake: handle is closed")

// CallbackError is the error of a call whose callback (a read source, a
// progress function, a host store) panicked or returned an error. Panic
// holds the recovered value (nil for an error), Err the callback's error
// (or the panic as an error), Lake the error lake then reported (nil when
// lake's call succeeded anyway). errors.As finds Lake as an *Error;
// errors.Is looks through Err.
type CallbackError struct {
	Panic any
	Err   error
	Lake  *Error
}

func (e *CallbackError) Error() string {
	msg := "lake: callback failed: " + e.Err.Error()
	if e.Lake != nil {
		msg += " (" + e.Lake.Error() + ")"
	}
	return msg
}

func (e *CallbackError) Unwrap() error { return e.Err }

// As lets errors.As find lake's error behind the callback's.
func (e *CallbackError) As(target any) bool {
	if t, ok := target.(**Error); ok && e.Lake != nil {
		*t = e.Lake
		return true
	}
	return false
}

// Is matches lake's status too.
func (e *CallbackError) Is(target error) bool {
	s, ok := target.(Status)
	return ok && e.Lake != nil && e.Lake.Code == s
}

// PanicValue is the error form of a recovered panic.
type PanicValue struct{ Value any }

func (p *PanicValue) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// errorOfCode is the error of a status code without a lake_error (how the
// binding maps a code alone).
func errorOfCode(code int) *Error { return errorFrom(C.lake_status(code), nil) }
