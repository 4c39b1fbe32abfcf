//! The ABI check. Linking cannot refuse a library, so the binding checks
//! `lake_abi_version()` once, before the first handle of the process is
//! made: every constructor of a root handle (Db, Stage, Location,
//! CancelToken, options) calls [`check`] first, and a mismatch is the
//! binding's ABI error, every time, without making any handle.
use std::sync::Once;

use lake_sys as sys;

use crate::error::{Error, Origin, Result, Status};

/// The lake ABI version this binding was written for.
pub const ABI_VERSION: u32 = sys::LAKE_ABI_VERSION;

static CHECK: Once = Once::new();
static mut LIBRARY_VERSION: u32 = 0;

/// The ABI version the loaded library implements.
pub fn library_abi_version() -> u32 {
    CHECK.call_once(|| unsafe { LIBRARY_VERSION = sys::lake_abi_version() });
    // SAFETY: written once inside call_once, which synchronises with readers.
    unsafe { LIBRARY_VERSION }
}

/// Ok when the loaded library implements [`ABI_VERSION`].
pub fn check() -> Result<()> {
    let library = library_abi_version();
    if library == ABI_VERSION {
        Ok(())
    } else {
        Err(Error::binding(
            Status::Unsupported,
            format!(
                "the loaded liblake implements lake ABI {} but this binding needs ABI {}",
                library, ABI_VERSION
            ),
        )
        .with_origin(Origin::AbiMismatch { binding: ABI_VERSION, library }))
    }
}

/// The library's release version ("0.1.0").
pub fn version_string() -> String {
    unsafe { crate::c_strings::static_str(sys::lake_version_string()) }
}

/// Caps the memory lake uses for in-flight data buffers in this process.
pub fn set_buffer_budget(bytes: u64) -> Result<()> {
    check()?;
    crate::error::call(|err| unsafe { sys::lake_set_buffer_budget(bytes, err) })
}
