#!/bin/sh
# SPDX-License-Identifier: MIT
# Renders the synthetic HTML report in headless Chromium: a screenshot checked
# for non-trivial content, and the DOM after the script ran checked for the
# five parts, the zoom (through a #t= link) and the absence of injected markup.
#
# usage: html-chromium.sh VIZ_SAMPLE CHECK_PNG_PY
# Skips (77) without Chromium (Debian package `chromium`).  Set
# ECP_VIZ_KEEP=DIR to keep the report and the screenshot.
set -eu
sample=$1
check_png=$2
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	echo "chromium not installed: skipping"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$sample" html "$tmp/report.html"

run_chromium() {
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$profile" "$@" 2>"$tmp/chromium.log"
}

fail() {
	echo "FAIL: $*"
	exit 1
}

# 1. Screenshot.
run_chromium --screenshot="$tmp/report.png" --window-size=1400,2400 \
	"file://$tmp/report.html" >/dev/null || fail "chromium screenshot failed: $(tail -3 "$tmp/chromium.log")"
[ -s "$tmp/report.png" ] || fail "no screenshot written"
python3 "$check_png" "$tmp/report.png" 1400 2400

# 2. The DOM once the script has run.
run_chromium --dump-dom "file://$tmp/report.html" >"$tmp/dom.html" ||
	fail "chromium --dump-dom failed"
grep -q 'data-ecp-ready="1"' "$tmp/dom.html" || fail "the report's script did not run to the end"
for id in gantt parallelism tet-vs-p speedup functions; do
	grep -q "<section id=\"$id\"" "$tmp/dom.html" || fail "section #$id missing"
done
[ "$(grep -o '<script' "$tmp/dom.html" | wc -l)" -eq 1 ] || fail "more than one script element"
grep -q '&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/dom.html" ||
	fail "the hostile function name is not shown escaped"
grep -q 'std::vector&lt;int, std::allocator&lt;int&gt; &gt;::push_back' "$tmp/dom.html" ||
	fail "the C++ name is not shown escaped"
if grep -q '<b>worker-4</b>' "$tmp/dom.html"; then
	fail "a thread name was parsed as markup"
fi
bars=$(grep -o 'data-s="' "$tmp/dom.html" | wc -l)
[ "$bars" -ge 20 ] || fail "only $bars Gantt bars in the DOM"
grep -q '<th class="name" data-t="text">function</th>' "$tmp/dom.html" || fail "no sortable table"

# 3. Zoom: a link to a time window zooms the Gantt and redraws its axis.
run_chromium --dump-dom "file://$tmp/report.html#t=20000000-30000000" >"$tmp/zoom.html" ||
	fail "chromium --dump-dom (zoomed) failed"
grep -q 'id="gantt-bars" transform="translate(-[0-9.]*,0) scale([0-9.]*,1)"' "$tmp/zoom.html" ||
	fail "the Gantt did not zoom"
grep -q 'id="zinfo">showing 20 ms' "$tmp/zoom.html" || fail "the zoomed window is not stated"

if [ -n "${ECP_VIZ_KEEP:-}" ]; then
	mkdir -p "$ECP_VIZ_KEEP"
	cp "$tmp/report.html" "$tmp/report.png" "$ECP_VIZ_KEEP/"
fi
echo "html report ok: $bars bars, five sections, script ran, names escaped"
