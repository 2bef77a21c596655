//! The addon in the real engine: Godot 4.6 (provisioned by
//! `godot-addon/tools/provision-godot.sh`) runs small GDScript scenes written here,
//! under GodotPhysics3D and Jolt, with the library cargo built beside this test installed
//! as the addon's debug entry. The projects are staged by the shared harness
//! (`common/engine.rs`: copied under the chroot's `/tmp`, no bind mount). Each scene
//! prints `CHECK name ok|FAIL detail` lines; the Rust side also counts what Godot printed
//! (warnings once, no engine errors).
//!
//! Without root or network each test prints `skipped: <why>`; under `CI=true` it fails
//! instead.

mod common;
#[path = "common/engine.rs"]
#[allow(dead_code)]
mod engine;
#[path = "../../../xtask/src/godot/libraries.rs"]
#[allow(dead_code)]
mod libraries;
#[path = "../../../tests/skip/mod.rs"]
mod skip;

use std::time::Duration;

use engine::{PHYSICS, Physics};

/// What Godot printed in one run of a scene.
struct Run(engine::Run);

impl Run {
    fn all(&self) -> &str {
        &self.0.log
    }

    /// How many lines contain `text`.
    fn count(&self, text: &str) -> usize {
        self.all().lines().filter(|l| l.contains(text)).count()
    }

    /// Fails with the output unless every `CHECK` passed and at least `expected` ran.
    fn assert_checks(&self, expected: usize, label: &Physics) {
        let checks: Vec<&str> = self.all().lines().filter(|l| l.starts_with("CHECK ")).collect();
        let failed: Vec<&&str> = checks.iter().filter(|l| !l.ends_with(" ok")).collect();
        assert!(
            self.0.succeeded() && failed.is_empty() && checks.len() >= expected,
            "{label:?}: {} of {} checks failed (expected {expected} checks), exit {:?} (timed out: {}):\n{}",
            failed.len(),
            checks.len(),
            self.0.code,
            self.0.timed_out,
            self.all()
        );
        println!("{label:?}: {} checks passed", checks.len());
    }

    /// The values of `KEY value` lines, in order.
    fn values(&self, key: &str) -> Vec<String> {
        let prefix = format!("{key} ");
        self.all()
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix).map(str::to_string))
            .collect()
    }
}

/// Runs `script` (as `res://test.gd` of a project of its own) headless under both
/// physics servers, with `args` after `--`; `None` (after printing why) when Godot is
/// not available here.
fn run_both(name: &str, script: &str, args: &[&str]) -> Option<Vec<(Physics, Run)>> {
    let godot = engine::godot()?;
    let settings = format!(
        "config_version=5\n\n[application]\n\nconfig/name=\"{name}\"\n\n[physics]\n\n\
         common/physics_ticks_per_second=60\n3d/default_gravity=9.81\n"
    );
    let project = godot.stage_files(name, &[("project.godot", &settings), ("test.gd", script)]);
    let mut command = vec!["--fixed-fps", "60", "-s", "res://test.gd"];
    if !args.is_empty() {
        command.push("--");
        command.extend_from_slice(args);
    }
    Some(
        PHYSICS
            .into_iter()
            .map(|physics| {
                let run = project.run(Some(physics), &command, Duration::from_secs(300));
                (physics, Run(run))
            })
            .collect(),
    )
}

/// GDScript shared by the scenes: a box body (mesh and collision shape of one size), a
/// check printer, and the end.
const PRELUDE: &str = r#"extends SceneTree

var failures := 0


func check(name: String, ok: bool, detail := "") -> void:
	if ok:
		print("CHECK %s ok" % name)
	else:
		failures += 1
		print("CHECK %s FAIL %s" % [name, detail])


func finish() -> void:
	print("DONE failures=%d" % failures)
	quit(1 if failures > 0 else 0)


