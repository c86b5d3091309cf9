#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 33): a full output filesystem never blocks the recorded program.

LTTng's channels block rather than discard, so a consumer that cannot write
once left the program waiting forever.  On small tmpfs mounts (root only):
  1. too little room to start: refused before the program runs, naming the
     free space and what a recording needs; nothing left behind;
  2. the program fills the filesystem itself: the recording stops, the
     program runs on to its own end (its output and exit status reported),
     the partial trace is removed, and ecp record fails naming why;
  3. the trace itself fills it (every call of a call-dense program recorded):
     the same, and the program's output is whole.

usage: test_disk_full.py TINY_CALLS"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


# Calls per thread of TINY_CALLS where its trace must fill the filesystem:
# 2 threads, 2 function records a call, ~3 bytes a record since issue 35
# (function records in batches): ~240 MB.
FILL_CALLS = '20000000'


def mount(size):
    d = tempfile.mkdtemp(prefix='ecp-disk-full-')
    r = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=' + size, 'tmpfs', d],
                       capture_output=True, text=True)
    if r.returncode != 0:
        os.rmdir(d)
        skip('cannot mount a tmpfs: ' + r.stderr.strip())
    return d


def unmount(d):
    subprocess.run(['umount', d], check=False)
    os.rmdir(d)


def main():
    if os.geteuid() != 0:
        skip('mounting a small filesystem needs root')
    tiny = os.path.abspath(sys.argv[1])
    ecp()
    cases = 0

    # 1. refused before the program runs
    fs = mount('24m')
    try:
        marker = os.path.join(fs, 'ran')
        p = record(['-q', '-o', os.path.join(fs, 't')],
                   ['sh', '-c', 'echo yes > ' + marker], timeout=120)
        check(p.returncode == 1, 'small fs: exit %d: %s' % (p.returncode, p.stderr))
        check('MiB are free on the filesystem of %s/t' % fs in p.stderr and
              'a recording needs at least' in p.stderr, 'small fs: ' + p.stderr)
        check(not os.path.exists(marker), 'small fs: the program ran')
        check(os.listdir(fs) == [], 'small fs: left behind: %s' % os.listdir(fs))
        cases += 1
    finally:
        unmount(fs)

    # 2. the program fills the filesystem
    fs = mount('64m')
    try:
        marker = os.path.join(fs, 'marker')
        script = ('sleep 0.3; head -c 40M /dev/zero > %s/fill; sleep 0.3; '
                  'echo finished > %s; echo out; exit 3' % (fs, marker))
        p = record(['-q', '-o', os.path.join(fs, 't')], ['sh', '-c', script], timeout=120)
        check(p.returncode == 1, 'filled: exit %d: %s' % (p.returncode, p.stderr))
        for want in ('the recording stopped', 'left on the filesystem of %s/t' % fs,
                     'exited with status 3', 'the partial trace was removed'):
            check(want in p.stderr, 'filled: %r not in: %s' % (want, p.stderr))
        check(p.stdout == 'out\n', 'filled: the program\'s output: %r' % p.stdout)
        with open(marker) as f:
            check(f.read() == 'finished\n', 'filled: the program did not finish')
        check(not os.path.exists(os.path.join(fs, 't')), 'filled: partial trace left')
        cases += 1
    finally:
        unmount(fs)

    # 3. the trace fills it (~240 MB of function records into 200 MiB): room
    # for the margin to follow the trace's growth (the first look measures
    # it) -- on 60 MiB a loaded ASan run was filled before its second look
    fs = mount('200m')
    try:
        plain = subprocess.run([tiny, FILL_CALLS], capture_output=True, text=True,
                               timeout=120)
        check(plain.returncode == 0, 'tiny-calls unrecorded: exit %d' % plain.returncode)
        p = record(['-q', '-o', os.path.join(fs, 't'), '--min-duration', '0'],
                   [tiny, FILL_CALLS], timeout=170)
        check(p.returncode == 1, 'trace-filled: exit %d: %s' % (p.returncode, p.stderr))
        for want in ('the recording stopped', 'exited with status 0'):
            check(want in p.stderr, 'trace-filled: %r not in: %s' % (want, p.stderr))
        check(len(p.stdout.splitlines()) == len(plain.stdout.splitlines()),
              'trace-filled: the program\'s output %r against %r unrecorded' %
              (p.stdout, plain.stdout))
        check(not os.path.exists(os.path.join(fs, 't')), 'trace-filled: partial trace left')
        cases += 1
    finally:
        unmount(fs)
    # 4. filled from outside, at once, while the program writes its trace on
    # a loaded CPU: the consumer meets a full filesystem before the stop
    # reaches the program (whose listener thread waits for the CPU) -- LTTng's
    # wait on a full buffer never looks at the session again, and with an
    # infinite blocking timeout 1 run in 3 left the program blocked for good
    runs = 3
    for i in range(runs):
        fill_at_once(tiny, plain.stdout, i)
        cases += 1
    check(cases == 3 + runs, 'ran %d of %d cases' % (cases, 3 + runs))
    print('ok: %d cases (refused before running; stopped when the program filled the '
          'filesystem; stopped when the trace filled it; %d runs filled from outside '
          'on a loaded CPU)' % (cases, runs))


def fill_at_once(tiny, plain_stdout, run):
    fs = mount('400m')
    spinners = [subprocess.Popen(['nice', '-n', '-5', 'sh', '-c', 'while :; do :; done'])
                for _ in range(3)]
    try:
        cmd = [ecp(), 'record', '-q', '-o', os.path.join(fs, 't'), '--min-duration', '0',
               '--', tiny, FILL_CALLS]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(os.path.join(fs, 't', 'main')) and p.poll() is None:
            check(time.monotonic() < deadline, 'run %d: no trace after 60 s' % run)
            time.sleep(0.01)
        free = os.statvfs(fs)
        subprocess.run('head -c %d /dev/zero > %s' %
                       (free.f_bavail * free.f_frsize, os.path.join(fs, 'fill')),
                       shell=True, stderr=subprocess.DEVNULL)
        try:
            out, errs = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            subprocess.run(['pkill', '-9', '-f', tiny])
            p.communicate()
            fail('run %d: the program or ecp record was still blocked 120 s after the '
                 'filesystem filled' % run)
        check(p.returncode == 1, 'run %d: exit %d: %s' % (run, p.returncode, errs))
        for want in ('the recording stopped', 'exited with status 0'):
            check(want in errs, 'run %d: %r not in: %s' % (run, want, errs))
        check(len(out.splitlines()) == len(plain_stdout.splitlines()),
              'run %d: the program\'s output %r against %r unrecorded' %
              (run, out, plain_stdout))
        check(not os.path.exists(os.path.join(fs, 't')), 'run %d: partial trace left' % run)
    finally:
        for s in spinners:
            s.kill()
            s.wait()
        unmount(fs)


main()
