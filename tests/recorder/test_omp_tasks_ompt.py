#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 37): the OpenMP task events of a libomp (clang) program,
written through OMPT (recorder/agent/agent-ompt-task.c), checked against
what omp-tasks-ompt.c does.

Recorded with ECP_OMP_TASK_EVENTS=1 (until the reader reads these events
they are written only when asked for): 25 explicit tasks, each created once
(ids unique and > 0), begun once and ended once on one thread after its
creation, the tasks a thread runs nested; the recursive tree's 12 inner
tasks name their creating task as parent and are created on the thread
running it, between its begin and end; the depend items are the program's
(out a -- libomp says inout -- then in a, inout b on the task created
next); 8 taskloop tasks carry
flag bit 1 and the if(0) task bit 0 and runs on its creating thread; 7
taskwaits write phases 0 then 1, the taskgroup and the taskloop's group
0, 1, 2; and every task body with work has its function calls recorded
inside it (a task run in a barrier or taskwait, where the agent holds its
guard, lowers it).

Recorded without the variable: no task events, and `ecp scan` reads the
trace and names task, taskwait, taskgroup and taskloop as not modelled.

usage: test_omp_tasks_ompt.py OMP_TASKS_CLANG_BINARY"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def events_of(trace):
    evs = read_trace(os.path.join(trace, 'main'))
    return evs, [e for e in evs if e['event'].startswith('ecp:omp_task')]


def check_lifecycle(evs):
    """Each task: one create, then one begin and one end on one thread;
    per thread, the tasks begun nest.  Returns {id: create event}."""
    created, begun, ended, stacks = {}, {}, {}, {}
    for e in evs:
        name, tid = e['event'], e['vtid']
        if name == 'ecp:omp_task_create':
            check(e['task'] > 0 and e['task'] not in created, 'task id %d reused' % e['task'])
            created[e['task']] = e
        elif name == 'ecp:omp_task_begin':
            check(e['task'] in created and e['task'] not in begun,
                  'task %d begun before its creation or twice' % e['task'])
            begun[e['task']] = e
            stacks.setdefault(tid, []).append(e['task'])
        elif name == 'ecp:omp_task_end':
            st = stacks.get(tid, [])
            check(st and st[-1] == e['task'], 'task %d ends on thread %s, which runs %s'
                  % (e['task'], tid, st))
            st.pop()
            ended[e['task']] = e
    check(len(created) == 25, '%d tasks created, want 25' % len(created))
    check(set(begun) == set(created) == set(ended), 'tasks never begun or ended: %s'
          % sorted(set(created) - set(begun) | set(created) - set(ended)))
    return created, begun


def check_tree(evs, created, begun):
    """Inner tree tasks: created by a running task, on its thread, inside it."""
    running = {}
    inner = 0
    for e in evs:
        if e['event'] == 'ecp:omp_task_begin':
            running.setdefault(e['vtid'], []).append(e['task'])
        elif e['event'] == 'ecp:omp_task_end':
            running[e['vtid']].pop()
        elif e['event'] == 'ecp:omp_task_create' and e['parent']:
            inner += 1
            st = running.get(e['vtid'], [])
            check(st and st[-1] == e['parent'], 'task %d names parent %d, but thread %s '
                  'runs %s' % (e['task'], e['parent'], e['vtid'], st))
    check(inner == 12, '%d tasks created by tasks, want 12' % inner)


def check_flags_deps(evs, created, begun, m):
    deps = [e for e in evs if e['event'] == 'ecp:omp_task_dep']
    got = [(d['task'], d['addr'], d['kind']) for d in deps]
    check(len(got) == 3, 'depend items %s, want 3' % got)
    x, y = got[0][0], got[1][0]
    # libomp reports depend(out) as inout (the same order for siblings)
    out = got[0][2] if got[0][2] in (2, 3) else 2
    want = [(x, m['dep_a'], out), (y, m['dep_a'], 1), (y, m['dep_b'], 3)]
    check(got == want and y > x, 'depend items %s, want %s' % (got, want))
    loop = [t for t, e in created.items() if e['flags'] & 2]
    check(len(loop) == 8, '%d taskloop tasks, want 8' % len(loop))
    undeferred = [t for t, e in created.items() if e['flags'] & 1]
    check(len(undeferred) == 1, '%d undeferred tasks, want 1' % len(undeferred))
    t = undeferred[0]
    check(begun[t]['vtid'] == created[t]['vtid'], 'the if(0) task ran on another thread')


