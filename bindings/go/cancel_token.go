package lake

// #include "lake.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// CancelToken cancels the operations it is given to (lake_cancel_token).
// Safe for concurrent use. Closing it first closes what borrows it: the
// UploadOptions and GcOptions it was set on and the Writers opened with
// them, as lake.h requires the token to outlive them.
type CancelToken struct{ h *handle }

// NewCancelToken makes a token (lake_cancel_token_new).
func NewCancelToken() (*CancelToken, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	p := C.lake_cancel_token_new()
	return &CancelToken{h: newHandle("CancelToken", unsafe.Pointer(p), false, func(p unsafe.Pointer) error {
		C.lake_cancel_token_free((*C.lake_cancel_token)(p))
		return nil
	})}, nil
}

// Cancel fires the token (lake_cancel_token_cancel).
func (t *CancelToken) Cancel() error {
	p, done, err := t.h.use()
	if err != nil {
		return err
	}
	defer done()
	C.lake_cancel_token_cancel((*C.lake_cancel_token)(p))
	runtime.KeepAlive(t)
	return nil
}

// Cancelled reports whether the token fired (lake_cancel_token_is_cancelled).
func (t *CancelToken) Cancelled() (bool, error) {
	p, done, err := t.h.use()
	if err != nil {
		return false, err
	}
	defer done()
	c := C.lake_cancel_token_is_cancelled((*C.lake_cancel_token)(p)) != 0
	runtime.KeepAlive(t)
	return c, nil
}

// Close frees the token after closing what borrows it
// (lake_cancel_token_free).
func (t *CancelToken) Close() error { return t.h.close() }
