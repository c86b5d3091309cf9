/* SPDX-License-Identifier: MIT */
#include "ecp/prun.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/event-heap.h"
#include "ecp/hugemem.h"
#include "ecp/options.h"
#include "ecp/tie.h"
#include "simulator/model/dag-succ.h"

#define NONE UINT32_MAX

#define NEED_JOINED  0x80000000u
#define NEED_TOUCHED 0x40000000u
#define NEED_COUNT   0x3fffffffu

/* A queued time: the long double x as hi = x rounded to double and
 * lo = x - hi, both exact (x has 64 bits of mantissa, hi 53, so the rest
 * fits in lo).  Rounding is monotonic, so x < y exactly when (hi, lo) is
 * lexicographically smaller: the heaps order their records by double
 * compares (the x87 long double ones were a third of the simulation loop's
 * own time), in the same order, so the runs are the same to the bit. */
struct qtime {
	double hi, lo;
};

static inline struct qtime qtime_of(long double x)
{
	double hi = (double)x;
	return (struct qtime){hi, (double)(x - (long double)hi)};
}

static inline long double qtime_value(struct qtime q)
{
	return (long double)q.hi + (long double)q.lo;
}

static inline int qtime_cmp(struct qtime x, struct qtime y)
{
	if (x.hi != y.hi)
		return x.hi < y.hi ? -1 : 1;
	return (x.lo > y.lo) - (x.lo < y.lo);
}

ECP_EVENT_HEAP(heap, struct qtime, qtime_cmp)

/* An instant's work clock and idle charge, and the charge's growth per
 * unit of work clock since the instant before (while fewer than P run,
 * dW = dt; else no charge). */
struct hist {
	double w, charge, rate;
};

/* The processor share at a running count: work advances 1 / factor per
 * unit of time, and each running segment is charged rate of idleness. */
struct share {
	long double factor, rate;
};
#define SHARES_MAX 4096

struct slot {
	double charge;
	uint32_t started;
};

struct sim {
	const struct ecp_dag *dag;
	struct share *shares; /* per running count below n_shares */
	uint32_t n_shares;
	struct ecp_prun *run;
	const struct ecp_dag_succ *succ;
	/* Per segment: its unsatisfied inputs (NEED_COUNT), and with the tape
	 * NEED_TOUCHED (an input was satisfied at the current instant; the
	 * segments so marked are listed in `touched`) and NEED_JOINED (two
	 * inputs were, at one instant).  The bits live beside the count so that
	 * the tape costs no array of its own per segment. */
	uint32_t *need;
	uint32_t *touched;
	size_t n_touched, touched_cap;
	bool touched_lost; /* out of memory: the run fails rather than guess */
	/* for the plan's input (NULL without it): per segment, the instants
	 * of its start, its end, and its thread edge's release */
	uint32_t *start_instant, *end_instant, *pred_instant;
	uint32_t *ready;
	size_t n_ready;
	struct heap active, delayed;
	long double t, w;
	uint32_t instant;
	uint32_t running;
	uint32_t sub;       /* the tape's instant: one per event */
	long double charge; /* idle charge of a segment running since time 0 */
	double *seg_idle;   /* NULL: not asked for */
	/* With seg_idle: per running segment (unit), in the slot its record in
	 * `active` names, the charge and the instant when it started.  A few
	 * dozen slots stay in cache, where a per-segment array was read back
	 * at a scattered place at every end. */
	struct slot *slots;
	uint32_t *free_slots;
	size_t n_slots, n_free, slots_cap, free_cap;
	bool slots_lost; /* out of memory: the run fails rather than guess */
	/* With units and seg_idle: the clocks of the instants since the oldest
	 * running unit of several segments started (hist[k] is instant
	 * hist_base + k), where its segments' hand-overs are found when it
	 * ends (ecp/merged-units.h) */
	const struct ecp_prun_units *units;
	struct hist *hist;
	size_t hist_n, hist_cap;
	uint32_t hist_base;
	uint32_t last_rated;        /* the last instant whose interval charged idleness */
	bool hist_lost;             /* out of memory: the run fails rather than guess */
	struct ecp_prun_tape *tape; /* NULL: not recorded */
	struct ecp_prun_snapshots *snaps; /* NULL: not taken */
};

