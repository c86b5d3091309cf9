#!/bin/sh
# End-to-end test of the trace model on a recorded program (issue 4's
# acceptance): `ecp info` on a recorded 9-thread program reports 9 threads
# and a work figure within 3% of the program's single-core CPU time; the
# second run answers from the cache with the same figures; a missing trace
# fails with exit 1 and a message naming the path.
# Skips (77) where `ecp record` cannot run (no LTTng session daemon).
set -u
: "${ECP:?}" "${PROG:?}" "${CPU_TIME:?}"
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

# One attempt: record three times, analyse each (twice: CTF then cache),
# measure the program's CPU time on one core five times, and compare the
# least work with the least CPU time: interference from other processes
# (shared caches, the other core's load) only ever adds CPU time, so the
# minimum is each side's own cost.  A timing miss is retried once.
attempt() {
	best=""
	for k in 1 2 3; do
		rm -rf "$tmp/t"
		# Default filters: the 115 k short leaf calls are folded.  Recording
		# them all (--min-duration 0) makes the subtracted per-event cost,
		# calibrated once, swing the work by 5-15% on a loaded machine.
		# The folded calls' own cost (call_cost_ns) is not subtracted yet,
		# which biases the work by about +2% here.
		if ! "$ECP" record -q -o "$tmp/t" -- "$PROG" >/dev/null 2>"$tmp/record.err"; then
			cat "$tmp/record.err" >&2
			echo "SKIP: ecp record cannot run here" >&2
			exit 77
		fi
		"$ECP" info --format json "$tmp/t" >"$tmp/info1.json" 2>"$tmp/info1.err" ||
			{ cat "$tmp/info1.err" >&2; fail "ecp info failed"; }
		[ -f "$tmp/t/ecp-model.cache" ] || fail "no model cache written"
		"$ECP" info --format json "$tmp/t" >"$tmp/info2.json" 2>/dev/null ||
			fail "ecp info (cache) failed"
		cmp -s "$tmp/info1.json" "$tmp/info2.json" ||
			fail "the cached model answers differently"
		w=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["work_ns"])' \
			"$tmp/info1.json")
		if [ -z "$best" ] || [ "$w" -lt "$best" ]; then
			best=$w
			cp "$tmp/info1.json" "$tmp/best.json"
		fi
	done
	"$ECP" info "$tmp/t" >"$tmp/info.txt" || fail "ecp info (table) failed"
	cat "$tmp/info.txt"
	: >"$tmp/cpu"
	for i in 1 2 3 4 5; do
		"$CPU_TIME" "$PROG" >>"$tmp/cpu" || fail "cannot measure the program's CPU time"
	done
	cpu=$(sort -n "$tmp/cpu" | sed -n 1p)
	python3 - "$tmp/best.json" "$cpu" <<'PY'
import json, os, sys
info = json.load(open(sys.argv[1]))
cpu = int(sys.argv[2])
for key in ("trace", "program", "threads", "events", "discarded_events",
            "work_ns", "span_ns", "parallelism", "clock"):
    if key not in info:
        print("FAIL: missing key %s" % key); sys.exit(1)
work = info["work_ns"]
dev = (work - cpu) / cpu
print("threads %d work %.2f ms cpu %.2f ms deviation %+.2f%% span %.2f ms clock %s"
      % (info["threads"], work / 1e6, cpu / 1e6, 100 * dev, info["span_ns"] / 1e6,
         info["clock"]))
names = [f["name"] for f in info["top_functions"]]
if info["threads"] != 9:
    print("FAIL: %d threads, want 9" % info["threads"]); sys.exit(1)
if not 0 < info["span_ns"] <= work:
    print("FAIL: span %d not in (0, work]" % info["span_ns"]); sys.exit(1)
if "compute" not in names:
    print("FAIL: compute() not among the top functions: %s" % names); sys.exit(1)
if info["discarded_events"] != 0:
    print("FAIL: discarded events"); sys.exit(1)
if abs(dev) > 0.03 and os.environ.get("ECP_SANITIZED", "0") != "1":
    print("work deviates %.2f%% from the CPU time (limit 3%%)" % (100 * dev))
    sys.exit(2)
PY
}

attempt
rc=$?
if [ $rc -eq 2 ]; then
	echo "timing outside 3%: measuring again (shared machine?)"
	attempt
	rc=$?
fi
[ $rc -eq 0 ] || fail "see above"

# The fallback clock (perf refused): segment lengths from the threads' CPU
# clocks.  Same structure; its per-event cost is higher, so only the shape
# is checked here.
rm -rf "$tmp/c"
if ECP_RECORD_NO_PERF=1 "$ECP" record -q -o "$tmp/c" -- "$PROG" >/dev/null 2>&1; then
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