func make_box(body_name: String, size: Vector3, mass: float, at: Vector3, shape := true) -> RigidBody3D:
	var body: RigidBody3D = ClassDB.instantiate("BuoyantBody3D")
	body.name = body_name
	body.mass = mass
	body.position = at
	if shape:
		var collision := CollisionShape3D.new()
		var box := BoxShape3D.new()
		box.size = size
		collision.shape = box
		body.add_child(collision)
	var mesh := MeshInstance3D.new()
	var box_mesh := BoxMesh.new()
	box_mesh.size = size
	mesh.mesh = box_mesh
	body.add_child(mesh)
	return body


func make_water(model: int) -> Node3D:
	var water: Node3D = ClassDB.instantiate("KeelWater")
	water.model = model
	return water
"#;

fn script(body: &str) -> String {
    format!("{PRELUDE}\n{body}")
}

/// 39.3: the defects found in the engine run, each checked in the engine.
const DEFECTS: &str = r#"
var frame := 0
var water: Node3D
var spinner: RigidBody3D
var still: RigidBody3D
var shapeless: RigidBody3D
var flat: RigidBody3D
var hull_less: RigidBody3D
var flier: RigidBody3D
var shared_a: RigidBody3D
var shared_b: RigidBody3D
var params: Resource
var previous := PackedByteArray()
var reloads_ok := 0
var reloads := 0
var spin_start := Quaternion.IDENTITY
var depth_at_step := {}


func _initialize() -> void:
	check("constants", KeelWater.MODEL_GERSTNER == 2 and KeelBodyParams.BUOYANCY_VOLUME == 2)
	water = make_water(KeelWater.MODEL_FLAT)
	root.add_child(water)
	# Out-of-range enums are refused with an error and change nothing.
	water.model = 9
	check("model_refused", water.model == KeelWater.MODEL_FLAT, str(water.model))
	# An untyped Array of waves is taken; one with something else is refused.
	var wave: Resource = ClassDB.instantiate("KeelGerstnerWave")
	var untyped := []
	untyped.append(wave)
	water.gerstner_waves = untyped
	check("untyped_waves", water.gerstner_waves.size() == 1, str(water.gerstner_waves))
	water.gerstner_waves = [1.5]
	check("bad_waves_refused", water.gerstner_waves.size() == 1, str(water.gerstner_waves))
	# A typed Array is taken too, through an untyped reference and a typed one.
	var typed: Array[KeelGerstnerWave] = [wave, wave]
	water.gerstner_waves = typed
	check("typed_waves", water.gerstner_waves.size() == 2, str(water.gerstner_waves))
	var keel_water: KeelWater = water
	typed.append(wave)
	keel_water.gerstner_waves = typed
	check("typed_waves_typed_node", keel_water.gerstner_waves.size() == 3, str(keel_water.gerstner_waves))
	water.set("gerstner_waves", [wave])
	check("untyped_waves_by_set", water.gerstner_waves.size() == 1, str(water.gerstner_waves))
	params = ClassDB.instantiate("KeelBodyParams")
	params.buoyancy_model = 7
	check("buoyancy_refused", params.buoyancy_model == KeelBodyParams.BUOYANCY_PRESSURE)
	# A body spun fast about a tilted axis, afloat at its rest draft.
	spinner = make_box("Spinner", Vector3(1, 0.5, 2), 500.0, Vector3(0, 0, 0))
	root.add_child(spinner)
	spinner.angular_velocity = Vector3(0.3, 6.0, 0.7)
	# A body at rest on its Archimedes draft: its transform hardly changes.
	still = make_box("Still", Vector3(1, 1, 1), 500.0, Vector3(6, 0, 0))
	root.add_child(still)
	shapeless = make_box("Shapeless", Vector3(1, 1, 1), 400.0, Vector3(-6, 0, 0), false)
	root.add_child(shapeless)
	flat = ClassDB.instantiate("BuoyantBody3D")
	flat.name = "Flat"
	flat.position = Vector3(0, 0, 6)
	var plane_shape := CollisionShape3D.new()
	plane_shape.shape = BoxShape3D.new()
	flat.add_child(plane_shape)
	var plane := MeshInstance3D.new()
	plane.mesh = PlaneMesh.new()
	flat.add_child(plane)
	root.add_child(flat)
	hull_less = ClassDB.instantiate("BuoyantBody3D")
	hull_less.name = "HullLess"
	hull_less.position = Vector3(0, 0, -6)
	var s := CollisionShape3D.new()
	s.shape = BoxShape3D.new()
	hull_less.add_child(s)
	root.add_child(hull_less)
	# High above the water, debug drawing on: nothing to draw, nothing logged.
	flier = make_box("Flier", Vector3(1, 1, 1), 100.0, Vector3(0, 50, 20))
	flier.gravity_scale = 0.0
	flier.debug_draw = true
	root.add_child(flier)
	# Two bodies sharing one parameter resource.
	params.buoyancy_model = KeelBodyParams.BUOYANCY_NONE
	shared_a = make_box("SharedA", Vector3(1, 1, 1), 500.0, Vector3(12, 0, 0))
	shared_a.gravity_scale = 0.0
	shared_a.body_params = params
	root.add_child(shared_a)
	shared_b = make_box("SharedB", Vector3(1, 1, 1), 500.0, Vector3(12, 0, 4))
	shared_b.gravity_scale = 0.0
	shared_b.body_params = params
	root.add_child(shared_b)