static bool grow(void **a, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *b = realloc(*a, c * size);
	if (!b)
		return false;
	*a = b;
	*cap = c;
	return true;
}

/* Keeps the snapshots at multiples of 2 * every and doubles every. */
static void snapshots_thin(struct ecp_prun_snapshots *x)
{
	uint64_t every = 2 * x->every;
	size_t kept = 0, pool_n = 0;
	for (size_t k = 0; k < x->n; k++) {
		struct ecp_prun_snapshot p = x->snap[k];
		if ((k * x->every) % every)
			continue;
		size_t n = (size_t)p.n_active + p.n_delayed;
		memmove(x->pool + pool_n, x->pool + p.at, n * sizeof(*x->pool));
		p.at = pool_n;
		pool_n += n;
		x->snap[kept++] = p;
	}
	x->n = kept;
	x->pool_n = pool_n;
	x->every = every;
}

static void snapshot_put(struct ecp_prun_queued *to, const struct heap *h)
{
	for (size_t i = 0; i < h->n; i++)
		to[i] = (struct ecp_prun_queued){.key = qtime_value(h->a[i].key),
						 .seg = h->a[i].seg};
}

/* Snapshot k is taken at instant k * every: after thinning, the kept ones
 * are still the multiples of the new spacing. */
static void snapshot_take(struct sim *m)
{
	struct ecp_prun_snapshots *x = m->snaps;
	if (x->stopped || (m->instant & (x->every - 1)))
		return;
	size_t n = m->active.n + m->delayed.n;
	while (x->pool_n + n > x->pool_budget && x->n > 1) {
		snapshots_thin(x);
		if (m->instant & (x->every - 1))
			return;
	}
	if (!grow((void **)&x->snap, &x->cap, x->n + 1, sizeof(*x->snap)) ||
	    !grow((void **)&x->pool, &x->pool_cap, x->pool_n + n, sizeof(*x->pool))) {
		x->stopped = true;
		return;
	}
	x->snap[x->n++] = (struct ecp_prun_snapshot){.sub = m->sub,
						     .n_active = (uint32_t)m->active.n,
						     .n_delayed = (uint32_t)m->delayed.n,
						     .at = x->pool_n,
						     .t = m->t,
						     .w = m->w};
	snapshot_put(x->pool + x->pool_n, &m->active);
	snapshot_put(x->pool + x->pool_n + m->active.n, &m->delayed);
	x->pool_n += n;
}

/* Every event gets its own instant on the tape, in the order the run
 * processes it: events of one simulated instant (closer than ecp/tie.h's bound)
 * become consecutive tape instants a zero gap apart, marked tied.  running
 * is the count of segments running just before the event, the segments the
 * events before it started included: the linear piece of the run where the
 * events keep this order (ecp/adjoint.h checks, per segment, that they do). */
static void tape_event(struct sim *m, uint32_t seg, bool by_delay, bool tied)
{
	struct ecp_prun_tape *tp = m->tape;
	if (!tp)
		return;
	uint32_t k = ++m->sub;
	tp->root[k] = seg;
	tp->flags[k] = (by_delay ? ECP_TAPE_DELAY : 0) | (tied ? ECP_TAPE_TIED : 0);
	tp->running[k] = m->running;
}

static void satisfy(struct sim *m, uint32_t s)
{
	if (m->tape) {
		if (m->need[s] & NEED_TOUCHED) {
			m->need[s] |= NEED_JOINED;
		} else if (grow((void **)&m->touched, &m->touched_cap, m->n_touched + 1,
				sizeof(*m->touched))) {
			m->need[s] |= NEED_TOUCHED;
			m->touched[m->n_touched++] = s;
		} else {
			m->touched_lost = true;
		}
	}
	if ((--m->need[s] & NEED_COUNT) == 0)
		m->ready[m->n_ready++] = s;
}

/* A new instant: no input was satisfied at it yet. */
static void untouch(struct sim *m)
{
	for (size_t i = 0; i < m->n_touched; i++)
		m->need[m->touched[i]] &= ~NEED_TOUCHED;
	m->n_touched = 0;
}

