//! The READMEs' C and C++ snippets, compiled and run as written: each fenced block is
//! read from the file a user reads, its `#include` lines put at file scope and the rest
//! in `main`, after a prelude that stands in for what a snippet says is the engine's
//! (`position`, `rotation`, ..., `add_force`, `dt`). The C snippet of README.md builds as
//! C99 and as C++17 (headers are included from both), the keel.hpp snippet of
//! bindings/cpp/README.md as C++17; each links the static library of this build and runs.
//! After the snippet the program prints the vertical force of the step it made, which
//! must be buoyancy holding up a box pushed 0.15 m into the water. (README.md's Rust
//! snippet is a doctest: `src/lib.rs` includes README.md under `cfg(doctest)`.)

#![cfg(unix)]

mod skip;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fenced blocks of `file` whose info string is `language`.
fn blocks(file: &str, language: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut current, fence) {
            (None, Some(info)) if info.trim() == language => current = Some(String::new()),
            (Some(_), Some(_)) => out.extend(current.take()),
            (Some(block), None) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    out
}

/// The program around `snippet`: its includes, then `prelude_scope`, then `main` with
/// `prelude_main`, the snippet and `epilogue`.
fn program(snippet: &str, prelude_scope: &str, prelude_main: &str, epilogue: &str) -> String {
    let (includes, body): (Vec<&str>, Vec<&str>) = snippet.lines().partition(|l| l.starts_with("#include"));
    format!(
        "{}\n#include <stdio.h>\n{prelude_scope}\nint main(void) {{\n{prelude_main}\n{}\n{epilogue}\nreturn 0;\n}}\n",
        includes.join("\n"),
        body.join("\n")
    )
}

/// The static library of this very build, beside the test executable (tests/c_abi.rs).
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().expect("cannot locate the test executable");
    let lib = exe
        .parent()
        .expect("test executables sit in a folder")
        .join("libkeel.a");
    assert!(lib.is_file(), "{} is missing (crate-type staticlib)", lib.display());
    lib
}

fn have(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        skip::skipped(&format!("{tool} is not installed"));
    }
    found
}

/// Compiles `source` with `compiler` and `flags`, runs it, returns its standard output.
fn build_and_run(tag: &str, compiler: &str, flags: &[&str], source: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("readme-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("cannot create a scratch folder");
    let file = dir.join(if compiler == "cc" { "snippet.c" } else { "snippet.cpp" });
    std::fs::write(&file, source).expect("cannot write the snippet");
    let exe = dir.join("snippet");
    let compile = Command::new(compiler)
        .args(flags)
        // A snippet computes values for the engine that it does not use itself.
        .args([
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
            "-Wno-unused-variable",
            "-Wno-unused-but-set-variable",
        ])
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("bindings/cpp"))
        .arg(&file)
        .arg(static_library())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    assert!(
        compile.status.success(),
        "{tag}: {compiler} {flags:?} rejects the snippet as written:\n{}\n--- program ---\n{source}",
        String::from_utf8_lossy(&compile.stderr)
    );
    let run = Command::new(&exe).output().expect("cannot run the snippet");
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{tag}: the snippet failed ({}):\n{stdout}{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    stdout
}

/// The vertical force the program printed last ("force_y <value>").
fn force_y(tag: &str, stdout: &str) -> f64 {
    stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("force_y "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{tag}: no force_y line in\n{stdout}"))
}

/// A 2 x 0.5 x 2 m box, its centre 0.1 m above the water, is 0.15 m deep: buoyancy
/// rho g V = 1000 * 9.81 * 2 * 2 * 0.15 = 5886 N, give or take the drag of its first step
/// (README.md: drag is taken at the end-of-step motion).
const BUOYANCY: f64 = 1000.0 * 9.81 * 2.0 * 2.0 * 0.15;

#[test]
fn readme_c_snippet_compiles_as_c99_and_cpp17_and_runs() {
    let snippets = blocks("README.md", "c");
    assert_eq!(snippets.len(), 1, "README.md: expected one C snippet");
    let scope = "static void add_force(KeelVec3 f) { printf(\"force_y %g\\n\", (double)f.y); }\n\
                 static void add_torque(KeelVec3 t) { (void)t; }\n";
    // The engine's rigid body: at rest, its centre of mass (the box's centre) 0.1 m up.
    let engine = "KeelVec3 position = {0.0f, 0.1f, 0.0f};\n\
                  KeelQuat rotation = {0.0f, 0.0f, 0.0f, 1.0f};\n\
                  KeelVec3 linear_velocity = {0.0f, 0.0f, 0.0f};\n\
                  KeelVec3 angular_velocity = {0.0f, 0.0f, 0.0f};\n\
                  KeelVec3 center_of_mass = {0.0f, 0.1f, 0.0f};\n\
                  float dt = 1.0f / 60.0f;\n";
    let source = program(&snippets[0], scope, engine, "");
    if have("cc") {
        let out = build_and_run("c99", "cc", &["-std=c99"], &source);
        let y = force_y("c99", &out);
        assert!(
            (y - BUOYANCY).abs() < 0.1 * BUOYANCY,
            "C99: force_y {y}, buoyancy {BUOYANCY}"
        );
    }
    if have("c++") {
        let out = build_and_run("c-as-cpp17", "c++", &["-std=c++17"], &source);
        let y = force_y("c-as-cpp17", &out);
        assert!((y - BUOYANCY).abs() < 0.1 * BUOYANCY, "C++17: force_y {y}");
    }
}

#[test]
fn cpp_readme_keel_hpp_snippet_compiles_and_runs() {
    if !have("c++") {
        return;
    }
    let snippets = blocks("bindings/cpp/README.md", "cpp");
    assert_eq!(snippets.len(), 1, "bindings/cpp/README.md: expected one C++ snippet");
    let source = program(
        &snippets[0],
        "",
        "",
        "printf(\"waterline %zu\\nforce_y %g\\n\", waterline.size(), (double)forces.force.y);",
    );
    let out = build_and_run("keel-hpp", "c++", &["-std=c++17"], &source);
    let y = force_y("keel-hpp", &out);
    // On the snippet's waves (crests 0.5 m high at the origin at t = 0) the 2 x 0.6 x 2 m
    // box may be under water whole: buoyancy between a shallow immersion's and the whole
    // hull's rho g V, with a first step's drag on top (README.md).
    let whole = 1000.0 * 9.81 * 2.0 * 0.6 * 2.0;
    assert!(
        y > 0.3 * BUOYANCY && y < 1.2 * whole,
        "keel.hpp: force_y {y}, whole hull {whole}"
    );
    assert!(
        !out.contains("waterline 0\n"),
        "a box in the water has a waterline:\n{out}"
    );
}
