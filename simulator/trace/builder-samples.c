/* SPDX-License-Identifier: MIT */
/* Builder: sampled function time (issue 18).  Samples arrive with the sched
 * trace, before the program's events, already unwound and reduced to the
 * start addresses of the functions on the stack (simulator/symbols/sampler.c); they
 * wait here per thread.  Each sample stands for the thread's CPU time nearer
 * to it than to its neighbours: it takes over half-way (in the thread's CPU
 * time) between the previous sample and itself, and the thread's first
 * sample from the thread's start.  (Taking over at the sample itself would
 * give every thread's first half period to its start routine and keep every
 * state half a period too long: on a program of many short threads, a bias
 * of several percent.)  Before each event of a thread, the samples that
 * took over by then are applied: the time so far is charged to the state
 * then current, and the sample becomes the new state until the next one
 * takes over or a function event changes the instrumented stack (a sample
 * never takes over before a function event that preceded it).
 *
 * A sample's state is the part of its stack *below* the innermost frame the
 * builder already knows: the thread's start routine (which holds the rest of
 * the segment anyway) or an instrumented function on the shadow stack.  So
 * in a program recorded without instrumentation the whole stack up to the
 * start routine is sampled; in a mixed one instrumented functions keep
 * their exact entry and exit and samples only fill in what runs below them
 * (library code, functions the filters folded).  The state's innermost
 * function gets self time, every function of it inclusive time (recursion
 * once); an empty state leaves the time to the shadow stack's top.
 *
 * The state's frames are also calls on the thread's timeline (flag
 * ECP_CALL_SAMPLED, for timelines and folded stacks): a frame that stays on
 * the sampled stack from one state to the next (the same functions from the
 * outermost in) keeps its call; the others end at the take-over and the new
 * ones begin there, one level below the instrumented frames. */
#include "simulator/trace/builder-internal.h"

#include <stdlib.h>
#include <string.h>

struct samp_rec {
	uint64_t ts;
	uint64_t first; /* into b->samp_frames */
	uint32_t n;
};

/* A frame as pushed: functions are made only for the frames a sample's
 * state keeps, so that the runtime's outer frames and the samples outside
 * every thread's life add no empty functions to the model. */
struct samp_frame {
	uint64_t addr, site;
};

int ecp_builder_count_sample(struct ecp_builder *b, uint32_t tid, uint64_t ts,
			     struct ecp_error *err)
{
	uint64_t *v = ecp_hmap_get(&b->cost_by_tid, tid);
	struct ecp_vec *l;
	if (v) {
		l = ECP_VEC_AT(&b->cost_lists, struct ecp_vec *, *v);
	} else {
		l = calloc(1, sizeof(*l));
		struct ecp_vec **slot = l ? ecp_vec_push(&b->cost_lists) : NULL;
		if (!slot) {
			free(l);
			return bld_nomem(err);
		}
		*slot = l;
		ecp_vec_init(l, sizeof(uint64_t));
		if (ecp_hmap_put(&b->cost_by_tid, tid, b->cost_lists.len - 1) < 0)
			return bld_nomem(err);
	}
	uint64_t *slot = ecp_vec_push(l);
	if (!slot)
		return bld_nomem(err);
	/* kept in order, as the samples themselves */
	if (l->len > 1 && ts < ECP_VEC_AT(l, uint64_t, l->len - 2))
		ts = ECP_VEC_AT(l, uint64_t, l->len - 2);
	*slot = ts;
	return ECP_OK;
}

uint64_t bld_samples_before(struct bthread *th, uint64_t ts, bool inclusive)
{
	if (!th->cost_ts)
		return 0;
	size_t lo = th->cost_first, hi = th->cost_ts->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t t = ECP_VEC_AT(th->cost_ts, uint64_t, mid);
		if (t < ts || (inclusive && t == ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - th->cost_first;
}

void bld_count_samples(struct bthread *th, uint64_t ts)
{
	if (!th->cost_ts)
		return;
	while (th->cost_next < th->cost_ts->len &&
	       ECP_VEC_AT(th->cost_ts, uint64_t, th->cost_next) <= ts)
		th->cost_next++;
	th->n_samples = th->cost_next - th->cost_first;
}

int ecp_builder_push_sample(struct ecp_builder *b, uint32_t tid, uint64_t ts,
			    const uint64_t *funcs, const uint64_t *sites, uint32_t n,
			    struct ecp_error *err)
{
	if (b->sealed) {
		struct ecp_event ev = {.ts = ts, .tid = tid, .type = ECP_EV_SCHED_SWITCH};
		int rc =
		    bld_inconsistent(b, err, &ev,
				     "sample after the program's events (the sched trace "
				     "must be pushed first)");
		return rc > 0 ? ECP_OK : rc;
	}
	uint64_t *v = ecp_hmap_get(&b->samp_by_tid, tid);
	struct samp_list *l;
	if (v) {
		l = ECP_VEC_AT(&b->samp_lists, struct samp_list *, *v);
	} else {
		l = calloc(1, sizeof(*l));
		struct samp_list **slot = l ? ecp_vec_push(&b->samp_lists) : NULL;
		if (!slot) {
			free(l);
			return bld_nomem(err);
		}
		*slot = l;
		ecp_vec_init(&l->recs, sizeof(struct samp_rec));
		if (ecp_hmap_put(&b->samp_by_tid, tid, b->samp_lists.len - 1) < 0)
			return bld_nomem(err);
	}
	struct samp_rec *r = ecp_vec_push(&l->recs);
	if (!r)
		return bld_nomem(err);
	/* the sched trace is one CPU's, in time order; a sample out of order
	 * is kept in order anyway (at the previous one's time) */
	if (l->recs.len > 1) {
		uint64_t prev = ECP_VEC_AT(&l->recs, struct samp_rec, l->recs.len - 2).ts;
		if (ts < prev)
			ts = prev;
	}
	r->ts = ts;
	r->first = b->samp_frames.len;
	r->n = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!funcs[i])
			continue;
		struct samp_frame *slot = ecp_vec_push(&b->samp_frames);
		if (!slot)
			return bld_nomem(err);
		slot->addr = funcs[i];
		slot->site = sites ? sites[i] : 0;
		r->n++;
	}
	b->samples_pushed++;
	return ECP_OK;
}

