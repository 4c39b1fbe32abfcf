//! lake for Rust: a safe binding of lake's C ABI (`lake-sys`).
//!
//! Handles are owned values: dropping one frees it, and `close(self)`
//! frees it now (reporting a failure where lake can have one: readers and
//! writers). Children borrow their parent by lifetime — a statement, result
//! or event log borrows its [`Db`], a reader or writer its [`Stage`], a
//! writer its [`UploadOptions`], which borrow their [`CancelToken`] — so the
//! order lake.h requires (children freed before parents) is checked by the
//! compiler, and a closed handle cannot be used at all:
//!
//! ```compile_fail
//! # fn main() -> lake::Result<()> {
//! let db = lake::Db::open("lake-data")?;
//! db.close();
//! db.tables()?; // H-002: use after close: `db` was moved
//! # Ok(()) }
//! ```
pub mod abi;
pub mod arrow;
mod c_strings;
mod cancel;
mod db;
pub mod error;
mod events;
mod gc;
mod handle_count;
mod host;
mod location;
#[cfg(doctest)]
mod misuse_tests;
mod panic_slot;
mod read_source;
mod reader;
mod stage;
mod statement;
mod upload;
mod uploads;
mod writer;

pub use abi::{library_abi_version, set_buffer_budget, version_string, ABI_VERSION};
pub use arrow::{ArrowStream, Batch, QueryResult, Schema};
pub use cancel::CancelToken;
pub use db::Db;
pub use error::{Error, IntegrityKind, Origin, Result, Status};
pub use events::{EventLog, EventWriter, FieldValue, FoldedItem, Step, Value};
pub use gc::{GcCandidate, GcOptions, GcProblem};
pub use handle_count::open_handles;
pub use host::HostStore;
pub use lake_sys as sys;
pub use location::Location;
pub use reader::Reader;
pub use stage::{ListEntry, Stage, StageOptions};
pub use statement::{Param, Statement};
pub use upload::UploadOptions;
pub use uploads::UploadInfo;
pub use writer::Writer;
