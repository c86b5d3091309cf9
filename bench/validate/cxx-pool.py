#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 34's acceptance, measured: a C++17 pool (bench/validate/cxx-pool.cc)
built the README's way (-O2 -g -finstrument-functions
-finstrument-functions-exclude-file-list=/usr/include) and plain (-O2 -g, its
stages inlined into the workers, so sampling must find them inlined).

For each build, recorded with --as-cpus 16 (a pool of 16 workers):
  - the recording's cost: the recorded run's CPU and wall against the
    unrecorded run's, interleaved (median of N pairs);
  - each stage's work in `ecp report -P 1` (sampled: with --own-code, plus the
    sampler's measured cost for its samples, which the clocks include) against the CPU time the
    program's own threads measured around the stage in the same run;
  - the top function by TET at P = 2, 6 and 16.

usage: cxx-pool.py [ECP] [PAIRS]   (prints a markdown table)"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ECP = sys.argv[1] if len(sys.argv) > 1 else 'ecp'
PAIRS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
STAGES = ['parse_record', 'detect_replays', 'score', 'merge_result', 'build_index']
BUILDS = {
    'README (instrumented)': ['-finstrument-functions',
                              '-finstrument-functions-exclude-file-list=/usr/include'],
    'plain -O2 (sampled)': [],
}


def timed(cmd, env=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit('%s: exit %d: %s' % (' '.join(cmd), p.returncode, p.stderr[-400:]))
    return p, wall, cpu


def stage_clocks(stdout):
    s = {}
    for line in stdout.splitlines():
        w = line.split()
        if len(w) == 3 and w[0] == 'stage':
            s[w[1]] = s.get(w[1], 0) + int(w[2])
    return s


def short(name):
    return name.replace('(anonymous namespace)::', '').split('(')[0]


def main():
    work = tempfile.mkdtemp(prefix='ecp-cxx-pool-')
    rows = []
    for label, flags in BUILDS.items():
        exe = os.path.join(work, 'pool-' + str(len(rows)))
        subprocess.run(['g++', '-std=c++17', '-O2', '-g', '-pthread'] + flags +
                       [os.path.join(HERE, 'cxx-pool.cc'), '-o', exe], check=True)
        env = dict(os.environ)
        plain_wall, plain_cpu, rec_wall, rec_cpu = [], [], [], []
        trace = os.path.join(work, 'trace')
        for _ in range(PAIRS):
            # the unrecorded run on one CPU with 16 workers, as recorded
            _, w, c = timed(['taskset', '-c', '0', 'env', 'ECP_NOTHING=1', exe], env)
            plain_wall.append(w)
            plain_cpu.append(c)
            p, w, c = timed([ECP, 'record', '-q', '-f', '-o', trace, '--as-cpus', '16',
                             '--', exe], env)
            rec_wall.append(w)
            meta = dict(l.split('=', 1) for l in open(os.path.join(trace, 'ecp-record.meta'))
                        .read().splitlines() if '=' in l)
            rec_cpu.append(int(meta['program_cpu_ns']) / 1e9)
        clocks = stage_clocks(p.stdout)
        rep = {}
        for P in (1, 2, 6, 16):
            # sampled: the C++ runtime (libstdc++, and its templates compiled
            # into the program) charged to the caller, as the README's
            # instrumented build does
            own = ['--own-code'] if not flags else []
            r = subprocess.run([ECP, 'report', trace, '-P', str(P), '--top', '0', '--format',
                                'json'] + own, capture_output=True, text=True)
            rep[P] = json.loads(r.stdout)['functions']
        # the threads' clocks hold the sampler's cost, which ecp takes out
        # of the samples' threads (meta sample_cost_ns a sample): compared
        # on the same footing
        cost = int(meta.get('sample_cost_ns', '0'))
        work1, folded = {}, set()
        for f in rep[1]:
            base = short(f['name']).replace(' [inlined]', '')
            if base in STAGES:
                work1[base] = work1.get(base, 0) + f['work_ns'] + f.get('samples', 0) * cost
                # calls under --min-duration (10 us) are their caller's time
                if f.get('folded_calls', 0) > 10 * f.get('calls', 0):
                    folded.add(base)
        offs = ['%s %s' % (s, 'folded' if s in folded else
                           '%+.1f%%' % (100 * (work1.get(s, 0) - clocks[s]) / clocks[s]))
                for s in STAGES if clocks.get(s)]
        tops = ['P=%d %s' % (P, short(rep[P][0]['name'])) for P in (2, 6, 16)]
        inlined = sum(1 for f in rep[1] if f['name'].endswith('[inlined]'))
        rows.append((label, statistics.median(rec_cpu) / statistics.median(plain_cpu),
                     statistics.median(rec_wall) / statistics.median(plain_wall),
                     ', '.join(offs), ', '.join(tops), inlined))
    print('| build | recorded CPU / unrecorded | wall (incl. ecp record) | stage work vs '
          'its threads\' clocks (same run) | top by TET | inlined rows |')
    print('|---|---|---|---|---|---|')
    for r in rows:
        print('| %s | %.2fx | %.2fx | %s | %s | %d |' % r)


main()
