#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The first analysis of a sampled recording (issue 35): `ecp report -P 2` on
# an `ecp record --functions sample` trace, its model cache removed before
# each run (decode, check of the streams, unwinding, model), against `perf
# report --stdio` on a `perf record --call-graph dwarf,8192` recording of the
# same program at the same frequency (the peer: decode and unwind, each
# sample's 8 KiB of stack), run in turn by bench/paired.py so that the
# ratio is taken pair by pair on this machine's drifting speed.
#   usage: bench/recorder/sampled-analysis.sh BUILD_DIR [RUNS] [-- PROGRAM ARGS...]
# The default program is xz -T2 -2 on 24 MB of base64 text, on one CPU.
set -euo pipefail
build=$(cd "${1:?usage: sampled-analysis.sh BUILD_DIR [RUNS] [-- PROGRAM ARGS...]}" && pwd)
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d /tmp/ecp-sampled-XXXXXX)
trap 'rm -rf "$work"' EXIT
paired=$(dirname "$0")/../paired.py
for tool in perf xz; do
	command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 77; }
done
if [ $# -eq 0 ]; then
	head -c 18000000 /dev/urandom | base64 > "$work/in.txt"
	set -- xz -T2 -2 -c "$work/in.txt"
fi
"$build/cli/ecp" record -q --functions sample --sample-freq 3000 -o "$work/e" -- "$@" > /dev/null
perf record -q --call-graph dwarf,8192 -F 3000 -o "$work/p.data" -- taskset -c 0 "$@" > /dev/null
du -sh "$work/e/sched" "$work/p.data"
echo "== ecp report -P 2, first analysis (A) vs perf report --stdio (B)"
python3 "$paired" --runs "$runs" \
	--b "exec perf report -i $work/p.data --stdio >/dev/null 2>&1" \
	--a "rm -f $work/e/ecp-model.cache; exec $build/cli/ecp report -P 2 $work/e >/dev/null 2>&1" |
	grep -E 'cpu|wall|peak|A/B'
