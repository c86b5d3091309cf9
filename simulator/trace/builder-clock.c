/* SPDX-License-Identifier: MIT */
/* Builder: the threads' CPU clocks.  The context-switch records of each
 * thread, sealed into on-CPU intervals with prefix sums, give its CPU time
 * at any wall time and the time it spent blocked (see builder.h). */
#include "simulator/trace/builder-internal.h"

#include "common/sort.h"

#include <stdlib.h>

/* ------------------------------------------------------------- sched lists */

static int cmp_rec(const void *a, const void *b)
{
	const struct sched_rec *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static uint64_t switch_in_cost(const struct ecp_builder *b)
{
	return (b->opts.switch_cost_ps + 500u) / 1000u;
}

static int cmp_exit(const void *a, const void *b)
{
	const struct tid_exit *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The first exit record of tid in (after, upto], or 0. */
uint64_t bld_exit_between(const struct ecp_builder *b, uint64_t tid, uint64_t after,
			  uint64_t upto)
{
	const struct tid_exit *x = b->thread_exits.data;
	size_t lo = 0, hi = b->thread_exits.len;
	while (lo < hi) { /* the first (tid, ts) above (tid, after) */
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid].tid < tid || (x[mid].tid == tid && x[mid].ts <= after))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->thread_exits.len && x[lo].tid == tid && x[lo].ts <= upto ? x[lo].ts
										: 0;
}

/* Turns the switch records of one tid into sorted on-CPU intervals with
 * prefix sums.  A first record that is a switch-out means the thread was on
 * CPU before the records start; a last switch-in means it still was at the
 * end.  A switch-in after a switch-in is a thread that died on the CPU (perf
 * writes no switch-out then) and a later thread the kernel gave the same
 * tid: the first stay ends at its exit record.  Without that, it ran on to
 * the later thread's first switch-out -- across the seconds between them:
 * 60,000 threads made 4 at a time reused 27,603 tids, and the CPU time
 * outside their events came to 680 s of a 4 s run (a recording refused). */
/* The stays as seal_list finds them, whole, before they are packed. */
struct stays {
	uint64_t *in, *cum;
	uint8_t *preempt;
};

/* Appends the interval [in, out) with its prefix sum; an open end
 * (UINT64_MAX, the last) adds nothing to the sum. */
static void add_interval(struct sched_list *l, struct stays *w, uint64_t in, uint64_t out,
			 uint8_t preempt, uint64_t *cum)
{
	w->in[l->n] = in;
	w->preempt[l->n] = preempt;
	w->cum[l->n] = *cum;
	if (out != UINT64_MAX)
		*cum += out - in;
	else
		l->open_end = true;
	l->n++;
	w->cum[l->n] = *cum;
}

static bool fits_block(const struct stays *w, size_t first, size_t end)
{
	for (size_t i = first; i < end; i++)
		if (w->in[i] < w->in[first] || w->in[i] - w->in[first] > UINT32_MAX ||
		    w->cum[i] - w->cum[first] > UINT32_MAX)
			return false;
	return true;
}

/* The stays in l's blocks (struct sched_block).  -1 out of memory. */
static int pack_stays(struct sched_list *l, const struct stays *w)
{
	size_t n = l->n, nblocks = (n + SCHED_BLOCK - 1) / SCHED_BLOCK, n_wide = 0;
	l->blocks = malloc((nblocks ? nblocks : 1) * sizeof(*l->blocks));
	l->off = malloc((n ? n : 1) * 2 * sizeof(*l->off));
	l->preempt = calloc(n / 64 + 1, sizeof(*l->preempt));
	if (!l->blocks || !l->off || !l->preempt)
		return -1;
	for (size_t k = 0; k < nblocks; k++) {
		size_t first = k * SCHED_BLOCK,
		       end = first + SCHED_BLOCK < n ? first + SCHED_BLOCK : n;
		bool narrow = fits_block(w, first, end);
		l->blocks[k] = (struct sched_block){.in = w->in[first],
						    .cum = w->cum[first],
						    .wide = narrow ? SCHED_NARROW
								   : (uint32_t)n_wide};
		if (!narrow)
			n_wide += end - first;
	}
	if (n_wide >= SCHED_NARROW)
		return -1; /* 4 G stays: more than memory holds */
	if (n_wide && !(l->wide = malloc(n_wide * 2 * sizeof(*l->wide))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct sched_block *k = &l->blocks[i / SCHED_BLOCK];
		if (k->wide == SCHED_NARROW) {
			l->off[2 * i] = (uint32_t)(w->in[i] - k->in);
			l->off[2 * i + 1] = (uint32_t)(w->cum[i] - k->cum);
		} else {
			size_t at = (size_t)k->wide + i % SCHED_BLOCK;
			l->wide[2 * at] = w->in[i];
			l->wide[2 * at + 1] = w->cum[i];
		}
		if (w->preempt[i])
			l->preempt[i / 64] |= UINT64_C(1) << (i % 64);
	}
	l->cum_all = w->cum[n];
	return 0;
}

static int seal_list(struct ecp_builder *b, struct sched_list *l)
{
	size_t n = l->recs.len;
	struct sched_rec *r = l->recs.data;
	ecp_sort(r, n, sizeof(*r), cmp_rec);
	size_t cap = n + 1;
	struct stays w = {.in = malloc(cap * sizeof(uint64_t)),
			  .cum = malloc((cap + 1) * sizeof(uint64_t)),
			  .preempt = malloc(cap)};
	int rc = -1;
	if (!w.in || !w.cum || !w.preempt)
		goto out;
	bool on = false;
	uint64_t start = 0, cum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].out) {
			uint64_t died =
			    on ? bld_exit_between(b, l->tid, start, r[i].ts) : 0;
			if (died && !l->died && !(l->died = calloc(cap, 1)))
				goto out;
			if (died) {
				l->died[l->n] = 1;
				add_interval(l, &w, start, died, 0, &cum);
				on = false;
			}
			if (on) {
				b->warn[WARN_SWITCH_INCONSISTENT]++;
				continue;
			}
			on = true;
			/* the switch's own cost, which the kernel charged the
			 * thread before the record, but never before the thread
			 * left the CPU last */
			uint64_t before = switch_in_cost(b);
			uint64_t floor =
			    l->n ? w.in[l->n - 1] + (w.cum[l->n] - w.cum[l->n - 1]) : 0;
			start = r[i].ts > floor + before ? r[i].ts - before : floor;
			if (start > r[i].ts)
				start = r[i].ts;
		} else {
			if (!on && l->n) {
				b->warn[WARN_SWITCH_INCONSISTENT]++;
				continue;
			}
			if (!on)
				start = 0;
			add_interval(l, &w, start, r[i].ts, r[i].preempt, &cum);
			on = false;
		}
	}
	if (on)
		add_interval(l, &w, start, UINT64_MAX, 0, &cum);
	ecp_vec_finish(&l->recs);
	rc = pack_stays(l, &w);