func _physics_process(_delta: float) -> bool:
	frame += 1
	if frame >= 3 and frame <= 120:
		# The spinning body keeps its hull and Keel body: a one-frame-old snapshot
		# loads every frame (then the current one is put back).
		var now: PackedByteArray = water.save_state()
		if previous.size() > 0:
			reloads += 1
			if water.load_state(previous) and water.load_state(now):
				reloads_ok += 1
		previous = now
	if frame == 3:
		spin_start = spinner.quaternion
	if frame == 30:
		check("shared_params_off", shared_a.get_buoyancy_force().y == 0.0 and shared_b.get_buoyancy_force().y == 0.0)
		params.buoyancy_model = KeelBodyParams.BUOYANCY_VOLUME
		# The KeelWater steps after this script's _physics_process (a SceneTree's runs
		# first of all), from the poses the bodies have now.
		for body in [shared_a, shared_b]:
			depth_at_step[body.name] = 0.5 - body.position.y
	if frame == 31:
		# Archimedes for a 1 m cube as deep as it was at the last step (the slamming of
		# its first wet frame lifted it a little).
		for body in [shared_a, shared_b]:
			var force: float = body.get_buoyancy_force().y
			var archimedes: float = 1000.0 * 9.81 * depth_at_step[body.name]
			check("shared_params_on", absf(force - archimedes) < 1e-3 * archimedes, "%f %f" % [force, archimedes])
		check("default_params", absf(still.get_buoyancy_force().y) > 100.0)
	if frame == 121:
		check("spinner_keeps_hull", reloads > 100 and reloads_ok == reloads, "%d of %d" % [reloads_ok, reloads])
		check("spinner_turned", spinner.quaternion.angle_to(spin_start) > 0.5, str(spinner.quaternion))
		check("no_shape_error", "No collision shape" in shapeless.get_error(), shapeless.get_error())
		check("flat_hull_error", "encloses no volume" in flat.get_error(), flat.get_error())
		check("no_hull_error", "No hull" in hull_less.get_error(), hull_less.get_error())
		check("good_body_no_error", still.get_error() == "", still.get_error())
		# Replace the water: bodies whose transform never changes must float on the
		# new one too.
		water.queue_free()
		water = make_water(KeelWater.MODEL_FLAT)
		root.add_child(water)
	if frame == 400:
		check("still_afloat_on_new_water", still.position.y > -0.5, str(still.position))
		check("still_no_error", still.get_error() == "", still.get_error())
		check("new_water_has_bodies", water.get_body_count() >= 5, str(water.get_body_count()))
		finish()
		return true
	return false
"#;

