#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The recorder's cost per synchronization event, measured in the run or
calibrated: T1 against the program's CPU time unrecorded, side by side.

Each round runs PROGRAM unrecorded (`taskset -c 0`, user + sys of its
process tree, os.wait4), then recorded by each build given in turn (`ecp
record --no-functions --cpu 0`, T1 = `ecp info`'s work), so that the ratio
T1 / unrecorded is taken pair by pair on this machine's drifting speed.
Prints every pair, then min / median / max of the ratio per build, and the
cost per event other than a function record that the build's trace
subtracts (`other_event_cost_ps`, its source).

`--sqlite TX,PER_TX` records Debian's sqlite3 shell on an in-memory
database running a script written here: TX transactions of PER_TX INSERTs
into an indexed table, each followed by a SELECT through the index.  SQLite
takes a pthread mutex on every API call: about 160 lock events per
INSERT+SELECT pair (100,500: 15.8 M events, 0.5 GB of trace).

usage: bench/validate/sync-cost.py RUNS BUILD [BUILD...] (--sqlite TX,PER_TX |
       -- PROGRAM ARGS...)"""
import json
import os
import subprocess
import sys
import tempfile


def sqlite_script(path, tx, per_tx):
    with open(path, 'w') as f:
        f.write('CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);\n')
        f.write('CREATE INDEX tk ON t(k);\n')
        i = 0
        for _ in range(tx):
            f.write('BEGIN;\n')
            for _ in range(per_tx):
                i += 1
                f.write("INSERT INTO t(k, v) VALUES(%d, 'row %d');\n" % (i * 7919 % 100003, i))
                f.write('SELECT v FROM t WHERE k = %d;\n' % (i * 104729 % 100003))
            f.write('COMMIT;\n')


def cpu_s(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit('sync-cost.py: failed: %s' % ' '.join(cmd))
    return ru.ru_utime + ru.ru_stime


def recorded(build, trace, prog):
    ecp = os.path.join(build, 'cli', 'ecp')
    subprocess.run([ecp, 'record', '--no-functions', '--cpu', '0', '-q', '-f', '-o', trace,
                    '--'] + prog, stdout=subprocess.DEVNULL, check=True)
    info = subprocess.run([ecp, 'info', '--allow-loss', '--format', 'json', trace], capture_output=True,
                          text=True, check=True)
    meta = {}
    with open(os.path.join(trace, 'ecp-record.meta')) as f:
        for line in f:
            k, _, v = line.strip().partition('=')
            meta[k] = v
    j = json.loads(info.stdout)
    return (j['work_ns'] / 1e9, int(meta['program_cpu_ns']) / 1e9,
            int(meta.get('other_event_cost_ps', 0)) / 1e3,
            meta.get('other_event_cost_source', 'calibration'), j.get('events', 0))


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    runs = int(args.pop(0))
    builds = []
    while args and args[0] not in ('--', '--sqlite'):
        builds.append(os.path.abspath(args.pop(0)))
    if not builds or not args:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory(prefix='ecp-sync-cost-') as work:
        if args[0] == '--sqlite':
            tx, per_tx = (int(x) for x in args[1].split(','))
            script = os.path.join(work, 'script.sql')
            sqlite_script(script, tx, per_tx)
            prog = ['sqlite3', ':memory:', '.read ' + script]
        else:
            prog = args[1:]
        trace = os.path.join(work, 'trace')
        ratios = {b: [] for b in builds}
        for _ in range(runs):
            for b in builds:
                cpu = cpu_s(['taskset', '-c', '0'] + prog)
                t1, rec_cpu, cost, source, events = recorded(b, trace, prog)
                ratios[b].append(t1 / cpu)
                print('%s: unrecorded %.3f s, recorded CPU %.3f s, %d events at %.1f ns '
                      '(%s), T1 %.3f s, ratio %.3f' % (b, cpu, rec_cpu, events, cost, source,
                                                       t1, t1 / cpu), flush=True)
        for b in builds:
            r = sorted(ratios[b])
            print('%s: T1 / unrecorded CPU min %.3f median %.3f max %.3f (%d runs)' %
                  (b, r[0], r[len(r) // 2], r[-1], len(r)))


if __name__ == '__main__':
    main()
