#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real programs' waits (issue 32): each program is recorded once on one CPU
(quiet, and again with both CPUs kept busy by two spinning shells), `ecp scan
-P 1-2` predicts T1 and T2, and the program is then run pinned to one CPU and
to two (taskset), interleaved, RUNS times each: the median wall time is the
measured T_P.  Prints a markdown table (docs/VALIDATION.md, "Real programs'
waits").

usage: waits.py ECP REC_WAITS [--runs N] [--only NAME,...]

Inputs are made under a temporary directory; xz, pbzip2, pigz, node,
esbuild and Java (javac) are skipped when not installed."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import inputs


# waits.c spins for a fixed CPU time, not a fixed amount of work: the
# sampler's cost, which the prediction takes out (it predicts the program
# unrecorded), would show as a 5-7% error that a real program does not
# have.  Its threads' time is recorded without samples.
NO_SAMPLES = ['--no-functions']


def cases(rec_waits, work):
    # 12 MB of base64 text: compressors work on it
    text = inputs.base64_text(os.path.join(work, 'text'), 12_000_000)
    small = os.path.join(work, 'small')
    with open(text, 'rb') as src, open(small, 'wb') as dst:
        dst.write(src.read(6_000_000))
    pool = os.path.join(work, 'pool.js')
    with open(pool, 'w') as f:
        f.write("const c = require('crypto'); let left = 64;\n"
                "for (let i = 0; i < 64; i++) c.pbkdf2('s', 'salt' + i, 40000, 64, 'sha512',"
                " () => { if (--left === 0) console.log('done'); });\n")
    esb_index = inputs.esbuild_project(work)
    java_dir = inputs.java_parallel_stream(work)
    out = []
    for mode in ('progress', 'sigwait', 'pause', 'cancel', 'blocked', 'running', 'eventloop',
                 'rawclone', 'fork', 'system'):
        out.append(('waits ' + mode, [rec_waits, mode], {}, NO_SAMPLES))
    out.append(('waits wrapper', ['sh', '-c', "'%s' plain; true" % rec_waits], {}, NO_SAMPLES))
    out.append(('waits shell (sleep 0.2 first)',
                ['sh', '-c', "sleep 0.2; '%s' plain; true" % rec_waits], {}, NO_SAMPLES))
    tools = [
        ('xz -T4 -1 -v', ['xz', '-T4', '-1', '-v', '-k', '-c', text], 'xz'),
        ('pbzip2 -p4', ['pbzip2', '-p4', '-k', '-c', small], 'pbzip2'),
        ('sh -c "pigz -p 4"', ['sh', '-c', 'pigz -p 4 -c %s > /dev/null; true' % small], 'pigz'),
        ('node, libuv pool of 4', ['node', pool], 'node'),
        ('esbuild (Go)', ['esbuild', '--bundle', '--minify', esb_index,
                          '--outfile=' + os.path.join(work, 'esb', 'out.js')], 'esbuild'),
    ]
    if java_dir:  # javac found: the JVM sized as two CPUs in every run (its
        # pool would follow the CPUs it is pinned to otherwise)
        tools.append(('java parallel stream (OpenJDK)',
                      ['java', '-XX:ActiveProcessorCount=2', '-cp', java_dir, 'Par', '400000'],
                      'java'))
    for name, cmd, tool in tools:
        if shutil.which(tool):
            env = {'UV_THREADPOOL_SIZE': '4'} if tool == 'node' else {}
            out.append((name, cmd, env, []))
    return out


def spin(n):
    return [subprocess.Popen(['sh', '-c', 'while :; do :; done']) for _ in range(n)]


def predict(ecp, cmd, env, work, busy, rec_args):
    trace = os.path.join(work, 'trace')
    shutil.rmtree(trace, ignore_errors=True)
    spinners = spin(2) if busy else []
    try:
        r = subprocess.run([ecp, 'record', '-q', '-o', trace] + rec_args + ['--'] + cmd,
                           cwd=work, env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors='replace')
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    if r.returncode != 0:
        return None, 'record: exit %d: %s' % (r.returncode, r.stderr[-300:])
    s = subprocess.run([ecp, 'scan', '-P', '1-2', '--format', 'json', trace],
                       capture_output=True, text=True)
    if s.returncode != 0:
        return None, 'scan: exit %d: %s' % (s.returncode, s.stderr[-300:])
    j = json.loads(s.stdout)
    return [t / 1e9 for t in j['makespan_ns']], ' / '.join(j.get('warnings', []))


def measure(cmd, env, work, runs):
    walls = {1: [], 2: []}
    for _ in range(runs):
        for cpus, mask in ((1, '0'), (2, '0,1')):
            t = time.perf_counter()
            subprocess.run(['taskset', '-c', mask] + cmd, cwd=work, env=dict(os.environ, **env),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            walls[cpus].append(time.perf_counter() - t)
    return {p: statistics.median(w) for p, w in walls.items()}


def main():
    args = sys.argv[1:]
    ecp, rec_waits = os.path.abspath(args[0]), os.path.abspath(args[1])
    runs = int(args[args.index('--runs') + 1]) if '--runs' in args else 5
    only = args[args.index('--only') + 1].split(',') if '--only' in args else None
    work = tempfile.mkdtemp(prefix='ecp-waits-bench-')
    print('| program | predicted T1 / T2 (s) | speedup | busy recording: speedup | '
          'measured T1 / T2 (s) | speedup | error T1 / T2 | error of speedup |')
    print('|---|---|---|---|---|---|---|---|')
    for name, cmd, env, rec_args in cases(rec_waits, work):
        if only and not any(o in name for o in only):
            continue
        pred, note = predict(ecp, cmd, env, work, False, rec_args)
        busy, _ = predict(ecp, cmd, env, work, True, rec_args)
        if pred is None:
            print('| %s | %s | | | | | | |' % (name, note))
            continue
        meas = measure(cmd, env, work, runs)
        sp, sm = pred[0] / pred[1], meas[1] / meas[2]
        sb = busy[0] / busy[1] if busy else float('nan')
        print('| %s | %.3f / %.3f | %.2f | %.2f | %.3f / %.3f | %.2f | %+.1f%% / %+.1f%% | %+.1f%% |'
              % (name, pred[0], pred[1], sp, sb, meas[1], meas[2], sm,
                 100 * (pred[0] - meas[1]) / meas[1], 100 * (pred[1] - meas[2]) / meas[2],
                 100 * (sp - sm) / sm))
        sys.stdout.flush()
    shutil.rmtree(work, ignore_errors=True)


main()
