//! Assembling the UPM package: the source tree, one native plugin per platform with a
//! PluginImporter `.meta` enabling it for exactly that platform and CPU, a `.meta` with a
//! stable GUID for every other file and folder, and the `.tgz` Unity's "Add package from
//! tarball" reads (everything under a top-level `package/`).
//!
//! Only std is used so that `tests/unity.rs` can include this file as a module.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The package's name in package.json, and its folder name inside the output directory.
pub const PACKAGE_NAME: &str = "com.keel.buoyancy";

/// A platform the package ships a native plugin for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    LinuxX86_64,
    WindowsX86_64,
    MacosUniversal,
    AndroidArm64,
    Ios,
    /// wasm32-unknown-emscripten static library, linked into Unity's WebGL build.
    WebGl,
}

impl Platform {
    pub fn parse(name: &str) -> Result<Self, String> {
        Ok(match name {
            "linux-x86_64" => Self::LinuxX86_64,
            "windows-x86_64" => Self::WindowsX86_64,
            "macos-universal" => Self::MacosUniversal,
            "android-arm64" => Self::AndroidArm64,
            "ios" => Self::Ios,
            "webgl" => Self::WebGl,
            _ => {
                return Err(format!(
                    "unknown platform {name}: linux-x86_64, windows-x86_64, macos-universal, android-arm64, ios, webgl"
                ));
            }
        })
    }

    /// The machine this runs on, for the library cargo builds here.
    pub fn host() -> Result<Self, String> {
        match (std::env::consts::OS, std::env::consts::ARCH) {
            ("linux", "x86_64") => Ok(Self::LinuxX86_64),
            ("windows", "x86_64") => Ok(Self::WindowsX86_64),
            ("macos", _) => Ok(Self::MacosUniversal),
            (os, arch) => Err(format!("no Unity plugin layout for {os}/{arch}")),
        }
    }

