#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 33): a program that closes every descriptor it did not open
(a loop of close, close_range, closefrom) records as it runs: exit 0, its
output, both threads in the model.

usage: test_close_all.py CLOSE_ALL"""
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
    modes = ('loop', 'range', 'from')
    for mode in modes:
        trace = os.path.join(work, 'trace-' + mode)
        p = record(['-q', '-o', trace], [prog, mode], cwd=work)
        check(p.returncode == 0 and p.stdout == 'done\n',
              '%s: exit %d, output %r: %s' % (mode, p.returncode, p.stdout, p.stderr))
        i = subprocess.run([ecp(), 'info', '--format', 'json', trace], capture_output=True,
                           text=True)
        check(i.returncode == 0, '%s: ecp info: %s' % (mode, i.stderr))
        check(json.loads(i.stdout)['threads'] == 2, '%s: threads: %s' % (mode, i.stdout[:200]))
    shutil.rmtree(work, ignore_errors=True)
    print('ok: %d ways of closing every descriptor (%s)' % (len(modes), ', '.join(modes)))


main()
