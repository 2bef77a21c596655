extends SceneTree
## Headless scene test of the Keel addon: drops a box and a raft on still water, lets
## them settle, and checks Archimedes' draft, that they came to rest, and that each
## told it entered the water. Exits 0 on success, 1 on failure.
##
## godot --headless --path godot-addon/demo -s res://tests/run_headless.gd
## (or `cargo xtask godot --test`, which builds and installs the addon first)

const WATER_DENSITY := 1000.0
const SETTLE_FRAMES := 900
const CHECK_FRAMES := 60
const DRAFT_TOLERANCE := 0.03
const REST_SPEED := 0.02

var _bodies: Array[Dictionary] = []
var _frame := 0
var _max_speed := {}
var _entered := {}
var _failures: Array[String] = []


func _initialize() -> void:
	for class_id in ["KeelWater", "BuoyantBody3D", "KeelOcean", "KeelGerstnerWave"]:
		if not ClassDB.class_exists(class_id):
			printerr("FAIL: class %s is not registered: is the extension installed?" % class_id)
			quit(1)
			return
	var scene := Node3D.new()
	root.add_child(scene)
	var water: Node3D = ClassDB.instantiate("KeelWater")
	water.set("water_density", WATER_DENSITY)
	scene.add_child(water)
	# A 1 m cube of 150 kg floats 0.15 m deep, flat (a cube floats face up only when
	# lighter than about 0.21 of the water's density or heavier than 0.79); a 2 x 0.4 x 2 m
	# raft of 640 kg floats 0.16 m deep.
	_add_body(scene, "Box", Vector3(1.0, 1.0, 1.0), 150.0, Vector3(-3.0, 1.0, 0.0))
	_add_body(scene, "Raft", Vector3(2.0, 0.4, 2.0), 640.0, Vector3(3.0, 0.6, 0.0))


func _physics_process(_delta: float) -> bool:
	if _bodies.is_empty():
		return false
	_frame += 1
	if _frame > SETTLE_FRAMES - CHECK_FRAMES:
		for entry in _bodies:
			var body: RigidBody3D = entry.node
			var speed := body.linear_velocity.length() + body.angular_velocity.length()
			_max_speed[body.name] = maxf(_max_speed.get(body.name, 0.0), speed)
	if _frame == SETTLE_FRAMES:
		_check()
		quit(1 if _failures.size() > 0 else 0)
		return true
	return false


func _add_body(scene: Node3D, body_name: String, size: Vector3, mass: float, at: Vector3) -> void:
	var body: RigidBody3D = ClassDB.instantiate("BuoyantBody3D")
	body.name = body_name
	body.mass = mass
	body.position = at
	var shape := CollisionShape3D.new()
	var box := BoxShape3D.new()
	box.size = size
	shape.shape = box
	body.add_child(shape)
	var mesh := MeshInstance3D.new()
	var box_mesh := BoxMesh.new()
	box_mesh.size = size
	mesh.mesh = box_mesh
	body.add_child(mesh)
	body.connect("entered_water", func() -> void: _entered[body_name] = true)
	scene.add_child(body)
	# The draft of a floating box: its mass over the water's density and its footprint.
	var draft := mass / (WATER_DENSITY * size.x * size.z)
	_bodies.append({"node": body, "size": size, "draft": draft})


func _check() -> void:
	for entry in _bodies:
		var body: RigidBody3D = entry.node
		var size: Vector3 = entry.size
		var bottom := body.global_position.y - 0.5 * size.y
		var draft := -bottom
		var expected: float = entry.draft
		print("%s: draft %.4f m (Archimedes %.4f m), max speed %.4f over the last %d frames" % [
			body.name, draft, expected, _max_speed.get(body.name, INF), CHECK_FRAMES
		])
		if absf(draft - expected) > DRAFT_TOLERANCE * expected + 0.002:
			_failures.append("%s floats at draft %.4f m, Archimedes says %.4f m" % [
				body.name, draft, expected
			])
		if _max_speed.get(body.name, INF) > REST_SPEED:
			_failures.append("%s has not come to rest" % body.name)
		if body.rotation.length() > 0.02:
			_failures.append("%s is tilted by %s rad" % [body.name, body.rotation])
		if not _entered.get(body.name, false):
			_failures.append("%s never emitted entered_water" % body.name)
	for failure in _failures:
		printerr("FAIL: " + failure)
	if _failures.is_empty():
		print("PASS: the box and the raft float at their drafts, at rest")
