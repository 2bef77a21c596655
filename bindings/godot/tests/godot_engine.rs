//! The addon in the real Godot (4.6, provisioned by `godot-addon/tools/provision-godot.sh`),
//! under both of its 3D physics servers: every demo scene floats its bodies without
//! wild spins or errors, the demo's headless scene test passes, the committed scenes are
//! byte for byte what Godot writes from `demo/tools/build_scenes.gd`, and the editor's
//! help (F1), opened in a headless editor, shows each class's and member's doc comment.
//!
//! Without root or network the tests print `skipped: <why>`; under `CI=true` they fail
//! instead. Two ignored tests regenerate what the others compare against:
//! `godot-addon/tools/regenerate-scenes.sh` and `godot-addon/tools/regenerate-pictures.sh`.

mod common;
#[path = "common/engine.rs"]
#[allow(dead_code)]
mod engine;
#[path = "../../../xtask/src/godot/libraries.rs"]
#[allow(dead_code)]
mod libraries;
#[path = "../../../tests/skip/mod.rs"]
mod skip;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Duration;

use engine::{PHYSICS, Physics, Project, Run};

/// The demo's scenes, by file name.
const SCENES: [&str; 3] = ["crate_field", "gerstner_boat", "falling_plates"];

/// Physics frames each scene runs in the test: 6 s at 60 Hz, long enough for bodies
/// dropped from 5 m to settle and short enough to keep the Godot tests to a few minutes
/// (the addon is the debug build, and the machine is shared).
const FRAMES: u32 = 360;

/// Fastest spin allowed over the last quarter of a run, rad/s. A box or a boat riding
/// these waves turns at a few tenths of a rad/s (a roll of 0.3 rad over a 4 s wave period
/// peaks near 0.5 rad/s); the boat without its collision shape spun at over 1000.
const LATE_SPIN: f64 = 3.0;

/// Fastest spin allowed at any time, rad/s: a plate slapping the water flat may tumble
/// briefly, but nothing should whirl.
const MAX_SPIN: f64 = 20.0;

/// How far a floating body's origin may be from the water's height under it, m: the
/// largest body (the 8 m boat, origin near its deck) floats within a metre of it, and
/// a body flung out of the water or sunk is metres away.
const AFLOAT: f64 = 1.5;

/// How far a body left floating on a swell (the boat's scene) may move horizontally over
/// the run, m: waves carry it round their orbits (up to their amplitude, 0.4 m in the
/// boat's sea) and a little on, not away (a sea whose water ran at the drawn surface's
/// speed carried boxes back at up to 0.7 m/s, 4 m over the run). The boat moves 0.53-0.56
/// m. (The crates and plates are thrown and collide: they move by metres, as they should.)
const MOVED: f64 = 2.0;

/// The scenes whose bodies are only left to float on a swell.
const SWELL: [&str; 1] = ["gerstner_boat"];

fn run_scene(project: &Project, physics: Option<Physics>, scene: &str, frames: u32, extra: &[&str]) -> Run {
    let res = format!("res://scenes/{scene}.tscn");
    let frames = frames.to_string();
    let mut args = vec![
        "--fixed-fps",
        "60",
        "-s",
        "res://tests/run_scene.gd",
        "--",
        &res,
        &frames,
    ];
    args.extend_from_slice(extra);
    project.run(physics, &args, Duration::from_secs(300))
}

fn number(record: &BTreeMap<String, String>, key: &str) -> f64 {
    record
        .get(key)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number {key} in {record:?}"))
}

/// What is wrong with one run of a scene: the bodies' ends judged against the limits
/// above (how far they moved on a `swell` scene), the physics server that ran it, errors
/// in the log.
fn scene_problems(run: &Run, physics: Physics, swell: bool) -> Vec<String> {
    let mut problems = Vec::new();
    if !run.succeeded() {
        problems.push(format!("Godot exited {:?} (timed out: {})", run.code, run.timed_out));
    }
    let server = run.records("physics");
    let expected = physics.setting().replace(' ', "_");
    if server.len() != 1 || server[0].get("engine") != Some(&expected) {
        problems.push(format!("ran under {server:?}, not {expected}"));
    }
    let bodies = run.records("body");
    if bodies.is_empty() {
        problems.push("no floating body reported".to_string());
    }
    for b in &bodies {
        let name = &b["name"];
        let (y, water) = (number(b, "y"), number(b, "water"));
        if (y - water).abs() > AFLOAT || b.get("in_water").map(String::as_str) != Some("true") {
            problems.push(format!(
                "{name} is not afloat at the end: y {y:.3} m, water {water:.3} m, in_water {:?}",
                b.get("in_water")
            ));
        }
        let moved = number(b, "moved");
        if swell && moved > MOVED {
            problems.push(format!("{name} drifted {moved:.2} m from where it started"));
        }
        let (late, max) = (number(b, "late_spin"), number(b, "max_spin"));
        if late > LATE_SPIN || max > MAX_SPIN {
            problems.push(format!("{name} spins: {late:.2} rad/s late, {max:.2} rad/s at most"));
        }
    }
    // Each distinct error once, with its count.
    let mut errors: BTreeMap<&str, usize> = BTreeMap::new();
    for e in run.errors() {
        *errors.entry(e.trim()).or_default() += 1;
    }
    for (e, n) in errors {
        problems.push(format!("log ({n} times): {e}"));
    }
    problems
}

