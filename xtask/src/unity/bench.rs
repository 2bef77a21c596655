//! `cargo xtask unity --bench`: the Unity package's benchmark under mono, against the
//! release library. Compiles the UnityEngine stand-in, the package's Runtime, the thesis
//! sample (for its OBJ reader) and `bindings/csharp/Benchmark`, then runs it; the
//! benchmark prints one table.
//!
//! With `--peer DIR` (issue 35) it also measures the peer, Habrador's Unity boat
//! tutorial (<https://github.com/Habrador/Unity-Boat-physics-Tutorial>, MIT), which the
//! developer fetches: its scripts are exported from DIR (a checkout, or a git directory
//! read with `git show`) into a temporary directory outside the repository and compiled
//! unmodified into the benchmark (`-define:KEEL_PEER` turns on
//! `bindings/csharp/Benchmark/Peer.cs`), which then prints a second table. The peer's code
//! is never copied into the repository.

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

fn mcs(out: &Path, refs: &[&Path], sources: &[PathBuf], library: bool, define: Option<&str>) -> Result<(), String> {
    let mut cmd = Command::new("mcs");
    cmd.args(["-nologo", "-unsafe", "-optimize+", "-nowarn:1591"]);
    if library {
        cmd.arg("-target:library");
    }
    if let Some(define) = define {
        cmd.arg(format!("-define:{define}"));
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
pub fn run(root: &Path, library: &Path, peer: Option<&Path>) -> Result<(), String> {
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
        None,
    )?;
    mcs(
        &runtime,
        &[&engine],
        &cs_files(&root.join("unity-package/Runtime"))?,
        true,
        None,
    )?;
    mcs(
        &samples,
        &[&engine, &runtime],
        &cs_files(&root.join("unity-package/Samples~/Thesis Scenes"))?,
        true,
        None,
    )?;
    let mut sources = cs_files(&root.join("bindings/csharp/Benchmark"))?;
    let export = match peer {
        Some(peer) => {
            let (export, commit) = export_peer(root, peer)?;
            println!("peer: {} at {commit}, exported to {}", peer.display(), export.display());
            sources.extend(cs_files(&export)?);
            Some(export)
        }
        None => None,
    };
    let built = mcs(
        &exe,
        &[&engine, &runtime, &samples],
        &sources,
        false,
        export.as_ref().map(|_| "KEEL_PEER"),
    );
    if let Some(export) = &export {
        // The peer's sources are compiled into the exe; the export is not kept.
        let _ = std::fs::remove_dir_all(export);
    }
    built?;
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

/// The peer's scripts the benchmark compiles, under its `Assets/Scripts/`: its boat
/// physics and flat water, plus what they reference to compile (BoatPhysics builds
/// GenerateExtraBoatMeshes, which sorts with ConvexHull, and reads VisbyData's mass;
/// BoatPhysicsMath's drag and slamming terms read DebugPhysics).
const PEER_SCRIPTS: &[&str] = &[
    "Boat/Physics/BoatPhysics.cs",
    "Boat/Physics/BoatPhysicsMath.cs",
    "Boat/Physics/ModifyBoatMesh.cs",
    "Boat/Physics/TriangleData.cs",
    "Boat/Physics/SlammingForceData.cs",
    "Boat/Physics/DebugPhysics.cs",
    "Boat/Data/VisbyData.cs",
    "Boat/Effects/GenerateExtraBoatMeshes.cs",
    "Boat/Effects/ConvexHull.cs",
    "Water/WaterController.cs",
    "Water/WaveTypes.cs",
];

/// Copies the peer's scripts, byte for byte, from `peer` (a working tree, or a git
/// directory whose HEAD is read with `git show`) into a fresh temporary directory outside
/// the repository; returns it and the peer's commit ("unknown" without git).
fn export_peer(root: &Path, peer: &Path) -> Result<(PathBuf, String), String> {
    let peer = peer
        .canonicalize()
        .map_err(|e| format!("--peer {}: {e}", peer.display()))?;
    let root = root.canonicalize().map_err(|e| e.to_string())?;
    if peer.starts_with(&root) {
        return Err(format!(
            "--peer {} is inside the repository: the peer's code is never kept in it; fetch it elsewhere \
             (git clone https://github.com/Habrador/Unity-Boat-physics-Tutorial /tmp/peer)",
            peer.display()
        ));
    }
    let export = std::env::temp_dir().join(format!("keel-unity-peer-{}", std::process::id()));
    if export.starts_with(&root) {
        return Err(format!(
            "the temporary directory {} is inside the repository, where the peer's code must never go: set TMPDIR elsewhere",
            export.display()
        ));
    }
    let _ = std::fs::remove_dir_all(&export);
    std::fs::create_dir_all(&export).map_err(|e| format!("{}: {e}", export.display()))?;
    match copy_scripts(&peer, &export) {
        Ok(commit) => Ok((export, commit)),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&export);
            Err(e)
        }
    }
}

