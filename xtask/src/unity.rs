//! `cargo xtask unity`: regenerates the C# bindings, builds libkeel for this machine in
//! release, and assembles the UPM package folder and its `.tgz`; `--bench` runs the
//! package's benchmark under mono instead.
//!
//! The release workflow builds the other platforms on their own runners and passes each
//! binary with `--plugin PLATFORM=FILE`; with any `--plugin` (or `--native`) nothing is
//! built here.

mod bench;
mod bindings;
mod package;

use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Parser, Debug)]
#[command(name = "cargo xtask unity", about = "Build the Unity package (folder and .tgz)")]
struct Args {
    /// Where the package folder and the .tgz go.
    #[arg(long, default_value = "target/unity")]
    out: PathBuf,
    /// Only regenerate unity-package/Runtime/Native/KeelNative.g.cs from include/keel.h.
    #[arg(long)]
    bindings: bool,
    /// Only write the missing .meta files of unity-package/ (stable GUIDs from the path).
    #[arg(long)]
    metas: bool,
    /// Run the benchmark under mono (managed C# reference vs the package, one table; with
    /// --peer a second table against the issue-35 peer) against the release library,
    /// instead of packaging.
    #[arg(long)]
    bench: bool,
    /// With --bench: also measure the issue-35 peer (Habrador's Unity boat tutorial, MIT),
    /// from this checkout or git directory of it outside the repository; its scripts are
    /// exported to a temporary directory and compiled unmodified. Default: $KEEL_UNITY_PEER
    /// (read only with --bench).
    #[arg(long, value_name = "DIR")]
    peer: Option<PathBuf>,
    /// Use this already-built library for this machine instead of building one.
    #[arg(long)]
    native: Option<PathBuf>,
    /// A prebuilt plugin: linux-x86_64, windows-x86_64, macos-universal, android-arm64, ios
    /// or webgl, `=` the file. Repeat for each platform.
    #[arg(long = "plugin", value_name = "PLATFORM=FILE")]
    plugins: Vec<String>,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let args = match Args::try_parse_from(std::iter::once("unity".to_string()).chain(args.iter().cloned())) {
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
    let root = workspace_root();
    if args.bindings {
        let path = write_bindings(&root)?;
        println!("wrote {}", path.display());
        return Ok(());
    }
    if args.metas {
        let written = package::write_missing_metas(&root.join("unity-package"))?;
        println!("wrote {written} .meta files");
        return Ok(());
    }
    if args.peer.is_some() && !args.bench {
        return Err("--peer only goes with --bench".to_string());
    }
    check_bindings(&root)?;
    if args.bench {
        let library = match &args.native {
            Some(native) => native.clone(),
            None => build_release(&root)?,
        };
        let peer = args
            .peer
            .clone()
            .or_else(|| std::env::var_os("KEEL_UNITY_PEER").map(PathBuf::from));
        return bench::run(&root, &library, peer.as_deref());
    }
    let mut plugins = Vec::new();
    for spec in &args.plugins {
        let (name, file) = spec
            .split_once('=')
            .ok_or_else(|| format!("--plugin wants PLATFORM=FILE, got {spec}"))?;
        plugins.push((package::Platform::parse(name)?, PathBuf::from(file)));
    }
    if let Some(native) = &args.native {
        plugins.push((package::Platform::host()?, native.clone()));
    }
    if plugins.is_empty() {
        plugins.push((package::Platform::host()?, build_release(&root)?));
    }
    let out = if args.out.is_absolute() {
        args.out.clone()
    } else {
        root.join(&args.out)
    };
    let (folder, tgz) = package::assemble(&root, &out, &plugins)?;
    println!(
        "package folder: {}\npackage archive: {}\nnative plugins in the package:\n{}",
        folder.display(),
        tgz.display(),
        package::platform_summary(&folder)
    );
    if plugins.len() < package::Platform::ALL.len() {
        println!(
            "the package runs only on the platforms marked yes; the release workflow builds the others \
             (.github/workflows/release.yml)"
        );
    }
    Ok(())
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

/// The generated file's path and the text the header produces now.
fn generated_bindings(root: &Path) -> Result<(PathBuf, String), String> {
    let header = std::fs::read_to_string(root.join("include/keel.h")).map_err(|e| format!("include/keel.h: {e}"))?;
    let text = bindings::generate_csharp(&bindings::parse_header(&header)?)?;
    Ok((root.join("unity-package/Runtime/Native/KeelNative.g.cs"), text))
}

fn write_bindings(root: &Path) -> Result<PathBuf, String> {
    let (path, text) = generated_bindings(root)?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// Packaging stale bindings would ship a package that crashes on the first changed call.
fn check_bindings(root: &Path) -> Result<(), String> {
    let (path, text) = generated_bindings(root)?;
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != text {
        return Err(format!(
            "{} is out of date with include/keel.h: run `cargo xtask unity --bindings` and commit it",
            path.display()
        ));
    }
    Ok(())
}

/// `cargo build --release -p keel --lib` and the cdylib it leaves for this machine.
fn build_release(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--release", "-p", "keel", "--lib"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("cargo build --release failed".to_string());
    }
    let name = package::Platform::host()?.cargo_output_name();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("release").join(name))
}