#[test]
fn every_demo_scene_floats_under_both_physics_servers() {
    let Some(godot) = engine::godot() else { return };
    let project = godot.stage("scenes", &[]);
    let mut problems = Vec::new();
    for physics in PHYSICS {
        for scene in SCENES {
            let run = run_scene(&project, Some(physics), scene, FRAMES, &[]);
            for body in run.records("body") {
                println!("{scene} ({physics:?}): {body:?}");
            }
            let found = scene_problems(&run, physics, SWELL.contains(&scene));
            if !found.is_empty() {
                problems.push(format!(
                    "{scene} under {physics:?}:\n  {}\n{}",
                    found.join("\n  "),
                    run.log
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn scene_checks_catch_a_sinking_or_spinning_body() {
    // The judge itself must fail what it is for: a log with a sunk body, a spinning one,
    // one carried away, the wrong server and an error.
    let run = Run {
        code: Some(0),
        timed_out: false,
        log: "KEEL physics engine=GodotPhysics3D setting=GodotPhysics3D bodies=2\n\
              KEEL body name=Sunk y=-40.0 water=0.1 in_water=false max_spin=0.1 late_spin=0.1 moved=0\n\
              KEEL body name=Spinner y=0.2 water=0.1 in_water=true max_spin=1200 late_spin=900 moved=0.3\n\
              KEEL body name=Carried y=0.2 water=0.1 in_water=true max_spin=0.1 late_spin=0.1 moved=4.5\n\
              ERROR: Body has no shape.\n\
              ERROR: Body has no shape.\n"
            .to_string(),
    };
    let problems = scene_problems(&run, Physics::Jolt, true).join("\n");
    for expected in [
        "Sunk is not afloat",
        "Spinner spins",
        "Carried drifted 4.50 m",
        "not Jolt_Physics",
        "(2 times): ERROR: Body has no shape",
    ] {
        assert!(problems.contains(expected), "missed {expected}: {problems}");
    }
    let fine = Run {
        log: "KEEL physics engine=Jolt_Physics setting=Jolt_Physics bodies=1\n\
              KEEL body name=Box y=0.1 water=0.0 in_water=true max_spin=2 late_spin=0.2 moved=0.4\n"
            .to_string(),
        ..run
    };
    assert!(scene_problems(&fine, Physics::Jolt, true).is_empty());
}

#[test]
fn headless_scene_test_passes_under_both_physics_servers() {
    let Some(godot) = engine::godot() else { return };
    let project = godot.stage("headless", &[]);
    for physics in PHYSICS {
        let run = project.run(
            Some(physics),
            &["--fixed-fps", "60", "-s", "res://tests/run_headless.gd"],
            Duration::from_secs(300),
        );
        assert!(
            run.succeeded() && run.log.contains("PASS") && run.errors().is_empty(),
            "run_headless.gd under {physics:?}:\n{}",
            run.log
        );
    }
}

/// Rebuilds the demo's scenes with `build_scenes.gd` in a staged copy; the rebuilt files
/// by name, and the stage (its `.uid` files are the scripts' ids the scenes name).
fn rebuild_scenes() -> Option<(BTreeMap<String, Vec<u8>>, Project)> {
    let godot = engine::godot()?;
    let project = godot.stage("rebuild", &[]);
    let run = project.run(
        None,
        &["-s", "res://tools/build_scenes.gd", "--", "res://rebuilt"],
        Duration::from_secs(120),
    );
    assert!(
        run.succeeded() && run.errors().is_empty(),
        "build_scenes.gd failed:\n{}",
        run.log
    );
    let mut out = BTreeMap::new();
    for file in fs::read_dir(project.path().join("rebuilt")).unwrap() {
        let path = file.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".tscn") {
            out.insert(name, fs::read(&path).unwrap());
        }
    }
    Some((out, project))
}

#[test]
fn committed_scenes_are_what_godot_writes() {
    let Some((rebuilt, _project)) = rebuild_scenes() else {
        return;
    };
    let scenes = common::demo().join("scenes");
    let committed: Vec<String> = common::files(&scenes, ".tscn")
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    assert_eq!(
        committed,
        rebuilt.keys().cloned().collect::<Vec<_>>(),
        "the committed scenes are not the ones build_scenes.gd makes"
    );
    for (name, bytes) in &rebuilt {
        let file = fs::read(scenes.join(name)).unwrap();
        assert!(
            file == *bytes,
            "scenes/{name} is not what Godot writes from build_scenes.gd (edit the tool script, \
             then run godot-addon/tools/regenerate-scenes.sh); Godot writes:\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
    // What the hand-written boat scene lacked: the node paths of its exported nodes.
    let boat = String::from_utf8_lossy(&rebuilt["gerstner_boat.tscn"]).to_string();
    for (node, property) in [("Hull", "collision_shape"), ("Camera", "target")] {
        let heading = boat
            .lines()
            .find(|l| l.starts_with(&format!("[node name=\"{node}\"")))
            .unwrap_or_else(|| panic!("no node {node}"));
        assert!(
            heading.contains(&format!("node_paths=PackedStringArray(\"{property}\")")),
            "{heading}"
        );
    }
}

/// Writes the rebuilt scenes and the scripts' `.uid` files into the demo.
#[test]
#[ignore = "regenerates the demo's scenes: godot-addon/tools/regenerate-scenes.sh"]
fn regenerate_scenes() {
    let (rebuilt, project) = rebuild_scenes().expect("Godot is needed to regenerate the scenes");
    let demo = common::demo();
    for (name, bytes) in &rebuilt {
        fs::write(demo.join("scenes").join(name), bytes).unwrap();
        println!("wrote scenes/{name}");
    }
    // Godot 4.4+ keeps each script's uid in a `.uid` file beside it; the scenes refer to
    // the scripts by it, so those files belong in the repository.
    for dir in ["scripts", "tests", "tools"] {
        for uid in common::files(&project.path().join(dir), ".gd.uid") {
            let dest = demo.join(dir).join(uid.file_name().unwrap());
            if !dest.exists() {
                fs::copy(&uid, &dest).unwrap();
                println!("wrote {}", dest.display());
            }
        }
    }
}

/// Each class's doc comment and its registered members' (properties, methods, signals),
/// from `src/classes/*.rs`: what the editor's help should show.
fn doc_comments() -> BTreeMap<String, Vec<(String, String)>> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/classes");
    for file in common::files(&dir, ".rs") {
        let text = fs::read_to_string(&file).unwrap();
        let mut doc: Vec<String> = Vec::new();
        let mut registered = false;
        let mut class: Option<String> = None;
        let mut in_impl: Option<String> = None;
        for raw in text.lines() {
            let line = raw.trim();
            if raw == "}" {
                // The end of a top-level item.
                (class, in_impl) = (None, None);
            }
            if let Some(d) = line.strip_prefix("///") {
                doc.push(d.trim().to_string());
                continue;
            }
            let joined = doc.join(" ");
            if let Some(name) = line.strip_prefix("pub struct ").and_then(|r| r.strip_suffix(" {")) {
                if registered {
                    out.entry(name.to_string())
                        .or_default()
                        .push((name.to_string(), joined));
                    class = Some(name.to_string());
                }
            } else if let Some(rest) = line.strip_prefix("impl ") {
                // `impl Name {` or `impl ITrait for Name {`: #[func]s live in the former.
                in_impl = rest.strip_suffix(" {").filter(|r| !r.contains(' ')).map(str::to_string);
            } else if line.starts_with("#[class(")
                || line.starts_with("#[export")
                    && !line.starts_with("#[export_group")
                    && !line.starts_with("#[export_subgroup")
                || line.starts_with("#[var")
                || line.starts_with("#[func")
                || line.starts_with("#[signal")
            {
                registered = true;
                continue;
            } else if line.starts_with("#[") {
                continue;
            } else if registered && !doc.is_empty() {
                let member =
                    if let Some(field) = line.split(':').next().filter(|_| class.is_some() && in_impl.is_none()) {
                        Some((
                            class.clone().unwrap(),
                            field.trim().trim_start_matches("pub ").to_string(),
                        ))
                    } else {
                        let name = line
                            .trim_start_matches("pub ")
                            .strip_prefix("fn ")
                            .and_then(|r| r.split('(').next());
                        in_impl.clone().zip(name.map(str::to_string))
                    };
                if let Some((owner, name)) = member {
                    out.entry(owner).or_default().push((name, joined));
                }
            }
            doc.clear();
            registered = false;
        }
    }
    out
}

/// The first words of a doc comment as the help page shows them: without Markdown's
/// code ticks and link brackets, whitespace collapsed.
fn shown(text: &str, words: usize) -> String {
    text.replace(['`', '[', ']', '*'], "")
        .split_whitespace()
        .take(words)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a help page lacks: the class's description and each member's, by their first
/// words.
fn missing_from_page(page: &str, class: &str, docs: &[(String, String)]) -> Vec<String> {
    let page = shown(page, usize::MAX);
    let mut problems = Vec::new();
    for (name, doc) in docs {
        // Godot's help lists a property, not the method that sets it.
        let setter = name
            .strip_prefix("set_")
            .is_some_and(|property| docs.iter().any(|(n, _)| n == property));
        if setter {
            continue;
        }
        let start = shown(doc, 8);
        if start.is_empty() {
            problems.push(format!("{class}.{name} has no doc comment"));
        } else if !page.contains(&start) {
            problems.push(format!(
                "{class}'s help page does not show {name}'s description \"{start}\""
            ));
        }
        if name != class && !page.contains(name.as_str()) {
            problems.push(format!("{class}'s help page does not list {name}"));
        }
    }
    problems
}

#[test]
fn help_pages_show_every_doc_comment() {
    let docs = doc_comments();
    // The source reader itself: it finds what the page must show.
    let body = &docs["BuoyantBody3D"];
    for name in [
        "BuoyantBody3D",
        "hull_mesh",
        "debug_draw",
        "is_in_water",
        "entered_water",
    ] {
        assert!(body.iter().any(|(n, d)| n == name && !d.is_empty()), "{name}: {body:?}");
    }
    assert!(!body.iter().any(|(n, _)| n == "water" || n == "ready"), "{body:?}");
    let Some(godot) = engine::godot() else { return };
    let classes: Vec<&str> = docs.keys().map(String::as_str).collect();
    let list = classes.join("\n");
    let plugin = include_str!("data/help_check/plugin.gd");
    let config = include_str!("data/help_check/plugin.cfg");
    let project = godot.stage(
        "help",
        &[
            ("help_classes.txt", list.as_str()),
            ("addons/keel_help_check/plugin.gd", plugin),
            ("addons/keel_help_check/plugin.cfg", config),
        ],
    );
    let settings = project.path().join("project.godot");
    let mut text = fs::read_to_string(&settings).unwrap();
    text.push_str("\n[editor_plugins]\n\nenabled=PackedStringArray(\"res://addons/keel_help_check/plugin.cfg\")\n");
    fs::write(&settings, text).unwrap();
    let mut run = project.run(None, &["--editor"], Duration::from_secs(240));
    if !run.succeeded() && run.log.contains("Program crashed with signal") {
        // The headless editor of Godot 4.6.3 crashes now and then while it loads its docks
        // on a fresh project ("Index p_index = 1 is out of bounds (size() = 0)", before any
        // plugin runs; seen once in a fresh-clone CI run, not again in the next runs): one
        // more try, said in the output; a second crash fails.
        println!("the editor crashed (retrying once):\n{}", run.log);
        run = project.run(None, &["--editor"], Duration::from_secs(240));
    }
    assert!(run.succeeded(), "the editor did not open every help page:\n{}", run.log);
    let mut problems = Vec::new();
    for class in classes {
        let page = fs::read_to_string(project.path().join(format!("help_pages/{class}.txt"))).unwrap();
        problems.extend(missing_from_page(&page, class, &docs[class]));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn help_check_catches_an_undocumented_member() {
    let page = "Class: X\nInherits: Node\n\tA thing that floats.\nProperties\nfloat depth\nProperty Descriptions\nfloat depth\n\tHow deep, m.";
    let docs = [
        ("X".to_string(), "A thing that [floats].".to_string()),
        ("depth".to_string(), "How `deep`, m.".to_string()),
        ("width".to_string(), "How wide, m.".to_string()),
        ("bare".to_string(), String::new()),
        (
            "set_depth".to_string(),
            "Sets depth, refusing a negative one.".to_string(),
        ),
    ];
    let problems = missing_from_page(page, "X", &docs).join("\n");
    for expected in [
        "width's description",
        "does not list width",
        "X.bare has no doc comment",
    ] {
        assert!(problems.contains(expected), "missed {expected}: {problems}");
    }
    assert!(
        !problems.contains("depth") && !problems.contains("floats"),
        "{problems}"
    );
}

/// Renders each demo scene with Xvfb and Mesa's software OpenGL (Godot's compatibility
/// renderer) into `godot-addon/docs/`.
#[test]
#[ignore = "regenerates the pictures: godot-addon/tools/regenerate-pictures.sh"]
fn regenerate_pictures() {
    let godot = engine::godot().expect("Godot is needed to render the pictures");
    let project = godot.stage("pictures", &[]);
    let docs = common::root().join("godot-addon/docs");
    fs::create_dir_all(&docs).unwrap();
    // After 4 s the crates and the boat ride the waves; the plates are shown 0.8 s after
    // their release, just before they strike the water.
    for (scene, frames) in [
        ("crate_field", "240"),
        ("gerstner_boat", "240"),
        ("falling_plates", "48"),
    ] {
        let inside = format!("{}/{scene}.png", project.inside());
        let run = project.run_rendering(
            None,
            &[
                "--fixed-fps",
                "60",
                "--resolution",
                "1280x720",
                "-s",
                "res://tests/run_scene.gd",
                "--",
                &format!("res://scenes/{scene}.tscn"),
                frames,
                &inside,
            ],
            Duration::from_secs(600),
        );
        let png = project.path().join(format!("{scene}.png"));
        assert!(
            run.succeeded() && png.exists(),
            "rendering {scene} failed:\n{}",
            run.log
        );
        let size = fs::metadata(&png).unwrap().len();
        assert!(
            size < 200_000,
            "{scene}.png is {size} bytes: keep pictures under 200 KB"
        );
        fs::copy(&png, docs.join(format!("{scene}.png"))).unwrap();
        println!("wrote godot-addon/docs/{scene}.png ({size} bytes)");
    }
}

/// `provision-godot.sh` with `args` and `env`, as `user` (a uid) when given.
fn provision(user: Option<u32>, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let script = common::root().join("godot-addon/tools/provision-godot.sh");
    let mut command = match user {
        Some(uid) => {
            let mut c = std::process::Command::new("setpriv");
            c.args([
                &format!("--reuid={uid}"),
                &format!("--regid={uid}"),
                "--clear-groups",
                "sh",
            ]);
            c
        }
        None => std::process::Command::new("sh"),
    };
    command.arg(&script).args(args).envs(env.iter().copied());
    command.output().expect("sh runs")
}

#[test]
fn provisioning_says_why_it_cannot() {
    let scratch = std::env::temp_dir().join(format!("keel-provision-{}", std::process::id()));
    let chroot = scratch.join("godot-sid");
    let chroot = chroot.to_str().unwrap();
    let home = scratch.to_str().unwrap();
    // Nothing there: --check says so and makes nothing.
    let check = provision(None, &["--check"], &[("KEEL_GODOT_CHROOT", chroot)]);
    assert_eq!(check.status.code(), Some(1), "{check:?}");
    assert!(!scratch.join("godot-sid").exists());
    // Not root: exit 77 (the tests' "skipped"), with the reason.
    if std::process::Command::new("setpriv").arg("--help").output().is_ok() {
        let user = provision(Some(65534), &[], &[("KEEL_GODOT_CHROOT", chroot), ("HOME", home)]);
        assert_eq!(user.status.code(), Some(77), "{user:?}");
        assert!(String::from_utf8_lossy(&user.stderr).contains("not root"), "{user:?}");
    } else {
        skip::skipped("the not-root case (no setpriv)");
    }
    // Root without a mirror (no network): exit 77, and the half-made chroot is not
    // mistaken for a made one, on the first run and on the next (which clears it). (A
    // host without debootstrap has it installed first, as a real provisioning would.)
    let root = std::process::Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&root.stdout).trim() == "0" {
        let env = [
            ("KEEL_GODOT_CHROOT", chroot),
            ("KEEL_DEBIAN_MIRROR", "http://127.0.0.1:9/debian"),
        ];
        for _ in 0..2 {
            let offline = provision(None, &[], &env);
            assert_eq!(offline.status.code(), Some(77), "{offline:?}");
            assert!(
                String::from_utf8_lossy(&offline.stderr).contains("debootstrap"),
                "{offline:?}"
            );
            assert!(!scratch.join("godot-sid").exists());
        }
    } else {
        skip::skipped("the offline case (needs root)");
    }
    let _ = fs::remove_dir_all(&scratch);
}
