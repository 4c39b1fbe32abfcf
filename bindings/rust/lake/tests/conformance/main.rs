//! The conformance scenarios (bindings/CONFORMANCE.md) that may run side
//! by side, and the rest of the API, in one test binary. The handle and leak
//! scenarios count process-wide things and run in binaries of their own
//! (tests/handles.rs, tests/leaks_*.rs).
#![allow(unknown_lints, unexpected_cfgs)] // cfg lake_duckdb comes from build.rs

#[path = "../support/mod.rs"]
mod support;

mod abi;
mod api;
mod callbacks;
mod errors;
mod readme;
mod slice;
mod threads;
