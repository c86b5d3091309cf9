#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first command: install the dependencies, build, install ecp
# and its man pages under PREFIX (default /usr/local, whose bin/ is on
# Debian's default PATH), then record the bundled parallel quicksort (the
# paper's Sec. 4.1) on one CPU with the installed ecp and show which
# functions matter at 6 processors.
#
#     bash scripts/quickstart.sh [PREFIX]
#
# Each step prints a line before it starts, so that the minute of apt-get
# and compiling is not silent; the compiler's own output goes to
# build/quickstart-compile.log and is shown only when the build fails.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
start=$SECONDS
step() { printf '== [%3ds] %s\n' $((SECONDS - start)) "$*"; }

step "installing the Debian packages listed in scripts/install-deps.sh (apt-get)"
bash scripts/install-deps.sh

if [ -f build/build.ninja ]; then
	step "configuring the existing build/ for prefix $prefix"
	meson configure build --prefix="$prefix" >/dev/null
else
	step "configuring build/ with Meson, prefix $prefix"
	meson setup build --prefix="$prefix" >/dev/null
fi

step "compiling (warnings are errors; a progress line every 25 steps)"
log=build/quickstart-compile.log
# ninja's "[12/212] Compiling ..." lines, reduced to a count every 25 steps.
if ! meson compile -C build 2>&1 | tee "$log" |
	awk -F'[][/]' '/^\[[0-9]+\/[0-9]+\]/ { if ($2 % 25 == 0 || $2 == $3) printf "   %s/%s\n", $2, $3; fflush() }'; then
	echo "quickstart: the build failed; the end of $log:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi

step "installing ecp, its recording agent and man pages under $prefix"
$SUDO meson install -C build --quiet --no-rebuild
ecp="$prefix/bin/ecp"
echo "   $ecp"
echo "   $prefix/share/man/man1/ecp.1 and one page per command (man ecp-report, ...)"
if [ "$(command -v ecp || true)" != "$ecp" ]; then
	echo "   note: $prefix/bin is not first on your PATH; add it to type 'ecp':"
	echo "         export PATH=$prefix/bin:\$PATH"
fi
if ! man -w ecp >/dev/null 2>&1; then
	echo "   note: 'man ecp' does not find the page; add it with:"
	echo "         export MANPATH=$prefix/share/man:"
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/ecp-quickstart-XXXXXX")/quicksort.data
step "recording build/traces/quicksort on one CPU into $out"
"$ecp" record -o "$out" -- build/traces/quicksort

step "which functions matter at 6 processors: ecp report $out -P 6 --top 10"
"$ecp" report "$out" -P 6 --top 10
echo
step "done; try: ecp scan $out -P 1-8   and   man ecp"