out:
	free(w.in);
	free(w.cum);
	free(w.preempt);
	return rc;
}

size_t bld_sched_first_after(const struct sched_list *l, uint64_t ts)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sched_in(l, mid) <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t bld_sched_in_after(const struct sched_list *l, uint64_t ts, uint64_t none)
{
	size_t k = bld_sched_first_after(l, ts);
	return k < l->n ? sched_in(l, k) : none;
}

/* The stay that later lookups try first. */
static size_t remember(struct sched_list *l, size_t i)
{
	l->at.i = i;
	l->at.in = sched_in(l, i);
	l->at.next_in = i + 1 < l->n ? sched_in(l, i + 1) : UINT64_MAX;
	l->at.cum = sched_cum(l, i);
	l->at.out = sched_out(l, i);
	return i;
}

/* Index of the last interval starting at or before ts, or SIZE_MAX. */
static size_t interval_at(struct sched_list *l, uint64_t ts)
{
	/* never before a lookup: at is zeroed, next_in 0 */
	if (l->at.in <= ts && ts < l->at.next_in)
		return l->at.i;
	size_t h = l->at.i + 1;
	if (h < l->n && sched_in(l, h) <= ts &&
	    (h + 1 == l->n || sched_in(l, h + 1) > ts))
		return remember(l, h);
	size_t lo = bld_sched_first_after(l, ts);
	if (!lo)
		return SIZE_MAX;
	return remember(l, lo - 1);
}