#[test]
fn defects_found_in_the_engine_are_fixed() {
    let Some(runs) = run_both("defects", &script(DEFECTS), &[]) else {
        return;
    };
    for (physics, r) in &runs {
        r.assert_checks(18, physics);
        // Warned once each, not per frame.
        for warning in ["No collision shape", "encloses no volume", "No hull"] {
            let n = r.count(warning);
            assert_eq!(n, 1, "{physics:?}: `{warning}` warned {n} times:\n{}", r.all());
        }
        // Refusals say why.
        for error in [
            "is not a model",
            "not a KeelGerstnerWave",
            "KeelBodyParams.buoyancy_model",
        ] {
            assert!(r.count(error) >= 1, "{physics:?}: no error `{error}`:\n{}", r.all());
        }
        assert_eq!(
            r.count("No vertices were added"),
            0,
            "{physics:?}: debug_draw logged empty surfaces:\n{}",
            r.all()
        );
        assert_eq!(r.count("no hull mesh"), 0, "{physics:?}:\n{}", r.all());
    }
}

/// A scene without a KeelWater: the body says so, once.
const NO_WATER: &str = r#"
var frame := 0
var body: RigidBody3D


func _initialize() -> void:
	body = make_box("Lonely", Vector3(1, 1, 1), 100.0, Vector3.ZERO)
	root.add_child(body)


func _physics_process(_delta: float) -> bool:
	frame += 1
	if frame == 60:
		check("no_water_error", "No KeelWater" in body.get_error(), body.get_error())
		finish()
		return true
	return false
"#;

#[test]
fn a_body_without_water_warns_once() {
    let Some(runs) = run_both("no-water", &script(NO_WATER), &[]) else {
        return;
    };
    for (physics, r) in &runs {
        r.assert_checks(1, physics);
        assert_eq!(r.count("No KeelWater in the scene"), 1, "{physics:?}:\n{}", r.all());
    }
}

/// Boxes (and one round hull big enough for Keel to split its work) on Gerstner waves:
/// each frame a digest of every body's pose and velocities and of Keel's state.
const CROWD: &str = r#"
var frame := 0
var water: Node3D
var bodies: Array[RigidBody3D] = []
var threads_before := 0


func digest() -> String:
	var states := []
	for b in bodies:
		states.append([b.global_transform, b.linear_velocity, b.angular_velocity])
	var bytes := var_to_bytes(states)
	return "%s %d" % [Marshalls.raw_to_base64(bytes).sha256_text(), water.get_state_hash()]


func _initialize() -> void:
	var args := OS.get_cmdline_user_args()
	water = make_water(KeelWater.MODEL_GERSTNER)
	water.use_worker_thread_pool = "--pool" in args
	# (--always: every step on the pool; else only when it pays.)
	water.worker_thread_pool_min_usec = 0.0 if "--always" in args else -1.0
	root.add_child(water)
	for i in 48:
		var size := Vector3(0.6 + 0.1 * (i % 5), 0.5 + 0.1 * (i % 3), 0.8 + 0.1 * (i % 4))
		var b := make_box("Box%d" % i, size, 60.0 + 15.0 * (i % 7), Vector3((i % 8) * 4.0, 1.0 + 0.2 * (i % 3), (i / 8) * 4.0))
		root.add_child(b)
		bodies.append(b)
	var ball: RigidBody3D = ClassDB.instantiate("BuoyantBody3D")
	ball.name = "Ball"
	ball.mass = 8000.0
	ball.position = Vector3(-10, 1, -10)
	var shape := CollisionShape3D.new()
	shape.shape = SphereShape3D.new()
	shape.shape.radius = 2.0
	ball.add_child(shape)
	var mesh := MeshInstance3D.new()
	var sphere := SphereMesh.new()
	sphere.radius = 2.0
	sphere.height = 4.0
	sphere.radial_segments = 96
	sphere.rings = 48
	mesh.mesh = sphere
	ball.add_child(mesh)
	root.add_child(ball)
	bodies.append(ball)


func thread_count() -> int:
	return DirAccess.get_directories_at("/proc/self/task").size()