    /// The file cargo writes for the cdylib (staticlib on iOS).
    pub fn cargo_output_name(self) -> &'static str {
        match self {
            Self::LinuxX86_64 | Self::AndroidArm64 => "libkeel.so",
            Self::WindowsX86_64 => "keel.dll",
            Self::MacosUniversal => "libkeel.dylib",
            Self::Ios | Self::WebGl => "libkeel.a",
        }
    }

    /// The name `--plugin` takes, and `cargo xtask unity` prints.
    pub fn name(self) -> &'static str {
        match self {
            Self::LinuxX86_64 => "linux-x86_64",
            Self::WindowsX86_64 => "windows-x86_64",
            Self::MacosUniversal => "macos-universal",
            Self::AndroidArm64 => "android-arm64",
            Self::Ios => "ios",
            Self::WebGl => "webgl",
        }
    }

    /// Every platform the package can hold, in the order summaries list them.
    pub const ALL: [Platform; 6] = [
        Self::LinuxX86_64,
        Self::WindowsX86_64,
        Self::MacosUniversal,
        Self::AndroidArm64,
        Self::Ios,
        Self::WebGl,
    ];

    /// Where Unity's usual layout puts the plugin, relative to the package root.
    pub fn plugin_path(self) -> &'static str {
        match self {
            Self::LinuxX86_64 => "Runtime/Plugins/Linux/x86_64/libkeel.so",
            Self::WindowsX86_64 => "Runtime/Plugins/Windows/x86_64/keel.dll",
            // A single-file Mach-O dylib named .bundle loads with dlopen like a bundle.
            Self::MacosUniversal => "Runtime/Plugins/macOS/keel.bundle",
            Self::AndroidArm64 => "Runtime/Plugins/Android/arm64-v8a/libkeel.so",
            Self::Ios => "Runtime/Plugins/iOS/libkeel.a",
            Self::WebGl => "Runtime/Plugins/WebGL/libkeel.a",
        }
    }

    /// The PluginImporter's platformData: enabled for this platform and CPU only.
    fn platform_data(self) -> String {
        let excluded = |name: &str| {
            let own = match self {
                Self::LinuxX86_64 => "Linux64",
                Self::WindowsX86_64 => "Win64",
                Self::MacosUniversal => "OSXUniversal",
                Self::AndroidArm64 => "Android",
                Self::Ios => "iOS",
                Self::WebGl => "WebGL",
            };
            let editor = matches!(self, Self::LinuxX86_64 | Self::WindowsX86_64 | Self::MacosUniversal);
            u8::from(!(name == own || name == "Editor" && editor))
        };
        let mut s =
            String::from("  platformData:\n  - first:\n      : Any\n    second:\n      enabled: 0\n      settings:\n");
        for name in [
            "Android",
            "Editor",
            "Linux64",
            "OSXUniversal",
            "WebGL",
            "Win",
            "Win64",
            "iOS",
        ] {
            s.push_str(&format!("        Exclude {name}: {}\n", excluded(name)));
        }
        s.push_str("  - first:\n      Any: \n    second:\n      enabled: 0\n      settings: {}\n");
        let (editor_os, editor_cpu) = match self {
            Self::LinuxX86_64 => ("Linux", "x86_64"),
            Self::WindowsX86_64 => ("Windows", "x86_64"),
            Self::MacosUniversal => ("OSX", "AnyCPU"),
            _ => ("AnyOS", "AnyCPU"),
        };
        let editor_enabled = u8::from(excluded("Editor") == 0);
        s.push_str(&format!(
            "  - first:\n      Editor: Editor\n    second:\n      enabled: {editor_enabled}\n      settings:\n        CPU: {editor_cpu}\n        DefaultValueInitialized: true\n        OS: {editor_os}\n"
        ));
        let targets: [(&str, Platform, &str); 6] = [
            ("Android: Android", Self::AndroidArm64, "ARM64"),
            ("Standalone: Linux64", Self::LinuxX86_64, "x86_64"),
            ("Standalone: OSXUniversal", Self::MacosUniversal, "AnyCPU"),
            ("Standalone: Win64", Self::WindowsX86_64, "x86_64"),
            ("WebGL: WebGL", Self::WebGl, "AnyCPU"),
            ("iPhone: iOS", Self::Ios, "AnyCPU"),
        ];
        for (first, platform, cpu) in targets {
            let on = platform == self;
            let cpu = if on { cpu } else { "None" };
            s.push_str(&format!(
                "  - first:\n      {first}\n    second:\n      enabled: {}\n      settings:\n        CPU: {cpu}\n",
                u8::from(on)
            ));
            if platform == Self::Ios {
                s.push_str(
                    "        AddToEmbeddedBinaries: false\n        CompileFlags: \n        FrameworkDependencies: \n",
                );
            }
        }
        s
    }

    fn plugin_meta(self, guid: &str) -> String {
        format!(
            "fileFormatVersion: 2\nguid: {guid}\nPluginImporter:\n  externalObjects: {{}}\n  serializedVersion: 2\n  iconMap: {{}}\n  executionOrder: {{}}\n  defineConstraints: []\n  isPreloaded: 0\n  isOverridable: 0\n  isExplicitlyReferenced: 0\n  validateReferences: 1\n{}  userData: \n  assetBundleName: \n  assetBundleVariant: \n",
            self.platform_data()
        )
    }
}

/// A stable GUID for a package-relative path: 128 bits of two FNV-1a hashes. Unity only
/// needs GUIDs unique and unchanging, so the same path always gets the same one and a
/// rebuilt package never breaks users' references.
pub fn guid_for(relative: &str) -> String {
    let fnv = |seed: u64| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
        for b in PACKAGE_NAME
            .bytes()
            .chain([b'/'])
            .chain(relative.replace('\\', "/").bytes())
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    };
    format!("{:016x}{:016x}", fnv(0), fnv(0x9e37_79b9_7f4a_7c15))
}

