//! A reader of one object: a verified full read (the read reaching the end
//! succeeds only when size and SHA-256 match) or a byte range. Implements
//! `std::io::Read`; a lake error arrives as an `io::Error` wrapping
//! [`Error`](crate::Error) (see [`crate::error::from_io`]). It borrows what
//! it was opened from (`'s`: a stage, or an event log for a blob), so it
//! cannot outlive it. One thread at a time: `read` takes `&mut self`.
use std::io::{self, Read};
use std::marker::PhantomData;

use lake_sys as sys;

use crate::error::{call, Result};
use crate::handle_count as handles;

pub struct Reader<'s> {
    ptr: *mut sys::lake_reader,
    _parent: PhantomData<&'s ()>,
}

// SAFETY: a reader may move between threads; it is not Sync (one thread at
// a time, as lake.h requires), which &mut self enforces.
unsafe impl Send for Reader<'_> {}

impl<'s> Reader<'s> {
    pub(crate) fn open(
        f: impl FnOnce(*mut *mut sys::lake_reader, *mut *mut sys::lake_error) -> sys::lake_status,
    ) -> Result<Reader<'s>> {
        let mut out = std::ptr::null_mut();
        call(|err| f(&mut out, err))?;
        handles::opened();
        Ok(Reader { ptr: out, _parent: PhantomData })
    }

    /// Reads up to `buf.len()` bytes; Ok(0) is the (verified) end.
    pub fn read_chunk(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut n = 0usize;
        call(|err| unsafe {
            sys::lake_reader_read(self.ptr, buf.as_mut_ptr() as *mut _, buf.len(), &mut n, err)
        })?;
        Ok(n)
    }

    /// Up to `max_len` bytes in the reader's own memory, without a copy;
    /// valid until the next call on the reader. Empty is the (verified) end.
    pub fn read_view(&mut self, max_len: usize) -> Result<&[u8]> {
        let mut data: *const std::os::raw::c_void = std::ptr::null();
        let mut n = 0usize;
        call(|err| unsafe {
            sys::lake_reader_read_view(self.ptr, &mut data, max_len, &mut n, err)
        })?;
        if n == 0 {
            return Ok(&[]);
        }
        Ok(unsafe { std::slice::from_raw_parts(data as *const u8, n) })
    }

    /// True once a full read reached its verified end.
    pub fn verified(&self) -> bool {
        unsafe { sys::lake_reader_verified(self.ptr) != 0 }
    }

    /// Releases the storage stream and reports a failure to do so. Closing
    /// early is allowed and claims nothing.
    pub fn close(self) -> Result<()> {
        let result = call(|err| unsafe { sys::lake_reader_close(self.ptr, err) });
        drop(self);
        result
    }
}

impl Read for Reader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.read_chunk(buf).map_err(io::Error::from)
    }
}

crate::handle_count::free_on_drop!(Reader<'_>, sys::lake_reader_free);
