//! The header is the whole contract (issue 34): a rule the Rust side follows must be
//! stated in `include/keel.h`, which is all a C, C# or C++ programmer reads. This test
//! reads the crate's source (every `.rs` file under `src/`, wherever the files move), finds
//! what each exported function's code can do, and fails when its comment in the header
//! does not say so:
//!
//! - a function that can return `KEEL_ERROR_BUFFER_TOO_SMALL` (its code, or a function it
//!   calls, builds `ErrorKind::BufferTooSmall`) says so, and what it then writes
//!   (`*out_count` or `*out_size`);
//! - a function that takes `out == NULL` as a size query (`if out.is_null() { ...
//!   return Ok(()) }` in it or a function it calls) says that NULL returns KEEL_OK and
//!   writes only the size;
//! - a function that accepts a NULL output and skips it says NULL before its Safety
//!   section;
//! - a function that reads or writes the snapshot format points to docs/SNAPSHOT.md;
//! - the header's opening says what the failures that write something write, and asks
//!   for the size query;
//! - a `WorldDesc` field whose Rust documentation lists what each value means
//!   (`0 = ...`, `3 or more = ...`) lists the same values in the header;
//! - the header asks nothing of the host's job system that the Rust side says it does
//!   not need.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A function of the crate: its name, documentation, body, and whether it is exported.
#[derive(Debug, Default)]
struct Function {
    body: String,
    exported: bool,
}

/// The name a line declares a function of, if it does.
fn declared_fn(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "unsafe ",
        "extern \"C\" ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    // (Twice: `pub unsafe extern "C" fn`.)
    for prefix in ["unsafe ", "extern \"C\" "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let name: String = rest
        .strip_prefix("fn ")?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Every non-test function under `src/`, by name (functions of one name merged: a
/// fact of any of them counts for all, which can only make a rule apply more often).
fn functions() -> BTreeMap<String, Function> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut all: BTreeMap<String, Function> = BTreeMap::new();
    for file in files {
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // Unit tests sit at the end of a file.
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let mut current: Option<String> = None;
        let mut exported_next = false;
        for line in text.lines() {
            if line.trim_start().starts_with("#[unsafe(no_mangle)]") {
                exported_next = true;
            }
            if let Some(name) = declared_fn(line) {
                let f = all.entry(name.clone()).or_default();
                f.exported |= exported_next && name.starts_with("keel_");
                exported_next = false;
                current = Some(name);
            }
            if let Some(name) = &current {
                let f = all.get_mut(name).unwrap();
                f.body.push_str(line);
                f.body.push('\n');
            }
        }
    }
    all
}

/// The names a body calls: identifiers right before a `(`.
fn calls(body: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = body.as_bytes();
    for (i, _) in body.match_indices('(') {
        let start = body[..i]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |k| k + 1);
        if start < i && !bytes[start].is_ascii_digit() {
            out.insert(body[start..i].to_string());
        }
    }
    out
}

/// The functions that have `fact` themselves or call one that has (a fixed point over
/// the call graph).
fn reaching(functions: &BTreeMap<String, Function>, fact: impl Fn(&str) -> bool) -> BTreeSet<String> {
    let mut have: BTreeSet<String> = functions
        .iter()
        .filter(|(_, f)| fact(&f.body))
        .map(|(n, _)| n.clone())
        .collect();
    let called: BTreeMap<&String, BTreeSet<String>> = functions.iter().map(|(n, f)| (n, calls(&f.body))).collect();
    loop {
        let more: Vec<String> = called
            .iter()
            .filter(|(n, c)| !have.contains(**n) && c.iter().any(|x| have.contains(x)))
            .map(|(n, _)| (*n).clone())
            .collect();
        if more.is_empty() {
            return have;
        }
        have.extend(more);
    }
}

/// Whether a body takes a NULL output as a size query: `if p.is_null() {` followed,
/// within a few lines, by `return Ok(());`.
fn size_query(body: &str) -> bool {
    let lines: Vec<&str> = body.lines().collect();
    lines.iter().enumerate().any(|(i, l)| {
        let l = l.trim();
        l.starts_with("if ")
            && l.ends_with(".is_null() {")
            && !l.contains('!')
            && lines[i + 1..].iter().take(4).any(|n| n.trim() == "return Ok(());")
    })
}

/// Whether a body makes a `KEEL_ERROR_BUFFER_TOO_SMALL` (not a match arm that maps one).
fn builds_buffer_too_small(body: &str) -> bool {
    body.match_indices("ErrorKind::BufferTooSmall")
        .any(|(i, m)| !body[i + m.len()..].trim_start().starts_with("=>"))
}

/// Whether a body accepts a NULL output and skips it.
fn skips_null_output(body: &str) -> bool {
    body.contains("optional_slice_mut(")
        || body.contains("if let Ok(") && body.contains("unsafe { output(")
        || body.contains("!buf.is_null()")
}

/// Each function's comment in the header (the `//` lines right above its declaration).
fn header_comments(header: &str) -> BTreeMap<String, String> {
    let lines: Vec<&str> = header.lines().collect();
    let mut out = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("//") || line.starts_with(' ') {
            continue;
        }
        let Some(open) = line.find('(') else { continue };
        let Some(name) = line[..open].split_whitespace().last() else {
            continue;
        };
        let name = name.trim_start_matches('*');
        if !name.starts_with("keel_") {
            continue;
        }
        let comment: Vec<&str> = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.starts_with("//"))
            .map(|l| l.trim_start_matches("//").trim())
            .collect();
        let comment: Vec<&str> = comment.into_iter().rev().collect();
        out.insert(name.to_string(), comment.join(" "));
    }
    out
}

