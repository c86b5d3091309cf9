#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 37): an OpenMP example of traces/ built with clang and LLVM's
libomp predicts like its GCC build.

The clang build is recorded with --as-cpus 4 (libomp's default team must
then be 4 threads: the trace has at least 4) and must name no OpenMP construct as unmodelled: its regions,
barriers and dynamic loops come through OMPT (recorder/agent/agent-ompt.c).
With the GCC build given too, that one is recorded the same way and the
two must give the same top function by TET at P = 1 and 2 among the
example's own functions, where the GCC top leads by at least 1.5x (a
closer second may swap with the machine's mood).  Their predicted
speedups are printed, not compared: they come from two runs, and this
machine's speed varies 2-3x between runs and within one (a busy moment
slows the partitions that run while it lasts), so a 10% agreement would
be a measurement, not a test; the accuracy of the clang builds'
predictions against an oracle of the same run's durations is checked on
tests/recorder's OpenMP programs (test_omp.py --clang).

usage: omp_clang.py NAME CLANG_BUILD SCALE FUNCTIONS [GCC_BUILD]
  FUNCTIONS: comma-separated names of the example's own functions.
env:   ECP (the ecp binary)
exit:  0 pass, 1 fail, 77 skip (no LTTng here)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recorder'))
from ecptrace import refused  # noqa: E402

