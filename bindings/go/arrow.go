package lake

// #include <errno.h>
// #include <stdlib.h>
// #include <string.h>
// #include "trampolines.h"
import "C"

import (
	"fmt"
	"io"
	"unsafe"
)

// QueryResult is a SELECT's result: an Arrow C stream (ArrowArrayStream)
// read batch by batch with Next, or handed to another Arrow consumer with
// ExportArrowStream. One goroutine at a time. A child of its root; its
// batches are its children.
type QueryResult struct {
	h      *handle
	schema *C.struct_ArrowSchema // fetched once, freed with the result
}

func newQueryResult(stream *C.struct_ArrowArrayStream, db *handle) *QueryResult {
	r := &QueryResult{}
	r.h = newHandle("QueryResult", unsafe.Pointer(stream), true, func(p unsafe.Pointer) error {
		C.lk_stream_release((*C.struct_ArrowArrayStream)(p))
		C.free(p)
		if r.schema != nil {
			C.lk_schema_release(r.schema)
			C.free(unsafe.Pointer(r.schema))
			r.schema = nil
		}
		return nil
	}, db)
	return r
}

// streamError maps an Arrow stream callback's errno to lake's status:
// EBADMSG (damaged or missing data) is Integrity.
func streamError(stream *C.struct_ArrowArrayStream, code C.int) error {
	status := IO
	switch code {
	case C.EBADMSG:
		status = Integrity
	case C.EINVAL:
		status = InvalidArgument
	case C.ENOMEM:
		status = Internal
	}
	msg := fmt.Sprintf("arrow stream error %d", int(code))
	if m := C.lk_stream_last_error(stream); m != nil {
		msg = C.GoString(m)
	}
	return &Error{Code: status, Message: msg}
}

// ensureSchema fetches the stream's schema once; the caller holds r's lock.
func (r *QueryResult) ensureSchema(stream *C.struct_ArrowArrayStream) error {
	if r.schema != nil {
		return nil
	}
	schema := (*C.struct_ArrowSchema)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_ArrowSchema{}))))
	if code := C.lk_stream_get_schema(stream, schema); code != 0 {
		C.free(unsafe.Pointer(schema))
		return streamError(stream, code)
	}
	r.schema = schema
	return nil
}

// Columns are the result's column names.
func (r *QueryResult) Columns() ([]string, error) {
	p, done, err := r.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	if err := r.ensureSchema((*C.struct_ArrowArrayStream)(p)); err != nil {
		return nil, err
	}
	children := unsafe.Slice(r.schema.children, int(r.schema.n_children))
	names := make([]string, len(children))
	for i, c := range children {
		names[i] = goStr(c.name)
	}
	return names, nil
}

// Next returns the next batch, or io.EOF after the last one. A batch lives
// until it or the result is closed.
func (r *QueryResult) Next() (*Batch, error) {
	p, done, err := r.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	stream := (*C.struct_ArrowArrayStream)(p)
	if err := r.ensureSchema(stream); err != nil {
		return nil, err
	}
	array := (*C.struct_ArrowArray)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_ArrowArray{}))))
	if code := C.lk_stream_get_next(stream, array); code != 0 {
		C.free(unsafe.Pointer(array))
		return nil, streamError(stream, code)
	}
	if array.release == nil {
		C.free(unsafe.Pointer(array))
		return nil, io.EOF
	}
	b := &Batch{result: r, array: array}
	b.h = newHandle("Batch", unsafe.Pointer(array), false, func(p unsafe.Pointer) error {
		C.lk_array_release((*C.struct_ArrowArray)(p))
		C.free(p)
		return nil
	}, r.h)
	return b, nil
}

// ExportArrowStream moves the result's Arrow C stream into dst, a struct
// ArrowArrayStream the consumer allocated (the Arrow C stream interface's
// export: the consumer then owns it and calls its release). The result is
// closed; batches taken before stay valid until closed.
func (r *QueryResult) ExportArrowStream(dst unsafe.Pointer) error {
	p, done, err := r.h.use()
	if err != nil {
		return err
	}
	C.memcpy(dst, p, C.size_t(unsafe.Sizeof(C.struct_ArrowArrayStream{})))
	(*C.struct_ArrowArrayStream)(p).release = nil // moved: releasing p is a no-op
	done()
	return r.Close()
}