/// A comment's description: what comes before its Safety section.
fn description(comment: &str) -> &str {
    comment.split("# Safety").next().unwrap()
}

fn header() -> String {
    std::fs::read_to_string(root().join("include/keel.h")).unwrap()
}

#[test]
fn every_exported_function_states_the_rules_its_code_follows() {
    let functions = functions();
    let header = header();
    let comments = header_comments(&header);
    let exported: BTreeSet<&String> = functions.iter().filter(|(_, f)| f.exported).map(|(n, _)| n).collect();
    // The scan must see the whole ABI, or it proves nothing.
    assert!(exported.len() > 40, "only {} exported functions found", exported.len());
    for name in &exported {
        assert!(
            comments.contains_key(*name),
            "{name} is not in the header (or has no comment)"
        );
    }

    let too_small = reaching(&functions, builds_buffer_too_small);
    let queries = reaching(&functions, size_query);
    let snapshots = reaching(&functions, |b| {
        b.contains("write_snapshot(") || b.contains("Reader::new(")
    });
    let mut failures = Vec::new();
    let mut counts = [0usize; 4];
    for name in &exported {
        let comment = &comments[*name];
        let mut demand = |rule: &str, holds: bool| {
            if !holds {
                failures.push(format!("{name}: {rule}\n    header says: {comment}"));
            }
        };
        if too_small.contains(*name) {
            counts[0] += 1;
            demand(
                "can return KEEL_ERROR_BUFFER_TOO_SMALL: say so, and that it writes *out_count or *out_size",
                comment.contains("KEEL_ERROR_BUFFER_TOO_SMALL")
                    && (comment.contains("writes *out_count") || comment.contains("writes *out_size")),
            );
        }
        if queries.contains(*name) {
            counts[1] += 1;
            demand(
                "takes a NULL output as a size query: say that NULL returns KEEL_OK and writes only the size",
                comment.contains("== NULL")
                    && comment.contains("returns KEEL_OK")
                    && comment.contains("writes only *out_"),
            );
        }
        if skips_null_output(&functions[*name].body) {
            counts[2] += 1;
            demand(
                "accepts a NULL output: say so in its description, not only under Safety",
                description(comment).contains("NULL"),
            );
        }
        if snapshots.contains(*name) {
            counts[3] += 1;
            demand(
                "reads or writes the snapshot format: point to docs/SNAPSHOT.md",
                comment.contains("docs/SNAPSHOT.md"),
            );
        }
    }
    // Each rule must have found the functions it is about (the six list and snapshot
    // getters; keel_water_sample and the defaults; the four snapshot functions and the
    // hash), or the scan is broken.
    assert!(
        counts[0] >= 6 && counts[1] >= 6 && counts[2] >= 3 && counts[3] >= 5,
        "{counts:?}"
    );
    assert!(failures.is_empty(), "the header omits rules:\n{}", failures.join("\n"));
    assert!(
        root().join("docs/SNAPSHOT.md").is_file(),
        "the header points to docs/SNAPSHOT.md"
    );
}

