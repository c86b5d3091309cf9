#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An experiment for issue 37, not part of ecp: the task deal of a recorded
OpenMP task program simulated on P CPUs with one time-sliced run queue
instead of ideal sharing.  A thread woken for a task (libgomp wakes one
barrier sleeper per task made, and a taskwait's thread when its last child
is done) takes one only once it has a CPU, by which time the task's maker,
at its taskwait, may have taken it itself; a running thread is preempted
at the end of its slice when another waits.  The rules of which task a
thread takes are tests/recorder/task_oracle.py's (libgomp's or libomp's).

Prints, for the recording: the serial work, the task oracle's T_P under
ideal sharing, and T_P of this deal for each slice, in ms.

usage: bench/validate/task-cpu-deal.py TRACE_DIR"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'tests', 'recorder'))
import task_oracle as TO  # noqa: E402
from task_oracle import Deal, Program  # noqa: E402

SLICES_MS = (1, 3, 6)
PROCESSORS = (1, 2, 4)


class CpuDeal(Deal):
    def __init__(self, prog, P, slice_ns):
        # the base class's tables, without its run
        self.prog, self.busy = prog, []
        self.moved = lambda ns: ns
        self.state, self.rseq, self.seq = {}, {}, {}
        self.pending, self.succ, self.live = {}, {}, {}
        self.group_of, self.dep_table = {}, {}
        self.n, self.now = 0, 0
        # left: ns of the work item in hand; slice_end: when it must
        # give its CPU up if another thread waits for one
        th = [{'stack': [[c, 0, None]], 't': 0, 'state': 'run', 'left': None,
               'slice_end': None} for c in prog.team]
        self.th = th
        self.P, self.slice = P, slice_ns
        self.running, self.queue = [], list(range(len(th)))
        self.sleepers = []      # barrier sleepers in the order they slept
        while True:
            self._fill()
            self._instant()
            if not self.running:
                if self.queue:
                    continue
                break
            # next event: a running thread's work item ends or its slice does
            nxt = None
            for j in self.running:
                t = self.th[j]
                cand = self.now + t['left']
                if self.queue and t['slice_end'] is not None:
                    cand = min(cand, max(t['slice_end'], self.now))
                nxt = cand if nxt is None else min(nxt, cand)
            dt = nxt - self.now
            for j in list(self.running):
                t = self.th[j]
                t['left'] -= dt
            self.now = nxt
            for j in list(self.running):
                t = self.th[j]
                if t['left'] <= 1e-3:  # float ns: done within a ps
                    t['left'] = None
                    t['stack'][-1][1] += 1      # the work item done
                elif self.queue and t['slice_end'] is not None and self.now >= t['slice_end']:
                    self.running.remove(j)      # preempted: to the queue's tail
                    self.queue.append(j)
        self.makespan = self.now
        TO.check(all(s == 'done' for s in self.state.values()), 'unfinished')

    def _fill(self):
        while len(self.running) < self.P and self.queue:
            j = self.queue.pop(0)
            t = self.th[j]
            if t['state'] in ('wait', 'barrier'):
                # woken: it looks for something to do only now, on a CPU
                if not self._go(j):
                    if t['state'] == 'barrier' and j not in self.sleepers:
                        self.sleepers.append(j)
                    continue
            self.running.append(j)
            t['slice_end'] = self.now + self.slice

    def _wake_all_waiters(self):
        # threads in a taskwait whose wait is over are woken (the last child done)
        for j, t in enumerate(self.th):
            if t['state'] == 'wait' and j not in self.queue and j not in self.running:
                frame = t['stack'][-1]
                item = frame[0].items[frame[1]]
                if self._wait_over(frame, item) or self._choose(j) is not None:
                    self.queue.append(j)

    def _wake_barrier(self):
        ready = sum(1 for s in self.state.values() if s == 'ready')
        woken = sum(1 for j in self.queue if self.th[j]['state'] == 'barrier')
        while self.sleepers and woken < ready:
            j = self.sleepers.pop(0)
            self.queue.append(j)
            woken += 1

    def _instant(self):
        """Runs every running thread's instantaneous items at `now`."""
        changed = True
        while changed:
            changed = False
            for j in list(self.running):
                t = self.th[j]
                while t['left'] is None and t['state'] == 'run':
                    frame = t['stack'][-1]
                    ctx, pc, group = frame
                    if pc < len(ctx.items) and ctx.items[pc][0] == 'work':
                        ns = ctx.items[pc][1]
                        if ns:
                            t['left'] = ns
                        else:
                            frame[1] += 1
                        continue
                    before = len(self.state), sum(1 for s in self.state.values() if s == 'done')
                    self._step(j)
                    changed = True
                    after = len(self.state), sum(1 for s in self.state.values() if s == 'done')
                    if after[0] > before[0]:
                        self._wake_barrier()
                    if after[1] > before[1]:
                        self._wake_all_waiters()
                        self._wake_barrier()
                if t['state'] in ('wait', 'barrier'):
                    # it looks at once, still on its CPU, then sleeps
                    if self._go(j):
                        changed = True
                        continue
                    self.running.remove(j)
                    if t['state'] == 'barrier':
                        self.sleepers.append(j)
            if self.running or self.queue:
                self._fill()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    prog = Program(sys.argv[1])
    print('serial work %.1f ms' % (prog.serial / 1e6))
    print('ideal sharing (task oracle): ' + ', '.join(
        'T_%d %.1f' % (p, prog.makespan(p) / 1e6) for p in PROCESSORS))
    for sl in SLICES_MS:
        print('on P CPUs, %d ms slices: ' % sl + ', '.join(
            'T_%d %.1f' % (p, (prog.serial + CpuDeal(prog, p, sl * 1_000_000).makespan) / 1e6)
            for p in PROCESSORS))


if __name__ == '__main__':
    main()
