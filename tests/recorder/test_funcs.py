#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: function events of an instrumented program (funcs.c) under each
filter: every call recorded (--min-duration 0), the default folding of
short calls, --depth, --exclude, --include and --no-functions.  Checks call
counts (emitted + folded = real), stack discipline, the frames a longjmp
left (func_unwound) and that the raw TSC time `tsc` never goes backwards in
a thread.

usage: test_funcs.py FUNCS_BINARY"""
import collections
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

CALLS = {'main': 1, 'outer': 5, 'middle': 5, 'leaf': 1000, 'slow': 6, 'jumper': 1, 'deep': 1}
UNWOUND = {'jumper', 'deep'}


def run(prog, work, args):
    trace = os.path.join(work, 'trace')
    p = record(['-q', '--force', '-o', trace] + args, [prog], cwd=work)
    check(p.returncode == 0, '%s: exit %d: %s' % (args, p.returncode, p.stderr))
    addr = {int(v, 16): k for k, v in program_output(p.stdout).items()}
    check(set(addr.values()) == set(CALLS), 'program output: %r' % p.stdout)
    ev = [e for e in read_trace(os.path.join(trace, 'main')) if e['event'].startswith('ecp:')]
    return addr, ev


def tally(addr, ev):
    """emitted entries, exits, unwound frames and folded calls per name,
    checking the stack discipline and tsc order on the way."""
    entries, exits, unwound, folded = (collections.Counter() for _ in range(4))
    stack, last_ts = [], 0
    for e in ev:
        kind = e['event'][4:]
        if kind not in ('func_entry', 'func_exit', 'func_unwound', 'func_folded'):
            continue
        name = addr.get(e['addr'], hex(e['addr']))
        if kind == 'func_folded':
            folded[name] += e['calls']
            continue
        check(e['tsc'] >= last_ts, 'tsc went backwards at %s' % e)
        last_ts = e['tsc']
        if kind == 'func_entry':
            entries[name] += 1
            stack.append(name)
        else:
            check(stack and stack[-1] == name, '%s of %s, stack %s' % (kind, name, stack))
            stack.pop()
            (exits if kind == 'func_exit' else unwound)[name] += 1
    check(not stack, 'frames left open: %s' % stack)
    return entries, exits, unwound, folded


def main():
    prog = os.path.abspath(sys.argv[1])
    ecp()
    work = workdir()

    # every call recorded
    addr, ev = run(prog, work, ['--min-duration', '0'])
    entries, exits, unwound, folded = tally(addr, ev)
    check(entries == collections.Counter(CALLS), 'entries %s' % entries)
    check(not folded, 'folded with --min-duration 0: %s' % folded)
    for f, n in CALLS.items():
        check(exits[f] + unwound[f] == n, '%s: %d exits + %d unwound' % (f, exits[f], unwound[f]))
    check(set(unwound) == UNWOUND, 'unwound %s' % unwound)

    # default: short calls folded and counted, long ones and those holding
    # a synchronization emitted
    addr, ev = run(prog, work, [])
    entries, exits, unwound, folded = tally(addr, ev)
    for f, n in CALLS.items():
        check(entries[f] + folded[f] == n, 'default: %s %d emitted + %d folded'
              % (f, entries[f], folded[f]))
    check(folded['leaf'] >= 900, 'default: leaf not folded: %s' % folded)
    for f in ('main', 'outer', 'middle', 'slow'):
        check(entries[f] == CALLS[f], 'default: %s not emitted every time' % f)
    # TSC ticks: under 1 ms at any rate up to 5 GHz
    folded_tsc = sum(e['total_tsc'] for e in named(ev, 'ecp:func_folded')
                     if addr.get(e['addr']) == 'leaf')
    check(0 < folded_tsc < 5 * 1000 * 1000, 'folded leaf time %d ticks' % folded_tsc)

    # --depth 2: main (depth 1) and outer (depth 2) only
    addr, ev = run(prog, work, ['--depth', '2', '--min-duration', '0'])
    entries, exits, unwound, folded = tally(addr, ev)
    check(set(entries) <= {'main', 'outer', 'jumper'} and entries['outer'] == 5,
          '--depth 2: %s' % entries)
    for f, n in CALLS.items():
        check(entries[f] + folded[f] == n, '--depth 2: %s %d + %d' % (f, entries[f], folded[f]))

    # --exclude
    addr, ev = run(prog, work, ['--exclude', 'sl*', '--min-duration', '0'])
    entries, exits, unwound, folded = tally(addr, ev)
    check('slow' not in entries and folded['slow'] == 6, '--exclude: %s %s' % (entries, folded))
    for f, n in CALLS.items():
        check(entries[f] + folded[f] == n, '--exclude: %s %d + %d' % (f, entries[f], folded[f]))
    check(entries['leaf'] == 1000, '--exclude dropped others: %s' % entries)

    # --include (repeatable)
    addr, ev = run(prog, work, ['--include', 'outer', '--include', 'de?p', '--min-duration', '0'])
    entries, exits, unwound, folded = tally(addr, ev)
    check(set(entries) <= {'outer', 'deep'} and entries['outer'] == 5, '--include: %s' % entries)
    for f, n in CALLS.items():
        check(entries[f] + folded[f] == n, '--include: %s %d + %d' % (f, entries[f], folded[f]))

    # --no-functions: synchronization only
    addr, ev = run(prog, work, ['--no-functions'])
    check(not [e for e in ev if e['event'].startswith('ecp:func_')], '--no-functions')
    check(count(ev, 'ecp:lock_acquired') == 5, '--no-functions lost the locks')
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
