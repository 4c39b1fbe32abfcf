//! A host store written in Rust (`lake_host_store`): lake keeps its policy
//! (hashing, verification, containment) and the store only moves bytes.
//!
//! Ownership: the store lives in an `Arc<HostContext>`, whose pointer is the
//! table's ctx. Each successful open of a stage or root with the options
//! lends lake one strong count, which lake's `destroy` callback gives back;
//! the options and the stage hold their own counts. So the store outlives
//! every call lake makes into it, however the Rust values are dropped.
use std::ffi::CString;
use std::io::{self, Read};
use std::os::raw::{c_char, c_void};
use std::sync::Arc;

use lake_sys as sys;

use crate::c_strings::{cstring, static_str};
use crate::error::Result;
use crate::panic_slot::PanicSlot;
use crate::stage::ListEntry;

/// The callbacks of a host store. Errors are returned as `io::Error` (their
/// text becomes lake's message); a panic becomes the error of the stage call
/// that invoked the callback. Called from any thread, concurrently.
pub trait HostStore: Send + Sync {
    /// The stage root ("s3://bucket/prefix" or "file:///abs/dir").
    fn root_uri(&self) -> String;
    /// Stores all bytes of `source` under `uri`; publishes nothing on failure.
    fn upload(&self, uri: &str, content_type: &str, source: &mut dyn Read) -> io::Result<()>;
    /// The object's bytes from `start`.
    fn open(&self, uri: &str, start: u64) -> io::Result<Box<dyn Read + Send>>;
    /// Every object whose URI starts with `prefix`.
    fn list(&self, prefix: &str) -> io::Result<Vec<ListEntry>>;
    /// Removes the object (absent: Ok).
    fn remove(&self, uri: &str) -> io::Result<()>;
}

pub(crate) struct HostContext {
    store: Box<dyn HostStore>,
    root_uri: CString,
    pub(crate) panics: PanicSlot,
}

/// A strong count lent to lake by one open.
pub(crate) struct Lent(());

impl HostContext {
    pub(crate) fn new(
        store: Box<dyn HostStore>,
    ) -> Result<(Arc<HostContext>, sys::lake_host_store)> {
        let root_uri = cstring(&store.root_uri())?;
        let context = Arc::new(HostContext { store, root_uri, panics: PanicSlot::default() });
        let table = sys::lake_host_store {
            version: sys::LAKE_HOST_STORE_VERSION,
            ctx: Arc::as_ptr(&context) as *mut c_void,
            root_uri: context.root_uri.as_ptr(),
            upload: Some(upload),
            open_stream: Some(open_stream),
            read_stream: Some(read_stream),
            close_stream: Some(close_stream),
            list: Some(list),
            remove: Some(remove),
            destroy: Some(destroy),
        };
        Ok((context, table))
    }

    /// Before an open: one count for lake's `destroy` to give back.
    pub(crate) fn lend(self: &Arc<Self>) -> Lent {
        unsafe { Arc::increment_strong_count(Arc::as_ptr(self)) };
        Lent(())
    }

    /// After a failed open: lake keeps no ctx, so the count comes back.
    pub(crate) fn unlend(self: &Arc<Self>, _lent: Lent) {
        unsafe { Arc::decrement_strong_count(Arc::as_ptr(self)) };
    }
}

unsafe fn context<'a>(ctx: *mut c_void) -> &'a HostContext {
    &*(ctx as *const HostContext)
}

unsafe fn write_message(message: *mut c_char, cap: usize, text: &str) {
    if message.is_null() || cap == 0 {
        return;
    }
    let mut n = text.len().min(cap - 1);
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    std::ptr::copy_nonoverlapping(text.as_ptr() as *const c_char, message, n);
    *message.add(n) = 0;
}

/// Runs a callback body: an io::Error or a panic is LAKE_IO with its text.
unsafe fn status_of(
    ctx: *mut c_void,
    message: *mut c_char,
    cap: usize,
    body: impl FnOnce(&HostContext) -> io::Result<()>,
) -> sys::lake_status {
    let host = context(ctx);
    let mut failure = None;
    let status = host.panics.guard(sys::LAKE_IO, || match body(host) {
        Ok(()) => sys::LAKE_OK,
        Err(e) => {
            failure = Some(e.to_string());
            if e.kind() == io::ErrorKind::NotFound {
                sys::LAKE_NOT_FOUND
            } else {
                sys::LAKE_IO
            }
        }
    });
    if status != sys::LAKE_OK {
        let text = failure.unwrap_or_else(|| "a host store callback panicked".to_string());
        write_message(message, cap, &text);
    }
    status
}

