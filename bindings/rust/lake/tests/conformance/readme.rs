//! The README's example is examples/slice.rs, verbatim, and runs as pasted
//! from a scratch directory holding an episode.mp4.
use std::path::PathBuf;
use std::process::Command;

use crate::support::Scratch;

fn readme_code() -> String {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let start = readme.find("```rust\n").expect("a rust block") + "```rust\n".len();
    readme[start..start + readme[start..].find("```").unwrap()].to_string()
}

#[test]
fn the_readme_example_is_examples_slice_rs() {
    let example = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/slice.rs"),
    )
    .unwrap();
    assert_eq!(readme_code(), example);
}

#[test]
fn the_readme_example_runs_from_a_directory_holding_episode_mp4() {
    let s = Scratch::new();
    // cargo test builds the examples next to the test binaries' directory.
    let example =
        std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().join("examples/slice");
    let output = Command::new(example).current_dir(&s.dir).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!(
            " {} {}",
            crate::support::OBJECT_SIZE,
            crate::support::sha256(&s.data)
        )),
        "{}",
        stdout
    );
    assert!(stdout.contains("completed {\"root\""), "{}", stdout);
    assert!(stdout.ends_with(&format!("{} 1024 2\n", crate::support::OBJECT_SIZE)), "{}", stdout);
    assert!(s.dir.join("lake-data").is_dir());
}
