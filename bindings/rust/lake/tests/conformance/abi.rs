//! The ABI (CONFORMANCE.md, A-001, A-002).
use std::collections::BTreeSet;
use std::ffi::CString;
use std::os::raw::{c_char, c_void};
use std::path::PathBuf;
use std::process::Command;

use crate::support::{child_lines, child_says, is_child, run_child, Scratch};
use lake::{CancelToken, Db, Location, Origin, ABI_VERSION};

#[test]
#[ignore = "run by a001 in a child process"]
fn child_with_a_stub_library() {
    if !is_child("abi::child_with_a_stub_library") {
        return;
    }
    let refused = Location::new("file:///x", "a/b", 1, &"0".repeat(64)).unwrap_err();
    child_says(&format!("{:?}", refused.origin()));
    child_says(&refused.to_string());
    child_says(&format!(
        "db refused: {}",
        Db::open(std::env::var("LAKE_TEST_ROOT").unwrap()).is_err()
    ));
    child_says(&format!("token refused: {}", CancelToken::new().is_err()));
    child_says(&format!("handles: {}", lake::open_handles()));
}

//
#[test]
fn a001_an_abi_version_mismatch_is_refused_before_any_handle_exists() {
    let s = Scratch::new();
    assert_eq!(lake::library_abi_version(), ABI_VERSION); // the real library loads
                                                          // A stub whose lake_abi_version says ABI + 1, interposed with LD_PRELOAD
                                                          // in a fresh process (a linked library cannot be swapped otherwise).
    let source = s.dir.join("stub.c");
    std::fs::write(
        &source,
        format!(
            "#include <stdint.h>\nuint32_t lake_abi_version(void) {{ return {}; }}\n",
            ABI_VERSION + 1
        ),
    )
    .unwrap();
    let stub = s.dir.join("liblake_stub.so");
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&stub)
        .arg(&source)
        .status()
        .unwrap();
    assert!(cc.success());
    let root = s.root();
    let output = run_child(
        "abi::child_with_a_stub_library",
        &[("LD_PRELOAD", stub.to_str().unwrap()), ("LAKE_TEST_ROOT", root.to_str().unwrap())],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = child_lines(&output);
    assert_eq!(
        lines[0],
        format!("{:?}", Origin::AbiMismatch { binding: ABI_VERSION, library: ABI_VERSION + 1 })
    );
    assert!(lines[1].contains(&format!("implements lake ABI {}", ABI_VERSION + 1)), "{}", lines[1]);
    assert_eq!(lines[2..], ["db refused: true", "token refused: true", "handles: 0"]);
    assert!(!root.exists(), "a refused open touched nothing");
}

extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// The LAKE_API functions of include/lake.h, found as check_bindings.py does.
fn header_functions() -> BTreeSet<String> {
    let header = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../include/lake.h");
    let text = std::fs::read_to_string(header).unwrap();
    let mut code = String::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        rest = &rest[start + 2..];
        rest = &rest[rest.find("*/").unwrap() + 2..];
    }
    code.push_str(rest);
    let code: String =
        code.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n");
    code.split("LAKE_API")
        .skip(1)
        .filter_map(|decl| {
            let head = &decl[..decl.find(|c| c == ';' || c == '(').unwrap()];
            head.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with("lake_"))
                .last()
                .map(str::to_string)
        })
        .collect()
}

//
#[test]
fn a002_every_lake_api_function_is_declared_by_lake_sys() {
    let in_header = header_functions();
    assert_eq!(in_header.len(), 160);
    let listed: BTreeSet<String> = lake::sys::FUNCTIONS.iter().map(|f| f.to_string()).collect();
    assert_eq!(listed, in_header);
    // The list is the extern block's: every name there is declared once.
    let sys_source = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../lake-sys/src/lib.rs"),
    )
    .unwrap();
    let extern_block = &sys_source[sys_source.find("extern \"C\" {").unwrap()..];
    let declared: BTreeSet<String> = extern_block
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub fn "))
        .map(|l| l[..l.find('(').unwrap()].to_string())
        .collect();
    assert_eq!(declared, in_header);
    for name in &in_header {
        let symbol = CString::new(name.as_str()).unwrap();
        assert!(
            !unsafe { dlsym(std::ptr::null_mut(), symbol.as_ptr()) }.is_null(),
            "liblake lacks {}",
            name
        );
    }
}
