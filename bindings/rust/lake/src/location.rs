//! A DataLocation: the immutable identity {uri, content_type, size_bytes,
//! sha256} of one complete managed object. Owns its `lake_location`.
use std::fmt;

use lake_sys as sys;

use crate::c_strings::{cstring, static_str};
use crate::error::{call, Result};
use crate::handle_count as handles;

pub struct Location {
    ptr: *mut sys::lake_location,
}

// SAFETY: lake.h: a location is immutable and thread-safe.
unsafe impl Send for Location {}
unsafe impl Sync for Location {}

impl Location {
    /// Adopts a location lake returned (non-NULL).
    pub(crate) fn from_raw(ptr: *mut sys::lake_location) -> Location {
        handles::opened();
        Location { ptr }
    }

    pub(crate) fn out(
        f: impl FnOnce(*mut *mut sys::lake_location, *mut *mut sys::lake_error) -> sys::lake_status,
    ) -> Result<Location> {
        let mut out = std::ptr::null_mut();
        call(|err| f(&mut out, err))?;
        Ok(Location::from_raw(out))
    }

    pub(crate) fn as_ptr(&self) -> *const sys::lake_location {
        self.ptr
    }

    /// Builds a location from its fields (validated as lake validates JSON).
    pub fn new(uri: &str, content_type: &str, size_bytes: u64, sha256: &str) -> Result<Location> {
        crate::abi::check()?;
        let (uri, content_type, sha256) = (cstring(uri)?, cstring(content_type)?, cstring(sha256)?);
        Location::out(|out, err| unsafe {
            sys::lake_location_new(
                uri.as_ptr(),
                content_type.as_ptr(),
                size_bytes,
                sha256.as_ptr(),
                out,
                err,
            )
        })
    }

    /// Parses the canonical JSON form (INVALID_ARGUMENT, InvalidLocation).
    pub fn from_json(json: &str) -> Result<Location> {
        crate::abi::check()?;
        Location::out(|out, err| unsafe {
            sys::lake_location_from_json(json.as_ptr() as *const _, json.len(), out, err)
        })
    }

    /// Canonical JSON: fixed key order, no whitespace.
    pub fn json(&self) -> String {
        unsafe { static_str(sys::lake_location_json(self.ptr)) }
    }
    pub fn uri(&self) -> String {
        unsafe { static_str(sys::lake_location_uri(self.ptr)) }
    }
    pub fn content_type(&self) -> String {
        unsafe { static_str(sys::lake_location_content_type(self.ptr)) }
    }
    pub fn size_bytes(&self) -> u64 {
        unsafe { sys::lake_location_size_bytes(self.ptr) }
    }
    /// 64 lowercase hexadecimal characters.
    pub fn sha256(&self) -> String {
        unsafe { static_str(sys::lake_location_sha256(self.ptr)) }
    }

    /// Frees the location now (as dropping it does).
    pub fn close(self) {}
}

impl Clone for Location {
    fn clone(&self) -> Location {
        Location::from_json(&self.json()).expect("a location's own JSON parses")
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Location({})", self.json())
    }
}

impl PartialEq for Location {
    fn eq(&self, other: &Location) -> bool {
        self.json() == other.json()
    }
}

crate::handle_count::free_on_drop!(Location, sys::lake_location_free);
