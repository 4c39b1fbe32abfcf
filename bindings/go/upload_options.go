package lake

// #include <stdlib.h>
// #include "trampolines.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// UploadOptions configure one upload, an INSERT's uploads or a writer
// (lake_upload_options). One goroutine at a time. The progress and notice
// functions are called on lake's threads; a panic in them is recovered and
// returned by the call they served.
type UploadOptions struct {
	h        *handle
	token    *CancelToken
	progress *progressState
	notice   *noticeState
}

// NewUploadOptions makes default options (lake_upload_options_new).
func NewUploadOptions() (*UploadOptions, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	o := &UploadOptions{}
	p := C.lake_upload_options_new()
	o.h = newHandle("UploadOptions", unsafe.Pointer(p), true, func(p unsafe.Pointer) error {
		C.lake_upload_options_free((*C.lake_upload_options)(p))
		return nil
	})
	o.h.onClose = append(o.h.onClose, func() {
		if o.progress != nil {
			o.progress.drop()
		}
		if o.notice != nil {
			o.notice.drop()
		}
	})
	return o, nil
}

// SetContentType sets the uploaded object's content type
// (lake_upload_options_set_content_type).
func (o *UploadOptions) SetContentType(contentType string) error {
	ct := cstring(contentType)
	defer free(ct)
	return o.set(func(p *C.lake_upload_options, e **C.lake_error) C.lake_status {
		return C.lake_upload_options_set_content_type(p, ct, e)
	})
}

func (o *UploadOptions) set(call func(*C.lake_upload_options, **C.lake_error) C.lake_status) error {
	defer runtime.KeepAlive(o)
	return checkedCall(o.h, call)
}

// SetCancelToken makes the uploads watch token
// (lake_upload_options_set_cancel_token). The options become the token's
// child: closing the token closes them.
func (o *UploadOptions) SetCancelToken(token *CancelToken) error {
	ptrs, done, err := useAll(token.h, o.h)
	if err != nil {
		return err
	}
	defer done()
	C.lake_upload_options_set_cancel_token((*C.lake_upload_options)(ptrs[1]), (*C.lake_cancel_token)(ptrs[0]))
	if o.token != token {
		if o.token != nil {
			o.h.disown(o.token.h) // the options borrow only the token they were last given
		}
		o.h.adopt(token.h)
	}
	o.token = token
	runtime.KeepAlive(o)
	return nil
}

// SetProgress calls fn with the bytes done and the total (0 if unknown)
// (lake_upload_options_set_progress).
func (o *UploadOptions) SetProgress(fn func(done, total uint64)) error {
	return o.set(func(p *C.lake_upload_options, _ **C.lake_error) C.lake_status {
		C.lake_upload_options_set_progress(p, C.lk_progress_fn(), replaceState(&o.progress, &progressState{fn: fn}).ctx())
		return C.LAKE_OK
	})
}

// SetNotice calls fn with each notice line of a resumable upload
// (lake_upload_options_set_notice).
func (o *UploadOptions) SetNotice(fn func(line string)) error {
	return o.set(func(p *C.lake_upload_options, _ **C.lake_error) C.lake_status {
		C.lake_upload_options_set_notice(p, C.lk_notice_fn(), replaceState(&o.notice, &noticeState{fn: fn}).ctx())
		return C.LAKE_OK
	})
}

// Close frees the options (lake_upload_options_free).
func (o *UploadOptions) Close() error { return o.h.close() }

// optionHandles are the handles a call with o locks (token first), nil
// parts for nil options.
func (o *UploadOptions) handles() (*handle, *handle) {
	if o == nil {
		return nil, nil
	}
	if o.token != nil {
		return o.token.h, o.h
	}
	return nil, o.h
}

// states are the callbacks whose failures a call with o returns.
func (o *UploadOptions) states() []callbackState {
	if o == nil {
		return nil
	}
	var s []callbackState
	if o.progress != nil {
		s = append(s, o.progress)
	}
	if o.notice != nil {
		s = append(s, o.notice)
	}
	return s
}
