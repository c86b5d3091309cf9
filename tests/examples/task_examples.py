#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 37): an OpenMP task example of traces/ (omp_fib, omp_wavefront,
omp_taskloop; GCC's libgomp or clang's libomp) recorded on one CPU with
--as-cpus 4 (a team of four):

  - ecp's T_1 and T_2 within 10% of an oracle computed on the same
    recording (T_4 and the span are printed beside it), independently of ecp's model builder
    (tests/recorder/task_oracle.py: the task structure and each thread's
    CPU time read from the trace, less the recorder's measured costs, the
    tasks dealt out again by the runtime's rules, the processors shared
    ideally), and its speedup T_1/T_2 within 2% of the oracle's -- or all
    three of one of the oracle's deals on durations moved by up to 300 ns,
    where the recording sits on a tie, or else the oracle's T_2 and T_4
    inside the ranges of ecp's own near-tie warning (a recording whose
    checks fail is made again, up to three times: TIES);
  - the recorded one-CPU order does not change the prediction: the program
    is recorded again with `ecp record` under SCHED_BATCH (chrt -b 0; no
    privilege needed), where a woken thread does not preempt the one
    running, so the CPU runs the tasks in another order on other threads
    (checked: the sequence of (task, team thread) begins differs; recorded
    again, up to twice, if it happens not to), and that recording's
    prediction meets the same bounds against its own oracle, which deals
    the tasks by the runtime's rules whatever order they ran in.  The two
    recordings' speedups are printed, not compared: each run has its own
    durations (omp_wavefront's T_1/T_2 varies by 2% between recordings made
    the same way).  P = 4 is not asserted: a recursive program under
    libgomp's rules is dealt there by which of two equal subtrees finishes
    first, as its real runs are, so the oracle's durations and ecp's,
    a few hundred ns a task apart at most, can tip one tie the other way,
    while recordings made the same way predict speedups from 2.6 to 3.3
    there; at P = 2 every thread is busy almost to the
    end, whichever subtree it holds;
  - `ecp report --by spawnsite` (Cilkprof's work and span per task-creating
    site, recursion through a site counted once) gives the sites, task
    counts, work and span the oracle computes on the recording's task
    structure, within 3% (the oracle leaves the recorder's cost in);
  - no OpenMP construct is named as unmodelled, no task kept as recorded.

usage: task_examples.py NAME BINARY SCALE"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'recorder'))
from ecptrace import check, ecp, record, retry, workdir  # noqa: E402
from task_oracle import Program  # noqa: E402

PROCS = [1, 2, 4, 0]  # 0: unlimited (the span)
ASSERTED = 2  # PROCS[:ASSERTED] are checked against the oracle
ORACLE_TOLERANCE = 0.10
ORDER_TOLERANCE = 0.02
SITE_TOLERANCE = 0.03
# TIES: a recursive program under libgomp's rules is dealt by which of two
# near-equal subtrees finishes first, and the oracle's durations differ
# from ecp's by a few hundred ns a task at most (what ecp measures and the
# oracle does not take out): a tie can tip the other way.  omp_fib's
# speedup at P = 2 then differs by 3% (1.93 against 1.99) or by 14% (1.74
# against 1.99, T_2 -12.7%: recorded beside another recording, once in 60,
# and once in a CI run).  On those recordings, moving each of the oracle's
# durations by up to 50 ns at random flipped its answer in 4 of 8 and 9 of
# 16 draws.  So where ecp's T_1, T_2 or speedup is off the oracle's, it
# must agree with one of TIE_DRAWS deals of the oracle on durations moved
# by up to TIE_NS apiece (at 1000 ns the draws spread to -7%, too wide to
# check anything).  With the oracle's clocks fixed (task_oracle.CpuClock:
# the master's last stay), 40 recordings beside two busy loops all agreed
# within 1% without it.  A recording whose checks fail is made again, up
# to TRIES times in all.
TIE_NS = 300
TIE_DRAWS = 32
TRIES = 3
# ... and where none of those agrees, ecp's answer must have said so: its
# near-tie warning's ranges (the dealt stretches on the team's own CPUs and
# on two, moved by what ecp's T_4 and T_2 hold outside them) must hold the
# oracle's T_4 and T_2, give or take the warning's 4 printed digits.  (A CI
# run under SCHED_BATCH: ecp's T_2 37.58 ms and T_4 32.98 ms against the
# oracle's 35.43 and 28.54; the oracle's 32 moved deals kept T_2 within
# 35.00-35.43 ms; ecp's warning gave 34.57-37.15 and 26.85-32.63 ms for the
# dealt stretches, 35.00-37.58 and 27.20-32.98 ms with the rest of its
# answer.)
WARNED_SLACK = 0.002
TIE_RE = re.compile(r"take ([\d.]+) to ([\d.]+) ms on their teams' own CPUs instead of "
                    r"([\d.]+) ms \(\d+ draws over \d+% off\)(?: and ([\d.]+) to ([\d.]+) ms "
                    r"on two CPUs instead of ([\d.]+) ms)?")


def predict(ecp_bin, trace):
    s = subprocess.run([ecp_bin, 'scan', trace, '-P', '1,2,4', '--format', 'json'],
                       capture_output=True, text=True, timeout=120)
    check(s.returncode == 0, 'ecp scan %s: exit %d: %s' % (trace, s.returncode, s.stderr))
    check('kept on the threads' not in s.stderr and 'kept as recorded' not in s.stderr,
          'tasks were kept as recorded: %s' % s.stderr)
    answer = json.loads(s.stdout)
    tie = [l for l in s.stderr.splitlines() if 'near tie in the OpenMP task deal' in l]
    in_json = [w for w in answer['warnings'] if w.startswith('near tie in the OpenMP task deal')]
    check(len(in_json) == len(tie) and all(w in t for w, t in zip(in_json, tie)),
          'the JSON answer\'s warnings %s, stderr\'s %s' % (in_json, tie))
    return answer['makespan_ns'] + [answer['span_ns']], tie


def recorded(ecp_bin, work, tag, program, batch=False):
    trace = os.path.join(work, tag)
    shutil.rmtree(trace, ignore_errors=True)
    if batch:
        p = subprocess.run(['chrt', '-b', '0', ecp_bin, 'record', '-o', trace, '--as-cpus', '4',
                            '--'] + program, cwd=work, capture_output=True, text=True,
                           timeout=120)
    else:
        p = record(['-o', trace, '--as-cpus', '4'], program, cwd=work)
    check(p.returncode == 0, 'ecp record (%s): exit %d: %s' % (tag, p.returncode, p.stderr))
    check('which ecp does not model' not in p.stderr,
          'the recording names a construct unmodelled: %s' % p.stderr)
    return trace


def agrees(got, want):
    """ecp's T_1 and T_2 within ORACLE_TOLERANCE of the oracle's `want`
    (T_1, T_2, ...), and its speedup T_1/T_2 within ORDER_TOLERANCE."""
    for i in range(ASSERTED):
        if abs(got[i] - want[i]) > ORACLE_TOLERANCE * want[i]:
            return False
    s_got, s_want = got[0] / got[1], want[0] / want[1]
    return abs(s_got - s_want) <= ORDER_TOLERANCE * s_want


def within_warned(got, want, tie):
    """Whether the oracle's T_1 agrees with ecp's and its T_2 and T_4 lie in
    the ranges ecp's near-tie warning gave (TIE_RE), moved by what ecp's
    answer holds outside the dealt stretches; None without a warning that
    gives both ranges."""
    m = TIE_RE.search(tie[0]) if tie else None
    if not m or m.group(4) is None:
        return None
    own_lo, own_hi, own = (float(m.group(i)) * 1e6 for i in (1, 2, 3))
    two_lo, two_hi, two = (float(m.group(i)) * 1e6 for i in (4, 5, 6))
    t4, t2 = got[PROCS.index(4)], got[PROCS.index(2)]

    def inside(x, lo, hi, shift):
        return (lo + shift) * (1 - WARNED_SLACK) <= x <= (hi + shift) * (1 + WARNED_SLACK)
    return (abs(got[0] - want[0]) <= ORACLE_TOLERANCE * want[0] and
            inside(want[PROCS.index(4)], own_lo, own_hi, t4 - own) and
            inside(want[PROCS.index(2)], two_lo, two_hi, t2 - two))


def check_against_oracle(ecp_bin, name, trace, prog, tag):
    """ecp's answer on the trace against the oracle (prog, read from the
    same trace); returns ecp's speedup at P = 2."""
    got, tie = predict(ecp_bin, trace)
    # printed, not asserted: ecp's draws and the oracle's are not the same
    # draws, so one may find a tie the other misses
    print('%s (%s): %s' % (name, tag, tie[0] if tie else 'ecp warned of no near tie'))
    check(len(prog.team) == 4, '%s: a team of %d threads, want 4' % (name, len(prog.team)))
    check(len(prog.tasks) >= 8, '%s: %d tasks recorded' % (name, len(prog.tasks)))
    want = [prog.makespan(p) for p in PROCS]
    for i, p in enumerate(PROCS):
        print('%s (%s) P=%s: predicted %.2f ms, oracle %.2f ms (%+.1f%%)'
              % (name, tag, p or 'inf', got[i] / 1e6, want[i] / 1e6,
                 100 * (got[i] - want[i]) / want[i]))
    s_got, s_want = got[0] / got[1], want[0] / want[1]
    print('%s (%s): speedup at P=2 %.3f, oracle %.3f' % (name, tag, s_got, s_want))
    if not agrees(got, want):
        near = prog.makespans_near(PROCS[:ASSERTED], TIE_NS, TIE_DRAWS)
        check(len(near) == TIE_DRAWS, 'the oracle made %d deals, want %d'
              % (len(near), TIE_DRAWS))
        t2 = sorted(w[1] for w in near)
        speedups = sorted(w[0] / w[1] for w in near)
        agree = sum(1 for w in near if agrees(got, w))
        print('%s (%s): the oracle on durations moved by up to %d ns, %d deals: T_2 %.2f to '
              '%.2f ms, speedup %.3f to %.3f; %d agree with ecp'
              % (name, tag, TIE_NS, len(near), t2[0] / 1e6, t2[-1] / 1e6, speedups[0],
                 speedups[-1], agree))
        warned = None if agree else within_warned(got, want, tie)
        if warned:
            print('%s (%s): none agrees, but ecp warned of the tie, and the oracle\'s T_2 '
                  'and T_4 are inside the ranges it gave' % (name, tag))
        check(agree or warned, '%s (%s): T_1 %.2f ms, T_2 %.2f ms (speedup %.3f); the '
              'oracle\'s %.2f, %.2f (%.3f), none of its deals on durations moved by up to %d ns '
              'agrees, and %s'
              % (name, tag, got[0] / 1e6, got[1] / 1e6, s_got, want[0] / 1e6, want[1] / 1e6,
                 s_want, TIE_NS, 'ecp warned of no near tie' if warned is None else
                 'the oracle\'s T_2 or T_4 is outside the ranges ecp warned of'))
    return s_got


def check_info(ecp_bin, name, trace, prog):
    """`ecp info` counts the tasks the oracle reads from the trace, all dealt
    again, and the tie check's draws, the same from the model's cache (the
    second call) as from the trace; its text says so in one line."""
    answers = []
    for _ in range(2):
        r = subprocess.run([ecp_bin, 'info', trace, '--format', 'json'],
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, 'ecp info: exit %d: %s' % (r.returncode, r.stderr))
        d = json.loads(r.stdout)
        answers.append((d['tasks_dealt'], d['tasks_kept'], d['tie_check_draws']))
    check(answers[0] == answers[1], '%s: info from the trace %s, from its cache %s'
          % (name, answers[0], answers[1]))
    dealt, kept, draws = answers[0]
    check(dealt == len(prog.tasks) and kept == 0,
          '%s: info counts %d tasks dealt, %d kept; the oracle %d tasks'
          % (name, dealt, kept, len(prog.tasks)))
    check(draws == 24, '%s: %d draws of the tie check, want 24' % (name, draws))
    r = subprocess.run([ecp_bin, 'info', trace], capture_output=True, text=True, timeout=120)
    line = [l for l in r.stdout.splitlines() if l.startswith('tasks ')]
    want = ('tasks          %d dealt again at replay, 0 kept as recorded; near-tie check: '
            '24 draws' % dealt)
    check(line == [want], '%s: info\'s tasks line %s, want %r' % (name, line, want))
    print('%s: info: %d tasks dealt again, 0 kept, %d draws of the tie check'
          % (name, dealt, draws))


def check_spawn_sites(ecp_bin, name, trace, prog):
    r = subprocess.run([ecp_bin, 'report', trace, '--by', 'spawnsite', '--format', 'json'],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, 'ecp report --by spawnsite: exit %d: %s' % (r.returncode, r.stderr))
    got = {x['site']: x for x in json.loads(r.stdout)['spawn_sites']}
    want = prog.spawn_sites()
    check(set(got) == set(want), '%s: spawn sites %s, the oracle\'s %s'
          % (name, sorted(got), sorted(want)))
    for site, (tasks, work, span) in sorted(want.items()):
        g = got[site]
        print('%s spawn site %s: %d tasks, work %.2f ms (oracle %.2f), span %.2f ms (oracle %.2f)'
              % (name, g['name'], g['tasks'], g['work_ns'] / 1e6, work / 1e6,
                 g['span_ns'] / 1e6, span / 1e6))
        check(g['tasks'] == tasks, '%s: site %s made %d tasks, the oracle counts %d'
              % (name, g['name'], g['tasks'], tasks))
        for what, a, b in (('work', g['work_ns'], work), ('span', g['span_ns'], span)):
            check(abs(a - b) <= SITE_TOLERANCE * b, '%s: site %s %s %d ns, the oracle\'s %d'
                  % (name, g['name'], what, a, b))


def main():
    name, binary, scale = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    ecp_bin = ecp()
    work = workdir()
    program = [binary, '--scale', scale, '--quiet']

    def default():
        trace = recorded(ecp_bin, work, 'default', program)
        prog = Program(trace)
        speedup = check_against_oracle(ecp_bin, name, trace, prog, 'default')
        check_spawn_sites(ecp_bin, name, trace, prog)
        check_info(ecp_bin, name, trace, prog)
        return prog, speedup

    prog, s1 = retry(name, default, TRIES)
    if subprocess.run(['chrt', '-b', '0', 'true'], capture_output=True).returncode != 0:
        print('SCHED_BATCH not available here: the recorded-order check is skipped')
    else:
        first = prog.begins

        def batch():
            for attempt in range(3):
                other = recorded(ecp_bin, work, 'batch', program, batch=True)
                second = Program(other)
                if second.begins != first:
                    break
                print('the same order under SCHED_BATCH: recording again')
            check(second.begins != first,
                  '%s: three recordings under SCHED_BATCH ran the tasks in the same order'
                  % name)
            moved = sum(1 for a, b in zip(sorted(first), sorted(second.begins)) if a != b)
            print('%s: %d of %d tasks on another thread under SCHED_BATCH'
                  % (name, moved, len(first)))
            return check_against_oracle(ecp_bin, name, other, second, 'SCHED_BATCH')

        s2 = retry(name + ' (SCHED_BATCH)', batch, TRIES)
        print('%s: speedup at P=2 %.3f by default, %.3f under SCHED_BATCH' % (name, s1, s2))
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


if __name__ == '__main__':
    main()