void bld_samples_attach(struct ecp_builder *b, struct bthread *th, uint64_t start_ts)
{
	uint64_t *c = ecp_hmap_get(&b->cost_by_tid, th->tid);
	if (c) {
		/* what was sampled before the thread's first event is no part of
		 * the model, nor its cost */
		th->cost_ts = ECP_VEC_AT(&b->cost_lists, struct ecp_vec *, *c);
		while (th->cost_first < th->cost_ts->len &&
		       ECP_VEC_AT(th->cost_ts, uint64_t, th->cost_first) < start_ts)
			th->cost_first++;
		th->cost_next = th->cost_first;
	}
	uint64_t *v = ecp_hmap_get(&b->samp_by_tid, th->tid);
	if (!v)
		return;
	th->samp_src = ECP_VEC_AT(&b->samp_lists, struct samp_list *, *v);
	/* what ran before the thread's first event (the dynamic loader, the
	 * agent's start) is no part of the model */
	struct samp_list *l = th->samp_src;
	while (l->next < l->recs.len &&
	       ECP_VEC_AT(&l->recs, struct samp_rec, l->next).ts < start_ts)
		l->next++;
}

/* By address: with by_callsite the same function has one id per site. */
static bool on_shadow_stack(const struct ecp_builder *b, const struct bthread *th,
			    uint64_t addr)
{
	for (size_t i = th->frames.len; i-- > 0;)
		if (ECP_VEC_AT(&b->fns, struct fn,
			       ECP_VEC_AT(&th->frames, struct frame, i).func)
			.addr == addr)
			return true;
	return false;
}

static bool is_start_function(const struct ecp_builder *b, const struct bthread *th,
			      uint64_t addr)
{
	return th->start_fn != ECP_NO_ID &&
	       ECP_VEC_AT(&b->fns, struct fn, th->start_fn).addr == addr;
}

/* Ends the calls of the innermost n frames of the state at function clock t
 * and drops them from it. */
static int end_inner(struct ecp_builder *b, struct bthread *th, size_t n, uint64_t t)
{
	size_t len = th->samp.len;
	uint32_t below = (uint32_t)th->frames.len; /* depth of the outermost */
	for (size_t i = 0; i < n; i++)
		if (bld_push_call(b, th, ECP_VEC_AT(&th->samp, ecp_id, i),
				  below + (uint32_t)(len - 1 - i),
				  ECP_VEC_AT(&th->samp_since, uint64_t, i), t,
				  ECP_CALL_SAMPLED) < 0)
			return -1;
	if (n && n < len) {
		ecp_id *f = th->samp.data;
		uint64_t *since = th->samp_since.data;
		memmove(f, f + n, (len - n) * sizeof(*f));
		memmove(since, since + n, (len - n) * sizeof(*since));
	}
	th->samp.len = th->samp_since.len = len - n;
	return 0;
}

int bld_samples_close(struct ecp_builder *b, struct bthread *th, uint64_t t)
{
	return end_inner(b, th, th->samp.len, t);
}

/* Makes the sample the thread's state at function clock t (see the top of
 * the file). */
