//! Every GDScript of the addon and its demo parses (`gdparse`) and passes `gdlint`
//! (PyPI gdtoolkit 4, installed by `.ci/run`). The scripts run in Godot in
//! `godot_engine.rs`.

mod common;
#[path = "../../../tests/skip/mod.rs"]
mod skip;

use std::path::PathBuf;
use std::process::Command;

/// Whether `tool` runs; under CI a missing tool fails the test instead of skipping it.
fn available(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found && std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{tool} is missing: .ci/run installs gdtoolkit from .ci/requirements.txt");
    }
    found
}

fn scripts() -> Vec<PathBuf> {
    let scripts = common::files(&common::root().join("godot-addon"), ".gd");
    assert!(scripts.len() >= 4, "found {scripts:?}");
    scripts
}

fn run_on_all(tool: &str) {
    if !available(tool) {
        skip::skipped(&format!("{tool} is not installed (pip install 'gdtoolkit>=4,<5')"));
        return;
    }
    let scripts = scripts();
    let output = Command::new(tool).args(&scripts).output().unwrap();
    assert!(
        output.status.success(),
        "{tool} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_script_parses() {
    run_on_all("gdparse");
}

#[test]
fn every_script_passes_gdlint() {
    run_on_all("gdlint");
}

#[test]
fn gdlint_catches_a_bad_script() {
    if !available("gdlint") {
        skip::skipped("gdlint is not installed (pip install 'gdtoolkit>=4,<5')");
        return;
    }
    let dir = std::env::temp_dir().join(format!("keel-godot-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.gd");
    std::fs::write(&bad, "extends Node\n\n\nfunc BadName() -> void:\n\tpass\n").unwrap();
    let status = Command::new("gdlint").arg(&bad).output().unwrap().status;
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!status.success(), "gdlint accepted a function named BadName");
}
