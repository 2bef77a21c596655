#!/bin/sh
# Keel's cost per physics frame in Godot: N BuoyantBody3D on a KeelWater against the same
# N bodies as plain RigidBody3D, under GodotPhysics3D and Jolt. Prints one BENCH line per
# run; the difference of the medians over the body count is Keel's cost per body.
#
#   godot-addon/tools/bench.sh [bodies] [frames] [hull] [rounds]
#
# hull: `box` (a 1 m cube of 400 kg, the default) or `bunny` (tests/meshes/bunny.obj
# scaled to about 1 m, 300 kg: the scene of `cargo bench --bench profile -- bunnies-N`).
# Each round runs plain, keel (Keel on Godot's WorkerThreadPool) and keel-one (Keel on
# the physics thread) in turn, for every library.
#
# The library: the addon's release build (`cargo xtask godot --release` first), or the
# ones KEEL_GODOT_LIBS lists as `label=path` words (two builds compared in one run,
# their runs alternated: `KEEL_GODOT_LIBS="before=/tmp/a.so after=/tmp/b.so"`).
#
# Godot: the Godot 4.6 of provision-godot.sh (a Debian chroot cached outside the clone;
# the project is copied under the chroot's /tmp, as the tests' harness does: never bind
# mount anything into the chroot, a later `rm -rf` of the chroot would follow the mount),
# or, when GODOT names a Godot 4.3+ command on this machine, that one on a project under
# target/godot-bench.
#
# A profile: `perf record -F 999 -g -o /tmp/keel.perf -- env KEEL_BENCH_KEEP=1 bench.sh ...`,
# then `perf report -i /tmp/keel.perf --symfs "$HOME/.cache/keel/godot-sid"`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bodies=${1:-400}
frames=${2:-600}
hull=${3:-box}
rounds=${4:-2}
case $hull in
box | bunny) ;;
*)
	echo "bench.sh: hull must be box or bunny, not $hull" >&2
	exit 2
	;;
esac

libs=${KEEL_GODOT_LIBS:-keel=$root/godot-addon/addons/keel/bin/libkeel_godot.linux.release.x86_64.so}
for entry in $libs; do
	path=${entry#*=}
	[ -f "$path" ] || {
		echo "bench.sh: no library $path (run cargo xtask godot --release first)" >&2
		exit 1
	}
done

if [ -n "${GODOT:-}" ]; then
	chroot_dir=
	base="$root/target/godot-bench"
	inside_base=$base
else
	chroot_dir=$(sh "$here/provision-godot.sh")
	base="$chroot_dir/tmp/keel-bench-$$"
	inside_base="/tmp/keel-bench-$$"
fi
# KEEL_BENCH_KEEP=1 keeps the projects (and their libraries, for a profiler's symbols).
[ -n "${KEEL_BENCH_KEEP:-}" ] || trap 'rm -rf "$base"' EXIT

# The editor build of Godot (Debian's) loads the debug entry, an export template the
# release one: both are given the library under test.
install_library() {
	bin="$1/addons/keel/bin"
	rm -rf "$bin"
	mkdir -p "$bin"
	for tag in debug release; do
		cp "$2" "$bin/libkeel_godot.linux.$tag.x86_64.so"
	done
}

run_godot() {
	# $1: the project's path as Godot sees it; the rest: Godot's arguments.
	project=$1
	shift
	if [ -n "$chroot_dir" ]; then
		chroot "$chroot_dir" env HOME=/root godot --headless --path "$project" "$@"
	else
		$GODOT --headless --path "$project" "$@"
	fi
}

for engine in GodotPhysics3D "Jolt Physics"; do
	name=$(echo "$engine" | tr -dc 'A-Za-z0-9')
	for entry in $libs; do
		label=${entry%%=*}
		project="$base/$name-$label"
		rm -rf "$project"
		mkdir -p "$project/addons" "$project/.godot"
		cp -r "$root/godot-addon/addons/keel" "$project/addons/keel"
		install_library "$project" "${entry#*=}"
		echo "res://addons/keel/keel.gdextension" >"$project/.godot/extension_list.cfg"
		cp "$here/bench.gd" "$project/bench.gd"
		# Read as text by bench.gd: a `.obj` would be imported as a mesh.
		cp "$root/tests/meshes/bunny.obj" "$project/bunny.obj.txt"
		cat >"$project/project.godot" <<EOF
config_version=5

[application]

config/name="keel-bench"

[physics]

common/physics_ticks_per_second=60
3d/physics_engine="$engine"
EOF
	done
	round=0
	while [ "$round" -lt "$rounds" ]; do
		round=$((round + 1))
		for mode in plain keel keel-one; do
			for entry in $libs; do
				label=${entry%%=*}
				# The plain bodies do not load the library: one run of them is enough.
				if [ "$mode" = plain ] && [ "$entry" != "${libs%% *}" ]; then
					continue
				fi
				run_godot "$inside_base/$name-$label" --fixed-fps 60 -s res://bench.gd -- \
					"$mode" "$bodies" "$frames" "$hull" |
					sed -n "s/^BENCH /BENCH $label /p"
			done
		done
	done
done