#[test]
fn the_headers_opening_says_what_each_failure_writes() {
    let header = header();
    let opening = &header[..header.find("#ifndef").unwrap()];
    let opening = opening.split_whitespace().collect::<Vec<_>>().join(" ");
    let functions = functions();
    // Some failures write: the opening may not say that none does.
    if functions.values().any(|f| builds_buffer_too_small(&f.body)) {
        assert!(
            opening.contains("KEEL_ERROR_BUFFER_TOO_SMALL writes"),
            "the opening must say what KEEL_ERROR_BUFFER_TOO_SMALL writes: {opening}"
        );
        assert!(
            !opening.contains("on failure nothing is written and"),
            "the opening says no failure writes anything: {opening}"
        );
    }
    if functions.values().any(|f| size_query(&f.body)) {
        assert!(
            opening.contains("out == NULL"),
            "the opening must give the size query: {opening}"
        );
    }
    assert!(opening.contains("docs/SNAPSHOT.md"), "{opening}");
}

/// The `N = ...` and `N or more = ...` values a doc comment lists.
fn values(doc: &str) -> BTreeSet<String> {
    let words: Vec<&str> = doc.split_whitespace().collect();
    let mut out = BTreeSet::new();
    for (i, w) in words.iter().enumerate() {
        if w.chars().all(|c| c.is_ascii_digit()) {
            if words.get(i + 1) == Some(&"=") {
                out.insert(format!("{w} ="));
            } else if words.get(i + 1..i + 4) == Some(&["or", "more", "="][..]) {
                out.insert(format!("{w} or more ="));
            }
        }
    }
    out
}

/// The doc comment above `pub <field>:` in the `struct <name>` of `text`.
fn field_doc(text: &str, name: &str, field: &str) -> Option<String> {
    let start = text.find(&format!("struct {name} {{"))?;
    let body = &text[start..start + text[start..].find("\n}")?];
    let lines: Vec<&str> = body.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim().starts_with(&format!("pub {field}:")))?;
    let doc: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.trim().starts_with("///"))
        .map(|l| l.trim().trim_start_matches("///"))
        .collect();
    Some(doc.into_iter().rev().collect::<Vec<_>>().join(" "))
}

#[test]
fn world_desc_fields_list_in_the_header_every_value_the_rust_side_lists() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let rust = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .find(|t| t.contains("pub struct WorldDesc {"))
        .expect("WorldDesc");
    let header = header();
    let struct_text = &header[header.find("typedef struct KeelWorldDesc {").unwrap()..];
    let struct_text = &struct_text[..struct_text.find("} KeelWorldDesc;").unwrap()];
    let mut checked = 0;
    for field in [
        "gravity",
        "water_density",
        "air_density",
        "water_viscosity",
        "thread_count",
    ] {
        let doc = field_doc(&rust, "WorldDesc", field).unwrap_or_else(|| panic!("WorldDesc.{field}"));
        let wanted = values(&doc);
        // The header's comment: the `//` lines above the field.
        let lines: Vec<&str> = struct_text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim().ends_with(&format!(" {field};")))
            .unwrap_or_else(|| panic!("KeelWorldDesc.{field}"));
        let comment: Vec<&str> = lines[..at]
            .iter()
            .rev()
            .take_while(|l| l.trim().starts_with("//"))
            .map(|l| l.trim().trim_start_matches("//"))
            .collect();
        let comment = comment.into_iter().rev().collect::<Vec<_>>().join(" ");
        let stated = values(&comment);
        let missing: Vec<&String> = wanted.difference(&stated).collect();
        assert!(
            missing.is_empty(),
            "KeelWorldDesc.{field}: the Rust side lists {wanted:?}, the header lacks {missing:?}: {comment}"
        );
        checked += wanted.len();
    }
    // thread_count's 0, 1, 2 and 3 or more at least.
    assert!(checked >= 4, "{checked}");
}

#[test]
fn the_header_asks_no_more_of_a_job_system_than_keel_needs() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let rust: String = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    // The header's words, its comments' markers left out.
    let header: String = header()
        .lines()
        .map(|l| l.trim_start().trim_start_matches("//").trim_start_matches('*'))
        .collect::<Vec<_>>()
        .join(" ");
    let header = header.split_whitespace().collect::<Vec<_>>().join(" ");
    // The Rust side runs what the host left and ignores a repeat (tasks.rs's claims).
    if rust.contains("Keel does not rely on the host to run each item exactly once") {
        assert!(
            !header.contains("exactly once"),
            "the header asks the host to run each item exactly once, which keel does not need"
        );
    }
    // Keel never calls the host's job system from inside its own tasks (tasks.rs): the
    // header promises it.
    if rust.contains("never calls [`TaskSystem::run`] from inside one of its own task") {
        assert!(
            header.contains("never from inside one of its own tasks"),
            "the header must promise it"
        );
    }
}