static int take_state(struct ecp_builder *b, struct bthread *th, const struct samp_rec *r,
		      uint64_t t)
{
	struct ecp_vec *next = &b->samp_next;
	next->len = 0;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct samp_frame *fr =
		    &ECP_VEC_AT(&b->samp_frames, struct samp_frame, r->first + i);
		if (is_start_function(b, th, fr->addr) ||
		    on_shadow_stack(b, th, fr->addr))
			break;
		ecp_id f = bld_function_at(b, fr->addr, fr->site);
		if (f == ECP_NO_ID)
			return -1;
		bool seen = false;
		for (size_t k = 0; k < next->len && !seen; k++)
			seen = ECP_VEC_AT(next, ecp_id, k) == f;
		if (seen)
			continue;
		ecp_id *slot = ecp_vec_push(next);
		if (!slot)
			return -1;
		*slot = f;
	}
	/* the frames both states share, from the outermost in, go on */
	size_t old = th->samp.len, kept = 0;
	while (kept < old && kept < next->len &&
	       ECP_VEC_AT(&th->samp, ecp_id, old - 1 - kept) ==
		   ECP_VEC_AT(next, ecp_id, next->len - 1 - kept))
		kept++;
	if (end_inner(b, th, old - kept, t) < 0)
		return -1;
	size_t fresh = next->len - kept;
	if (fresh && (ecp_vec_reserve(&th->samp, next->len) < 0 ||
		      ecp_vec_reserve(&th->samp_since, next->len) < 0))
		return -1;
	ecp_id *f = th->samp.data;
	uint64_t *since = th->samp_since.data;
	if (fresh && kept) {
		memmove(f + fresh, f, kept * sizeof(*f));
		memmove(since + fresh, since, kept * sizeof(*since));
	}
	for (size_t i = 0; i < fresh; i++) {
		f[i] = ECP_VEC_AT(next, ecp_id, i);
		since[i] = t;
	}
	th->samp.len = th->samp_since.len = next->len;
	if (th->samp.len)
		ECP_VEC_AT(&b->fns, struct fn, ECP_VEC_AT(&th->samp, ecp_id, 0))
		    .samples++;
	return 0;
}

/* The thread's CPU time (switch records, before the recorder's costs are
 * taken out) at wall time ts. */
static uint64_t raw_cpu(const struct bthread *th, uint64_t ts)
{
	return th->sched ? bld_sched_cpu_at(th->sched, ts) : ts;
}

int bld_apply_samples(struct ecp_builder *b, struct bthread *th, uint64_t ts,
		      bool func_event)
{
	struct samp_list *l = th->samp_src;
	if (!l)
		return 0;
	uint64_t now = raw_cpu(th, ts);
	while (l->next < l->recs.len) {
		const struct samp_rec *r =
		    &ECP_VEC_AT(&l->recs, struct samp_rec, l->next);
		uint64_t cpu = raw_cpu(th, r->ts);
		/* half-way from the previous one (the first: from the start) */
		uint64_t takeover = !l->prev_cpu ? 0
				    : cpu <= l->prev_cpu
					? l->prev_cpu
					: l->prev_cpu + (cpu - l->prev_cpu) / 2;
		/* a sample taken after a function event saw the stack that event
		 * made: it waits for it (and takes over no earlier, f_last) */
		if (takeover > now || (func_event && r->ts > ts))
			break;
		/* the function clock at the take-over: the CPU time less the
		 * recorder's events and the samples before this one (the
		 * take-over precedes it), never before what is charged */
		th->n_samples = bld_samples_before(th, r->ts, false);
		uint64_t t = sat_sub(takeover, bld_overhead_ns(b, th));
		l->next++;
		l->prev_cpu = cpu;
		if (t < th->f_last)
			t = th->f_last;
		/* the thread's clock never goes back behind what was charged
		 * (as a function event's time moves it, bld_func_clock) */
		if (t > th->v_last)
			th->v_last = t;
		if (bld_advance(th, t) < 0 || take_state(b, th, r, t) < 0)
			return -1;
		b->samples_applied++;
	}
	bld_count_samples(th, ts);
	return 0;
}

int bld_charge_sampled(struct bthread *th, uint64_t d)
{
	for (size_t k = 0; k < th->samp.len; k++) {
		struct act_slot *s = bld_act(th, ECP_VEC_AT(&th->samp, ecp_id, k));
		if (!s)
			return -1;
		if (k == 0)
			s->self += d;
		s->incl += d;
	}
	return 0;
}

void bld_samples_free(struct ecp_builder *b)
{
	for (size_t i = 0; i < b->samp_lists.len; i++) {
		struct samp_list *l = ECP_VEC_AT(&b->samp_lists, struct samp_list *, i);
		ecp_vec_finish(&l->recs);
		free(l);
	}
	ecp_vec_finish(&b->samp_lists);
	ecp_vec_finish(&b->samp_frames);
	ecp_vec_finish(&b->samp_next);
	ecp_hmap_finish(&b->samp_by_tid);
	for (size_t i = 0; i < b->cost_lists.len; i++) {
		struct ecp_vec *l = ECP_VEC_AT(&b->cost_lists, struct ecp_vec *, i);
		ecp_vec_finish(l);
		free(l);
	}
	ecp_vec_finish(&b->cost_lists);
	ecp_hmap_finish(&b->cost_by_tid);
}
