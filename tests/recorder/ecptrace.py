# SPDX-License-Identifier: MIT
"""Helpers of the recorder's end-to-end tests: run `ecp record`, read a
trace back with the babeltrace2 CLI, and fail or skip with a message."""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

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


_ESCAPES = {'a': 7, 'b': 8, 'e': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11, '0': 0}


def _unescape(text):
    """The bytes of a string babeltrace2 printed (its escapes undone; the
    line was read as latin-1, one character a byte)."""
    out, i = bytearray(), 0
    while i < len(text):
        c = text[i]
        if c != '\\':
            out.append(ord(c))
            i += 1
        elif text[i + 1] == 'x':
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            out.append(_ESCAPES.get(text[i + 1], ord(text[i + 1])))
            i += 2
    return bytes(out)


def _cobs_decode(data):
    out, i = bytearray(), 0
    while i < len(data):
        code = data[i]
        check(code != 0 and i + code <= len(data), 'func_batch: not a COBS encoding')
        out += data[i + 1:i + code]
        i += code
        if code < 0xFF and i < len(data):
            out.append(0)
    return bytes(out)


def _leb(data, i):
    v, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def _unzz(prev, z):
    return (prev + ((z >> 1) ^ -(z & 1))) & 0xFFFFFFFFFFFFFFFF


def expand_batch(ev):
    """The func_entry / func_exit / func_unwound events a func_batch holds
    (recorder/EVENTS.md, recorder/agent/func-batch.h), with the batch's time and
    contexts."""
    data = _cobs_decode(_unescape(ev['records']))
    check(data[:1] == b'\x01', 'func_batch: unknown format %r' % data[:1])
    i, tsc, addr, site, out = 1, 0, 0, 0, []
    names = ('ecp:func_entry', 'ecp:func_exit', 'ecp:func_unwound')
    while i < len(data):
        tag = data[i]
        i += 1
        z, i = _leb(data, i)
        tsc = _unzz(tsc, z)
        if not tag & 4:
            z, i = _leb(data, i)
            addr = _unzz(addr, z)
        rec = {k: v for k, v in ev.items() if k not in ('event', 'n', 'records')}
        rec.update(event=names[tag & 3], addr=addr, tsc=tsc)
        if tag & 3 == 0:
            if not tag & 8:
                z, i = _leb(data, i)
                site = _unzz(site, z)
            rec['call_site'] = site
        out.append(rec)
    check(len(out) == ev['n'], 'func_batch: %d records, n = %d' % (len(out), ev['n']))
    return out


def read_trace(path):
    """Events of the CTF trace(s) under path, in timestamp order: dicts with
    'name', 'time' (clock cycles = ns), the contexts and payload fields.
    Function records in batches (ecp:func_batch) come out as the
    func_entry / func_exit / func_unwound events they hold, in their order,
    at the batch's time.  Fails on babeltrace2 errors or any
    discarded-events warning."""
    # a sample's stack and a batch's records are strings of raw bytes
    # (COBS, recorder/EVENTS.md): not text, and only whole lines break
    # events apart
    p = subprocess.run(['babeltrace2', '--clock-cycles', path], capture_output=True)
    stderr = p.stderr.decode('utf-8', 'replace')
    check(p.returncode == 0, 'babeltrace2 cannot read %s: %s' % (path, stderr[-2000:]))
    check('discarded' not in stderr.lower() and b'discarded' not in p.stdout.lower(),
          'the trace lost events: %s' % stderr[-2000:])
    events = []
    for raw in p.stdout.split(b'\n'):
        if not raw:
            continue
        batch = b' ecp:func_batch: ' in raw
        line = raw.decode('latin-1' if batch else 'utf-8', 'replace')
        m = LINE.match(line)
        check(m is not None, 'unparsed babeltrace2 line: ' + line)
        ev = {'event': m.group(2), 'time': int(m.group(1))}
        for part in (m.group(3), m.group(4)):
            if part:
                for k, v in FIELD.findall(part):
                    ev[k] = parse_value(v)
        if batch:
            events.extend(expand_batch(ev))
        else:
            events.append(ev)
    return events


def read_meta(trace):
    meta = {}
    with open(os.path.join(trace, 'ecp-record.meta')) as f:
        for line in f:
            k, _, v = line.rstrip('\n').partition('=')
            meta[k] = v
    return meta


def samples_by_tid(sched):
    """The samples each thread got, from the events of a trace's sched
    stream (a Counter by tid): each cost the thread's own clock
    sample_cost_ns, which the model takes out per sample taken -- not the
    rate times the cost: the kernel takes fewer than the rate asks where it
    throttles the sampler (meta samples_throttled)."""
    return collections.Counter(e.get('tid') for e in sched if e['event'] == 'ecp_sched:sample')


def sampler_share(meta, unsampled_ns=0):
    """The share of the sampled threads' CPU time that the sampler's
    interrupts took: the samples taken times each one's cost, over the
    program's CPU time less unsampled_ns (threads perf did not sample:
    child processes').  Not sample_hz * cost: a CI run's ASan pass
    (2026-11-27) had the kernel's ceiling lowered mid-run, fewer samples
    than the rate, and an oracle reckoning with the rate 4-7% under ecp's
    prediction, which took out what the samples cost."""
    n = int(meta.get('samples', '0') or 0)
    cost = int(meta.get('sample_cost_ns', '0') or 0)
    cpu = int(meta.get('program_cpu_ns', '0') or 0) - unsampled_ns
    if not n or not cost:
        return 0.0
    if cpu <= 0:
        return int(meta.get('sample_hz', '0') or 0) * cost / 1e9
    return n * cost / cpu


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


def cpu_clock(stdout, name='cpu_ns'):
    """The CPU clock a test program printed as NAME=ns."""
    m = re.search(r'%s=(\d+)' % re.escape(name), stdout)
    check(m is not None, 'program output %r' % stdout)
    return int(m.group(1))


def pinned_cpu_clock(cmd, cpu, name='cpu_ns'):
    """Runs cmd unrecorded on `cpu` and returns the CPU clock it printed."""
    p = subprocess.run(['taskset', '-c', str(cpu)] + cmd, capture_output=True, text=True)
    check(p.returncode == 0, 'unrecorded run: exit %d' % p.returncode)
    return cpu_clock(p.stdout, name)


# What ecp says when its consistency check refuses a recording as not
# holding the program's time (cli/consistency.c), telling the user to
# record again: the one string the tests that do so look for.
REFUSED = "does not hold the program's time"


def refused(stderr):
    """Whether ecp's stderr refuses the recording (REFUSED)."""
    return REFUSED in stderr


def info_unless_refused(trace):
    """`ecp info --format json` of the trace, or None where ecp refuses it
    as not holding the program's time -- ecp then tells the user to record
    again, and a test counts the recording as a failed attempt."""
    q = subprocess.run([ecp(), 'info', '--format', 'json', trace], capture_output=True,
                       text=True)
    if q.returncode != 0 and refused(q.stderr):
        print('refused: %s' % q.stderr.strip())
        return None
    check(q.returncode == 0, 'ecp info: %s' % q.stderr)
    return json.loads(q.stdout)


def first_passing(attempt, tries, what, pause_s=0.0):
    """attempt() until one returns True, up to `tries` times (a recording on
    a shared machine can miss), pause_s seconds apart (a busy moment of the
    host lasts seconds: a clean-clone CI run had three recorder tests miss
    within one minute, one of them in all three of its back-to-back tries);
    fails with `what` when none does."""
    for n in range(tries):
        if n and pause_s:
            time.sleep(pause_s)
        if attempt():
            print('ok')
            return
    fail(what)
