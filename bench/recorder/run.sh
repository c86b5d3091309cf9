#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cost of `ecp record`: per call, per event and overhead ratios, all on one
# CPU.  usage: bench/recorder/run.sh BUILD_DIR [CALLS]
#   BENCH_CPU=N   CPU to run on (default: the first of this shell's mask)
#   REPEAT=N      runs per figure, the best is kept (default 3)
#   EVERY_CALLS=N calls for the every-call-recorded run (default 2000000)
#
# Each program runs unrecorded (`taskset -c CPU`) and recorded (`ecp record
# --cpu CPU`).  Two measures: wall time (the metadata's `wall_ns`: the
# program's own run, not the session set-up) and the program's CPU time
# (user + system of all its threads; `program_cpu_ns`).  On a shared machine
# CPU time is the robust one: other processes on the CPU inflate wall time
# but not the program's own CPU time.  The LTTng consumer daemon's work is in
# neither (it runs in its own process, on any CPU).  ns/call and ns/event
# are computed from CPU time.
set -euo pipefail

build=$(cd "${1:?usage: run.sh BUILD_DIR [CALLS]}" && pwd)
calls=${2:-10000000}
every_calls=${EVERY_CALLS:-2000000}
repeat=${REPEAT:-3}
ecp=$build/cli/ecp
b=$build/bench/recorder
cpu=${BENCH_CPU:-$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')}
work=$(mktemp -d /tmp/ecp-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT

# One unrecorded run: "wall cpu" in ns.
plain_once() {
	{ TIMEFORMAT='%R %U %S'; time taskset -c "$cpu" "$@" >/dev/null 2>&1; } 2>&1 |
		awk '{ printf "%d %d\n", $1 * 1e9, ($2 + $3) * 1e9 }'
}

# One recorded run: "wall cpu events" (the program's own events).
recorded_once() {
	rm -rf "$work/trace"
	"$ecp" record -f --cpu "$cpu" -o "$work/trace" "${REC_ARGS[@]}" -- "$@" \
		>/dev/null 2>"$work/summary"
	# the summary: "N threads, M events, D discarded, ..." (M counts the
	# few hundred scheduling records too: under 0.01% of a call-dense run)
	grep -q ' events, 0 discarded,' "$work/summary" || { cat "$work/summary" >&2; exit 1; }
	echo "$(sed -n 's/^wall_ns=//p' "$work/trace/ecp-record.meta")" \
		"$(sed -n 's/^program_cpu_ns=//p' "$work/trace/ecp-record.meta")" \
		"$(sed -n 's/.* \([0-9]*\) events, [0-9]* discarded,.*/\1/p' "$work/summary")"
}

# Unrecorded and recorded runs interleaved REPEAT times (so that a change of
# load hits both alike); the best of each: "pw pc rw rc events".  The
# unrecorded run uses $PLAIN_EXE instead of the program when set.
measure() {
	local pw= pc= rw= rc= ev= w c e
	for _ in $(seq "$repeat"); do
		read -r w c < <(plain_once "${PLAIN_EXE:-$1}" "${@:2}")
		if [ -z "$pw" ] || [ "$w" -lt "$pw" ]; then pw=$w; fi
		if [ -z "$pc" ] || [ "$c" -lt "$pc" ]; then pc=$c; fi
		read -r w c e < <(recorded_once "$@")
		if [ -z "$rw" ] || [ "$w" -lt "$rw" ]; then rw=$w; fi
		if [ -z "$rc" ] || [ "$c" -lt "$rc" ]; then rc=$c; ev=$e; fi
	done
	echo "$pw $pc $rw $rc $ev"
}

ms() { awk -v a="$1" 'BEGIN { printf "%.1f", a / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.1f", (a - b) / n }'; }

row() { # name plain_wall plain_cpu rec_wall rec_cpu calls events
	local pc=- pe=-
	[ "$6" = - ] || pc=$(per "$5" "$3" "$6")
	[ "$7" = - ] || pe=$(per "$5" "$3" "$7")
	printf '%-36s %9s %9s %7s %9s %9s %7s %8s %8s\n' "$1" "$(ms "$2")" "$(ms "$4")" \
		"$(ratio "$4" "$2")" "$(ms "$3")" "$(ms "$5")" "$(ratio "$5" "$3")" "$pc" "$pe"
}

echo "# ecp record cost on CPU $cpu of $(nproc); load at start $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-36s %9s %9s %7s %9s %9s %7s %8s %8s\n' program wall_ms rec_wall x cpu_ms rec_cpu x \
	ns/call ns/event

# (a) call-dense, every call recorded (fewer calls: 2 events each)
# (the baseline is the uninstrumented build)
REC_ARGS=(--min-duration 0)
read -r pw pc rw rc re < <(PLAIN_EXE=$b/calldense-plain measure "$b/calldense" "$every_calls")
row "calldense $every_calls, every call" "$pw" "$pc" "$rw" "$rc" "$every_calls" "$re"
# its trace's size: the CTF bytes of main/ per function event (2 a call)
read -r _ _ _ < <(recorded_once "$b/calldense" "$every_calls")
every_bytes=$(du -sb "$work/trace/main" | cut -f1)

# (a) call-dense, default filters (short calls folded in the agent)
REC_ARGS=()
read -r pw pc rw rc re < <(PLAIN_EXE=$b/calldense-plain measure "$b/calldense" "$calls")
row "calldense $calls, default filters" "$pw" "$pc" "$rw" "$rc" "$calls" -

# uftrace on the same program built with -pg, pinned the same way (its
# writer threads share the CPU; its CPU time includes them)
if command -v uftrace >/dev/null; then
	uw= uc=
	for _ in $(seq "$repeat"); do
		read -r w c < <(plain_once uftrace record -d "$work/uftrace.data" \
			"$b/calldense-pg" "$calls")
		if [ -z "$uw" ] || [ "$w" -lt "$uw" ]; then uw=$w; fi
		if [ -z "$uc" ] || [ "$c" -lt "$uc" ]; then uc=$c; fi
	done
	row "calldense $calls, uftrace record" "$pw" "$pc" "$uw" "$uc" "$calls" -
	uftrace_bytes=$(du -sb "$work/uftrace.data" | cut -f1)
fi
# the trace's bytes per record, ecp's (every call) and uftrace's
awk -v b="$every_bytes" -v n="$every_calls" 'BEGIN {
	printf "# every call recorded: %.1f bytes per function event (%d bytes of main/)\n",
		b / (2 * n), b }'
if [ -n "${uftrace_bytes:-}" ]; then
	awk -v b="$uftrace_bytes" -v n="$calls" 'BEGIN {
		printf "# uftrace record: %.1f bytes per record (%d bytes of uftrace.data)\n",
			b / (2 * n), b }'
