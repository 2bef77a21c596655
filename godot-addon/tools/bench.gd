extends SceneTree
## Keel's cost in Godot: N boxes as BuoyantBody3D floating on a KeelWater, or the same N
## boxes as plain RigidBody3D (no water: they fall, touching nothing, as the floating
## ones touch nothing), and the wall time of a frame (run flat out with --fixed-fps:
## the physics frame and an idle frame that does nothing), median and mean over the
## measured frames, and in the keel modes the median of Keel's own batch step
## (KeelWater.get_step_time()). Each frame is also cut in two where the nodes' physics
## processing ends (a node that runs last, priority 100000): `process_ms`, the nodes'
## physics processing (the KeelWater's whole step: reading the bodies, Keel's batch,
## applying the forces), and `server_ms`, the rest (the physics server's step, its
## sync, the idle frame); medians of each.
##
## godot --headless --path PROJECT -s res://bench.gd --
##     keel|keel-one|plain [bodies] [frames] [box|bunny] [dump]
## (keel-one: Keel on the physics thread alone, use_worker_thread_pool off; bunny: the
## Stanford bunny of res://bunny.obj.txt at a tenth of its size, about 1 m, 300 kg, with
## a box of its bounds as collision shape, as `cargo bench --bench profile -- bunnies-N`)
## (tools/bench.sh builds the project and runs every case under both physics servers.)
## `dump` prints, after the last frame, the hull mesh (`MESH`) and every body's transform,
## velocities and inverse inertia (`BODY`) as the f32 bits of Godot's values in hex, for
## the Rust replay of this scene (bindings/godot/examples/scene_cost.rs).

const WARMUP_FRAMES := 120
const SPACING := 3.0

var _frame := 0
var _frames := 600
var _samples: Array[float] = []
var _step_samples: Array[float] = []
var _water: Node3D
var _last_usec := 0
var _mode := "keel"
var _count := 400
var _hull := "box"
var _dump := false
var _bodies: Array[RigidBody3D] = []
var _bunny: ArrayMesh
var _late_usec := 0
var _process_samples: Array[float] = []
var _server_samples: Array[float] = []
var _bunny_bounds: AABB


func _initialize() -> void:
	var args := OS.get_cmdline_user_args()
	if args.size() > 0:
		_mode = args[0]
	if args.size() > 1:
		_count = int(args[1])
	if args.size() > 2:
		_frames = int(args[2])
	if args.size() > 3:
		_hull = args[3]
	if args.size() > 4:
		_dump = args[4] == "dump"
	if _hull == "bunny":
		_load_bunny()
	if _mode.begins_with("keel"):
		_water = ClassDB.instantiate("KeelWater")
		_water.use_worker_thread_pool = _mode == "keel"
		root.add_child(_water)
	var late := LastInFrame.new()
	late.bench = self
	late.process_physics_priority = 100000
	root.add_child(late)
	var side := ceili(sqrt(float(_count)))
	for i in _count:
		var at := Vector3((i % side) * SPACING, 0.0, (i / side) * SPACING)
		var body := _make_body(at)
		_bodies.append(body)
		root.add_child(body)


func _physics_process(_delta: float) -> bool:
	_frame += 1
	var now := Time.get_ticks_usec()
	if _frame > WARMUP_FRAMES:
		_samples.append((now - _last_usec) / 1000.0)
		_process_samples.append((_late_usec - _last_usec) / 1000.0)
		_server_samples.append((now - _late_usec) / 1000.0)
		if _water and _water.has_method("get_step_time"):
			# (Keel's own batch step of the last frame, inside the frame just timed.)
			_step_samples.append(_water.get_step_time() * 1000.0)
	_last_usec = now
	if _frame == WARMUP_FRAMES + _frames:
		_samples.sort()
		var total := 0.0
		for s in _samples:
			total += s
		var mean := total / _samples.size()
		var median := _samples[_samples.size() / 2]
		_step_samples.sort()
		var step_median: float = _step_samples[_step_samples.size() / 2] if _step_samples else 0.0
		# Floating bodies are in the water, and were all stepped: a bench of bodies
		# Keel left out would measure nothing.
		var wet := 0
		for b in _bodies:
			if b.has_method("is_in_water") and b.is_in_water():
				wet += 1
		var line := "BENCH %s %s %s bodies=%d frames=%d" % [
			ProjectSettings.get_setting("physics/3d/physics_engine"), _mode, _hull, _count,
			_samples.size()
		]
		_process_samples.sort()
		_server_samples.sort()
		var process_median := _process_samples[_process_samples.size() / 2]
		var server_median := _server_samples[_server_samples.size() / 2]
		var pool_runs: int = _water.get_pool_run_count() if _water else 0
		print(
			(
				"%s median_ms=%.4f mean_ms=%.4f keel_step_ms=%.4f process_ms=%.4f server_ms=%.4f"
				+ " wet=%d pool_runs=%d"
			)
			% [line, median, mean, step_median, process_median, server_median, wet, pool_runs]
		)
		if _dump:
			_print_dump()
		quit(0)
		return true
	return false