func _physics_process(_delta: float) -> bool:
	frame += 1
	if frame == 2:
		threads_before = thread_count()
	if frame >= 2:
		print("FRAME %d %s" % [frame, digest()])
	if frame == 120:
		print("THREADS %d %d" % [threads_before, thread_count()])
		print("POOLRUNS %d" % water.get_pool_run_count())
		check("all_afloat", bodies.all(func(b: RigidBody3D) -> bool: return b.global_position.y > -3.0))
		finish()
		return true
	return false
"#;

/// 39.5: Keel on Godot's WorkerThreadPool gives the bits of Keel on one thread, and
/// starts no thread of its own: with every step on the pool, and with the pool used only
/// when it pays (`worker_thread_pool_min_usec` -1, the default).
#[test]
fn worker_thread_pool_gives_the_bits_of_one_thread() {
    let crowd = script(CROWD);
    let Some(always) = run_both("pool", &crowd, &["--pool", "--always"]) else {
        return;
    };
    let Some(auto) = run_both("auto", &crowd, &["--pool"]) else {
        return;
    };
    let Some(one) = run_both("one", &crowd, &[]) else {
        return;
    };
    let pool_runs = |r: &Run| -> u64 { r.values("POOLRUNS")[0].parse().unwrap() };
    for (((physics, p), (_, a)), (_, o)) in always.iter().zip(&auto).zip(&one) {
        for (label, run) in [("always", p), ("auto", a), ("one", o)] {
            run.assert_checks(1, physics);
            let (x, y) = (run.values("FRAME"), o.values("FRAME"));
            assert_eq!(x.len(), 119, "{physics:?} {label}:\n{}", run.all());
            if let Some(i) = x.iter().zip(&y).position(|(x, y)| x != y) {
                panic!(
                    "{physics:?}: {label} and one thread part at {}: {} vs {}",
                    i, x[i], y[i]
                );
            }
            // No thread appeared once Keel was stepping on the pool.
            let threads = run.values("THREADS");
            let counts: Vec<u32> = threads[0].split(' ').map(|n| n.parse().unwrap()).collect();
            assert_eq!(
                counts[0], counts[1],
                "{physics:?} {label}: threads before and after: {counts:?}"
            );
        }
        // The pool was used at every step (119 frames, and the big hull's sections at
        // the first ones), and never without it; when it pays, as often as it paid.
        assert!(pool_runs(p) >= 119, "{physics:?}: {} runs on the pool", pool_runs(p));
        assert_eq!(pool_runs(o), 0, "{physics:?}");
        eprintln!(
            "{physics:?}: {} of the steps went to the pool when it paid",
            pool_runs(a)
        );
    }
}

/// A crowd dropped on Gerstner waves; saved at frame 30, its frames 30 to 89 recorded,
/// loaded back at frame 90, and frames 90 to 149 must be the same to the bit.
const ROLLBACK: &str = r#"
var frame := 0
var water: Node3D
var bodies: Array[RigidBody3D] = []
var snapshot := PackedByteArray()
var first: Array[String] = []
var again: Array[String] = []


func digest() -> String:
	var states := []
	for b in bodies:
		states.append([b.global_transform, b.linear_velocity, b.angular_velocity])
	var bytes := var_to_bytes(states)
	return "%s %d" % [Marshalls.raw_to_base64(bytes).sha256_text(), water.get_state_hash()]


func _initialize() -> void:
	water = make_water(KeelWater.MODEL_GERSTNER)
	root.add_child(water)
	# Eighteen bodies, each turned its own way: a physics server's orthonormalisation
	# cycles between two roundings for some rotations (a save must leave the body where
	# a load puts it), and one of six was missed by chance.
	for i in 18:
		var size := Vector3(0.8 + 0.07 * i, 0.6, 1.0 + 0.03 * i)
		var b := make_box("Box%d" % i, size, 120.0 + 13.0 * i, Vector3((i % 6) * 5.0, 1.0 + 0.5 * (i % 6), (i / 6) * 5.0))
		b.rotation = Vector3(0.1 * i, 0.3 * i, -0.05 * i)
		root.add_child(b)
		bodies.append(b)


