//! A cancellation token. Operations borrow it (`UploadOptions<'t>`,
//! `GcOptions<'t>`), so it cannot be freed while one may still watch it —
//! the order lake.h requires (H-008) holds at compile time.
use lake_sys as sys;

use crate::error::Result;
use crate::handle_count as handles;

pub struct CancelToken {
    ptr: *mut sys::lake_cancel_token,
}

// SAFETY: lake.h: thread-safe; any thread may cancel.
unsafe impl Send for CancelToken {}
unsafe impl Sync for CancelToken {}

impl CancelToken {
    pub fn new() -> Result<CancelToken> {
        crate::abi::check()?;
        let ptr = unsafe { sys::lake_cancel_token_new() };
        handles::opened();
        Ok(CancelToken { ptr })
    }

    pub fn cancel(&self) {
        unsafe { sys::lake_cancel_token_cancel(self.ptr) }
    }

    pub fn is_cancelled(&self) -> bool {
        unsafe { sys::lake_cancel_token_is_cancelled(self.ptr) != 0 }
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::lake_cancel_token {
        self.ptr
    }

    /// Frees the token now (as dropping it does).
    pub fn close(self) {}
}

crate::handle_count::free_on_drop!(CancelToken, sys::lake_cancel_token_free);
