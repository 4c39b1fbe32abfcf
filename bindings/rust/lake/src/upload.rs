//! Options of one upload or INSERT: content type, cancellation token,
//! progress and notice callbacks. The options borrow the token (`'t`): it
//! outlives them and every writer opened with them. The callbacks are boxed
//! and owned by the options (they may borrow what lives `'t`), so their address (lake's ctx) stays valid
//! however the options value is moved, for as long as lake may call them.
use std::os::raw::{c_char, c_void};

use lake_sys as sys;

use crate::c_strings::{cstring, static_str};
use crate::cancel::CancelToken;
use crate::error::{call, Result};
use crate::handle_count as handles;
use crate::panic_slot::PanicSlot;

type ProgressFn<'t> = Box<dyn FnMut(u64, u64) + Send + 't>;
type NoticeFn<'t> = Box<dyn FnMut(&str) + Send + 't>;

pub(crate) struct Callbacks<'t> {
    progress: Option<std::sync::Mutex<ProgressFn<'t>>>,
    notice: Option<std::sync::Mutex<NoticeFn<'t>>>,
    pub(crate) panics: PanicSlot,
}

pub struct UploadOptions<'t> {
    ptr: *mut sys::lake_upload_options,
    callbacks: Box<Callbacks<'t>>,
    _token: std::marker::PhantomData<&'t CancelToken>,
}

// SAFETY: the options are used by one thread at a time (&mut to change
// them); the boxed callbacks are Send.
unsafe impl Send for UploadOptions<'_> {}

impl<'t> UploadOptions<'t> {
    pub fn new() -> Result<UploadOptions<'t>> {
        crate::abi::check()?;
        let ptr = unsafe { sys::lake_upload_options_new() };
        handles::opened();
        Ok(UploadOptions {
            ptr,
            callbacks: Box::new(Callbacks {
                progress: None,
                notice: None,
                panics: PanicSlot::default(),
            }),
            _token: std::marker::PhantomData,
        })
    }

    /// Default "application/octet-stream".
    pub fn content_type(self, content_type: &str) -> Result<Self> {
        let text = cstring(content_type)?;
        call(|err| unsafe {
            sys::lake_upload_options_set_content_type(self.ptr, text.as_ptr(), err)
        })?;
        Ok(self)
    }

    /// Watches `token`, which the options borrow for their whole life.
    pub fn cancel_token(self, token: &'t CancelToken) -> Self {
        unsafe { sys::lake_upload_options_set_cancel_token(self.ptr, token.as_ptr()) };
        self
    }

    /// `progress(done_bytes, total_bytes)`; a panic in it becomes the call's error.
    pub fn progress(mut self, progress: impl FnMut(u64, u64) + Send + 't) -> Self {
        self.callbacks.progress = Some(std::sync::Mutex::new(Box::new(progress)));
        let ctx = &*self.callbacks as *const Callbacks<'t> as *mut c_void;
        unsafe { sys::lake_upload_options_set_progress(self.ptr, Some(progress_trampoline), ctx) };
        self
    }

    /// `notice(line)`: what a resumable upload did, for a person.
    pub fn notice(mut self, notice: impl FnMut(&str) + Send + 't) -> Self {
        self.callbacks.notice = Some(std::sync::Mutex::new(Box::new(notice)));
        let ctx = &*self.callbacks as *const Callbacks<'t> as *mut c_void;
        unsafe { sys::lake_upload_options_set_notice(self.ptr, Some(notice_trampoline), ctx) };
        self
    }

    pub(crate) fn as_ptr(&self) -> *const sys::lake_upload_options {
        self.ptr
    }

    pub(crate) fn panics(&self) -> &PanicSlot {
        &self.callbacks.panics
    }

    /// The call's result, with a panic of a callback taking precedence.
    pub(crate) fn finish<T>(&self, result: Result<T>) -> Result<T> {
        self.callbacks.panics.finish(result)
    }

    /// Frees the options now (as dropping them does).
    pub fn close(self) {}
}

unsafe extern "C" fn progress_trampoline(ctx: *mut c_void, done: u64, total: u64) {
    let callbacks = &*(ctx as *const Callbacks);
    callbacks.panics.guard((), || {
        if let Some(progress) = &callbacks.progress {
            (progress.lock().unwrap_or_else(|e| e.into_inner()))(done, total)
        }
    })
}

unsafe extern "C" fn notice_trampoline(ctx: *mut c_void, line: *const c_char) {
    let callbacks = &*(ctx as *const Callbacks);
    let line = static_str(line);
    callbacks.panics.guard((), || {
        if let Some(notice) = &callbacks.notice {
            (notice.lock().unwrap_or_else(|e| e.into_inner()))(&line)
        }
    })
}

crate::handle_count::free_on_drop!(UploadOptions<'_>, sys::lake_upload_options_free);
