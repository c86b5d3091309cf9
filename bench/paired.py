#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two commands timed in turn, A B A B ..., RUNS pairs: this machine's speed
drifts 2-3x over minutes, so a ratio is only meaningful pair by pair.  For
each command: wall, user+sys CPU and peak RSS of the whole process tree
(os.wait4's resource usage), min / median / max; then the ratios A/B of
each pair, min / median / max.

usage: bench/paired.py [--runs N] --a 'COMMAND A' --b 'COMMAND B'
(each command a shell command line, run with sh -c)"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def timed(cmd):
    """wall s, CPU s (user + sys) and peak RSS MiB of `sh -c cmd`."""
    t0 = time.monotonic()
    p = subprocess.Popen(['sh', '-c', cmd], stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit('paired.py: exit %d: %s' % (p.returncode, cmd))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def spread(values):
    return '%10.4f  %10.4f  %10.4f' % (min(values), statistics.median(values), max(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--a', required=True)
    ap.add_argument('--b', required=True)
    o = ap.parse_args()
    rows = {'A': [], 'B': []}
    for _ in range(o.runs):
        rows['A'].append(timed(o.a))
        rows['B'].append(timed(o.b))
    print('%-14s  %10s  %10s  %10s' % ('', 'min', 'median', 'max'))
    for k, label in ((0, 'wall s'), (1, 'cpu s'), (2, 'peak MiB')):
        for side in 'AB':
            print('%-14s  %s' % (side + ' ' + label, spread([r[k] for r in rows[side]])))
    for k, label in ((0, 'wall'), (1, 'cpu'), (2, 'peak')):
        ratios = [a[k] / b[k] for a, b in zip(rows['A'], rows['B']) if b[k] > 0]
        if ratios:
            print('%-14s  %s' % ('A/B ' + label, spread(ratios)))


main()
