//! A stage: where managed objects live. A standalone stage
//! ([`Stage::open`]) owns its `lake_stage`; a root's stage
//! ([`crate::Db::stage`]) is the root's and lives as long as it. Readers
//! and writers borrow the stage, so it cannot be freed while one is open
//! (H-007). Thread-safe: `&Stage` may be shared between threads.
use std::io::Read;
use std::os::raw::{c_int, c_void};
use std::path::Path;
use std::sync::Arc;

use lake_sys as sys;

use crate::c_strings::{cpath, cstring, static_str, take_string};
use crate::error::{call, Error, Result};
use crate::handle_count as handles;
use crate::host::HostContext;
use crate::location::Location;
use crate::panic_slot::Collected;
use crate::read_source::{read_trampoline, ReadSource};
use crate::reader::Reader;
use crate::upload::UploadOptions;
use crate::writer::Writer;

/// Options to open a stage or a root (local, tenant, S3, host store).
pub struct StageOptions {
    ptr: *mut sys::lake_stage_options,
    pub(crate) host: Option<Arc<HostContext>>,
}

// SAFETY: not thread-safe in lake, so not Sync; it may move.
unsafe impl Send for StageOptions {}

impl StageOptions {
    pub fn new() -> Result<StageOptions> {
        crate::abi::check()?;
        let ptr = unsafe { sys::lake_stage_options_new() };
        handles::opened();
        Ok(StageOptions { ptr, host: None })
    }

    pub(crate) fn as_ptr(&self) -> *const sys::lake_stage_options {
        self.ptr
    }

    fn set_str(
        self,
        text: &str,
        f: unsafe extern "C" fn(
            *mut sys::lake_stage_options,
            *const std::os::raw::c_char,
            *mut *mut sys::lake_error,
        ) -> sys::lake_status,
    ) -> Result<Self> {
        let text = cstring(text)?;
        call(|err| unsafe { f(self.ptr, text.as_ptr(), err) })?;
        Ok(self)
    }

    /// A local stage rooted at `dir` (created if missing).
    pub fn local_root(self, dir: impl AsRef<Path>) -> Result<Self> {
        let dir = cpath(dir.as_ref())?;
        call(|err| unsafe { sys::lake_stage_options_set_local_root(self.ptr, dir.as_ptr(), err) })?;
        Ok(self)
    }
    pub fn tenant(self, tenant: &str) -> Result<Self> {
        self.set_str(tenant, sys::lake_stage_options_set_tenant)
    }
    /// "s3://BUCKET[/PREFIX]".
    pub fn s3(self, stage_uri: &str) -> Result<Self> {
        self.set_str(stage_uri, sys::lake_stage_options_set_s3)
    }
    pub fn s3_endpoint(self, url: &str) -> Result<Self> {
        self.set_str(url, sys::lake_stage_options_set_s3_endpoint)
    }
    pub fn s3_region(self, region: &str) -> Result<Self> {
        self.set_str(region, sys::lake_stage_options_set_s3_region)
    }
    pub fn s3_path_style(self, path_style: bool) -> Self {
        unsafe { sys::lake_stage_options_set_s3_path_style(self.ptr, path_style as c_int) };
        self
    }
    pub fn s3_concurrency(self, concurrency: u32) -> Result<Self> {
        call(|err| unsafe {
            sys::lake_stage_options_set_s3_concurrency(self.ptr, concurrency, err)
        })?;
        Ok(self)
    }
    pub fn s3_part_size(self, bytes: u64) -> Result<Self> {
        call(|err| unsafe { sys::lake_stage_options_set_s3_part_size(self.ptr, bytes, err) })?;
        Ok(self)
    }
    pub fn upload_checkpoint_dir(self, dir: &str) -> Result<Self> {
        self.set_str(dir, sys::lake_stage_options_set_upload_checkpoint_dir)
    }
    pub fn s3_download_streams(self, streams: u32) -> Result<Self> {
        call(|err| unsafe {
            sys::lake_stage_options_set_s3_download_streams(self.ptr, streams, err)
        })?;
        Ok(self)
    }
    pub fn s3_download_range_size(self, bytes: u64) -> Result<Self> {
        call(|err| unsafe {
            sys::lake_stage_options_set_s3_download_range_size(self.ptr, bytes, err)
        })?;
        Ok(self)
    }
    /// The stage a descriptor (`Stage::descriptor`) names.
    pub fn descriptor(self, json: &str) -> Result<Self> {
        call(|err| unsafe {
            sys::lake_stage_options_set_descriptor(
                self.ptr,
                json.as_ptr() as *const _,
                json.len(),
                err,
            )
        })?;
        Ok(self)
    }
    /// The host store's stable identity (a root needs one).
    pub fn host_id(self, host_id: &str) -> Result<Self> {
        self.set_str(host_id, sys::lake_stage_options_set_host_id)
    }
    /// Serves the stage from a host store written in Rust.
    pub fn host_store(mut self, store: impl crate::host::HostStore + 'static) -> Result<Self> {
        let (context, table) = HostContext::new(Box::new(store))?;
        call(|err| unsafe { sys::lake_stage_options_set_host_store(self.ptr, &table, err) })?;
        self.host = Some(context);
        Ok(self)
    }

