#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Context switches lost on a busy machine: a mutex/condvar ping-pong (about
# 400 000 switches a second on its one CPU) recorded while BUSY shell loops
# spin on every other CPU, where the recorder's driver drains perf's ring.
# A trace that lost a switch is refused by the analysis, so the figure is
# how many recordings lost any (and how many switches), not a time.
# With OLD_ECP=path the other build records in turn with this one
# (A B A B ...), under the same loops.
#   usage: bench/recorder/loaded-loss.sh BUILD_DIR [RUNS (3) [BUSY (3) [ROUNDS (200000)]]]
set -euo pipefail
build=$(cd "${1:?usage: loaded-loss.sh BUILD_DIR [RUNS [BUSY [ROUNDS]]]}" && pwd)
runs=${2:-3}
busy=${3:-3}
rounds=${4:-200000}
work=$(mktemp -d /tmp/ecp-loss-XXXXXX)
loops=()
cleanup() {
	[ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
ncpu=$(nproc)
if [ "$ncpu" -lt 2 ]; then
	echo "loaded-loss.sh: needs 2 CPUs (the program records on CPU 0, the driver drains on the others)" >&2
	exit 2
fi
for _ in $(seq "$busy"); do
	taskset -c "1-$((ncpu - 1))" sh -c 'while :; do :; done' &
	loops+=($!)
done
record() { # label ecp
	rm -rf "$work/t"
	"$2" record -q -f --cpu 0 -o "$work/t" -- "$build/bench/recorder/pingpong" "$rounds" \
		>/dev/null 2>&1 || true
	lost=$(sed -n 's/^sched_lost=//p' "$work/t/ecp-record.meta" 2>/dev/null || echo "?")
	echo "$1 sched_lost=$lost"
}
for _ in $(seq "$runs"); do
	[ -z "${OLD_ECP:-}" ] || record old "$OLD_ECP"
	record new "$build/cli/ecp"
done | tee "$work/out"
for who in old new; do
	awk -v w="$who" '$1 == w {n++; split($2, a, "="); if (a[2] != "0") {k++; s += a[2]}}
		END {if (n) printf "%s: %d of %d recordings lost switches (%d in all)\n", w, k, n, s}' \
		"$work/out"
done
