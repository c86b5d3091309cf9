/* SPDX-License-Identifier: MIT */
/* Builder: when the program's child processes had the CPU.  On the one CPU
 * of the recording, a thread of the program blocked in a read or a poll
 * while its children ran was, as often as not, waiting for what they write
 * to it (a pipe from a worker of Python's multiprocessing, popen's
 * command): the time they used is their work, which the model already
 * holds as independent work from the fork, and kept as the reader's delay
 * too it would count twice -- a Pool(2) of four 30 ms jobs was predicted
 * 1.05x on two CPUs (T_1 177 ms above its work of 159 ms), run 1.65x.  What
 * a child writes to the program is not followed (its events are another
 * process's), so that part of the blocked time is taken as waiting for the
 * children, no delay, and the answer says how much (bld_child_cpu_warning):
 * T_P is short by what a child's output came later than its CPU time.
 * When a child had the CPU last before the wake and left it blocked (it
 * wrote and waited for more, filled the pipe, exited), it handed off: the
 * whole wait was for it (bld_child_handed_off).  On a shared CPU the rest
 * of such a wait is other programs' time: ninja -j4 recorded on a loaded
 * machine kept 2.29 s of ppoll as delays after the children's CPU time
 * was taken out (T2 2.293 s for 1.677 s of work); it now has 5 ms left.
 * Sleeps, a poll that timed out and waits for children keep their times
 * (builder-delays.c). */
#include "simulator/trace/builder-internal.h"

#include <stdio.h>
#include <stdlib.h>

static bool is_child_tid(const struct ecp_builder *b, uint64_t tid)
{
	uint64_t *pid = ecp_hmap_get(&b->pid_of_tid, tid);
	return pid && ecp_hmap_get(&b->proc_by_pid, *pid);
}

/* One stay on the CPU: (in, out), whose thread is a child's, and whether
 * it left the CPU blocked (not preempted). */
struct stay {
	uint64_t in, out;
	uint64_t child_blocked; /* bit 0: a child's; bit 1: it left blocked */
	uint64_t tid;
};

static int cmp_stay(const void *a, const void *b)
{
	const struct stay *x = a, *y = b;
	return (x->in > y->in) - (x->in < y->in);
}

int bld_child_cpu_seal(struct ecp_builder *b)
{
	/* on several CPUs a child running says nothing of what a blocked
	 * thread of the program waited for, and stays overlap */
	if (!b->procs.len || b->opts.recorded_cpus > 1)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < b->sched_lists.len; i++)
		n += ECP_VEC_AT(&b->sched_lists, struct sched_list *, i)->n;
	if (!n)
		return 0;
	struct stay *all = malloc(n * sizeof(*all));
	if (!all)
		return -1;
	size_t k = 0, kids = 0;
	for (size_t i = 0; i < b->sched_lists.len; i++) {
		const struct sched_list *l =
		    ECP_VEC_AT(&b->sched_lists, struct sched_list *, i);
		/* LTTng-UST's listener threads wake on their own (in every
		 * child too, which inherits the preload): one that ran last
		 * before a sleeping child's timer woke it was taken for what
		 * the child waited for, and a shell's `sleep 0.2` lost its
		 * delay (recorder-waits-shell, 1 run in 2 under ASan) */
		if (bld_is_recorder_thread(bld_comm_of(b, l->tid)))
			continue;
		bool child = is_child_tid(b, l->tid);
		for (size_t j = 0; j < l->n; j++) {
			uint64_t out = sched_out(l, j);
			bool blocked = !sched_preempted(l, j);
			/* a child's last stay, which perf leaves open (it lets
			 * go of a task before its last switch), ends at its
			 * exit record, and the child left the CPU for good:
			 * what its exit woke (a read at the pipe's end, a
			 * SIGCHLD) it handed off to.  Left out, the stay before
			 * it was taken for the last: GNU parallel's reads of
			 * its commands' output (perl backticks) kept 308 ms of
			 * their 451 ms blocked as delays */
			const uint64_t *x = out == UINT64_MAX && child && j + 1 == l->n
						? ecp_hmap_get(&b->exit_by_tid, l->tid)
						: NULL;
			if (x) {
				out = *x;
				blocked = true;
			}
			if (out == UINT64_MAX || out <= sched_in(l, j))
				continue; /* still on at the end: no known length */
			all[k].in = sched_in(l, j);
			all[k].out = out;
			all[k].child_blocked = (uint64_t)child | (uint64_t)blocked << 1;
			all[k].tid = l->tid;
			kids += child;
			k++;
		}
	}
	if (!kids) {
		free(all);
		return 0;
	}
	qsort(all, k, sizeof(*all), cmp_stay);
	/* the children's stays as (in, out) pairs with prefix sums: on one
	 * CPU they do not overlap */
	b->kid_iv = malloc(2 * kids * sizeof(*b->kid_iv));
	b->kid_cum = malloc((kids + 1) * sizeof(*b->kid_cum));
	if (!b->kid_iv || !b->kid_cum) {
		free(all);
		return -1;
	}
	b->kid_cum[0] = 0;
	size_t c = 0;
	for (size_t i = 0; i < k; i++) {
		if (!(all[i].child_blocked & 1))
			continue;
		b->kid_iv[2 * c] = all[i].in;
		b->kid_iv[2 * c + 1] = all[i].out;
		b->kid_cum[c + 1] = b->kid_cum[c] + (all[i].out - all[i].in);
		c++;
	}
	b->n_kid = c;
	b->stays = all;
	b->n_stays = k;
	b->stay_cum = malloc((k + 1) * sizeof(*b->stay_cum));
	if (!b->stay_cum)
		return -1;
	b->stay_cum[0] = 0;
	for (size_t i = 0; i < k; i++)
		b->stay_cum[i + 1] = b->stay_cum[i] + (all[i].out - all[i].in);
	return 0;
}

