//! Links liblake: the directory holding liblake.so comes from LAKE_LIB_DIR
//! (scripts/lib/test-rust-binding sets it to the build directory); without
//! it the system's linker path is searched. An rpath to that directory lets
//! tests and programs run without LD_LIBRARY_PATH.
use std::env;

fn main() {
    println!("cargo:rerun-if-env-changed=LAKE_LIB_DIR");
    if let Ok(dir) = env::var("LAKE_LIB_DIR") {
        println!("cargo:rustc-link-search=native={}", dir);
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
        // Dependents (the safe crate's tests) read it as DEP_LAKE_LIB_DIR.
        println!("cargo:lib_dir={}", dir);
    }
    println!("cargo:rustc-link-lib=dylib=lake");
}