/* A segment's idle charge: c, the charge when it ends, less `from`, the
 * charge when it started (as a double, as it was kept). */
static void idle_close(struct sim *m, uint32_t seg, uint64_t length, long double c,
		       double from)
{
	m->seg_idle[seg] = length ? (double)(c - (long double)from) : 0.0;
}

static bool multi(const struct sim *m, uint32_t s)
{
	return m->units->end[s] - m->units->first[s] > 1;
}

/* A slot for a segment starting now (NONE when out of memory). */
static uint32_t idle_start(struct sim *m)
{
	uint32_t slot;
	if (m->n_free) {
		slot = m->free_slots[--m->n_free];
	} else if (grow((void **)&m->slots, &m->slots_cap, m->n_slots + 1,
			sizeof(*m->slots)) &&
		   grow((void **)&m->free_slots, &m->free_cap, m->n_slots + 1,
			sizeof(*m->free_slots))) {
		slot = (uint32_t)m->n_slots++;
	} else {
		m->slots_lost = true;
		return NONE;
	}
	m->slots[slot] =
	    (struct slot){.charge = (double)m->charge, .started = m->instant};
	return slot;
}

/* Unit s ends now, started as `slot` says (NONE: it takes no time, and
 * started now): each of its segments hands over to the next where the work
 * clock has run the segment's length since the unit started; the charge
 * there is interpolated between the instants around it. */
static void idle_end(struct sim *m, uint32_t s, uint32_t slot)
{
	struct slot from = {.charge = (double)m->charge, .started = m->instant};
	if (slot != NONE) {
		from = m->slots[slot];
		m->free_slots[m->n_free++] = slot;
	}
	uint32_t seg = m->units ? m->units->first[s] : s;
	if (!m->units || !multi(m, s)) {
		/* the unit's length is its one segment's */
		idle_close(m, seg, m->dag->length[s], m->charge, from.charge);
		return;
	}
	uint32_t last = m->units->end[s] - 1;
	const struct hist *h = m->hist;
	size_t k = from.started - m->hist_base, now = m->instant - m->hist_base;
	long double w = h[k].w;
	double prev = from.charge;
	/* No interval since the unit started charged idleness: every instant
	 * from its start to now has the start's charge and rate 0, so any
	 * instant before a hand-over gives the charge the search would, and
	 * only whether it comes after now's clock matters (without the
	 * search: most units, while P or more run) */
	bool quiet = m->last_rated <= from.started;
	for (; seg < last; seg++) {
		uint64_t length = m->units->length[seg];
		w += (long double)length;
		/* the last instant before the hand-over: clocks increase,
		 * and a branch-free search (its way is unpredictable) */
		double wd = (double)w;
		if (k < now && quiet) {
			k = h[now].w < wd ? now : k;
		} else if (k < now) {
			const struct hist *base = h + k + 1;
			size_t n = now - k;
			while (n > 1) {
				size_t half = n / 2;
				base = base[half].w < wd ? base + half : base;
				n -= half;
			}
			k = (size_t)(base - h) - (base->w >= wd);
		}
		long double c =
		    k == now
			? m->charge
			: h[k].charge + (w - h[k].w > 0 ? w - h[k].w : 0) * h[k + 1].rate;
		idle_close(m, seg, length, c, prev);
		prev = (double)c;
	}
	idle_close(m, last, m->units->length[last], m->charge, prev);
}

/* Keeps only the instants since the oldest running unit of several
 * segments started, then makes room for one more. */
static bool hist_room(struct sim *m)
{
	uint32_t keep = m->instant;
	for (size_t i = 0; i < m->active.n; i++) {
		const struct heap_item *it = &m->active.a[i];
		if (it->aux == NONE) /* out of slots: the run fails */
			continue;
		uint32_t started = m->slots[it->aux].started;
		if (multi(m, it->seg) && started < keep)
			keep = started;
	}
	size_t drop = keep - m->hist_base;
	memmove(m->hist, m->hist + drop, (m->hist_n - drop) * sizeof(*m->hist));
	m->hist_n -= drop;
	m->hist_base = keep;
	if (m->hist_n * 2 > m->hist_cap &&
	    !grow((void **)&m->hist, &m->hist_cap, m->hist_cap + 1, sizeof(*m->hist)))
		return false;
	return true;
}

