package lake

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #cgo LDFLAGS: -llake
// #include <stdlib.h>
// #include "lake.h"
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// ABIVersion is the lake ABI major version this binding is written for
// (LAKE_ABI_VERSION of the lake.h it was built with).
const ABIVersion = uint32(C.LAKE_ABI_VERSION)

// ABIError is the refusal of a library whose lake_abi_version differs from
// ABIVersion. It is returned by every call that would create a handle.
type ABIError struct {
	Library uint32 // what the loaded library implements
	Binding uint32 // ABIVersion
}

func (e *ABIError) Error() string {
	return fmt.Sprintf("lake: the loaded library implements lake ABI %d, this binding needs ABI %d",
		e.Library, e.Binding)
}

var (
	loadOnce sync.Once
	loadErr  error
)

// Load checks the loaded library's ABI version, once per process. Every
// constructor calls it before it calls anything else of lake.
func Load() error {
	loadOnce.Do(func() {
		if v := uint32(C.lake_abi_version()); v != ABIVersion {
			loadErr = &ABIError{Library: v, Binding: ABIVersion}
		}
	})
	return loadErr
}

// Version is the loaded library's release version (lake_version_string).
func Version() (string, error) {
	if err := Load(); err != nil {
		return "", err
	}
	return C.GoString(C.lake_version_string()), nil
}

// SetBufferBudget caps the memory lake uses for in-flight data buffers in
// this process (lake_set_buffer_budget).
func SetBufferBudget(bytes uint64) error {
	if err := Load(); err != nil {
		return err
	}
	var e *C.lake_error
	return check(C.lake_set_buffer_budget(C.uint64_t(bytes), &e), e)
}

// cstring is a C copy of s that the caller frees with free.
func cstring(s string) *C.char { return C.CString(s) }

func free(p *C.char) { C.free(unsafe.Pointer(p)) }

// takeString copies a string lake allocated and frees it (lake_string_free).
func takeString(p *C.char) string {
	if p == nil {
		return ""
	}
	s := C.GoString(p)
	C.lake_string_free(p)
	return s
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
