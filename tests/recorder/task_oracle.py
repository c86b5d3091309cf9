# SPDX-License-Identifier: MIT
"""An oracle for OpenMP task programs recorded on one CPU (issue 37),
independent of ecp's model builder: it reads the trace with the babeltrace2
CLI, rebuilds the program's task structure from the task events and each
thread's CPU time from the scheduler's switch records, deals the tasks out
again by the runtime's rules in work time (each team thread its own CPU)
and shares the processors ideally among the busy threads.

Each thread's CPU time between two of its events is taken less what the
recorder measured it costs (ecp-record.meta: each event's cost, and a
context switch's, which the incoming thread pays before perf's record of
it), as ecp takes it out; what ecp does not measure stays in.

The structure it rebuilds, for a program of one parallel region: the
master's serial work before the fork and after the region; per team thread
its implicit task (from the fork to its barrier, or its join post when
libomp writes no closing barrier); per task its body.  A body is a list of
items: work (the thread's CPU time between two events, outside the bodies
of the tasks it runs inside), a task made (with its depend items), a
taskwait, a taskgroup's start and end.  CPU time a thread spends in a wait
outside the bodies it runs there is the runtime's, not work.

The rules (docs/DESIGN.md, "OpenMP tasks"):
  - libgomp: a thread at a taskwait runs its task's ready child made ready
    last, or waits; at a taskgroup's end the group's ready task made ready
    last, or, when none of the group's tasks is ready or running, its own
    ready child made ready last; at the barrier the task made ready first;
  - libomp: at a taskwait the oldest ready child of its task, at a
    taskgroup's end the oldest ready task of the group, failing those the
    oldest ready descendant of its task, at the barrier the oldest ready
    task.
Undeferred tasks run at once on their creator.  Simultaneous events are
taken in team order (the master first, then the threads as they started).
"""
import bisect
import os
import random

from ecptrace import check, read_meta, read_trace

# recorder/agent/agent.h: OMP_OBJ(team, kind), kind OBJ_FORK 0, OBJ_JOIN 1
OMP_OBJ_BASE, OMP_FORK_KIND, OMP_JOIN_KIND = 0xecb0000000000000, 0, 1
FLAG_UNDEFERRED, FLAG_OMPT = 1, 4


