#!/bin/bash
# Compares builds of the profile loop on a machine whose speed drifts: runs the given
# binaries in turn, REPS times each, and prints per binary the minimum and median of the
# tenth-fastest step time, and the fastest step seen.
#
#   cargo bench --bench profile --no-run        # then copy target/release/deps/profile-<hash>
#   benches/ab.sh bunny 3000 8 1 /tmp/profile-before /tmp/profile-after
#
# Arguments: scenario, steps per run, runs per binary, threads, binaries...
set -euo pipefail
if [ $# -lt 5 ]; then
    sed -n '2,9p' "$0"
    exit 2
fi
scenario=$1 steps=$2 reps=$3 threads=$4
shift 4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for _ in $(seq "$reps"); do
    for i in $(seq $#); do
        bin=${!i}
        "$bin" "$scenario" "$steps" "$threads" | sed -n 's/^step times: fastest \([0-9.]*\) us, tenth \([0-9.]*\) us, median \([0-9.]*\) us$/\1 \2 \3/p' >> "$out/$i"
    done
done
for i in $(seq $#); do
    sort -n -k2 "$out/$i" | awk -v name="${!i}" '
        { fastest[NR] = $1; tenth[NR] = $2; if (NR == 1 || $1 < best) best = $1 }
        END { printf "%s: tenth-fastest step min %s us, median %s us; fastest step %s us (%d runs)\n",
              name, tenth[1], tenth[int((NR + 1) / 2)], best, NR }'
done
