#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 37): OpenMP tasks built with GCC (omp-tasks.c: one thread
makes twelve tasks of unequal cost in a `single`, the team runs them in
the barrier that ends it; then a taskloop of eight tasks, whose maker
waits for them in the taskloop's taskgroup) recorded on one CPU with
--as-cpus 4.  On one CPU which thread ran which task is an artefact of
time slices; the oracle deals this run's task durations (each task's
CLOCK_THREAD_CPUTIME_ID, printed by the program) out as P cores would
(in creation order, each to the thread free first) and schedules the
threads' loads with the model's ideal processor sharing; ecp's
prediction must be within 10% of it at P = 1..4.  No timing is compared
across runs.  The program's results are unchanged (each taskloop task ran
its three iterations: the bounds reached it), no task construct is named
unmodelled, and none is kept as recorded.

usage: test_omp_tasks.py OMP_TASKS_BINARY"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

TOLERANCE = 0.10


def fluid(loads, p):
    """Makespan of threads with these loads, released together, on p
    processors shared ideally (n runnable threads each at min(1, p/n))."""
    left = sorted(x for x in loads if x > 0)
    now, done = 0.0, 0.0
    for i, x in enumerate(left):
        n = len(left) - i
        now += (x - done) / min(1.0, p / n)
        done = x
    return now


def dealt(durations, team):
    """Each task, in creation order, to the thread free first."""
    free = [0] * team
    for d in durations:
        j = free.index(min(free))
        free[j] += d
    return free


def main():
    prog = os.path.abspath(sys.argv[1])
    ecp_bin = ecp()
    work = workdir()
    trace = os.path.join(work, 'trace')
    p = record(['-o', trace, '--as-cpus', '4'], [prog], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    check('which ecp does not model' not in p.stderr,
          'the recording names a construct unmodelled: %s' % p.stderr)
    m = {k: int(v) for k, v in re.findall(r'(\w+)=(\d+)', p.stdout)}
    team = m.get('team', 0)
    check(team == 4, 'team of %d threads, want 4' % team)
    nl = len([k for k in m if k.startswith('loop_iters_')])
    check(nl == 8 and all(m['loop_iters_%d' % i] == 3 for i in range(nl)),
          'the taskloop\'s tasks did not each run their 3 iterations: %s' % p.stdout)
    tasks = [m['task_%d' % i] for i in range(len([k for k in m if k.startswith('task_')]))]
    loop = [m['loop_%d' % i] for i in range(nl)]
    s = subprocess.run([ecp_bin, 'scan', trace, '-P', '1-4', '--format', 'json'],
                       capture_output=True, text=True, timeout=120)
    check(s.returncode == 0, 'ecp scan: exit %d: %s' % (s.returncode, s.stderr))
    check('kept on the threads' not in s.stderr,
          'tasks were kept as recorded: %s' % s.stderr)
    got = json.loads(s.stdout)['makespan_ns']
    worst = 0.0
    for i, pr in enumerate(range(1, 5)):
        want = (m['setup'] + fluid(dealt(tasks, team), pr) + fluid(dealt(loop, team), pr) +
                m['tail'])
        err = (got[i] - want) / want
        worst = max(worst, abs(err))
        print('tasks P=%d: predicted %.1f ms, oracle %.1f ms (%+.1f%%)'
              % (pr, got[i] / 1e6, want / 1e6, 100 * err))
    check(worst <= TOLERANCE, 'a task prediction is %.1f%% off the oracle' % (100 * worst))
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
