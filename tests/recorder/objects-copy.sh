#!/bin/sh
# SPDX-License-Identifier: MIT
# A trace keeps a copy of the recorded executable (DIR/objects/), so its
# functions are named after the program is gone (a clean clone, another
# machine, a rebuild).
set -u
ECP=${ECP:?}
prog=${1:?usage: objects-copy.sh FIG1_PROGRAM}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$prog" "$tmp/fig1-copy"
"$ECP" record -q -o "$tmp/t.data" -- "$tmp/fig1-copy" --scale 0.05 --quiet >/dev/null 2>&1 || {
	st=$?; [ "$st" -eq 77 ] && exit 77; echo "FAIL: record exited $st"; exit 1; }
[ -f "$tmp/t.data/objects/fig1-copy" ] || { echo "FAIL: no objects/fig1-copy in the trace"; exit 1; }
rm "$tmp/fig1-copy"
out=$("$ECP" report "$tmp/t.data" -P 1 --format csv 2>&1) || { echo "FAIL: report: $out"; exit 1; }
for f in a b c d; do
	echo "$out" | grep -q "^$f," || { echo "FAIL: function $f not named without the program"; echo "$out"; exit 1; }
done
echo "ok: names resolved from the trace's own copy"
