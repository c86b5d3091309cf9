#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: being recorded does not change the program, and `ecp record` leaves
nothing behind (hygiene.c):
- errno set by the program's own calls survives the hooks and wrappers;
- signals the caller ignores (nohup) stay ignored in the program;
- one Ctrl-C typed at a terminal reaches the program once;
- fork without exec works in the recorded program (liblttng-ust-fork);
- a program started through `sh -c` and `env` is recorded and analysed as
  its final image;
- after SIGTERM or SIGINT (during the setup too) no session daemon,
  consumer daemon or state directory is left; after SIGKILL the next
  recording cleans up what the killed one left.

usage: test_hygiene.py HYGIENE_BINARY"""
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403


def leftovers(tmp):
    """State directories in tmp, and LTTng daemons started with TMPDIR=tmp."""
    dirs = [d for d in os.listdir(tmp) if d.startswith('ecp-lttng-')]
    daemons = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/comm' % pid) as f:
                comm = f.read().strip()
            if not comm.startswith('lttng-'):
                continue
            with open('/proc/%s/environ' % pid, 'rb') as f:
                env = f.read().split(b'\0')
        except OSError:
            continue
        if ('TMPDIR=' + tmp).encode() in env:
            daemons.append('%s %s' % (pid, comm))
    return dirs, daemons


def no_leftovers(tmp, what):
    for _ in range(50):  # the daemon may take a moment to go
        dirs, daemons = leftovers(tmp)
        if not dirs and not daemons:
            return
        time.sleep(0.1)
    fail('%s: left behind: %s %s' % (what, dirs, daemons))


def read_until(fd, text, timeout=30):
    out = b''
    end = time.time() + timeout
    while text.encode() not in out and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out.decode(errors='replace')


def main():
    prog = os.path.abspath(sys.argv[1])
    exe = ecp()
    work = workdir()
    tmp = os.path.join(work, 'tmp')
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)

    def rec(args, mode, **kw):
        return subprocess.run([exe, 'record', '-q', '-f', '-o', os.path.join(work, 't')] +
                              args + ['--', prog, mode], cwd=work, env=env,
                              capture_output=True, text=True, timeout=120, **kw)

    # errno
    for args in ([], ['--min-duration', '0']):
        p = rec(args, 'errno')
        check(p.returncode == 0 and 'errno_bad=0' in p.stdout,
              'errno %s: exit %d: %s %s' % (args, p.returncode, p.stdout, p.stderr))
    no_leftovers(tmp, 'a normal recording')

    # ignored signals stay ignored; others are the default.  The test sets
    # the dispositions it starts from: under nohup (or a CI runner that
    # ignores SIGHUP) the inherited ones are not the defaults.
    def defaults():
        for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
    p = rec([], 'signals', preexec_fn=defaults)
    check('SIGHUP=dfl SIGINT=dfl SIGTERM=dfl' in p.stdout, 'dispositions: %s' % p.stdout)

    def ignore():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    p = rec([], 'signals', preexec_fn=ignore)
    check('SIGHUP=ign SIGINT=ign SIGTERM=dfl' in p.stdout, 'nohup: dispositions: %s' % p.stdout)

    # the driver's drain runs at a higher priority where it may
    # (recorder/record.c, DRIVER_NICE): the program keeps its caller's
    p = subprocess.run([exe, 'record', '-q', '-f', '-o', os.path.join(work, 'n'), '--',
                        'nice'], cwd=work, env=env, capture_output=True, text=True,
                       timeout=120)
    check(p.returncode == 0 and p.stdout.strip() == str(os.nice(0)),
          'niceness: the program ran at %r, its caller at %d: %s' %
          (p.stdout.strip(), os.nice(0), p.stderr))

    # fork without exec
    p = rec([], 'forkwork')
    check(p.returncode == 0 and 'child_status=7' in p.stdout, 'fork: %s %s' % (p.stdout, p.stderr))

    # through wrappers that exec: the final image is recorded and analysed
    trace = os.path.join(work, 'wrapped')
    p = subprocess.run([exe, 'record', '-q', '-o', trace, '--', 'sh', '-c',
                        'exec env ECP_TEST=1 "$0" errno', prog], cwd=work, env=env,
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and 'errno_bad=0' in p.stdout, 'sh -c: %s %s' % (p.stdout, p.stderr))
    r = subprocess.run([exe, 'report', '-P', '1', '--format', 'json', trace],
                       capture_output=True, text=True)
    check(r.returncode == 0, 'sh -c: ecp report: %s' % r.stderr)
    names = [f['name'] for f in json.loads(r.stdout)['functions']]
    check('sets_errno' in names and 'main' in names, 'sh -c: functions %s' % names)

    # one Ctrl-C at a terminal: the terminal signals the foreground group
    master, slave = os.openpty()

    def terminal():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    p = subprocess.Popen([exe, 'record', '-q', '-f', '-o', os.path.join(work, 't'), '--',
                          prog, 'count'], cwd=work, env=env, stdin=slave, stdout=slave,
                         stderr=slave, preexec_fn=terminal)
    os.close(slave)
    out = read_until(master, 'ready')
    check('ready' in out, 'Ctrl-C: the program did not start: %s' % out)
    os.write(master, b'\x03')
    out += read_until(master, 'sigints=')
    out += read_until(master, '\n', timeout=5)
    p.wait(timeout=60)
    os.close(master)
    check('sigints=1' in out, 'one Ctrl-C: %s' % out)
    no_leftovers(tmp, 'Ctrl-C')

    # SIGTERM to ecp record: forwarded, the recording ends, nothing left
    p = subprocess.Popen([exe, 'record', '-q', '-f', '-o', os.path.join(work, 't'), '--',
                          prog, 'sleep'], cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == 'ready', 'SIGTERM: the program did not start')
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    check(p.returncode == 128 + signal.SIGTERM, 'SIGTERM: exit %d' % p.returncode)
    no_leftovers(tmp, 'SIGTERM')

    # SIGINT during the setup (daemon, sessions, calibration)
    p = subprocess.Popen([exe, 'record', '-q', '-f', '-o', os.path.join(work, 't'), '--',
                          prog, 'sleep'], cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    check(p.returncode != 0, 'SIGINT in the setup: exit 0')
    no_leftovers(tmp, 'SIGINT during the setup')

    # SIGKILL: the next recording cleans up
    p = subprocess.Popen([exe, 'record', '-q', '-f', '-o', os.path.join(work, 't'), '--',
                          prog, 'sleep'], cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == 'ready', 'SIGKILL: the program did not start')
    children = subprocess.run(['pgrep', '-P', str(p.pid)], capture_output=True,
                              text=True).stdout.split()
    p.kill()
    p.communicate(timeout=60)
    for c in children:
        try:
            os.kill(int(c), signal.SIGKILL)
        except OSError:
            pass
    dirs, daemons = leftovers(tmp)
    check(dirs, 'SIGKILL left nothing to clean (the test tests nothing)')
    p = rec([], 'errno')
    check(p.returncode == 0, 'recording after a SIGKILL: %s' % p.stderr)
    no_leftovers(tmp, 'the recording after a SIGKILL')
    print('ok')


main()