// Close releases the stream and closes the result's batches.
func (r *QueryResult) Close() error { return r.h.close() }

// Batch is one record batch of a result: a struct array whose children are
// the columns. Safe for concurrent reads.
type Batch struct {
	h      *handle
	result *QueryResult
	array  *C.struct_ArrowArray
}

// Rows is the number of rows.
func (b *Batch) Rows() (int, error) {
	p, done, err := b.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	return int((*C.struct_ArrowArray)(p).length), nil
}

// column finds a column by name: its index, schema and array.
func (b *Batch) column(name string) (int, *C.struct_ArrowSchema, *C.struct_ArrowArray, error) {
	schemas := unsafe.Slice(b.result.schema.children, int(b.result.schema.n_children))
	arrays := unsafe.Slice(b.array.children, int(b.array.n_children))
	for i, s := range schemas {
		if goStr(s.name) == name {
			return i, s, arrays[i], nil
		}
	}
	return 0, nil, nil, fmt.Errorf("lake: no column %q", name)
}

func valid(a *C.struct_ArrowArray, row int) bool {
	buffers := unsafe.Slice(a.buffers, int(a.n_buffers))
	if a.null_count == 0 || buffers[0] == nil {
		return true
	}
	bits := unsafe.Slice((*byte)(buffers[0]), (int(a.offset)+int(a.length)+7)/8)
	i := int(a.offset) + row
	return bits[i/8]&(1<<(i%8)) != 0
}

// primitive is a column's array, checked to be of Arrow format, and its
// buffers; the caller holds the batch's lock.
func (b *Batch) primitive(name, format, what string) (*C.struct_ArrowArray, []unsafe.Pointer, error) {
	_, s, a, err := b.column(name)
	if err != nil {
		return nil, nil, err
	}
	if f := C.GoString(s.format); f != format {
		return nil, nil, fmt.Errorf("lake: column %q is Arrow %q, not %s", name, f, what)
	}
	return a, unsafe.Slice(a.buffers, int(a.n_buffers)), nil
}

// Strings are a utf8 column's values ("" for null).
func (b *Batch) Strings(name string) ([]string, error) {
	_, done, err := b.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	a, buffers, err := b.primitive(name, "u", "utf8")
	if err != nil {
		return nil, err
	}
	n, off := int(a.length), int(a.offset)
	offsets := unsafe.Slice((*int32)(buffers[1]), off+n+1)
	out := make([]string, n)
	for row := 0; row < n; row++ {
		if valid(a, row) {
			lo, hi := offsets[off+row], offsets[off+row+1]
			out[row] = C.GoStringN((*C.char)(unsafe.Add(buffers[2], lo)), C.int(hi-lo))
		}
	}
	return out, nil
}

// Int64s are an int64 column's values (0 for null).
func (b *Batch) Int64s(name string) ([]int64, error) {
	_, done, err := b.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	a, buffers, err := b.primitive(name, "l", "int64")
	if err != nil {
		return nil, err
	}
	n, off := int(a.length), int(a.offset)
	values := unsafe.Slice((*int64)(buffers[1]), off+n)
	out := make([]int64, n)
	for row := 0; row < n; row++ {
		if valid(a, row) {
			out[row] = values[off+row]
		}
	}
	return out, nil
}

// IsNull reports whether a cell is null.
func (b *Batch) IsNull(name string, row int) (bool, error) {
	_, done, err := b.h.use()
	if err != nil {
		return false, err
	}
	defer done()
	_, _, a, err := b.column(name)
	if err != nil {
		return false, err
	}
	if row < 0 || row >= int(a.length) {
		return false, fmt.Errorf("lake: row %d out of range", row)
	}
	return !valid(a, row), nil
}

// Location is the DataLocation in a FILE cell (lake_location_from_arrow);
// a null cell is the NotFound error.
func (b *Batch) Location(name string, row int) (*Location, error) {
	p, done, err := b.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	col, _, _, err := b.column(name)
	if err != nil {
		return nil, err
	}
	var out *C.lake_location
	var e *C.lake_error
	if err := check(C.lake_location_from_arrow(b.result.schema, (*C.struct_ArrowArray)(p), C.int64_t(col), C.int64_t(row), &out, &e), e); err != nil {
		return nil, err
	}
	return wrapLocation(out), nil
}

// Close releases the batch.
func (b *Batch) Close() error { return b.h.close() }
