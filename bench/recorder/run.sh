#!/usr/bin/env bash
# Cost of `ecp record`: per call, per event and overhead ratios, all on one
# CPU.  usage: bench/recorder/run.sh BUILD_DIR [CALLS]
#
# Every figure compares the program's wall time inside `ecp record` (the
# `wall_ns` of the trace's metadata: the program's own run, not the session
# set-up) with the same program run unrecorded with `taskset` on the same CPU.
# The best of REPEAT runs is kept for each, to damp the noise of a shared
# machine.  Results go to stdout as a table.
set -euo pipefail

build=$(cd "${1:?usage: run.sh BUILD_DIR [CALLS]}" && pwd)
calls=${2:-10000000}
every_calls=${EVERY_CALLS:-2000000}   # every call recorded: 2 events per call, ~35 B each
repeat=${REPEAT:-3}
ecp=$build/cli/ecp
b=$build/bench/recorder
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')
work=$(mktemp -d /tmp/ecp-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }

# best wall time (ns) of an unrecorded run
plain() {
	local best= t0 t1
	for _ in $(seq "$repeat"); do
		t0=$(now); taskset -c "$cpu" "$@" >/dev/null; t1=$(now)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then best=$((t1 - t0)); fi
	done
	echo "$best"
}

# best recorded wall time (ns) and the event count of that run
recorded() {
	local best= events= w e
	for _ in $(seq "$repeat"); do
		rm -rf "$work/trace"
		"$ecp" record -f --cpu "$cpu" -o "$work/trace" "${REC_ARGS[@]}" -- "$@" \
			>/dev/null 2>"$work/summary"
		w=$(sed -n 's/^wall_ns=//p' "$work/trace/ecp-record.meta")
		e=$(sed -n 's/.* \([0-9]*\) events,.*/\1/p' "$work/summary")
		grep -q ' 0 discarded events' "$work/summary" || { cat "$work/summary" >&2; exit 1; }
		if [ -z "$best" ] || [ "$w" -lt "$best" ]; then best=$w; events=$e; fi
	done
	echo "$best $events"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.1f", (a - b) / n }'; }

echo "# ecp record cost on CPU $cpu, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %12s %12s %9s %10s %10s\n' program plain_ms recorded_ms ratio ns/call ns/event

# (a) call-dense, every call recorded (fewer calls: 2 events each)
base=$(plain "$b/calldense-plain" "$every_calls")
REC_ARGS=(--min-duration 0)
read -r w e < <(recorded "$b/calldense" "$every_calls")
printf '%-34s %12.1f %12.1f %9s %10s %10s\n' "calldense $every_calls, every call" \
	"$(ratio "$base" 1e6)" "$(ratio "$w" 1e6)" "$(ratio "$w" "$base")" \
	"$(per "$w" "$base" "$every_calls")" "$(per "$w" "$base" "$e")"

# (a) call-dense, default filters (short calls folded in the agent)
base=$(plain "$b/calldense-plain" "$calls")
REC_ARGS=()
read -r w e < <(recorded "$b/calldense" "$calls")
printf '%-34s %12.1f %12.1f %9s %10s %10s\n' "calldense $calls, default filters" \
	"$(ratio "$base" 1e6)" "$(ratio "$w" 1e6)" "$(ratio "$w" "$base")" \
	"$(per "$w" "$base" "$calls")" "-"

# uftrace on the same program (built with -pg), same CPU
if command -v uftrace >/dev/null; then
	best=
	for _ in $(seq "$repeat"); do
		rm -rf "$work/uftrace.data"
		t0=$(now)
		taskset -c "$cpu" uftrace record -d "$work/uftrace.data" "$b/calldense-pg" "$calls" >/dev/null
		t1=$(now)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then best=$((t1 - t0)); fi
	done
	printf '%-34s %12.1f %12.1f %9s %10s %10s\n' "calldense $calls, uftrace record" \
		"$(ratio "$base" 1e6)" "$(ratio "$best" 1e6)" "$(ratio "$best" "$base")" \
		"$(per "$best" "$base" "$calls")" "-"
fi

# (b) mutex ping-pong: synchronization events only
base=$(plain "$b/pingpong" 100000)
REC_ARGS=()
read -r w e < <(recorded "$b/pingpong" 100000)
printf '%-34s %12.1f %12.1f %9s %10s %10s\n' "pingpong 100000 rounds" \
	"$(ratio "$base" 1e6)" "$(ratio "$w" 1e6)" "$(ratio "$w" "$base")" "-" \
	"$(per "$w" "$base" "$e")"

# (c) the coarse-grained example programs (traces/), as built there
for p in fig1 fig4 watchdog quicksort nlargest billing pipeline; do
	exe=$build/traces/$p
	[ -x "$exe" ] || continue
	base=$(plain "$exe" --quiet)
	REC_ARGS=()
	read -r w e < <(recorded "$exe" --quiet)
	printf '%-34s %12.1f %12.1f %9s %10s %10s\n' "$p" \
		"$(ratio "$base" 1e6)" "$(ratio "$w" 1e6)" "$(ratio "$w" "$base")" "-" "-"
done
