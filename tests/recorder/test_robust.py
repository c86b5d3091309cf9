#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: ecp record and its agent under hostile conditions (robust.c):
Ctrl-C, a crash, fork+exec, threads still running at exit, cancellation,
signals; plus --force and the refusal to overwrite a trace.

usage: test_robust.py ROBUST_BINARY"""
import json
import os
import re
import signal
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def ecp_events(trace):
    return [e for e in read_trace(os.path.join(trace, 'main')) if e['event'].startswith('ecp:')]


def analyse(exe, trace, what, repaired=(), refusal_ok=False):
    """`ecp info` reads the trace (exit 0, valid JSON) and says what it
    repaired.  With refusal_ok, False where ecp refuses the recording as not
    holding the program's time (which says to record again)."""
    r = subprocess.run([exe, 'info', trace, '--format', 'json'], capture_output=True, text=True)
    if refusal_ok and r.returncode != 0 and refused(r.stderr):
        print('%s: refused, recording again: %s' % (what, r.stderr.strip()[-400:]))
        return False
    check(r.returncode == 0, '%s: ecp info exit %d: %s' % (what, r.returncode, r.stderr))
    if r.returncode == 0:
        check(json.loads(r.stdout)['threads'] >= 1, '%s: no threads analysed' % what)
    for text in repaired:
        check(text in r.stderr, '%s: the analysis does not report "%s": %s'
              % (what, text, r.stderr))
    return True


