//! The rpath of lake-sys's build script applies to lake-sys's own targets
//! only: this crate's tests, examples and doctests get it here.
//!
//! S-013 needs DuckDB's library: with neither LAKE_DUCKDB_LIB nor
//! LAKE_REQUIRE_DUCKDB=1 at build time, the test is compiled as ignored
//! (reported as such, not as passed); cfg `lake_duckdb` turns it on.
fn main() {
    println!("cargo:rerun-if-env-changed=LAKE_LIB_DIR");
    println!("cargo:rerun-if-env-changed=LAKE_DUCKDB_LIB");
    println!("cargo:rerun-if-env-changed=LAKE_REQUIRE_DUCKDB");
    if let Ok(dir) = std::env::var("LAKE_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
    }
    let duckdb = std::env::var_os("LAKE_DUCKDB_LIB").map_or(false, |v| !v.is_empty());
    let required = std::env::var("LAKE_REQUIRE_DUCKDB").map_or(false, |v| v == "1");
    if duckdb || required {
        println!("cargo:rustc-cfg=lake_duckdb");
    }
}
