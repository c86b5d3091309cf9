#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: record prims (8 threads, every interposed primitive) and check that
the trace holds each call the program reports, in a consistent order, with
no loss; the program's exit status and stdout pass through ecp record.

usage: test_prims.py PRIMS_BINARY [--user NAME]"""
import collections
import errno
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def setup_user(name, work):
    """An ordinary user able to write `work`; skip when none can be made."""
    if os.geteuid() != 0:
        skip('the --user variant needs root to switch user')
    if not shutil.which('runuser'):
        skip('runuser not available')
    if subprocess.run(['id', name], capture_output=True).returncode != 0:
        if subprocess.run(['useradd', '-m', name], capture_output=True).returncode != 0:
            skip('cannot create user ' + name)
    if subprocess.run(['runuser', '-u', name, '--', 'true'], capture_output=True).returncode:
        skip('cannot switch to user ' + name)
    shutil.chown(work, user=name)
    os.chmod(work, 0o755)


def main():
    prog = os.path.abspath(sys.argv[1])
    user = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == '--user' else None
    work = workdir()
    if user:
        setup_user(user, work)
        # the user must reach the program and the ecp binary
        probe = subprocess.run(['runuser', '-u', user, '--', 'test', '-x', prog])
        if probe.returncode:
            skip('user %s cannot run %s' % (user, prog))
    trace = os.path.join(work, 'trace')
    p = record(['-o', trace], [prog], cwd=work, user=user)
    check(p.returncode == 7, 'exit status %d, expected the program\'s 7; stderr: %s'
          % (p.returncode, p.stderr))
    out = program_output(p.stdout)
    check(out.get('counter') == '320', 'program stdout did not pass through: %r' % p.stdout)
    check(re.search(r'ecp record: \d+ threads, \d+ events, 0 discarded, ', p.stderr),
          'summary: ' + p.stderr)
    meta = read_meta(trace)
    check(meta['exit_status'] == '7', 'meta exit_status=%s' % meta['exit_status'])
    check(meta['clock'] in ('perf-switch', 'thread-cputime'), 'clock=' + meta['clock'])
    check(int(meta['event_cost_ns']) > 0, 'no calibration: ' + meta['event_cost_ns'])
    check(meta['discarded_events'] == '0', 'discarded: ' + meta['discarded_events'])
    ev = [e for e in read_trace(os.path.join(trace, 'main')) if e['event'].startswith('ecp:')]

    created = int(out['created'])
    check(count(ev, 'ecp:thread_create', ok=1) == created, 'thread_create')
    check(count(ev, 'ecp:thread_start') == created + 1, 'thread_start (main + created)')
    check(count(ev, 'ecp:thread_exit') >= created - 1, 'thread_exit')
    check(count(ev, 'ecp:thread_join_begin') == int(out['joins']), 'join_begin')
    check(count(ev, 'ecp:thread_join_end', ok=1) == int(out['joins']), 'join_end')
    check(count(ev, 'ecp:thread_detach') == 1, 'detach')
    tnames = sorted(e['name'] for e in named(ev, 'ecp:thread_name'))
    check(tnames == sorted(['prims-main'] + ['worker-%d' % i for i in range(8)]), 'thread_name: %s' % tnames)
    check(count(ev, 'ecp:process_exit', status=7) == 1, 'process_exit status 7')
    check(count(ev, 'ecp:once_begin') == 8 and count(ev, 'ecp:once_end') == 8, 'once')
    check(sum(e['ran'] for e in named(ev, 'ecp:once_end')) == int(out['once_runs']), 'once ran')

    # locks: group acquisitions by object
    acq = collections.Counter((e['obj'], e['kind'], e['mode']) for e in named(ev, 'ecp:lock_acquired'))
    per_mutex = sorted(n for (o, k, m), n in acq.items() if k == 0)
    check(int(out['normal_locks']) in per_mutex, 'normal mutex acquisitions %s' % per_mutex)
    check(int(out['recursive_locks']) in per_mutex, 'recursive mutex acquisitions %s' % per_mutex)
    check(sorted(n for (o, k, m), n in acq.items() if k == 2) ==
          sorted([int(out['rwlock_rd']), int(out['rwlock_wr'])]), 'rwlock %s' % acq)
    check([n for (o, k, m), n in acq.items() if k == 1] == [int(out['spin_locks'])], 'spinlock')
    check(count(ev, 'ecp:lock_acquired', kind=2, mode=1) == int(out['rwlock_rd']), 'rdlock')
    check(count(ev, 'ecp:lock_acquired', **{'try': 1}) >= 1, 'trylock success')
    failed = sorted(e['err'] for e in named(ev, 'ecp:lock_failed'))
    check(failed == sorted([errno.EDEADLK, errno.EBUSY, errno.ETIMEDOUT]),
          'lock_failed errs %s' % failed)
    inits = sorted((e['kind'], e['type']) for e in named(ev, 'ecp:lock_init'))
    check(inits == [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0)], 'lock_init %s' % inits)
    check(count(ev, 'ecp:lock_release') == sum(acq.values()), 'every acquire released')

    # mutual exclusion, in trace order, on every mutex and spinlock (a
    # condition wait releases its mutex from begin to end)
    holder = {}
    for e in ev:
        if e['event'] == 'ecp:lock_acquired' and e['kind'] in (0, 1):
            h = holder.get(e['obj'])
            check(h is None or h[0] == e['vtid'], 'two holders of %#x' % e['obj'])
            holder[e['obj']] = (e['vtid'], (h[1] if h else 0) + 1)
        elif e['event'] == 'ecp:lock_release' and e['kind'] in (0, 1):
            h = holder.get(e['obj'])
            check(h is not None and h[0] == e['vtid'], 'release by non-holder %#x' % e['obj'])
            holder[e['obj']] = None if h[1] == 1 else (h[0], h[1] - 1)
        elif e['event'] == 'ecp:cond_wait_begin':   # the wait releases the mutex
            h = holder.get(e['mutex'])
            check(h is not None and h[0] == e['vtid'], 'cond wait without the mutex')
            holder[e['mutex']] = None
        elif e['event'] == 'ecp:cond_wait_end':     # and holds it again on return
            check(holder.get(e['mutex']) is None, 'cond wait returned to a held mutex')
            holder[e['mutex']] = (e['vtid'], 1)

    # condition variable: a timed wait that timed out, an untimed one woken
    waits = named(ev, 'ecp:cond_wait_begin')
    check(sorted(e['timeout_ns'] > 0 for e in waits) == [False, True], 'cond waits')
    check(sorted(e['err'] for e in named(ev, 'ecp:cond_wait_end')) == [0, errno.ETIMEDOUT],
          'cond wait ends')
    check(count(ev, 'ecp:cond_signal') == 1 and count(ev, 'ecp:cond_broadcast') == 1, 'cond')

    # semaphores: 8 waits that took a token, a trywait and a timedwait that failed
    check(count(ev, 'ecp:sem_init', value=0) == 1, 'sem_init')
    check(count(ev, 'ecp:sem_post') == int(out['sem_posts']), 'sem_post')
    check(count(ev, 'ecp:sem_wait_begin', timeout_ns=2**64 - 1) == 1, 'sem_trywait')
    check(count(ev, 'ecp:sem_wait_end', err=0) == int(out['sem_posts']), 'sem waits')
    check(sorted(e['err'] for e in named(ev, 'ecp:sem_wait_end') if e['err']) ==
          sorted([errno.EAGAIN, errno.ETIMEDOUT]), 'failed sem waits')

    # barrier: one init, every arrival, exactly one serial (last) thread
    check(count(ev, 'ecp:barrier_init', count=8) == 1, 'barrier_init')
    check(count(ev, 'ecp:barrier_wait_begin') == int(out['barrier_waits']), 'barrier begin')
    check(count(ev, 'ecp:barrier_wait_end', serial=1) == 1, 'barrier serial')
    check(count(ev, 'ecp:barrier_wait_end') == int(out['barrier_waits']), 'barrier end')

    # delays: every kind used, begin/end paired per thread
    kinds = collections.Counter(e['kind'] for e in named(ev, 'ecp:delay_begin'))
    for k in range(0, 8):
        check(kinds[k] >= 1, 'delay kind %d missing: %s' % (k, kinds))
    check(count(ev, 'ecp:delay_end') == sum(kinds.values()), 'delay ends')

    # per thread: thread_start first, thread_exit or process_exit last
    by_tid = collections.defaultdict(list)
    for e in ev:
        by_tid[e['vtid']].append(e['event'])
    for tid, names in by_tid.items():
        check(names[0] == 'ecp:thread_start', 'thread %d starts with %s' % (tid, names[0]))
        check(names[-1] in ('ecp:thread_exit', 'ecp:process_exit'),
              'thread %d ends with %s' % (tid, names[-1]))

    # scheduling: every recorded thread appears in the switch records
    if meta['clock'] == 'perf-switch':
        sched = read_trace(os.path.join(trace, 'sched'))
        tids = {e['tid'] for e in sched if e['event'] == 'ecp_sched:switch'}
        check(set(by_tid) <= tids, 'threads without switches: %s' % (set(by_tid) - tids))
        check(count(sched, 'ecp_sched:lost') == 0, 'perf lost switch records')
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
