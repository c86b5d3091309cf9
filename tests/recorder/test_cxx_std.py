#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 34): C++ instrumented whole is named, the README's way is not.

The same std::-heavy program (vector, sort with a lambda, map) built with
-finstrument-functions alone, and with the README's
-finstrument-functions-exclude-file-list=/usr/include.  The first's recording
carries a warning naming both compilers' flags (record and report print it);
the second's does not, and it records a fifth of the calls or fewer (its own
lambda is still hooked).

usage: test_cxx_std.py WHOLE README_BUILD"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

FLAG = '-finstrument-functions-exclude-file-list=/usr/include'


def calls(trace):
    p = subprocess.run([ecp(), 'report', trace, '-P', '1', '--top', '0', '--format', 'json'],
                       capture_output=True, text=True)
    check(p.returncode == 0, 'report: %s' % p.stderr)
    return sum(f.get('calls', 0) + f.get('folded_calls', 0)
               for f in json.loads(p.stdout)['functions']), p.stderr


def main():
    whole, readme = (os.path.abspath(a) for a in sys.argv[1:3])
    work = workdir()
    try:
        seen = {}
        for name, prog in (('whole', whole), ('readme', readme)):
            trace = os.path.join(work, name)
            p = record(['-q', '-o', trace], [prog], cwd=work)
            check(p.returncode == 0, '%s: exit %d: %s' % (name, p.returncode, p.stderr))
            n, report_err = calls(trace)
            seen[name] = (FLAG in p.stderr, FLAG in report_err, n)
        print('calls recorded: whole %d, README build %d' % (seen['whole'][2], seen['readme'][2]))
        check(seen['whole'][0] and seen['whole'][1],
              'the whole build was not warned about (record %s, report %s)' % seen['whole'][:2])
        check(not seen['readme'][0] and not seen['readme'][1],
              'the README build was warned about')
        check(seen['readme'][2] * 5 < seen['whole'][2],
              'the README build recorded %d calls, the whole one %d' %
              (seen['readme'][2], seen['whole'][2]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print('ok: the whole C++ build warned with the flag, the README build not')


main()
