//! The binding's error: lake's `lake_error` copied into Rust, or an error of
//! the binding itself (ABI mismatch, a panic caught in a callback, a string
//! holding NUL). Every error has a [`Status`]; a status code the binding
//! does not know becomes [`Status::Internal`] (its code is kept).
use std::ffi::CStr;
use std::fmt;

use lake_sys as sys;

/// Why a call failed: one variant per `lake_status` but `LAKE_OK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    InvalidArgument,
    Integrity,
    Conflict,
    Io,
    NotFound,
    Cancelled,
    Internal,
    Unsupported,
}

impl Status {
    /// The status of a non-zero `lake_status` code; an unknown code is `Internal`.
    pub fn from_code(code: i32) -> Status {
        match code {
            sys::LAKE_INVALID_ARGUMENT => Status::InvalidArgument,
            sys::LAKE_INTEGRITY => Status::Integrity,
            sys::LAKE_CONFLICT => Status::Conflict,
            sys::LAKE_IO => Status::Io,
            sys::LAKE_NOT_FOUND => Status::NotFound,
            sys::LAKE_CANCELLED => Status::Cancelled,
            sys::LAKE_UNSUPPORTED => Status::Unsupported,
            _ => Status::Internal,
        }
    }

    /// The `lake_status` code.
    pub fn code(self) -> i32 {
        match self {
            Status::InvalidArgument => sys::LAKE_INVALID_ARGUMENT,
            Status::Integrity => sys::LAKE_INTEGRITY,
            Status::Conflict => sys::LAKE_CONFLICT,
            Status::Io => sys::LAKE_IO,
            Status::NotFound => sys::LAKE_NOT_FOUND,
            Status::Cancelled => sys::LAKE_CANCELLED,
            Status::Internal => sys::LAKE_INTERNAL,
            Status::Unsupported => sys::LAKE_UNSUPPORTED,
        }
    }

    /// lake's constant name ("LAKE_INTEGRITY", from `lake_status_name`).
    pub fn name(self) -> String {
        unsafe { crate::c_strings::static_str(sys::lake_status_name(self.code())) }
    }
}

/// Why an object failed verification (`lake_integrity_kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntegrityKind {
    None,
    SizeShort,
    SizeLong,
    DigestMismatch,
    PrematureEof,
    InvalidLocation,
    ObjectChanged,
}

impl IntegrityKind {
    pub fn from_code(code: i32) -> IntegrityKind {
        match code {
            sys::LAKE_INTEGRITY_SIZE_SHORT => IntegrityKind::SizeShort,
            sys::LAKE_INTEGRITY_SIZE_LONG => IntegrityKind::SizeLong,
            sys::LAKE_INTEGRITY_DIGEST_MISMATCH => IntegrityKind::DigestMismatch,
            sys::LAKE_INTEGRITY_PREMATURE_EOF => IntegrityKind::PrematureEof,
            sys::LAKE_INTEGRITY_INVALID_LOCATION => IntegrityKind::InvalidLocation,
            sys::LAKE_INTEGRITY_OBJECT_CHANGED => IntegrityKind::ObjectChanged,
            _ => IntegrityKind::None,
        }
    }

    pub fn code(self) -> i32 {
        match self {
            IntegrityKind::None => sys::LAKE_INTEGRITY_NONE,
            IntegrityKind::SizeShort => sys::LAKE_INTEGRITY_SIZE_SHORT,
            IntegrityKind::SizeLong => sys::LAKE_INTEGRITY_SIZE_LONG,
            IntegrityKind::DigestMismatch => sys::LAKE_INTEGRITY_DIGEST_MISMATCH,
            IntegrityKind::PrematureEof => sys::LAKE_INTEGRITY_PREMATURE_EOF,
            IntegrityKind::InvalidLocation => sys::LAKE_INTEGRITY_INVALID_LOCATION,
            IntegrityKind::ObjectChanged => sys::LAKE_INTEGRITY_OBJECT_CHANGED,
        }
    }

    /// lake's name ("DigestMismatch", from `lake_integrity_kind_name`).
    pub fn name(self) -> String {
        unsafe { crate::c_strings::static_str(sys::lake_integrity_kind_name(self.code())) }
    }
}

/// Where an error came from besides lake's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// lake reported it (`lake_error`).
    Lake,
    /// A callback of the caller's panicked; the call failed with it. The
    /// string is the panic's message; lake's own error of the call (when it
    /// failed too) is in the other fields.
    Panic(String),
    /// The loaded liblake implements another ABI version than this binding.
    AbiMismatch { binding: u32, library: u32 },
    /// The binding refused the input before calling lake (e.g. a NUL byte).
    Binding,
}