fi

# Sampling side by side (issue 31): the uninstrumented build sampled by
# `ecp record` at its default 3 kHz, and by `perf record --call-graph dwarf`
# at the same rate (8 KiB stacks, as ecp), pinned the same way.  perf's
# figure is its whole command (its own process included, as uftrace's);
# ecp's is the program's (the driver and LTTng's daemons run apart).
REC_ARGS=(--functions sample)
read -r pw pc rw rc re < <(measure "$b/calldense-plain" "$calls")
row "calldense-plain $calls, ecp sampled" "$pw" "$pc" "$rw" "$rc" - -
if command -v perf >/dev/null; then
	fw= fc=
	for _ in $(seq "$repeat"); do
		read -r w c < <(plain_once perf record -q -F 3000 --call-graph dwarf,8192 \
			-o "$work/perf.data" -- "$b/calldense-plain" "$calls")
		if [ -z "$fw" ] || [ "$w" -lt "$fw" ]; then fw=$w; fi
		if [ -z "$fc" ] || [ "$c" -lt "$fc" ]; then fc=$c; fi
	done
	row "calldense-plain $calls, perf record" "$pw" "$pc" "$fw" "$fc" - -
fi

# (b) mutex ping-pong: synchronization events only
REC_ARGS=()
read -r pw pc rw rc re < <(measure "$b/pingpong" 100000)
row "pingpong 100000 rounds" "$pw" "$pc" "$rw" "$rc" - "$re"

# (c) the coarse-grained example programs (traces/), as built there
for p in fig1 fig4 watchdog quicksort nlargest billing pipeline; do
	exe=$build/traces/$p
	[ -x "$exe" ] || continue
	REC_ARGS=()
	read -r pw pc rw rc re < <(measure "$exe" --quiet)
	row "$p" "$pw" "$pc" "$rw" "$rc" - -
done

# (d) the same programs built without -finstrument-functions: `ecp record`
# samples them (issue 18, default rate); baseline the same binary unrecorded
for p in fig1 fig4 watchdog quicksort nlargest billing pipeline; do
	exe=$build/traces/plain-$p
	[ -x "$exe" ] || continue
	REC_ARGS=()
	read -r pw pc rw rc re < <(measure "$exe" --quiet)
	row "$p, uninstrumented, sampled" "$pw" "$pc" "$rw" "$rc" - -
done

# (e) the cost of one sample on the recording CPU: a CPU-bound program
# recorded with samples at 20 kHz and without (--no-functions), runs
# interleaved; (CPU with - CPU without) / samples, best of each
sw= sc= nw= nc= ns=
for _ in $(seq "$repeat"); do
	REC_ARGS=(--functions sample --sample-freq 20000)
	read -r w c e < <(recorded_once "$b/calldense-plain" "$calls")
	n=$(sed -n 's/^samples=//p' "$work/trace/ecp-record.meta")
	if [ -z "$sc" ] || [ "$c" -lt "$sc" ]; then sw=$w; sc=$c; ns=$n; fi
	REC_ARGS=(--no-functions)
	read -r w c e < <(recorded_once "$b/calldense-plain" "$calls")
	if [ -z "$nc" ] || [ "$c" -lt "$nc" ]; then nw=$w; nc=$c; fi
done
printf '%-36s %9s %9s %7s %9s %9s %7s %8s %8s\n' "calldense-plain, 20 kHz samples" \
	"$(ms "$nw")" "$(ms "$sw")" "$(ratio "$sw" "$nw")" "$(ms "$nc")" "$(ms "$sc")" \
	"$(ratio "$sc" "$nc")" - "$(per "$sc" "$nc" "$ns")"
echo "# last row: baseline = recorded without samples; ns/event = ns per sample ($ns samples)"
