//! A push upload: write any number of times (`std::io::Write`), then
//! [`Writer::close`] publishes and returns the object's location. Dropping
//! a writer that was not closed discards the upload: nothing is published.
//! It borrows its stage and its options (`'a`), so neither the stage, nor
//! the cancel token the options borrow, can be freed before it.
use std::io::{self, Write};
use std::marker::PhantomData;

use lake_sys as sys;

use crate::error::{call, Result};
use crate::handle_count as handles;
use crate::location::Location;
use crate::panic_slot::PanicSlot;
use crate::upload::UploadOptions;

pub struct Writer<'a> {
    ptr: *mut sys::lake_writer,
    /// Where the options' callbacks store a panic (the options outlive 'a).
    panics: Option<&'a PanicSlot>,
    _parent: PhantomData<&'a ()>,
}

// SAFETY: one thread at a time (&mut self); may move between threads.
unsafe impl Send for Writer<'_> {}

impl<'a> Writer<'a> {
    pub(crate) fn open(
        stage: *mut sys::lake_stage,
        options: Option<&'a UploadOptions<'_>>,
    ) -> Result<Writer<'a>> {
        let mut out = std::ptr::null_mut();
        let opts = options.map_or(std::ptr::null(), |o| o.as_ptr());
        call(|err| unsafe { sys::lake_writer_open(stage, opts, &mut out, err) })?;
        handles::opened();
        Ok(Writer { ptr: out, panics: options.map(|o| o.panics()), _parent: PhantomData })
    }

    fn finish<T>(&self, result: Result<T>) -> Result<T> {
        match self.panics {
            Some(panics) => panics.finish(result),
            None => result,
        }
    }

    /// Appends all of `data` to the upload.
    pub fn write_bytes(&mut self, data: &[u8]) -> Result<()> {
        let result = call(|err| unsafe {
            sys::lake_writer_write(self.ptr, data.as_ptr() as *const _, data.len(), err)
        });
        self.finish(result)
    }

    /// Publishes the object (durable, then visible) and returns its location.
    pub fn close(self) -> Result<Location> {
        let result =
            Location::out(|out, err| unsafe { sys::lake_writer_close(self.ptr, out, err) });
        let result = self.finish(result);
        drop(self);
        result
    }

    /// Discards the upload (as dropping the writer does).
    pub fn discard(self) {}
}

impl Write for Writer<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_bytes(buf).map_err(io::Error::from)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

crate::handle_count::free_on_drop!(Writer<'_>, sys::lake_writer_free);
