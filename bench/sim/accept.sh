#!/bin/bash
# SPDX-License-Identifier: MIT
# Acceptance study of the simulator (issue 5): for each example program,
# record it once on one core, predict T_1 and T_2 with both scheduler models
# (sim-predict), and measure the real wall time pinned to one core
# (taskset -c 0) and to two (taskset -c 0,1), median of REPS runs.
#
#     bench/sim/accept.sh BUILD_DIR [REPS]
#
# Prints a markdown table with the % error of each prediction.  Wants an
# otherwise idle machine; takes a few minutes.  The scales make every
# single-core run last a second or more so the scheduler has time to balance.
# The programs are those of traces/ plus bench/sim/sem-pipeline (the
# semaphore pipeline that motivates the Linux-like model).
# ECP_ACCEPT_PROGRAMS="name:scale ..." overrides the list.
set -euo pipefail
BUILD=${1:?usage: accept.sh BUILD_DIR [REPS]}
REPS=${2:-3}
ECP=$BUILD/cli/ecp
PRED=$BUILD/bench/sim/sim-predict
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ecp-accept.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

PROGRAMS="${ECP_ACCEPT_PROGRAMS:-fig1:3.5 fig4:1.2 watchdog:1.5 quicksort:2 nlargest:2 billing:1.2 pipeline:1.2 sem-pipeline:0.4}"

# On a shared machine other processes steal CPU time from the measured runs.
# With autogroups (sched_autogroup_enabled), CFS shares the CPUs between
# sessions first, so each measured run gets a session of its own whose group
# is at nice -20 (when permitted): against nice-0 sessions it gets ~99% of
# the CPUs it is pinned to, while its own threads still share by CFS.
# ECP_ACCEPT_PLAIN=1 measures without it.
PRIO=()
if [ -z "${ECP_ACCEPT_PLAIN:-}" ] && command -v setsid >/dev/null; then
	PRIO=(setsid -w sh -c 'echo -20 > /proc/self/autogroup 2>/dev/null; exec "$@"' sh)
fi

# "median min" wall times in ns of REPS runs of "$@" (the minimum shows
# how much interference the median still holds).
median_ns() {
	local i t0 t1 times=()
	for ((i = 0; i < REPS; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		times+=($((t1 - t0)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk -v k=$(((REPS + 1) / 2)) \
		'NR == 1 { min = $1 } NR == k { med = $1 } END { print med, min }'
}

pct() { awk -v p="$1" -v m="$2" 'BEGIN { printf "%+.1f%%", 100 * (p - m) / m }'; }
sec() { awk -v x="$1" 'BEGIN { printf "%.3f", x / 1e9 }'; }

echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg); $REPS runs each; errors against the median."
echo
echo "| program | scale | measured T1 s (min) | ideal T1 (err) | linux T1 (err) | measured T2 s (min) | ideal T2 (err) | linux T2 (err) | speedup measured / ideal / linux |"
echo "|---|---|---|---|---|---|---|---|---|"
for entry in $PROGRAMS; do
	name=${entry%%:*}
	scale=${entry##*:}
	prog=$BUILD/traces/$name
	[ -x "$prog" ] || prog=$BUILD/bench/sim/$name
	"$ECP" record -q -f -o "$WORK/$name.data" -- "$prog" --scale "$scale" --quiet >/dev/null
	read -r _ p1_ideal p1_linux < <("$PRED" "$WORK/$name.data" 1 | grep -v '^#')
	read -r _ p2_ideal p2_linux < <("$PRED" "$WORK/$name.data" 2 | grep -v '^#')
	read -r m1 min1 < <(median_ns "${PRIO[@]}" taskset -c 0 "$prog" --scale "$scale" --quiet)
	read -r m2 min2 < <(median_ns "${PRIO[@]}" taskset -c 0,1 "$prog" --scale "$scale" --quiet)
	speed=$(awk -v m1="$m1" -v m2="$m2" -v i1="$p1_ideal" -v i2="$p2_ideal" \
		-v l1="$p1_linux" -v l2="$p2_linux" \
		'BEGIN { printf "%.2f / %.2f / %.2f", m1 / m2, i1 / i2, l1 / l2 }')
	echo "| $name | $scale | $(sec "$m1") ($(sec "$min1")) | $(sec "$p1_ideal") ($(pct "$p1_ideal" "$m1")) |" \
	     "$(sec "$p1_linux") ($(pct "$p1_linux" "$m1")) | $(sec "$m2") ($(sec "$min2")) |" \
	     "$(sec "$p2_ideal") ($(pct "$p2_ideal" "$m2")) | $(sec "$p2_linux") ($(pct "$p2_linux" "$m2")) | $speed |"
done
echo
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
