# SPDX-License-Identifier: MIT
"""The oracle of the recorded-program tests: the run time T_P of a program's
dependency graph on P processors, solved on durations the program measured
itself in the recorded run (never across runs: this machine's speed varies
2-3x between runs).

A program is a list of threads, each a list of segments in program order;
a segment is (work_ns, delay_ns, deps) where deps are (thread, index) of
segments that must have ended before it starts.  The machine is the model's
(docs/DESIGN.md): ideal processor sharing -- n runnable segments progress at
min(1, P/n) each; a delay passes in wall time before the segment's work and
uses no processor."""
from ecptrace import sampler_share


def seg(work, delay=0, deps=()):
    return (float(work), float(delay), tuple(deps))


def run_time(threads, procs):
    """T_P of `threads` on `procs` processors (None: unlimited)."""
    n = len(threads)
    idx = [0] * n                 # current segment of each thread
    state = ['wait'] * n          # wait, delay, run, done
    until = [0.0] * n             # end of the delay
    left = [0.0] * n              # work left of the running segment
    done = set()
    now = 0.0
    for t in range(n):
        if not threads[t]:
            state[t] = 'done'
    while True:
        for t in range(n):        # start what is ready
            if state[t] == 'wait':
                work, delay, deps = threads[t][idx[t]]
                if all(d in done for d in deps):
                    state[t], until[t], left[t] = 'delay', now + delay, work
            if state[t] == 'delay' and until[t] <= now:
                state[t] = 'run'
        if all(s == 'done' for s in state):
            return now
        running = [t for t in range(n) if state[t] == 'run']
        rate = 1.0 if procs is None or len(running) <= procs else procs / len(running)
        nxt = [until[t] for t in range(n) if state[t] == 'delay']
        nxt += [now + left[t] / rate for t in running]
        if not nxt:
            raise ValueError('the graph deadlocks at %.0f ns: %s' % (now, state))
        step = min(nxt) - now
        now += step
        for t in running:
            left[t] -= step * rate
            if left[t] <= 1e-6:
                done.add((t, idx[t]))
                idx[t] += 1
                state[t] = 'done' if idx[t] == len(threads[t]) else 'wait'


def producer_consumer(d, items):
    """main: setup (creates the consumer), then p0..p(items-1), each ending
    with the hand-off of item i, then mtail after joining; the consumer:
    c_i once item i is handed over, then ctail."""
    main = [seg(d['setup'])] + [seg(d['p%d' % i]) for i in range(items)]
    cons = [seg(d['c0'], deps=[(0, 0), (0, 1)])]
    cons += [seg(d['c%d' % i], deps=[(0, i + 1)]) for i in range(1, items)]
    cons.append(seg(d['ctail']))
    main.append(seg(d['mtail'], deps=[(1, items)]))
    return [main, cons]


def measured_segments(stdout):
    """The "seg KEY ns" lines a test program prints."""
    d = {}
    for line in stdout.splitlines():
        if line.startswith('seg '):
            _, k, v = line.split()
            d[k] = int(v)
    return d


def unsampled(threads, meta, not_sampled=()):
    """The threads' measured work less what the perf sampler cost them in
    that run: the durations were measured by the program's own CPU clock,
    which counts the kernel's work for each sample, the samples taken times
    each one's cost over the program's CPU time (ecptrace.sampler_share).
    The prediction leaves that out (the recording measured the cost per
    sample and subtracts it per sample taken), as the program runs
    unrecorded; delays are wall time and stay.  The threads numbered in
    not_sampled (child processes' threads: perf samples the program's
    own) paid nothing and keep their work."""
    children = sum(w for i in not_sampled if i < len(threads) for w, _, _ in threads[i])
    share = sampler_share(meta, children)
    if not share:
        return threads
    return [t if i in not_sampled else [(w * (1.0 - share), d, deps) for w, d, deps in t]
            for i, t in enumerate(threads)]


def compare(predicted, threads, procs_list, tolerance, meta=None, not_sampled=()):
    """Prints predicted vs oracle per P; returns the list of failures.
    With the trace's metadata, the oracle's work is the unsampled one
    (but for the threads numbered in not_sampled: unsampled())."""
    bad = []
    if meta is not None:
        threads = unsampled(threads, meta, not_sampled)
        print('sampler: %s samples at %s a second (%s throttled), %s ns each'
              % (meta.get('samples', '0'), meta.get('sample_hz', '0'),
                 meta.get('samples_throttled', '?'), meta.get('sample_cost_ns', '0')))
    for p, pred in zip(procs_list, predicted):
        want = run_time(threads, p)
        dev = (pred - want) / want
        print('P=%d  predicted %8.3f ms  oracle %8.3f ms  %+6.2f%%'
              % (p, pred / 1e6, want / 1e6, 100 * dev))
        if abs(dev) > tolerance:
            bad.append('P=%d: %+.2f%%' % (p, 100 * dev))
    return bad
