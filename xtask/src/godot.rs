//! `cargo xtask godot`: builds the Godot extension for this machine (or a cargo
//! target), puts it in `godot-addon/addons/keel/bin/` under the name
//! `keel.gdextension` gives it, installs the addon into the demo project, and on
//! request zips the addon or runs the demo's headless test.

pub mod libraries;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use clap::error::ErrorKind;

use libraries::Library;

/// Build and package the Godot addon.
#[derive(Parser, Debug)]
#[command(name = "cargo xtask godot")]
struct Args {
    /// Build the release library (default: debug).
    #[arg(long)]
    release: bool,
    /// Cargo target to build for (default: this machine), e.g. aarch64-linux-android.
    #[arg(long)]
    target: Option<String>,
    /// Also zip the addon folder (every library in its bin/) into DIR/keel-godot-addon.zip.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Package the libraries already in bin/ without building (for a release that
    /// gathered the other platforms' builds there).
    #[arg(long)]
    no_build: bool,
    /// Package this already built library (for `--target`, or this machine) instead of
    /// building one, e.g. one `cargo ndk` built.
    #[arg(long, value_name = "FILE", conflicts_with = "no_build")]
    lib: Option<PathBuf>,
    /// (Kept for older scripts: a release build now always fills the debug entry too.)
    #[arg(long, requires = "release", hide = true)]
    #[allow(dead_code)]
    both_entries: bool,
    /// Pass `--locked` to cargo.
    #[arg(long)]
    locked: bool,
    /// Run the demo's headless test afterwards (needs Godot 4.3+ as `godot` on PATH or $GODOT).
    #[arg(long)]
    test: bool,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// Runs `cargo xtask godot` with `args`.
pub fn run(args: &[String]) -> Result<(), String> {
    let args = match Args::try_parse_from(std::iter::once("cargo xtask godot".to_string()).chain(args.iter().cloned()))
    {
        Ok(args) => args,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            print!("{e}");
            return Ok(());
        }
        Err(e) => return Err(e.to_string()),
    };
    let root = root();
    let addon = root.join("godot-addon/addons/keel");
    let demo = root.join("godot-addon/demo");
    if !args.no_build {
        let library = libraries::find(args.target.as_deref(), args.release).ok_or_else(|| {
            format!(
                "keel.gdextension lists no library for {}",
                args.target.as_deref().unwrap_or("this machine")
            )
        })?;
        let built = match &args.lib {
            Some(file) => file.clone(),
            None => build(&root, library, &args)?,
        };
        for entry in entries(library) {
            let dest = addon.join("bin").join(entry.file);
            check_listed(&addon, entry)?;
            fs::copy(&built, &dest)
                .map_err(|e| format!("cannot copy {} to {}: {e}", built.display(), dest.display()))?;
            println!("{} -> {}", built.display(), dest.display());
        }
    }
    libraries::install(&addon, &demo).map_err(|e| format!("cannot install the addon into the demo: {e}"))?;
    println!("installed the addon into {}", demo.display());
    if let Some(dir) = &args.out {
        let zip = zip_addon(&addon, dir)?;
        println!("{}", zip.display());
    }
    if args.test {
        headless_test(&demo)?;
    }
    Ok(())
}

