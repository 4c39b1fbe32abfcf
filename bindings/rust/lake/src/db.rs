//! A lake root (`lake_db`): tables, statements, event logs, GC and the
//! root's stage. Thread-safe: `&Db` may be shared between threads.
//! Everything opened from it borrows it (`'db`), so a root cannot be closed
//! while a statement, result, reader or event log of it is alive (H-003);
//! closing it frees the handle and releases its writer lock at once (H-006).
use std::path::Path;

use lake_sys as sys;

use crate::arrow::QueryResult;
use crate::c_strings::{cpath, cstring, take_string};
use crate::error::{call, Result};
use crate::handle_count as handles;
use crate::location::Location;
use crate::stage::{Stage, StageOptions};
use crate::statement::{Param, Statement};

pub struct Db {
    ptr: *mut sys::lake_db,
    stage: Stage,
}

// SAFETY: lake.h: a root is thread-safe.
unsafe impl Send for Db {}
unsafe impl Sync for Db {}

/// Runs a call with a `char** json_out` and returns the string.
pub(crate) fn json_call(
    f: impl FnOnce(*mut *mut std::os::raw::c_char, *mut *mut sys::lake_error) -> sys::lake_status,
) -> Result<String> {
    let mut out = std::ptr::null_mut();
    call(|err| f(&mut out, err))?;
    Ok(unsafe { take_string(out) })
}

impl Db {
    /// Opens the root at `dir`, creating it (with a local stage) if needed.
    pub fn open(dir: impl AsRef<Path>) -> Result<Db> {
        crate::abi::check()?;
        Db::open_raw(dir.as_ref(), None)
    }

    /// Opens the root with stage options (S3, tenant, host store).
    pub fn open_with(dir: impl AsRef<Path>, options: &StageOptions) -> Result<Db> {
        Db::open_raw(dir.as_ref(), Some(options))
    }

    fn open_raw(dir: &Path, options: Option<&StageOptions>) -> Result<Db> {
        let dir = cpath(dir)?;
        let host = options.and_then(|o| o.host.clone());
        let lent = host.as_ref().map(|h| h.lend());
        let mut out = std::ptr::null_mut();
        let opts = options.map_or(std::ptr::null(), |o| o.as_ptr());
        if let Err(error) =
            call(|err| unsafe { sys::lake_db_open(dir.as_ptr(), opts, &mut out, err) })
        {
            if let (Some(h), Some(lent)) = (&host, lent) {
                h.unlend(lent);
            }
            return Err(error);
        }
        Ok(Db::adopt(out, host))
    }

    fn adopt(ptr: *mut sys::lake_db, host: Option<std::sync::Arc<crate::host::HostContext>>) -> Db {
        handles::opened();
        let stage = Stage::borrowed(unsafe { sys::lake_db_stage(ptr) }, host);
        Db { ptr, stage }
    }

