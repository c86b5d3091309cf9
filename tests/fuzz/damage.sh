#!/bin/sh
# SPDX-License-Identifier: MIT
# The damage campaign (tests/fuzz/damage.py) over the committed instrumented
# and synchronisation-heavy samples and, where `ecp record` runs here, a
# sampled recording made now: N cases, their counts asserted.
set -u
: "${ECP:?}" "${SRC:?}" "${PLAIN:?}" "${N:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecp-damage-rec.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
traces="$SRC/traces/samples/fig1 $SRC/traces/samples/pipeline $SRC/traces/samples/quicksort"
if "$ECP" record -q -o "$tmp/sampled" -- "$PLAIN" --quiet >/dev/null 2>"$tmp/err"; then
	traces="$traces $tmp/sampled"
else
	echo "no sampled recording here (ecp record failed: $(tail -1 "$tmp/err")); samples only"
fi
exec python3 "$SRC/tests/fuzz/damage.py" "$ECP" "$N" 31 $traces