static void hist_record(struct sim *m, long double rate)
{
	if (m->hist_n == m->hist_cap && !hist_room(m)) {
		m->hist_lost = true;
		m->units = NULL; /* no more splits: the run fails */
		return;
	}
	m->hist[m->hist_n++] = (struct hist){
	    .w = (double)m->w, .charge = (double)m->charge, .rate = (double)rate};
	if (rate != 0)
		m->last_rated = m->instant;
}

/* slot: its idle slot (with seg_idle; NONE for one that takes no time) */
static void end_segment(struct sim *m, uint32_t s, uint32_t slot)
{
	const struct ecp_dag *dag = m->dag;
	if (m->end_instant) {
		m->end_instant[s] = m->instant;
		m->run->node_time[2 * s + 1] = (double)m->t;
		m->run->node_work[2 * s + 1] = (double)m->w;
	}
	if (m->seg_idle)
		idle_end(m, s, slot);
	if (m->tape)
		m->tape->end_instant[s] = m->sub;
	uint32_t nx = m->succ->next[s];
	if (nx != ECP_NO_ID) {
		if (dag->delay[nx] > 0) {
			heap_push(&m->delayed,
				  qtime_of(m->t + (long double)dag->delay[nx]), nx);
		} else {
			if (m->pred_instant)
				m->pred_instant[nx] = m->instant;
			satisfy(m, nx);
		}
	}
	for (uint32_t i = m->succ->out_offset[s]; i < m->succ->out_offset[s + 1]; i++)
		satisfy(m, m->succ->out_to[i]);
}

static void start_ready(struct sim *m)
{
	while (m->n_ready) {
		uint32_t s = m->ready[--m->n_ready];
		if (m->start_instant) {
			m->start_instant[s] = m->instant;
			m->run->node_time[2 * s] = (double)m->t;
			m->run->node_work[2 * s] = (double)m->w;
		}
		if (m->tape) {
			m->tape->start_instant[s] = m->sub;
			/* released by two events at once: it starts with the
			 * later, whichever order a shortening gives them */
			if (m->need[s] & NEED_JOINED)
				m->tape->flags[m->sub] |= ECP_TAPE_JOIN;
		}
		if (m->dag->length[s] == 0) {
			end_segment(m, s, NONE);
		} else {
			uint32_t slot = 0;
			if (m->seg_idle) {
				slot = idle_start(m);
				/* its end writes its segments' charges (and reads
				 * their lengths) at a place of its own in arrays
				 * by segment: fetched now, they are in cache then */
				uint32_t first = m->units ? m->units->first[s] : s;
				__builtin_prefetch(&m->seg_idle[first], 1);
				if (m->units)
					__builtin_prefetch(&m->units->length[first]);
			}
			/* and where it releases its successors */
			uint32_t nx = m->succ->next[s];
			if (nx != ECP_NO_ID) {
				__builtin_prefetch(&m->need[nx], 1);
				__builtin_prefetch(&m->dag->delay[nx]);
			}
			__builtin_prefetch(&m->succ->out_to[m->succ->out_offset[s]]);
			heap_push_aux(&m->active,
				      qtime_of(m->w + (long double)m->dag->length[s]), s,
				      slot);
			m->running++;
		}
	}
}

static long double factor(uint32_t n, unsigned processors)
{
	if (!processors || n <= processors)
		return 1.0L;
	return (long double)n / processors;
}

/* The idle charge's growth per unit of time while n < P segments run. */
static long double charge_rate(uint32_t n, unsigned processors)
{
	return processors && n && n < processors ? (long double)processors / n - 1.0L
						 : 0.0L;
}

/* Both per running count, computed once per run: a long double division on
 * every instant was the loop's longest step.  The same expressions, so the
 * run is the same to the bit. */
