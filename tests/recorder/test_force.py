#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 33): `ecp record --force` only ever replaces an empty
directory or a complete ecp trace, never a project that happens to hold an
entry named `main`, never the current directory; two recordings into one
directory cannot both succeed.

usage: test_force.py"""
import fcntl
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def rec(out, cwd, prog=('true',)):
    return record(['-q', '--force', '-o', out], list(prog), cwd=cwd)


def main():
    ecp()
    work = workdir()
    # a project: sources and a binary called main
    proj = os.path.join(work, 'proj')
    os.mkdir(proj)
    for name in ('main', 'main.c', 'Makefile'):
        with open(os.path.join(proj, name), 'w') as f:
            f.write('keep me\n')
    p = rec(proj, work)
    check(p.returncode == 2, '--force on a project: exit %d: %s' % (p.returncode, p.stderr))
    check("'main.c'" in p.stderr or "'Makefile'" in p.stderr,
          'the refusal does not name what is not a trace: %s' % p.stderr)
    p = rec('.', proj)
    check(p.returncode == 2 and 'current directory' in p.stderr,
          '-o . --force: exit %d: %s' % (p.returncode, p.stderr))
    check(sorted(os.listdir(proj)) == ['Makefile', 'main', 'main.c'],
          'the project lost files: %s' % os.listdir(proj))
    # a complete trace is replaced; one with a file of the user's is not
    trace = os.path.join(work, 'trace')
    p = rec(trace, work)
    check(p.returncode == 0, 'first recording: %s' % p.stderr)
    p = rec(trace, work)
    check(p.returncode == 0, 'replacing a trace: %s' % p.stderr)
    with open(os.path.join(trace, 'notes.txt'), 'w') as f:
        f.write('mine\n')
    p = rec(trace, work)
    check(p.returncode == 2 and "'notes.txt'" in p.stderr,
          'a trace holding notes.txt was replaced: %d %s' % (p.returncode, p.stderr))
    # no metadata and not a trace's two parts: refused
    partial = os.path.join(work, 'partial')
    os.makedirs(os.path.join(partial, 'main'))
    p = rec(partial, work)
    check(p.returncode == 2 and 'not an ecp trace' in p.stderr,
          'main/ alone: %d %s' % (p.returncode, p.stderr))
    # a recording killed before its end (main/ and sched/, no metadata)
    os.makedirs(os.path.join(partial, 'sched'))
    p = rec(partial, work)
    check(p.returncode == 0, 'a killed recording: %d %s' % (p.returncode, p.stderr))
    # one still running holds the directory's lock
    with open(os.path.join(partial, 'ecp-record.meta')) as f:
        check(f.readline().startswith('format='), 'no metadata after the recording')
    fd = os.open(partial, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    p = rec(partial, work)
    os.close(fd)
    check(p.returncode == 2 and 'another ecp record is writing' in p.stderr,
          'a trace being written was replaced: %d %s' % (p.returncode, p.stderr))
    # an empty directory is fine
    empty = os.path.join(work, 'empty')
    os.mkdir(empty)
    p = rec(empty, work)
    check(p.returncode == 0, 'an empty directory: %s' % p.stderr)
    # a file where the trace would go: refused with and without --force,
    # and only the directory case suggests --force
    notes = os.path.join(work, 'notes.md')
    with open(notes, 'w') as f:
        f.write('keep me\n')
    for args in (['-q'], ['-q', '--force']):
        p = record(args + ['-o', notes], ['true'], cwd=work)
        check(p.returncode == 2 and 'not a directory' in p.stderr and
              '--force' not in p.stderr.split('\n')[0],
              'a file at -o %s: exit %d: %s' % (args, p.returncode, p.stderr))
    check(open(notes).read() == 'keep me\n', 'the file at -o was changed')
    # two at once into one directory: not both
    same = os.path.join(work, 'same')
    cmd = [ecp(), 'record', '-q', '--force', '-o', same, '--', 'sleep', '1']
    a = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    b = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    ra, rb = a.wait(timeout=120), b.wait(timeout=120)
    errs = a.stderr.read() + b.stderr.read()
    print('two at once: exit %d and %d' % (ra, rb))
    check(sorted((ra, rb))[0] == 0 and sorted((ra, rb))[1] != 0,
          'two recordings into one directory: exit %d and %d: %s' % (ra, rb, errs))
    subprocess.run(['rm', '-rf', work])
    print('ok')


main()