def main():
    prog = os.path.abspath(sys.argv[1])
    exe = ecp()
    work = workdir()
    trace = os.path.join(work, 'trace')

    # Ctrl-C: the terminal signals the whole foreground group; the program
    # dies of it, ecp record still stops the sessions and writes the trace.
    p = subprocess.Popen([exe, 'record', '-q', '-o', trace, '--', prog, 'sleep'], cwd=work,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    check(p.stdout.readline().strip() == 'ready', 'the program did not start')
    time.sleep(0.2)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check(p.returncode == 128 + signal.SIGINT, 'Ctrl-C: exit %d: %s' % (p.returncode, err))
    check(read_meta(trace)['exit_status'] == 'signal:%d' % signal.SIGINT, 'Ctrl-C meta')
    ev = ecp_events(trace)
    check(count(ev, 'ecp:delay_begin', kind=0) == 1, 'Ctrl-C: the sleep is not in the trace')
    # 0.2 s into its life the program has done almost nothing but start and
    # die: its work is tens of us, and the CPU of its start-up and of its
    # teardown after the signal, outside its events, is what the
    # consistency check weighs.  On a loaded machine that teardown can
    # leave more than the check's 2 ms floor unexplained (2.06 ms seen,
    # with a 57 us model), and the check then refuses the answer: it must
    # say why, and the trace must still be analysed when asked to.
    r = subprocess.run([exe, 'info', trace, '--format', 'json'], capture_output=True,
                       text=True)
    check(r.returncode == 0 or (r.returncode == 1 and refused(r.stderr)),
          'Ctrl-C: ecp info exit %d: %s' % (r.returncode, r.stderr))
    if r.returncode == 1:
        r = subprocess.run([exe, 'info', trace, '--format', 'json', '--allow-inconsistent'],
                           capture_output=True, text=True)
        check(r.returncode == 0, 'Ctrl-C: ecp info --allow-inconsistent exit %d: %s'
              % (r.returncode, r.stderr))
    if r.returncode == 0:
        check(json.loads(r.stdout)['threads'] >= 1, 'Ctrl-C: no threads analysed')

    # refuse to overwrite; --force replaces
    p = record(['-q', '-o', trace], [prog, 'crash'], cwd=work)
    check(p.returncode == 2 and 'exists' in p.stderr, 'overwrote a trace: %s' % p.stderr)
    os.makedirs(os.path.join(work, 'precious'))
    open(os.path.join(work, 'precious', 'data'), 'w').close()
    p = record(['-q', '--force', '-o', os.path.join(work, 'precious')], [prog, 'crash'], cwd=work)
    check(p.returncode == 2 and os.path.exists(os.path.join(work, 'precious', 'data')),
          '--force replaced a directory that is not a trace')

    # crash: the status comes back, the trace up to the crash is readable
    p = record(['-q', '--force', '-o', trace], [prog, 'crash'], cwd=work)
    check(p.returncode == 128 + signal.SIGSEGV, 'crash: exit %d' % p.returncode)
    ev = ecp_events(trace)
    check(count(ev, 'ecp:lock_acquired') == 10, 'crash: locks before the crash missing')
    check(read_meta(trace)['exit_status'] == 'signal:%d' % signal.SIGSEGV, 'crash meta')
    analyse(exe, trace, 'crash')

    # fork + exec: the child is not recorded, the parent is
    p = record(['-q', '--force', '-o', trace], [prog, 'fork'], cwd=work)
    check(p.returncode == 0 and 'status=0' in p.stdout, 'fork: %d %s' % (p.returncode, p.stdout))
    ev = ecp_events(trace)
    check(len({e['vpid'] for e in ev}) == 1, 'fork: the child was recorded')
    check(count(ev, 'ecp:lock_acquired') == 1 and count(ev, 'ecp:process_exit') == 1,
          'fork: parent events')
    # the exec'd child's CPU time is in the program's (rusage counts the
    # children it waited for) but not in the model: children are not
    # followed yet, so the consistency check may refuse the answer, and
    # must then say why
    r = subprocess.run([exe, 'info', trace, '--format', 'json'], capture_output=True,
                       text=True)
    check(r.returncode == 0 or (r.returncode == 1 and refused(r.stderr)),
          'fork: ecp info exit %d: %s' % (r.returncode, r.stderr))

    # a thread still running at exit: the exit status and process_exit are there
    p = record(['-q', '--force', '-o', trace], [prog, 'running'], cwd=work)
    check(p.returncode == 4, 'running: exit %d' % p.returncode)
    ev = ecp_events(trace)
    check(count(ev, 'ecp:process_exit', status=4) == 1, 'running: process_exit')
    check(count(ev, 'ecp:thread_start') == 2, 'running: threads')
    # the thread locks in a loop: the exit finds it computing, or waiting
    # for the lock main holds; either way the analysis names it as cut
    analyse(exe, trace, 'running', ['1 threads were '])
    r = subprocess.run([exe, 'info', trace], capture_output=True, text=True)
    check('still running when the process exited' in r.stderr or
          'blocked in a wait when the process exited' in r.stderr,
          'running: the thread cut by the exit is not named: %s' % r.stderr)

    # cancellation: thread_exit written, the frames it left are unwound
    p = record(['-q', '--force', '--min-duration', '0', '-o', trace], [prog, 'cancel'], cwd=work)
    check(p.returncode == 0 and 'cancelled=1' in p.stdout, 'cancel: %s' % p.stdout)
    ev = ecp_events(trace)
    check(count(ev, 'ecp:thread_exit') == 1, 'cancel: no thread_exit')
    tid = [e['vtid'] for e in ev if e['event'] == 'ecp:thread_exit'][0]
    check(len([e for e in ev if e['event'] == 'ecp:func_unwound' and e['vtid'] == tid]) >= 2,
          'cancel: frames of the cancelled thread not unwound')
    analyse(exe, trace, 'cancel')

    # signals in the middle of the hooks: balanced function events.  A
    # recording of these 20-40 ms that ecp refuses as not holding the
    # program's time is made again once (1 run in 8 of the CI's ASan pass,
    # whose driver is slower: 19.9 ms of LTTng-UST's threads and 15.8 ms
    # outside main's events in 41.7 ms of the program's CPU time)
    for attempt in range(2):
        p = record(['-q', '--force', '--min-duration', '0', '-o', trace], [prog, 'signals'],
                   cwd=work)
        # A tick may land between the loop's last check and the timer's
        # stop: at least 200 handlers ran, each in the middle of
        # instrumented calls.
        m = re.search(r'ticks=(\d+)', p.stdout)
        check(p.returncode == 0 and m is not None and int(m.group(1)) >= 200,
              'signals: %d %s' % (p.returncode, p.stdout))
        ev = ecp_events(trace)
        depth = 0
        for e in ev:
            if e['event'] == 'ecp:func_entry':
                depth += 1
            elif e['event'] in ('ecp:func_exit', 'ecp:func_unwound'):
                depth -= 1
                check(depth >= 0, 'signals: more exits than entries')
        check(depth == 0, 'signals: %d frames left open' % depth)
        if analyse(exe, trace, 'signals', refusal_ok=attempt == 0):
            break
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
