#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 33): a Ctrl-C (here SIGTERM) while `ecp record` finishes the recording (after
the program ended, a second or two of LTTng teardown) no longer kills it:
the trace is finished, whole (its manifest written), ecp exits with the
program's status and says what it did with the signal.

usage: test_teardown_signal.py"""
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def not_ignored():
    """A signal ecp forwards that this process does not ignore: a test
    runner may start tests with some ignored, and ecp leaves an ignored
    signal ignored, as the program would."""
    with open('/proc/self/status') as f:
        mask = int(next(l for l in f if l.startswith('SigIgn:')).split()[1], 16)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if not mask & (1 << (sig - 1)):
            return sig
    skip('SIGINT, SIGTERM and SIGHUP are all ignored here')


def main():
    sig = not_ignored()
    work = workdir()
    trace = os.path.join(work, 'trace')
    p = subprocess.Popen([ecp(), 'record', '-o', trace, '--', 'sleep', '0.3'],
                         cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    meta = os.path.join(trace, 'ecp-record.meta')
    # the metadata is written when the program has ended, before teardown
    deadline = time.time() + 60
    while not os.path.exists(meta) and p.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    if not os.path.exists(meta):
        fail('no metadata appeared: %s' % p.communicate()[1])
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    print(err)
    check('came while the recording was being finished' in err,
          'the signal was not taken in the teardown (exit %d): %s' % (p.returncode, err))
    check(p.returncode == 0, 'exit %d, want the program\'s 0: %s' % (p.returncode, err))
    check(os.path.exists(os.path.join(trace, 'ecp-record.streams')), 'the trace is not whole')
    i = subprocess.run([ecp(), 'info', trace], capture_output=True, text=True)
    check(i.returncode == 0, 'ecp info on it: %s' % i.stderr)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
