#!/bin/sh
# SPDX-License-Identifier: MIT
# Model-building benchmark (issue 4): generates a synthetic recording of
# EVENTS events (default 10 M), times `babeltrace2 -o dummy` on it, then
# bench-model (CTF -> model, cache -> model, memory per event).
# usage: bench/model/run.sh [BUILD_DIR] [EVENTS]
set -eu
build=${1:-build}
events=${2:-10000000}
dir=${TMPDIR:-/tmp}/ecp-bench-model.$$
trap 'rm -rf "$dir"' EXIT INT TERM
"$build/bench/model/gen-trace" "$dir" "$events"
du -sh "$dir/main" | sed 's/^/trace size /'
# CPU time (user+sys): the machine may be shared, wall time would measure
# the neighbours.
/usr/bin/time -f "babeltrace2 -o dummy (main trace): %U s user + %S s sys, %e s wall" \
	babeltrace2 -o dummy "$dir/main"
"$build/bench/model/bench-model" "$dir"
echo "--- keeping every call (timelines, folded stacks):"
"$build/bench/model/bench-model" "$dir" --calls