def check_phases(evs):
    waits = [e for e in evs if e['event'] == 'ecp:omp_taskwait']
    check([w['phase'] for w in waits].count(0) == 7 and
          [w['phase'] for w in waits].count(1) == 7, 'taskwait phases %s'
          % [w['phase'] for w in waits])
    for tid in {w['vtid'] for w in waits}:
        depth = 0
        for w in waits:
            if w['vtid'] == tid:
                depth += 1 if w['phase'] == 0 else -1
                check(depth >= 0, 'a taskwait ends before it begins on %s' % tid)
    groups = [e['phase'] for e in evs if e['event'] == 'ecp:omp_taskgroup']
    check(groups == [0, 1, 2, 0, 1, 2], 'taskgroup phases %s' % groups)


def check_bodies(evs):
    """Every task with work has a call of its own inside it."""
    calls, open_tasks, bodies = {}, {}, 0
    for e in evs:
        tid = e['vtid']
        if e['event'] == 'ecp:omp_task_begin':
            open_tasks.setdefault(tid, []).append(e['task'])
            calls[e['task']] = 0
        elif e['event'] == 'ecp:omp_task_end':
            open_tasks[tid].pop()
        elif e['event'] == 'ecp:func_entry' and open_tasks.get(tid):
            calls[open_tasks[tid][-1]] += 1
    bodies = sum(1 for n in calls.values() if n > 0)
    check(bodies >= 24, '%d task bodies have recorded calls, want at least the 24 '
          'with work' % bodies)


def main():
    prog = os.path.abspath(sys.argv[1])
    ecp_bin = ecp()
    work = workdir()
    trace = os.path.join(work, 'tasks')
    p = subprocess.run([ecp_bin, 'record', '-q', '-o', trace, '--min-duration', '0',
                        '--as-cpus', '3', '--', prog],
                       capture_output=True, text=True, timeout=120, cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    m = {k: int(v, 0) for k, v in re.findall(r'(\w+)=(0x[0-9a-f]+|\d+)', p.stdout)}
    evs, tasks = events_of(trace)
    created, begun = check_lifecycle(evs)
    check_tree(evs, created, begun)
    check_flags_deps(evs, created, begun, m)
    check_phases(evs)
    check_bodies(evs)
    print('task events: %d tasks, %d events' % (len(created), len(tasks)))
    # the model reads them: no task construct is named
    s = subprocess.run([ecp_bin, 'scan', trace, '-P', '1-2'],
                       capture_output=True, text=True, timeout=120)
    check(s.returncode == 0, 'ecp scan: exit %d: %s' % (s.returncode, s.stderr))
    for n in ('OpenMP task,', 'OpenMP taskwait,', 'OpenMP taskgroup,', 'OpenMP taskloop,'):
        check(n not in s.stderr, 'the analysis names %s: %s' % (n, s.stderr))
    # ECP_OMP_TASK_EVENTS=0 turns them off, and the constructs are named
    plain = os.path.join(work, 'plain')
    env = dict(os.environ, ECP_OMP_TASK_EVENTS='0')
    p = subprocess.run([ecp_bin, 'record', '-q', '-o', plain, '--as-cpus', '3', '--', prog],
                       capture_output=True, text=True, timeout=120, env=env, cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    _, tasks = events_of(plain)
    check(not tasks, 'task events written with ECP_OMP_TASK_EVENTS=0')
    s = subprocess.run([ecp_bin, 'scan', plain, '-P', '1-2'],
                       capture_output=True, text=True, timeout=120)
    check(s.returncode == 0, 'ecp scan: exit %d: %s' % (s.returncode, s.stderr))
    for n in ('OpenMP task,', 'OpenMP taskwait,', 'OpenMP taskgroup,', 'OpenMP taskloop,'):
        check(n in s.stderr, 'the analysis does not name %s: %s' % (n, s.stderr))
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
