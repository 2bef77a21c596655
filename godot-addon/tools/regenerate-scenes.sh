#!/bin/sh
# Rebuilds the demo's scenes (godot-addon/demo/scenes/*.tscn) with Godot's own scene
# writer from godot-addon/demo/tools/build_scenes.gd, in the Godot that
# provision-godot.sh provides, and writes them (and the scripts' .gd.uid files Godot
# made) into the demo. Edit build_scenes.gd, run this, commit both.
# The test `committed_scenes_are_what_godot_writes` checks they match.
set -eu
cd "$(dirname "$0")/../.."
exec cargo test -p keel-godot --test godot_engine -- --ignored --exact regenerate_scenes --nocapture
