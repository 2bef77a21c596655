extends SceneTree
## Runs one demo scene for a number of physics frames and prints, for the engine tests
## (bindings/godot/tests/godot_engine.rs), which physics server ran it and how each
## floating body ends: its height against the water's under it, whether Keel has it in
## the water, its fastest spin over the run and over the last quarter, how far it moved
## horizontally from where it started (the sea's orbits carry nothing). With a third
## argument it also saves what the camera sees as a PNG (run it with a display).
##
## godot --headless --fixed-fps 60 --path godot-addon/demo -s res://tests/run_scene.gd \
##     -- res://scenes/gerstner_boat.tscn 600 [picture.png]

const PICTURE_WIDTH := 640

var _frames := 600
var _frame := 0
var _picture := ""
var _bodies: Array[RigidBody3D] = []
var _water: Node3D
var _max_spin := {}
var _late_spin := {}
var _start := {}
var _done := false


func _initialize() -> void:
	var args := OS.get_cmdline_user_args()
	if args.size() < 2:
		printerr("usage: -s res://tests/run_scene.gd -- <scene> <frames> [picture.png]")
		quit(2)
		return
	_frames = int(args[1])
	if args.size() > 2:
		_picture = args[2]
		# Software OpenGL draws a frame in tens of milliseconds: draw only the last ones.
		RenderingServer.render_loop_enabled = false
	var packed := load(args[0]) as PackedScene
	if packed == null:
		printerr("cannot load the scene %s" % args[0])
		quit(2)
		return
	var scene := packed.instantiate()
	root.add_child(scene)
	for node in scene.find_children("*", "RigidBody3D"):
		_bodies.append(node)
	var waters := scene.find_children("*", "KeelWater")
	if waters.size() > 0:
		_water = waters[0]
	print("KEEL physics engine=%s setting=%s bodies=%d" % [
		physics_server_name(),
		str(ProjectSettings.get_setting("physics/3d/physics_engine")).replace(" ", "_"),
		_bodies.size()
	])


func _physics_process(_delta: float) -> bool:
	if _done:
		return false
	_frame += 1
	if _frame == 1:
		# (In the tree only now: where each body starts.)
		for body in _bodies:
			_start[body] = body.global_position
	if _picture != "" and _frame >= _frames - 2:
		RenderingServer.render_loop_enabled = true
	for body in _bodies:
		var spin := body.angular_velocity.length()
		_max_spin[body] = maxf(_max_spin.get(body, 0.0), spin)
		if _frame > _frames * 3 / 4:
			_late_spin[body] = maxf(_late_spin.get(body, 0.0), spin)
	if _frame >= _frames:
		_done = true
		_report()
		_finish()
	return false


func _report() -> void:
	for body in _bodies:
		var at := body.global_position
		var water_y: float = _water.call("get_height", at.x, at.z) if _water else NAN
		var start: Vector3 = _start[body]
		var moved := Vector2(at.x - start.x, at.z - start.z).length()
		var line := "KEEL body name=%s y=%.4f water=%.4f in_water=%s" % [
			body.name, at.y, water_y, body.call("is_in_water")
		]
		print(line + " max_spin=%.4f late_spin=%.4f moved=%.4f" % [
			_max_spin[body], _late_spin[body], moved
		])


func _finish() -> void:
	if _picture != "":
		await RenderingServer.frame_post_draw
		var image := root.get_texture().get_image()
		var height := int(image.get_height() * PICTURE_WIDTH / float(image.get_width()))
		image.resize(PICTURE_WIDTH, height, Image.INTERPOLATE_LANCZOS)
		image.convert(Image.FORMAT_RGB8)
		var err := image.save_png(_picture)
		if err != OK:
			printerr("cannot save %s: %s" % [_picture, error_string(err)])
			quit(1)
			return
		print("KEEL picture path=%s" % _picture)
	quit(0)


## Which 3D physics server runs: Godot reports no name, but its own server answers the
## solver-iterations query with the project's `physics/3d/solver/solver_iterations` and
## Jolt with its own step counts.
static func physics_server_name() -> String:
	var space := PhysicsServer3D.space_create()
	var iterations := PhysicsServer3D.space_get_param(
		space, PhysicsServer3D.SPACE_PARAM_SOLVER_ITERATIONS
	)
	PhysicsServer3D.free_rid(space)
	if iterations == float(ProjectSettings.get_setting("physics/3d/solver/solver_iterations")):
		return "GodotPhysics3D"
	return "Jolt_Physics"
