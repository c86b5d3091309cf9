#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 34): a pool sized by the CPU count the program was told.

The program asks sysconf(_SC_NPROCESSORS_ONLN) and makes that many workers;
recorded with --as-cpus 2, its trace says it asked (info: cpu_count_read),
and report/scan/whatif for P above 2 warn that the answer is for the
2-worker pool, naming --as-cpus; at P = 2 they do not.  The same program
with a fixed pool of 2 (it never asks) is not warned about.

usage: test_pool_warning.py POOL"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

WARNING = 'asked how many CPUs it has, was told 2'


def answer(args):
    p = subprocess.run([ecp()] + args, capture_output=True, text=True)
    check(p.returncode == 0, '%s: exit %d: %s' % (' '.join(args), p.returncode, p.stderr))
    return p.stderr


def main():
    pool = os.path.abspath(sys.argv[1])
    work = workdir()
    checked = 0
    try:
        for name, argv, asked in (('sized', [pool], True),
                                  ('fixed', [pool, 'fixed', '2'], False)):
            trace = os.path.join(work, name)
            p = record(['-q', '-o', trace, '--as-cpus', '2'], argv, cwd=work)
            check(p.returncode == 0 and p.stdout == '2 workers\n',
                  '%s: exit %d, output %r: %s' % (name, p.returncode, p.stdout, p.stderr))
            info = json.loads(subprocess.run([ecp(), 'info', '--format', 'json', trace],
                                             capture_output=True, text=True).stdout)
            check(info['cpu_count_read'] is asked and info['as_cpus'] == 2,
                  '%s: info says cpu_count_read=%s as_cpus=%s' %
                  (name, info['cpu_count_read'], info['as_cpus']))
            for args in (['report', trace, '-P', '8'], ['scan', trace, '-P', '1-6'],
                         ['whatif', trace, '--faster', 'worker=10', '-P', '1-4']):
                err = answer(args)
                if asked:
                    check(WARNING in err and '--as-cpus' in err,
                          '%s %s: no warning: %s' % (name, ' '.join(args[:1]), err))
                else:
                    check(WARNING not in err, '%s: warned though it never asked: %s' %
                          (name, err))
                checked += 1
            err = answer(['report', trace, '-P', '2'])
            check(WARNING not in err, '%s: warned at P = 2: %s' % (name, err))
            checked += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    check(checked == 8, 'checked %d answers of 8' % checked)
    print('ok: %d answers (a pool sized by the count warned above P = 2, a fixed one '
          'never)' % checked)


main()
