#!/bin/sh
# Renders each demo scene (the crates and the boat after 4 s, the plates as they fall)
# with Xvfb and Mesa's software OpenGL (Godot's compatibility renderer), in the Godot
# that provision-godot.sh provides, into godot-addon/docs/<scene>.png (640 px wide,
# under 200 KB each). Look at them before committing.
set -eu
cd "$(dirname "$0")/../.."
exec cargo test -p keel-godot --test godot_engine -- --ignored --exact regenerate_pictures --nocapture