    /// Frees the options now (as dropping them does).
    pub fn close(self) {}
}

crate::handle_count::free_on_drop!(StageOptions, sys::lake_stage_options_free);

/// One published object of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListEntry {
    pub uri: String,
    pub size_bytes: u64,
    pub modified_unix_micros: i64,
}

pub struct Stage {
    ptr: *mut sys::lake_stage,
    owned: bool,
    host: Option<Arc<HostContext>>,
}

// SAFETY: lake.h: a stage is thread-safe.
unsafe impl Send for Stage {}
unsafe impl Sync for Stage {}

impl Stage {
    /// Opens a standalone stage.
    pub fn open_with(options: &StageOptions) -> Result<Stage> {
        let mut out = std::ptr::null_mut();
        let host = options.host.clone();
        let lent = host.as_ref().map(|h| h.lend());
        let result = call(|err| unsafe { sys::lake_stage_open(options.as_ptr(), &mut out, err) });
        if let Err(error) = result {
            // lake keeps no ctx when the open fails: take the lent share back.
            if let (Some(h), Some(lent)) = (&host, lent) {
                h.unlend(lent);
            }
            return Err(error);
        }
        handles::opened();
        Ok(Stage { ptr: out, owned: true, host })
    }

    /// A standalone local stage rooted at `dir`.
    pub fn open_local(dir: impl AsRef<Path>) -> Result<Stage> {
        Stage::open_with(&StageOptions::new()?.local_root(dir)?)
    }

    /// The stage a root owns (not freed by this value).
    pub(crate) fn borrowed(ptr: *mut sys::lake_stage, host: Option<Arc<HostContext>>) -> Stage {
        Stage { ptr, owned: false, host }
    }

    /// The call's result, with a panic of the host store's callbacks first.
    fn finish<T>(&self, result: Result<T>) -> Result<T> {
        match &self.host {
            Some(host) => host.panics.finish(result),
            None => result,
        }
    }

    fn finish_with<T>(&self, options: Option<&UploadOptions>, result: Result<T>) -> Result<T> {
        let result = match options {
            Some(options) => options.finish(result),
            None => result,
        };
        self.finish(result)
    }

    /// The stage's credential-free descriptor (canonical JSON).
    pub fn descriptor(&self) -> String {
        unsafe { static_str(sys::lake_stage_descriptor(self.ptr)) }
    }

    /// "io_uring", "sync", "s3" or "host".
    pub fn io_backend(&self) -> String {
        unsafe { static_str(sys::lake_stage_io_backend(self.ptr)) }
    }

    /// Uploads the file at `path`.
    pub fn put_path(
        &self,
        path: impl AsRef<Path>,
        options: Option<&UploadOptions>,
    ) -> Result<Location> {
        let path = cpath(path.as_ref())?;
        let opts = options.map_or(std::ptr::null(), |o| o.as_ptr());
        let result = Location::out(|out, err| unsafe {
            sys::lake_stage_upload_path(self.ptr, path.as_ptr(), opts, out, err)
        });
        self.finish_with(options, result)
    }

    /// Uploads the bytes `source` yields until its end.
    pub fn put_reader(
        &self,
        source: impl Read + Send + 'static,
        options: Option<&UploadOptions>,
    ) -> Result<Location> {
        let mut source = ReadSource::new(Box::new(source));
        let opts = options.map_or(std::ptr::null(), |o| o.as_ptr());
        let ctx = source.ctx();
        let result = Location::out(|out, err| unsafe {
            sys::lake_stage_upload_reader(self.ptr, Some(read_trampoline), ctx, opts, out, err)
        });
        let result = source.panics.finish(result);
        self.finish_with(options, result)
    }

