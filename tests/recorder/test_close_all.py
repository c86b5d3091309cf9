#!/usr/bin/env python3
"""e2e (issue 33): a program that closes every descriptor it did not open
records as it runs: exit 0, its output, both threads in the model.

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
    trace = os.path.join(work, 'trace')
    p = record(['-q', '-o', trace], [prog], cwd=work)
    check(p.returncode == 0 and p.stdout == 'done\n',
          'exit %d, output %r: %s' % (p.returncode, p.stdout, p.stderr))
    i = subprocess.run([ecp(), 'info', '--format', 'json', trace], capture_output=True,
                       text=True)
    check(i.returncode == 0, 'ecp info: %s' % i.stderr)
    check(json.loads(i.stdout)['threads'] == 2, 'threads: %s' % i.stdout[:200])
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
