#!/bin/sh
# SPDX-License-Identifier: MIT
# Sync-heavy traces (issue 35): a mutex/condvar ping-pong recorded with
# `ecp record --no-functions` (two segments per five events, nothing but
# hand-offs), then
#   - the model cache's size against the trace's CTF (main + sched),
#   - building the model from CTF (in process, bench-model) against
#     `babeltrace2 -o dummy` on the same streams: CPU time and peak memory
#     growth per event,
#   - `ecp scan -P 1-64` from the cache: peak RSS and CPU time.
# With OLD_ECP=path (another build's ecp), its cache and its scan are
# measured too, the scans run in turn with this build's (A B A B ...), and
# both builds' scan and report outputs are compared byte for byte.
# CPU times are user + sys (the machine may be shared); quote medians.
# usage: bench/model/sync.sh BUILD_DIR [ROUNDS (500000)] [REPEAT (3)]
set -eu
build=$(cd "${1:?usage: sync.sh BUILD_DIR [ROUNDS] [REPEAT]}" && pwd)
rounds=${2:-500000}
repeat=${3:-3}
ecp=$build/cli/ecp
dir=$(mktemp -d "${TMPDIR:-/tmp}/ecp-bench-sync.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# CPU seconds (user + sys) and peak KB of a command, as "cpu kb"
measure() {
	/usr/bin/time -f '%U %S %M' -o "$dir/time" "$@" >"$dir/out" 2>/dev/null
	awk '{printf "%.3f %d\n", $1 + $2, $3}' "$dir/time"
}

"$ecp" record -q --no-functions -o "$dir/new" -- \
	"$build/bench/recorder/pingpong" "$rounds" >/dev/null
rm -f "$dir/new/ecp-model.cache"
ctf=$(find "$dir/new/main" "$dir/new/sched" -type f -printf '%s\n' |
	awk '{s += $1} END {print s}')
if [ -n "${OLD_ECP:-}" ]; then
	cp -a "$dir/new" "$dir/old"
	"$OLD_ECP" info "$dir/old" >/dev/null
fi
"$ecp" info "$dir/new" >"$dir/info"
events=$(awk '$1 == "events" {print $2}' "$dir/info")
segments=$(awk '$1 == "segments" {print $2}' "$dir/info")
echo "pingpong $rounds rounds: $events events, $segments segments, CTF $ctf bytes"
cache=$(stat -c %s "$dir/new/ecp-model.cache")
awk -v c="$cache" -v t="$ctf" 'BEGIN {printf "cache            %d bytes = %.2fx the CTF\n", c, c / t}'
if [ -n "${OLD_ECP:-}" ]; then
	old=$(stat -c %s "$dir/old/ecp-model.cache")
	awk -v c="$old" -v t="$ctf" 'BEGIN {printf "cache (OLD_ECP)  %d bytes = %.2fx the CTF\n", c, c / t}'
fi

# model build against babeltrace2, in turn
: >"$dir/bt" && : >"$dir/bm"
for i in $(seq "$repeat"); do
	measure babeltrace2 -o dummy "$dir/new/main" "$dir/new/sched" >>"$dir/bt"
	cp -a "$dir/new" "$dir/bm-trace"
	"$build/bench/model/bench-model" "$dir/bm-trace" >"$dir/bm-out"
	rm -rf "$dir/bm-trace"
	awk '/^from CTF/ {c = $3} /^peak RSS growth/ {g = $4} END {print c, g}' \
		"$dir/bm-out" >>"$dir/bm"
done
bt=$(cut -d' ' -f1 "$dir/bt" | median)
bm=$(cut -d' ' -f1 "$dir/bm" | median)
growth=$(cut -d' ' -f2 "$dir/bm" | median)
awk -v a="$bm" -v b="$bt" -v g="$growth" 'BEGIN {
	printf "babeltrace2 -o dummy (main + sched) %.3f s CPU (median)\n", b
	printf "CTF -> model (in process)           %.3f s CPU = %.2fx babeltrace2\n", a, a / b
	printf "peak RSS growth while building      %.1f bytes/event\n", g }'

# scan -P 1-64 from the cache (written above), in turn with OLD_ECP's
: >"$dir/scan-new" && : >"$dir/scan-old"
for i in $(seq "$repeat"); do
	measure "$ecp" scan -P 1-64 --format json "$dir/new" >>"$dir/scan-new"
	sed "s|$dir/new|TRACE|g" "$dir/out" >"$dir/scan-new.json"
	if [ -n "${OLD_ECP:-}" ]; then
		measure "$OLD_ECP" scan -P 1-64 --format json "$dir/old" >>"$dir/scan-old"
		sed "s|$dir/old|TRACE|g" "$dir/out" >"$dir/scan-old.json"
	fi
done
for who in new old; do
	[ -s "$dir/scan-$who" ] || continue
	cpu=$(cut -d' ' -f1 "$dir/scan-$who" | median)
	kb=$(cut -d' ' -f2 "$dir/scan-$who" | median)
	label=$([ $who = new ] && echo "scan -P 1-64" || echo "scan (OLD_ECP)")
	awk -v l="$label" -v c="$cpu" -v k="$kb" 'BEGIN {
		printf "%-16s %.3f s CPU, peak RSS %.3f GB (medians)\n", l, c, k * 1024 / 1e9 }'
done
if [ -n "${OLD_ECP:-}" ]; then
	cmp -s "$dir/scan-new.json" "$dir/scan-old.json" &&
		echo "scan --format json: identical" ||
		{ echo "scan --format json: DIFFERENT"; diff "$dir/scan-old.json" "$dir/scan-new.json" | head; }
	"$ecp" report "$dir/new" 2>/dev/null | sed "s|$dir/new|TRACE|g" >"$dir/report-new"
	"$OLD_ECP" report "$dir/old" 2>/dev/null | sed "s|$dir/old|TRACE|g" >"$dir/report-old"
	cmp -s "$dir/report-new" "$dir/report-old" &&
		echo "report: identical" || echo "report: DIFFERENT"
fi
