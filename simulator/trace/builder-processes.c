/* SPDX-License-Identifier: MIT */
/* Builder: the program's child processes (issue 32).  The recorder follows
 * every process the program and its descendants make (perf fork records):
 * their threads' switch records and their fork and exit times.  A child is
 * modelled from the scheduler's view only -- each of its threads is one
 * segment of the CPU time it used -- placed in the program's dependencies:
 *
 *  - made by a thread of the program: that thread's segment ends at the
 *    fork, and every thread of the child depends on it; made by a child's
 *    thread, the same at that thread's fork, and that thread's wake-up
 *    after the child exited joins it (split_child_thread);
 *  - waited for (wait, waitpid, waitid, system, pclose: delay kind 25): a
 *    wait that returns after a child exited depends on the end of every
 *    thread of that child and of its descendants, and is no delay;
 *  - ended a poll: a poll or select that a signal interrupted (-1) while a
 *    child of the program exited is the SIGCHLD of that exit (GNU make -j
 *    waits for its jobs in pselect with SIGCHLD unblocked and reaps them
 *    with waitpid(WNOHANG), which blocks for nothing and is not recorded):
 *    a wait for the children too (bld_child_ended_poll).
 *
 * What the child's threads wait for among themselves is not known (their
 * agent events are another process's, and are not read): they are
 * independent work from the fork, and the answer says so by name. */
#include "simulator/trace/builder-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct bproc *proc_of_pid(struct ecp_builder *b, uint32_t pid)
{
	uint64_t *i = ecp_hmap_get(&b->proc_by_pid, pid);
	return i ? &ECP_VEC_AT(&b->procs, struct bproc, *i) : NULL;
}

int ecp_builder_push_task(struct ecp_builder *b, const struct ecp_task *t)
{
	if (ecp_hmap_put(&b->pid_of_tid, t->tid, t->pid) < 0)
		return -1;
	if (t->exit) {
		struct tid_exit *x = ecp_vec_push(&b->thread_exits);
		if (!x)
			return -1;
		*x = (struct tid_exit){.tid = t->tid, .ts = t->ts};
	}
	bool new_process = t->tid == t->pid && t->ppid != t->pid;
	if (!t->exit && new_process) {
		struct bproc *parent = proc_of_pid(b, t->ppid);
		if (parent)
			parent->has_children = true;
		struct bproc *p = ecp_vec_push(&b->procs);
		if (!p)
			return -1;
		memset(p, 0, sizeof(*p));
		p->pid = t->pid;
		p->ppid = t->ppid;
		p->creator = t->ptid;
		p->fork_ts = t->ts;
		p->fork_seg = ECP_NO_ID;
		p->join_seg = ECP_NO_ID;
		return ecp_hmap_put(&b->proc_by_pid, t->pid, b->procs.len - 1);
	}
	struct bproc *p = t->exit ? proc_of_pid(b, t->pid) : NULL;
	if (p && t->ts > p->exit_ts)
		p->exit_ts = t->ts; /* its last thread's exit */
	if (p && ecp_hmap_put(&b->exit_by_tid, t->tid, t->ts) < 0)
		return -1;
	return 0;
}

uint64_t bld_child_exit_of(const struct ecp_builder *b, const struct bthread *th)
{
	uint64_t *ts = th->proc ? ecp_hmap_get(&b->exit_by_tid, th->tid) : NULL;
	return ts ? *ts : 0;
}

static int cmp_fork(const void *a, const void *b)
{
	const struct fork_point *x = a, *y = b;
	if (x->creator != y->creator)
		return x->creator < y->creator ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The forks in (creator tid, time) order, for bld_split_forks. */
int bld_processes_seal(struct ecp_builder *b)
{
	size_t n = b->procs.len;
	if (!n)
		return 0;
	b->forks = malloc(n * sizeof(*b->forks));
	if (!b->forks)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct bproc *p = &ECP_VEC_AT(&b->procs, struct bproc, i);
		b->forks[i] = (struct fork_point){
		    .creator = p->creator, .ts = p->fork_ts, .proc = (uint32_t)i};
	}
	qsort(b->forks, n, sizeof(*b->forks), cmp_fork);
	b->n_forks = n;
	return 0;
}

