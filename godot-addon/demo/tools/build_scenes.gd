extends SceneTree
## Builds the demo's scenes and saves them with Godot's own scene writer, so that every
## property, node path and resource reference in them is what Godot itself writes (a
## scene written by hand lost its node paths, and the boat its collision shape).
##
## godot --headless --path godot-addon/demo -s res://tools/build_scenes.gd
## godot ... -s res://tools/build_scenes.gd -- res://rebuilt   (into another folder)
##
## The output is the same bytes on every run: sub-resources get fixed ids
## (resource_scene_unique_id), scripts fixed ids (set_id_for_path), and each scene a
## fixed uid, instead of the random ones Godot picks for a new resource.
## bindings/godot/tests/godot_engine.rs rebuilds them and compares with the committed files.

const SCRIPTS := "res://scripts/"

var _out := "res://scenes"
var _path := ""


func _initialize() -> void:
	var args := OS.get_cmdline_user_args()
	if args.size() > 0:
		_out = args[0]
	DirAccess.make_dir_recursive_absolute(ProjectSettings.globalize_path(_out))
	var failed := false
	failed = _save(_crate_field(), "crate_field") or failed
	failed = _save(_gerstner_boat(), "gerstner_boat") or failed
	failed = _save(_falling_plates(), "falling_plates") or failed
	quit(1 if failed else 0)


## Packs `root` and saves it as <out>/<scene_name>.tscn; true on failure.
func _save(root: Node3D, scene_name: String) -> bool:
	var packed := PackedScene.new()
	var err := packed.pack(root)
	root.free()
	if err != OK:
		printerr("cannot pack %s: %s" % [scene_name, error_string(err)])
		return true
	_fix_node_ids(packed, scene_name)
	err = ResourceSaver.save(packed, _path)
	if err == OK:
		err = ResourceSaver.set_uid(_path, ResourceUID.text_to_id(_uid(scene_name)))
	if err != OK:
		printerr("cannot save %s: %s" % [_path, error_string(err)])
		return true
	print("saved ", _path)
	return false


## Godot 4.6 gives each node of a new scene a random unique_id (kept from then on, so
## that it can follow the node through renames); the packed scene keeps them in its
## `_bundled` data, where they are replaced by a hash of the scene's name and the node's
## path. Earlier versions have no node ids and nothing is done.
func _fix_node_ids(packed: PackedScene, scene_name: String) -> void:
	var bundled: Dictionary = packed.get("_bundled")
	if not bundled.has("node_ids"):
		return
	var state := packed.get_state()
	var ids := PackedInt32Array()
	for i in state.get_node_count():
		var id := hash("%s %s" % [scene_name, state.get_node_path(i)]) & 0x7fffffff
		while id == 0 or id in ids:
			id = (id + 1) & 0x7fffffff
		ids.append(id)
	bundled["node_ids"] = ids
	packed.set("_bundled", bundled)


## A fixed uid for a scene, from its name.
func _uid(scene_name: String) -> String:
	return ResourceUID.id_to_text(hash("keel demo " + scene_name) & 0x7fffffff)


## Starts a scene: its root (logging the bodies' water signals), sky, sun, orbiting
## camera, the KeelWater and a KeelOcean showing it.
func _begin(scene_name: String, root_name: String) -> Node3D:
	_path = "%s/%s.tscn" % [_out, scene_name]
	var root := Node3D.new()
	root.name = root_name
	root.set_script(_script("water_log.gd", "2_log"))

	var sky_material := ProceduralSkyMaterial.new()
	sky_material.sky_horizon_color = Color(0.64, 0.72, 0.8)
	sky_material.ground_horizon_color = Color(0.64, 0.72, 0.8)
	# Below the horizon the sky shows sea, not the default brown ground, beyond the
	# edge of the ocean mesh.
	sky_material.ground_bottom_color = Color(0.1, 0.3, 0.45)
	var sky := Sky.new()
	sky.sky_material = sky_material
	var environment := Environment.new()
	environment.background_mode = Environment.BG_SKY
	environment.sky = sky
	environment.tonemap_mode = Environment.TONE_MAPPER_FILMIC
	_name_resources({"Sky_material": sky_material, "Sky": sky, "Environment": environment})
	var world := WorldEnvironment.new()
	world.name = "Environment"
	world.environment = environment
	_add(root, root, world)

	var sun := DirectionalLight3D.new()
	sun.name = "Sun"
	sun.transform = Transform3D(Basis.from_euler(Vector3(-0.9, 0.3, 0.0)), Vector3(0, 10, 0))
	sun.shadow_enabled = true
	_add(root, root, sun)

	var camera := Camera3D.new()
	camera.name = "Camera"
	camera.set_script(_script("orbit_camera.gd", "1_camera"))
	_add(root, root, camera)

	var water: Node3D = ClassDB.instantiate("KeelWater")
	water.name = "Water"
	_add(root, root, water)

	var sea := StandardMaterial3D.new()
	sea.albedo_color = Color(0.1, 0.35, 0.5, 0.85)
	sea.transparency = BaseMaterial3D.TRANSPARENCY_ALPHA
	sea.roughness = 0.15
	_name_resources({"Sea_material": sea})
	var ocean: MeshInstance3D = ClassDB.instantiate("KeelOcean")
	ocean.name = "Ocean"
	ocean.material_override = sea
	_add(root, root, ocean)
	return root


