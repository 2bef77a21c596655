//! The engine's source tree is a house in layers: every top-level module of `src/` may
//! import from its own layer and the layers below, never from one above. The order is
//! written once, as the order of the `mod` lines in `src/lib.rs`, and this test reads it
//! there; then it reads every `crate::` path (and every `super::` that climbs to the
//! crate's root) in the code of `src/` and fails on one that runs back up.
//!
//! Test code (`#[cfg(test)]` items and the files they declare) is exempt: it checks a
//! layer from above and is not part of it. Comments are not code: a doc link may point up.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layers, bottom first: the `mod NAME;` lines of lib.rs in their order.
fn layers(lib: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in lib.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "mod");
        if let Some(at) = at
            && words.len() == at + 2
            && words[at + 1].ends_with(';')
            && words[..at].iter().all(|w| w.starts_with("pub"))
        {
            out.push(words[at + 1].trim_end_matches(';').to_string());
        }
    }
    out
}

/// The names lib.rs re-exports at the root (`crate::World`), each with the layer it
/// comes from.
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let code = strip_comments(lib);
    for statement in code.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let layer: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let names = match (rest.find('{'), rest.rfind("::")) {
            (Some(open), _) => rest[open + 1..].trim_end_matches('}').to_string(),
            (None, Some(last)) => rest[last + 2..].to_string(),
            (None, None) => rest.to_string(),
        };
        for name in names.split(',') {
            let name = name.split_whitespace().last().unwrap_or("");
            if !name.is_empty() {
                out.insert(name.to_string(), layer.clone());
            }
        }
    }
    out
}

/// `text` with its comments blanked (line by line, so that line numbers stay true).
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut in_block = false;
    for line in text.lines() {
        let mut kept = String::new();
        let mut rest = line;
        loop {
            if in_block {
                match rest.find("*/") {
                    Some(end) => {
                        in_block = false;
                        rest = &rest[end + 2..];
                    }
                    None => break,
                }
            }
            let line_comment = rest.find("//");
            let block = rest.find("/*");
            match (line_comment, block) {
                (Some(l), b) if b.is_none_or(|b| l < b) => {
                    kept.push_str(&rest[..l]);
                    break;
                }
                (_, Some(b)) => {
                    kept.push_str(&rest[..b]);
                    in_block = true;
                    rest = &rest[b + 2..];
                }
                _ => {
                    kept.push_str(rest);
                    break;
                }
            }
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// `code` (comments stripped) without its `#[cfg(test)]` items, blanked line by line,
/// and the names of the modules those items declare in files of their own.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut test_files = Vec::new();
    let mut skipping = false;
    let mut depth = 0i64;
    let mut opened = false;
    for line in code.lines() {
        let trimmed = line.trim();
        // `#[cfg(test)]` and `#[cfg(all(test, ...))]`, not `#[cfg(not(test))]`.
        if !skipping && (trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test")) {
            skipping = true;
            depth = 0;
            opened = false;
            out.push('\n');
            continue;
        }
        if skipping {
            if trimmed.starts_with("#[") && depth == 0 && !opened {
                out.push('\n');
                continue;
            }
            for c in line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            let words: Vec<&str> = trimmed.split_whitespace().collect();
            if let Some(at) = words.iter().position(|w| *w == "mod")
                && let Some(name) = words.get(at + 1)
                && name.ends_with(';')
            {
                test_files.push(name.trim_end_matches(';').to_string());
            }
            if (opened && depth == 0) || (!opened && trimmed.ends_with(';')) {
                skipping = false;
            }
            out.push('\n');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, test_files)
}

/// Every top-level module that `code` names through `crate::` (or through as many
/// `super::` as it takes to reach the root from a module `depth` levels down), with the
/// line it is on (from 1). `crate::Name` of a root re-export counts as its layer.
fn imports(code: &str, depth: usize, roots: &BTreeMap<String, String>) -> Vec<(usize, String)> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let supers = "super::".repeat(depth);
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut starts = Vec::new();
        for prefix in ["crate::", supers.as_str()] {
            let mut from = 0;
            while let Some(at) = line[from..].find(prefix) {
                let start = from + at;
                let before = line[..start].chars().next_back();
                // `crate::` itself, not `keel_crate::` or `$crate::`; `super::` only as
                // the whole climb (`super::super::x` from a module one level down is
                // the root's `x`, but `super::x` is its parent's).
                let whole = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':');
                if whole {
                    starts.push(start + prefix.len());
                }
                from = start + prefix.len();
            }
        }
        for start in starts {
            let rest = &line[start..];
            let mut names = Vec::new();
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::X, b}`: the first name of each member at the top level.
                let mut level = 0;
                let mut member = true;
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => level += 1,
                        '}' if level == 0 => break,
                        '}' => level -= 1,
                        ',' if level == 0 => member = true,
                        c if member && (c.is_alphanumeric() || c == '_') => {
                            names.push(ident(&group[i..]));
                            member = false;
                        }
                        _ => {}
                    }
                }
            } else {
                names.push(ident(rest));
            }
            for name in names {
                let layer = roots.get(&name).cloned().unwrap_or(name);
                if !layer.is_empty() && layer != "self" {
                    out.push((n + 1, layer));
                }
            }
        }
    }
    out
}

/// A file's layer (the first component of its path under src/) and how many modules
/// down it is (src/a.rs and src/a/mod.rs: 1; src/a/b.rs: 2).
fn place(path: &Path) -> (String, usize) {
    let rel = path.strip_prefix(src()).unwrap();
    let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let layer = parts[0].trim_end_matches(".rs").to_string();
    let depth = if parts.last().unwrap() == "mod.rs" {
        parts.len() - 1
    } else {
        parts.len()
    };
    (layer, depth)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every import of `src/` that runs from a layer to one above it, as "file:line: a -> b".
fn violations() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let order = layers(&lib);
    let rank = |layer: &str| order.iter().position(|l| l == layer);
    let roots = root_names(&lib);
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    // Files declared by a `#[cfg(test)] mod name;` are test code as a whole.
    let mut test_files = Vec::new();
    for path in &files {
        let (_, names) = without_tests(&strip_comments(&std::fs::read_to_string(path).unwrap()));
        let dir = if path.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs") {
            path.parent().unwrap().to_path_buf()
        } else {
            path.with_extension("")
        };
        for name in names {
            test_files.push(dir.join(format!("{name}.rs")));
            test_files.push(dir.join(name).join("mod.rs"));
        }
    }
    let mut out = Vec::new();
    for path in &files {
        if path.ends_with("lib.rs") || test_files.contains(path) {
            continue;
        }
        let (layer, depth) = place(path);
        let Some(own) = rank(&layer) else {
            out.push(format!("{}: not a layer: declare `{layer}` in lib.rs", path.display()));
            continue;
        };
        let (code, _) = without_tests(&strip_comments(&std::fs::read_to_string(path).unwrap()));
        for (line, to) in imports(&code, depth, &roots) {
            match rank(&to) {
                Some(r) if r > own => out.push(format!(
                    "{}:{line}: {layer} imports from {to}, a higher layer",
                    path.display()
                )),
                Some(_) => {}
                // Not a module of the crate (a macro's `crate::`?): name it, so that the
                // test is never fooled by a path it does not understand.
                None => out.push(format!(
                    "{}:{line}: `crate::{to}` is no layer of lib.rs",
                    path.display()
                )),
            }
        }
    }
    out
}

