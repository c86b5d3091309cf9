#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: what the recorder costs the thread that creates and joins many
short-lived threads is measured in the run and taken out of its work.
THREAD_CREATE_COST makes THREADS threads, 4 at a time, each adding 2,000
numbers, and joins them; main prints its own CPU clock.

The wrappers of pthread_create and pthread_join must have timed their
windows in the run (other_event_cost_source=run; their events cost main
0.45-0.6 us each here, the driver's calibrated figure 0.14-0.22 us), the
driver must have measured what the perf events' copy into a new thread
costs its creator (thread_create_cost_ps, 1.5-2.8 us here), and main's work
in the model must be its own clock in the same run less at least that copy
for every thread made (the reader takes it out) and less no more than the
clock.  Against the program run unrecorded (printed, not asserted: the
unrecorded clock itself moved by up to 40% between two runs beside each
other on this shared machine) main's work was 1.31-1.95x before, and is
1.1-1.6x now (docs/VALIDATION.md).  A recording ecp refuses as not holding
the program's time is made again, up to ATTEMPTS in all.

usage: test_thread_create_cost.py THREAD_CREATE_COST"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

THREADS = 6000
ATTEMPTS = 3


def attempt(prog, work, cpu):
    before = pinned_cpu_clock([prog, str(THREADS)], cpu, 'main cpu_ns')
    trace = os.path.join(work, 'thread-create-cost')
    shutil.rmtree(trace, ignore_errors=True)
    p = record(['-o', trace, '--no-functions', '--cpu', str(cpu)],
               [prog, str(THREADS)], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    own = cpu_clock(p.stdout, 'main cpu_ns')
    meta = read_meta(trace)
    check(meta.get('other_event_cost_source') == 'run',
          'the thread events\' cost was not timed in the run: %s'
          % meta.get('other_event_cost_source'))
    create_ps = int(meta.get('thread_create_cost_ps', 0))
    check(0 < create_ps < 50000000,
          'what a new thread\'s perf events cost its creator: %d ps' % create_ps)
    info = info_unless_refused(trace)
    if info is None:
        return False
    mains = [t for t in info['thread_list'] if t['start_function'] == 'main']
    check(len(mains) == 1, 'main not found once in the model: %d' % len(mains))
    work_ns = mains[0]['work_ns']
    copies_ns = THREADS * create_ps / 1000
    print('main: own clock %.1f ms recorded, %.1f ms unrecorded; recorded: %.1f ns per '
          'event (%.1f calibrated), %.2f us a thread made (%.1f ms); main\'s work %.1f '
          'ms, %.3fx the unrecorded clock'
          % (own / 1e6, before / 1e6, int(meta['other_event_cost_ps']) / 1e3,
             int(meta['other_event_calibrated_ps']) / 1e3, create_ps / 1e6,
             copies_ns / 1e6, work_ns / 1e6, work_ns / before))
    check(work_ns <= own - 0.99 * copies_ns,
          'main\'s work %.1f ms is not its own clock %.1f ms less the perf events\' '
          'copies it paid for (%.1f ms)' % (work_ns / 1e6, own / 1e6, copies_ns / 1e6))
    check(work_ns > 0, 'main did no work')
    return True


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    prog = os.path.abspath(sys.argv[1])
    cpu = min(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix='ecp-thread-create-cost-') as work:
        first_passing(lambda: attempt(prog, work, cpu), ATTEMPTS,
                      'the recording refused in %d attempts' % ATTEMPTS)


if __name__ == '__main__':
    main()
