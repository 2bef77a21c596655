//! Compiles `tests/c/abi_test.c` against `include/keel.h` and the static library cargo
//! built for this test run, runs it, and checks that every one of its checks passed.
//!
//! The C program exercises every function of the header from C, misuse included, and
//! ends with one line "N passed, M failed". It links the `libkeel.a` that cargo builds for
//! this run because the crate-type list includes `staticlib`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The static library of this very build. Cargo compiles the crate once with all its
/// crate types into `target/<profile>/deps/`, the directory of this test executable.
/// `cargo build` (not `cargo test`) also copies `libkeel.a` up to `target/<profile>/`, but
/// that copy can be older than this run, so it is not used.
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().expect("cannot locate the test executable");
    let deps = exe
        .parent()
        .unwrap_or_else(|| panic!("unexpected test executable location: {}", exe.display()));
    let lib = deps.join("libkeel.a");
    assert!(
        lib.is_file(),
        "the static library {} is missing: cargo builds it beside the test executable only \
         while Cargo.toml's [lib] crate-type lists \"staticlib\"",
        lib.display()
    );
    lib
}

#[test]
fn c_program_exercises_the_whole_abi() {
    let lib = static_library();
    let source = root().join("tests/c/abi_test.c");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("c_abi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("cannot create the temporary directory");
    let exe = dir.join("abi_test");

    let compile = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-g"])
        .arg("-I")
        .arg(root().join("include"))
        .arg(&source)
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run cc: {e}"));
    assert!(
        compile.status.success(),
        "cc could not build {}:\n{}{}",
        source.display(),
        String::from_utf8_lossy(&compile.stdout),
        String::from_utf8_lossy(&compile.stderr)
    );

    let run = Command::new(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    print!("{stdout}");
    eprint!("{stderr}");
    let _ = std::fs::remove_dir_all(&dir);

    assert!(
        run.status.success(),
        "the C ABI test failed ({}):\n{stdout}{stderr}",
        run.status
    );
    let summary = stdout
        .lines()
        .rev()
        .find(|line| line.ends_with(" failed"))
        .unwrap_or_else(|| panic!("no \"N passed, M failed\" line in the output:\n{stdout}"));
    assert!(
        summary.ends_with(" 0 failed"),
        "the C ABI test reports failures: {summary}\n{stdout}"
    );
}
