#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: --as-cpus.  An OpenMP program (omp.c) recorded with its default team
creates as many threads as the caller has CPUs (the default) or as
--as-cpus N says, while every thread runs on the recording CPU: every way
it counts CPUs (sched_getaffinity, pthread_getaffinity_np, sysconf,
get_nprocs, omp_get_num_procs) answers N, the trace has N threads, and a
sched_setaffinity of its own succeeds and is reported back without moving
it; `nproc` started through `sh -c` sees N too; with OMP_PROC_BIND=true the
default team is N still, and the runtime prints no warning (LLVM's libomp
would about KMP_AFFINITY, which ecp record then does not set).  And while the program
runs, ecp record itself (and the daemons it starts) stays off the CPU the
program records on whenever another is allowed: its work there slowed the
program it measured.

usage: test_cpus.py OMP_BINARY"""
import os
import re
import shutil
import subprocess
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


def cpu_list(text):
    cpus = set()
    for part in text.strip().split(','):
        a, _, b = part.partition('-')
        cpus.update(range(int(a), int(b or a) + 1))
    return cpus


def driver_off_program_cpu(work):
    allowed = os.sched_getaffinity(0)
    trace = os.path.join(work, 'driver')
    p = record(['-o', trace, '--no-functions'],
               ['sh', '-c', 'grep Cpus_allowed_list /proc/$PPID/status'], cwd=work)
    check(p.returncode == 0, 'sh -c grep: exit %d: %s' % (p.returncode, p.stderr))
    m = re.search(r'Cpus_allowed_list:\s*(\S+)', p.stdout)
    check(m is not None, 'no Cpus_allowed_list of ecp record in %r' % p.stdout)
    driver = cpu_list(m.group(1))
    program = int(read_meta(trace)['cpu'])
    print('recording CPU %d, ecp record on CPUs %s (allowed %s)'
          % (program, sorted(driver), sorted(allowed)))
    if len(allowed) > 1:
        check(program not in driver, 'ecp record ran on the recording CPU %d' % program)
        check(driver == allowed - {program}, 'ecp record on %s, want %s'
              % (sorted(driver), sorted(allowed - {program})))
    else:
        check(driver == allowed, 'one CPU: ecp record stays on it')


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
    driver_off_program_cpu(work)
    # binding asked for: the default team is still --as-cpus (libomp: told
    # through OMP_NUM_THREADS, its affinity code kept on), and no runtime
    # warns about the environment ecp record set
    env = dict(os.environ, OMP_PROC_BIND='true')
    p = subprocess.run([ecp(), 'record', '-o', os.path.join(work, 'bind'), '--as-cpus', '3',
                        '--', prog], capture_output=True, text=True, timeout=120, env=env,
                       cwd=work)
    check(p.returncode == 0, 'OMP_PROC_BIND=true: exit %d: %s' % (p.returncode, p.stderr))
    check('team=3\n' in p.stdout, 'OMP_PROC_BIND=true: %r, want team=3' % p.stdout)
    check('OMP: Warning' not in p.stderr, 'the runtime warned: %s' % p.stderr)
    p = record(['-o', os.path.join(work, 'bad'), '--as-cpus', '0'], [prog], cwd=work)
    check(p.returncode == 2, '--as-cpus 0 accepted: exit %d' % p.returncode)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
