/* SPDX-License-Identifier: MIT */
/* Builder: what the consistency check (consistency.h) holds the model to --
 * each thread's own clock and the recorder's cost in it, the CPU time the
 * threads used outside their first and last event, and the CPU time of the
 * tids only the scheduler saw. */
#include "simulator/trace/builder-internal.h"

#include "common/sort.h"

#include <stdlib.h>

/* Every switch record of the trace, to bound the intervals a tid's own
 * records leave open: looked up in each tid's sealed list (sorted, its
 * open ends 0 and UINT64_MAX sorting first and last), not copied into one
 * sorted array of all of them (16 bytes per stay on a CPU, at the model
 * build's peak) -- unless the lookups list by list would be quadratic:
 * thousands of short-lived threads, each dying on the CPU (an open end),
 * each looked up in every tid's list (20,001 threads: 9 s of a 10 s
 * analysis).  Then every switch-in and every switch-out is in one sorted
 * array each. */
struct switch_times {
	uint64_t begin, end;         /* the trace's first and last timestamp */
	const struct ecp_vec *lists; /* struct sched_list * */
	uint64_t *all_in, *all_out;  /* NULL: looked up list by list */
	size_t n_all_in, n_all_out;
};

/* Open ends times tids above which the switch times are merged: a million
 * binary searches stay well under a second. */
#define MERGE_LOOKUPS (1u << 20)

/* A tid's clock read at the exit above its stays by more than this is not
 * its own (a tid the kernel gave again): its stays are kept. */
#define EXIT_CLOCK_SLACK_NS 1000000u

/* The first of the sorted times v[0..n) after t, or `none`. */
static uint64_t first_after(const uint64_t *v, size_t n, uint64_t t, uint64_t none)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? v[lo] : none;
}

/* The last of the sorted times v[0..n) before t, or `none`. */
static uint64_t last_before(const uint64_t *v, size_t n, uint64_t t, uint64_t none)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? v[lo - 1] : none;
}

/* The last switch-out of l before t, or `none` (its ends are sorted, an
 * open one last). */
static uint64_t last_out_of(const struct sched_list *l, uint64_t t, uint64_t none)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sched_out(l, mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? sched_out(l, lo - 1) : none;
}

static const struct sched_list *list_at(const struct switch_times *st, size_t i)
{
	return ECP_VEC_AT(st->lists, struct sched_list *, i);
}

/* The first switch-in of any tid after t (an open start, 0, is none), or
 * `none`. */
static uint64_t first_in_after(const struct switch_times *st, uint64_t t, uint64_t none)
{
	if (st->all_in)
		return first_after(st->all_in, st->n_all_in, t, none);
	uint64_t best = UINT64_MAX;
	bool found = false;
	for (size_t i = 0; i < st->lists->len; i++) {
		const struct sched_list *l = list_at(st, i);
		uint64_t in = bld_sched_in_after(l, t, 0);
		if (in && (!found || in < best)) {
			best = in;
			found = true;
		}
	}
	return found ? best : none;
}

/* The last switch-out of any tid before t (an open end, UINT64_MAX, is
 * never before), or `none`. */
static uint64_t last_out_before(const struct switch_times *st, uint64_t t, uint64_t none)
{
	if (st->all_out)
		return last_before(st->all_out, st->n_all_out, t, none);
	uint64_t best = 0;
	bool found = false;
	for (size_t i = 0; i < st->lists->len; i++) {
		const struct sched_list *l = list_at(st, i);
		/* UINT64_MAX, an open end, is never before t: none */
		uint64_t out = last_out_of(l, t, UINT64_MAX);
		if (out != UINT64_MAX && (!found || out > best)) {
			best = out;
			found = true;
		}
	}
	return found ? best : none;
}

