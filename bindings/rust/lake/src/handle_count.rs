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
