#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 37): OpenMP tasks built with GCC, or with clang and LLVM's
libomp, recorded through OMPT (recorder-omp-tasks-oracle-clang), the same
program (omp-tasks.c: one thread makes twelve tasks of unequal cost in a
`single`, the team runs them in the barrier that ends it; then a taskloop of eight tasks, whose maker
waits for them in the taskloop's taskgroup; last, six tasks of a `single
nowait` that the team runs in the region's closing barrier -- with libomp
after the workers' join posts) recorded on one CPU with
--as-cpus 4.  On one CPU which thread ran which task is an artefact of
time slices; the oracle deals this run's task durations (each task's
CLOCK_THREAD_CPUTIME_ID, printed by the program) out as P cores would
(each to the thread free first: threads in a barrier take the oldest;
the taskloop's maker, waiting in its taskgroup, the newest under libgomp,
the oldest under libomp) and schedules the threads' loads with the
model's ideal processor sharing; ecp's prediction must be within 10% of
it at P = 1..4.  No timing is compared
across runs.  The program's results are unchanged (each taskloop task ran
its three iterations: the bounds reached it), no task construct is named
unmodelled, and none is kept as recorded.  `ecp report --by spawnsite`
finds the two task-creating sites, each with its tasks' measured CPU time
as work (within 10%) and, its tasks being leaves, as span.

usage: test_omp_tasks.py OMP_TASKS_BINARY [--libomp]"""
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


def dealt(durations, team, maker_newest=False):
    """Each task to the thread free first (ties: the first in the team):
    threads in a barrier take the oldest task; thread 0, when it made the
    tasks and waits for them in a taskgroup under libgomp, the newest
    (libgomp queues a taskgroup's tasks last in, first out)."""
    free = [0] * team
    left = list(durations)
    while left:
        j = free.index(min(free))
        free[j] += left.pop(-1 if maker_newest and j == 0 else 0)
    return free


def spawn_sites(ecp_bin, trace, tasks, loop, late):
    """ecp report --by spawnsite: the single's task site made 12 tasks, the
    taskloop's 8, the nowait single's 6; each task is a leaf (no child), so
    a site's work is its tasks' measured CPU time and its span the same
    (parallelism 1)."""
    r = subprocess.run([ecp_bin, 'report', trace, '--by', 'spawnsite', '--format', 'json'],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, 'ecp report --by spawnsite: exit %d: %s' % (r.returncode, r.stderr))
    sites = json.loads(r.stdout)['spawn_sites']
    by_tasks = {s['tasks']: s for s in sites}
    check(len(sites) == 3 and set(by_tasks) == {len(tasks), len(loop), len(late)},
          'spawn sites %s, want one of %d tasks, one of %d, one of %d'
          % (sites, len(tasks), len(loop), len(late)))
    for n, want in ((len(tasks), sum(tasks)), (len(loop), sum(loop)), (len(late), sum(late))):
        s = by_tasks[n]
        err = (s['work_ns'] - want) / want
        print('spawn site %s: %d tasks, work %.1f ms (measured %.1f ms, %+.1f%%), span %.1f ms'
              % (s['name'], n, s['work_ns'] / 1e6, want / 1e6, 100 * err, s['span_ns'] / 1e6))
        check(abs(err) <= TOLERANCE, 'site %s: work %.1f%% off the tasks\' CPU time'
              % (s['name'], 100 * err))
        check(s['span_ns'] == s['work_ns'], 'site %s: leaf tasks, span %d != work %d'
              % (s['name'], s['span_ns'], s['work_ns']))
    # the HTML report's spawn-site table says the same
    html = os.path.join(os.path.dirname(trace), 'report.html')
    r = subprocess.run([ecp_bin, 'viz', trace, '-P', '2', '-o', html],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, 'ecp viz: exit %d: %s' % (r.returncode, r.stderr))
    with open(html) as f:
        page = f.read()
    table = page[page.find('<section id="spawn">'):]
    rows = re.findall(r'<tr><td class="name">([^<]*)</td><td data-v="(\d+)">\d+</td>'
                      r'<td data-v="(\d+)">', table[:table.find('</section>')])
    check(sorted((n, int(t), int(w)) for n, t, w in rows) ==
          sorted((s['name'], s['tasks'], s['work_ns']) for s in sites),
          'HTML spawn sites %s, JSON %s' % (rows, sites))


def attempt(prog, ecp_bin, work, libomp):
    """One recording and every check of it (exits on a failure)."""
    trace = os.path.join(work, 'trace')
    shutil.rmtree(trace, ignore_errors=True)
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
    late = [m['late_%d' % i] for i in range(len([k for k in m if k.startswith('late_')]))]
    check(len(late) == 6, '%d nowait tasks measured, want 6' % len(late))
    s = subprocess.run([ecp_bin, 'scan', trace, '-P', '1-4', '--format', 'json'],
                       capture_output=True, text=True, timeout=120)
    check(s.returncode == 0, 'ecp scan: exit %d: %s' % (s.returncode, s.stderr))
    check('kept on the threads' not in s.stderr,
          'tasks were kept as recorded: %s' % s.stderr)
    got = json.loads(s.stdout)['makespan_ns']
    worst = 0.0
    for i, pr in enumerate(range(1, 5)):
        want = (m['setup'] + fluid(dealt(tasks, team), pr) + fluid(dealt(loop, team, not libomp), pr) +
                fluid(dealt(late, team), pr) + m['tail'])
        err = (got[i] - want) / want
        worst = max(worst, abs(err))
        print('tasks P=%d: predicted %.1f ms, oracle %.1f ms (%+.1f%%)'
              % (pr, got[i] / 1e6, want / 1e6, 100 * err))
    check(worst <= TOLERANCE, 'a task prediction is %.1f%% off the oracle' % (100 * worst))
    spawn_sites(ecp_bin, trace, tasks, loop, late)


def main():
    prog = os.path.abspath(sys.argv[1])
    libomp = '--libomp' in sys.argv[2:]
    ecp_bin = ecp()
    work = workdir()
    # Recorded once more when a check fails: a CI run's clang pass once
    # found one site's work 10.4% over its tasks' own clocks (19.6 ms for
    # 17.7 ms; every other site within 0.1%), which dozens of runs by hand,
    # alone and beside two busy loops, never showed again (0.0-0.3%).  The
    # cause was not found; a second failure fails the test.
    retry('tasks', lambda: attempt(prog, ecp_bin, work, libomp))
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
