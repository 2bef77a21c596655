#!/bin/sh
# Provisions the Godot the addon's tests run in: Debian unstable's `godot` (4.6), with
# Xvfb and Mesa's software OpenGL for pictures, in a minimal Debian chroot cached
# outside the clone, at ${KEEL_GODOT_CHROOT:-$HOME/.cache/keel/godot-sid}.
#
#   godot-addon/tools/provision-godot.sh            # make it if missing, print its path
#   godot-addon/tools/provision-godot.sh --check    # only say whether it is usable
#
# Why a chroot: Godot 4.6 is not in the host's distribution, sid packages it, and a
# chroot needs no container runtime. Run Godot inside it as
#   chroot "$DIR" godot --headless --path /tmp/project ...
# with the project copied under "$DIR/tmp" (the tests' harness does that) or
# bind-mounted at the same path.
#
# Quick and idempotent when the chroot is there (it checks `godot --version` inside and
# remounts /proc if needed); safe when two tests call it at once (flock on DIR.lock: the
# second waits for the first, then finds the chroot made). A half-made chroot is built
# in DIR.building and renamed into place only when complete, so a killed run leaves
# nothing that looks usable.
#
# Exit status: 0 ready (its path on stdout), 77 cannot provision here (not root, no
# debootstrap that can run, no network: the reason on stderr; tests then say
# "skipped: <reason>", and fail under CI=true), anything else a real failure.
set -eu

DIR=${KEEL_GODOT_CHROOT:-${HOME:-/root}/.cache/keel/godot-sid}
MIRROR=${KEEL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PACKAGES="godot xvfb xauth libgl1-mesa-dri libgl1 ca-certificates"
# sid's Release file can be past its Valid-Until by a machine's clock (a frozen or
# skewed clock): apt then refuses the archive. The chroot is a test tool, not a
# system to keep secure, so it does not check.
APT_OPTS="-o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false -o Dpkg::Use-Pty=0"

cannot() {
    echo "provision-godot: cannot provision Godot here: $*" >&2
    exit 77
}

# The chroot is usable: godot runs in it and /proc is mounted (Godot reads
# /proc/self/exe to find itself).
usable() {
    [ -x "$DIR/usr/bin/godot" ] && [ -x "$DIR/usr/bin/xvfb-run" ] || return 1
    mount_proc "$DIR" || return 1
    chroot "$DIR" godot --version >/dev/null 2>&1
}

mount_proc() {
    if ! mountpoint -q "$1/proc"; then
        mount -t proc proc "$1/proc" || return 1
    fi
}

if [ "${1:-}" = "--check" ]; then
    if [ "$(id -u)" -eq 0 ] && usable; then
        echo "$DIR"
        exit 0
    fi
    echo "provision-godot: no usable Godot chroot at $DIR" >&2
    exit 1
fi

# chroot, mount and debootstrap need root; a developer without it gets a skip.
[ "$(id -u)" -eq 0 ] || cannot "not root (chroot and mount need it); run the tests as root or in CI"

mkdir -p "$(dirname "$DIR")"
exec 9>"$DIR.lock"
flock 9

if usable; then
    echo "$DIR"
    exit 0
fi
if [ -e "$DIR" ]; then
    echo "provision-godot: $DIR exists but Godot does not run in it; remove it to rebuild" >&2
    exit 1
fi

if ! command -v debootstrap >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get install -y debootstrap >&2 ||
            { apt-get update >&2 && apt-get install -y debootstrap >&2; } ||
            cannot "debootstrap is missing and apt-get cannot install it (no network?)"
    else
        cannot "debootstrap is missing (install it: it makes the Debian chroot Godot runs in)"
    fi
fi

BUILD="$DIR.building"
# Left by a killed run (we hold the lock, so nobody else is building it). Unmount
# first: rm -rf would follow a bind mount into whatever it shows.
if [ -e "$BUILD" ]; then
    for m in $(awk -v d="$BUILD/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount "$m"
    done
    rm -rf --one-file-system "$BUILD"
fi

echo "provision-godot: making a Debian sid chroot at $DIR (about a minute)" >&2
debootstrap --variant=minbase sid "$BUILD" "$MIRROR" >&2 ||
    { umount "$BUILD/proc" 2>/dev/null || true; cannot "debootstrap failed (no network or no mirror at $MIRROR)"; }
cp /etc/resolv.conf "$BUILD/etc/resolv.conf"
mount_proc "$BUILD"
# shellcheck disable=SC2086 # the options and packages are lists
chroot "$BUILD" apt-get $APT_OPTS update >&2 || cannot "apt-get update in the chroot failed (no network?)"
# shellcheck disable=SC2086
chroot "$BUILD" env DEBIAN_FRONTEND=noninteractive apt-get $APT_OPTS install -y $PACKAGES >&2 ||
    cannot "apt-get install $PACKAGES in the chroot failed"
chroot "$BUILD" apt-get clean >&2
chroot "$BUILD" godot --version >&2
# The mount of /proc moves with the directory.
mv "$BUILD" "$DIR"
echo "$DIR"
