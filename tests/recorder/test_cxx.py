#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: C++ synchronization (cxx-sync.cc, one mode per primitive) recorded
end to end: std::thread with std::mutex and std::condition_variable,
std::async, and the C++20 std::counting_semaphore, std::latch, std::barrier
and std::atomic<int>::wait/notify_one, which libstdc++ builds on
syscall(SYS_futex, ...).  For each, ecp's predicted run time on P = 1..4
processors must be within 5% of the oracle (oracle.py) solved on the
program's dependency graph with the durations the same run measured.

usage: test_cxx.py CXX_SYNC_BINARY MODE"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403
from oracle import seg, compare, run_time, producer_consumer, measured_segments  # noqa: E402

TOLERANCE = 0.05


def async_graph(d):
    main = [seg(d['spawn%d' % i]) for i in range(4)] + [seg(d['main'])]
    main.append(seg(d['mtail'], deps=[(1 + i, 0) for i in range(4)]))
    return [main] + [[seg(d['t%d' % i], deps=[(0, i)])] for i in range(4)]


def latch_graph(d):
    main = [seg(d['spawn%d' % i]) for i in range(3)] + [seg(d['wait'])]
    main.append(seg(d['work'], deps=[(1 + i, 0) for i in range(3)]))
    main.append(seg(d['mtail'], deps=[(1 + i, 1) for i in range(3)]))
    workers = [[seg(d['a%d' % i], deps=[(0, i)]), seg(d['b%d' % i])] for i in range(3)]
    return [main] + workers


def barrier_graph(d):
    def phase_deps(p):
        return [(t, (2 if t == 0 else 0) + p) for t in range(3)]
    main = [seg(d['spawn1']), seg(d['spawn2'])]
    threads = [main, [], []]
    for t in range(3):
        for p in range(3):
            deps = [(0, t - 1)] if t and p == 0 else []
            if p:
                deps += phase_deps(p - 1)
            threads[t].append(seg(d['w%d.%d' % (t, p)], deps=deps))
    for t in (1, 2):
        threads[t].append(seg(d['tail%d' % t], deps=phase_deps(2)))
    main.append(seg(d['tail0'], deps=phase_deps(2) + [(1, 3), (2, 3)]))
    return threads


def atomic_graph(d, rounds=8):
    main = [seg(d['setup'])]
    other = []
    for r in range(rounds):
        main.append(seg(d['m%d' % r]))
        other.append(seg(d['o%d' % r], deps=[(0, 0), (0, 1 + 2 * r)]))
        main.append(seg(d['back%d' % r], deps=[(1, r)]))
    other.append(seg(d['otail']))
    main.append(seg(d['mtail'], deps=[(1, rounds)]))
    return [main, other]


MODES = {
    'mutex-cv': (lambda d: producer_consumer(d, 16), ['ecp:cond_wait_begin']),
    'async': (async_graph, ['ecp:thread_create']),
    'semaphore': (lambda d: producer_consumer(d, 6), ['ecp:futex_wait_begin', 'ecp:futex_wake']),
    'latch': (latch_graph, ['ecp:futex_wait_begin', 'ecp:futex_wake']),
    'barrier': (barrier_graph, ['ecp:futex_wait_begin', 'ecp:futex_wake']),
    'atomic': (atomic_graph, ['ecp:futex_wait_begin', 'ecp:futex_wake']),
}


def record_once(prog, mode, expected, work):
    """One recording: (trace, measured durations, events)."""
    trace = os.path.join(work, 'trace')
    shutil.rmtree(trace, ignore_errors=True)
    p = record(['-o', trace], [prog, mode], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    ev = [e for e in read_trace(os.path.join(trace, 'main')) if e['event'].startswith('ecp:')]
    for name in expected:
        check(count(ev, name) > 0, 'no %s event' % name)
    print('%s: %s' % (mode, ', '.join('%d %s' % (count(ev, n), n[4:]) for n in
          ('ecp:futex_wait_begin', 'ecp:futex_wake', 'ecp:cond_wait_begin'))))
    return trace, measured_segments(p.stdout), ev


def main():
    prog = os.path.abspath(sys.argv[1])
    mode = sys.argv[2]
    make_graph, expected = MODES[mode]
    ecp_bin = ecp()
    work = workdir()
    # std::atomic<int>::wait blocks only when the value has not changed
    # yet: a notify that comes first hands the turn over with no futex wait,
    # no event, and nothing for any recorder to see -- the oracle's graph
    # (every round a hand-off) is then not the recorded program's.  Seen
    # once in a loaded CI pass (15 waits for 16 wakes, T_2 5.1% under the
    # oracle); such a recording is made again, up to three times in all.
    for attempt in range(3):
        trace, d, ev = record_once(prog, mode, expected, work)
        if mode != 'atomic' or count(ev, 'ecp:futex_wait_begin') >= \
                count(ev, 'ecp:futex_wake'):
            break
        print('a wait found its value already changed (a hand-off with no event): '
              'recording again')
    threads = make_graph(d)
    check(count(ev, 'ecp:thread_start') == len(threads),
          'threads: %d, want %d' % (count(ev, 'ecp:thread_start'), len(threads)))
    if mode == 'atomic':
        check(count(ev, 'ecp:futex_wait_begin') >= count(ev, 'ecp:futex_wake'),
              'three recordings each had a hand-off without a wait')

    s = subprocess.run([ecp_bin, 'scan', '-P', '1-4', '--format', 'json', trace],
                       capture_output=True, text=True)
    check(s.returncode == 0, 'ecp scan: %s' % s.stderr)
    pred = json.loads(s.stdout)['makespan_ns']
    independent = [[seg(sum(x[0] for x in t))] for t in threads]
    print('independent threads at P=2 would take %.3f ms' % (run_time(independent, 2) / 1e6))
    bad = compare(pred, threads, [1, 2, 3, 4], TOLERANCE, read_meta(trace))
    check(not bad, 'predicted T_P off the oracle by more than 5%%: %s' % bad)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
