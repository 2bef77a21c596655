extends Node3D
## Prints when each floating child touches or leaves the water (the bodies' signals).


func _ready() -> void:
	for child in get_children():
		if child.has_signal("entered_water"):
			child.entered_water.connect(_on_entered.bind(child.name))
			child.exited_water.connect(_on_exited.bind(child.name))


func _on_entered(body_name: StringName) -> void:
	print("%s entered the water" % body_name)


func _on_exited(body_name: StringName) -> void:
	print("%s left the water" % body_name)
