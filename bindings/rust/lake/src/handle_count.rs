//! The count of live lake handles this binding holds (L-001, L-002): each
//! handle type increments it when lake gives it a handle and decrements it
//! when it frees that handle, exactly once.
use std::sync::atomic::{AtomicI64, Ordering};

static OPEN: AtomicI64 = AtomicI64::new(0);

/// How many lake handles the binding holds now (not freed yet).
pub fn open_handles() -> i64 {
    OPEN.load(Ordering::SeqCst)
}

pub(crate) fn opened() {
    OPEN.fetch_add(1, Ordering::SeqCst);
}

pub(crate) fn freed() {
    OPEN.fetch_sub(1, Ordering::SeqCst);
}

/// `impl Drop` for a handle type owning the lake handle `self.ptr`: frees it
/// with `$free` (once: `close(self)` consumes the value, so drop runs once)
/// and counts it freed.
macro_rules! free_on_drop {
    ($handle:ty, $free:path) => {
        impl Drop for $handle {
            fn drop(&mut self) {
                unsafe { $free(self.ptr) };
                crate::handle_count::freed();
            }
        }
    };
}
pub(crate) use free_on_drop;
