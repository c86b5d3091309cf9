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
# A recording made beside other work can be refused by ecp's consistency
# check (the program's time not held): recorded once more, as ecp tells a
# user to, before going on with the samples only.
sampled=
for attempt in 1 2; do
	rm -rf "$tmp/sampled"
	if ! "$ECP" record -q -o "$tmp/sampled" -- "$PLAIN" --quiet >/dev/null 2>"$tmp/err"; then
		echo "no sampled recording here (ecp record failed: $(tail -1 "$tmp/err")); samples only"
		break
	fi
	if "$ECP" info "$tmp/sampled" >/dev/null 2>"$tmp/err"; then
		sampled="$tmp/sampled"
		break
	fi
	echo "attempt $attempt: ecp info refused the sampled recording: $(tail -1 "$tmp/err")"
done
traces="$traces $sampled"
exec python3 "$SRC/tests/fuzz/damage.py" "$ECP" "$N" 31 $traces
