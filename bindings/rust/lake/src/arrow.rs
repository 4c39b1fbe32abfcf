//! Query results as the Arrow C stream interface. [`ArrowStream`] is the C
//! `ArrowArrayStream` itself (`#[repr(transparent)]`), released on drop;
//! [`QueryResult::into_arrow_stream`] hands it to any Arrow consumer
//! (DuckDB, arrow-rs's FFI) as the standard export. A result borrows its
//! root (`'db`): lake.h lets it outlive its statement, not the root.
use std::ffi::CStr;
use std::marker::PhantomData;

use lake_sys as sys;

use crate::error::{Error, Result, Status};
use crate::location::Location;

/// `impl Drop` for a wrapper of an Arrow C struct: calls its `release`
/// unless it was released or moved out (release == NULL), as the
/// specification's ownership rules say: whoever holds it releases it once.
macro_rules! released_on_drop {
    ($wrapper:ty) => {
        impl Drop for $wrapper {
            fn drop(&mut self) {
                if let Some(release) = self.0.release {
                    unsafe { release(&mut self.0) };
                }
            }
        }
    };
}

/// An Arrow C stream that releases itself when dropped.
#[repr(transparent)]
pub struct ArrowStream(sys::ArrowArrayStream);

// SAFETY: the stream's callbacks are used by one caller at a time (&mut).
unsafe impl Send for ArrowStream {}

impl ArrowStream {
    /// A released stream, to be filled by a producer.
    pub fn empty() -> ArrowStream {
        ArrowStream(sys::ArrowArrayStream::empty())
    }

    pub fn as_mut_ptr(&mut self) -> *mut sys::ArrowArrayStream {
        &mut self.0
    }

    /// Moves the C struct out: the caller now owns it and releases it.
    pub fn into_raw(self) -> sys::ArrowArrayStream {
        let this = std::mem::ManuallyDrop::new(self);
        unsafe { std::ptr::read(&this.0) }
    }

    pub fn is_released(&self) -> bool {
        self.0.release.is_none()
    }

    fn error(&mut self, code: i32) -> Error {
        let message = match self.0.get_last_error {
            Some(f) => {
                let text = unsafe { f(&mut self.0) };
                if text.is_null() {
                    String::new()
                } else {
                    unsafe { CStr::from_ptr(text).to_string_lossy().into_owned() }
                }
            }
            None => String::new(),
        };
        let status = match code {
            74 /* EBADMSG */ => Status::Integrity,
            22 /* EINVAL */ => Status::InvalidArgument,
            5 /* EIO */ => Status::Io,
            _ => Status::Internal,
        };
        Error::new(status, format!("query stream failed (errno {}): {}", code, message))
    }

    fn schema(&mut self) -> Result<Schema> {
        let mut schema = Schema(sys::ArrowSchema::empty());
        let get = self
            .0
            .get_schema
            .ok_or_else(|| Error::new(Status::InvalidArgument, "released stream"))?;
        let code = unsafe { get(&mut self.0, &mut schema.0) };
        if code != 0 {
            return Err(self.error(code));
        }
        Ok(schema)
    }

    fn next_array(&mut self) -> Result<Option<Array>> {
        let mut array = Array(sys::ArrowArray::empty());
        let get = self
            .0
            .get_next
            .ok_or_else(|| Error::new(Status::InvalidArgument, "released stream"))?;
        let code = unsafe { get(&mut self.0, &mut array.0) };
        if code != 0 {
            return Err(self.error(code));
        }
        Ok(if array.0.release.is_none() { None } else { Some(array) })
    }
}

released_on_drop!(ArrowStream);

/// An Arrow schema, released on drop.
pub struct Schema(sys::ArrowSchema);

impl Schema {
    pub fn as_ptr(&self) -> *const sys::ArrowSchema {
        &self.0
    }
    fn child(&self, i: usize) -> &sys::ArrowSchema {
        assert!((i as i64) < self.0.n_children, "field {} out of range", i);
        unsafe { &**self.0.children.add(i) }
    }
    /// The top-level field names.
    pub fn names(&self) -> Vec<String> {
        (0..self.0.n_children as usize)
            .map(|i| unsafe { crate::c_strings::static_str(self.child(i).name) })
            .collect()
    }
    /// The format string of field `i` ("u", "l", "+s", …).
    pub fn format(&self, i: usize) -> String {
        unsafe { crate::c_strings::static_str(self.child(i).format) }
    }
}

