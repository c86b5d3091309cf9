#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 34): functions the compiler inlined are found by sampling.

An -O2 program whose two stages are inlined into its workers (no symbol of
their own), recorded sampled: each stage is a row of its own, marked
"[inlined]", whose work matches the CPU time the program read from each
thread's own clock around the stage -- less the sampler's cost the same
recording measured -- within the bound every sampled function has (10%, or
3/sqrt(samples) when wider).  `whatif --faster stage_parse` finds it.

usage: test_inlined.py INLINED"""
import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

STAGES = ('stage_parse', 'stage_score')


def main():
    prog = os.path.abspath(sys.argv[1])
    syms = subprocess.run(['nm', prog], capture_output=True, text=True).stdout
    check(not any(' ' + s + '\n' in syms or s + '.' in syms for s in STAGES),
          'the compiler kept a symbol of a stage: the test needs them inlined')
    work = workdir()
    try:
        trace = os.path.join(work, 't')
        p = record(['-q', '-o', trace], [prog], cwd=work)
        check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
        clock = {s: 0 for s in STAGES}
        for line in p.stdout.splitlines():
            name, _, v = line.partition(' ')
            if name in clock:
                clock[name] += int(v)
        meta = read_meta(trace)
        check(meta.get('functions_mode') == 'sample',
              'recorded mode %s, not sampled' % meta.get('functions_mode'))
        cost = int(meta.get('sample_cost_ns', '0'))
        r = subprocess.run([ecp(), 'report', trace, '-P', '1', '--top', '0', '--format',
                            'json'], capture_output=True, text=True)
        check(r.returncode == 0, 'report: %s' % r.stderr)
        rows = {f['name']: f for f in json.loads(r.stdout)['functions']}
        for s in STAGES:
            row = rows.get(s + ' [inlined]')
            check(row is not None, '%s is not a row: %s' % (s, sorted(rows)[:12]))
            n = row.get('samples', 0)
            check(n >= 30, '%s: only %d samples' % (s, n))
            want = clock[s] - n * cost
            off = abs(row['work_ns'] - want) / want
            bound = max(0.10, 3 / math.sqrt(n))
            print('%s [inlined]: %d ns from %d samples, %d ns by its threads\' clocks '
                  '(less %d ns a sample): off by %.1f%% (bound %.1f%%)' %
                  (s, row['work_ns'], n, want, cost, 100 * off, 100 * bound))
            check(off <= bound, '%s: off by %.1f%%, more than %.1f%%' %
                  (s, 100 * off, 100 * bound))
        w = subprocess.run([ecp(), 'whatif', trace, '--faster', 'stage_parse=50', '-P', '1',
                            '--format', 'json'], capture_output=True, text=True)
        check(w.returncode == 0, 'whatif --faster stage_parse: %s' % w.stderr)
        found = json.dumps([c.get('found') for c in json.loads(w.stdout)['changes']])
        check('stage_parse [inlined]' in found, 'whatif found %s' % found)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print('ok: both inlined stages found by sampling within their bound')


main()
