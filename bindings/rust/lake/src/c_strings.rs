//! Small conversions at the C boundary: strings in and out.
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::path::Path;

use lake_sys as sys;

use crate::error::{Error, Result, Status};

/// Copies a NUL-terminated string lake owns ("" for NULL).
///
/// # Safety
/// `text` is NULL or a valid NUL-terminated string.
pub(crate) unsafe fn static_str(text: *const c_char) -> String {
    if text.is_null() {
        String::new()
    } else {
        CStr::from_ptr(text).to_string_lossy().into_owned()
    }
}

/// Takes a string lake allocated for the caller and frees it (lake_string_free).
///
/// # Safety
/// `text` is NULL or a string lake returned through a `char**` out-parameter.
pub(crate) unsafe fn take_string(text: *mut c_char) -> String {
    let copy = static_str(text);
    sys::lake_string_free(text);
    copy
}

/// A C string of `text`; a NUL inside is the INVALID_ARGUMENT error.
pub(crate) fn cstring(text: &str) -> Result<CString> {
    CString::new(text).map_err(|_| {
        Error::binding(Status::InvalidArgument, format!("string holds a NUL byte: {:?}", text))
    })
}

/// A C string of a path (its bytes, as the OS gives them).
pub(crate) fn cpath(path: &Path) -> Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        Error::binding(Status::InvalidArgument, format!("path holds a NUL byte: {:?}", path))
    })
}

/// `Some(text)`'s C string, or None.
pub(crate) fn optional_cstring(text: Option<&str>) -> Result<Option<CString>> {
    text.map(cstring).transpose()
}

pub(crate) fn ptr_or_null(text: &Option<CString>) -> *const c_char {
    text.as_ref().map_or(std::ptr::null(), |t| t.as_ptr())
}