/* The stay on the CPU just before `wake`: the first at or after it, less
 * one (0: none). */
static size_t stay_before(const struct ecp_builder *b, uint64_t wake)
{
	size_t lo = 0, hi = b->n_stays;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->stays[mid].in < wake)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every thread's time on the CPU in [from, to): stays by in do not
 * overlap on one CPU, so their ends are in order too. */
static uint64_t cpu_in(const struct ecp_builder *b, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = b->n_stays;
	while (lo < hi) { /* first stay that ends after from */
		size_t mid = lo + (hi - lo) / 2;
		if (b->stays[mid].out <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = stay_before(b, to);
	if (lo >= end)
		return 0;
	uint64_t sum = b->stay_cum[end] - b->stay_cum[lo];
	if (b->stays[lo].in < from)
		sum -= from - b->stays[lo].in;
	if (b->stays[end - 1].out > to)
		sum -= b->stays[end - 1].out - to;
	return sum;
}

/* A thread whose stay on the CPU ended as `wake` came handed off to what
 * came in: it left the CPU blocked (it wrote and waited for more, filled
 * the pipe, exited), or it was preempted at that very switch -- on one CPU
 * the thread it woke (a write to a reader, a read that made room for a
 * writer) takes the CPU from its waker at once, and the records of the
 * two switches are one context switch apart (2.0-3.3 us in a GNU parallel
 * recording; anything that ran between takes two more switches and its own
 * time: 35 us and more there).  Read as "woken by something else", such
 * hand-offs kept 156 ms of GNU parallel's reads of its commands' output
 * as delays, and 83.5 ms of Tinf 455 ms as the sleeps of gzips that
 * Python's asyncio read from (their pipe was full). */
#define HANDOFF_SWITCH_NS 10000

static bool handed(const struct stay *s, uint64_t wake)
{
	return (s->child_blocked & 2) ||
	       (s->out <= wake && wake - s->out <= HANDOFF_SWITCH_NS);
}

/* When `tid` comes onto the CPU next after `ts` (UINT64_MAX: never). */
static uint64_t next_in_after(const struct ecp_builder *b, uint64_t tid, uint64_t ts)
{
	const uint64_t *i = ecp_hmap_get(&b->thread_by_tid, tid);
	const struct sched_list *l =
	    i ? ECP_VEC_AT(&b->threads, struct bthread *, (size_t)*i)->sched : NULL;
	return l ? bld_sched_in_after(l, ts, UINT64_MAX) : UINT64_MAX;
}

/* The child's parent left the CPU blocked just before the child woke, and
 * stayed off it until the child had ended: it was waiting for the child (a
 * shell in wait4 for its `sleep`), which nothing it did can have woken
 * unless the child came in at the very next switch (it wrote to the child,
 * then waited).  The child's gap is then its own: a shell's `sleep 0.2`
 * lost its delay whenever the sleep blocked before the shell's wait did,
 * once the children no longer carried LTTng-UST's start-up, which had
 * always made the shell block first. */
static bool parent_waited(const struct ecp_builder *b, const struct stay *s,
			  uint64_t parent, uint64_t wake, uint64_t child_end)
{
	return s->tid == parent &&
	       !(s->out <= wake && wake - s->out <= HANDOFF_SWITCH_NS) &&
	       next_in_after(b, parent, s->out) >= child_end;
}

uint64_t bld_child_own_delay(const struct ecp_builder *b, const struct sched_list *l,
			     uint64_t parent, uint64_t from, uint64_t to)
{
	uint64_t sum = 0;
	for (size_t i = 0; i + 1 < l->n && sched_in(l, i + 1) <= to; i++) {
		if (sched_preempted(l, i) || sched_out(l, i) < from)
			continue;
		uint64_t gs = sched_out(l, i), ge = sched_in(l, i + 1);
		if (ge <= gs)
			continue;
		size_t j = b->stays ? stay_before(b, ge) : 0;
		/* another thread of the program ran last and blocked: the
		 * child waited for it (a pipeline's stage for the one before) */
		if (j && b->stays[j - 1].in > gs && handed(&b->stays[j - 1], ge) &&
		    !parent_waited(b, &b->stays[j - 1], parent, ge, to))
			continue;
		uint64_t other = b->stays ? cpu_in(b, gs, ge) : 0;
		sum += ge - gs > other ? ge - gs - other : 0;
	}
	return sum;
}

bool bld_child_handed_off(const struct ecp_builder *b, uint64_t wake)
{
	size_t j = stay_before(b, wake);
	return j > 0 && (b->stays[j - 1].child_blocked & 1) &&
	       handed(&b->stays[j - 1], wake);
}

/* First interval whose in (side 0) or out (side 1) is above ts. */
static size_t first_above(const struct ecp_builder *b, int side, uint64_t ts)
{
	size_t lo = 0, hi = b->n_kid;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->kid_iv[2 * mid + side] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t bld_child_cpu_in(const struct ecp_builder *b, uint64_t from, uint64_t to)
{
	if (!b->n_kid || to <= from)
		return 0;
	size_t lo = first_above(b, 1, from), hi = first_above(b, 0, to - 1);
	if (lo >= hi)
		return 0;
	uint64_t sum = b->kid_cum[hi] - b->kid_cum[lo];
	if (b->kid_iv[2 * lo] < from)
		sum -= from - b->kid_iv[2 * lo];
	if (b->kid_iv[2 * (hi - 1) + 1] > to)
		sum -= b->kid_iv[2 * (hi - 1) + 1] - to;
	return sum;
}

void bld_child_sleep(const struct ecp_builder *b, struct bthread *th, uint64_t end,
		     uint64_t d)
{
	if (b->n_kid && bld_child_cpu_in(b, th->delay_ts, end)) {
		th->kid_sleeps++;
		th->kid_sleep_ns += d;
	}
}

/* A thread that sleeps again and again while its children run (GNU
 * parallel's perl selects with no descriptor, 0.2 ms to 1 s, backing off,
 * then reaps with waitpid(WNOHANG), which is not recorded) polls them: on
 * more CPUs they end sooner and it sleeps less.  The model keeps each
 * sleep as recorded, at every P: parallel -j2 kept 633 ms of selects in a
 * run of 0.5-0.7 s, predicted 1.07x on two CPUs for about 1.2x.  Nothing
 * in the recording tells such a loop from sleeps that are meant, so the
 * answer names the threads and their sleeps.  A run of at least
 * KID_SLEEPS_MIN sleeps and KID_SLEEP_MIN_NS is a loop worth naming. */
#define KID_SLEEPS_MIN   3
#define KID_SLEEP_MIN_NS 10000000ull
#define KID_SLEEP_NAMED  3

static int child_sleep_warning(const struct ecp_builder *b, struct ecp_model *m)
{
	char names[256] = "";
	size_t len = 0, n = 0;
	uint64_t sleeps = 0, ns = 0;
	for (size_t i = 0; i < b->threads.len; i++) {
		const struct bthread *th = ECP_VEC_AT(&b->threads, struct bthread *, i);
		if (th->kid_sleeps < KID_SLEEPS_MIN ||
		    th->kid_sleep_ns < KID_SLEEP_MIN_NS)
			continue;
		sleeps += th->kid_sleeps;
		ns += th->kid_sleep_ns;
		if (n++ < KID_SLEEP_NAMED && len < sizeof(names)) {
			const char *comm = bld_comm_of(b, th->tid);
			int w = snprintf(names + len, sizeof(names) - len,
					 "%s%s (tid %llu) %llu sleeps, %.3f ms",
					 len ? "; " : "", comm ? comm : th->name,
					 (unsigned long long)th->tid,
					 (unsigned long long)th->kid_sleeps,
					 (double)th->kid_sleep_ns / 1e6);
			len = w > 0 ? len + (size_t)w : len;
		}
	}
	if (!n)
		return 0;
	return ecp_model_add_warning(
	    m,
	    "%zu threads slept again and again while the program's child processes "
	    "had the CPU (%llu sleeps or polls that timed out, %.3f ms): %s%s.  If "
	    "they poll the children (as GNU parallel and shell loops do), they sleep "
	    "less when the children run on more CPUs; each sleep is kept as "
	    "recorded, so T_P is too long and the speedup too low",
	    n, (unsigned long long)sleeps, (double)ns / 1e6, names,
	    n > KID_SLEEP_NAMED ? "; ..." : "");
}

int bld_child_cpu_warning(const struct ecp_builder *b, struct ecp_model *m)
{
	if (child_sleep_warning(b, m) < 0)
		return -1;
	if (!b->kid_waits)
		return 0;
	return ecp_model_add_warning(
	    m,
	    "%llu blocking reads or polls of the program's threads waited while its "
	    "child processes ran: %.3f ms of them is taken as waiting for those "
	    "children (what a child writes to the program is not followed), no "
	    "delay, so T_P is too short where a child's output came later than its "
	    "CPU time",
	    (unsigned long long)b->kid_waits, (double)b->kid_waits_ns / 1e6);
}
