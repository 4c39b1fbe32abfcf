package lake

// #include <stdlib.h>
// #include "lake.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Location is a DataLocation: the immutable identity of one managed object
// {uri, content type, size, SHA-256}. Safe for concurrent use.
type Location struct{ h *handle }

func wrapLocation(p *C.lake_location, parents ...*handle) *Location {
	return &Location{h: newHandle("Location", unsafe.Pointer(p), false, func(p unsafe.Pointer) error {
		C.lake_location_free((*C.lake_location)(p))
		return nil
	}, parents...)}
}

// ParseLocation parses a DataLocation's JSON text (lake_location_from_json).
func ParseLocation(json string) (*Location, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	text := C.CBytes([]byte(json))
	defer C.free(text)
	var out *C.lake_location
	var e *C.lake_error
	if err := check(C.lake_location_from_json((*C.char)(text), C.size_t(len(json)), &out, &e), e); err != nil {
		return nil, err
	}
	return wrapLocation(out), nil
}

// NewLocation builds a location from its fields (lake_location_new).
func NewLocation(uri, contentType string, sizeBytes uint64, sha256 string) (*Location, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	u, ct, sh := cstring(uri), cstring(contentType), cstring(sha256)
	defer free(u)
	defer free(ct)
	defer free(sh)
	var out *C.lake_location
	var e *C.lake_error
	if err := check(C.lake_location_new(u, ct, C.uint64_t(sizeBytes), sh, &out, &e), e); err != nil {
		return nil, err
	}
	return wrapLocation(out), nil
}

func (l *Location) str(get func(*C.lake_location) *C.char) (string, error) {
	p, done, err := l.h.use()
	if err != nil {
		return "", err
	}
	defer done()
	s := C.GoString(get((*C.lake_location)(p)))
	runtime.KeepAlive(l)
	return s, nil
}

// JSON is the canonical JSON text (lake_location_json).
func (l *Location) JSON() (string, error) {
	return l.str(func(p *C.lake_location) *C.char { return C.lake_location_json(p) })
}

// URI is the object's URI (lake_location_uri).
func (l *Location) URI() (string, error) {
	return l.str(func(p *C.lake_location) *C.char { return C.lake_location_uri(p) })
}

// ContentType is the object's content type (lake_location_content_type).
func (l *Location) ContentType() (string, error) {
	return l.str(func(p *C.lake_location) *C.char { return C.lake_location_content_type(p) })
}

// SHA256 is the object's digest, 64 lowercase hex characters
// (lake_location_sha256).
func (l *Location) SHA256() (string, error) {
	return l.str(func(p *C.lake_location) *C.char { return C.lake_location_sha256(p) })
}

// SizeBytes is the object's size (lake_location_size_bytes).
func (l *Location) SizeBytes() (uint64, error) {
	p, done, err := l.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	n := uint64(C.lake_location_size_bytes((*C.lake_location)(p)))
	runtime.KeepAlive(l)
	return n, nil
}

// Close frees the location (lake_location_free); a second Close is a no-op.
func (l *Location) Close() error { return l.h.close() }