#[test]
fn no_import_runs_from_a_layer_to_one_above() {
    let v = violations();
    assert!(v.is_empty(), "imports that run back up:\n{}", v.join("\n"));
}

#[test]
fn the_layers_stand_in_the_order_of_the_issue() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let order = layers(&lib);
    let rank = |layer: &str| {
        order
            .iter()
            .position(|l| l == layer)
            .unwrap_or_else(|| panic!("no layer {layer} in lib.rs"))
    };
    // Whoever reorders lib.rs to hide an import must get past these: the step and the
    // world above the bodies, the loops above the forces and the hulls, the byte format
    // below everything that writes a snapshot.
    let below = [
        ("error", "runtime"),
        ("runtime", "handle"),
        ("handle", "water"),
        ("water", "snapshot"),
        ("snapshot", "hull"),
        ("hull", "forces"),
        ("forces", "loops"),
        ("loops", "body"),
        ("body", "step"),
        ("step", "world"),
        ("world", "hydrostatics"),
        ("hydrostatics", "host"),
        ("host", "ffi"),
    ];
    for (low, high) in below {
        assert!(
            rank(low) < rank(high),
            "{low} must stand below {high} in lib.rs: {order:?}"
        );
    }
    // Every folder and file of src/ is a layer.
    for entry in std::fs::read_dir(src()).unwrap() {
        let name = entry
            .unwrap()
            .file_name()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        assert!(
            name == "lib" || order.contains(&name),
            "src/{name} is not declared in lib.rs's layers"
        );
    }
}

/// The reader on a made-up file: it must see a grouped import, a climb by `super::`
/// and a root re-export, and skip comments and test code.
#[test]
fn the_reader_finds_what_it_must() {
    let roots = BTreeMap::from([("World".to_string(), "world".to_string())]);
    let code = "use crate::{hull::Hull, step};\n\
                // use crate::ffi;\n\
                use super::super::loops::X;\n\
                fn f(w: &crate::World) {} /* crate::host */\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::ffi;\n}\n\
                use super::store::Y;\n";
    let (code, _) = without_tests(&strip_comments(code));
    let found: Vec<String> = imports(&code, 2, &roots).into_iter().map(|(_, l)| l).collect();
    assert_eq!(found, ["hull", "step", "loops", "world"]);
    let (_, test_files) = without_tests("#[cfg(test)]\nmod tests;\n");
    assert_eq!(test_files, ["tests"]);
}
