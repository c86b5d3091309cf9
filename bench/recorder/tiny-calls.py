#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tiny functions recorded at --min-duration 0 (issue 31): T1 against the
program's CPU time unrecorded, measured side by side.

tests/recorder/rec-tiny-calls makes 3 M calls of a 3-5 ns leaf on two
threads and prints each thread's own CPU clock.  Each round runs it
unrecorded (`taskset -c 0`, the threads' clocks summed), then recorded
(`ecp record --min-duration 0`, T1 = `ecp info`'s work), once per build
given, in turn, so that the ratio T1 / unrecorded is taken pair by pair on
this machine's drifting speed.  Prints every pair, then min / median / max
of the ratio per build.  The recorder's cost is some 10x the program's
here (two records a call), so a ratio near 1 says that cost came out of
the times to within a fraction of a nanosecond a call.

usage: bench/recorder/tiny-calls.py RUNS BUILD_DIR [OTHER_BUILD_DIR...]"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def unrecorded(prog):
    p = subprocess.run(['taskset', '-c', '0', prog], capture_output=True, text=True,
                       check=True)
    return sum(int(x) for x in re.findall(r'cpu_ns=(\d+)', p.stdout))


def recorded(build, trace):
    ecp = os.path.join(build, 'cli', 'ecp')
    prog = os.path.join(build, 'tests', 'recorder', 'rec-tiny-calls')
    subprocess.run([ecp, 'record', '--min-duration', '0', '-q', '-f', '-o', trace, '--',
                    prog], capture_output=True, check=True)
    info = subprocess.run([ecp, 'info', '--format', 'json', trace], capture_output=True,
                          text=True, check=True)
    meta = {}
    with open(os.path.join(trace, 'ecp-record.meta')) as f:
        for line in f:
            k, _, v = line.strip().partition('=')
            meta[k] = v
    return json.loads(info.stdout)['work_ns'], int(meta.get('call_untimed_ps', 0))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    builds = [os.path.abspath(b) for b in sys.argv[2:]]
    ratios = {b: [] for b in builds}
    with tempfile.TemporaryDirectory(prefix='ecp-tiny-') as work:
        trace = os.path.join(work, 'trace')
        for _ in range(runs):
            for b in builds:
                cpu = unrecorded(os.path.join(b, 'tests', 'recorder', 'rec-tiny-calls'))
                t1, untimed_ps = recorded(b, trace)
                ratios[b].append(t1 / cpu)
                print('%s: unrecorded %.2f ms, T1 %.2f ms, ratio %.3f (untimed %.2f ns a '
                      'call)' % (b, cpu / 1e6, t1 / 1e6, t1 / cpu, untimed_ps / 1e3),
                      flush=True)
    for b in builds:
        r = sorted(ratios[b])
        print('%s: T1 / unrecorded CPU min %.3f median %.3f max %.3f (%d pairs)' %
              (b, r[0], statistics.median(r), r[-1], len(r)))


if __name__ == '__main__':
    main()
