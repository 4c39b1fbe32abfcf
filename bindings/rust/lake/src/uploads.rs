//! Resumable uploads of a root's S3 stage: list, resume and abort the
//! checkpoints path-backed uploads keep.
use std::os::raw::{c_int, c_void};

use lake_sys as sys;

use crate::c_strings::{cstring, static_str};
use crate::db::Db;
use crate::error::{call, Result};
use crate::location::Location;
use crate::panic_slot::Collected;
use crate::upload::UploadOptions;

/// One upload checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadInfo {
    pub id: String,
    pub source_path: String,
    pub uri: String,
    pub parts_done: u64,
    pub bytes_done: u64,
    pub size_bytes: u64,
    pub part_bytes: u64,
    pub updated_unix_micros: i64,
    pub stale: bool,
    pub locked: bool,
    /// Why the checkpoint cannot be read, if it cannot.
    pub error: Option<String>,
}

unsafe extern "C" fn info_trampoline(
    ctx: *mut c_void,
    info: *const sys::lake_upload_info,
) -> c_int {
    let i = &*info;
    Collected::push(ctx, || UploadInfo {
        id: static_str(i.id),
        source_path: static_str(i.source_path),
        uri: static_str(i.uri),
        parts_done: i.parts_done,
        bytes_done: i.bytes_done,
        size_bytes: i.size_bytes,
        part_bytes: i.part_bytes,
        updated_unix_micros: i.updated_unix_micros,
        stale: i.stale != 0,
        locked: i.locked != 0,
        error: if i.error.is_null() { None } else { Some(static_str(i.error)) },
    })
}

impl Db {
    /// The upload checkpoints of the root's stage, in id order.
    pub fn uploads(&self) -> Result<Vec<UploadInfo>> {
        let mut uploads = Collected::new();
        let ctx = uploads.ctx();
        let result = call(|err| unsafe {
            sys::lake_db_uploads_list(self.as_ptr(), Some(info_trampoline), ctx, err)
        });
        uploads.finish(result).map(|(uploads, ())| uploads)
    }

    /// Resumes upload `id` from its source file.
    pub fn resume_upload(&self, id: &str, options: Option<&UploadOptions>) -> Result<Location> {
        let id = cstring(id)?;
        let opts = options.map_or(std::ptr::null(), |o| o.as_ptr());
        let result = Location::out(|out, err| unsafe {
            sys::lake_db_uploads_resume(self.as_ptr(), id.as_ptr(), opts, out, err)
        });
        match options {
            Some(o) => o.finish(result),
            None => result,
        }
    }

    /// Aborts upload `id` and removes its checkpoint.
    pub fn abort_upload(&self, id: &str) -> Result<()> {
        let id = cstring(id)?;
        call(|err| unsafe { sys::lake_db_uploads_abort(self.as_ptr(), id.as_ptr(), err) })
    }
}
