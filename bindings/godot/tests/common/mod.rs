//! What the addon's tests share: paths, Godot 4.3's class list, and our classes'
//! properties as the Rust source declares them.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `godot-addon/addons/keel`.
pub fn addon() -> PathBuf {
    root().join("godot-addon/addons/keel")
}

/// `godot-addon/demo`.
pub fn demo() -> PathBuf {
    root().join("godot-addon/demo")
}

/// A `res://` path of the demo project as a file of the repository: the addon lives in
/// `godot-addon/addons/keel` (the demo gets a copy when it is installed).
pub fn resolve(res: &str) -> Option<PathBuf> {
    let rest = res.strip_prefix("res://")?;
    Some(match rest.strip_prefix("addons/keel/") {
        Some(inside) => addon().join(inside),
        None => demo().join(rest),
    })
}

/// Every file under `dir` whose name ends with `suffix`, skipping the demo's installed
/// copy of the addon and Godot's cache.
pub fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                let generated = name == ".godot" || (name == "addons" && d.ends_with("demo"));
                if !generated {
                    stack.push(path);
                }
            } else if name.ends_with(suffix) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// One class: its parent and the properties it declares itself.
#[derive(Clone, Debug, Default)]
pub struct Class {
    pub parent: Option<String>,
    pub properties: BTreeSet<String>,
}

/// Godot 4.3's classes (`tests/data/godot_4_3_classes.txt`).
pub fn godot_classes() -> BTreeMap<String, Class> {
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/godot_4_3_classes.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut words = l.split_whitespace().map(str::to_string);
            let name = words.next().unwrap();
            let parent = words.next().filter(|p| p != "-");
            (
                name,
                Class {
                    parent,
                    properties: words.collect(),
                },
            )
        })
        .collect()
}

/// Our classes, from `src/classes/*.rs`: each `#[derive(GodotClass)]` struct's base and
/// the fields it registers as properties (`#[export]` or `#[var]`).
pub fn our_classes() -> BTreeMap<String, Class> {
    let mut out = BTreeMap::new();
    for file in files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/classes"), ".rs") {
        let text = fs::read_to_string(&file).unwrap();
        let mut base = None;
        let mut current: Option<(String, Class)> = None;
        let mut registered = false;
        for line in text.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("#[class(") {
                base = rest
                    .split(',')
                    .find_map(|p| p.trim().strip_prefix("base="))
                    .map(|b| b.trim_end_matches(")]").to_string());
            } else if let Some(rest) = line.strip_prefix("pub struct ") {
                if let (Some(b), Some(name)) = (base.take(), rest.strip_suffix(" {")) {
                    current = Some((
                        name.to_string(),
                        Class {
                            parent: Some(b),
                            properties: BTreeSet::new(),
                        },
                    ));
                }
            } else if let Some((_, class)) = current.as_mut() {
                if line.starts_with("#[export")
                    && !line.starts_with("#[export_group")
                    && !line.starts_with("#[export_subgroup")
                    || line.starts_with("#[var")
                {
                    registered = true;
                } else if line == "}" {
                    let (name, class) = current.take().unwrap();
                    out.insert(name, class);
                } else if !line.starts_with("#[") && !line.starts_with("///") && line.contains(':') {
                    if registered {
                        class
                            .properties
                            .insert(line.split(':').next().unwrap().trim().to_string());
                    }
                    registered = false;
                }
            }
        }
    }
    out
}

/// Whether `property` is one a node or resource of class `name` has: its own or an
/// ancestor's, in `ours` or Godot's.
pub fn has_property(
    name: &str,
    property: &str,
    ours: &BTreeMap<String, Class>,
    godot: &BTreeMap<String, Class>,
) -> bool {
    let mut class = Some(name.to_string());
    while let Some(c) = class {
        let Some(info) = ours.get(&c).or_else(|| godot.get(&c)) else {
            return false;
        };
        if info.properties.contains(property) {
            return true;
        }
        class = info.parent.clone();
    }
    false
}
