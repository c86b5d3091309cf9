#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the Perfetto export of the synthetic sample with a real JSON parser.

usage: check-perfetto.py VIZ_SAMPLE

Chrome trace-event format: every complete event has name, ph, ts, dur, pid,
tid; every thread that has events is named; flow starts and ends pair up by
id; slices on one thread nest properly (what the viewers require); names that
need escaping round-trip exactly."""
import json
import os
import subprocess
import sys
import tempfile


def fail(msg):
    print('FAIL:', msg)
    sys.exit(1)


def main():
    sample = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace.json')
        subprocess.run([sample, 'perfetto', path], check=True)
        with open(path, encoding='utf-8') as f:
            doc = json.load(f)

    events = doc.get('traceEvents')
    if not isinstance(events, list) or not events:
        fail('no traceEvents array')
    if doc.get('displayTimeUnit') not in ('ns', 'ms'):
        fail('bad displayTimeUnit')

    named = {}
    slices = []
    flows = {}
    for e in events:
        ph = e.get('ph')
        if ph == 'M':
            if e.get('name') == 'thread_name':
                named[(e['pid'], e['tid'])] = e['args']['name']
        elif ph == 'X':
            for key in ('name', 'ts', 'dur', 'pid', 'tid', 'args'):
                if key not in e:
                    fail('X event without %s: %r' % (key, e))
            if not isinstance(e['ts'], (int, float)) or e['dur'] < 0:
                fail('bad ts/dur: %r' % e)
            if not isinstance(e['args'].get('ecp'), bool):
                fail('args.ecp not a boolean: %r' % e)
            if not isinstance(e['args'].get('weight'), (int, float)):
                fail('args.weight not a number: %r' % e)
            slices.append(e)
        elif ph in ('s', 'f'):
            for key in ('id', 'ts', 'pid', 'tid', 'name'):
                if key not in e:
                    fail('flow event without %s: %r' % (key, e))
            if ph == 'f' and e.get('bp') != 'e':
                fail('flow end not bound to its enclosing slice: %r' % e)
            flows.setdefault(e['id'], []).append(ph)
        else:
            fail('unexpected phase %r' % ph)

    if not slices:
        fail('no slices')
    for e in slices:
        if (e['pid'], e['tid']) not in named:
            fail('thread %r has slices but no name' % e['tid'])
    for fid, phases in flows.items():
        if sorted(phases) != ['f', 's']:
            fail('flow %r is not one start and one end: %r' % (fid, phases))
    if len(flows) < 2:
        fail('expected dependency arrows, got %d' % len(flows))

    # Proper nesting per thread: a slice starting inside another ends inside it.
    by_tid = {}
    for e in slices:
        by_tid.setdefault(e['tid'], []).append(e)
    for tid, evs in by_tid.items():
        stack = []
        for e in evs:  # written in start order, callers first
            start, end = e['ts'], e['ts'] + e['dur']
            while stack and stack[-1] <= start + 1e-9:
                stack.pop()
            if stack and end > stack[-1] + 1e-9:
                fail('slice %r on tid %r overlaps its parent' % (e['name'], tid))
            stack.append(end)

    names = {e['name'] for e in slices}
    for want in ('</script><script>alert(1)</script>',
                 'std::vector<int, std::allocator<int> >::push_back(int const&)',
                 'merge<"a&b">'):
        if want not in names:
            fail('name did not round-trip: %r' % want)
    if '<b>worker-4</b>' not in named.values():
        fail('thread name did not round-trip')
    print('perfetto ok: %d slices on %d threads, %d flows' %
          (len(slices), len(by_tid), len(flows)))


main()
