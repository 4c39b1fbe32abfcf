//! Running the caller's code inside lake's callbacks. Nothing may unwind
//! through lake's C frames: every trampoline runs the caller's closure under
//! `catch_unwind`, stores the first panic in the [`PanicSlot`] of the object
//! that lent lake the callback, and returns the failure value its C
//! signature defines. The call that lent it then reports the panic as its
//! error ([`PanicSlot::finish`]), with lake's own error of the call attached.
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use crate::error::{Error, Result};

#[derive(Default)]
pub(crate) struct PanicSlot {
    first: Mutex<Option<String>>,
}

impl PanicSlot {
    /// Runs `f`; a panic is stored and `failure` returned instead.
    pub(crate) fn guard<T>(&self, failure: T, f: impl FnOnce() -> T) -> T {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(value) => value,
            Err(payload) => {
                let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
                if first.is_none() {
                    *first = Some(panic_message(payload.as_ref()));
                }
                failure
            }
        }
    }

    pub(crate) fn take(&self) -> Option<String> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// The call's result, with a stored panic taking precedence.
    pub(crate) fn finish<T>(&self, result: Result<T>) -> Result<T> {
        match self.take() {
            Some(message) => Err(Error::panic(message, result.err())),
            None => result,
        }
    }
}

/// The text of a panic payload (a &str or String; else a placeholder).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a callback panicked with a non-string payload".to_string()
    }
}

/// What a listing callback (stage list, GC show and verify, upload list)
/// hands over, item by item, and the first panic while building one. Its
/// address is the callback's ctx for the duration of the one call.
pub(crate) struct Collected<T> {
    items: Vec<T>,
    panics: PanicSlot,
}

impl<T> Collected<T> {
    pub(crate) fn new() -> Collected<T> {
        Collected { items: Vec::new(), panics: PanicSlot::default() }
    }

    pub(crate) fn ctx(&mut self) -> *mut std::os::raw::c_void {
        self as *mut Collected<T> as *mut std::os::raw::c_void
    }

    /// In a trampoline: keeps what `make` builds and returns 0 (go on), or
    /// 1 (stop) when it panicked.
    ///
    /// # Safety
    /// `ctx` is the `ctx()` of a live `Collected<T>`.
    pub(crate) unsafe fn push(
        ctx: *mut std::os::raw::c_void,
        make: impl FnOnce() -> T,
    ) -> std::os::raw::c_int {
        let this = &mut *(ctx as *mut Collected<T>);
        let items = &mut this.items;
        this.panics.guard(1, || {
            items.push(make());
            0
        })
    }

    /// The items, or the call's error (a panic first).
    pub(crate) fn finish<R>(self, result: Result<R>) -> Result<(Vec<T>, R)> {
        let value = self.panics.finish(result)?;
        Ok((self.items, value))
    }
}
