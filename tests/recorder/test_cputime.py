#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: two CPU-bound threads time-slicing on one CPU.  Each thread's work
as `ecp info` reports it must match its own CLOCK_THREAD_CPUTIME_ID of the
same run within 1% (plus the calibrated cost of its events): from the
context switches with steal taken out (clock=perf-switch), or, with perf
disabled (ECP_RECORD_NO_PERF=1, the fallback), from the cpu_ns of its
events.  The raw switch records include what the hypervisor stole (2-10%
with both host cores busy), so they are only checked for time slicing.  A
recording with a thread off its clock whose meta shows steal (steal_ns) is
made again once (attempt()).

usage: test_cputime.py SPIN_BINARY [--no-perf]"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def attempt(last):
    """One recording checked; False where a thread is off its clock while
    the recording's meta shows the hypervisor's steal (steal_ns) and this
    is not the last attempt: the steal is spread over the thread's time in
    proportion, and a burst of it (22 ms of a 252 ms thread's stays in a CI
    run's ASan pass) left one thread +1.22% off its clock."""
    prog = os.path.abspath(sys.argv[1])
    no_perf = '--no-perf' in sys.argv
    ecp()
    work = workdir()
    trace = os.path.join(work, 'trace')
    if no_perf:
        os.environ['ECP_RECORD_NO_PERF'] = '1'
    p = record(['-o', trace], [prog], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    real = {int(t): int(n) for t, n in re.findall(r'tid=(\d+) cpu_ns=(\d+)', p.stdout)}
    check(len(real) == 2, 'program output %r' % p.stdout)
    meta = read_meta(trace)
    if no_perf:
        check(meta['clock'] == 'thread-cputime', 'clock ' + meta['clock'])
        # without perf the sched trace holds only the clock anchors
        sched = read_trace(os.path.join(trace, 'sched'))
        check(count(sched, 'ecp_sched:switch') == 0, 'switch records without perf')
        check(count(sched, 'ecp_sched:clock') >= 2, 'fewer than two clock anchors')
    else:
        check(meta['clock'] == 'perf-switch', 'clock ' + meta['clock'])
        sched = read_trace(os.path.join(trace, 'sched'))
        check(count(sched, 'ecp_sched:lost') == 0, 'perf lost records')
        on_since = {}
        total = collections.Counter()
        slices = collections.Counter()
        for e in sorted((e for e in sched if e['event'] == 'ecp_sched:switch'),
                        key=lambda e: e['ts']):
            if e['out']:
                if e['tid'] in on_since:
                    total[e['tid']] += e['ts'] - on_since.pop(e['tid'])
                    slices[e['tid']] += 1
            else:
                on_since[e['tid']] = e['ts']
        # they did time-slice: several slices each
        check(all(slices[t] >= 3 for t in real), 'no time slicing: %s' % slices)
        for t in real:
            print('thread %d: switch records %d ns (steal included)' % (t, total[t]))
    p = subprocess.run([ecp(), 'info', '--format', 'json', trace], capture_output=True,
                       text=True)
    check(p.returncode == 0, 'ecp info: %s' % p.stderr)
    info = json.loads(p.stdout)
    fallback = any('fallback clock' in w for w in info['warnings'])
    check(fallback == no_perf, 'the fallback clock %s named: %s'
          % ('is not' if no_perf else 'is wrongly', info['warnings']))
    recorded = {t['tid']: t['work_ns'] for t in info['thread_list']}
    events = collections.Counter(e['vtid'] for e in read_trace(os.path.join(trace, 'main')))
    # what the sampler's interrupts took of each thread's clock, which the
    # recording took out (it measured the cost of a sample): the program
    # unrecorded
    samples = samples_by_tid(sched)
    cost = int(meta.get('sample_cost_ns', '0'))
    steal = int(meta.get('steal_ns', '0'))
    for tid, ns in real.items():
        ns -= samples[tid] * cost
        rec = recorded.get(tid, 0)
        allowed = 0.01 * ns + info['event_cost_ns'] * events[tid]
        print('thread %d: recorded %d ns, real %d ns (%+.3f%%)'
              % (tid, rec, ns, 100.0 * (rec - ns) / ns))
        if abs(rec - ns) > allowed and steal and not last:
            print('%d ms of steal in the recording: recording again' % (steal // 10**6))
            shutil.rmtree(work, ignore_errors=True)
            return False
        check(abs(rec - ns) <= allowed, 'thread %d: recorded %d ns, real %d ns (%.2f%%)'
              % (tid, rec, ns, 100.0 * (rec - ns) / ns))
    shutil.rmtree(work, ignore_errors=True)
    print('ok')
    return True


def main():
    for n in range(2):
        if attempt(n == 1):
            return


main()
