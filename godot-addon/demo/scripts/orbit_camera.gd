extends Camera3D
## Circles slowly around a target, always looking at it.

@export var target: Node3D
@export var distance := 14.0
@export var height := 6.0
@export var speed := 0.1

var _angle := 0.0


func _process(delta: float) -> void:
	_angle += speed * delta
	var centre := target.global_position if target else Vector3.ZERO
	global_position = centre + Vector3(cos(_angle) * distance, height, sin(_angle) * distance)
	look_at(centre, Vector3.UP)
