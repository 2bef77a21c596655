//! The skip registry: a test that cannot run (a tool missing, a one-processor machine)
//! calls [`skipped`] instead of returning quietly, so that a run that skipped something
//! says so at its end. `cargo xtask test` clears `target/skipped/` before the suite and
//! lists every line written there after it; under `CI=true` a skip is a failure.
//!
//! One file, no dependencies, so that every test crate of the workspace can include it:
//!
//! ```text
//! #[path = "../../../tests/skip/mod.rs"]   // from bindings/godot/tests/, say
//! mod skip;
//! ...
//! if !have_tool { return skip::skipped("gdlint is not installed"); }
//! ```

use std::io::Write as _;
use std::path::PathBuf;

/// Reports that the calling test cannot run and why: prints `skipped: <test>: <why>` and
/// appends that line to `target/skipped/<binary>-<test>.txt`. Under `CI=true` it panics
/// instead, because CI installs everything and must skip nothing.
///
/// The test's name is the name of the thread it runs on (libtest names each test's
/// thread after it); `KEEL_SKIPPED_DIR` overrides the folder.
#[track_caller]
pub fn skipped(why: &str) {
    let test = std::thread::current().name().unwrap_or("unnamed").replace("::", "-");
    let binary = binary_name();
    let line = format!("{binary}::{test}: {why}");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line} (CI=true: nothing may be skipped; `cargo xtask test` installs what the suite needs)");
    }
    eprintln!("skipped: {line}");
    if let Some(dir) = folder() {
        let write = std::fs::create_dir_all(&dir).and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join(format!("{binary}-{test}.txt")))
                .and_then(|mut file| writeln!(file, "{line}"))
        });
        if let Err(e) = write {
            // The skip was printed; losing the record must not fail the test.
            eprintln!("(could not record the skip in {}: {e})", dir.display());
        }
    }
}

/// The test executable's name without cargo's hash: `cpp` for `cpp-0123abcd`.
fn binary_name() -> String {
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "test".into());
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => name.to_string(),
        _ => stem,
    }
}

/// `target/skipped`: the executable sits in `target/<profile>/deps/`.
fn folder() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KEEL_SKIPPED_DIR") {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("skipped"))
}