static bool shares_init(struct sim *m, unsigned processors)
{
	uint32_t S = m->dag->n_segments;
	m->n_shares = (S < SHARES_MAX ? S : SHARES_MAX) + 1;
	m->shares = malloc(m->n_shares * sizeof(*m->shares));
	if (!m->shares)
		return false;
	for (uint32_t n = 0; n < m->n_shares; n++)
		m->shares[n] =
		    (struct share){factor(n, processors), charge_rate(n, processors)};
	return true;
}

static inline struct share share_of(const struct sim *m, uint32_t n, unsigned processors)
{
	if (n < m->n_shares)
		return m->shares[n];
	return (struct share){factor(n, processors), charge_rate(n, processors)};
}

static int run_events(struct sim *m, unsigned processors, struct ecp_error *err)
{
	uint32_t S = m->dag->n_segments;
	for (;;) {
		start_ready(m);
		if (m->snaps)
			snapshot_take(m);
		if (!m->active.n && !m->delayed.n)
			break;
		long double ta = INFINITY, td = INFINITY, top = 0;
		struct share sh = share_of(m, m->running, processors);
		if (m->active.n) {
			top = qtime_value(m->active.a[0].key);
			ta = m->t + (top - m->w) * sh.factor;
		}
		if (m->delayed.n)
			td = qtime_value(m->delayed.a[0].key);
		long double tn = ta < td ? ta : td;
		long double dt = tn - m->t;
		if (dt < 0)
			dt = 0;
		/* Tallent's idleness: processors idle while n < P segments run,
		 * each charged (P - n) / n of the interval. */
		long double rate = sh.rate;
		if (processors && m->running < processors) {
			m->run->idle += dt * (processors - m->running);
			if (m->running)
				m->charge += dt * rate;
		}
		if (ta <= td) /* exact: the event that defines the instant */
			m->w = top;
		else
			m->w += m->running ? dt / sh.factor : dt;
		m->t = tn;
		m->instant++;
		if (m->tape)
			untouch(m);
		/* ecp/tie.h: one instant is the rounding allowance on either
		 * clock, not a share of how long the run has lasted */
		long double tolw = ecp_tie_bound(m->w), tolt = ecp_tie_bound(m->t);
		if (m->units)
			hist_record(m, rate);
		/* One event at a time, each starting what it releases before the
		 * next: the tape's order (segment ends first, as before). */
		unsigned events = 0;
		for (;; events++) {
			if (m->active.n &&
			    qtime_value(m->active.a[0].key) <= m->w + tolw) {
				struct heap_item it = heap_pop(&m->active);
				tape_event(m, it.seg, false, events > 0);
				m->running--;
				end_segment(m, it.seg, it.aux);
			} else if (m->delayed.n &&
				   qtime_value(m->delayed.a[0].key) <= m->t + tolt) {
				struct heap_item it = heap_pop(&m->delayed);
				tape_event(m, it.seg, true, events > 0);
				if (m->pred_instant)
					m->pred_instant[it.seg] = m->instant;
				satisfy(m, it.seg);
			} else {
				break;
			}
			start_ready(m);
		}
		if (m->tape && !events)
			m->tape->barrier = m->sub; /* nothing to follow: not linear */
	}
	for (uint32_t s = 0; s < S; s++)
		if (m->need[s] & NEED_COUNT)
			return ecp_error_set(err, ECP_ERR,
					     "P-run deadlocked: segment %u never became "
					     "runnable (cyclic DAG?)",
					     s);
	return 0;
}

/* Every instant after the first has an event: a segment's end or a delay's
 * expiry, at most one of each per segment. */
uint64_t ecp_prun_max_instants(const struct ecp_dag *dag)
{
	uint64_t n = 1;
	for (uint32_t s = 0; s < dag->n_segments; s++)
		n += 1 + (dag->delay[s] > 0);
	return n;
}