/// An error of a lake call. Implements `std::error::Error`; `Display` is
/// lake's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    status: Status,
    code: i32,
    message: String,
    integrity_kind: IntegrityKind,
    expected: u64,
    observed: u64,
    retryable: bool,
    pending_operation_id: Option<String>,
    origin: Origin,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Copies and frees a `lake_error` (NULL: only the status is known).
    ///
    /// # Safety
    /// `err` is NULL or a `lake_error` the caller owns; it is freed here.
    pub(crate) unsafe fn from_raw(status: sys::lake_status, err: *mut sys::lake_error) -> Error {
        if err.is_null() {
            return Error::new(Status::from_code(status), code_message(status));
        }
        let code = sys::lake_error_code(err);
        let pending = sys::lake_error_pending_operation_id(err);
        let error = Error {
            status: Status::from_code(code),
            code,
            message: crate::c_strings::static_str(sys::lake_error_message(err)),
            integrity_kind: IntegrityKind::from_code(sys::lake_error_integrity_kind(err)),
            expected: sys::lake_error_expected(err),
            observed: sys::lake_error_observed(err),
            retryable: sys::lake_error_retryable(err) != 0,
            pending_operation_id: if pending.is_null() {
                None
            } else {
                Some(CStr::from_ptr(pending).to_string_lossy().into_owned())
            },
            origin: Origin::Lake,
        };
        sys::lake_error_free(err);
        error
    }

    /// An error of `status` with only a message (no lake_error behind it).
    pub fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            code: status.code(),
            message: message.into(),
            integrity_kind: IntegrityKind::None,
            expected: 0,
            observed: 0,
            retryable: false,
            pending_operation_id: None,
            origin: Origin::Lake,
        }
    }

    /// The error of a raw status code as lake would report it without a
    /// `lake_error` (what E-001's mapping does for any code).
    pub fn from_status_code(code: i32) -> Error {
        let mut error = Error::new(Status::from_code(code), code_message(code));
        error.code = code;
        error
    }

    pub(crate) fn binding(status: Status, message: impl Into<String>) -> Error {
        Error { origin: Origin::Binding, ..Error::new(status, message) }
    }

    pub(crate) fn with_origin(mut self, origin: Origin) -> Error {
        self.origin = origin;
        self
    }

    pub(crate) fn panic(message: String, call: Option<Error>) -> Error {
        let base = call.unwrap_or_else(|| Error::new(Status::Internal, message.clone()));
        base.with_origin(Origin::Panic(message))
    }

    pub fn status(&self) -> Status {
        self.status
    }
    /// The raw `lake_status` code (also for a code the binding does not know).
    pub fn code(&self) -> i32 {
        self.code
    }
    /// lake's message (`lake_error_message`).
    pub fn message(&self) -> &str {
        &self.message
    }
    pub fn integrity_kind(&self) -> IntegrityKind {
        self.integrity_kind
    }
    pub fn expected(&self) -> u64 {
        self.expected
    }
    pub fn observed(&self) -> u64 {
        self.observed
    }
    pub fn retryable(&self) -> bool {
        self.retryable
    }
    /// The 36-character id of an append that may still commit.
    pub fn pending_operation_id(&self) -> Option<&str> {
        self.pending_operation_id.as_deref()
    }
    pub fn origin(&self) -> &Origin {
        &self.origin
    }
    /// The message of the caller's callback that panicked, if one did.
    pub fn panic_message(&self) -> Option<&str> {
        match &self.origin {
            Origin::Panic(message) => Some(message),
            _ => None,
        }
    }
}

fn code_message(code: i32) -> String {
    format!("lake status {} ({})", code, Status::from_code(code).name())
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Origin::Panic(message) => write!(f, "a callback panicked: {}", message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<Error> for std::io::Error {
    fn from(error: Error) -> std::io::Error {
        let kind = match error.status {
            Status::NotFound => std::io::ErrorKind::NotFound,
            Status::InvalidArgument => std::io::ErrorKind::InvalidInput,
            Status::Integrity => std::io::ErrorKind::InvalidData,
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, error)
    }
}

/// The lake error inside an `std::io::Error` that a reader or writer returned.
pub fn from_io(error: &std::io::Error) -> Option<&Error> {
    error.get_ref().and_then(|inner| inner.downcast_ref::<Error>())
}

/// Turns a status and its out-error into a Result.
///
/// # Safety
/// `err` is NULL or a `lake_error` the caller owns.
pub(crate) unsafe fn check(status: sys::lake_status, err: *mut sys::lake_error) -> Result<()> {
    if status == sys::LAKE_OK {
        Ok(())
    } else {
        Err(Error::from_raw(status, err))
    }
}

/// Runs a call taking `lake_error** err` last and turns it into a Result.
pub(crate) fn call(f: impl FnOnce(*mut *mut sys::lake_error) -> sys::lake_status) -> Result<()> {
    let mut err: *mut sys::lake_error = std::ptr::null_mut();
    let status = f(&mut err);
    unsafe { check(status, err) }
}