/* First fork made by tid, or n_forks. */
static size_t first_fork_of(const struct ecp_builder *b, uint64_t tid)
{
	size_t lo = 0, hi = b->n_forks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->forks[mid].creator < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* When the thread came back on the CPU after `ts`, having left it blocked
 * before: 0 when it was running or runnable at ts, or never came back.
 * The stay that ends after ts is that one (its switch-in, moved back by
 * the switch's own cost, may fall a little before ts). */
static uint64_t wake_after(const struct sched_list *l, uint64_t ts)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sched_out(l, mid) <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == l->n || sched_preempted(l, lo - 1) || sched_out(l, lo - 1) > ts)
		return 0;
	return sched_in(l, lo);
}

struct split_point {
	uint64_t ts;
	uint32_t proc;
	bool join;
};

static int cmp_point(const void *a, const void *b)
{
	const struct split_point *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (int)x->join - (int)y->join;
}

/* A child process's thread that makes processes of its own (a shell, make,
 * xargs, ld running lto-wrapper) is cut at each fork, which its child's
 * threads then depend on, and where it came back on the CPU after one of
 * them exited while it was blocked -- its wait for that child, whose
 * events are not read but whose exit the switch records show (made the
 * wake-up's segment depend on the child's end by bld_join_children).
 * Without them a grandchild started after nothing and nothing waited for
 * it: xargs -P2's four gzips all overlapped (3.92x at P=4). */
static int split_child_thread(struct ecp_builder *b, struct bthread *th, uint64_t upto)
{
	size_t first = first_fork_of(b, th->tid), end = first;
	while (end < b->n_forks && b->forks[end].creator == th->tid)
		end++;
	th->next_fork = end;
	th->forks_looked = true;
	if (first == end)
		return 0;
	struct split_point *pts = malloc(2 * (end - first) * sizeof(*pts));
	if (!pts)
		return -1;
	size_t n = 0;
	for (size_t k = first; k < end; k++) {
		const struct fork_point *f = &b->forks[k];
		const struct bproc *p = &ECP_VEC_AT(&b->procs, struct bproc, f->proc);
		pts[n++] = (struct split_point){.ts = f->ts, .proc = f->proc};
		uint64_t w =
		    p->exit_ts && th->sched ? wake_after(th->sched, p->exit_ts) : 0;
		if (w)
			pts[n++] =
			    (struct split_point){.ts = w, .proc = f->proc, .join = true};
	}
	qsort(pts, n, sizeof(*pts), cmp_point);
	for (size_t i = 0; i < n && pts[i].ts <= upto; i++) {
		struct bproc *p = &ECP_VEC_AT(&b->procs, struct bproc, pts[i].proc);
		uint64_t ts = pts[i].ts > th->seg_wall0 ? pts[i].ts : th->seg_wall0;
		struct ecp_event ev = {.ts = ts, .tid = (uint32_t)th->tid};
		uint64_t v = bld_cpu_clock(b, th, &ev);
		if (v < th->seg_v0)
			v = th->seg_v0;
		ecp_id seg = bld_close_segment(b, th, ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID) {
			free(pts);
			return -1;
		}
		if (!pts[i].join) {
			p->fork_seg = seg;
			continue;
		}
		/* the segment that opens here joins it (bld_flush_child_waits) */
		uint32_t *slot = ecp_vec_push(&th->child_waits);
		if (!slot) {
			free(pts);
			return -1;
		}
		*slot = p->pid;
		p->joined = true;
	}
	free(pts);
	return 0;
}

