#!/usr/bin/env bash
# The README's first command: install dependencies, build, record the bundled
# parallel quicksort (the paper's Sec. 4.1) on one CPU and show which
# functions matter at 6 processors.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
meson compile -C build >/dev/null
out=$(mktemp -d)/quicksort.data
echo "== recording build/traces/quicksort on one CPU into $out"
build/cli/ecp record -o "$out" -- build/traces/quicksort
echo
echo "== which functions matter at 6 processors"
build/cli/ecp report "$out" -P 6 --top 10