class CpuClock:
    """Each thread's CPU time up to a point in time, from the switch
    records (one CPU: a thread runs from its switch-in to its switch-out)."""

    def __init__(self, sched, switch_cost=0):
        runs, on = {}, {}
        for e in sched:
            if e['event'] != 'ecp_sched:switch':
                continue
            tid, ts = e['tid'], e['ts']
            if e['out']:
                if tid in on:
                    runs.setdefault(tid, []).append((on.pop(tid), ts))
                elif tid not in runs:
                    # on the CPU before the records start: its stay up to
                    # here counts from 0, as ecp's (only differences of
                    # these times are used)
                    runs[tid] = [(0, ts)]
            else:
                # the switch-in's own cost is the incoming thread's, before
                # perf's record of it (recorder: switch_cost_ps)
                last = runs[tid][-1][1] if runs.get(tid) else 0
                on[tid] = max(ts - switch_cost, last)
        # still on the CPU when its records end: the master, whose exit
        # perf writes no switch-out for, ran its process_exit there (the
        # stay left out put that reading 76 us early, the span before it
        # above 1.05, and six readings were dropped: its tasks 4.5% longer
        # than ecp's, and the deal tipped)
        for tid, start in on.items():
            runs.setdefault(tid, []).append((start, float('inf')))
        self.starts, self.ends, self.before = {}, {}, {}
        for tid, r in runs.items():
            r.sort()
            self.starts[tid] = [a for a, _ in r]
            self.ends[tid] = [b for _, b in r]
            acc, before = 0, []
            for a, b in r:
                before.append(acc)
                acc += b - a
            self.before[tid] = before

        self.knots = {}

    def wall_at(self, tid, t):
        starts = self.starts.get(tid)
        if not starts:
            return 0
        i = bisect.bisect_right(starts, t) - 1
        if i < 0:
            return 0
        return self.before[tid][i] + min(t, self.ends[tid][i]) - starts[i]

    def at(self, tid, t):
        """The thread's CPU time at t on its own clock's line: the switch
        records' time (wall_at) mapped through its clock readings."""
        u = self.wall_at(tid, t)
        knots = self.knots.get(tid)
        if not knots:
            return u
        us, cs = knots
        i = min(max(bisect.bisect_right(us, u) - 1, 0), len(us) - 2)
        return cs[i] + (u - us[i]) * (cs[i + 1] - cs[i]) / (us[i + 1] - us[i])

    def scale_to_own_clocks(self, main):
        """The switch records time a stay in wall time, which holds what
        the hypervisor stole from the CPU meanwhile; the thread's own clock
        (cpu_ns of its thread_start and of its thread_exit or process_exit;
        for a thread the exit ends, the clock main read then: thread_clock;
        and between them cpu_ns of the events that carry it) does not.
        Between two readings the thread's times are scaled by its clock's
        advance over the records', as ecp does
        (simulator/trace/builder-clock-scale.c); a span whose ratio is
        above 1.05 is a clock read lost, not steal: its reading is dropped
        (end to end: no scaling)."""
        first, last, between = {}, {}, {}
        for e in main:
            if e['event'] == 'ecp:thread_clock' and e['tid'] not in last:
                last[e['tid']] = (e['time'], e['clock_ns'])
            if not e.get('cpu_ns'):
                continue
            if e['event'] == 'ecp:thread_start':
                if e['vtid'] not in first:
                    first[e['vtid']] = (e['time'], e['cpu_ns'])
            elif e['event'] in ('ecp:thread_exit', 'ecp:process_exit'):
                last[e['vtid']] = (e['time'], e['cpu_ns'])
            elif e['vtid'] in first and e['vtid'] not in last:
                between.setdefault(e['vtid'], []).append((e['time'], e['cpu_ns']))

        def fits(a, b):
            return b[0] > a[0] and b[1] >= a[1] and b[1] - a[1] <= 1.05 * (b[0] - a[0])

        for tid, (t0, c0) in first.items():
            if tid not in last:
                continue
            t1, c1 = last[tid]
            start = (self.wall_at(tid, t0), c0)
            end = (self.wall_at(tid, t1), c1)
            if not fits(start, end):
                continue
            kept = [start]
            for t, c in between.get(tid, []):
                k = (self.wall_at(tid, t), c)
                if k[0] < end[0] and k[1] <= end[1] and fits(kept[-1], k):
                    kept.append(k)
            while len(kept) > 1 and not fits(kept[-1], end):
                kept.pop()
            kept.append(end)
            # the records' times and the clocks apart, for the bisection
            self.knots[tid] = ([k[0] for k in kept], [k[1] for k in kept])


class Ctx:
    def __init__(self, task):
        self.task = task    # None: an implicit task
        self.items = []     # ('work', ns) ('create', id) ('tw',) ('tgs',) ('tge',)
        self.acc = 0
        self.waiting = False

    def flush(self):
        if self.acc:
            self.items.append(('work', self.acc))
        self.acc = 0


def obj_kind(obj):
    """An OpenMP object's kind, or None for another object."""
    return obj & 3 if obj >> 52 == OMP_OBJ_BASE >> 52 else None


# the events whose cost is a function record's (event_cost_ps)
FUNCTION_EVENTS = ('func_entry', 'func_exit', 'func_unwound', 'func_folded')


