#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end test of the trace model on a recorded program (issue 4's
# acceptance, made to hold on a busy machine by issue 14): `ecp info` on a
# recorded 9-thread program reports 9 threads; each thread's work and the
# work of compute() match the CPU time the program measured itself, with its
# threads' CLOCK_THREAD_CPUTIME_ID, in the SAME run (within 1%, plus the
# calibrated cost of the events inside: this machine's speed varies 2-3x
# between runs, so nothing here is compared across runs); no timestamp was
# clamped; the second run answers from the cache with the same figures; a
# missing trace fails with exit 1 and a message naming the path.
# Skips (77) where `ecp record` cannot run (no LTTng session daemon).
set -u
: "${ECP:?}" "${PROG:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecp-e2e-info.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$ECP" info "$tmp/missing" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "missing trace: exit $rc, want 1"
case $out in *"$tmp/missing"*) ;; *) fail "missing trace: message does not name the path: $out";; esac
"$ECP" info --format csv "$tmp" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--format csv: exit $rc, want 2 (usage)"
"$ECP" info "$tmp/a" "$tmp/b" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "two trace directories: exit $rc, want 2 (usage)"

# One recording and its checks; exit status 3 when only the timing check
# failed (a thread's recorded work off its own clock by more than 1%).
attempt() {
rm -rf "$tmp/t"
if ! "$ECP" record -q -o "$tmp/t" -- "$PROG" >"$tmp/program.out" 2>"$tmp/record.err"; then
	cat "$tmp/record.err" >&2
	echo "SKIP: ecp record cannot run here" >&2
	exit 77
fi
"$ECP" info --format json "$tmp/t" >"$tmp/info1.json" 2>"$tmp/info1.err" ||
	{ cat "$tmp/info1.err" >&2; fail "ecp info failed"; }
[ -f "$tmp/t/ecp-model.cache" ] || fail "no model cache written"
"$ECP" info --format json "$tmp/t" >"$tmp/info2.json" 2>/dev/null ||
	fail "ecp info (cache) failed"
cmp -s "$tmp/info1.json" "$tmp/info2.json" || fail "the cached model answers differently"
"$ECP" report -P 1 --top 100 --format json "$tmp/t" >"$tmp/report.json" ||
	fail "ecp report failed"
"$ECP" info "$tmp/t" || fail "ecp info (table) failed"
# Events per thread (vtid), for the allowance of the subtracted event cost:
# a batch of function records (ecp:func_batch, raw bytes in its string:
# read in the C locale) counts its `n` records.  With them, the wall time of
# the thread's slow_window events: stretches of the agent's own code that
# took long (recorder/EVENTS.md), whose CPU time the reader takes out of
# the thread and its own clock holds.
LC_ALL=C babeltrace2 "$tmp/t/main" 2>/dev/null | LC_ALL=C awk '
	match($0, /vtid = [0-9]+/) {
		t = substr($0, RSTART + 7, RLENGTH - 7); k = 1
		if (index($0, " ecp:func_batch: ") && match($0, /[{] n = [0-9]+/))
			k = substr($0, RSTART + 6, RLENGTH - 6)
		c[t] += k
		if (index($0, " ecp:slow_window: ") && match($0, /wall_ns = [0-9]+/))
			w[t] += substr($0, RSTART + 10, RLENGTH - 10)
	}
	END { for (t in c) print c[t], t, w[t] + 0 }' >"$tmp/events" ||
	fail "babeltrace2 cannot read the trace"

python3 - "$tmp/info1.json" "$tmp/report.json" "$tmp/program.out" "$tmp/events" <<'PY'
import json, os, re, sys
info = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
measured = {int(t): (int(c), int(k)) for t, c, k in re.findall(
    r"tid=(\d+) cpu_ns=(\d+) compute_ns=(\d+)", open(sys.argv[3]).read())}
events = {int(t): int(n) for n, t, _ in (l.split() for l in open(sys.argv[4]))}
slow = {int(t): int(w) for _, t, w in (l.split() for l in open(sys.argv[4]))}
cost = info["event_cost_ns"]
bad = []

# Besides 1% and the events' cost, 250 us a thread: on the CI machine, loaded
# by the suite running beside it, single threads have come out 110-180 us
# over their own clocks in two of four clang passes (never here by hand, nor
# with two busy loops beside it).  One cause was found (2026-11-28): the
# process exit's timed block on main (agent-clocks.c) was read after the
# thread_clock events it writes, which advanced main's clock, and clamped
# away: main 20-60 us over alone, up to 0.48 ms beside babeltrace2 spinning
# in model-decode-timeout on the recording CPU; now within 25 us there.
# Beside a busy loop on the driver's CPU, a worker's wrapper has spent
# 146-208 us on the CPU in its own code before its event (slow_window):
# the reader takes that out, the thread's clock holds it, so a thread may
# be that much under its clock (not over).
FIXED_NS = 250000

def check(what, recorded, real, n_events, recorder_ns=0):
    dev = recorded - real
    allowed = 0.01 * real + cost * n_events + FIXED_NS + (recorder_ns if dev < 0 else 0)
    print("%-10s recorded %9.3f ms  own clock %9.3f ms  %+.3f%%  (allowed %.3f ms)"
          % (what, recorded / 1e6, real / 1e6, 100.0 * dev / real, allowed / 1e6))
    if abs(dev) > allowed:
        bad.append(what)

for key in ("trace", "program", "threads", "events", "discarded_events",
            "work_ns", "span_ns", "parallelism", "clock", "thread_list", "warnings"):
    if key not in info:
        print("FAIL: missing key %s" % key); sys.exit(1)
if info["threads"] != 9 or len(measured) != 9:
    print("FAIL: %d threads recorded, %d measured, want 9"
          % (info["threads"], len(measured))); sys.exit(1)
if not 0 < info["span_ns"] <= info["work_ns"]:
    print("FAIL: span %d not in (0, work]" % info["span_ns"]); sys.exit(1)
if info["discarded_events"] != 0:
    print("FAIL: discarded events"); sys.exit(1)
if info["warnings"]:
    print("FAIL: warnings %s" % info["warnings"]); sys.exit(1)
for th in info["thread_list"]:
    if th["tid"] not in measured:
        print("FAIL: thread %d was not measured by the program" % th["tid"]); sys.exit(1)
    check(th["name"], th["work_ns"], measured[th["tid"]][0], events.get(th["tid"], 0),
          slow.get(th["tid"], 0))
compute = [f for f in report["functions"] if f["name"] == "compute"]
if not compute:
    print("FAIL: compute() not among the functions"); sys.exit(1)
# inside each call: its own entry and exit events (written at its exit)
check("compute()", compute[0]["work_ns"], sum(k for c, k in measured.values()),
      3 * compute[0]["calls"])
if bad and os.environ.get("ECP_SANITIZED", "0") == "1":
    print("sanitized build: timing differences not checked: %s" % bad)
elif bad:
    print("recorded work differs from the same run's CPU clocks: %s" % bad)
    sys.exit(3)
PY
}

# A run whose only failure is the timing check is recorded once more, and
# said; a second one fails, as does any other failure at once.
( attempt ); rc=$?
if [ $rc -eq 3 ]; then
	echo "the timing check failed on this run (see above): recording again"
	( attempt ); rc=$?
fi
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "see above"

# The fallback clock (perf refused): segment lengths from the threads' CPU
# clocks; the same ground truth applies per thread.
rm -rf "$tmp/c"
if ECP_RECORD_NO_PERF=1 "$ECP" record -q -o "$tmp/c" -- "$PROG" >"$tmp/c.out" 2>&1; then
	"$ECP" info --format json "$tmp/c" >"$tmp/c.json" || fail "ecp info (thread-cputime) failed"
	python3 - "$tmp/c.json" <<'PY' || fail "thread-cputime model"
import json, sys
info = json.load(open(sys.argv[1]))
print("thread-cputime: threads %d work %.2f ms span %.2f ms"
      % (info["threads"], info["work_ns"] / 1e6, info["span_ns"] / 1e6))
assert info["clock"] == "thread-cputime", info["clock"]
assert info["threads"] == 9, info["threads"]
assert 0 < info["span_ns"] <= info["work_ns"]
PY
fi
echo "PASS"
