package lake

// #include "lake.h"
import "C"

import (
	"io"
	"runtime"
	"unsafe"
)

// Reader is a verified full read or a range read (lake_reader), an
// io.Reader: Read returns io.EOF only at the verified (or complete) end,
// and an *Error of status Integrity when the bytes are not the object's.
// Calls from several goroutines are serialised; Close waits for a Read in
// flight.
type Reader struct {
	h    *handle
	host *hostState
}

func newReader(p *C.lake_reader, host *hostState, parents ...*handle) *Reader {
	return &Reader{host: host, h: newHandle("Reader", unsafe.Pointer(p), true, func(p unsafe.Pointer) error {
		var e *C.lake_error
		err := check(C.lake_reader_close((*C.lake_reader)(p), &e), e)
		C.lake_reader_free((*C.lake_reader)(p))
		return err
	}, parents...)}
}

func (r *Reader) states() []callbackState {
	if r.host == nil {
		return nil
	}
	return []callbackState{r.host}
}

// Read reads up to len(p) bytes (lake_reader_read).
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	ptr, done, err := r.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	var n C.size_t
	var e *C.lake_error
	err = check(C.lake_reader_read((*C.lake_reader)(ptr), unsafe.Pointer(&p[0]), C.size_t(len(p)), &n, &e), e)
	runtime.KeepAlive(p)
	if err != nil {
		return int(n), withCallbacks(err, r.states()...)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return int(n), nil
}

// WriteTo copies the reader's bytes to w without an intermediate copy
// (lake_reader_read_view), so io.Copy reads straight from lake's buffers.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		ptr, done, err := r.h.use()
		if err != nil {
			return total, err
		}
		var data unsafe.Pointer
		var n C.size_t
		var e *C.lake_error
		err = check(C.lake_reader_read_view((*C.lake_reader)(ptr), &data, 1<<20, &n, &e), e)
		if err != nil {
			done()
			return total, withCallbacks(err, r.states()...)
		}
		if n == 0 {
			done()
			return total, nil
		}
		k, werr := w.Write(unsafe.Slice((*byte)(data), int(n)))
		done()
		total += int64(k)
		if werr != nil {
			return total, werr
		}
	}
}

// Verified reports whether a full read reached its verified end
// (lake_reader_verified); always false for range reads.
func (r *Reader) Verified() (bool, error) {
	ptr, done, err := r.h.use()
	if err != nil {
		return false, err
	}
	defer done()
	v := C.lake_reader_verified((*C.lake_reader)(ptr)) != 0
	runtime.KeepAlive(r)
	return v, nil
}

// Close releases the storage stream and frees the reader
// (lake_reader_close, lake_reader_free). Closing early claims nothing.
func (r *Reader) Close() error { return r.h.close() }
