#!/bin/sh
# Keel's cost per physics frame in Godot: 400 BuoyantBody3D boxes on a KeelWater against
# the same 400 boxes as plain RigidBody3D, under GodotPhysics3D and Jolt, with the
# release library (`cargo xtask godot --release` first). Prints one BENCH line per case;
# the difference of the medians over the body count is Keel's cost per box.
#
#   godot-addon/tools/bench.sh [bodies] [frames]
#
# GODOT is the command that runs Godot 4.3+ (default `godot`; for the project's chroot:
# GODOT="chroot $HOME/.cache/keel/godot-sid godot", with the repository bind-mounted at
# its own path inside). The project is made under target/godot-bench.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bodies=${1:-400}
frames=${2:-600}
godot=${GODOT:-godot}
lib="$root/godot-addon/addons/keel/bin/libkeel_godot.linux.release.x86_64.so"
[ -f "$lib" ] || { echo "no $lib: run cargo xtask godot --release first" >&2; exit 1; }
for engine in GodotPhysics3D "Jolt Physics"; do
	project="$root/target/godot-bench/$(echo "$engine" | tr -dc 'A-Za-z0-9')"
	rm -rf "$project"
	mkdir -p "$project/addons" "$project/.godot"
	cp -r "$root/godot-addon/addons/keel" "$project/addons/keel"
	echo "res://addons/keel/keel.gdextension" > "$project/.godot/extension_list.cfg"
	cp "$here/bench.gd" "$project/bench.gd"
	cat > "$project/project.godot" <<EOF
config_version=5

[application]

config/name="keel-bench"

[physics]

common/physics_ticks_per_second=60
3d/physics_engine="$engine"
EOF
	for mode in plain keel keel-one plain keel keel-one; do
		$godot --headless --path "$project" --fixed-fps 60 -s res://bench.gd -- "$mode" "$bodies" "$frames" |
			grep '^BENCH'
	done
done
