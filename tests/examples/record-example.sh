#!/bin/sh
# SPDX-License-Identifier: MIT
# e2e: `ecp record` an example program of traces/ at a small scale and check
# the trace directory: exit status 0 (the program's own, which --check makes
# depend on a correct result), the metadata file with the keys EVENTS.md
# promises, a CTF trace (a `metadata` file under main/), and, when `ecp info`
# is built, that the trace reads back with no discarded events and at least the
# program's number of threads.
#
# With EXPECT, and when `ecp scan` is built, the recorded trace must also
# give the paper's answer: items "P:top=F" (F has the largest TET at P among
# the candidates) and "P:zero=F" (F is off the extended critical path at P:
# TET below 2% of the top candidate's); "among=F,G,..." names the candidates
# (default: every function; --check work is charged to main).  E.g. Fig. 1:
# "among=a,b,c,d 1:top=b 3:top=a".  "P1-P2:gains=F/G": TET(F)/TET(G) is at
# least twice as large at P2 as at P1 -- F matters more relative to G on
# more processors; a per-function error of the measured CPU time scales
# both ratios alike and cancels out.  Only structural facts with enough
# slack are asserted (no ties), so that timing noise cannot flip them: the
# recorded times now match each thread's own CPU clock within 1%
# (model-e2e-info), but the program's work itself shifts between runs on a
# busy machine (caches, the other threads' interference), so a "top" keeps
# a margin of about 2x between the two functions, which "gains" does not
# need.
#
# usage: record-example.sh NAME PROGRAM SCALE MIN_THREADS [EXPECT]
# env:   ECP (the ecp binary), from e2e_env
# exit:  0 pass, 1 fail, 77 skip (ecp record not built, or no LTTng here)
set -u
name=$1 program=$2 scale=$3 min_threads=$4 expect=${5:-}
: "${ECP:?ECP must name the ecp binary}"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL ($name): $*"; exit 1; }

command -v lttng-sessiond >/dev/null 2>&1 || skip "lttng-sessiond is not installed"
probe=$("$ECP" record --help 2>&1)
case $probe in
*"not built yet"*) skip "ecp record is not built yet" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecp-example-XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM
trace=$tmp/ecp.data

record() {
	"$ECP" record -q -f -o "$trace" -- "$program" --scale "$scale" --check --quiet \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$tmp/err"
		fail "ecp record exited with $rc"
	fi
}
record
# A recording that ecp refuses as not holding the program's time says to
# record again, which a user would do: on a machine busy with other
# recordings on the same CPU (two tests at once) the stays of the recorder's
# own threads, closed by the next record, can take in another program's
# time (quicksort once in a CI run: 18% of its 79 ms).  Once more, then the
# refusal is a failure.
if "$ECP" info "$trace" >/dev/null 2>"$tmp/info-err"; then :; elif
	grep -q "does not hold the program's time" "$tmp/info-err"; then
	echo "recorded again after: $(cat "$tmp/info-err")"
	record
fi

meta=$trace/ecp-record.meta
[ -f "$meta" ] || fail "no $meta"
for key in format version command clock exit_status wall_ns functions; do
	grep -q "^$key=" "$meta" || fail "metadata has no '$key='"
done
grep -q '^exit_status=0$' "$meta" || fail "metadata does not record exit_status=0: $(grep exit_status "$meta")"
grep -q "^command=.*$(basename "$program")" "$meta" || fail "metadata command does not name $(basename "$program")"
[ -n "$(find "$trace/main" -name metadata -type f 2>/dev/null)" ] ||
	fail "no CTF metadata under $trace/main"

# Read back, when the reader is built.
if info=$("$ECP" info "$trace" --format json 2>"$tmp/info-err"); then
	wall_ns=$(sed -n 's/^wall_ns=//p' "$meta")
	printf '%s' "$info" | python3 -c '
import json, sys
info = json.load(sys.stdin)
min_threads, wall = int(sys.argv[1]), int(sys.argv[2])
threads = info["threads"]
n = len(threads) if isinstance(threads, list) else int(threads)
assert info["discarded_events"] == 0, "discarded events: %s" % info["discarded_events"]
assert n >= min_threads, "%d threads, expected at least %d" % (n, min_threads)
assert info["work_ns"] > 0 and info["span_ns"] > 0, "empty work or span"
# on one CPU the program cannot use more CPU time than its wall time
assert info["work_ns"] <= wall * 1.05 + 1e6, "work %d ns > wall %d ns" % (info["work_ns"], wall)
' "$min_threads" "$wall_ns" || fail "ecp info: unexpected summary: $info"
else
	grep -q "not built yet" "$tmp/info-err" || { cat "$tmp/info-err"; fail "ecp info failed on the new trace"; }
