#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measured at P (issue 36): each program is recorded once on one CPU and
once unpinned on two (`ecp record --cpus 0-1`), `ecp compare` reads the
pair, and the program is then run unrecorded pinned to one CPU and to two
(taskset), interleaved, RUNS times each: the median wall time is the
measured T_P, the spread min-max.  Prints a markdown table
(docs/VALIDATION.md, "Measured at P"): the ideal model's T_2 and the
inflation-aware one's against the measured T_2, and the function `ecp
compare` names as inflating most.

usage: inflation.py ECP INFLATION_BINARY [--runs N] [--only NAME,...] [--others K]

--others K records the program K times on two CPUs (default 1); `ecp compare`
then reads the median of those runs.

The real programs (pigz, lbzip2, xz, zstd, sort, x264, rg, esbuild, git) are skipped when not
installed; their inputs are made under a temporary directory."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import inputs


def cases(inflation, work):
    text = inputs.base64_text(os.path.join(work, 'text'), 24_000_000)
    lines = os.path.join(work, 'lines')
    with open(text, 'rb') as src, open(lines, 'wb') as dst:
        dst.write(src.read(12_000_000))
    corpus = os.path.join(work, 'corpus')  # rg's: 8 files of 3 MB
    os.makedirs(corpus)
    with open(text, 'rb') as src:
        for i in range(8):
            with open(os.path.join(corpus, 'f%d.txt' % i), 'wb') as dst:
                dst.write(src.read(3_000_000) or b'x')
    out = [('inflation ' + m, [inflation, m]) for m in
           ('false-sharing', 'bandwidth', 'compute', 'pingpong')]
    real = [('pigz -p 2', ['pigz', '-p', '2', '-c', text], 'pigz'),
            ('lbzip2 -n 2', ['lbzip2', '-n', '2', '-c', text], 'lbzip2'),
            ('xz -T2 -2', ['xz', '-T2', '-2', '-c', text], 'xz'),
            ('zstd -T2 -9', ['zstd', '-T2', '-9', '-c', text], 'zstd'),
            ('sort --parallel=2', ['sort', '--parallel=2', '-S', '64M', lines], 'sort'),
            ('rg -j2', ['rg', '-j2', '-c', '[a-f]{3}[0-9]', corpus], 'rg'),
            # issue 32's two programs whose ideal prediction missed: xz's four
            # encoders deflate at two CPUs, Go's runtime inflates
            ('xz -T4 -1', ['xz', '-T4', '-1', '-c', lines], 'xz'),  # 12 MB
            ('esbuild (Go)', ['esbuild', '--bundle', '--minify', inputs.esbuild_project(work),
                              '--outfile=' + os.path.join(work, 'esb', 'out.js')],
             'esbuild')]
    if shutil.which('x264'):
        y4m = os.path.join(work, 'in.y4m')
        subprocess.run(['x264', '--quiet', '--version'], capture_output=True)
        with open(y4m, 'wb') as f:  # 60 frames of 320x240 noise
            f.write(b'YUV4MPEG2 W320 H240 F25:1 Ip A1:1 C420jpeg\n')
            for _ in range(60):
                f.write(b'FRAME\n' + os.urandom(320 * 240 * 3 // 2))
        real.append(('x264 --threads 2', ['x264', '--quiet', '--threads', '2', '-o',
                                          os.devnull, y4m], 'x264'))
    for name, cmd, need in real:
        if shutil.which(need):
            out.append((name, cmd))
    # git's delta search: two threads sharing the objects' windows, with
    # work stealing through a mutex and condition variable
    git = inputs.git_objects(work)
    if git:
        out.append(('git pack-objects --threads=2',
                    ['sh', '-c', 'cd %s && exec git pack-objects -q --threads=2 --window=100 '
                     '--no-reuse-delta --no-reuse-object %s/pack < %s > /dev/null'
                     % (git[0], work, git[1])]))
    # issue 37's miss: four OpenMP threads on two CPUs, libgomp's tasks
    # (the team and the waits as validate.py measures them)
    fib = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(inflation))),
                       'traces', 'omp_fib')
    if os.path.exists(fib):
        out.append(('omp_fib, team of 4', ['env', 'OMP_NUM_THREADS=4',
                                           'OMP_WAIT_POLICY=passive', fib, '--scale', '40',
                                           '--quiet']))
    return out


def timed(cmd, cpus):
    t0 = time.monotonic()
    subprocess.run(['taskset', '-c', cpus] + cmd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.monotonic() - t0


def compare(ecp, cmd, work, name, others):
    base = os.path.join(work, 'one')
    two = [os.path.join(work, 'two%d' % i) for i in range(others)]
    for out, where in [(base, ['--cpu', '0'])] + [(o, ['--cpus', '0-1']) for o in two]:
        p = subprocess.run([ecp, 'record', '-q', '--force', '-o', out] + where + ['--']
                           + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode not in (0, 1) or not os.path.exists(out):
            sys.exit('%s: ecp record %s failed: %s' % (name, where, p.stderr[-500:]))
    # several recordings on two CPUs: ecp compare takes the median run
    p = subprocess.run([ecp, 'compare', base] + two + ['-P', '1-2', '--format', 'json',
                        '--allow-inconsistent'], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit('%s: ecp compare failed: %s' % (name, p.stderr[-500:]))
    return json.loads(p.stdout)


def err(pred, meas):
    return '%+.1f%%' % (100.0 * (pred - meas) / meas)


def main():
    ecp, inflation = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs = int(sys.argv[sys.argv.index('--runs') + 1]) if '--runs' in sys.argv else 5
    only = (sys.argv[sys.argv.index('--only') + 1].split(',')
            if '--only' in sys.argv else None)
    others = int(sys.argv[sys.argv.index('--others') + 1]) if '--others' in sys.argv else 1
    if not {0, 1} <= os.sched_getaffinity(0):
        sys.exit('needs CPUs 0 and 1')
    work = tempfile.mkdtemp(prefix='ecp-inflation-')
    rows = []
    try:
        for name, cmd in cases(inflation, work):
            if only and not any(o in name for o in only):
                continue
            j = compare(ecp, cmd, work, name, others)
            t1, t2 = [], []
            for _ in range(runs):
                t1.append(timed(cmd, '0'))
                t2.append(timed(cmd, '0,1'))
            m1, m2 = statistics.median(t1), statistics.median(t2)
            ideal = j['totals']['tn_predicted_ns'] / 1e9
            aware = j['inflation_aware']['tn_ns'] / 1e9
            top = [f for f in j['functions'] if f['extra_ns'] > 0][:1]
            named = ('%s x%.2f' % (top[0]['name'], top[0]['inflation'])
                     if top and top[0]['inflation'] else '-')
            rows.append('| %s | %.3f | %.3f (%.3f-%.3f) | %.2f | %.3f (%s) | %.3f (%s) | %s |'
                        % (name, m1, m2, min(t2), max(t2), m1 / m2, ideal, err(ideal, m2),
                           aware, err(aware, m2), named))
            print(rows[-1], flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print('\n| program | T1 measured (s) | T2 measured (s, min-max) | speedup | ideal T2 '
          '(error) | inflation-aware T2 (error) | inflates most at 2 |')
    print('|---|---|---|---|---|---|---|')
    for r in rows:
        print(r)


main()
