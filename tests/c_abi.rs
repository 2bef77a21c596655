//! Compiles `tests/c/abi_test.c` against `include/keel.h` and the static library cargo
//! built for this test run, runs it, and checks that every one of its checks passed.
//!
//! The C program exercises every function of the header from C, misuse included, and
//! ends with one line "N passed, M failed". It links the `libkeel.a` that cargo builds for
//! this run because the crate-type list includes `staticlib`.

mod skip;

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

/// Builds the C test program into a fresh directory and returns (directory, executable).
fn build_c_program(tag: &str) -> (PathBuf, PathBuf) {
    build_c_source("abi_test", tag)
}

/// Builds `tests/c/<name>.c` into a fresh directory and returns (directory, executable).
fn build_c_source(name: &str, tag: &str) -> (PathBuf, PathBuf) {
    let lib = static_library();
    let source = root().join(format!("tests/c/{name}.c"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("c_abi-{name}-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("cannot create the temporary directory");
    let exe = dir.join(name);

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
    (dir, exe)
}

/// Checks the program's closing line "N passed, 0 failed".
fn assert_all_checks_passed(stdout: &str) {
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

#[test]
fn c_program_exercises_the_whole_abi() {
    let (dir, exe) = build_c_program("plain");
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
    assert_all_checks_passed(&stdout);
}

/// The same program under valgrind's memcheck: no invalid access, no leak (definite or
/// possible: destroying a world waits for its worker threads). Skipped, and says so,
/// where valgrind is not installed (and fails then under CI).
#[test]
fn c_program_runs_clean_under_valgrind() {
    if !valgrind_or_skip() {
        return;
    }
    let (dir, exe) = build_c_program("valgrind");
    let run = Command::new("valgrind")
        .args([
            "--error-exitcode=99",
            "--leak-check=full",
            "--show-leak-kinds=definite,possible",
            "--errors-for-leak-kinds=definite,possible",
            "--track-origins=no",
        ])
        .arg(format!(
            "--suppressions={}",
            root().join("tests/valgrind.supp").display()
        ))
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run valgrind: {e}"));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
    let tail: Vec<&str> = stderr.lines().rev().take(40).collect();
    assert!(
        run.status.success(),
        "valgrind reports errors ({}):\n{}",
        run.status,
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    );
    assert_all_checks_passed(&stdout);
}

/// Whether valgrind runs here; if not, says the test is skipped (and fails under CI,
/// which installs it).
fn valgrind_or_skip() -> bool {
    let found = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        skip::skipped("valgrind is not installed (apt-get install valgrind; `cargo xtask test` installs it)");
    }
    found
}

/// The host's job system through keel.h alone (tests/c/host_tasks_test.c, issue 34): a
/// one-worker pool whose finish waits, a serial executor and a helping pool, each
/// recording that keel never calls them from inside one of its own tasks, on a batch
/// holding the bunny and the bunny alone; `wrapper` runs the program (valgrind).
fn run_host_tasks_program(tag: &str, wrapper: &[&str]) {
    let (dir, exe) = build_c_source("host_tasks_test", tag);
    let bunny = root().join("tests/meshes/bunny.obj");
    let mut command = match wrapper.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    let run = command
        .arg(&bunny)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    print!("{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
    let tail: Vec<&str> = stderr.lines().rev().take(40).collect();
    assert!(
        run.status.success(),
        "the host tasks C test failed ({}):\n{stdout}{}",
        run.status,
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    );
    assert_all_checks_passed(&stdout);
}

#[test]
fn c_host_job_systems_are_never_called_from_inside_keels_tasks() {
    run_host_tasks_program("plain", &[]);
}

#[test]
fn c_host_job_systems_run_clean_under_valgrind() {
    if !valgrind_or_skip() {
        return;
    }
    let suppressions = format!("--suppressions={}", root().join("tests/valgrind.supp").display());
    run_host_tasks_program(
        "valgrind",
        &[
            "valgrind",
            "--error-exitcode=99",
            "--leak-check=full",
            "--show-leak-kinds=definite,possible",
            "--errors-for-leak-kinds=definite,possible",
            "--track-origins=no",
            &suppressions,
        ],
    );
}
