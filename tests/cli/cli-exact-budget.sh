#!/bin/sh
# SPDX-License-Identifier: MIT
# e2e: weights the exact re-simulation budget does not cover are flagged,
# never silently shown as exact.  The watchdog sample sleeps, so its weights
# at P = 1 need re-simulation: with the default budget they are exact; with a
# budget of one event, report names the affected functions on stderr and its
# JSON says weights_exact false, for the analysis and for those functions;
# a budget that is not a number is a usage error naming the variable.
#
# env: ECP, ECP_SOURCE_ROOT (from e2e_env); exit 0 pass, 1 fail.
set -u
: "${ECP:?}" "${ECP_SOURCE_ROOT:?}"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecp-budget-XXXXXX") || fail mktemp
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -r "$ECP_SOURCE_ROOT/traces/samples/watchdog" "$tmp/w"

"$ECP" report "$tmp/w" -P 1 --format json >"$tmp/exact.json" 2>"$tmp/exact.err" ||
	{ cat "$tmp/exact.err"; fail "report with the default budget"; }
grep -q '"weights_exact": true' "$tmp/exact.json" || fail "default budget: not exact"
grep -q "could not be verified" "$tmp/exact.err" && fail "default budget: warned"

ECP_EXACT_BUDGET=1 "$ECP" report "$tmp/w" -P 1 --format json >"$tmp/flag.json" \
	2>"$tmp/flag.err" || { cat "$tmp/flag.err"; fail "report with budget 1"; }
python3 - "$tmp/flag.json" "$tmp/flag.err" <<'PY' || fail "budget 1: $(cat "$tmp/flag.err")"
import json, sys
report = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
assert report["weights_exact"] is False, "weights_exact should be false"
assert report["inexact_segments"] > 0, "no segment counted as unverified"
flagged = [f["name"] for f in report["functions"] if f.get("weights_exact") is False]
assert flagged, "no function flagged in the JSON"
assert "could not be verified exact" in err, "no note on stderr"
assert "ECP_EXACT_BUDGET" in err, "the note does not say how to verify"
for name in flagged[:5]:
    assert name in err, "the note does not name %s" % name
print("ok: budget 1 flags %d segments, functions %s" % (report["inexact_segments"], flagged))
PY

ECP_EXACT_BUDGET=lots "$ECP" report "$tmp/w" -P 1 >/dev/null 2>"$tmp/bad.err"
st=$?
[ $st -eq 2 ] || fail "ECP_EXACT_BUDGET=lots: exit $st, expected 2"
grep -q "ECP_EXACT_BUDGET must be a positive number of events, not 'lots'" "$tmp/bad.err" ||
	fail "ECP_EXACT_BUDGET=lots: $(cat "$tmp/bad.err")"
echo "ok: default budget exact, budget 1 flagged and named, bad budget refused"