fn copy_scripts(peer: &Path, export: &Path) -> Result<String, String> {
    let git = |args: &[&str]| -> Option<Vec<u8>> {
        let out = Command::new("git").arg("-C").arg(peer).args(args).output().ok()?;
        out.status.success().then_some(out.stdout)
    };
    for script in PEER_SCRIPTS {
        let relative = format!("Assets/Scripts/{script}");
        let text = match std::fs::read(peer.join(&relative)) {
            Ok(text) => text,
            Err(_) => git(&["show", &format!("HEAD:{relative}")]).ok_or_else(|| {
                format!(
                    "--peer {}: no {relative} (neither a checkout of Habrador/Unity-Boat-physics-Tutorial \
                     nor a git directory holding it)",
                    peer.display()
                )
            })?,
        };
        let name = Path::new(script).file_name().expect("a file name");
        std::fs::write(export.join(name), text).map_err(|e| e.to_string())?;
    }
    Ok(git(&["rev-parse", "HEAD"])
        .map(|out| String::from_utf8_lossy(&out).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_peer(dir: &Path) {
        for (i, script) in PEER_SCRIPTS.iter().enumerate() {
            let path = dir.join("Assets/Scripts").join(script);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            // A byte-order mark and CRLF line ends, as Unity projects often have: the
            // export must keep every byte.
            std::fs::write(&path, format!("\u{feff}// {script}\r\nclass C{i} {{ }}\r\n")).unwrap();
        }
    }

    /// The peer's scripts leave a copy of it byte for byte, into a directory outside the
    /// repository; a missing script is an error naming it, and a copy inside the
    /// repository is refused (its code is never kept there).
    #[test]
    fn the_peer_is_exported_unmodified_and_only_from_outside_the_repository() {
        let root = crate::unity::workspace_root().canonicalize().unwrap();
        let peer = std::env::temp_dir().join(format!("keel-fake-peer-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&peer);
        fake_peer(&peer);

        let (export, _commit) = export_peer(&root, &peer).unwrap();
        assert!(!export.starts_with(&root), "{}", export.display());
        for script in PEER_SCRIPTS {
            let original = std::fs::read(peer.join("Assets/Scripts").join(script)).unwrap();
            let copy = std::fs::read(export.join(Path::new(script).file_name().unwrap())).unwrap();
            assert_eq!(copy, original, "{script}");
        }
        std::fs::remove_dir_all(&export).unwrap();

        std::fs::remove_file(peer.join("Assets/Scripts/Water/WaveTypes.cs")).unwrap();
        let missing = export_peer(&root, &peer).unwrap_err();
        assert!(missing.contains("Assets/Scripts/Water/WaveTypes.cs"), "{missing}");
        std::fs::remove_dir_all(&peer).unwrap();

        let inside = root.join(format!("target/keel-fake-peer-{}", std::process::id()));
        fake_peer(&inside);
        let refused = export_peer(&root, &inside).unwrap_err();
        std::fs::remove_dir_all(&inside).unwrap();
        assert!(refused.contains("inside the repository"), "{refused}");
    }
}
