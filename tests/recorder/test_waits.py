#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: waits as real programs make them (waits.c, issue 32).

Each mode records the program once and checks that ecp's predicted run
time at P = 1 and 2 is within 10% of the oracle (oracle.py) solved on the
durations the same run measured with each thread's own CPU clock, and that
the answer names what it did with the waits:

  progress  the timeouts of a loop of timed condition waits that the
            workers' signals end are no delay (as delays, T2 would be the
            recorded timeouts' sum, about T1); the warning counts them
  sigwait   the signal thread's sigwait ends with main's pthread_kill, a
            dependency through the SIGUSR1 channel, not a delay as long
            as the run (which made T_P the recorded wall time at every P)
  pause     a thread with a SIGUSR2 handler waits in pause() until main's
            pthread_kill: the pause is recorded (a delay when another
            process's signal ends it) and read from the "any signal"
            channel, a dependency on the kill
  cancel    a thread blocked in a condition wait nobody signals ends by
            main's pthread_cancel: a dependency on the cancel, not a wait
            as long as the run
  blocked   pool workers blocked at exit (never joined) do not extend the
            run; the warning says so
  running   threads still computing at exit keep the work they did after
            their last event (it was dropped: work 0), named by tid
  eventloop an epoll loop woken by the pool's eventfd writes, which looks at
            another descriptor before it reads the eventfd: each wake-up is
            a dependency on a write, not a delay (as delays they add up to
            the recorded run and T2 came out as T1)
  rawclone  threads made with clone() that synchronise with direct futex
            system calls (Go's shape): no agent event; each is a thread of
            the model with its CPU time from the switch records, and the
            answer names them as threads whose dependencies are unknown
            (their work was outside the model)
  fork      main forks two worker processes and waits for them: each
            child's threads are threads of the model, made at the fork,
            and the waitpid that returns after a child exited depends on
            it (the children's time was a delay: T_P = T1 at every P)
  system    main runs the two-thread program with system(): the same
            (the children were invisible: T1 about 0)
  wrapper   sh -c "PROGRAM plain; true": the recorded shell forks the
            threaded program and waits for it; predicts like the program
            (T1 was 0 and the speedup 0.00)
  shell     sh -c "sleep 0.2; PROGRAM plain; true": the sleep child's
            blocked time is a delay before the program (without it the
            sleep vanished from the prediction)

usage: test_waits.py WAITS_BINARY MODE"""
import json
import re
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403
from oracle import seg, compare, measured_segments, unsampled  # noqa: E402

TOLERANCE = 0.10
# Where the program starts other processes, their CPU time is the switch
# records' (they are not sampled: the oracle keeps their clocks' work as
# measured), within 0-4% of their own clocks here alone or beside two
# busy loops.  The tolerance was 25% while the oracle took the sampling
# cost (3000 Hz x the cost of a sample measured in the run: 6-22% of the
# time) out of the children's work too, which put system +8-30% off; what
# these modes guard against is -100%
# (children invisible) or T_P = T1 (their time a delay), and the shell's
# lost sleep (-40%).
CHILD_MODES = ('fork', 'system', 'wrapper', 'shell')
SLEEP_NS = 200e6
STEAL_TRIES = 3  # see main()


def oracle_threads(mode, d):
    """main is thread 0, the workers 1 and 2 (created by main's first,
    empty, segment); the signal thread 3."""
    w = [[seg(d['w%d' % i], deps=[(0, 0)])] for i in range(2)]
    if mode == 'running':
        return [[seg(0), seg(d['main'])]] + w
    if mode == 'shell':
        # sh: forks sleep, waits, forks the program, waits; thread 3 the sleep
        sh = [seg(0), seg(0, deps=[(3, 1)]), seg(0, deps=[(1, 0), (2, 0)])]
        w = [[seg(d['w%d' % i], deps=[(0, 1)])] for i in range(2)]
        return [sh] + w + [[seg(0, deps=[(0, 0)]), seg(0, SLEEP_NS)]]
    # (the wrapper's shell measures nothing: its own work is a few ms)
    main = [seg(0), seg(d.get('main', 0), deps=[(1, 0), (2, 0)])]
    if mode in ('sigwait', 'pause'):
        return [main] + w + [[seg(0, deps=[(0, 0)]), seg(d['signal'], deps=[(1, 0), (2, 0)])]]
    if mode == 'cancel':
        return [main] + w + [[seg(0, deps=[(0, 0)]), seg(0, deps=[(1, 0), (2, 0)])]]
    return [main] + w


def main():
    prog = os.path.abspath(sys.argv[1])
    mode = sys.argv[2]
    ecp_bin = ecp()
    work = workdir()
    trace = os.path.join(work, 'trace')
    program = ['sh', '-c', "'%s' plain; true" % prog] if mode == 'wrapper' else [prog, mode]
    if mode == 'shell':
        program = ['sh', '-c', "sleep %g; '%s' plain; true" % (SLEEP_NS / 1e9, prog)]
        # STEAL_TRIES: the stays of threads with no clock of their own (raw
    # clone's, a fork's copies) hold what the hypervisor stole meanwhile,
    # which the program's own clocks (the oracle) do not: a CI run found
    # rawclone +18-20% and fork +25% at once.  A recording whose meta says
    # the hypervisor took the CPU (steal_ns), or other processes did
    # (other_cpu_ns), is made again once when off.
    for attempt in range(STEAL_TRIES):
        p = record(['-o', trace, '-f'], program, cwd=work)
        check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
        out = program_output(p.stdout)
        d = measured_segments(p.stdout)
        s = subprocess.run([ecp_bin, 'scan', '-P', '1-2', '--format', 'json', trace],
                           capture_output=True, text=True)
        check(s.returncode == 0, 'ecp scan: exit %d: %s' % (s.returncode, s.stderr))
        j = json.loads(s.stdout)
        # the model's warnings, in the JSON answer and on stderr: once each
        said = j['warnings']
        warnings = ' '.join(said + [line for line in s.stderr.splitlines()
                                    if not any(w in line for w in said)])
        meta = read_meta(trace)
        threads = oracle_threads(mode, d)
        # the children's threads (all but the recorded process's main or
        # shell) were not sampled: their clocks paid no sampling cost
        children = range(1, len(threads)) if mode in CHILD_MODES else ()
        bad = compare(j['makespan_ns'], threads, [1, 2], TOLERANCE, meta, children)
        steal = int(meta.get('steal_ns', 0))
        # other processes on the recording CPU (a second recording there,
        # as the test suite runs two at once): a sleep that ended while one
        # ran lasted until the shell's child had the CPU back (ASan build,
        # 2026-11-28: `sleep 0.2` held as 270 ms, T_2 +14%; ecp warns,
        # recorder-other-cpu)
        others = int(meta.get('other_cpu_ns', 0))
        if not bad or not (steal or others >= 5 * 10**6) or attempt + 1 == STEAL_TRIES:
            break
        print('%s with %d ms of steal and %d ms of other processes in the recording: '
              'recording again' % (bad, steal // 10**6, others // 10**6))
    check(not bad, 'predicted T_P off the oracle by more than %d%%: %s' % (TOLERANCE * 100, bad))
    if mode in ('progress', 'sigwait', 'eventloop'):
        check(j['consistency']['unknown_dependencies_ns'] == 0,
              'unknown dependencies in a program whose waits are all seen: %d'
              % j['consistency']['unknown_dependencies_ns'])
    if mode == 'progress':
        timeouts = int(out.get('timeouts', '0'))
        print('%s timeouts, %s woken' % (timeouts, out.get('woken')))
        check(int(out.get('woken', '0')) >= 1, 'no wait was woken: %s' % out)
        if timeouts:
            check('progress loops' in warnings, 'no progress-loop warning: %s' % warnings)
        check('kept as' not in warnings, 'timeouts kept as delays: %s' % warnings)
    elif mode == 'sigwait':
        check(out.get('sigwait') == '0 sig=10', 'sigwait: %s' % out.get('sigwait'))
        check('sigwait, which ecp does not model' not in warnings,
              'sigwait still named as unmodelled: %s' % warnings)
    elif mode == 'pause':
        ev = read_trace(os.path.join(trace, 'main'))
        check(count(ev, 'ecp:chan_read', chan=0x5349470000000000) >= 1 and
              count(ev, 'ecp:delay_begin', kind=26) >= 1,
              'pause() not recorded as a wait on the any-signal channel')
    elif mode == 'cancel':
        check(out.get('cancelled') == '1', 'cancelled=%s' % out.get('cancelled'))
        check('pthread_cancel' not in warnings, 'pthread_cancel named: %s' % warnings)
    elif mode == 'blocked':
        # a worker may not have reached its wait when main exits (it has
        # posted): then it is cut running; both are named either way
        cut = sum(int(n) for n in re.findall(
            r'(\d+) threads were (?:blocked in a wait|still running) when the process exited',
            warnings))
        check(cut == 2, 'the two pool workers are not named as cut by the exit: %s' % warnings)
    elif mode in ('fork', 'system', 'wrapper', 'shell'):
        check('child processes were followed' in warnings,
              'no warning naming the child processes: %s' % warnings)
    if mode == 'fork':
        # perf samples the program's threads only: a sampled child (of one
        # thread here, tid = pid) ran slower than it does, all of it work
        m = re.search(r'child processes were followed \(pid ([\d, ]+)', warnings)
        check(m is not None, 'no child pids named: %s' % warnings)
        kids = {int(x) for x in m.group(1).split(',')}
        samples = [e for e in read_trace(trace) if e['event'] == 'ecp_sched:sample']
        sampled_kids = sum(1 for e in samples if e.get('tid') in kids)
        check(samples, 'the program was not sampled')
        check(sampled_kids == 0, '%d samples of the child processes %s' % (sampled_kids, kids))
    elif mode == 'rawclone':
        check('2 threads ran that the agent never saw start' in warnings and
              'UNKNOWN' in warnings, 'no warning naming the unseen threads: %s' % warnings)
        # the workers' clocks less what the sampler cost them, as the
        # oracle takes them: the model takes that cost out too.  Against
        # the raw clocks, a clean-clone CI run's ASan build (2026-11-27,
        # busy: a sample costs more there) failed with 457.7 ms counted
        # while its prediction was 1.8% off the oracle's
        workers = unsampled(oracle_threads(mode, d), meta)[1:3]
        want = sum(w for t in workers for w, _, _ in t)
        print('unseen threads: %d ns of unknown dependencies; their clocks %d ns, %d ns less '
              'the sampler\'s cost' % (j['consistency']['unknown_dependencies_ns'],
                                        d['w0'] + d['w1'], want))
        check(j['consistency']['unknown_dependencies_ns'] >= 0.81 * want,
              'the unseen threads\' work is not counted as of unknown dependencies: %d of '
              'their %d ns' % (j['consistency']['unknown_dependencies_ns'], want))
        t = subprocess.run([ecp_bin, 'scan', '-P', '1-2', trace], capture_output=True, text=True)
        check(t.returncode == 0 and 'T_P is a lower bound' in t.stderr,
              'no bound warning in the table answer: %s' % t.stderr)
    elif mode == 'eventloop':
        check(int(out.get('wakeups', '0')) >= 2, 'wakeups: %s' % out.get('wakeups'))
    elif mode == 'running':
        check('2 threads were still running when the process exited' in warnings,
              'no warning naming the threads cut: %s' % warnings)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