released_on_drop!(Schema);

struct Array(sys::ArrowArray);

released_on_drop!(Array);

// SAFETY: an exported array is immutable; release happens once, on drop.
unsafe impl Send for Array {}
unsafe impl Send for Schema {}

pub struct QueryResult<'db> {
    stream: ArrowStream,
    schema: Schema,
    _db: PhantomData<&'db crate::Db>,
}

impl<'db> QueryResult<'db> {
    pub(crate) fn new(mut stream: ArrowStream) -> Result<QueryResult<'db>> {
        let schema = stream.schema()?;
        Ok(QueryResult { stream, schema, _db: PhantomData })
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn column_names(&self) -> Vec<String> {
        self.schema.names()
    }

    /// The next batch, or None at the end.
    pub fn next_batch(&mut self) -> Result<Option<Batch<'_>>> {
        let schema = &self.schema;
        Ok(self.stream.next_array()?.map(|array| Batch { array, schema }))
    }

    /// Every remaining batch.
    pub fn batches(&mut self) -> Result<Vec<Batch<'_>>> {
        let mut batches = Vec::new();
        let schema = &self.schema;
        while let Some(array) = self.stream.next_array()? {
            batches.push(Batch { array, schema });
        }
        Ok(batches)
    }

    /// The standard export: the Arrow C stream (schema re-readable from it).
    pub fn into_arrow_stream(self) -> ArrowStream {
        self.stream
    }
}

/// One record batch of a result: a struct array of the result's schema.
pub struct Batch<'r> {
    array: Array,
    schema: &'r Schema,
}

impl<'r> Batch<'r> {
    pub fn num_rows(&self) -> usize {
        self.array.0.length as usize
    }

    /// The index of the field named `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.schema.names().iter().position(|n| n == name)
    }

    /// Column `i` when it exists and its format is `format` (the Arrow C
    /// format string); INVALID_ARGUMENT naming `what` otherwise.
    fn column(&self, i: usize, format: &str, what: &str) -> Result<&sys::ArrowArray> {
        if (i as i64) >= self.array.0.n_children || self.schema.format(i) != format {
            return Err(Error::binding(
                Status::InvalidArgument,
                format!("column {} is no {} column", i, what),
            ));
        }
        Ok(unsafe { &**self.array.0.children.add(i) })
    }

    /// Each row's value (None for null) of `column`, by `value(index)`,
    /// where index counts from the buffers' start (the array's offset added).
    fn values<T>(column: &sys::ArrowArray, value: impl Fn(usize) -> T) -> Vec<Option<T>> {
        let validity = unsafe { *column.buffers } as *const u8;
        (column.offset as usize..(column.offset + column.length) as usize)
            .map(|at| {
                let valid =
                    validity.is_null() || unsafe { *validity.add(at / 8) } & (1 << (at % 8)) != 0;
                if valid {
                    Some(value(at))
                } else {
                    None
                }
            })
            .collect()
    }

    /// A utf8 ("u") column's values; None for null.
    pub fn utf8(&self, i: usize) -> Result<Vec<Option<String>>> {
        let column = self.column(i, "u", "utf8")?;
        let offsets = unsafe { *column.buffers.add(1) } as *const i32;
        let data = unsafe { *column.buffers.add(2) } as *const u8;
        Ok(Batch::values(column, |at| {
            let (start, end) =
                unsafe { (*offsets.add(at) as usize, *offsets.add(at + 1) as usize) };
            if start == end {
                return String::new(); // the data buffer may be NULL then
            }
            let bytes = unsafe { std::slice::from_raw_parts(data.add(start), end - start) };
            String::from_utf8_lossy(bytes).into_owned()
        }))
    }

    /// An int64 ("l") column's values; None for null.
    pub fn int64(&self, i: usize) -> Result<Vec<Option<i64>>> {
        let column = self.column(i, "l", "int64")?;
        let values = unsafe { *column.buffers.add(1) } as *const i64;
        Ok(Batch::values(column, |at| unsafe { *values.add(at) }))
    }

    /// The DataLocation of FILE column `column`, row `row`
    /// (NOT_FOUND for a null cell).
    pub fn location(&self, column: usize, row: usize) -> Result<Location> {
        Location::out(|out, err| unsafe {
            sys::lake_location_from_arrow(
                self.schema.as_ptr(),
                &self.array.0,
                column as i64,
                row as i64,
                out,
                err,
            )
        })
    }
}
