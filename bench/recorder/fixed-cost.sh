#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fixed cost of a recording (issue 35): `ecp record -q -- /bin/true`
# against `perf record -q -- /bin/true` (the peer: a recording with no
# program time to speak of), run in turn by bench/paired.py so that the
# ratio is taken pair by pair on this machine's drifting speed.
#   usage: bench/recorder/fixed-cost.sh BUILD_DIR [RUNS [PROGRAM...]]
# A second ecp (OLD_ECP=path) is compared the same way, for a before/after.
# PROGRAM (default /bin/true) names another program, such as `sleep 0.3`:
# what a recording adds to a short run depends on how long it runs
# (lttng-consumerd's metadata sleeps, recorder/lttng-session.c).
set -euo pipefail
build=$(cd "${1:?usage: fixed-cost.sh BUILD_DIR [RUNS [PROGRAM...]]}" && pwd)
runs=${2:-7}
shift $(($# < 2 ? $# : 2))
program=${*:-/bin/true}
work=$(mktemp -d /tmp/ecp-fixed-XXXXXX)
trap 'rm -rf "$work"' EXIT
paired=$(dirname "$0")/../paired.py
echo "== ecp record (A) vs perf record (B), $program"
python3 "$paired" --runs "$runs" --b "perf record -q -o $work/p.data -- $program" \
	--a "$build/cli/ecp record -q -f -o $work/e.data -- $program" | grep -E 'wall|A/B'
if [ -n "${OLD_ECP:-}" ]; then
	echo "== ecp record (A) vs $OLD_ECP record (B), $program"
	python3 "$paired" --runs "$runs" --b "$OLD_ECP record -q -f -o $work/o.data -- $program" \
		--a "$build/cli/ecp record -q -f -o $work/e.data -- $program" | grep -E 'wall|A/B'
fi
