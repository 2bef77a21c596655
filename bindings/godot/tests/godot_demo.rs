//! The demo project parses: `project.godot`'s main scene exists, and in every `.tscn`
//! each `ext_resource` path exists, each `ExtResource`/`SubResource` reference names a
//! resource declared above it, each node's parent was declared before it, each node and
//! resource type is a Godot 4.3 class or one of ours, and each property set on a node or
//! resource without a script is one its class (or an ancestor) has: for our classes,
//! one the Rust source exports.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// A `[heading attr="value" ...]` line's kind and attributes.
fn heading(line: &str) -> Option<(String, BTreeMap<String, String>)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let mut parts = inner.splitn(2, ' ');
    let kind = parts.next()?.to_string();
    let mut attrs = BTreeMap::new();
    let mut rest = parts.next().unwrap_or("").trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let after = after.trim_start();
        let (value, tail) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted.find('"')?;
            (quoted[..end].to_string(), &quoted[end + 1..])
        } else {
            let end = after.find(' ').unwrap_or(after.len());
            (after[..end].to_string(), &after[end..])
        };
        attrs.insert(key.trim().to_string(), value);
        rest = tail.trim();
    }
    Some((kind, attrs))
}

/// Every `Name("id")` argument in a value.
fn references<'a>(value: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("{name}(\"");
    value
        .match_indices(&open)
        .filter_map(|(i, _)| value[i + open.len()..].split('"').next())
        .collect()
}

/// Checks one scene; returns its problems.
fn check_scene(path: &Path) -> Vec<String> {
    let godot = common::godot_classes();
    let ours = common::our_classes();
    let known = |t: &str| godot.contains_key(t) || ours.contains_key(t);
    let text = fs::read_to_string(path).unwrap();
    let mut problems = Vec::new();
    let mut ext_ids = BTreeSet::new();
    let mut sub_ids = BTreeSet::new();
    let mut nodes: BTreeSet<String> = BTreeSet::new();
    // The class whose properties follow, unless a script may add its own.
    let mut current: Option<(String, bool)> = None;
    let mut pending_props: Vec<(usize, String)> = Vec::new();
    let flush = |current: &Option<(String, bool)>, props: &mut Vec<(usize, String)>, problems: &mut Vec<String>| {
        if let Some((class, scripted)) = current {
            for (n, p) in props.drain(..) {
                let allowed =
                    p == "script" || p.starts_with("metadata/") || common::has_property(class, &p, &ours, &godot);
                if !allowed && !scripted {
                    problems.push(format!("line {n}: {class} has no property `{p}`"));
                }
            }
        }
        props.clear();
    };
    for (n, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())) {
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            flush(&current, &mut pending_props, &mut problems);
            current = None;
            let Some((kind, attrs)) = heading(line) else {
                problems.push(format!("line {n}: malformed heading {line}"));
                continue;
            };
            match kind.as_str() {
                "gd_scene" => {
                    if attrs.get("format").map(String::as_str) != Some("3") {
                        problems.push(format!("line {n}: not a Godot 4 scene (format=3)"));
                    }
                }
                "ext_resource" => {
                    let file = attrs.get("path").and_then(|p| common::resolve(p));
                    if !file.as_ref().is_some_and(|f| f.exists()) {
                        problems.push(format!("line {n}: ext_resource {:?} does not exist", attrs.get("path")));
                    }
                    ext_ids.insert(attrs.get("id").cloned().unwrap_or_default());
                }
                "sub_resource" => {
                    let t = attrs.get("type").cloned().unwrap_or_default();
                    if !known(&t) {
                        problems.push(format!("line {n}: unknown resource type {t}"));
                    }
                    sub_ids.insert(attrs.get("id").cloned().unwrap_or_default());
                    current = Some((t, false));
                }
                "node" => {
                    let name = attrs.get("name").cloned().unwrap_or_default();
                    let t = attrs.get("type").cloned().unwrap_or_default();
                    if !known(&t) {
                        problems.push(format!("line {n}: node {name} has unknown type {t}"));
                    }
                    let path = match attrs.get("parent").map(String::as_str) {
                        None => {
                            if !nodes.is_empty() {
                                problems.push(format!("line {n}: a second root node {name}"));
                            }
                            ".".to_string()
                        }
                        Some(".") => name.clone(),
                        Some(parent) => {
                            if !nodes.contains(parent) {
                                problems.push(format!("line {n}: parent {parent} of {name} is not declared above"));
                            }
                            format!("{parent}/{name}")
                        }
                    };
                    if !nodes.insert(path.clone()) {
                        problems.push(format!("line {n}: node {path} declared twice"));
                    }
                    current = Some((t, false));
                }
                other => problems.push(format!("line {n}: unknown heading {other}")),
            }
            continue;
        }
        let Some((key, value)) = line.split_once(" = ") else {
            problems.push(format!("line {n}: not `key = value`: {line}"));
            continue;
        };
        for id in references(value, "ExtResource") {
            if !ext_ids.contains(id) {
                problems.push(format!("line {n}: ExtResource(\"{id}\") is not declared above"));
            }
        }
        for id in references(value, "SubResource") {
            if !sub_ids.contains(id) {
                problems.push(format!("line {n}: SubResource(\"{id}\") is not declared above"));
            }
        }
        if key == "script"
            && let Some((_, scripted)) = current.as_mut()
        {
            *scripted = true;
        }
        pending_props.push((n, key.to_string()));
    }
    flush(&current, &mut pending_props, &mut problems);
    problems
}