/* The trace's first and last timestamps, widened to every switch record. */
static void collect_switch_times(const struct ecp_builder *b, struct switch_times *st)
{
	st->begin = b->t0;
	st->end = b->last_ts;
	st->lists = &b->sched_lists;
	for (size_t i = 0; i < b->sched_lists.len; i++) {
		const struct sched_list *l = list_at(st, i);
		/* the first switch-in may be open (0), the last switch-out
		 * too (UINT64_MAX) */
		for (size_t k = 0; k < l->n && k < 2; k++)
			if (sched_in(l, k) && sched_in(l, k) < st->begin)
				st->begin = sched_in(l, k);
		if (l->n && sched_out(l, 0) < st->begin)
			st->begin = sched_out(l, 0);
		if (l->n && sched_in(l, l->n - 1) > st->end)
			st->end = sched_in(l, l->n - 1);
		for (size_t k = l->n; k > 0 && k + 2 > l->n; k--)
			if (sched_out(l, k - 1) != UINT64_MAX &&
			    sched_out(l, k - 1) > st->end)
				st->end = sched_out(l, k - 1);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Every tid's closed switch-ins and switch-outs, each sorted in one array,
 * where the open ends to look up times the tids exceed MERGE_LOOKUPS.  Out
 * of memory, the lookups go list by list (slower, the same figures). */
static void merge_switch_times(struct switch_times *st)
{
	size_t open = 0, stays = 0;
	for (size_t i = 0; i < st->lists->len; i++) {
		const struct sched_list *l = list_at(st, i);
		stays += l->n;
		for (size_t k = 0; k < l->n; k++)
			open += (sched_in(l, k) == 0) + (sched_out(l, k) == UINT64_MAX);
	}
	if (!open || (double)open * (double)st->lists->len <= MERGE_LOOKUPS)
		return;
	st->all_in = malloc(stays * sizeof(uint64_t) + 1);
	st->all_out = malloc(stays * sizeof(uint64_t) + 1);
	if (!st->all_in || !st->all_out) {
		free(st->all_in);
		free(st->all_out);
		st->all_in = st->all_out = NULL;
		return;
	}
	for (size_t i = 0; i < st->lists->len; i++) {
		const struct sched_list *l = list_at(st, i);
		for (size_t k = 0; k < l->n; k++) {
			if (sched_in(l, k))
				st->all_in[st->n_all_in++] = sched_in(l, k);
			if (sched_out(l, k) != UINT64_MAX)
				st->all_out[st->n_all_out++] = sched_out(l, k);
		}
	}
	ecp_sort(st->all_in, st->n_all_in, sizeof(uint64_t), cmp_u64);
	ecp_sort(st->all_out, st->n_all_out, sizeof(uint64_t), cmp_u64);
}

/* The CPU time of one tid's sealed switch list within [from, to).  Its
 * records may leave an interval open at either end: a first record that
 * is a switch-out (sealed as starting at 0) and a last that is a switch-in
 * (out UINT64_MAX) -- a thread that died on the CPU has no switch-out.
 * All threads ran on one CPU, so the open end is closed by the other tids'
 * records: the interval began no earlier than the switch-out before it and
 * ended no later than the next switch-in, and within the trace either way. */
static uint64_t sched_list_cpu(const struct sched_list *l, const struct switch_times *st,
			       uint64_t from, uint64_t to, uint64_t *guessed)
{
	uint64_t sum = 0;
	if (from < st->begin)
		from = st->begin;
	if (to > st->end)
		to = st->end;
	for (size_t i = 0; i < l->n; i++) {
		uint64_t in = sched_in(l, i), out = sched_out(l, i);
		bool died = l->died && l->died[i];
		bool open = !in || out == UINT64_MAX || died;
		if (!in)
			in = last_out_before(st, out, st->begin);
		if (out == UINT64_MAX)
			out = first_in_after(st, in, st->end);
		/* a thread that died on the CPU ran past its exit record, until
		 * another tid came in (before its tid's next thread did) */
		if (died) {
			out = first_in_after(st, out, out);
			if (i + 1 < l->n && out > sched_in(l, i + 1))
				out = sched_in(l, i + 1);
		}
		if (in < from)
			in = from;
		if (out > to)
			out = to;
		if (out > in) {
			sum += out - in;
			/* closed by another tid's record: an untraced process
			 * (or the exit) may have had the CPU meanwhile */
			if (open && guessed)
				*guessed += out - in;
		}
	}
	return sum;
}

/* The CPU time thread i used outside its first and last event, where no
 * segment can hold it: libc's set-up and tear-down of the thread, the
 * agent's and LTTng-UST's per-thread work, and for the main thread the
 * exec, the dynamic loader and the constructors.  Before the first event
 * its own clock says it exactly when the event carries it (the clock
 * starts with the thread); else the switch records, which for the main
 * thread begin only after its first stay on the CPU. */
static uint64_t untracked_cpu(const struct ecp_builder *b, const struct bthread *th,
			      const struct ecp_thread *mt, const struct switch_times *st,
			      uint64_t *guessed)
{
	if (!th->sched || !mt->n_segments)
		return th->clock_first;
	/* read before the segments move to the model's order (assemble) */
	const struct ecp_segment_record *first =
	    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, th->first_seg);
	uint64_t first_ts = b->t0 + first->rec_start;
	uint64_t before = th->clock_first
			      ? th->clock_first
			      : sched_list_cpu(th->sched, st, 0, first_ts, guessed);
	/* where the kernel gave its tid to a later thread, the stays from
	 * that thread's first are not this one's */
	uint64_t to = UINT64_MAX;
	uint64_t died = bld_exit_between(b, th->tid, th->last_ts, UINT64_MAX);
	uint64_t next = died ? bld_sched_in_after(th->sched, died, 0) : 0;
	if (next)
		to = next;
	uint64_t after = sched_list_cpu(th->sched, st, th->last_ts, to, guessed);
	/* the stays hold the hypervisor's steal as the thread's segments did
	 * before they were scaled to its clock: scaled by the ratio of its
	 * last span between clock readings, where they lie (before the first
	 * event its clock was read: exact) */
	if (th->clock_scale > 0)
		after = (uint64_t)((double)after * bld_clock_ratio_last(th));
	return before + after;
}

/* What the consistency check needs from the builder (simulator/model/consistency.h):
 * each thread's own clock between its first and last event and the
 * recorder's cost taken out of it, the CPU time the threads used outside
 * their first and last event, and the CPU time of the tids that only the
 * scheduler saw -- switch records of the program's process that never
 * became a model thread.  Returns 0, or -1 when out of memory. */
int bld_note_consistency(struct ecp_builder *b, struct ecp_model *m)
{
	for (size_t i = 0; i < b->threads.len; i++) {
		const struct bthread *th = thread_at(b, (ecp_id)i);
		struct ecp_thread *mt = &m->threads[i];
		/* with the work the deals moved onto or off it */
		if (th->clock_first && th->clock_last)
			mt->own_clock_ns =
			    (uint64_t)((int64_t)sat_sub(th->clock_last, th->clock_first) +
				       th->dealt_ns);
		/* and the CPU time its OpenMP runtime spun in task waits */
		mt->overhead_ns = bld_overhead_ns(b, th) + th->spin_ns;
		m->info.overhead_ns += mt->overhead_ns;
	}
	struct switch_times st = {0};
	collect_switch_times(b, &st);
	merge_switch_times(&st);
	for (size_t i = 0; i < b->threads.len; i++)
		m->info.untracked_cpu_ns +=
		    untracked_cpu(b, thread_at(b, (ecp_id)i), &m->threads[i], &st,
				  &m->info.guessed_cpu_ns);
	for (size_t i = 0; i < b->sched_by_tid.cap; i++) {
		if (!b->sched_by_tid.used[i] ||
		    ecp_hmap_get(&b->thread_by_tid, b->sched_by_tid.keys[i]))
			continue;
		const struct sched_list *l = ECP_VEC_AT(
		    &b->sched_lists, struct sched_list *, b->sched_by_tid.vals[i]);
		/* its own clock where main read it at the exit, and its
		 * stays after that (LTTng-UST's teardown): the stays hold
		 * what the hypervisor stole meanwhile (20-80 ms of
		 * LTTng-UST's listener threads' in CI runs, against 3-4 ms
		 * usual); the clock counts no steal, and is no guess */
		uint64_t tid = b->sched_by_tid.keys[i];
		const uint64_t *clock = ecp_hmap_get(&b->exit_clock_by_tid, tid);
		const uint64_t *read = ecp_hmap_get(&b->exit_clock_ts_by_tid, tid);
		uint64_t guessed = 0, after_guessed = 0,
			 stays = sched_list_cpu(l, &st, 0, UINT64_MAX, &guessed);
		if (clock && read && *clock <= stays + EXIT_CLOCK_SLACK_NS) {
			m->info.outside_cpu_ns +=
			    *clock +
			    sched_list_cpu(l, &st, *read, UINT64_MAX, &after_guessed);
			m->info.guessed_cpu_ns += after_guessed;
		} else {
			m->info.outside_cpu_ns += stays;
			m->info.guessed_cpu_ns += guessed;
		}
		m->info.outside_threads++;
	}
	free(st.all_in);
	free(st.all_out);
	return 0;
}
