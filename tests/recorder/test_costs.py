#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 31): the recorder's own cost comes out of the times, right, on
a busy CPU and for a call-dense program.  Every comparison is with ground
truth from the same run: each thread's own CPU clock as the program prints
it, and the recorder's cost as that run measured it.

1. Calibration under load: a busy loop shares the recording CPU while
   `ecp record` calibrates and records the two spinning threads of SPIN.
   The cost per event must be believable (under 1 us: a wall-time
   calibration gave 40 us on a loaded machine) and each thread's work
   within 2% of its own clock less the sampler's measured share (plus 1 ms
   for the clock reads around it).
2. Tiny functions: TINY makes 3 M calls of a 3-5 ns leaf on two threads,
   recorded with --min-duration 0 (6 M events costing the program ~25x its
   work).  The cost per event must come from the run itself (every hook
   timed, plus what a call costs outside the hooks' windows, measured at
   start and believable), the leaf must keep some time (a calibrated cost
   erased it), and T1 be what the consistency check expects of the same
   run: the threads' own clocks as the program prints them, less the
   recorder's cost as the run measured it (the consistency object's
   overhead_ns), within 12 ns a call (-0.4 to +0.5 quiet, up to +9.7 beside
   two busy loops).  It was 9x the program, and 10.6 us of 1.8 s elsewhere.
   What T1 keeps above the unrecorded program (2-2.5x here, 5x built with
   clang) is the program's own slowdown between the hooks, on its own
   clocks too: it is the recorded run's CPU time, and no other run's is
   compared.

usage: test_costs.py SPIN TINY"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

# How far T1 may be from the threads' own clocks less the recorder's
# measured cost, in ns a call (tiny_functions says why).
EXCESS_NS = 12.0


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
    # SPIN is sampled: its clock counts the kernel's work for each sample
    # the thread got, which the recording takes out
    share = sampler_share(meta)
    check(int(meta['samples']) > 0 and 0 < share < 0.2,
          'sampler share %.3f of %s samples' % (share, meta['samples']))
    samples = samples_by_tid(read_trace(os.path.join(trace, 'sched')))
    cost = int(meta['sample_cost_ns'])
    for tid, ns in real.items():
        ns -= samples[tid] * cost
        rec = recorded.get(tid, 0)
        print('thread %d: recorded %d ns, own clock %d ns (%+.3f%%)'
              % (tid, rec, ns, 100.0 * (rec - ns) / ns))
        check(abs(rec - ns) <= 0.02 * ns + 1000000,
              'thread %d: recorded %d ns against its own clock %d ns' % (tid, rec, ns))


def tiny_functions(tiny, work):
    trace = os.path.join(work, 'tiny')
    shutil.rmtree(trace, ignore_errors=True)
    p = record(['-o', trace, '--min-duration', '0'], [tiny], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    # the threads' own CPU clocks around their calls, in this run
    clocks = [int(n) for n in re.findall(r'cpu_ns=(\d+)', p.stdout)]
    check(len(clocks) == 2, 'program output %r' % p.stdout)
    meta = read_meta(trace)
    check(meta['event_cost_source'] == 'run',
          'the cost per event was not timed in the run: %s' % meta['event_cost_source'])
    untimed_ps = int(meta.get('call_untimed_ps', 0))
    check(0 < untimed_ps < 100000,
          'what a call costs outside the hooks\' windows: %d ps' % untimed_ps)
    about = info(trace)
    t1 = about['work_ns']
    cons = about['consistency']
    check(cons['checked'] and cons['work_ns'] == t1, 'consistency object %s' % cons)
    p = subprocess.run([ecp(), 'report', '-P', '1', '--top', '20', '--format', 'json',
                        trace], capture_output=True, text=True)
    check(p.returncode == 0, 'ecp report: %s' % p.stderr)
    leaf = [f for f in json.loads(p.stdout)['functions'] if f['name'] == 'leaf']
    # The consistency check's arithmetic (simulator/model/consistency.c),
    # on the program's own clocks: the work must be the threads' CPU time
    # less the recorder's cost as the run measured it (every hook timed,
    # overhead_ns: event_cost_ps times the events charged).
    clock, cost = sum(clocks), cons['overhead_ns']
    expected = clock - cost
    calls = leaf[0]['calls'] if leaf else 0
    excess = (t1 - expected) / max(calls, 1)
    print('tiny calls: %.1f ns per event (%.1f ns a call untimed); T1 %.2f ms; own clocks '
          '%.2f ms less the recorder\'s %.2f ms = %.2f ms (T1 %+.2f ns a call); consistency '
          'gap %.2f%% (%s); leaf %.2f ms'
          % (int(meta['event_cost_ps']) / 1e3, untimed_ps / 1e3, t1 / 1e6, clock / 1e6,
             cost / 1e6, expected / 1e6, excess, cons['gap_pct'], cons['status'],
             leaf[0]['work_ns'] / 1e6 if leaf else 0))
    # The failures: T1 nine times the program (the cost not taken
    # out), or T1 and the leaf driven to nothing (10.6 us of 1.8 s: more
    # taken out than the hooks cost).  The hooks cost ~25x the work here,
    # so the cost the run measured must leave time on the clocks, the leaf
    # must keep some, and T1 lie within EXCESS_NS a call of what the clocks
    # say: -0.4 to +0.5 quiet, up to +9.7 beside two busy loops (a cost that
    # changes during the run: a call is never charged below zero, so a
    # stretch of cheap hooks after dear ones adds time).  Not taking the
    # cost out would be ~240 ns a call; taking it twice, T1 of 0.
    check(expected > 0, 'the recorder\'s cost %d ns is all of the threads\' clocks, %d ns'
          % (cost, clock))
    check(leaf and leaf[0]['work_ns'] > 0, 'the leaf lost its time: %s' % leaf)
    check(calls == 3000000, 'the leaf was called %d times, want 3,000,000' % calls)
    check(t1 >= expected / 2, 'T1 %d ns against %d ns on the threads\' own clocks less '
          'the recorder\'s cost' % (t1, expected))
    check(abs(excess) <= EXCESS_NS,
          'T1 %d ns is %.1f ns a call off the threads\' own clocks less the recorder\'s '
          'cost (%d ns)' % (t1, excess, expected))


def main():
    # line by line: a run killed at the suite's timeout (beside other
    # sessions' builds) still shows in its log how far it got
    sys.stdout.reconfigure(line_buffering=True)
    spin, tiny = (os.path.abspath(a) for a in sys.argv[1:3])
    ecp()
    work = workdir()
    calibration_under_load(spin, work)
    # Once more on a failure.  The bound is the same run's, so no noise of
    # other runs enters it; but the excess grows with the changes of load
    # during the run (9.7 of the 12 ns a call allowed beside two busy loops
    # and the suite), which the next recording does not meet again, while a
    # recorder that mis-subtracts its cost fails both (by 20x the bound).
    # Three in all: in a clean-clone CI run (2026-11-27) two in a row failed
    # within seven seconds in which the next test's calibration measured
    # nothing too (T1 +23.1 ns a call, then the hooks' untimed cost 0 ps),
    # while the same build passed in two other runs and three by hand.
    retry('tiny calls', lambda: tiny_functions(tiny, work), tries=3)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
