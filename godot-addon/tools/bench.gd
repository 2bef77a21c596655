extends SceneTree
## Keel's cost in Godot: N boxes as BuoyantBody3D floating on a KeelWater, or the same N
## boxes as plain RigidBody3D (no water: they fall, touching nothing, as the floating
## ones touch nothing), and the wall time of a frame (run flat out with --fixed-fps:
## the physics frame and an idle frame that does nothing), median and mean over the
## measured frames.
##
## godot --headless --path PROJECT -s res://bench.gd -- keel|keel-one|plain [bodies] [frames]
## (keel-one: Keel on the physics thread alone, use_worker_thread_pool off)
## (tools/bench.sh builds the project and runs every case under both physics servers.)

const WARMUP_FRAMES := 120
const SPACING := 3.0

var _frame := 0
var _frames := 600
var _samples: Array[float] = []
var _last_usec := 0
var _mode := "keel"
var _count := 400


func _initialize() -> void:
	var args := OS.get_cmdline_user_args()
	if args.size() > 0:
		_mode = args[0]
	if args.size() > 1:
		_count = int(args[1])
	if args.size() > 2:
		_frames = int(args[2])
	if _mode.begins_with("keel"):
		var water: Node3D = ClassDB.instantiate("KeelWater")
		water.use_worker_thread_pool = _mode == "keel"
		root.add_child(water)
	var side := ceili(sqrt(float(_count)))
	for i in _count:
		var at := Vector3((i % side) * SPACING, 0.0, (i / side) * SPACING)
		root.add_child(_make_box(at))


func _physics_process(_delta: float) -> bool:
	_frame += 1
	var now := Time.get_ticks_usec()
	if _frame > WARMUP_FRAMES:
		_samples.append((now - _last_usec) / 1000.0)
	_last_usec = now
	if _frame == WARMUP_FRAMES + _frames:
		_samples.sort()
		var total := 0.0
		for s in _samples:
			total += s
		var mean := total / _samples.size()
		var median := _samples[_samples.size() / 2]
		print("BENCH %s %s bodies=%d frames=%d median_ms=%.4f mean_ms=%.4f" % [
			ProjectSettings.get_setting("physics/3d/physics_engine"), _mode, _count,
			_samples.size(), median, mean
		])
		quit(0)
		return true
	return false


func _make_box(at: Vector3) -> RigidBody3D:
	var body: RigidBody3D
	if _mode.begins_with("keel"):
		body = ClassDB.instantiate("BuoyantBody3D")
	else:
		body = RigidBody3D.new()
		body.can_sleep = false
	body.mass = 400.0
	body.position = at
	var shape := CollisionShape3D.new()
	var box := BoxShape3D.new()
	box.size = Vector3(1.0, 1.0, 1.0)
	shape.shape = box
	body.add_child(shape)
	var mesh := MeshInstance3D.new()
	var box_mesh := BoxMesh.new()
	box_mesh.size = Vector3(1.0, 1.0, 1.0)
	mesh.mesh = box_mesh
	body.add_child(mesh)
	return body
