@tool
extends MeshInstance3D
## A closed boat hull built from stations: a V section whose beam narrows to a pointed
## bow, with a transom at the stern. Sets the sibling collision shape to its convex hull.

@export var length := 8.0
@export var beam := 2.4
@export var depth := 0.8
@export var freeboard := 0.6
@export var stations := 16
@export var collision_shape: CollisionShape3D


func _ready() -> void:
	mesh = build_hull()
	if collision_shape:
		collision_shape.shape = mesh.create_convex_shape()


func build_hull() -> ArrayMesh:
	var port: Array[Vector3] = []
	var starboard: Array[Vector3] = []
	var keel: Array[Vector3] = []
	for i in stations + 1:
		var t := -1.0 + 2.0 * i / stations
		var forward := maxf(t, 0.0)
		var half_beam := 0.5 * beam * (1.0 - forward * forward)
		var z := 0.5 * length * t
		port.append(Vector3(-half_beam, freeboard, z))
		starboard.append(Vector3(half_beam, freeboard, z))
		keel.append(Vector3(0.0, -depth * (1.0 - 0.5 * forward * forward), z))
	var centre := Vector3(0.0, 0.5 * (freeboard - depth), 0.0)
	var st := SurfaceTool.new()
	st.begin(Mesh.PRIMITIVE_TRIANGLES)
	for i in stations:
		_quad(st, centre, port[i], port[i + 1], keel[i + 1], keel[i])
		_quad(st, centre, starboard[i], starboard[i + 1], keel[i + 1], keel[i])
		_quad(st, centre, port[i], port[i + 1], starboard[i + 1], starboard[i])
	_triangle(st, centre, port[0], starboard[0], keel[0])
	_triangle(st, centre, port[stations], starboard[stations], keel[stations])
	st.generate_normals()
	return st.commit()


func _quad(
	st: SurfaceTool, centre: Vector3, a: Vector3, b: Vector3, c: Vector3, d: Vector3
) -> void:
	_triangle(st, centre, a, b, c)
	_triangle(st, centre, a, c, d)


## Adds a triangle facing away from the centre, in Godot's clockwise front-face order.
func _triangle(st: SurfaceTool, centre: Vector3, a: Vector3, b: Vector3, c: Vector3) -> void:
	var outward := (b - a).cross(c - a).dot((a + b + c) / 3.0 - centre) > 0.0
	if outward:
		st.add_vertex(a)
		st.add_vertex(c)
		st.add_vertex(b)
	else:
		st.add_vertex(a)
		st.add_vertex(b)
		st.add_vertex(c)