uint64_t bld_sched_cpu_at(struct sched_list *l, uint64_t ts)
{
	size_t i = interval_at(l, ts);
	if (i == SIZE_MAX)
		return 0;
	uint64_t end = ts < l->at.out ? ts : l->at.out;
	return l->at.cum + (end - l->at.in);
}

uint64_t bld_sched_in_at(struct sched_list *l, uint64_t ts)
{
	return interval_at(l, ts) == SIZE_MAX ? 0 : l->at.in;
}

/* Time in [from, to) the thread spent off CPU after a switch-out that left
 * it not runnable (it slept); preempted gaps are time-slicing, not delay. */
static uint64_t sched_blocked(struct sched_list *l, uint64_t from, uint64_t to)
{
	uint64_t sum = 0;
	size_t i = interval_at(l, from);
	if (i == SIZE_MAX)
		i = 0;
	for (; i < l->n && sched_out(l, i) < to; i++) {
		if (sched_preempted(l, i))
			continue;
		uint64_t gs = sched_out(l, i);
		uint64_t ge = i + 1 < l->n ? sched_in(l, i + 1) : UINT64_MAX;
		if (gs < from)
			gs = from;
		if (ge > to)
			ge = to;
		if (ge > gs)
			sum += ge - gs;
	}
	return sum;
}

uint64_t bld_overhead_ns(const struct ecp_builder *b, const struct bthread *th)
{
	uint64_t other = b->opts.other_event_cost_ps ? b->opts.other_event_cost_ps
						     : b->opts.event_cost_ps;
	uint64_t funcs =
	    th->n_func_events > th->entry_run ? th->n_func_events - th->entry_run : 0;
	return (b->opts.event_cost_ps * funcs +
		other * (th->n_events - th->n_func_events) +
		b->opts.thread_create_cost_ps * th->n_created) /
		   1000u +
	       b->opts.sample_cost_ns * th->n_samples + th->slow_ns + th->quiet_ns;
}

/* A stretch of a wrapper's own time that the agent left out of its
 * average cost per event (ecp:slow_window, recorder/EVENTS.md): the CPU
 * time the thread had in it is the recorder's.  It ended at the event
 * (within the event's own write, a fraction of a microsecond).  Without
 * switch records the CPU time in it is unknown, and nothing is taken. */
void bld_slow_window(struct ecp_builder *b, struct bthread *th,
		     const struct ecp_event *ev)
{
	if (b->opts.clock != ECP_CLOCK_PERF_SWITCH || !th->sched || ev->a > ev->ts)
		return;
	th->slow_ns += bld_sched_cpu_at(th->sched, ev->ts) -
		       bld_sched_cpu_at(th->sched, ev->ts - ev->a);
}

/* The thread's CPU clock at a synchronization event, agent cost removed,
 * kept monotonic. */
uint64_t bld_cpu_clock(struct ecp_builder *b, struct bthread *th,
		       const struct ecp_event *ev)
{
	uint64_t raw;
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME)
		raw = ev->cpu_ns ? ev->cpu_ns : th->cpu_ns_last;
	else
		raw = th->sched ? bld_sched_cpu_at(th->sched, ev->ts) : ev->ts;
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME && ev->cpu_ns)
		th->cpu_ns_last = ev->cpu_ns;
	uint64_t v = sat_sub(raw, bld_overhead_ns(b, th));
	if (v < th->v_last)
		v = th->v_last;
	th->v_last = v;
	return v;
}

/* The function clock at a function event's ts: exact CPU time with switch
 * records; with thread-cputime, wall time since the segment began, scaled
 * to CPU time when the segment closes. */