/// The entries of `keel.gdextension` a build for `library` fills: the editor (and a
/// debug export) loads the debug entry whatever was built, so a release build fills it
/// too, or the editor would not load the addon.
fn entries(library: &'static Library) -> Vec<&'static Library> {
    let mut entries = vec![library];
    if library.release {
        entries.extend(
            libraries::LIBRARIES
                .iter()
                .find(|l| !l.release && l.tag == library.tag.replace(".release", ".debug")),
        );
    }
    entries
}

/// `cargo build` of the extension; the built library's path (a universal macOS
/// library is the `lipo` of its targets' builds).
fn build(root: &Path, library: &Library, args: &Args) -> Result<PathBuf, String> {
    let (release, target) = (args.release, args.target.as_deref());
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let profile = if release { "release" } else { "debug" };
    // A universal library needs both of its targets; one target builds one library.
    let targets: Vec<Option<&str>> = if library.targets.len() > 1 {
        library.targets.iter().map(|t| Some(*t)).collect()
    } else {
        vec![target]
    };
    let mut outputs = Vec::new();
    for t in &targets {
        let mut command = Command::new(&cargo);
        command.current_dir(root).args(["build", "-p", libraries::PACKAGE]);
        if release {
            command.arg("--release");
        }
        if args.locked {
            command.arg("--locked");
        }
        if let Some(t) = t {
            command.args(["--target", t]);
        }
        let status = command.status().map_err(|e| format!("cannot run {cargo}: {e}"))?;
        if !status.success() {
            return Err(format!("cargo build failed ({status})"));
        }
        let dir = match t {
            Some(t) => target_dir.join(t).join(profile),
            None => target_dir.join(profile),
        };
        outputs.push(dir.join(library.cargo_file()));
    }
    if outputs.len() == 1 {
        return Ok(outputs.remove(0));
    }
    let universal = target_dir.join(profile).join(format!("universal-{}", library.file));
    let status = Command::new("lipo")
        .arg("-create")
        .args(&outputs)
        .arg("-output")
        .arg(&universal)
        .status()
        .map_err(|e| format!("cannot run lipo: {e}"))?;
    if !status.success() {
        return Err(format!("lipo failed ({status})"));
    }
    Ok(universal)
}

/// Refuses to package a library `keel.gdextension` does not point at.
fn check_listed(addon: &Path, library: &Library) -> Result<(), String> {
    let text = fs::read_to_string(addon.join("keel.gdextension")).map_err(|e| format!("keel.gdextension: {e}"))?;
    let entry = format!("{} = \"{}\"", library.tag, library.res_path());
    let symbol = format!("entry_symbol = \"{}\"", libraries::ENTRY_SYMBOL);
    match [&entry, &symbol]
        .into_iter()
        .find(|line| !text.lines().any(|l| l.trim() == line.as_str()))
    {
        Some(line) => Err(format!("keel.gdextension lacks the line `{line}`")),
        None => Ok(()),
    }
}

/// Zips the addon as `addons/keel/...`, the layout a user unpacks into a project.
fn zip_addon(addon: &Path, dir: &Path) -> Result<PathBuf, String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("keel-godot-addon.zip");
    let file = fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut files = Vec::new();
    collect(addon, &mut files).map_err(|e| e.to_string())?;
    files.sort();
    for file in files {
        let relative = file.strip_prefix(addon).expect("under the addon");
        let name = format!(
            "addons/keel/{}",
            relative.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/")
        );
        zip.start_file(name, options).map_err(|e| e.to_string())?;
        let bytes = fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        zip.write_all(&bytes).map_err(|e| e.to_string())?;
    }
    zip.finish().map_err(|e| e.to_string())?;
    Ok(path)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.file_name().is_some_and(|n| n != ".gitkeep") {
            out.push(path);
        }
    }
    Ok(())
}

/// Imports the demo (Godot scans the extension and the resources) and runs its
/// headless test.
fn headless_test(demo: &Path) -> Result<(), String> {
    let godot = std::env::var("GODOT").unwrap_or_else(|_| "godot".to_string());
    let import = Command::new(&godot)
        .args(["--headless", "--import", "--path"])
        .arg(demo)
        .status()
        .map_err(|e| format!("cannot run {godot}: {e}"))?;
    if !import.success() {
        eprintln!("godot --import exited with {import}; running the test anyway");
    }
    let status = Command::new(&godot)
        .args(["--headless", "--path"])
        .arg(demo)
        .args(["-s", "res://tests/run_headless.gd"])
        .status()
        .map_err(|e| format!("cannot run {godot}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the headless test failed ({status})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo xtask godot --release` fills the debug entry of the same platform too (the
    /// one the editor loads), and `keel.gdextension` lists both.
    #[test]
    fn a_release_build_fills_the_debug_entry() {
        let addon = root().join("godot-addon/addons/keel");
        let releases: Vec<&Library> = libraries::LIBRARIES.iter().filter(|l| l.release).collect();
        assert!(!releases.is_empty());
        for release in releases {
            let filled = entries(release);
            let debug: Vec<&&Library> = filled.iter().filter(|l| !l.release).collect();
            assert_eq!(debug.len(), 1, "{}: fills {filled:?}", release.tag);
            let debug = debug[0];
            assert_eq!((debug.os, debug.arch), (release.os, release.arch), "{}", release.tag);
            assert!(debug.tag.contains(".debug"), "{}", debug.tag);
            for entry in &filled {
                check_listed(&addon, entry).unwrap();
            }
        }
        // A debug build fills only its own entry.
        let debug = libraries::LIBRARIES.iter().find(|l| !l.release).unwrap();
        assert_eq!(entries(debug), vec![debug]);
    }
}
