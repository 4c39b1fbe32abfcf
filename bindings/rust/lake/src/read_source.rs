//! A `std::io::Read` lent to lake as a `lake_read_fn` (an upload's source,
//! a FILE parameter bound to a stream). The source is boxed: its address,
//! the callback's ctx, stays fixed while its owner (the call's frame or the
//! statement) keeps it, which is as long as lake may call it.
use std::io::{ErrorKind, Read};
use std::os::raw::c_void;

use crate::panic_slot::PanicSlot;

pub(crate) struct ReadSource {
    reader: Box<dyn Read + Send>,
    pub(crate) panics: PanicSlot,
    /// The reader's last I/O error (lake only learns "a negative count").
    pub(crate) io_error: std::sync::Mutex<Option<std::io::Error>>,
}

impl ReadSource {
    pub(crate) fn new(reader: Box<dyn Read + Send>) -> Box<ReadSource> {
        Box::new(ReadSource { reader, panics: PanicSlot::default(), io_error: Default::default() })
    }

    pub(crate) fn ctx(self: &mut Box<Self>) -> *mut c_void {
        &mut **self as *mut ReadSource as *mut c_void
    }
}

/// The `lake_read_fn` trampoline: ctx is a `*mut ReadSource`.
pub(crate) unsafe extern "C" fn read_trampoline(ctx: *mut c_void, buf: *mut u8, cap: usize) -> i64 {
    let source = &mut *(ctx as *mut ReadSource);
    if cap == 0 {
        return 0;
    }
    let buffer = std::slice::from_raw_parts_mut(buf, cap);
    let reader = &mut source.reader;
    let io_error = &source.io_error;
    source.panics.guard(-1, || loop {
        match reader.read(buffer) {
            Ok(n) => return n as i64,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                *io_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                return -1;
            }
        }
    })
}