/* cap: ecp_prun_max_instants(dag) */
static int tape_init(struct sim *m, const struct ecp_dag *dag, size_t cap)
{
	struct ecp_prun_tape *tp = &m->run->tape;
	size_t s1 = dag->n_segments ? dag->n_segments : 1;
	struct ecp_scratch *sc = m->run->scratch;
	m->run->tape_cap = cap;
	/* Every instant from 1 to the last is written as the run makes it
	 * (tape_event); instant 0 is the start, made by no event. */
	tp->root = ecp_scratch_take(sc, cap * sizeof(uint32_t));
	tp->flags = ecp_scratch_take(sc, cap);
	tp->running = ecp_scratch_take(sc, cap * sizeof(uint32_t));
	tp->start_instant = ecp_scratch_take(sc, s1 * sizeof(uint32_t));
	tp->end_instant = ecp_scratch_take(sc, s1 * sizeof(uint32_t));
	tp->barrier = UINT32_MAX;
	m->tape = tp;
	if (!tp->root || !tp->flags || !tp->running || !tp->start_instant ||
	    !tp->end_instant)
		return -1;
	tp->root[0] = tp->running[0] = 0;
	tp->flags[0] = 0;
	return 0;
}

/* The plan's input: both clocks of every node, and which edges released
 * their segment (ecp/plan.h). */
static int plan_input_init(struct sim *m, size_t s1, uint32_t n_in)
{
	struct ecp_prun *run = m->run;
	run->node_time = malloc(2 * s1 * sizeof(double));
	run->node_work = malloc(2 * s1 * sizeof(double));
	run->pred_tight = calloc(s1, 1);
	run->in_tight = calloc(n_in ? n_in : 1, 1);
	m->start_instant = malloc(s1 * sizeof(uint32_t));
	m->end_instant = malloc(s1 * sizeof(uint32_t));
	m->pred_instant = malloc(s1 * sizeof(uint32_t));
	if (!run->node_time || !run->node_work || !run->pred_tight || !run->in_tight ||
	    !m->start_instant || !m->end_instant || !m->pred_instant)
		return -1;
	for (size_t s = 0; s < s1; s++)
		m->start_instant[s] = m->end_instant[s] = m->pred_instant[s] = NONE;
	return 0;
}

static void plan_input_finish(struct sim *m)
{
	const struct ecp_dag *dag = m->dag;
	struct ecp_prun *run = m->run;
	for (uint32_t s = 0; s < dag->n_segments; s++) {
		run->pred_tight[s] = dag->pred[s] != ECP_NO_ID &&
				     m->pred_instant[s] == m->start_instant[s];
		for (uint32_t e = dag->in_offset[s]; e < dag->in_offset[s + 1]; e++)
			run->in_tight[e] =
			    m->end_instant[dag->in_from[e]] == m->start_instant[s];
	}
}

