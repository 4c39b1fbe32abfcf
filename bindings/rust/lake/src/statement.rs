//! A prepared statement. It borrows its root (`'db`). Streams bound to FILE
//! parameters are owned by the statement (boxed: lake's ctx is their fixed
//! address) until rebound or the statement is dropped, which is as long as
//! lake may read them; dropping the statement releases them (H-005). Query
//! results borrow the root, not the statement, so they outlive it.
use std::collections::HashMap;
use std::io::Read;
use std::marker::PhantomData;
use std::path::Path;

use lake_sys as sys;

use crate::arrow::{ArrowStream, QueryResult};
use crate::c_strings::{cpath, cstring, optional_cstring, ptr_or_null};
use crate::error::{call, Result};
use crate::handle_count as handles;
use crate::location::Location;
use crate::read_source::{read_trampoline, ReadSource};
use crate::upload::UploadOptions;

/// A value bound to a `?` placeholder.
pub enum Param<'a> {
    Null,
    Int64(i64),
    Float64(f64),
    Bool(bool),
    Utf8(&'a str),
    Binary(&'a [u8]),
    TimestampMicros(i64),
    /// Text parsed by the column's type, as the CLI's --param.
    Text(&'a str),
    /// A FILE uploaded from a path when the INSERT runs (content type).
    File(&'a Path, Option<&'a str>),
    /// A FILE uploaded from a stream when the INSERT runs (content type).
    Reader(Box<dyn Read + Send>, Option<&'a str>),
    /// An existing object of the root's stage.
    Location(&'a Location),
}

impl<'a> Param<'a> {
    /// A FILE read from `source` (application/octet-stream).
    pub fn reader(source: impl Read + Send + 'static) -> Param<'a> {
        Param::Reader(Box::new(source), None)
    }
    /// A FILE uploaded from `path`.
    pub fn file(path: &'a (impl AsRef<Path> + ?Sized)) -> Param<'a> {
        Param::File(path.as_ref(), None)
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Utf8(v)
    }
}
impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Utf8(v)
    }
}
impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int64(v)
    }
}
impl From<f64> for Param<'_> {
    fn from(v: f64) -> Self {
        Param::Float64(v)
    }
}
impl From<bool> for Param<'_> {
    fn from(v: bool) -> Self {
        Param::Bool(v)
    }
}
impl<'a> From<&'a [u8]> for Param<'a> {
    fn from(v: &'a [u8]) -> Self {
        Param::Binary(v)
    }
}
impl<'a> From<&'a Path> for Param<'a> {
    fn from(v: &'a Path) -> Self {
        Param::File(v, None)
    }
}
impl<'a> From<&'a std::path::PathBuf> for Param<'a> {
    fn from(v: &'a std::path::PathBuf) -> Self {
        Param::File(v, None)
    }
}
impl<'a> From<&'a Location> for Param<'a> {
    fn from(v: &'a Location) -> Self {
        Param::Location(v)
    }
}
impl<'a, T: Into<Param<'a>>> From<Option<T>> for Param<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Param::Null, Into::into)
    }
}

/// `params![a, b, …]`: a `Vec<Param>` of values converted with `Into`.
#[macro_export]
macro_rules! params {
    ($($value:expr),* $(,)?) => { vec![$($crate::Param::from($value)),*] };
}

pub struct Statement<'db> {
    ptr: *mut sys::lake_statement,
    /// Streams bound to FILE parameters, by index. Fields drop after
    /// `Drop::drop` freed the statement: lake no longer holds them then.
    sources: HashMap<usize, Box<ReadSource>>,
    _db: PhantomData<&'db crate::Db>,
}

// SAFETY: not thread-safe in lake: Send (moves), not Sync; &mut self to run.
unsafe impl Send for Statement<'_> {}

