#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 31): the recorder's own cost comes out of the times, right, on
a busy CPU and for a call-dense program.  Every comparison is with ground
truth from the same test run: each thread's own CPU clock as the program
prints it, and the same program's unrecorded CPU time measured just before.

1. Calibration under load: a busy loop shares the recording CPU while
   `ecp record` calibrates and records the two spinning threads of SPIN.
   The cost per event must be believable (under 1 us: a wall-time
   calibration gave 40 us on a loaded machine) and each thread's work
   within 2% of its own clock less the sampler's measured share (plus 1 ms
   for the clock reads around it).
2. Tiny functions: TINY makes 3 M calls of a 3-5 ns leaf on two threads,
   recorded with --min-duration 0 (6 M events costing the program ~60x its
   work).  The cost per event must come from the run itself (every hook
   timed, plus what a call costs outside the hooks' windows, measured at
   start and believable), the leaf must keep some time (a calibrated cost
   erased it), and T1 stay above half of the unrecorded CPU time and at most
   12 ns a call above it (4-6 ns quiet, up to 7.6 ns beside other tests).
   It was 9x, and 10.6 us of 1.8 s elsewhere; with one hook in 16 timed,
   0.16x-2.6x; now 2.0-2.5x quiet or beside two busy loops, 1.8-3.9x with
   other tests running beside it (gcc), 5x built with clang, whose leaf is
   cheaper (1.6 ns a call).  What is left above 1x is the program's own
   slowdown between the hooks, which depends on its code (an empty leaf
   leaves 8 ns a call, this one 4-6 ns), so no figure measured at start can
   take it out: bounded per call, not as a ratio.

usage: test_costs.py SPIN TINY"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def info(trace):
    p = subprocess.run([ecp(), 'info', '--format', 'json', trace], capture_output=True,
                       text=True)
    check(p.returncode == 0, 'ecp info: %s' % p.stderr)
    return json.loads(p.stdout)


def busy_loop_on(cpu):
    """A CPU hog pinned where the recording runs, killed by the caller."""
    code = 'import os\nos.sched_setaffinity(0, {%d})\nwhile True: pass\n' % cpu
    return subprocess.Popen([sys.executable, '-c', code])


def calibration_under_load(spin, work):
    trace = os.path.join(work, 'spin')
    cpu = min(os.sched_getaffinity(0))
    hog = busy_loop_on(cpu)
    try:
        p = record(['-o', trace], [spin], cwd=work)
    finally:
        hog.kill()
        hog.wait()
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    real = {int(t): int(n) for t, n in re.findall(r'tid=(\d+) cpu_ns=(\d+)', p.stdout)}
    check(len(real) == 2, 'program output %r' % p.stdout)
    meta = read_meta(trace)
    cost_ps = int(meta['event_cost_ps'])
    print('under load: %.1f ns per event (%s)' % (cost_ps / 1e3, meta['event_cost_source']))
    check(0 < cost_ps < 1000000, 'implausible event cost %d ps under load' % cost_ps)
    recorded = {t['tid']: t['work_ns'] for t in info(trace)['thread_list']}
    # SPIN is sampled: its clock counts the kernel's work for each sample,
    # a share hz * cost of it, which the recording takes out
    share = int(meta['sample_hz']) * int(meta['sample_cost_ns']) / 1e9
    check(int(meta['samples']) > 0 and 0 < share < 0.2,
          'sampler share %.3f of %s samples' % (share, meta['samples']))
    for tid, ns in real.items():
        ns = int(ns * (1.0 - share))
        rec = recorded.get(tid, 0)
        print('thread %d: recorded %d ns, own clock %d ns (%+.3f%%)'
              % (tid, rec, ns, 100.0 * (rec - ns) / ns))
        check(abs(rec - ns) <= 0.02 * ns + 1000000,
              'thread %d: recorded %d ns against its own clock %d ns' % (tid, rec, ns))


def tiny_functions(tiny, work):
    unrecorded = []
    for _ in range(3):
        out = subprocess.run([tiny], capture_output=True, text=True, check=True).stdout
        unrecorded.append(sum(int(n) for n in re.findall(r'cpu_ns=(\d+)', out)))
    base = sorted(unrecorded)[1]
    trace = os.path.join(work, 'tiny')
    p = record(['-o', trace, '--min-duration', '0'], [tiny], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    meta = read_meta(trace)
    check(meta['event_cost_source'] == 'run',
          'the cost per event was not timed in the run: %s' % meta['event_cost_source'])
    untimed_ps = int(meta.get('call_untimed_ps', 0))
    check(0 < untimed_ps < 100000,
          'what a call costs outside the hooks\' windows: %d ps' % untimed_ps)
    t1 = info(trace)['work_ns']
    p = subprocess.run([ecp(), 'report', '-P', '1', '--top', '20', '--format', 'json',
                        trace], capture_output=True, text=True)
    check(p.returncode == 0, 'ecp report: %s' % p.stderr)
    leaf = [f for f in json.loads(p.stdout)['functions'] if f['name'] == 'leaf']
    print('tiny calls: %.1f ns per event (%.1f ns a call untimed); T1 %.2f ms (%.2fx), '
          'unrecorded %.2f ms (median of %s); leaf %.2f ms'
          % (int(meta['event_cost_ps']) / 1e3, untimed_ps / 1e3, t1 / 1e6, t1 / base,
             base / 1e6, ['%.2f' % (u / 1e6) for u in unrecorded],
             leaf[0]['work_ns'] / 1e6 if leaf else 0))
    # The hooks cost the program 60x its work: 1 ns a call is 25% of T1.
    # What must hold is that neither failure of the issue comes back: T1
    # nine times the program, or T1 and the leaf driven to nothing (10.6 us
    # of 1.8 s); and the cost is no longer over-subtracted (0.16x with one
    # hook in 16 timed): every hook timed, the residual is the program's own
    # slowdown, never below its unrecorded time here.
    check(leaf and leaf[0]['work_ns'] > 0, 'the leaf lost its time: %s' % leaf)
    calls = leaf[0]['calls'] if leaf else 0
    check(calls == 3000000, 'the leaf was called %d times, want 3,000,000' % calls)
    per_call = (t1 - base) / max(calls, 1)
    print('T1 is %.1f ns a call above the unrecorded CPU time' % per_call)
    check(t1 >= base / 2, 'T1 %d ns against %d ns of CPU unrecorded' % (t1, base))
    check(per_call <= 12.0, 'T1 %d ns is %.1f ns a call above %d ns of CPU unrecorded'
          % (t1, per_call, base))


def main():
    spin, tiny = (os.path.abspath(a) for a in sys.argv[1:3])
    ecp()
    work = workdir()
    calibration_under_load(spin, work)
    # Once more on a failure: the bound compares the recording with runs
    # beside it, and a CI release pass once found 14.6 ns a call where
    # runs by hand give 4.5-9.3; a second failure fails the test.
    try:
        tiny_functions(tiny, work)
    except SystemExit as e:
        if e.code in (0, None):
            raise
        print('tiny calls: recording once more after that failure')
        shutil.rmtree(os.path.join(work, 'tiny'), ignore_errors=True)
        tiny_functions(tiny, work)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
