package lake

// #include "lake.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Writer is a push upload (lake_writer), an io.Writer. Publish makes the
// object durable and visible and returns its location; Close without
// Publish discards the upload. Calls are serialised.
type Writer struct {
	h      *handle
	stage  *Stage
	states []callbackState // the options' callbacks, kept for the writer's life
}

func newWriter(p *C.lake_writer, s *Stage, opts *UploadOptions, token *handle) *Writer {
	w := &Writer{stage: s}
	// The writer keeps the options' callbacks alive: lake may call them
	// until the writer is closed, after the options are closed.
	for _, st := range opts.states() {
		st.base().retain()
		w.states = append(w.states, st)
	}
	w.h = newHandle("Writer", unsafe.Pointer(p), true, func(p unsafe.Pointer) error {
		C.lake_writer_free((*C.lake_writer)(p))
		return nil
	}, s.h, token)
	w.h.onClose = append(w.h.onClose, func() {
		for _, st := range w.states {
			st.base().drop()
		}
	})
	return w
}

// Write uploads p (lake_writer_write).
func (w *Writer) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	ptr, done, err := w.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	var e *C.lake_error
	err = check(C.lake_writer_write((*C.lake_writer)(ptr), unsafe.Pointer(&p[0]), C.size_t(len(p)), &e), e)
	runtime.KeepAlive(p)
	if err = withCallbacks(err, w.stage.states(w.states...)...); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Publish closes the upload and publishes the object (lake_writer_close),
// then frees the writer.
func (w *Writer) Publish() (*Location, error) {
	ptr, done, err := w.h.use()
	if err != nil {
		return nil, err
	}
	var out *C.lake_location
	var e *C.lake_error
	err = check(C.lake_writer_close((*C.lake_writer)(ptr), &out, &e), e)
	done()
	loc, err := w.stage.located(out, err, w.states...)
	if cerr := w.h.close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return loc, err
}

// Close frees the writer; an unpublished upload is discarded
// (lake_writer_free).
func (w *Writer) Close() error { return w.h.close() }