impl<'db> Statement<'db> {
    pub(crate) fn adopt(ptr: *mut sys::lake_statement) -> Statement<'db> {
        handles::opened();
        Statement { ptr, sources: HashMap::new(), _db: PhantomData }
    }

    pub fn parameter_count(&self) -> usize {
        unsafe { sys::lake_statement_parameter_count(self.ptr) }
    }

    /// Binds placeholder `index` (1-based).
    pub fn bind<'a>(&mut self, index: usize, value: impl Into<Param<'a>>) -> Result<()> {
        let p = self.ptr;
        let result = match value.into() {
            Param::Null => call(|err| unsafe { sys::lake_statement_bind_null(p, index, err) }),
            Param::Int64(v) => {
                call(|err| unsafe { sys::lake_statement_bind_int64(p, index, v, err) })
            }
            Param::Float64(v) => {
                call(|err| unsafe { sys::lake_statement_bind_float64(p, index, v, err) })
            }
            Param::Bool(v) => {
                call(|err| unsafe { sys::lake_statement_bind_bool(p, index, v as i32, err) })
            }
            Param::Utf8(v) => call(|err| unsafe {
                sys::lake_statement_bind_utf8(p, index, v.as_ptr() as *const _, v.len(), err)
            }),
            Param::Binary(v) => call(|err| unsafe {
                sys::lake_statement_bind_binary(p, index, v.as_ptr() as *const _, v.len(), err)
            }),
            Param::TimestampMicros(v) => {
                call(|err| unsafe { sys::lake_statement_bind_timestamp_micros(p, index, v, err) })
            }
            Param::Text(v) => {
                let text = cstring(v)?;
                call(|err| unsafe { sys::lake_statement_bind_text(p, index, text.as_ptr(), err) })
            }
            Param::File(path, content_type) => {
                let (path, content_type) = (cpath(path)?, optional_cstring(content_type)?);
                call(|err| unsafe {
                    sys::lake_statement_bind_file_path(
                        p,
                        index,
                        path.as_ptr(),
                        ptr_or_null(&content_type),
                        err,
                    )
                })
            }
            Param::Reader(reader, content_type) => {
                let content_type = optional_cstring(content_type)?;
                let mut source = ReadSource::new(reader);
                let ctx = source.ctx();
                call(|err| unsafe {
                    sys::lake_statement_bind_file_reader(
                        p,
                        index,
                        Some(read_trampoline),
                        ctx,
                        ptr_or_null(&content_type),
                        err,
                    )
                })?;
                // Kept until rebound or the statement is dropped: lake may read it until then.
                self.sources.insert(index, source);
                return Ok(());
            }
            Param::Location(location) => call(|err| unsafe {
                sys::lake_statement_bind_location(p, index, location.as_ptr(), err)
            }),
        };
        result?;
        // Any other binding replaces a stream bound there before.
        self.sources.remove(&index);
        Ok(())
    }

    /// Binds `params` to placeholders 1, 2, ….
    pub fn bind_all(&mut self, params: Vec<Param<'_>>) -> Result<()> {
        for (i, param) in params.into_iter().enumerate() {
            self.bind(i + 1, param)?;
        }
        Ok(())
    }

    /// A panic of a bound stream wins over the call's own result.
    fn finish<T>(&self, mut result: Result<T>) -> Result<T> {
        for source in self.sources.values() {
            result = source.panics.finish(result);
        }
        result
    }

    /// Runs an INSERT; the table's new version.
    pub fn insert(&mut self) -> Result<u64> {
        self.insert_with(None)
    }

    /// Runs an INSERT with the uploads' progress and cancellation.
    pub fn insert_with(&mut self, options: Option<&UploadOptions>) -> Result<u64> {
        let mut version = 0u64;
        let opts = options.map_or(std::ptr::null(), |o| o.as_ptr());
        let result =
            call(|err| unsafe { sys::lake_statement_insert(self.ptr, opts, &mut version, err) });
        let result = match options {
            Some(options) => options.finish(result),
            None => result,
        };
        self.finish(result).map(|_| version)
    }

    /// Runs a SELECT; the result borrows the root, not the statement.
    pub fn query(&mut self) -> Result<QueryResult<'db>> {
        let mut stream = ArrowStream::empty();
        call(|err| unsafe { sys::lake_statement_query(self.ptr, stream.as_mut_ptr(), err) })?;
        QueryResult::new(stream)
    }

    /// Runs a DELETE, replace-where, DROP TABLE or ALTER TABLE: (version, rows).
    pub fn execute(&mut self) -> Result<(u64, u64)> {
        let (mut version, mut rows) = (0u64, 0u64);
        let result = call(|err| unsafe {
            sys::lake_statement_execute(self.ptr, &mut version, &mut rows, err)
        });
        self.finish(result).map(|_| (version, rows))
    }

    /// (deleted, inserted) rows of the last successful run.
    pub fn changes(&self) -> (u64, u64) {
        let (mut deleted, mut inserted) = (0u64, 0u64);
        unsafe { sys::lake_statement_changes(self.ptr, &mut deleted, &mut inserted) };
        (deleted, inserted)
    }

    /// Frees the statement and the streams bound to it (as dropping it does).
    pub fn close(self) {}
}

crate::handle_count::free_on_drop!(Statement<'_>, sys::lake_statement_free);
