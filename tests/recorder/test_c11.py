#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: a C11-threads producer/consumer (c11-pc.c) records as two threads,
with every <threads.h> call it makes in the trace, and ecp predicts its run
time on P = 1..4 processors within 5% of the oracle solved on the durations
the same run measured (oracle.py).  Two independent threads would be
predicted about 45% faster at P = 2: the check needs the dependencies.

usage: test_c11.py C11_PC_BINARY"""
import errno
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403
from oracle import seg, compare, run_time  # noqa: E402

ITEMS = 16
TOLERANCE = 0.05


def graph(d):
    """The program's dependency graph on its measured segments."""
    main = [seg(d['setup'], delay=3e6)]           # cnd_timedwait 2 ms, thrd_sleep 1 ms
    main += [seg(d['p%d' % i]) for i in range(ITEMS)]
    cons = [seg(d['c0'], deps=[(0, 0), (0, 1)])]  # created after setup, needs item 0
    cons += [seg(d['c%d' % i], deps=[(0, i + 1)]) for i in range(1, ITEMS)]
    cons.append(seg(d['ctail']))
    main.append(seg(d['mtail'], deps=[(1, ITEMS)]))  # thrd_join
    return [main, cons]


def main():
    prog = os.path.abspath(sys.argv[1])
    ecp_bin = ecp()
    work = workdir()
    trace = os.path.join(work, 'trace')
    p = record(['-o', trace], [prog], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    out = program_output(p.stdout)
    check(out.get('timedwait') == 'timedout', 'cnd_timedwait: %r' % p.stdout)
    d = {}
    for line in p.stdout.splitlines():
        if line.startswith('seg '):
            _, k, v = line.split()
            d[k] = int(v)

    ev = [e for e in read_trace(os.path.join(trace, 'main')) if e['event'].startswith('ecp:')]
    check(count(ev, 'ecp:thread_start') == 2, 'threads: %d' % count(ev, 'ecp:thread_start'))
    check(count(ev, 'ecp:thread_create', ok=1) == 1, 'thrd_create')
    check(count(ev, 'ecp:thread_join_end', ok=1) == 1, 'thrd_join')
    # the program's once_flag, called by both threads (thrd_exit's unwinding
    # runs a pthread_once of glibc's own on another object)
    flag = named(ev, 'ecp:once_begin')[0]['obj']
    check(count(ev, 'ecp:once_begin', obj=flag) == 2 and
          sum(e['ran'] for e in named(ev, 'ecp:once_end') if e['obj'] == flag) == 1,
          'call_once')
    check(count(ev, 'ecp:lock_acquired', **{'try': 1}) == 1, 'mtx_trylock')
    check(count(ev, 'ecp:lock_init', kind=0) == 1, 'mtx_init')
    check(count(ev, 'ecp:cond_wait_end', err=errno.ETIMEDOUT) == 1, 'cnd_timedwait timeout')
    check(count(ev, 'ecp:cond_signal') == ITEMS, 'cnd_signal')
    check(count(ev, 'ecp:cond_broadcast') == 1, 'cnd_broadcast')
    check(count(ev, 'ecp:thread_exit') == 1, 'thrd_exit: %d thread_exit events'
          % count(ev, 'ecp:thread_exit'))
    check(out.get('joined', '').startswith('42 '), 'thrd_exit value: %r' % p.stdout)
    check(count(ev, 'ecp:delay_begin', kind=13) == 1, 'thrd_sleep')
    waits = count(ev, 'ecp:cond_wait_begin') - 1
    print('consumer waited %d times for an item' % waits)

    s = subprocess.run([ecp_bin, 'scan', '-P', '1-4', '--format', 'json', trace],
                       capture_output=True, text=True)
    check(s.returncode == 0, 'ecp scan: %s' % s.stderr)
    pred = json.loads(s.stdout)['makespan_ns']
    threads = graph(d)
    independent = [[seg(sum(x[0] for x in t) + sum(x[1] for x in t))] for t in threads]
    print('two independent threads at P=2 would take %.3f ms'
          % (run_time(independent, 2) / 1e6))
    bad = compare(pred, threads, [1, 2, 3, 4], TOLERANCE, read_meta(trace))
    check(not bad, 'predicted T_P off the oracle by more than 5%%: %s' % bad)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
