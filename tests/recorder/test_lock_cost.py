#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: the cost of lock events is what the run measured, not the
calibration's figure.  LOCK_COST takes and releases a mutex between walks
of a buffer larger than the caches (3 events a round, each costing the
recorder cache misses that the driver's calibration, a loop of its own,
never sees); it prints its own CPU clock.

Each attempt runs it unrecorded on the recording CPU, then recorded
(--no-functions).  The cost per event other than a function record must
have been timed in the run by the wrappers (other_event_cost_source=run,
nearly every event timed, what a wrapper costs outside its windows
measured at start and believable), and T1 must be within TOLERANCE of the
unrecorded program's own clock.  Subtracting the calibration's figure left
T1 off by 0.2-12x on this 2-CPU machine (the figure 135-205 ns, the events
185-240 ns); timed in the run, and the stretches of sub-buffer switches
taken out from the switch records, 0.91-0.99x.  The machine is shared: an
attempt beside a busy neighbour can miss, so up to ATTEMPTS are made.

usage: test_lock_cost.py LOCK_COST"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

ROUNDS, WALK = 300000, 4096
TOLERANCE = 0.3  # of the unrecorded clock, either way
ATTEMPTS = 3
# between attempts: a clean-clone CI run (2026-11-28) missed all three,
# back to back within 5 s (ratios 1.38-1.43, 1.15-1.23 that hour by hand)
PAUSE_S = 5.0


def attempt(prog, work, cpu):
    unrecorded = pinned_cpu_clock([prog, str(ROUNDS), str(WALK)], cpu)
    trace = os.path.join(work, 'lock-cost')
    shutil.rmtree(trace, ignore_errors=True)
    p = record(['-o', trace, '--no-functions', '--cpu', str(cpu)],
               [prog, str(ROUNDS), str(WALK)], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    meta = read_meta(trace)
    check(meta.get('other_event_cost_source') == 'run',
          'the lock events\' cost was not timed in the run: %s'
          % meta.get('other_event_cost_source'))
    timed = int(meta.get('other_events_timed', 0))
    check(timed >= 0.9 * 3 * ROUNDS, 'only %d of %d lock events timed' % (timed, 3 * ROUNDS))
    untimed_ps = int(meta.get('other_event_untimed_ps', 0))
    check(untimed_ps < 100000, 'a wrapper outside its windows: %d ps' % untimed_ps)
    # refused beside another recording on the same CPU in a CI run,
    # 2026-11-27: 14.6%
    info = info_unless_refused(trace)
    if info is None:
        return False
    t1 = info['work_ns']
    ratio = t1 / unrecorded
    print('unrecorded %.1f ms; recorded: %.1f ns per event (%.1f calibrated, %.1f a '
          'wrapper untimed), T1 %.1f ms, ratio %.3f'
          % (unrecorded / 1e6, int(meta['other_event_cost_ps']) / 1e3,
             int(meta['other_event_calibrated_ps']) / 1e3, untimed_ps / 1e3, t1 / 1e6,
             ratio))
    return abs(ratio - 1.0) <= TOLERANCE


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    prog = os.path.abspath(sys.argv[1])
    cpu = min(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix='ecp-lock-cost-') as work:
        first_passing(lambda: attempt(prog, work, cpu), ATTEMPTS,
                      'T1 off the unrecorded clock by more than %d%%, or the recording '
                      'refused, in %d attempts' % (TOLERANCE * 100, ATTEMPTS),
                      pause_s=PAUSE_S)


if __name__ == '__main__':
    main()
