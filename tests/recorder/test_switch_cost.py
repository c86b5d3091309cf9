#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: the CPU time of a context switch (recorder/calibrate-switch.h).
Two threads hand a turn to each other 20,000 times each on one CPU.  The
recording calibrates what a switch-in costs the incoming thread before its
switch-in record, and the reader adds it before every switch-in:
  - the calibration is plausible (more than 20 ns, less than 20 us);
  - the model holds the program's CPU time (the consistency check is ok);
  - the same trace read with the cost set to 0 has the calibrated cost
    times the switch-ins less work (within 10%: intervals whose start the
    thread's previous switch-out bounds, clock readings the recorder's
    cost once clamped), and holds less of the program's CPU time.

usage: test_switch_cost.py HANDOFF_BINARY"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def info(trace):
    p = subprocess.run([ecp(), 'info', '--format', 'json', '--allow-inconsistent', trace],
                       capture_output=True, text=True)
    check(p.returncode == 0, 'ecp info %s: %s' % (trace, p.stderr))
    return json.loads(p.stdout)


class Uncalibrated(Exception):
    """The recording's switch cost is not believable (0: the calibration
    measured nothing, and the recording says why)."""

    def __init__(self, cost_ps, stderr):
        super().__init__(cost_ps)
        self.cost_ps = cost_ps
        self.why = stderr.strip().splitlines()[-1] if stderr.strip() else 'no message'


