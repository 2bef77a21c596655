//! The addon folder: `keel.gdextension` names exactly the libraries the packaging
//! command produces, its entry symbol is the one the built library exports, its icons
//! exist for each of our classes, and the library built beside this test is the file
//! the packaging command copies for this machine.

mod common;
#[path = "../../../tests/skip/mod.rs"]
mod skip;

#[path = "../../../xtask/src/godot/libraries.rs"]
#[allow(dead_code)]
mod libraries;

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use object::{Object, ObjectSymbol};

/// `[section] key = "value"` lines of a `.gdextension` file.
fn gdextension() -> BTreeMap<String, BTreeMap<String, String>> {
    let text = fs::read_to_string(common::addon().join("keel.gdextension")).unwrap();
    let mut sections: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut section = String::new();
    for (n, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())) {
        if line.is_empty() || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_string();
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("line {n}: not `key = value`: {line}"));
        let value = value.trim();
        let value = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            Some(v) => v.to_string(),
            None => value.to_string(),
        };
        let previous = sections
            .entry(section.clone())
            .or_default()
            .insert(key.trim().to_string(), value);
        assert!(previous.is_none(), "line {n}: `{}` given twice", key.trim());
    }
    sections
}

#[test]
fn configuration_targets_godot_4_3_and_gdexts_entry() {
    let g = gdextension();
    let c = &g["configuration"];
    assert_eq!(c["entry_symbol"], libraries::ENTRY_SYMBOL);
    assert_eq!(c["compatibility_minimum"], "4.3");
}

#[test]
fn libraries_are_exactly_the_packaging_table() {
    let listed = &gdextension()["libraries"];
    let expected: BTreeMap<String, String> = libraries::LIBRARIES
        .iter()
        .map(|l| (l.tag.to_string(), l.res_path()))
        .collect();
    assert_eq!(listed, &expected);
    // Linux, Windows, macOS, Android and iOS, each in debug and release.
    for os in ["linux", "windows", "macos", "android", "ios"] {
        for profile in ["debug", "release"] {
            assert!(
                listed.keys().any(|k| k.starts_with(&format!("{os}.{profile}"))),
                "no {os} {profile} library"
            );
        }
    }
}

#[test]
fn every_class_has_an_icon_file() {
    let icons = &gdextension()["icons"];
    let ours = common::our_classes();
    assert!(ours.len() >= 4, "found only {:?}", ours.keys());
    for class in ours.keys() {
        let path = icons.get(class).unwrap_or_else(|| panic!("no icon for {class}"));
        let file = common::resolve(path).unwrap();
        let svg = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(svg.starts_with("<svg") && svg.contains("width=\"16\"") && svg.trim_end().ends_with("</svg>"));
    }
    for class in icons.keys() {
        assert!(
            ours.contains_key(class),
            "an icon for {class}, which is not one of our classes"
        );
    }
}

/// The cdylib cargo built beside this test (`target/<profile>/deps`, or one level up).
fn built_library() -> Option<PathBuf> {
    let library = libraries::find(None, cfg!(not(debug_assertions)))?;
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent()?;
    [
        deps.join(library.cargo_file()),
        deps.parent()?.join(library.cargo_file()),
    ]
    .into_iter()
    .find(|p| p.exists())
}

#[test]
fn built_library_exports_the_entry_symbol() {
    if libraries::find(None, false).is_none() {
        skip::skipped("keel.gdextension has no library for this machine");
        return;
    }
    let path = built_library().expect("cargo builds the cdylib beside the tests");
    let bytes = fs::read(&path).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    let exported: Vec<String> = file
        .exports()
        .unwrap()
        .filter_map(|e| match e.ok()?.name() {
            object::read::NameOrOrdinal::Name(name) => Some(String::from_utf8_lossy(name).to_string()),
            object::read::NameOrOrdinal::Ordinal(_) => None,
        })
        .chain(
            file.dynamic_symbols()
                .filter(|s| s.is_definition() && s.is_global())
                .filter_map(|s| s.name().ok().map(str::to_string)),
        )
        .collect();
    let wanted = libraries::ENTRY_SYMBOL;
    // Mach-O prefixes C symbols with an underscore.
    assert!(
        exported
            .iter()
            .any(|s| s == wanted || s.strip_prefix('_') == Some(wanted)),
        "{} does not export {wanted}",
        path.display()
    );
}

#[test]
fn packaging_names_this_machines_library_as_gdextension_expects() {
    let Some(library) = libraries::find(None, false) else {
        skip::skipped("keel.gdextension has no library for this machine");
        return;
    };
    let built = built_library().expect("cargo builds the cdylib beside the tests");
    assert_eq!(built.file_name().unwrap().to_str().unwrap(), library.cargo_file());
    // What `cargo xtask godot` does with it: the addon copy of the built library under the
    // name the entry of this machine points at, and the demo install of the whole addon.
    let stage = std::env::temp_dir().join(format!("keel-godot-addon-test-{}", std::process::id()));
    let addon = stage.join("addon");
    libraries::copy_dir(&common::addon(), &addon).unwrap();
    fs::copy(&built, addon.join("bin").join(library.file)).unwrap();
    let project = stage.join("project");
    let installed = libraries::install(&addon, &project).unwrap();
    let entry = &gdextension()["libraries"][library.tag];
    let relative = entry.strip_prefix("res://").unwrap();
    assert!(project.join(relative).exists(), "{entry} is missing after install");
    assert!(installed.join("keel.gdextension").exists());
    let list = fs::read_to_string(project.join(".godot/extension_list.cfg")).unwrap();
    assert_eq!(list.trim(), "res://addons/keel/keel.gdextension");
    fs::remove_dir_all(&stage).unwrap();
}
