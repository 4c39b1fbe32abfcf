//! The rpath of lake-sys's build script applies to lake-sys's own targets
//! only: this crate's tests, examples and doctests get it here.
fn main() {
    println!("cargo:rerun-if-env-changed=LAKE_LIB_DIR");
    if let Ok(dir) = std::env::var("LAKE_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
    }
}