int bld_split_forks(struct ecp_builder *b, struct bthread *th, uint64_t upto)
{
	if (!b->n_forks)
		return 0;
	if (th->unseen)
		return th->proc && !th->forks_looked ? split_child_thread(b, th, upto)
						     : 0;
	if (!th->forks_looked) {
		th->next_fork = first_fork_of(b, th->tid);
		th->forks_looked = true;
	}
	while (th->next_fork < b->n_forks && b->forks[th->next_fork].creator == th->tid &&
	       b->forks[th->next_fork].ts <= upto) {
		const struct fork_point *f = &b->forks[th->next_fork++];
		uint64_t ts = f->ts > th->seg_wall0 ? f->ts : th->seg_wall0;
		struct ecp_event ev = {.ts = ts, .tid = (uint32_t)th->tid};
		uint64_t v = bld_cpu_clock(b, th, &ev);
		if (v < th->seg_v0)
			v = th->seg_v0;
		ecp_id seg = bld_close_segment(b, th, ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return -1;
		ECP_VEC_AT(&b->procs, struct bproc, f->proc).fork_seg = seg;
	}
	return 0;
}

int bld_child_wait(struct ecp_builder *b, struct bthread *th, uint64_t end_ts, bool mark)
{
	uint32_t prog = b->threads.len ? (uint32_t)thread_at(b, 0)->tid : 0;
	int found = 0;
	for (size_t i = 0; i < b->procs.len; i++) {
		struct bproc *p = &ECP_VEC_AT(&b->procs, struct bproc, i);
		/* the program's own children: grandchildren come with them */
		if (p->joined || !p->exit_ts || p->exit_ts > end_ts || p->ppid != prog)
			continue;
		found++;
		if (!mark)
			continue;
		uint32_t *slot = ecp_vec_push(&th->child_waits);
		if (!slot)
			return -1;
		*slot = p->pid;
		p->joined = true;
	}
	return found;
}

bool bld_child_ended_poll(const struct ecp_builder *b, uint64_t from, uint64_t to)
{
	uint32_t prog = b->threads.len
			    ? (uint32_t)ECP_VEC_AT(&b->threads, struct bthread *, 0)->tid
			    : 0;
	for (size_t i = 0; i < b->procs.len; i++) {
		const struct bproc *p = &ECP_VEC_AT(&b->procs, struct bproc, i);
		if (!p->joined && p->ppid == prog && p->exit_ts > from &&
		    p->exit_ts <= to)
			return true;
	}
	return false;
}

void bld_flush_child_waits(struct ecp_builder *b, struct bthread *th, ecp_id seg)
{
	for (size_t i = 0; i < th->child_waits.len; i++) {
		struct bproc *p =
		    proc_of_pid(b, ECP_VEC_AT(&th->child_waits, uint32_t, i));
		if (p)
			p->join_seg = seg;
	}
	th->child_waits.len = 0;
}

int bld_place_child_thread(struct ecp_builder *b, struct bthread *th)
{
	uint64_t *pid = ecp_hmap_get(&b->pid_of_tid, th->tid);
	struct bproc *p = pid ? proc_of_pid(b, (uint32_t)*pid) : NULL;
	if (!p)
		return 0;
	th->proc = (uint32_t)(p - (struct bproc *)b->procs.data) + 1;
	if (!p->n_threads++)
		b->child_procs++;
	b->child_threads++;
	if (p->fork_seg != ECP_NO_ID &&
	    bld_pend_edge(th, p->fork_seg, ECP_EDGE_CREATE) < 0)
		return -1;
	return 0;
}

/* A child process that exec'd a program of one thread making no process of
 * its own (sleep, a compressor, a script's command) waits only for what is
 * outside the program -- a timer, a disk, a pipe from elsewhere -- or for
 * the program's other processes: a stage of a shell pipeline waits for the
 * stage before it.  The time its thread was off the CPU and not runnable,
 * less what the program's other threads ran meanwhile and none of a gap
 * that one of them ended by running last and blocking (it handed off,
 * bld_child_own_delay), is its delay (one, before its work), as a sleep of
 * the program's own is.  A child of several
 * threads may wait for its own threads, one with children for them: their
 * blocked time is not known to be a delay and is left out (the answer
 * names their work as of unknown dependencies).  So is a forked copy of
 * the program that did not exec: its blocked time is mostly LTTng-UST
 * registering again in it (tens of ms), the recorder's, not the
 * program's. */
int bld_child_delays(struct ecp_builder *b)
{
	for (size_t i = 0; i < b->threads.len; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		if (!th->proc || th->exited || !th->sched || !th->sched->n)
			continue;
		const struct bproc *p =
		    &ECP_VEC_AT(&b->procs, struct bproc, th->proc - 1);
		if (p->n_threads != 1 || p->has_children || !bld_comm_of(b, p->pid))
			continue;
		/* to its exit: the records may leave its last stay open */
		struct sched_list *l = th->sched;
		uint64_t from = sched_in(l, 0), to = sched_out(l, l->n - 1);
		if (to == UINT64_MAX)
			to = p->exit_ts ? p->exit_ts : sched_in(l, l->n - 1);
		if (to <= from)
			continue;
		uint64_t delay = bld_child_own_delay(b, l, p->creator, from, to);
		/* LTTng-UST held it while registering: the recorder's */
		uint64_t reg = delay ? bld_registration_of(b, p->pid, from, to) : 0;
		if (reg > delay)
			reg = delay;
		if (reg) {
			b->reg_taken++;
			b->reg_taken_ns += reg;
		}
		delay -= reg;
		if (!delay)
			continue;
		/* a delay is between two segments of a thread (model.h): an
		 * empty first one takes the fork's edge */
		if (bld_close_segment(b, th, th->seg_wall0, th->seg_v0, ECP_NO_ID) ==
		    ECP_NO_ID)
			return -1;
		th->seg_delay = delay;
		bld_delay_kind(th, delay, ECP_DELAY_CHILD);
	}
	return 0;
}

/* Each child thread's end joins the wait for its process and for every
 * process above it that a wait of the program joined. */
int bld_join_children(struct ecp_builder *b)
{
	for (size_t i = 0; i < b->threads.len; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		if (!th->proc || th->last_seg == ECP_NO_ID)
			continue;
		const struct bproc *p =
		    &ECP_VEC_AT(&b->procs, struct bproc, th->proc - 1);
		/* made by a child's thread, cut at the fork only after this
		 * thread was placed (split_child_thread) */
		uint64_t *ci = ecp_hmap_get(&b->thread_by_tid, p->creator);
		if (ci && thread_at(b, (ecp_id)*ci)->unseen && p->fork_seg != ECP_NO_ID &&
		    th->segs.len &&
		    bld_add_edge(b, p->fork_seg, ECP_VEC_AT(&th->segs, uint32_t, 0),
				 ECP_EDGE_CREATE) < 0)
			return -1;
		for (int depth = 0; p && depth < 64; depth++, p = proc_of_pid(b, p->ppid))
			if (p->join_seg != ECP_NO_ID &&
			    bld_add_edge(b, th->last_seg, p->join_seg, ECP_EDGE_JOIN) < 0)
				return -1;
	}
	return 0;
}

int bld_child_warning(const struct ecp_builder *b, struct ecp_model *m, uint64_t cpu_ns)
{
	if (!b->child_threads)
		return 0;
	char pids[4 * 24] = "";
	size_t len = 0, named = 0;
	for (size_t i = 0; i < b->procs.len && named < 4; i++) {
		const struct bproc *p = &ECP_VEC_AT(&b->procs, struct bproc, i);
		if (!p->n_threads)
			continue;
		len += (size_t)snprintf(pids + len, sizeof(pids) - len, "%s%u",
					named ? ", " : "", p->pid);
		named++;
	}
	return ecp_model_add_warning(
	    m,
	    "%llu child processes were followed (pid %s%s; %llu threads, %.3f ms of "
	    "CPU): "
	    "each of their threads is its CPU time from the switch records, independent "
	    "work from the fork; what they wait for among themselves is UNKNOWN, so the "
	    "prediction is too optimistic where they wait for each other",
	    (unsigned long long)b->child_procs, pids,
	    b->child_procs > named ? ", ..." : "", (unsigned long long)b->child_threads,
	    (double)cpu_ns / 1e6);
}