MARGIN = 1.5
# recordings of both builds made again when their top functions differ
RECORD_AGAIN = 2


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def record(ecp, prog, scale, work, tag, tries=2):
    """The build recorded and scanned; recorded again once where ecp refuses
    the recording as not holding the program's time, as ecp tells a user
    to (a CI run's default pass refused one: LTTng-UST's listener
    threads' stays 25.5 ms of its 47.7 ms, before the hypervisor's steal
    was recorded); a second refusal fails."""
    for attempt in range(tries):
        trace = os.path.join(work, '%s-%d' % (tag, attempt))
        p = subprocess.run([ecp, 'record', '-q', '-o', trace, '--as-cpus', '4', '--', prog,
                            '--scale', scale, '--check', '--quiet'],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail('%s: ecp record exited %d: %s' % (tag, p.returncode, p.stderr))
        s = subprocess.run([ecp, 'scan', trace, '-P', '1,2,4', '--top', '100',
                            '--format', 'json'], capture_output=True, text=True, timeout=120)
        if s.returncode == 0:
            return trace, p.stderr + s.stderr, json.loads(s.stdout)
        if not refused(s.stderr) or attempt + 1 == tries:
            fail('%s: ecp scan exited %d: %s' % (tag, s.returncode, s.stderr))
        print('%s: refused, recording again: %s' % (tag, s.stderr.strip()))


def top(scan, names, i):
    tet = {f['name']: f['tet_ns'][i] for f in scan['functions'] if f['name'] in names}
    if not tet:
        fail('none of %s in the answer' % names)
    ranked = sorted(tet, key=tet.get, reverse=True)
    lead = tet[ranked[0]] / max(tet[ranked[1]], 1) if len(ranked) > 1 else float('inf')
    return ranked[0], lead


def tops_differ(name, names, gcc, clang):
    """The first P at which the builds' top functions differ where GCC's top
    leads by MARGIN, said in words; None when they agree."""
    for i, p in enumerate((1, 2)):
        want, lead = top(gcc, names, i)
        got, _ = top(clang, names, i)
        print('P=%d: top %s (gcc, leads %.1fx), %s (clang)' % (p, want, lead, got))
        if lead >= MARGIN and got != want:
            return '%s P=%d: top function %s (clang), %s (gcc)' % (name, p, got, want)
    return None


def describe(ecp, tag, trace, scan, names):
    """What a recording held, for a failure to be read from the log: T_P,
    the example's functions' work, libomp's spins cut (ecp:omp_spin,
    recorder/agent/agent-ompt-spin.c), and what else had the recording CPU
    (other processes, the hypervisor's steal: ecp-record.meta)."""
    meta = {}
    try:
        with open(os.path.join(trace, 'ecp-record.meta')) as f:
            for line in f:
                k, _, v = line.strip().partition('=')
                meta[k] = v
    except OSError:
        pass
    info = subprocess.run([ecp, 'info', trace, '--format', 'json'],
                          capture_output=True, text=True, timeout=120)
    work, cons = {}, ''
    if info.returncode == 0:
        j = json.loads(info.stdout)
        work = {f['name']: f['work_ns'] for f in j.get('top_functions', []) if f['name'] in names}
        c = j.get('consistency') or {}
        cons = 'CPU %.1f ms, runtime and recorder %.1f ms' % (
            c.get('program_cpu_ns', 0) / 1e6, c.get('overhead_ns', 0) / 1e6)
    spins = 0
    bt = subprocess.run(['babeltrace2', trace], capture_output=True, text=True, errors='replace',
                        timeout=120)
    if bt.returncode == 0:
        spins = sum(1 for l in bt.stdout.splitlines() if 'ecp:omp_spin' in l)
    print('  %s %s: T_P %s ms, work %s ms, %s, omp_spin events %d, other processes %.1f ms, '
          'steal %.1f ms' % (
              tag, trace, [round(t / 1e6, 1) for t in scan['makespan_ns']],
              {k: round(v / 1e6, 2) for k, v in work.items()}, cons, spins,
              int(meta.get('other_cpu_ns', 0)) / 1e6, int(meta.get('steal_ns', 0)) / 1e6))


def main():
    name, clang_prog, scale, names = sys.argv[1:5]
    gcc_prog = sys.argv[5] if len(sys.argv) > 5 else None
    names = names.split(',')
    ecp = os.environ.get('ECP')
    if not ecp or not shutil.which('lttng-sessiond') or not shutil.which('babeltrace2'):
        print('SKIP: ECP, lttng-sessiond or babeltrace2 missing')
        sys.exit(77)
    work = tempfile.mkdtemp(prefix='ecp-omp-clang-')
    clang_trace, said, clang = record(ecp, clang_prog, scale, work, 'clang')
    # every line naming OpenMP but the task deal's near tie: that warning
    # names no construct, it says the prediction sits on a tie (task-deal.c)
    named = [l for l in said.splitlines() if ('OpenMP' in l or 'sched_yield' in l) and
             'near tie in the OpenMP task deal' not in l]
    if named:
        fail('%s (clang): constructs named as unmodelled: %s' % (name, named))
    info = subprocess.run([ecp, 'info', clang_trace, '--format', 'json'],
                          capture_output=True, text=True, timeout=120)
    threads = json.loads(info.stdout)['threads'] if info.returncode == 0 else 0
    threads = len(threads) if isinstance(threads, list) else int(threads)
    if threads < 4:
        fail('%s (clang): %d threads recorded, want at least 4 (--as-cpus 4)' % (name, threads))
    s_clang = [clang['makespan_ns'][0] / t for t in clang['makespan_ns']]
    print('%s clang: T_P %s ms, speedups %s' % (
        name, [round(t / 1e6, 1) for t in clang['makespan_ns']], [round(s, 2) for s in s_clang]))
    if gcc_prog:
        gcc_trace, _, gcc = record(ecp, gcc_prog, scale, work, 'gcc')
        s_gcc = [gcc['makespan_ns'][0] / t for t in gcc['makespan_ns']]
        print('%s gcc:   T_P %s ms, speedups %s' % (
            name, [round(t / 1e6, 1) for t in gcc['makespan_ns']], [round(s, 2) for s in s_gcc]))
        differ = tops_differ(name, names, gcc, clang)
        again = 0
        while differ:
            # omp_fib's clang build has recorded T_1 at 10.9-19.3 ms where
            # 6-9.6 ms is usual, the excess in Fib, about once in ten runs
            # under load and in three CI runs (twice in a row in one); the
            # cause was not found (docs/VALIDATION.md, "What could not be
            # done"): what each recording held is printed, and both builds
            # are recorded again, twice at most, after a pause
            describe(ecp, 'clang', clang_trace, clang, names)
            describe(ecp, 'gcc', gcc_trace, gcc, names)
            again += 1
            if again > RECORD_AGAIN:
                fail(differ + ' (traces kept in %s)' % work)
            print('%s; recording both builds again (%d of %d)' % (differ, again, RECORD_AGAIN))
            time.sleep(1)
            clang_trace, _, clang = record(ecp, clang_prog, scale, work, 'clang-again%d' % again)
            gcc_trace, _, gcc = record(ecp, gcc_prog, scale, work, 'gcc-again%d' % again)
            differ = tops_differ(name, names, gcc, clang)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