int ecp_prun_simulate(const struct ecp_dag *dag, const struct ecp_dag_succ *succ,
		      unsigned processors, unsigned what, double *seg_idle,
		      const struct ecp_prun_units *units, struct ecp_scratch *scratch,
		      const struct ecp_engine_options *opts, struct ecp_prun *run,
		      struct ecp_error *err)
{
	memset(run, 0, sizeof(*run));
	uint32_t S = dag->n_segments;
	size_t s1 = S ? S : 1;
	run->scratch = scratch;
	run->n_seg = s1;
	struct sim m = {.dag = dag, .run = run, .succ = succ, .seg_idle = seg_idle};
	const size_t snapshot_budget = opts->snapshot_items;
	const size_t hist_start = opts->unit_instants;
	if (seg_idle && units) {
		m.units = units;
		m.hist_cap = hist_start;
		m.hist = malloc(m.hist_cap * sizeof(*m.hist));
		if (m.hist)
			m.hist[m.hist_n++] = (struct hist){0}; /* instant 0 */
	}
	/* the tape's length, an O(S) count: once */
	uint64_t max_instants = (what & ECP_PRUN_TAPE) ? ecp_prun_max_instants(dag) : 0;
	if ((what & ECP_PRUN_SNAPSHOTS) && (what & ECP_PRUN_TAPE)) {
		m.snaps = &run->snaps;
		m.snaps->pool_budget = snapshot_budget;
		/* A snapshot holds at least one record: no more than the
		 * budget's count of them will be kept, so none are taken closer
		 * than that (fewer copies, and fewer thinned away). */
		m.snaps->every = 1;
		while (max_instants / m.snaps->every > snapshot_budget)
			m.snaps->every *= 2;
		/* The pool reaches its budget on any long run: taken at once, on
		 * huge pages (growing it a page fault at a time cost more than
		 * filling it) */
		uint64_t items = 64 * (max_instants / m.snaps->every + 1);
		m.snaps->pool_cap =
		    items < snapshot_budget ? (size_t)items : snapshot_budget;
		m.snaps->pool =
		    ecp_scratch_take(scratch, m.snaps->pool_cap * sizeof(*m.snaps->pool));
		if (!m.snaps->pool)
			m.snaps->pool_cap = 0;
	}
	/* the heaps and the ready list are as large as they could get; only
	 * what a run reaches (about its threads) is ever touched */
	m.need = ecp_scratch_take(scratch, s1 * sizeof(uint32_t));
	m.ready = ecp_huge_malloc(s1 * sizeof(uint32_t));
	bool shares_ok = shares_init(&m, processors);
	m.active.a = malloc(s1 * sizeof(struct heap_item));
	m.delayed.a = malloc(s1 * sizeof(struct heap_item));
	int rc = 0;
	if (!m.need || !m.ready || !m.active.a || !m.delayed.a || !shares_ok ||
	    (m.units && !m.hist) ||
	    ((what & ECP_PRUN_PLAN_INPUT) && plan_input_init(&m, s1, dag->n_in) < 0) ||
	    ((what & ECP_PRUN_TAPE) && tape_init(&m, dag, max_instants) < 0)) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory (P-run of %u segments)", S);
		goto out;
	}
	memcpy(m.need, succ->init_remaining, s1 * sizeof(uint32_t));
	for (uint32_t s = 0; s < S; s++) {
		if (m.need[s] > NEED_COUNT) {
			rc = ecp_error_set(err, ECP_ERR,
					   "segment %u waits for %u inputs (at most %u)",
					   s, m.need[s], NEED_COUNT);
			goto out;
		}
		if (!m.need[s])
			m.ready[m.n_ready++] = s;
	}
	rc = run_events(&m, processors, err);
	if (rc >= 0 && (m.touched_lost || m.hist_lost || m.slots_lost))
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory (P-run of %u segments)", S);
	if (rc < 0)
		goto out;
	if (what & ECP_PRUN_PLAN_INPUT)
		plan_input_finish(&m);
	run->makespan = m.t;
	if (m.tape)
		m.tape->n_instants = m.sub + 1;
out:
	ecp_scratch_give(scratch, m.need, s1 * sizeof(uint32_t));
	free(m.shares);
	free(m.start_instant);
	free(m.end_instant);
	free(m.pred_instant);
	free(m.touched);
	free(m.ready);
	free(m.active.a);
	free(m.delayed.a);
	free(m.slots);
	free(m.free_slots);
	free(m.hist);
	if (rc < 0)
		ecp_prun_finish(run);
	return rc;
}

size_t ecp_prun_snapshot_at_or_after(const struct ecp_prun_snapshots *x, uint32_t k)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->snap[mid].sub < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void ecp_prun_free_tape_instants(struct ecp_prun *run)
{
	struct ecp_scratch *sc = run->scratch;
	size_t cap = run->tape_cap;
	ecp_scratch_give(sc, run->tape.root, cap * sizeof(uint32_t));
	ecp_scratch_give(sc, run->tape.flags, cap);
	ecp_scratch_give(sc, run->tape.running, cap * sizeof(uint32_t));
	run->tape.root = run->tape.running = NULL;
	run->tape.flags = NULL;
}

void ecp_prun_finish(struct ecp_prun *run)
{
	if (!run)
		return;
	free(run->node_time);
	free(run->node_work);
	free(run->pred_tight);
	free(run->in_tight);
	ecp_prun_free_tape_instants(run);
	struct ecp_scratch *sc = run->scratch;
	ecp_scratch_give(sc, run->tape.start_instant, run->n_seg * sizeof(uint32_t));
	ecp_scratch_give(sc, run->tape.end_instant, run->n_seg * sizeof(uint32_t));
	free(run->snaps.snap);
	ecp_scratch_give(sc, run->snaps.pool,
			 run->snaps.pool_cap * sizeof(*run->snaps.pool));
	memset(run, 0, sizeof(*run));
}