## Nine crates of different sizes and densities on Perlin water.
func _crate_field() -> Node3D:
	var root := _begin("crate_field", "CrateField")
	_orbit(root, 14.0, 6.0, null)
	var water := root.get_node("Water")
	water.set("model", 1)
	water.set("perlin_scale", 0.15)
	water.set("perlin_speed", 0.4)
	water.set("perlin_wave_height", 0.6)
	root.get_node("Ocean").set("size", 40.0)
	root.get_node("Ocean").set("cells", 48)

	var wood := StandardMaterial3D.new()
	wood.albedo_color = Color(0.62, 0.45, 0.25)
	_name_resources({"Wood": wood})
	var shapes := {}
	var meshes := {}
	for kind: String in ["small", "cube", "long"]:
		var size: Vector3 = {
			"small": Vector3(0.6, 0.6, 0.6), "cube": Vector3.ONE, "long": Vector3(2.0, 0.5, 0.8)
		}[kind]
		var shape := BoxShape3D.new()
		shape.size = size
		var mesh := BoxMesh.new()
		mesh.size = size
		mesh.material = wood
		_name_resources({"Shape_" + kind: shape, "Mesh_" + kind: mesh})
		shapes[kind] = shape
		meshes[kind] = mesh
	# name, kind, mass (kg), position, tilt (Euler angles, rad)
	var crates := [
		["Crate1", "small", 60.0, Vector3(-3, 1.5, -3), Vector3.ZERO],
		["Crate2", "small", 150.0, Vector3(0, 1.9, -3), Vector3(0.3, 0, -0.2)],
		["Crate3", "cube", 300.0, Vector3(3, 2.3, -3), Vector3(0, 0, -0.4)],
		["Crate4", "cube", 500.0, Vector3(-3, 2.7, 0), Vector3(0.3, 0, 0)],
		["Crate5", "cube", 800.0, Vector3(0, 3.1, 0), Vector3(0, 0, -0.2)],
		["Crate6", "long", 200.0, Vector3(3, 3.5, 0), Vector3(0.3, 0, -0.4)],
		["Crate7", "long", 450.0, Vector3(-3, 3.9, 3), Vector3.ZERO],
		["Crate8", "cube", 650.0, Vector3(0, 4.3, 3), Vector3(0.3, 0, -0.2)],
		["Crate9", "small", 100.0, Vector3(3, 4.7, 3), Vector3(0, 0, -0.4)],
	]
	for c: Array in crates:
		var body := _body(root, c[0], c[2], Transform3D(Basis.from_euler(c[4]), c[3]))
		_shape_and_mesh(root, body, shapes[c[1]], meshes[c[1]])
	# The fifth crate draws its submerged triangles and waterline.
	root.get_node("Crate5").set("debug_draw", true)
	return root


