//! Every GDScript of the addon and its demo parses (`gdparse`) and passes `gdlint`
//! (PyPI gdtoolkit 4, installed by `.ci/run`), and the demo's headless scene test runs
//! when a Godot binary is on PATH.

mod common;

use std::path::{Path, PathBuf};
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
        println!("skipped: {tool} is not installed (pip install 'gdtoolkit>=4,<5')");
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
        println!("skipped: gdlint is not installed");
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

/// The library cargo built beside this test.
fn built_library() -> Option<PathBuf> {
    let name = if cfg!(windows) {
        "keel_godot.dll"
    } else if cfg!(target_os = "macos") {
        "libkeel_godot.dylib"
    } else {
        "libkeel_godot.so"
    };
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    [deps.join(name), deps.parent()?.join(name)]
        .into_iter()
        .find(|p| p.exists())
}

#[path = "../../../xtask/src/godot/libraries.rs"]
#[allow(dead_code)]
mod libraries;

fn godot() -> Option<String> {
    let godot = std::env::var("GODOT").unwrap_or_else(|_| "godot".to_string());
    Command::new(&godot)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(godot)
}

#[test]
fn headless_scene_test_passes_in_godot() {
    let Some(godot) = godot() else {
        println!("skipped: no godot binary on PATH");
        return;
    };
    let library = libraries::find(None, false).expect("a library for this machine");
    let built = built_library().expect("cargo builds the cdylib beside the tests");
    // A copy of the demo with the addon and this build installed, as `cargo xtask godot`
    // would leave it, outside the source tree.
    let stage = std::env::temp_dir().join(format!("keel-godot-headless-{}", std::process::id()));
    let project = stage.join("demo");
    libraries::copy_dir(&common::demo(), &project).unwrap();
    let installed = libraries::install(&common::addon(), &project).unwrap();
    std::fs::copy(&built, installed.join("bin").join(library.file)).unwrap();
    let run = |args: &[&str]| {
        Command::new(&godot)
            .arg("--headless")
            .arg("--path")
            .arg(&project)
            .args(args)
            .output()
            .unwrap()
    };
    let _ = run(&["--import"]);
    let output = run(&["-s", "res://tests/run_headless.gd"]);
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let _ = std::fs::remove_dir_all(Path::new(&stage));
    assert!(output.status.success(), "the headless test failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("PASS"), "{stdout}");
}