/// lake's pull source of an upload, as a `Read`.
struct LakeSource {
    read: unsafe extern "C" fn(*mut c_void, *mut u8, usize) -> i64,
    ctx: *mut c_void,
}

impl Read for LakeSource {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let n = unsafe { (self.read)(self.ctx, buf.as_mut_ptr(), buf.len()) };
        if n < 0 {
            Err(io::Error::new(io::ErrorKind::Other, "lake's upload source failed"))
        } else {
            Ok(n as usize)
        }
    }
}

unsafe extern "C" fn upload(
    ctx: *mut c_void,
    uri: *const c_char,
    content_type: *const c_char,
    read: sys::lake_read_fn,
    read_ctx: *mut c_void,
    message: *mut c_char,
    cap: usize,
) -> sys::lake_status {
    let (uri, content_type) = (static_str(uri), static_str(content_type));
    status_of(ctx, message, cap, |host| {
        let read = read.ok_or_else(|| io::Error::new(io::ErrorKind::Other, "no read function"))?;
        let mut source = LakeSource { read, ctx: read_ctx };
        host.store.upload(&uri, &content_type, &mut source)
    })
}

unsafe extern "C" fn open_stream(
    ctx: *mut c_void,
    uri: *const c_char,
    start: u64,
    stream: *mut *mut c_void,
    message: *mut c_char,
    cap: usize,
) -> sys::lake_status {
    let uri = static_str(uri);
    status_of(ctx, message, cap, |host| {
        let reader = host.store.open(&uri, start)?;
        *stream = Box::into_raw(Box::new(reader)) as *mut c_void;
        Ok(())
    })
}

unsafe extern "C" fn read_stream(
    ctx: *mut c_void,
    stream: *mut c_void,
    buf: *mut u8,
    cap: usize,
    n: *mut usize,
    message: *mut c_char,
    message_cap: usize,
) -> sys::lake_status {
    let reader = &mut *(stream as *mut Box<dyn Read + Send>);
    status_of(ctx, message, message_cap, |_| {
        if cap == 0 {
            *n = 0; // no slice of a possibly null buffer
            return Ok(());
        }
        let buffer = std::slice::from_raw_parts_mut(buf, cap);
        *n = loop {
            match reader.read(buffer) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        Ok(())
    })
}

unsafe extern "C" fn close_stream(ctx: *mut c_void, stream: *mut c_void) {
    let host = context(ctx);
    host.panics.guard((), || drop(Box::from_raw(stream as *mut Box<dyn Read + Send>)));
}

unsafe extern "C" fn list(
    ctx: *mut c_void,
    prefix: *const c_char,
    emit: sys::lake_list_fn,
    emit_ctx: *mut c_void,
    message: *mut c_char,
    cap: usize,
) -> sys::lake_status {
    let prefix = static_str(prefix);
    status_of(ctx, message, cap, |host| {
        let emit = emit.ok_or_else(|| io::Error::new(io::ErrorKind::Other, "no emit function"))?;
        for entry in host.store.list(&prefix)? {
            let uri = CString::new(entry.uri)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            let raw = sys::lake_list_entry {
                uri: uri.as_ptr(),
                size_bytes: entry.size_bytes,
                modified_unix_micros: entry.modified_unix_micros,
            };
            if emit(emit_ctx, &raw) != 0 {
                break;
            }
        }
        Ok(())
    })
}

unsafe extern "C" fn remove(
    ctx: *mut c_void,
    uri: *const c_char,
    message: *mut c_char,
    cap: usize,
) -> sys::lake_status {
    let uri = static_str(uri);
    status_of(ctx, message, cap, |host| host.store.remove(&uri))
}

unsafe extern "C" fn destroy(ctx: *mut c_void) {
    // Gives back the count lent at the open (see HostContext::lend). The
    // last count drops the caller's store, whose Drop may panic: that must
    // not unwind into lake either, and there is no call left to report it to.
    let _ = std::panic::catch_unwind(|| Arc::decrement_strong_count(ctx as *const HostContext));
}
