//! The Godot addon's native libraries: which file each `keel.gdextension` entry names,
//! which cargo target builds it, and how a built library lands in an addon or a
//! project. Plain `std`, so that the addon's tests include this same file
//! (`#[path]`) and check `keel.gdextension` against it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Cargo's package name of the extension.
pub const PACKAGE: &str = "keel-godot";
/// Where the addon's files live in a Godot project.
pub const ADDON_RES: &str = "res://addons/keel";
/// The entry symbol gdext exports.
pub const ENTRY_SYMBOL: &str = "gdext_rust_init";

/// One library of the addon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Library {
    /// The feature tags of its `[libraries]` entry, e.g. `linux.debug.x86_64`.
    pub tag: &'static str,
    /// Rust's operating system name (`std::env::consts::OS`).
    pub os: &'static str,
    /// Rust's architecture name (`std::env::consts::ARCH`), or `universal` for a
    /// macOS library that holds both.
    pub arch: &'static str,
    /// Release rather than debug build.
    pub release: bool,
    /// The cargo targets that build it (two for a universal macOS library).
    pub targets: &'static [&'static str],
    /// Its file name in the addon's `bin/`.
    pub file: &'static str,
}

macro_rules! library {
    ($tag:literal, $os:literal, $arch:literal, $release:literal, [$($target:literal),+], $file:literal) => {
        Library { tag: $tag, os: $os, arch: $arch, release: $release, targets: &[$($target),+], file: $file }
    };
}

/// Every library `keel.gdextension` lists.
pub const LIBRARIES: &[Library] = &[
    library!(
        "linux.debug.x86_64",
        "linux",
        "x86_64",
        false,
        ["x86_64-unknown-linux-gnu"],
        "libkeel_godot.linux.debug.x86_64.so"
    ),
    library!(
        "linux.release.x86_64",
        "linux",
        "x86_64",
        true,
        ["x86_64-unknown-linux-gnu"],
        "libkeel_godot.linux.release.x86_64.so"
    ),
    library!(
        "linux.debug.arm64",
        "linux",
        "aarch64",
        false,
        ["aarch64-unknown-linux-gnu"],
        "libkeel_godot.linux.debug.arm64.so"
    ),
    library!(
        "linux.release.arm64",
        "linux",
        "aarch64",
        true,
        ["aarch64-unknown-linux-gnu"],
        "libkeel_godot.linux.release.arm64.so"
    ),
    library!(
        "windows.debug.x86_64",
        "windows",
        "x86_64",
        false,
        ["x86_64-pc-windows-msvc"],
        "keel_godot.windows.debug.x86_64.dll"
    ),
    library!(
        "windows.release.x86_64",
        "windows",
        "x86_64",
        true,
        ["x86_64-pc-windows-msvc"],
        "keel_godot.windows.release.x86_64.dll"
    ),
    library!(
        "macos.debug",
        "macos",
        "universal",
        false,
        ["x86_64-apple-darwin", "aarch64-apple-darwin"],
        "libkeel_godot.macos.debug.dylib"
    ),
    library!(
        "macos.release",
        "macos",
        "universal",
        true,
        ["x86_64-apple-darwin", "aarch64-apple-darwin"],
        "libkeel_godot.macos.release.dylib"
    ),
    library!(
        "android.debug.arm64",
        "android",
        "aarch64",
        false,
        ["aarch64-linux-android"],
        "libkeel_godot.android.debug.arm64.so"
    ),
    library!(
        "android.release.arm64",
        "android",
        "aarch64",
        true,
        ["aarch64-linux-android"],
        "libkeel_godot.android.release.arm64.so"
    ),
    library!(
        "android.debug.x86_64",
        "android",
        "x86_64",
        false,
        ["x86_64-linux-android"],
        "libkeel_godot.android.debug.x86_64.so"
    ),
    library!(
        "android.release.x86_64",
        "android",
        "x86_64",
        true,
        ["x86_64-linux-android"],
        "libkeel_godot.android.release.x86_64.so"
    ),
    library!(
        "ios.debug",
        "ios",
        "aarch64",
        false,
        ["aarch64-apple-ios"],
        "libkeel_godot.ios.debug.dylib"
    ),
    library!(
        "ios.release",
        "ios",
        "aarch64",
        true,
        ["aarch64-apple-ios"],
        "libkeel_godot.ios.release.dylib"
    ),
];

impl Library {
    /// The path `keel.gdextension` gives it.
    pub fn res_path(&self) -> String {
        format!("{ADDON_RES}/bin/{}", self.file)
    }

    /// The name cargo gives the cdylib on this library's operating system.
    pub fn cargo_file(&self) -> &'static str {
        match self.os {
            "windows" => "keel_godot.dll",
            "macos" | "ios" => "libkeel_godot.dylib",
            _ => "libkeel_godot.so",
        }
    }
}

/// The library for this machine, or for a cargo target (`--target`).
pub fn find(target: Option<&str>, release: bool) -> Option<&'static Library> {
    LIBRARIES.iter().find(|l| {
        l.release == release
            && match target {
                Some(t) => l.targets.contains(&t),
                None => l.os == std::env::consts::OS && (l.arch == std::env::consts::ARCH || l.arch == "universal"),
            }
    })
}

/// Copies `from` into `to` recursively (`to` created), skipping `.gitkeep` files.
pub fn copy_dir(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else if entry.file_name() != ".gitkeep" {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Installs the addon at `addon` into the Godot project at `project` (as
/// `addons/keel`), and lists its extension in `.godot/extension_list.cfg`, which the
/// editor would write on its first scan: without it a headless run that never opened
/// the editor does not load the extension.
pub fn install(addon: &Path, project: &Path) -> io::Result<PathBuf> {
    let dest = project.join("addons").join("keel");
    if dest.exists() {
        fs::remove_dir_all(&dest)?;
    }
    copy_dir(addon, &dest)?;
    let list = project.join(".godot").join("extension_list.cfg");
    fs::create_dir_all(list.parent().expect("has a parent"))?;
    fs::write(&list, format!("{ADDON_RES}/keel.gdextension\n"))?;
    Ok(dest)
}
