#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sampling without recompiling against instrumentation (issue 18), as a
# measurement: RUNS times per example, tests/examples/sampled.py --cross
# records the instrumented build with both sources (same-run comparison), the
# uninstrumented build sampled, and the instrumented build as a user records
# it, and compares the uninstrumented build's top function by TET at
# P = 1, 2, 4, 8 with the instrumented build's -- two different runs, which
# is why this is not in the test suite (this machine's speed changes 2-3x
# between runs).  Prints each run's verdict and a tally.
# usage: bench/validate/sampled.sh BUILD_DIR [RUNS] [SCALE]
set -u
build=$(cd "${1:?usage: sampled.sh BUILD_DIR [RUNS] [SCALE]}" && pwd)
runs=${2:-5}
scale=${3:-0.2}
src=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 total=0
for ex in fig1 fig4 watchdog quicksort nlargest billing pipeline; do
	for _ in $(seq "$runs"); do
		total=$((total + 1))
		if ECP=$build/cli/ecp python3 "$src/tests/examples/sampled.py" --cross "$ex" \
			"$build/traces/$ex" "$build/traces/plain-$ex" "$scale"; then
			pass=$((pass + 1))
		fi
	done
done
echo "# $pass of $total runs agreed (same run and across builds)"