class Program:
    """The task structure of a recording (see the module's doc)."""

    def __init__(self, trace):
        main = read_trace(os.path.join(trace, 'main'))
        meta = read_meta(trace)
        clock = CpuClock(read_trace(os.path.join(trace, 'sched')),
                         int(meta.get('switch_cost_ps', 0)) // 1000)
        clock.scale_to_own_clocks(main)
        # each event's own cost, measured by the recorder, is the
        # recorder's time, not the program's
        self.event_cost = int(meta.get('event_cost_ps', 0)) / 1000.0
        # a function record's (in a batch since issue 35) and any other
        # event's, as ecp takes them out (simulator/trace/builder-clock.c)
        self.other_cost = int(meta.get('other_event_cost_ps', 0)) / 1000.0 or self.event_cost
        self.tasks = {}      # id -> {'parent': Ctx, 'flags', 'deps': [(addr, kind)], 'body': Ctx}
        self.team = []       # implicit Ctx of each team thread, in team order
        self.serial = 0      # the master's work outside the region
        self.libomp = False
        tids = []
        for e in main:
            if e['event'].startswith('ecp:') and e['vtid'] not in tids:
                tids.append(e['vtid'])
        master = next(e['vtid'] for e in main
                      if e['event'] == 'ecp:thread_start' and e['vtid'] == e['vpid'])
        # the team in order: the master, then the threads as they started
        self.threads = {t: {'frames': [], 'phase': 'before', 'prev': None, 'events': 0,
                            'others': 0, 'master': t == master} for t in tids}
        order = [master] + [t for t in tids if t != master]
        for e in main:  # in time order: a task begins after it is made
            if e['event'].startswith('ecp:'):
                self._event(self.threads[e['vtid']], e, clock)
        self.team = [self.threads[t]['implicit'] for t in order
                     if 'implicit' in self.threads[t]]
        # the tasks begun, in order, as (task, the thread's place: the master
        # 0, then the threads as they appear): the recorded one-CPU order
        self.begins = [(e['task'], order.index(e['vtid'])) for e in main
                       if e['event'] == 'ecp:omp_task_begin']
        for st in self.threads.values():
            if st['frames'] and st['phase'] == 'epoch':
                st['frames'][0].flush()
        check(self.team, 'no parallel region found in the trace')
        for t in self.tasks.values():
            check('body' in t, 'task %d never ran' % t['id'])

    def _event(self, st, e, clock):
        frames = st['frames']
        now = (clock.at(e['vtid'], e['time']) - st['events'] * self.event_cost -
               st['others'] * self.other_cost)
        st['events' if e['event'][4:] in FUNCTION_EVENTS else 'others'] += 1
        d = max(0.0, now - st['prev']) if st['prev'] is not None else 0
        st['prev'] = max(now, st['prev'] or 0)
        if frames and not frames[-1].waiting:
            frames[-1].acc += d
        elif st['master'] and st['phase'] != 'epoch':
            self.serial += d
        name = e['event'][4:]
        top = frames[-1] if frames else None
        if name == 'once_end' and obj_kind(e['obj']) == OMP_FORK_KIND and \
                st['phase'] == 'before':
            st['phase'] = 'epoch'
            st['implicit'] = Ctx(None)
            frames.append(st['implicit'])
        elif name == 'omp_task_create':
            top.flush()
            top.items.append(('create', e['task']))
            self.tasks[e['task']] = {'id': e['task'], 'parent': top, 'flags': e['flags'],
                                     'site': e['site'], 'deps': []}
            self.libomp |= bool(e['flags'] & FLAG_OMPT)
        elif name == 'omp_task_dep':
            self.tasks[e['task']]['deps'].append((e['addr'], e['kind']))
        elif name == 'omp_taskwait':
            top.flush()
            if e['phase'] == 0:
                top.items.append(('tw',))
            top.waiting = e['phase'] == 0
        elif name == 'omp_taskgroup':
            top.flush()
            if e['phase'] in (0, 1):
                top.items.append(('tgs',) if e['phase'] == 0 else ('tge',))
            top.waiting = e['phase'] == 1
        elif name == 'omp_task_begin':
            check(e['task'] in self.tasks, 'task %d begins before it is made' % e['task'])
            body = Ctx(e['task'])
            self.tasks[e['task']]['body'] = body
            frames.append(body)
        elif name == 'omp_task_end':
            top.flush()
            frames.pop()
        elif st['phase'] == 'epoch' and len(frames) == 1 and (
                name == 'barrier_wait_begin' or
                (name == 'sem_post' and obj_kind(e['obj']) == OMP_JOIN_KIND)):
            top.flush()
            top.waiting = True
        elif st['phase'] == 'epoch' and len(frames) == 1 and top.waiting and (
                name == 'barrier_wait_end' or
                (name == 'sem_wait_end' and obj_kind(e['obj']) == OMP_JOIN_KIND)):
            frames.clear()
            st['phase'] = 'after'

    def work(self):
        return self.serial + sum(it[1] for c in self._ctxs() for it in c.items
                                 if it[0] == 'work')

    def _ctxs(self):
        return self.team + [t['body'] for t in self.tasks.values()]

    def spawn_sites(self):
        """Cilkprof's work and span per spawn site, on the program's
        structure (no deal): each task's subtree's work and span on
        unlimited processors, summed over the site's outermost tasks (those
        with no ancestor made at the same site: recursion counted once).
        Returns {site: (tasks, work, span)}."""
        sites = {}
        for ctx in self.team:
            self._eval(ctx, [], sites)
        return sites

    def _eval(self, ctx, path, sites):
        """(end, subtree span, work) of a body run alone from 0: a taskwait
        waits for its children's ends, a taskgroup's end for its children's
        subtrees, a depend item for its predecessor's end."""
        t = sub = work = 0
        done = {}        # child task -> (start, end, subtree span)
        unwaited, group = [], []
        writers, readers = {}, {}
        for item in ctx.items:
            if item[0] == 'work':
                t += item[1]
                work += item[1]
            elif item[0] == 'create':
                task = self.tasks[item[1]]
                site = task['site']
                c_end, c_sub, c_work = self._eval(task['body'], path + [site], sites)
                start = t
                for addr, kind in task['deps']:
                    preds = [writers[addr]] if addr in writers else []
                    if kind != 1:
                        preds += readers.get(addr, [])
                    for q in preds:
                        start = max(start, done[q][1])
                for addr, kind in task['deps']:
                    if kind == 1:
                        readers.setdefault(addr, []).append(item[1])
                    else:
                        writers[addr], readers[addr] = item[1], []
                done[item[1]] = (start, start + c_end, start + c_sub)
                unwaited.append(item[1])
                group.append(item[1])
                sub = max(sub, start + c_sub)
                work += c_work
                n, w, sp = sites.get(site, (0, 0, 0))
                if site in path:
                    sites[site] = (n + 1, w, sp)
                else:
                    sites[site] = (n + 1, w + c_work, sp + c_sub)
            elif item[0] == 'tw':
                t = max([t] + [done[q][1] for q in unwaited])
                unwaited = []
            elif item[0] == 'tgs':
                group = []
            elif item[0] == 'tge':
                t = max([t] + [done[q][2] for q in group])
        return t, max(sub, t), work

    def makespan(self, p):
        """T_P: the serial work plus the region's tasks dealt out and run
        on p processors (0: unlimited) shared ideally."""
        return self.serial + fluid(Deal(self).busy, p)

    def makespans_near(self, procs, amp, draws, seed=1):
        """[T_P for p in procs] of `draws` deals, each on the durations
        moved by up to +-amp ns apiece (uniform, seeded): where the deal
        sits on a tie, which two near-equal subtrees finish first, these
        are the answers the recording's durations allow within amp."""
        rng = random.Random(seed)
        out = []
        for _ in range(draws):
            busy = Deal(self, lambda ns: max(0.0, ns + rng.uniform(-amp, amp))).busy
            out.append([self.serial + fluid(busy, p) for p in procs])
        return out


def fluid(busy, p):
    """Integral over work time of max(1, busy/p): each busy thread runs at
    min(1, p/busy) under ideal sharing."""
    points = sorted([(a, 1) for a, b in busy if b > a] + [(b, -1) for a, b in busy if b > a])
    total, n, last = 0.0, 0, None
    for t, delta in points:
        if last is not None and n > 0:
            total += (t - last) * (max(1.0, n / p) if p else 1.0)
        n += delta
        last = t
    return total


class Deal:
    """The work-time simulation of the region (one pass; busy intervals)."""

    def __init__(self, prog, moved=None):
        self.prog, self.busy = prog, []
        self.moved = moved or (lambda ns: ns)  # each work item's duration
        self.state = {}           # task id -> 'deps' | 'ready' | 'running' | 'done'
        self.rseq = {}            # task id -> when it became ready
        self.seq = {}             # task id -> when it was made
        self.pending, self.succ = {}, {}
        self.live = {}            # Ctx -> children not done
        self.group_of = {}        # task id -> its taskgroup (a list), or None
        self.dep_table = {}       # Ctx -> addr -> [writer, readers]
        self.n, self.now = 0, 0
        th = [{'stack': [[c, 0, None]], 't': 0, 'state': 'run'} for c in prog.team]
        self.th = th
        while True:
            moved = True
            while moved:
                moved = False
                for j in range(len(th)):
                    if th[j]['state'] in ('wait', 'barrier') and self._go(j):
                        moved = True
            run = [j for j in range(len(th)) if th[j]['state'] == 'run']
            if not run:
                break
            j = min(run, key=lambda k: (th[k]['t'], k))
            self.now = th[j]['t']
            self._step(j)
        check(all(s == 'done' for s in self.state.values()),
              'the oracle could not finish the task program (%d of %d tasks done)'
              % (sum(s == 'done' for s in self.state.values()), len(self.state)))

    def _ready(self, ti):
        self.state[ti] = 'ready'
        self.rseq[ti] = self.n
        self.n += 1

    def _create(self, j, frame, ti):
        t = self.prog.tasks[ti]
        ctx, group = frame[0], frame[2]
        self.seq[ti] = len(self.seq)
        self.live[ctx] = self.live.get(ctx, 0) + 1
        self.group_of[ti] = group
        if group is not None:
            group[0] += 1
        preds = set()
        table = self.dep_table.setdefault(ctx, {})
        for addr, kind in t['deps']:
            w, readers = table.setdefault(addr, [None, []])
            if w is not None:
                preds.add(w)
            if kind != 1:
                preds.update(readers)
        for addr, kind in t['deps']:
            entry = table[addr]
            if kind == 1:
                entry[1].append(ti)
            else:
                entry[0], entry[1] = ti, []
        preds.discard(ti)
        self.pending[ti] = sum(1 for q in preds if self.state[q] != 'done')
        for q in preds:
            if self.state[q] != 'done':
                self.succ.setdefault(q, []).append(ti)
        if t['flags'] & FLAG_UNDEFERRED:
            self._start(j, ti)
        elif self.pending[ti]:
            self.state[ti] = 'deps'
        else:
            self._ready(ti)

    def _start(self, j, ti):
        self.state[ti] = 'running'
        self.th[j]['stack'].append([self.prog.tasks[ti]['body'], 0, self.group_of[ti]])
        self.th[j]['state'] = 'run'

    def _complete(self, ti):
        self.state[ti] = 'done'
        self.live[self.prog.tasks[ti]['parent']] -= 1
        if self.group_of[ti] is not None:
            self.group_of[ti][0] -= 1
        for s in self.succ.get(ti, []):
            if self.state[s] == 'deps':
                self.pending[s] -= 1
                if not self.pending[s]:
                    self._ready(s)

    def _step(self, j):
        th = self.th[j]
        frame = th['stack'][-1]
        ctx, pc, group = frame
        if pc == len(ctx.items):
            if ctx.task is None:
                th['state'] = 'barrier'
            else:
                th['stack'].pop()
                self._complete(ctx.task)
            return
        item = ctx.items[pc]
        if item[0] == 'work':
            if item[1]:
                ns = self.moved(item[1])
                self.busy.append((th['t'], th['t'] + ns))
                th['t'] += ns
            frame[1] += 1
        elif item[0] == 'create':
            frame[1] += 1
            self._create(j, frame, item[1])
        elif item[0] == 'tgs':
            frame[1] += 1
            frame[2] = [0, group]  # [tasks not done, the enclosing group]
        elif not self._wait_over(frame, item):
            th['state'] = 'wait'
        else:
            self._resume(frame, item)

    def _wait_over(self, frame, item):
        return not self.live.get(frame[0]) if item[0] == 'tw' else not frame[2][0]

    def _resume(self, frame, item):
        if item[0] == 'tge':
            frame[2] = frame[2][1]
        frame[1] += 1

    def _descends(self, ti, ctx):
        c = self.prog.tasks[ti]['parent']
        while True:
            if c is ctx:
                return True
            if c.task is None:
                return False
            c = self.prog.tasks[c.task]['parent']

    def _choose(self, j):
        th = self.th[j]
        ready = [ti for ti, s in self.state.items() if s == 'ready']
        if not ready:
            return None
        gomp = not self.prog.libomp
        if th['state'] == 'barrier':
            return min(ready, key=lambda ti: self.rseq[ti] if gomp else self.seq[ti])
        ctx, pc, group = th['stack'][-1]
        item = ctx.items[pc]
        own = [ti for ti in ready if self.prog.tasks[ti]['parent'] is ctx]
        if item[0] == 'tge':
            mine = [ti for ti in ready if self.group_of[ti] is group]
        else:
            mine = own
        if gomp:
            if mine:
                return max(mine, key=lambda ti: self.rseq[ti])
            queued = any(self.group_of[ti] is group and s in ('ready', 'running')
                         for ti, s in self.state.items())
            if item[0] == 'tge' and not queued and own:
                return max(own, key=lambda ti: self.rseq[ti])
            return None
        if not mine:
            mine = [ti for ti in ready if self._descends(ti, ctx)]
        return min(mine, key=lambda ti: self.seq[ti]) if mine else None

    def _go(self, j):
        th = self.th[j]
        if th['state'] == 'wait':
            frame = th['stack'][-1]
            item = frame[0].items[frame[1]]
            if self._wait_over(frame, item):
                self._resume(frame, item)
                th['state'] = 'run'
                th['t'] = max(th['t'], self.now)
                return True
        ti = self._choose(j)
        if ti is None:
            return False
        th['t'] = max(th['t'], self.now)
        self._start(j, ti)
        return True
