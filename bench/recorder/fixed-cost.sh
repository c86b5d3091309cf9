#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fixed cost of a recording (issue 35): `ecp record -q -- /bin/true`
# against `perf record -q -- /bin/true` (the peer: a recording with no
# program time to speak of), run in turn by bench/paired.py so that the
# ratio is taken pair by pair on this machine's drifting speed.
#   usage: bench/recorder/fixed-cost.sh BUILD_DIR [RUNS]
# A second ecp (OLD_ECP=path) is compared the same way, for a before/after.
set -euo pipefail
build=$(cd "${1:?usage: fixed-cost.sh BUILD_DIR [RUNS]}" && pwd)
runs=${2:-7}
work=$(mktemp -d /tmp/ecp-fixed-XXXXXX)
trap 'rm -rf "$work"' EXIT
paired=$(dirname "$0")/../paired.py
echo "== ecp record (A) vs perf record (B), /bin/true"
python3 "$paired" --runs "$runs" --b "perf record -q -o $work/p.data -- /bin/true" \
	--a "$build/cli/ecp record -q -f -o $work/e.data -- /bin/true" | grep -E 'wall|A/B'
if [ -n "${OLD_ECP:-}" ]; then
	echo "== ecp record (A) vs $OLD_ECP record (B), /bin/true"
	python3 "$paired" --runs "$runs" --b "$OLD_ECP record -q -f -o $work/o.data -- /bin/true" \
		--a "$build/cli/ecp record -q -f -o $work/e.data -- /bin/true" | grep -E 'wall|A/B'
fi
