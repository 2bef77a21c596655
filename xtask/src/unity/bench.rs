//! `cargo xtask unity --bench`: the Unity package's benchmark under mono, against the
//! release library. Compiles the UnityEngine stand-in, the package's Runtime, the thesis
//! sample (for its OBJ reader) and `bindings/csharp/Benchmark`, then runs it; the
//! benchmark prints one table.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cs_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cs"))
        .collect();
    let mut sub: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    sub.sort();
    for d in sub {
        files.extend(cs_files(&d)?);
    }
    files.sort();
    Ok(files)
}

fn mcs(out: &Path, refs: &[&Path], sources: &[PathBuf], library: bool) -> Result<(), String> {
    let mut cmd = Command::new("mcs");
    cmd.args(["-nologo", "-unsafe", "-optimize+", "-nowarn:1591"]);
    if library {
        cmd.arg("-target:library");
    }
    cmd.arg(format!("-out:{}", out.display()));
    for r in refs {
        cmd.arg(format!("-r:{}", r.display()));
    }
    let status = cmd
        .args(sources)
        .status()
        .map_err(|e| format!("cannot run mcs (apt-get install mono-mcs): {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("mcs failed building {}", out.display()))
    }
}

/// Builds and runs the benchmark with `library` (the release cdylib) beside it.
pub fn run(root: &Path, library: &Path) -> Result<(), String> {
    let dir = root.join("target/unity-bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let engine = dir.join("UnityEngine.dll");
    let runtime = dir.join("Keel.Runtime.dll");
    let samples = dir.join("Keel.Samples.dll");
    let exe = dir.join("KeelBenchmark.exe");
    mcs(
        &engine,
        &[],
        &cs_files(&root.join("bindings/csharp/UnityEngineStub"))?,
        true,
    )?;
    mcs(
        &runtime,
        &[&engine],
        &cs_files(&root.join("unity-package/Runtime"))?,
        true,
    )?;
    mcs(
        &samples,
        &[&engine, &runtime],
        &cs_files(&root.join("unity-package/Samples~/Thesis Scenes"))?,
        true,
    )?;
    mcs(
        &exe,
        &[&engine, &runtime, &samples],
        &cs_files(&root.join("bindings/csharp/Benchmark"))?,
        false,
    )?;
    std::fs::copy(library, dir.join("libkeel.so")).map_err(|e| format!("{}: {e}", library.display()))?;
    let status = Command::new("mono")
        .current_dir(&dir)
        .arg(&exe)
        .arg(root.join("tests/meshes/bunny.obj"))
        .env("LD_LIBRARY_PATH", &dir)
        .status()
        .map_err(|e| format!("cannot run mono (apt-get install mono-runtime): {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("the benchmark failed".to_string())
    }
}