#[test]
fn our_classes_are_read_from_the_source() {
    let ours = common::our_classes();
    let body = &ours["BuoyantBody3D"];
    assert_eq!(body.parent.as_deref(), Some("RigidBody3D"));
    for p in ["hull_mesh", "body_params", "water_patch_cells", "debug_draw"] {
        assert!(
            body.properties.contains(p),
            "BuoyantBody3D lacks {p}: {:?}",
            body.properties
        );
    }
    let params = &ours["KeelBodyParams"];
    assert_eq!(params.parent.as_deref(), Some("Resource"));
    for p in ["buoyancy_model", "slamming_force", "residual_resistance"] {
        assert!(params.properties.contains(p), "KeelBodyParams lacks {p}");
    }
    assert!(
        !body.properties.contains("water"),
        "an unexported field counted as a property"
    );
    assert!(ours["KeelWater"].properties.contains("height_callable"));
    assert!(ours["KeelGerstnerWave"].properties.contains("wavelength"));
    assert!(ours.contains_key("KeelOcean"));
    // Inherited properties come from Godot's classes.
    let godot = common::godot_classes();
    assert!(common::has_property("BuoyantBody3D", "mass", &ours, &godot));
    assert!(common::has_property("KeelOcean", "material_override", &ours, &godot));
    assert!(!common::has_property("KeelOcean", "mass", &ours, &godot));
}

