#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 33): calls deeper than the recorder's shadow stack are
counted, and every analysis warns how many were not recorded.

usage: test_deep.py DEEP"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def main():
    prog = os.path.abspath(sys.argv[1])
    work = workdir()
    trace = os.path.join(work, 'trace')
    p = record(['-q', '-o', trace], [prog], cwd=work)
    check(p.returncode == 0 and p.stdout == '3000\n', 'exit %d: %s' % (p.returncode, p.stderr))
    # main, then 3,001 calls of depth(): the 1,024 frames hold main and
    # 1,023 of them
    deep = int(read_meta(trace)['calls_too_deep'])
    check(deep == 3001 - 1023, 'calls_too_deep=%d, want %d' % (deep, 3001 - 1023))
    i = subprocess.run([ecp(), 'info', '--format', 'json', trace], capture_output=True,
                       text=True)
    check(i.returncode == 0, 'ecp info: %s' % i.stderr)
    warnings = ' '.join(json.loads(i.stdout)['warnings'])
    check('%d calls deeper than' % deep in warnings, 'warnings: %s' % warnings)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