## A 2-tonne, 8 m boat on four crossing Gerstner waves with a breeze.
func _gerstner_boat() -> Node3D:
	var root := _begin("gerstner_boat", "GerstnerBoat")
	var water := root.get_node("Water")
	water.set("model", 2)
	# amplitude (m), wavelength (m), direction, steepness
	# Untyped: `gerstner_waves` is an untyped Array (KeelWater checks each element), and
	# gdext refuses a typed one passed through `set()`.
	var waves := []
	var specs := [
		[0.5, 22.0, Vector2(1, 0.2), 0.35],
		[0.3, 12.0, Vector2(0.7, 0.7), 0.3],
		[0.15, 6.0, Vector2(1, -0.5), 0.2],
		[0.08, 3.5, Vector2(0.2, 1), 0.1],
	]
	for i in specs.size():
		var wave := KeelGerstnerWave.new()
		wave.amplitude = specs[i][0]
		wave.wavelength = specs[i][1]
		wave.direction = specs[i][2]
		wave.steepness = specs[i][3]
		_name_resources({"Wave_%d" % (i + 1): wave})
		waves.append(wave)
	water.set("gerstner_waves", waves)
	water.set("wind", Vector3(4, 0, 1))
	root.get_node("Ocean").set("size", 80.0)
	root.get_node("Ocean").set("cells", 96)

	var boat := _body(root, "Boat", 2000.0, Transform3D(Basis.IDENTITY, Vector3(0, 0.6, 0)))
	# Ballast: the centre of mass 0.4 m below the origin (Keel takes it from Godot).
	boat.center_of_mass_mode = RigidBody3D.CENTER_OF_MASS_MODE_CUSTOM
	boat.center_of_mass = Vector3(0, -0.4, 0)
	boat.set("water_patch_cells", 12)
	boat.set("debug_draw", true)
	_orbit(root, 16.0, 6.0, boat)

	var paint := StandardMaterial3D.new()
	paint.albedo_color = Color(0.85, 0.85, 0.8)
	var cabin_mesh := BoxMesh.new()
	cabin_mesh.size = Vector3(1.4, 0.8, 2)
	cabin_mesh.material = paint
	_name_resources({"Paint": paint, "Cabin_mesh": cabin_mesh})
	# The hull script builds the hull's mesh and gives the shape its convex hull when
	# the scene starts; the scene keeps only the node path to the shape.
	var shape := CollisionShape3D.new()
	shape.name = "Shape"
	var hull := MeshInstance3D.new()
	hull.name = "Hull"
	hull.set_script(_script("boat_hull.gd", "3_hull"))
	hull.material_override = paint
	_add(root, boat, hull)
	_add(root, boat, shape)
	hull.set("collision_shape", shape)
	var cabin := MeshInstance3D.new()
	cabin.name = "Cabin"
	cabin.mesh = cabin_mesh
	cabin.position = Vector3(0, 1, -1.2)
	_add(root, hull, cabin)
	return root


## Four steel plates dropped into still water from 4 m, flat and at 20, 45 and 80 degrees,
## in a row across the camera's first view, tilted in its picture plane.
func _falling_plates() -> Node3D:
	var root := _begin("falling_plates", "FallingPlates")
	_orbit(root, 15.0, 5.0, null)
	root.get_node("Ocean").set("size", 40.0)
	root.get_node("Ocean").set("cells", 8)
	var shape := BoxShape3D.new()
	shape.size = Vector3(2, 0.1, 2)
	var steel := StandardMaterial3D.new()
	steel.albedo_color = Color(0.5, 0.55, 0.6)
	steel.metallic = 0.6
	var mesh := BoxMesh.new()
	mesh.size = Vector3(2, 0.1, 2)
	mesh.material = steel
	_name_resources({"Plate_shape": shape, "Steel": steel, "Plate_mesh": mesh})
	var z := -6.0
	for degrees in [0, 20, 45, 80]:
		var tilt := Basis.from_euler(Vector3(deg_to_rad(degrees), 0, 0))
		var body := _body(root, "Plate%d" % degrees, 120.0, Transform3D(tilt, Vector3(0, 4, z)))
		_shape_and_mesh(root, body, shape, mesh)
		z += 4.0
	return root


func _body(root: Node3D, body_name: String, mass: float, at: Transform3D) -> RigidBody3D:
	var body: RigidBody3D = ClassDB.instantiate("BuoyantBody3D")
	body.name = body_name
	body.mass = mass
	body.transform = at
	_add(root, root, body)
	return body


func _shape_and_mesh(root: Node3D, body: Node3D, shape: Shape3D, mesh: Mesh) -> void:
	var collision := CollisionShape3D.new()
	collision.name = "Shape"
	collision.shape = shape
	_add(root, body, collision)
	var instance := MeshInstance3D.new()
	instance.name = "Mesh"
	instance.mesh = mesh
	_add(root, body, instance)


func _orbit(root: Node3D, distance: float, height: float, target: Node3D) -> void:
	var camera := root.get_node("Camera")
	camera.set("distance", distance)
	camera.set("height", height)
	if target:
		camera.set("target", target)


## Adds `node` under `parent`, owned by the scene's root so that it is saved.
func _add(root: Node, parent: Node, node: Node) -> void:
	parent.add_child(node)
	node.owner = root


## Gives sub-resources fixed ids in the scene file.
func _name_resources(resources: Dictionary) -> void:
	for id: String in resources:
		(resources[id] as Resource).resource_scene_unique_id = id


## Loads a demo script and fixes the id the scene being built gives it.
func _script(file: String, id: String) -> Script:
	var script: Script = load(SCRIPTS + file)
	script.set_id_for_path(_path, id)
	return script