#[test]
fn every_scene_parses_and_sets_only_real_properties() {
    let scenes = common::files(&common::demo(), ".tscn");
    assert!(scenes.len() >= 3, "the demo has {} scenes", scenes.len());
    let mut problems = Vec::new();
    for scene in &scenes {
        problems.extend(
            check_scene(scene)
                .into_iter()
                .map(|p| format!("{}: {p}", scene.display())),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_scene_with_typos_is_refused() {
    // The checker itself must catch what it is for.
    let dir = std::env::temp_dir().join(format!("keel-godot-typo-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("typo.tscn");
    fs::write(
        &scene,
        "[gd_scene format=3]\n\n[ext_resource type=\"Script\" path=\"res://nowhere.gd\" id=\"1\"]\n\n\
         [node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Body\" type=\"BuoyantBody3D\" parent=\".\"]\n\
         buoyancy_modle = 2\nshape = SubResource(\"missing\")\n\n[node name=\"W\" type=\"KeelWatter\" parent=\"Nope\"]\n",
    )
    .unwrap();
    let problems = check_scene(&scene);
    fs::remove_dir_all(&dir).unwrap();
    for expected in [
        "nowhere.gd",
        "buoyancy_modle",
        "SubResource(\"missing\")",
        "KeelWatter",
        "parent Nope",
    ] {
        assert!(
            problems.iter().any(|p| p.contains(expected)),
            "missed {expected}: {problems:?}"
        );
    }
}

/// `key=value` lines of `project.godot` by section.
fn project() -> BTreeMap<String, BTreeMap<String, String>> {
    let text = fs::read_to_string(common::demo().join("project.godot")).unwrap();
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut section = String::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with(';') {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s.to_string();
        } else {
            let (k, v) = line.split_once('=').expect("key=value");
            out.entry(section.clone())
                .or_default()
                .insert(k.to_string(), v.to_string());
        }
    }
    out
}

#[test]
fn project_is_godot_4_3_with_an_existing_main_scene() {
    let p = project();
    assert_eq!(p[""]["config_version"], "5");
    let app = &p["application"];
    assert!(app["config/features"].contains("\"4.3\""));
    let main = app["run/main_scene"].trim_matches('"');
    assert!(common::resolve(main).unwrap().exists(), "{main}");
    // The headless test runs at the same gravity it computes drafts with: any gravity,
    // but it must be a number.
    assert!(p["physics"]["3d/default_gravity"].parse::<f64>().unwrap() > 0.0);
}

/// The field names of keel's `BodyDesc`, as its `Debug` prints them (`BodyDesc { hull:
/// HullId(0), mass: 1000.0, ... }`): the words before a colon inside the outer braces.
fn body_desc_fields() -> Vec<String> {
    let text = format!("{:?}", keel::BodyDesc::default());
    let (mut fields, mut depth, mut word) = (Vec::new(), 0, String::new());
    for c in text.chars() {
        match c {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            ':' if depth == 1 => fields.push(std::mem::take(&mut word)),
            c if depth == 1 && (c.is_alphanumeric() || c == '_') => {
                word.push(c);
                continue;
            }
            _ => {}
        }
        word.clear();
    }
    fields
}

/// Every parameter of keel's body description is a property of `KeelBodyParams` or of
/// `BuoyantBody3D` (the hull's own), under its own name, but what the host fills in
/// (the hull, the mass and inertia from Godot's physics) and two that change form: the
/// `forces` bits are six `*_force` switches and `buoyancy` is `buoyancy_model`.
#[test]
fn every_body_parameter_is_an_exported_property() {
    let ours = common::our_classes();
    let (body, params) = (&ours["BuoyantBody3D"], &ours["KeelBodyParams"]);
    let fields = body_desc_fields();
    assert!(fields.len() >= 24 && fields.contains(&"hull".to_string()), "{fields:?}");
    let host = ["hull", "mass", "inertia", "inertia_rotation"];
    for f in &fields {
        let name = match f.as_str() {
            f if host.contains(&f) => continue,
            "forces" => continue,
            "buoyancy" => "buoyancy_model",
            other => other,
        };
        let on_body = body.properties.contains(name);
        let on_params = params.properties.contains(name);
        assert!(
            on_body != on_params,
            "BodyDesc::{f} must be exported by exactly one of BuoyantBody3D and KeelBodyParams as {name}"
        );
    }
    let switches: Vec<&String> = params.properties.iter().filter(|p| p.ends_with("_force")).collect();
    let bits = keel::forces::FORCE_ALL.count_ones() as usize;
    assert_eq!(switches.len(), bits, "one switch per FORCE_* bit: {switches:?}");
    // Nothing duplicated: a parameter lives in one place.
    for p in &params.properties {
        assert!(!body.properties.contains(p), "{p} is on both the body and its params");
    }
}