func _physics_process(_delta: float) -> bool:
	frame += 1
	if frame == 30:
		snapshot = water.save_snapshot()
		check("saved", snapshot.size() > 0)
		check("damaged_refused", not water.load_snapshot(snapshot.slice(0, snapshot.size() - 3)))
	if frame == 90:
		check("loaded", water.load_snapshot(snapshot))
	if frame >= 30 and frame < 90:
		first.append(digest())
	if frame >= 90 and frame < 150:
		again.append(digest())
	if frame == 150:
		var same := 0
		while same < first.size() and first[same] == again[same]:
			same += 1
		print("REPLAYED %d of %d" % [same, first.size()])
		check("replayed_bit_for_bit", same == first.size(), "frames 30-89 differ from 90-149 at %d" % same)
		finish()
		return true
	return false
"#;

/// 39.6: the node API's whole rollback replays frames bit for bit in the engine.
#[test]
fn save_and_load_snapshot_replay_frames_bit_for_bit() {
    let Some(runs) = run_both("rollback", &script(ROLLBACK), &[]) else {
        return;
    };
    for (physics, r) in &runs {
        r.assert_checks(4, physics);
    }
}

/// What the one-pass water relies on: bodies tell it of changes instead of being polled.
/// A body whose script has its own `_physics_process` and `_integrate_forces` floats; a
/// hull's MeshInstance3D given another mesh, and `hull_mesh` set, rebuild the hull
/// (Archimedes' draft of the new box: mass over density and footprint).
const EVENTS: &str = r#"
var frame := 0
var scripted: RigidBody3D
var swapped: RigidBody3D
var assigned: RigidBody3D
var hook_calls := 0


func _initialize() -> void:
	root.add_child(make_water(KeelWater.MODEL_FLAT))
	var script := GDScript.new()
	script.source_code = "extends BuoyantBody3D\nvar calls := 0\nfunc _physics_process(_d: float) -> void:\n\tcalls += 1\nfunc _integrate_forces(_s: PhysicsDirectBodyState3D) -> void:\n\tcalls += 1\n"
	check("script_compiles", script.reload() == OK)
	scripted = make_box("Scripted", Vector3(1, 1, 1), 500.0, Vector3(0, 1, 0))
	scripted.set_script(script)
	root.add_child(scripted)
	swapped = make_box("Swapped", Vector3(1, 1, 1), 500.0, Vector3(5, 0, 0))
	root.add_child(swapped)
	assigned = make_box("Assigned", Vector3(1, 1, 1), 500.0, Vector3(10, 0, 0))
	root.add_child(assigned)


func _physics_process(_delta: float) -> bool:
	frame += 1
	if frame == 60:
		var bigger := BoxMesh.new()
		bigger.size = Vector3(2, 2, 2)
		for child in swapped.get_children():
			if child is MeshInstance3D:
				child.mesh = bigger
		assigned.hull_mesh = bigger
	if frame == 600:
		# A 1 m box of 500 kg floats 0.5 m deep, its centre at the water line; a 2 m one
		# 0.125 m deep, its centre 0.875 m up.
		check("scripted_afloat", absf(scripted.position.y) < 0.05, str(scripted.position))
		check("script_hooks_ran", scripted.calls > 600, str(scripted.calls))
		check("swapped_mesh_rebuilds_hull", absf(swapped.position.y - 0.875) < 0.05, str(swapped.position))
		check("hull_mesh_rebuilds_hull", absf(assigned.position.y - 0.875) < 0.05, str(assigned.position))
		finish()
		return true
	return false
"#;

/// 39.4: the water hears of changes (a script's own physics hooks, a new hull mesh).
#[test]
fn bodies_tell_the_water_what_changed() {
    let Some(runs) = run_both("events", &script(EVENTS), &[]) else {
        return;
    };
    for (physics, r) in &runs {
        r.assert_checks(5, physics);
    }
}
