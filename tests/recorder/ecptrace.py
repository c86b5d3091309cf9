# SPDX-License-Identifier: MIT
"""Helpers of the recorder's end-to-end tests: run `ecp record`, read a
trace back with the babeltrace2 CLI, and fail or skip with a message."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77

LINE = re.compile(r'^\[(\d+)\] \(\S+\) \S+ (\S+): \{ cpu_id = \d+ \}, (?:\{ ([^}]*) \}, )?\{ ?(.*?) ?\}$')
FIELD = re.compile(r'(\w+) = ("(?:[^"\\]|\\.)*"|[^,]+)')


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def skip(msg):
    print('SKIP: ' + msg)
    sys.exit(SKIP)


def retry(what, attempt, tries=2):
    """attempt() once, and again when one of its checks fails (check()
    exits non-zero), up to `tries` times in all; the last failure fails
    the test.  For checks whose ground truth can be upset by a race the
    recording cannot see: the caller says which, and why, where it calls."""
    for n in range(tries):
        try:
            return attempt()
        except SystemExit as e:
            if e.code in (0, None, SKIP) or n == tries - 1:
                raise
            print('%s: recording again after that failure (%d of %d)' % (what, n + 2, tries))


def ecp():
    path = os.environ.get('ECP')
    if not path or not os.path.exists(path):
        skip('ECP is not set to the ecp binary')
    if not shutil.which('babeltrace2'):
        skip('babeltrace2 not installed')
    if not shutil.which('lttng-sessiond'):
        skip('lttng-sessiond not installed')
    return path


def workdir():
    d = tempfile.mkdtemp(prefix='ecp-rec-test-')
    return d


def record(args, program, cwd=None, timeout=120, user=None):
    """Runs ecp record ARGS -- PROGRAM; returns the CompletedProcess."""
    cmd = [ecp(), 'record'] + args + ['--'] + program
    if user:
        cmd = ['runuser', '-u', user, '--'] + cmd
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def parse_value(v):
    v = v.strip()
    if v.startswith('"'):
        return v[1:-1]
    try:
        return int(v, 0)
    except ValueError:
        return v


def read_trace(path):
    """Events of the CTF trace(s) under path, in timestamp order: dicts with
    'name', 'time' (clock cycles = ns), the contexts and payload fields.
    Fails on babeltrace2 errors or any discarded-events warning."""
    # a sample's stack is a string of raw bytes (COBS, recorder/EVENTS.md):
    # not text, and only whole lines break events apart
    p = subprocess.run(['babeltrace2', '--clock-cycles', path], capture_output=True,
                       encoding='utf-8', errors='replace')
    check(p.returncode == 0, 'babeltrace2 cannot read %s: %s' % (path, p.stderr[-2000:]))
    check('discarded' not in p.stderr.lower() and 'discarded' not in p.stdout.lower(),
          'the trace lost events: %s' % p.stderr[-2000:])
    events = []
    for line in p.stdout.split('\n'):
        if not line:
            continue
        m = LINE.match(line)
        check(m is not None, 'unparsed babeltrace2 line: ' + line)
        ev = {'event': m.group(2), 'time': int(m.group(1))}
        for part in (m.group(3), m.group(4)):
            if part:
                for k, v in FIELD.findall(part):
                    ev[k] = parse_value(v)
        events.append(ev)
    return events


def read_meta(trace):
    meta = {}
    with open(os.path.join(trace, 'ecp-record.meta')) as f:
        for line in f:
            k, _, v = line.rstrip('\n').partition('=')
            meta[k] = v
    return meta


def named(events, name):
    return [e for e in events if e['event'] == name]


def count(events, name, **fields):
    return sum(1 for e in events if e['event'] == name and
               all(e.get(k) == v for k, v in fields.items()))


def program_output(stdout):
    """key=value lines the test programs print."""
    out = {}
    for line in stdout.splitlines():
        k, sep, v = line.partition('=')
        if sep:
            out[k] = v
    return out