uint64_t bld_func_clock(struct ecp_builder *b, struct bthread *th, uint64_t ts)
{
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME)
		return th->seg_v0 + sat_sub(ts, th->seg_wall0);
	uint64_t raw = th->sched ? bld_sched_cpu_at(th->sched, ts) : ts;
	uint64_t v = sat_sub(raw, bld_overhead_ns(b, th));
	if (v < th->v_last)
		v = th->v_last;
	th->v_last = v;
	return v;
}

/* Off-CPU, not-runnable time of the thread in [from_ts, to_ts]. */
uint64_t bld_blocked_time(struct ecp_builder *b, struct bthread *th, uint64_t from_ts,
			  uint64_t to_ts, uint64_t from_cpu, uint64_t to_cpu)
{
	if (to_ts <= from_ts)
		return 0;
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME)
		return sat_sub(to_ts - from_ts, sat_sub(to_cpu, from_cpu));
	if (th->sched)
		return sched_blocked(th->sched, from_ts, to_ts);
	/* No switch records: the wall time of the call minus nothing. */
	return to_ts - from_ts;
}

/* The switch records are pushed first (builder.h); the first program event
 * seals them. */
int bld_push_switch(struct ecp_builder *b, const struct ecp_event *ev,
		    struct ecp_error *err)
{
	if (b->sealed) {
		int rc = bld_inconsistent(
		    b, err, ev,
		    "context-switch record after the program's events (the "
		    "sched trace must be pushed first)");
		return rc > 0 ? ECP_OK : rc; /* skipped */
	}
	b->any_switch = true;
	uint64_t li;
	struct sched_list *l;
	if (tid_cache_lookup(&b->sched_cache, &b->sched_by_tid, ev->tid, &li)) {
		l = ECP_VEC_AT(&b->sched_lists, struct sched_list *, li);
	} else {
		l = calloc(1, sizeof(*l));
		if (l)
			l->tid = ev->tid;
		struct sched_list **slot = l ? ecp_vec_push(&b->sched_lists) : NULL;
		if (!slot) {
			free(l);
			return bld_nomem(err);
		}
		*slot = l;
		ecp_vec_init(&l->recs, sizeof(struct sched_rec));
		if (ecp_hmap_put(&b->sched_by_tid, ev->tid, b->sched_lists.len - 1) < 0)
			return bld_nomem(err);
	}
	struct sched_rec *r = ecp_vec_push(&l->recs);
	if (!r)
		return bld_nomem(err);
	r->ts = ev->ts;
	r->out = ev->a != 0;
	r->preempt = ev->b != 0;
	return ECP_OK;
}

int bld_seal(struct ecp_builder *b, struct ecp_error *err)
{
	ecp_sort(b->thread_exits.data, b->thread_exits.len, sizeof(struct tid_exit),
		 cmp_exit);
	for (size_t i = 0; i < b->sched_lists.len; i++)
		if (seal_list(b, ECP_VEC_AT(&b->sched_lists, struct sched_list *, i)) < 0)
			return bld_nomem(err);
	if (bld_processes_seal(b) < 0 || bld_child_cpu_seal(b) < 0)
		return bld_nomem(err);
	b->sealed = true;
	return ECP_OK;
}

void bld_sched_free(struct ecp_builder *b)
{
	for (size_t i = 0; i < b->threads.len; i++)
		thread_at(b, (ecp_id)i)->sched = NULL;
	for (size_t i = 0; i < b->sched_lists.len; i++) {
		struct sched_list *l =
		    ECP_VEC_AT(&b->sched_lists, struct sched_list *, i);
		ecp_vec_finish(&l->recs);
		free(l->blocks);
		free(l->off);
		free(l->wide);
		free(l->preempt);
		free(l->died);
		free(l);
	}
	ecp_vec_finish(&b->sched_lists);
	ecp_hmap_finish(&b->sched_by_tid);
	ecp_vec_finish(&b->thread_exits);
}