fi
# The paper's answer on the recorded trace (EXPECT): exit 0 when given.
expect_answer() {
	printf '%s' "$scan" | python3 -c '
import json, sys
scan = json.load(sys.stdin)
procs = scan["processors"]
tet = {f["name"]: f["tet_ns"] for f in scan["functions"]}
items = sys.argv[1].split()
among = None
for item in items:
    if item.startswith("among="):
        among = item[len("among="):].split(",")
for item in items:
    if item.startswith("among="):
        continue
    p, rule = item.split(":")
    kind, fn = rule.split("=")
    if kind == "gains":
        # F gains on G from P1 to P2: a ratio of ratios, free of any
        # per-function scale error of the measured times.
        p1, p2 = (procs.index(int(x)) for x in p.split("-"))
        f, g = fn.split("/")
        r1 = tet[f][p1] / max(tet[g][p1], 1)
        r2 = tet[f][p2] / max(tet[g][p2], 1)
        assert r2 >= 2 * r1, "P=%s: TET(%s)/TET(%s) goes from %.2f to %.2f, expected at least x2" % (
            p, f, g, r1, r2)
        continue
    i = procs.index(int(p))
    at = {name: v[i] for name, v in tet.items() if among is None or name in among}
    top = max(at, key=at.get)
    if kind == "top":
        assert top == fn, "P=%s: top by TET is %s (%d ns), expected %s (%s ns)" % (
            p, top, at[top], fn, at.get(fn))
    elif kind == "zero":
        assert at.get(fn, 0) < 0.02 * at[top], "P=%s: %s has TET %d ns, expected ~0 (top %s %d)" % (
            p, fn, at.get(fn, 0), top, at[top])
    else:
        raise SystemExit("bad EXPECT item " + item)
print("ok: ECP as in the paper: " + sys.argv[1])
' "$expect"
}

# Whether the candidates' calls differ in recorded CPU time by more than
# 1.5x within one function (ecp export at 16 processors: each call runs
# alone).  The examples' calls of one function do the same work, so such a
# recording measured a busy machine, not the program: on this VM a call's
# CPU time by its own clock came out up to 3.95x its siblings' (billing's
# Reader, 4 recordings in 60 over 1.3x, no steal), which moves the critical
# path of that recording.  Prints the worst function and spread.
calls_uneven() {
	"$ECP" export "$trace" -P 16 --format perfetto -o "$tmp/calls.json" 2>/dev/null || return 1
	python3 -c '
import json, sys
among = None
for item in sys.argv[2].split():
    if item.startswith("among="):
        among = item[len("among="):].split(",")
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
dur = {}
for e in ev:
    if e.get("ph") == "X" and (among is None or e.get("name") in among) and e.get("dur", 0) > 0:
        dur.setdefault(e["name"], []).append(e["dur"])
worst = max(((max(d) / min(d), n) for n, d in dur.items() if len(d) > 1), default=(1.0, ""))
print("%s calls %.2fx apart" % (worst[1], worst[0]))
sys.exit(0 if worst[0] > 1.5 else 1)
' "$tmp/calls.json" "$expect"
}

if [ -n "$expect" ]; then
	if scan=$("$ECP" scan "$trace" -P 1-4,16 --top 100 --format json 2>"$tmp/scan-err"); then
		if ! expect_answer; then
			# once more, only where the recording's own calls say
			# the machine moved them (calls_uneven)
			uneven=$(calls_uneven) || fail "ecp scan: unexpected answer: $scan"
			echo "recorded again: unexpected answer, $uneven: $scan"
			record
			scan=$("$ECP" scan "$trace" -P 1-4,16 --top 100 --format json 2>"$tmp/scan-err") ||
				{ cat "$tmp/scan-err"; fail "ecp scan failed on the new trace"; }
			expect_answer || fail "ecp scan: unexpected answer, twice: $scan"
		fi
	else
		grep -q "not built yet" "$tmp/scan-err" || { cat "$tmp/scan-err"; fail "ecp scan failed on the new trace"; }
		echo "note: ecp scan is not built yet: EXPECT not checked"
	fi
fi
echo "ok: $name recorded ($(du -sk "$trace" | cut -f1) KB)"