/// The importer a plain file gets, by extension.
fn default_meta(relative: &str, is_dir: bool) -> String {
    let guid = guid_for(relative);
    let importer = if is_dir {
        "folderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n".to_string()
    } else if relative.ends_with(".cs") {
        "MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n".to_string()
    } else if relative.ends_with(".asmdef") {
        "AssemblyDefinitionImporter:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n".to_string()
    } else if relative.ends_with(".json") || relative.ends_with(".md") || relative.ends_with(".txt") {
        "TextScriptImporter:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n"
            .to_string()
    } else {
        "DefaultImporter:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n"
            .to_string()
    };
    format!("fileFormatVersion: 2\nguid: {guid}\n{importer}")
}

/// Unity ignores these (and so must the metas): `~` folders, dot files.
fn hidden(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~')
}

/// Writes a `.meta` beside every file and folder of `root` lacking one; returns how many.
pub fn write_missing_metas(root: &Path) -> Result<usize, String> {
    let mut written = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            if hidden(&name) || name.ends_with(".meta") {
                continue;
            }
            let is_dir = path.is_dir();
            if is_dir {
                stack.push(path.clone());
            }
            let meta = PathBuf::from(format!("{}.meta", path.display()));
            if !meta.exists() {
                let relative = path
                    .strip_prefix(root)
                    .map_err(|e| e.to_string())?
                    .to_string_lossy()
                    .replace('\\', "/");
                std::fs::write(&meta, default_meta(&relative, is_dir))
                    .map_err(|e| format!("{}: {e}", meta.display()))?;
                written += 1;
            }
        }
    }
    Ok(written)
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if src.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// One line per platform: whether the package folder holds its plugin, and where.
pub fn platform_summary(folder: &Path) -> String {
    let mut lines = Vec::new();
    for platform in Platform::ALL {
        let path = folder.join(platform.plugin_path());
        lines.push(match std::fs::metadata(&path) {
            Ok(meta) => format!(
                "  {:<16} yes  {} ({:.1} MB)",
                platform.name(),
                platform.plugin_path(),
                meta.len() as f64 / 1e6
            ),
            Err(_) => format!(
                "  {:<16} no   (pass --plugin {}=FILE)",
                platform.name(),
                platform.name()
            ),
        });
    }
    lines.join("\n")
}

/// Builds `<out>/package/` (the package folder) and `<out>/<name>-<version>.tgz`.
pub fn assemble(root: &Path, out: &Path, plugins: &[(Platform, PathBuf)]) -> Result<(PathBuf, PathBuf), String> {
    let folder = out.join("package");
    if folder.exists() {
        std::fs::remove_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    copy_tree(&root.join("unity-package"), &folder)?;
    for license in ["LICENSE-MIT", "LICENSE-APACHE"] {
        std::fs::copy(root.join(license), folder.join(format!("{license}.txt")))
            .map_err(|e| format!("{license}: {e}"))?;
    }
    for (platform, file) in plugins {
        if !file.is_file() {
            return Err(format!("plugin for {platform:?} not found: {}", file.display()));
        }
        let dest = folder.join(platform.plugin_path());
        std::fs::create_dir_all(dest.parent().expect("plugin paths have folders")).map_err(|e| e.to_string())?;
        std::fs::copy(file, &dest).map_err(|e| format!("{}: {e}", file.display()))?;
        let meta = format!("{}.meta", dest.display());
        std::fs::write(&meta, platform.plugin_meta(&guid_for(platform.plugin_path()))).map_err(|e| e.to_string())?;
    }
    write_missing_metas(&folder)?;
    let version = package_version(&folder.join("package.json"))?;
    let tgz = out.join(format!("{PACKAGE_NAME}-{version}.tgz"));
    let status = Command::new("tar")
        .arg("-czf")
        .arg(&tgz)
        .arg("-C")
        .arg(out)
        .arg("package")
        .status()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if !status.success() {
        return Err("tar failed".to_string());
    }
    Ok((folder, tgz))
}

/// The `"version"` of package.json, read without a JSON crate (the file is ours and flat).
pub fn package_version(package_json: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(package_json).map_err(|e| format!("{}: {e}", package_json.display()))?;
    let after = text.split("\"version\"").nth(1).ok_or("package.json has no version")?;
    let value = after
        .split('"')
        .nth(1)
        .ok_or("package.json's version is not a string")?;
    Ok(value.to_string())
}