## The scene as the water's step sees it, bit for bit (f32 little-endian, in hex).
func _print_dump() -> void:
	var mesh: Mesh = (_bodies[0].get_child(1) as MeshInstance3D).mesh
	var arrays := mesh.surface_get_arrays(0)
	var vertices: PackedVector3Array = arrays[Mesh.ARRAY_VERTEX]
	var flat := PackedFloat32Array()
	for v in vertices:
		flat.append_array([v.x, v.y, v.z])
	var indices: PackedInt32Array = arrays[Mesh.ARRAY_INDEX]
	print("MESH %s %s" % [flat.to_byte_array().hex_encode(), indices.to_byte_array().hex_encode()])
	for b in _bodies:
		var s := PhysicsServer3D.body_get_direct_state(b.get_rid())
		var t := s.transform
		var f := PackedFloat32Array([
			t.basis.x.x, t.basis.x.y, t.basis.x.z, t.basis.y.x, t.basis.y.y, t.basis.y.z,
			t.basis.z.x, t.basis.z.y, t.basis.z.z, t.origin.x, t.origin.y, t.origin.z,
			s.linear_velocity.x, s.linear_velocity.y, s.linear_velocity.z,
			s.angular_velocity.x, s.angular_velocity.y, s.angular_velocity.z,
			s.center_of_mass.x, s.center_of_mass.y, s.center_of_mass.z,
			s.inverse_mass, s.inverse_inertia.x, s.inverse_inertia.y, s.inverse_inertia.z,
			s.step
		])
		print("BODY %s" % f.to_byte_array().hex_encode())


func _make_body(at: Vector3) -> RigidBody3D:
	var body: RigidBody3D
	if _mode.begins_with("keel"):
		body = ClassDB.instantiate("BuoyantBody3D")
	else:
		body = RigidBody3D.new()
		body.can_sleep = false
	body.position = at
	var shape := CollisionShape3D.new()
	var box := BoxShape3D.new()
	var mesh := MeshInstance3D.new()
	if _hull == "bunny":
		body.mass = 300.0
		box.size = _bunny_bounds.size
		shape.position = _bunny_bounds.get_center()
		mesh.mesh = _bunny
	else:
		body.mass = 400.0
		box.size = Vector3(1.0, 1.0, 1.0)
		var box_mesh := BoxMesh.new()
		box_mesh.size = Vector3(1.0, 1.0, 1.0)
		mesh.mesh = box_mesh
	shape.shape = box
	body.add_child(shape)
	body.add_child(mesh)
	return body


## The OBJ's vertices (at a tenth of the size) and triangles, indexed as in the file.
## Godot's front faces wind clockwise, the OBJ's counter-clockwise: each face is turned
## over, as an imported mesh would be.
func _load_bunny() -> void:
	var text := FileAccess.get_file_as_string("res://bunny.obj.txt")
	var vertices := PackedVector3Array()
	var indices := PackedInt32Array()
	for line in text.split("\n"):
		var parts := line.strip_edges().split(" ", false)
		if parts.size() >= 4 and parts[0] == "v":
			vertices.append(0.1 * Vector3(float(parts[1]), float(parts[2]), float(parts[3])))
		elif parts.size() >= 4 and parts[0] == "f":
			var corners: Array[int] = []
			for p in parts.slice(1):
				corners.append(int(p.split("/")[0]) - 1)
			for k in range(1, corners.size() - 1):
				indices.append_array([corners[0], corners[k + 1], corners[k]])
	var arrays := []
	arrays.resize(Mesh.ARRAY_MAX)
	arrays[Mesh.ARRAY_VERTEX] = vertices
	arrays[Mesh.ARRAY_INDEX] = indices
	_bunny = ArrayMesh.new()
	_bunny.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
	_bunny_bounds = _bunny.get_aabb()


## Marks where the nodes' physics processing ends in each frame.
class LastInFrame:
	extends Node
	var bench: SceneTree

	func _physics_process(_delta: float) -> void:
		bench.set("_late_usec", Time.get_ticks_usec())