    /// Opens the root as a follower of its writers (reads only).
    pub fn open_follower(dir: impl AsRef<Path>, max_staleness_ms: u32) -> Result<Db> {
        crate::abi::check()?;
        let dir = cpath(dir.as_ref())?;
        let mut out = std::ptr::null_mut();
        call(|err| unsafe {
            sys::lake_db_open_follower(dir.as_ptr(), max_staleness_ms, &mut out, err)
        })?;
        Ok(Db::adopt(out, None))
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::lake_db {
        self.ptr
    }

    /// The root's stage (owned by the root).
    pub fn stage(&self) -> &Stage {
        &self.stage
    }

    /// Frees the root now: its writer lock is released when this returns.
    pub fn close(self) {}

    /// A follower's view age in microseconds (0 for the writer; -1 before any table call).
    pub fn view_age_micros(&self) -> i64 {
        unsafe { sys::lake_db_view_age_micros(self.ptr) }
    }

    pub fn set_busy_timeout(&self, busy_timeout_ms: u32) -> Result<()> {
        call(|err| unsafe { sys::lake_db_set_busy_timeout(self.ptr, busy_timeout_ms, err) })
    }

    /// Creates table "ns.table" with columns "name:type".
    pub fn create_table(&self, table: &str, columns: &[&str]) -> Result<()> {
        let table = cstring(table)?;
        let columns = columns.iter().map(|c| cstring(c)).collect::<Result<Vec<_>>>()?;
        let pointers: Vec<_> = columns.iter().map(|c| c.as_ptr()).collect();
        call(|err| unsafe {
            sys::lake_table_create(self.ptr, table.as_ptr(), pointers.as_ptr(), pointers.len(), err)
        })
    }

    /// The tables as JSON: `[{"name":"ns.t","table_id":1,"version":3,"columns":[…]},…]`.
    pub fn tables(&self) -> Result<String> {
        json_call(|out, err| unsafe { sys::lake_table_list(self.ptr, out, err) })
    }

    /// One table as JSON, with "total_rows", "fragments", "tags", ….
    pub fn describe_table(&self, table: &str) -> Result<String> {
        let table = cstring(table)?;
        json_call(|out, err| unsafe {
            sys::lake_table_describe(self.ptr, table.as_ptr(), out, err)
        })
    }

    pub fn table_versions(&self, table: &str) -> Result<String> {
        let table = cstring(table)?;
        json_call(|out, err| unsafe {
            sys::lake_table_versions(self.ptr, table.as_ptr(), out, err)
        })
    }

    /// Merges the current version's fragments; the new (or current) version.
    pub fn compact_table(&self, table: &str) -> Result<u64> {
        let table = cstring(table)?;
        let mut version = 0u64;
        call(|err| unsafe {
            sys::lake_table_compact(self.ptr, table.as_ptr(), &mut version, err)
        })?;
        Ok(version)
    }

    /// Rewrites the table log's mostly-dead segments;
    /// `{"compacted":…,"version":N,…}`.
    pub fn compact_table_segments(&self, table: &str) -> Result<String> {
        let table = cstring(table)?;
        json_call(|out, err| unsafe {
            sys::lake_table_compact_segments(self.ptr, table.as_ptr(), out, err)
        })
    }

    pub fn drop_table(&self, table: &str) -> Result<()> {
        let table = cstring(table)?;
        call(|err| unsafe { sys::lake_table_drop(self.ptr, table.as_ptr(), err) })
    }

    pub fn tag_table(&self, table: &str, tag: &str, version: u64) -> Result<()> {
        let (table, tag) = (cstring(table)?, cstring(tag)?);
        call(|err| unsafe {
            sys::lake_table_tag(self.ptr, table.as_ptr(), tag.as_ptr(), version, err)
        })
    }

    pub fn untag_table(&self, table: &str, tag: &str) -> Result<()> {
        let (table, tag) = (cstring(table)?, cstring(tag)?);
        call(|err| unsafe { sys::lake_table_untag(self.ptr, table.as_ptr(), tag.as_ptr(), err) })
    }

    /// Retires old versions; `{"retired":[…],"current_version":N}`.
    pub fn expire_table(
        &self,
        table: &str,
        keep_last: u64,
        older_than_seconds: Option<u64>,
    ) -> Result<String> {
        let table = cstring(table)?;
        let older = older_than_seconds.map_or(-1, |s| s as i64);
        json_call(|out, err| unsafe {
            sys::lake_table_expire(self.ptr, table.as_ptr(), keep_last, older, out, err)
        })
    }

    /// Prepares a statement of lake's SQL subset.
    pub fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        let sql = cstring(sql)?;
        let mut out = std::ptr::null_mut();
        call(|err| unsafe { sys::lake_db_prepare(self.ptr, sql.as_ptr(), &mut out, err) })?;
        Ok(Statement::adopt(out))
    }

    /// Prepares, binds `params` (1, 2, …) and runs an INSERT: the new version.
    pub fn insert(&self, sql: &str, params: Vec<Param<'_>>) -> Result<u64> {
        let mut statement = self.prepare(sql)?;
        statement.bind_all(params)?;
        statement.insert()
    }

    /// Prepares, binds and runs a SELECT.
    pub fn query(&self, sql: &str, params: Vec<Param<'_>>) -> Result<QueryResult<'_>> {
        let mut statement = self.prepare(sql)?;
        statement.bind_all(params)?;
        statement.query()
    }

    /// Prepares, binds and runs a DELETE, replace-where, DROP or ALTER:
    /// (version, rows).
    pub fn execute(&self, sql: &str, params: Vec<Param<'_>>) -> Result<(u64, u64)> {
        let mut statement = self.prepare(sql)?;
        statement.bind_all(params)?;
        statement.execute()
    }

    /// Pins an object of the root's stage against garbage collection.
    pub fn pin(&self, location: &Location) -> Result<()> {
        call(|err| unsafe { sys::lake_db_pin(self.ptr, location.as_ptr(), err) })
    }

    pub fn unpin(&self, location: &Location) -> Result<()> {
        call(|err| unsafe { sys::lake_db_unpin(self.ptr, location.as_ptr(), err) })
    }

    /// The append checkpoints that may still commit, as JSON.
    pub fn pending_appends(&self) -> Result<String> {
        json_call(|out, err| unsafe { sys::lake_db_pending_appends(self.ptr, out, err) })
    }

    /// Settles every pending append; what happened, as JSON.
    pub fn recover(&self) -> Result<String> {
        json_call(|out, err| unsafe { sys::lake_db_recover(self.ptr, out, err) })
    }

    /// Moves a pending append aside for good; the path it was moved to.
    pub fn discard_append(&self, operation_id: &str) -> Result<String> {
        let id = cstring(operation_id)?;
        json_call(|out, err| unsafe {
            sys::lake_db_discard_append(self.ptr, id.as_ptr(), out, err)
        })
    }
}

crate::handle_count::free_on_drop!(Db, sys::lake_db_free);
