#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 31: a sampled recording's work T1 against the program's unrecorded
# CPU time, measured side by side (runs interleaved, medians), for real
# programs from Debian packages.  A measurement, not a test.
# usage: bench/validate/sampled-cpu.sh BUILD_DIR [RUNS]   (default 3)
# ECP_SAMPLE_FREQ=HZ records at that rate instead of ecp record's default.
set -euo pipefail
build=$(cd "${1:?usage: sampled-cpu.sh BUILD_DIR [RUNS]}" && pwd)
runs=${2:-3}
ecp=$build/cli/ecp
work=$(mktemp -d /tmp/ecp-sampled-cpu-XXXXXX)
trap 'rm -rf "$work"' EXIT
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')
head -c 4000000 /dev/urandom | base64 >"$work/input"

# CPU time (user + system, ns) of one unrecorded run, pinned as ecp pins.
plain() {
	{ TIMEFORMAT='%U %S'; time taskset -c "$cpu" "$@" >/dev/null 2>&1; } 2>&1 |
		awk '{ printf "%d\n", ($1 + $2) * 1e9 }'
}
# T1 of one recording, and the sample cost it measured.
recorded() {
	rm -rf "$work/t"
	"$ecp" record -q --cpu "$cpu" ${ECP_SAMPLE_FREQ:+--sample-freq "$ECP_SAMPLE_FREQ"} \
		-o "$work/t" -- "$@" >/dev/null 2>&1
	echo "$("$ecp" info --format json "$work/t" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["work_ns"])')" \
		"$(sed -n 's/^sample_cost_ns=//p' "$work/t/ecp-record.meta")"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

row() {
	local name=$1; shift
	: >"$work/p"; : >"$work/r"; : >"$work/c"
	for _ in $(seq "$runs"); do
		plain "$@" >>"$work/p"
		read -r t1 cost < <(recorded "$@")
		echo "$t1" >>"$work/r"; echo "$cost" >>"$work/c"
	done
	local p r c
	p=$(median <"$work/p"); r=$(median <"$work/r"); c=$(median <"$work/c")
	awk -v n="$name" -v p="$p" -v r="$r" -v c="$c" -v runs="$runs" 'BEGIN {
		printf "%-28s unrecorded %8.3f s  T1 %8.3f s  %+6.2f%%  (%.1f us per sample; medians of %d)\n",
			n, p / 1e9, r / 1e9, 100 * (r - p) / p, c / 1e3, runs }'
}

echo "# CPU $cpu; ${ECP_SAMPLE_FREQ:-the default} Hz; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
row "xz -T1 -6" xz -T1 -6 -c "$work/input"
row "zstd -19 -T1" zstd -19 -T1 -c "$work/input"
row "gzip -9" gzip -9 -c "$work/input"
