#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: --as-cpus.  An OpenMP program (omp.c) recorded with its default team
creates as many threads as the caller has CPUs (the default) or as
--as-cpus N says, while every thread runs on the recording CPU: every way
it counts CPUs (sched_getaffinity, pthread_getaffinity_np, sysconf,
get_nprocs, omp_get_num_procs) answers N, the trace has N threads, and a
sched_setaffinity of its own succeeds and is reported back without moving
it; `nproc` started through `sh -c` sees N too.

usage: test_cpus.py OMP_BINARY"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def threads_in(trace):
    return len({e['vtid'] for e in read_trace(os.path.join(trace, 'main'))
                if e['event'] == 'ecp:thread_start'})


def run(prog, work, n, args):
    trace = os.path.join(work, 'trace%d' % n)
    p = record(['-o', trace] + args, [prog], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    out = dict(re.findall(r'(\w+)=(-?\d+)', p.stdout))
    print('--as-cpus %s: %s' % (args[1] if args else 'default', out))
    for key in ('affinity', 'pthread_affinity', 'onln', 'conf', 'nprocs', 'nprocs_conf',
                'omp_procs', 'team'):
        check(int(out.get(key, -1)) == n, '%s=%s, want %d' % (key, out.get(key), n))
    check(out.get('setaffinity') == '0', 'sched_setaffinity failed: %s' % out)
    check(out.get('mask_back') == '1', 'the mask set is not reported back: %s' % out)
    check(out['cpu_before'] == out['cpu_after'], 'a thread left the recording CPU: %s' % out)
    check(int(read_meta(trace)['as_cpus']) == n, 'metadata as_cpus')
    check(threads_in(trace) == n, 'trace has %d threads, want %d' % (threads_in(trace), n))


def main():
    prog = os.path.abspath(sys.argv[1])
    ecp()
    work = workdir()
    run(prog, work, len(os.sched_getaffinity(0)), [])
    run(prog, work, 3, ['--as-cpus', '3'])
    # a child of the program sees the same machine
    p = record(['-o', os.path.join(work, 'nproc'), '--as-cpus', '5', '--no-functions'],
               ['sh', '-c', 'nproc'], cwd=work)
    check(p.returncode == 0, 'sh -c nproc: exit %d: %s' % (p.returncode, p.stderr))
    check(p.stdout.strip() == '5', 'nproc under sh -c printed %r' % p.stdout)
    p = record(['-o', os.path.join(work, 'bad'), '--as-cpus', '0'], [prog], cwd=work)
    check(p.returncode == 2, '--as-cpus 0 accepted: exit %d' % p.returncode)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
