#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: the programs a recorded process starts do not carry the recorder
(exec-children.c).  Each is started one way glibc offers (the exec
functions after fork or vfork, posix_spawn, posix_spawnp) and reports
whether LTTng-UST or the agent was loaded into it, whether the children's
library (which shows them --as-cpus) was, and whether the rest of its
LD_PRELOAD is the caller's own; then the recorded process execs itself,
which must stay recorded.  Unrecorded, the same program is the control.

usage: test_exec_children.py EXEC_CHILDREN"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

WAYS = ('execve', 'execv', 'execvp', 'execvpe', 'execl', 'execlp', 'execle', 'fexecve',
        'vfork', 'posix_spawn', 'posix_spawnp')
STATUS = {0: 'clean', 1: 'the recorder loaded', 2: 'LD_PRELOAD not the caller\'s',
          3: 'the children\'s library (--as-cpus) loaded where not recorded or missing where '
          'recorded', 127: 'exec failed', -1: 'not started'}


def results(out, what):
    lines = out.splitlines()
    check(len(lines) == len(WAYS) + 1, '%s: output %r' % (what, out))
    got = {}
    for line in lines[:-1]:
        way, status = line.split()
        got[way] = int(status)
    check(tuple(got) == WAYS, '%s: ways %s' % (what, list(got)))
    return got, lines[-1]


def run(prog, user_preload, recorded, work):
    env = dict(os.environ)
    env.pop('LD_PRELOAD', None)
    if user_preload:
        env['LD_PRELOAD'] = user_preload
        # an ASan build of ecp wants its runtime first among the libraries,
        # which a caller's preload is not; the check is ASan's, not ecp's
        env['ASAN_OPTIONS'] = ':'.join(
            filter(None, [env.get('ASAN_OPTIONS'), 'verify_asan_link_order=0']))
    expect = user_preload or '-'
    what = '%s, LD_PRELOAD %s' % ('recorded' if recorded else 'unrecorded', expect)
    cmd = [prog, expect]
    if recorded:
        cmd = [ecp(), 'record', '-q', '-o', os.path.join(work, 'trace'), '--force', '--'] + cmd
    p = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, '%s: exit %d: %s' % (what, p.returncode, p.stderr))
    got, last = results(p.stdout, what)
    bad = ['%s: %s' % (w, STATUS.get(s, s)) for w, s in got.items() if s != 0]
    check(not bad, '%s: children %s' % (what, ', '.join(bad)))
    check(last == 'in-place exec recorded: %s' % ('yes' if recorded else 'no'),
          '%s: %r' % (what, last))
    return len(got)


def main():
    prog = os.path.abspath(sys.argv[1])
    work = workdir()
    cases = run(prog, None, False, work)
    cases += run(prog, None, True, work)
    # a preload of the caller's own stays in the children's environment
    cases += run(prog, 'libm.so.6', True, work)
    shutil.rmtree(work, ignore_errors=True)
    check(cases == 3 * len(WAYS), 'ran %d cases' % cases)
    print('ok: %d children started %d ways, unrecorded and recorded (with and without a '
          'preload of the caller\'s): none carried the recorder; the in-place exec stayed '
          'recorded' % (cases, len(WAYS)))


main()
