#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Memcheck over the recorder end to end and over every analysis command
# (issue 10).  The recorded program runs under memcheck too, with the agent
# preloaded into it: memcheck's own exit code (8) passes through
# `ecp record` as the program's status.  LTTng-UST's threads leave
# "possibly lost" blocks at exit that are not ours: only definite leaks and
# memory errors count.
set -euo pipefail
build=${1:-build}
ecp="$PWD/$build/cli/ecp"
vg=(valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v valgrind >/dev/null; then echo "valgrind not installed"; exit 1; fi

echo "-- ecp record under memcheck, recording fig1 under memcheck"
# (the trace of that run holds the valgrind launcher's exec as well, so it is
# only checked for the exit status; the analysis runs on a plain recording)
st=0
"${vg[@]}" "$ecp" record -q -o "$tmp/vg.data" -- \
	valgrind -q --error-exitcode=8 --leak-check=full --errors-for-leak-kinds=definite \
	"$PWD/$build/traces/fig1" --scale 0.02 --quiet || st=$?
if [ "$st" -ne 0 ]; then echo "FAIL: exit $st (9: ecp record, 8: the agent in the program)"; exit 1; fi

"$ecp" record -q -o "$tmp/fig1.data" -- "$PWD/$build/traces/fig1" --scale 0.02 --quiet
# uninstrumented: sampled, the samples unwound with libdw during the analysis
"$ecp" record -q -o "$tmp/plain.data" -- "$PWD/$build/traces/plain-fig1" --scale 0.05 --quiet

echo "-- analysis commands under memcheck"
cp -r traces/samples/billing "$tmp/billing"
# the watchdog sleeps: its weights take the exact re-simulation path
cp -r traces/samples/watchdog "$tmp/watchdog"
for args in "info --format json" "report -P 3" "scan -P 1-4 --sched linux" \
	"whatif --faster main=20 -P 1-4" "viz -P 3 --range 1-4 -o $tmp/r.html" \
	"export -P 3 --format perfetto -o $tmp/p.json" "export -P 3 --format folded -o -" \
	"report -P 2 --by callsite --own-code"; do
	for trace in "$tmp/billing" "$tmp/watchdog" "$tmp/fig1.data" "$tmp/plain.data"; do
		# shellcheck disable=SC2086
		"${vg[@]}" "$ecp" ${args%% *} "$trace" ${args#* } >/dev/null 2>"$tmp/err" ||
			{ echo "FAIL: ecp $args $trace"; cat "$tmp/err"; exit 1; }
	done
	echo "ok: ecp $args"
done
echo "valgrind checks passed"