def measured(prog, work):
    """Records the hand-off; returns (work added by the cost, its expected
    amount, the answer with it, the answer without it, the meta), or
    raises Uncalibrated."""
    trace = os.path.join(work, 'trace')
    shutil.rmtree(trace, ignore_errors=True)
    # no samples: their cost on this program is another question (issue 31)
    p = record(['-o', trace, '--no-functions'], [prog], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    meta = read_meta(trace)
    if meta['clock'] != 'perf-switch':
        skip('perf refused: the fallback clock holds the switches already')
    cost_ps = int(meta['switch_cost_ps'])
    if not 20_000 < cost_ps < 20_000_000:
        raise Uncalibrated(cost_ps, p.stderr)
    with_cost = info(trace)
    # ok; or, beside another recording on the same CPU (CI runs), a warning
    # within 10%: what the events cost moves with the load (-1% to -9.5%
    # with the build before the events' cost was timed in the run as with
    # it, 2026-11-27); fatal is a failure
    c = with_cost['consistency']
    check(c['status'] == 'ok' or (c['status'] == 'warning' and abs(c['gap_pct']) < 10),
          'with the switch cost: %s' % c)
    tids = {t['tid'] for t in with_cost['thread_list']}
    ins = sum(1 for e in read_trace(os.path.join(trace, 'sched'))
              if e['event'] == 'ecp_sched:switch' and not e['out'] and e['tid'] in tids)
    check(ins > 20_000, 'switch-ins of the program: %d' % ins)

    copy = os.path.join(work, 'no-cost')
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(trace, copy)
    for f in ('ecp-model.cache', 'ecp-record.streams'):
        if os.path.exists(os.path.join(copy, f)):
            os.remove(os.path.join(copy, f))
    with open(os.path.join(copy, 'ecp-record.meta')) as f:
        lines = f.read().splitlines()
    with open(os.path.join(copy, 'ecp-record.meta'), 'w') as f:
        # the same trace but for the cost; as an unlisted trace (no
        # manifest), whose streams nothing checks against the edited meta
        f.write('\n'.join('switch_cost_ps=0' if l.startswith('switch_cost_ps=') else l
                          for l in lines if not l.startswith('manifest=')) + '\n')
    without = info(copy)
    added = with_cost['work_ns'] - without['work_ns']
    expect = ins * ((cost_ps + 500) // 1000)
    print('switch cost %d ps, %d switch-ins: work %d ns with, %d without (+%d, %d expected);'
          ' gap %.2f%% with, %.2f%% without; steal %s ns'
          % (cost_ps, ins, with_cost['work_ns'], without['work_ns'], added, expect,
             with_cost['consistency']['gap_pct'], without['consistency']['gap_pct'],
             meta.get('steal_ns', '?')))
    return added, expect, with_cost, without, meta


# STEAL_TRIES: without the cost the threads' switch records fall more than
# 5% short of their own clocks, so they are not scaled to them, and keep
# any steal; with it they are, and lose it: the difference is the cost less
# that steal.  A CI run's ASan pass (2026-11-27, beside another test) saw
# 20 ms of steal in a 170 ms recording and +30.8 ms of 41.7 ms (0.74x).
# A recording that saw steal and misses the bound below is made again once.
STEAL_TRIES = 2


# CALIBRATION_TRIES: a calibration that measured nothing (0 ps, and the
# recording says why) is the machine's moment, not the recorder's: in a
# clean-clone CI run (2026-11-27) both this test's calibration and the
# next test's, seven seconds apart, measured 0 while the same build passed
# them in two other runs and in three by hand.  A recorder whose
# calibration is broken fails every try.
CALIBRATION_TRIES = 3


def calibrated(prog, work):
    """measured(), recorded again while the switch cost's calibration
    measured nothing."""
    for attempt in range(CALIBRATION_TRIES):
        try:
            return measured(prog, work)
        except Uncalibrated as u:
            check(attempt + 1 < CALIBRATION_TRIES,
                  'switch cost %d ps in %d recordings: %s' % (u.cost_ps, CALIBRATION_TRIES, u.why))
            print('switch cost %d ps (%s): recording again' % (u.cost_ps, u.why))


def main():
    prog = os.path.abspath(sys.argv[1])
    ecp()
    work = workdir()
    for attempt in range(STEAL_TRIES):
        added, expect, with_cost, without, meta = calibrated(prog, work)
        # more than a few intervals' start is bounded by the switch-out
        # before; a little more where the recorder's cost per event, taken
        # out of a wait that ended just after a switch-in, once clamped the
        # clock: more such clamps on a loaded machine (1.106-1.125x with
        # recorder-costs running beside it, 4 runs in 8; 1.01-1.04x alone).
        # Once per switch-in, not twice (2x) or never (0x), is what this
        # tells apart.  A little less where more stays start right at the
        # switch-out before them (no room for the cost): 0.88x once in a
        # full suite run beside other tests (2026-11-27).
        once = 0.75 * expect <= added <= 1.3 * expect
        if once or int(meta.get('steal_ns', '0')) == 0 or attempt + 1 == STEAL_TRIES:
            break
        print('steal while recording: recording again')
    check(once, 'the cost added once per switch-in: +%d of %d' % (added, expect))
    check(abs(with_cost['consistency']['gap_pct']) < abs(without['consistency']['gap_pct']),
          'closer to the program\'s CPU time with it')
    # the Linux-like model's own cost per switch, on top of durations that
    # hold the recorded switches: said (cli/cmd-scan.c)
    p = subprocess.run([ecp(), 'scan', '-P', '1-2', '--sched', 'linux', '--allow-inconsistent',
                        os.path.join(work, 'trace')], capture_output=True, text=True)
    check(p.returncode == 0 and "the Linux-like model's T_1" in p.stderr,
          'scan --sched linux says its switches count twice here: %s' % p.stderr[-400:])
    # and whatif, from its own replay at P = 1 where only P = 2 is asked
    p = subprocess.run([ecp(), 'whatif', '--faster', 'player=10', '-P', '2', '--sched', 'linux',
                        '--allow-inconsistent', os.path.join(work, 'trace')],
                       capture_output=True, text=True)
    check(p.returncode == 0 and "ecp whatif: warning: the Linux-like model's T_1" in p.stderr,
          'whatif --sched linux says it too: %s' % p.stderr[-400:])
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
