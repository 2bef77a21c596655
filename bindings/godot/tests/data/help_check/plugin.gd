@tool
extends EditorPlugin
## Opens the editor's help page (F1) of each class listed in res://help_classes.txt, as
## a user would, saves the text each page shows as res://help_pages/<Class>.txt, and
## quits the editor. The engine tests (bindings/godot/tests/godot_engine.rs) install it
## into a copy of the demo, run `godot --headless --editor`, and check the pages against
## the doc comments of the Rust source.

const GIVE_UP := 120.0

var _classes := PackedStringArray()
var _elapsed := 0.0
var _pages := {}


func _enter_tree() -> void:
	var list := FileAccess.get_file_as_string("res://help_classes.txt")
	_classes = list.strip_edges().split("\n", false)
	set_process(true)


func _process(delta: float) -> void:
	_elapsed += delta
	# The editor fills its class reference after it starts: poll until every page shows
	# its class header, or give up.
	if _elapsed < 1.0:
		return
	for class_id in _classes:
		if not _pages.has(class_id):
			var text := _page_text(class_id)
			if text.contains("Inherits"):
				_pages[class_id] = text
	if _pages.size() == _classes.size() or _elapsed > GIVE_UP:
		_save()
		set_process(false)
		get_tree().quit(0 if _pages.size() == _classes.size() else 1)


## The text the help page of `class_id` shows once opened ("" while it is not there).
func _page_text(class_id: String) -> String:
	var script_editor := EditorInterface.get_script_editor()
	script_editor.goto_help("class_name:" + class_id)
	for help in script_editor.find_children(class_id, "EditorHelp", true, false):
		for label: RichTextLabel in help.find_children("*", "RichTextLabel", true, false):
			var text := label.get_parsed_text()
			if text.contains(class_id):
				return text
	return ""


func _save() -> void:
	DirAccess.make_dir_recursive_absolute(ProjectSettings.globalize_path("res://help_pages"))
	for class_id: String in _pages:
		var file := FileAccess.open("res://help_pages/%s.txt" % class_id, FileAccess.WRITE)
		file.store_string(_pages[class_id])
		print("KEEL help class=%s chars=%d" % [class_id, _pages[class_id].length()])
	for class_id in _classes:
		if not _pages.has(class_id):
			printerr("no help page for %s after %d s" % [class_id, GIVE_UP])