    /// A push upload; publish with [`Writer::close`].
    pub fn writer<'a>(&'a self, options: Option<&'a UploadOptions<'_>>) -> Result<Writer<'a>> {
        let result = Writer::open(self.ptr, options);
        self.finish_with(options, result)
    }

    /// A verified full read of `location`.
    pub fn open(&self, location: &Location) -> Result<Reader<'_>> {
        Reader::open(|out, err| unsafe {
            sys::lake_reader_open(self.ptr, location.as_ptr(), out, err)
        })
    }

    /// A read of bytes `[start, end)` (not verified against the SHA-256).
    pub fn open_range(&self, location: &Location, start: u64, end: u64) -> Result<Reader<'_>> {
        Reader::open(|out, err| unsafe {
            sys::lake_reader_open_range(self.ptr, location.as_ptr(), start, end, out, err)
        })
    }

    /// The whole object, verified.
    pub fn cat(&self, location: &Location) -> Result<Vec<u8>> {
        let result = (|| {
            let mut reader = self.open(location)?;
            let mut data = Vec::with_capacity(location.size_bytes() as usize);
            let mut chunk = vec![0u8; 1 << 20];
            loop {
                let n = reader.read_chunk(&mut chunk)?;
                if n == 0 {
                    break;
                }
                data.extend_from_slice(&chunk[..n]);
            }
            reader.close()?;
            Ok(data)
        })();
        self.finish(result)
    }

    /// Reads many ranges `(location, start, end)` at once. Every range's
    /// bytes, or the error of the first range that failed.
    pub fn read_ranges(&self, ranges: &[(&Location, u64, u64)]) -> Result<Vec<Vec<u8>>> {
        let mut buffers: Vec<Vec<u8>> = ranges
            .iter()
            .map(|&(_, start, end)| vec![0u8; end.saturating_sub(start) as usize])
            .collect();
        let mut raw: Vec<sys::lake_range> = ranges
            .iter()
            .zip(buffers.iter_mut())
            .map(|(&(location, start, end), buffer)| sys::lake_range {
                location: location.as_ptr(),
                start,
                end,
                buffer: buffer.as_mut_ptr() as *mut c_void,
                status: sys::LAKE_OK,
                bytes_read: 0,
                error: std::ptr::null_mut(),
            })
            .collect();
        let status = call(|err| unsafe {
            sys::lake_stage_read_ranges(self.ptr, raw.as_mut_ptr(), raw.len(), err)
        });
        // Every range's error is the caller's to free, whatever the status.
        let mut first: Option<Error> = None;
        for range in &raw {
            if range.status != sys::LAKE_OK || !range.error.is_null() {
                let error = unsafe { Error::from_raw(range.status, range.error) };
                if first.is_none() && range.status != sys::LAKE_OK {
                    first = Some(error);
                }
            }
        }
        if let Some(error) = first {
            return self.finish(Err(error));
        }
        self.finish(status)?;
        for (buffer, range) in buffers.iter_mut().zip(&raw) {
            buffer.truncate(range.bytes_read as usize);
        }
        Ok(buffers)
    }

    /// Every published object of the stage (or tenant).
    pub fn list(&self) -> Result<Vec<ListEntry>> {
        let mut entries = Collected::new();
        let ctx = entries.ctx();
        let result =
            call(|err| unsafe { sys::lake_stage_list(self.ptr, Some(list_trampoline), ctx, err) });
        self.finish(entries.finish(result)).map(|(entries, ())| entries)
    }

    /// Deletes a managed object (absent: success).
    pub fn delete(&self, location: &Location) -> Result<()> {
        let result =
            call(|err| unsafe { sys::lake_stage_delete(self.ptr, location.as_ptr(), err) });
        self.finish(result)
    }

    /// A GET URL for the object, valid `ttl_seconds` (S3 stages only).
    pub fn presign(&self, location: &Location, ttl_seconds: u32) -> Result<String> {
        let mut url = std::ptr::null_mut();
        call(|err| unsafe {
            sys::lake_stage_presign(self.ptr, location.as_ptr(), ttl_seconds, &mut url, err)
        })?;
        Ok(unsafe { take_string(url) })
    }

    /// Removes dead uploads' leftovers; how many.
    pub fn clean_staging(&self) -> Result<u64> {
        let mut removed = 0u64;
        call(|err| unsafe { sys::lake_stage_clean_staging(self.ptr, &mut removed, err) })?;
        Ok(removed)
    }

    /// Frees a standalone stage now (as dropping it does).
    pub fn close(self) {}
}

unsafe extern "C" fn list_trampoline(
    ctx: *mut c_void,
    entry: *const sys::lake_list_entry,
) -> c_int {
    let entry = &*entry;
    Collected::push(ctx, || ListEntry {
        uri: static_str(entry.uri),
        size_bytes: entry.size_bytes,
        modified_unix_micros: entry.modified_unix_micros,
    })
}

impl Drop for Stage {
    fn drop(&mut self) {
        if self.owned {
            unsafe { sys::lake_stage_free(self.ptr) };
            handles::freed();
        }
    }
}
