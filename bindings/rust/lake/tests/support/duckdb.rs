//! The part of DuckDB's C API (duckdb.h, 1.x) S-013 calls, loaded with
//! dlopen from $LAKE_DUCKDB_LIB (scripts/fetch-duckdb).
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_NOW: c_int = 2;

#[repr(C)]
struct DuckResult {
    column_count: u64,
    row_count: u64,
    rows_changed: u64,
    columns: *mut c_void,
    error_message: *mut c_char,
    internal_data: *mut c_void,
}

type Open = unsafe extern "C" fn(*const c_char, *mut *mut c_void) -> c_int;
type Close = unsafe extern "C" fn(*mut *mut c_void);
type Connect = unsafe extern "C" fn(*mut c_void, *mut *mut c_void) -> c_int;
type Query = unsafe extern "C" fn(*mut c_void, *const c_char, *mut DuckResult) -> c_int;
type DestroyResult = unsafe extern "C" fn(*mut DuckResult);
type ResultError = unsafe extern "C" fn(*mut DuckResult) -> *const c_char;
type RowCount = unsafe extern "C" fn(*mut DuckResult) -> u64;
type ValueVarchar = unsafe extern "C" fn(*mut DuckResult, u64, u64) -> *mut c_char;
type Free = unsafe extern "C" fn(*mut c_void);
type ArrowScan = unsafe extern "C" fn(*mut c_void, *const c_char, *mut c_void) -> c_int;

pub struct DuckDb {
    lib: *mut c_void,
    db: *mut c_void,
    connection: *mut c_void,
    /// Streams DuckDB scans: kept (and released) until DuckDB is closed.
    streams: std::cell::RefCell<Vec<Box<lake::ArrowStream>>>,
}

impl DuckDb {
    unsafe fn symbol<T: Copy>(&self, name: &str) -> T {
        let name = CString::new(name).unwrap();
        let f = dlsym(self.lib, name.as_ptr());
        assert!(!f.is_null(), "no {:?} in libduckdb", name);
        std::mem::transmute_copy(&f)
    }

    pub fn open(path: &str) -> DuckDb {
        let path = CString::new(path).unwrap();
        let lib = unsafe { dlopen(path.as_ptr(), RTLD_NOW) };
        assert!(!lib.is_null(), "dlopen {:?} failed", path);
        let mut duck = DuckDb {
            lib,
            db: std::ptr::null_mut(),
            connection: std::ptr::null_mut(),
            streams: Default::default(),
        };
        unsafe {
            let open: Open = duck.symbol("duckdb_open");
            assert_eq!(open(std::ptr::null(), &mut duck.db), 0);
            let connect: Connect = duck.symbol("duckdb_connect");
            assert_eq!(connect(duck.db, &mut duck.connection), 0);
        }
        duck
    }

    /// Lets DuckDB read `stream` (a stream is read once) as view `name`.
    pub fn scan(&self, stream: lake::ArrowStream, name: &str) {
        let mut stream = Box::new(stream);
        let name = CString::new(name).unwrap();
        unsafe {
            let scan: ArrowScan = self.symbol("duckdb_arrow_scan");
            assert_eq!(scan(self.connection, name.as_ptr(), stream.as_mut_ptr() as *mut c_void), 0);
        }
        self.streams.borrow_mut().push(stream);
    }

    /// The first value of the first row of `sql`'s result, as text.
    pub fn one(&self, sql: &str) -> Option<String> {
        let sql = CString::new(sql).unwrap();
        let mut result = DuckResult {
            column_count: 0,
            row_count: 0,
            rows_changed: 0,
            columns: std::ptr::null_mut(),
            error_message: std::ptr::null_mut(),
            internal_data: std::ptr::null_mut(),
        };
        unsafe {
            let query: Query = self.symbol("duckdb_query");
            let destroy: DestroyResult = self.symbol("duckdb_destroy_result");
            if query(self.connection, sql.as_ptr(), &mut result) != 0 {
                let error: ResultError = self.symbol("duckdb_result_error");
                let message = CStr::from_ptr(error(&mut result)).to_string_lossy().into_owned();
                destroy(&mut result);
                panic!("DuckDB: {}", message);
            }
            let rows: RowCount = self.symbol("duckdb_row_count");
            let mut text = None;
            if rows(&mut result) == 1 {
                let value: ValueVarchar = self.symbol("duckdb_value_varchar");
                let free: Free = self.symbol("duckdb_free");
                let v = value(&mut result, 0, 0);
                if !v.is_null() {
                    text = Some(CStr::from_ptr(v).to_string_lossy().into_owned());
                    free(v as *mut c_void);
                }
            }
            destroy(&mut result);
            text
        }
    }
}

impl Drop for DuckDb {
    fn drop(&mut self) {
        unsafe {
            let disconnect: Close = self.symbol("duckdb_disconnect");
            disconnect(&mut self.connection);
            let close: Close = self.symbol("duckdb_close");
            close(&mut self.db);
        }
        self.streams.borrow_mut().clear(); // released after DuckDB let go of them
    }
}
