#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: the kernel's ceiling on sampling, kernel.perf_event_max_sample_rate
(recorder/perf-throttle.h), which Linux lowers for good when its sampling
interrupts take too long -- as it did in a CI run's ASan pass, leaving
fewer samples than the rate and an oracle that reckoned with the rate 4-7%
off.  Two recordings of SPIN (two threads, each 250 ms of its own clock):

  below  the ceiling is 1000 before the recording: ecp samples 1000 times a
         second, not 3000, and says so;
  during the program lowers it to 1000 as it starts (as the kernel does
         mid-run): ecp counts the kernel's stops of the sampler
         (PERF_RECORD_THROTTLE), says so when recording and in every
         answer, and each thread's recorded work is still its own clock
         less the samples it got, each at the measured cost.

The sysctl is global: the test runs alone (meson is_parallel false), needs
root, and puts the value back however it ends.

usage: test_sample_ceiling.py SPIN_BINARY"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

SYSCTL = '/proc/sys/kernel/perf_event_max_sample_rate'
CEILING = 1000


def set_ceiling(value):
    with open(SYSCTL, 'w') as f:
        f.write('%d\n' % value)


def spin_record(program, trace, work):
    shutil.rmtree(trace, ignore_errors=True)
    p = record(['-o', trace], program, cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    meta = read_meta(trace)
    check(meta.get('functions_mode') == 'sample', 'not sampled: %s'
          % meta.get('functions_mode'))
    return p, meta


def below(spin, work):
    set_ceiling(CEILING)
    trace = os.path.join(work, 'below')
    p, meta = spin_record([spin], trace, work)
    print('below: sample_hz %s, asked %s, %s samples in %s ns of CPU'
          % (meta['sample_hz'], meta['sample_hz_asked'], meta['samples'],
             meta['program_cpu_ns']))
    check(meta['sample_hz'] == str(CEILING) and meta['sample_hz_asked'] == '3000',
          'rate %s (asked %s) under a ceiling of %d'
          % (meta['sample_hz'], meta['sample_hz_asked'], CEILING))
    check('sampled %d times a second, not 3000' % CEILING in p.stderr,
          'the lowered rate is not said: %s' % p.stderr)
    i = subprocess.run([ecp(), 'info', '--format', 'json', trace], capture_output=True,
                       text=True)
    check(i.returncode == 0 and json.loads(i.stdout)['sample_hz'] == CEILING,
          'ecp info: %s %s' % (i.stdout[-300:], i.stderr))
    # no more than the ceiling, and most of it: 500 ms of CPU time
    rate = int(meta['samples']) / (int(meta['program_cpu_ns']) / 1e9)
    check(0.5 * CEILING <= rate <= 1.05 * CEILING,
          '%.0f samples a second under a ceiling of %d' % (rate, CEILING))


def during(spin, work):
    set_ceiling(100000)
    trace = os.path.join(work, 'during')
    p, meta = spin_record(['sh', '-c', 'echo %d > %s; exec "$0"' % (CEILING, SYSCTL), spin],
                          trace, work)
    throttled = int(meta.get('samples_throttled', '0'))
    print('during: %d stops of the sampler, %s samples at %s a second in %s ns of '
          'CPU, ceiling %s at the end' % (throttled, meta['samples'], meta['sample_hz'],
                                           meta['program_cpu_ns'], meta['sample_rate_max']))
    check(meta['sample_hz'] == '3000' and meta['sample_rate_max'] == str(CEILING),
          'rate %s, ceiling at the end %s' % (meta['sample_hz'], meta['sample_rate_max']))
    check(throttled > 0, 'no stop of the sampler counted at 3000 a second '
          'under a ceiling of %d' % CEILING)
    check(re.search(r'the kernel stopped the sampler %d times' % throttled, p.stderr),
          'the stops are not said when recording: %s' % p.stderr)
    # read from the trace, then from the cache that read wrote: the same
    cache = os.path.join(trace, 'ecp-model.cache')
    if os.path.exists(cache):
        os.remove(cache)
    answers = []
    for _ in range(2):
        i = subprocess.run([ecp(), 'info', '--format', 'json', trace], capture_output=True,
                           text=True)
        check(i.returncode == 0, 'ecp info: %s' % i.stderr)
        answers.append(json.loads(i.stdout))
    check(os.path.exists(cache), 'no model cache written')
    info = answers[0]
    check(answers[1] == info, 'the cached model answers differently')
    check(any('stopped the sampler %d times' % throttled in w for w in info['warnings']),
          'the stops are not in the answer: %s' % info['warnings'])
    check(info['sample_hz'] == 3000 and info['samples_throttled'] == throttled,
          'ecp info: sample_hz %s, samples_throttled %s' % (info['sample_hz'],
                                                            info['samples_throttled']))
    t = subprocess.run([ecp(), 'info', trace], capture_output=True, text=True)
    line = [x for x in t.stdout.splitlines() if x.startswith('samples ')]
    check(t.returncode == 0 and line and ' at 3000 a second' in line[0]
          and 'the kernel stopped the sampler' in line[0], 'ecp info: %s' % line)
    # the lengths stand: each thread's work is its clock less the samples
    # it got, at the measured cost each (not the rate's share)
    real = {int(t): int(n) for t, n in re.findall(r'tid=(\d+) cpu_ns=(\d+)', p.stdout)}
    check(len(real) == 2, 'program output %r' % p.stdout)
    samples = samples_by_tid(read_trace(os.path.join(trace, 'sched')))
    cost = int(meta['sample_cost_ns'])
    recorded = {t['tid']: t['work_ns'] for t in info['thread_list']}
    for tid, ns in real.items():
        want = ns - samples[tid] * cost
        rec = recorded.get(tid, 0)
        print('thread %d: recorded %d ns, own clock less %d samples %d ns (%+.2f%%)'
              % (tid, rec, samples[tid], want, 100.0 * (rec - want) / want))
        check(abs(rec - want) <= 0.02 * want,
              'thread %d: recorded %d ns against %d ns' % (tid, rec, want))


def main():
    spin = os.path.abspath(sys.argv[1])
    if os.geteuid() != 0 or not os.access(SYSCTL, os.W_OK):
        skip('kernel.perf_event_max_sample_rate is not writable here (root only)')
    ecp()
    work = workdir()
    with open(SYSCTL) as f:
        old = int(f.read())
    # meson's timeout sends SIGTERM: the value goes back then too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        below(spin, work)
        during(spin, work)
    finally:
        set_ceiling(old)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
