/* SPDX-License-Identifier: MIT */
#include "ecp/tangent.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/event-heap.h"
#include "ecp/tie.h"
#include "simulator/model/dag-succ.h"

/* a + b * eps */
struct sym {
	long double a, b;
};

/* Times within ecp/tie.h's bound are one instant, as in the P-run simulation
 * (ecp/prun.c) whose instants the closed form uses: both must see the same
 * ties, at every time scale.  The eps parts are derivatives (sums of shares,
 * of the order of the segments' count at most), not clocks: their relative
 * bound does not grow with the run's length. */
static int sym_cmp(struct sym x, struct sym y)
{
	long double da = x.a - y.a;
	if (!ecp_same_instant(x.a, y.a))
		return da < 0 ? -1 : 1;
	long double db = x.b - y.b;
	if (fabsl(db) > 1e-9L * (1.0L + fabsl(x.b) + fabsl(y.b)))
		return db < 0 ? -1 : 1;
	return 0;
}

static struct sym sym_add(struct sym x, struct sym y)
{
	return (struct sym){x.a + y.a, x.b + y.b};
}

static struct sym sym_sub(struct sym x, struct sym y)
{
	return (struct sym){x.a - y.a, x.b - y.b};
}

static struct sym sym_scale(struct sym x, long double k)
{
	return (struct sym){x.a * k, x.b * k};
}

ECP_EVENT_HEAP(heap, struct sym, sym_cmp)

struct ecp_tangent {
	const struct ecp_dag *dag;
	const struct ecp_dag_succ *succ;
	unsigned processors;
	/* the unperturbed run: where each segment started and ended on its
	 * tape, and its snapshots (ecp/prun.h) */
	const struct ecp_prun_tape *tape;
	const struct ecp_prun_snapshots *snaps;
	uint32_t *roots; /* segments that wait for nothing, ready at time 0 */
	uint32_t n_roots;
	uint32_t *ready;
	size_t n_ready;
	struct heap active;  /* keyed by the work clock at which each ends */
	struct heap delayed; /* keyed by the real time at which each wakes */
	uint32_t shortened;
	bool shortened_started;
	struct sym t, w;
	uint64_t events; /* instants processed by re-simulations, the cost */
	uint64_t limit;  /* where the current re-simulation gives up */
	bool over_limit;

	/* Inputs each segment still waits for: need[s] is valid only when
	 * stamp[s] == epoch; otherwise it is what the unperturbed run had
	 * delivered by the starting snapshot (need_at_start). */
	uint32_t *need;
	uint32_t *stamp, epoch;
	int64_t from; /* the starting snapshot's tape instant; -1: time 0 */

	/* Ending at a snapshot by the reverse pass (NULL: not given): the
	 * events processed since the start (at tape instant `from`, or 0), and
	 * the first snapshot not yet passed. */
	const double *pass;
	const struct ecp_adjoint_sync *sync;
	struct ecp_scratch *scratch; /* where need, stamp and ready go back */
	uint64_t done;
	size_t next_snap;
	uint64_t synced;
};

int ecp_tangent_create(const struct ecp_dag *dag, const struct ecp_dag_succ *succ,
		       unsigned processors, const struct ecp_prun *unperturbed,
		       const double *pass, const struct ecp_adjoint_sync *sync,
		       struct ecp_scratch *scratch, struct ecp_tangent **tangent,
		       struct ecp_error *err)
{
	*tangent = NULL;
	uint32_t S = dag->n_segments;
	size_t s1 = S ? S : 1;
	struct ecp_tangent *g = calloc(1, sizeof(*g));
	if (!g)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (tangent)");
	g->dag = dag;
	g->scratch = scratch;
	g->succ = succ;
	g->processors = processors;
	g->tape = &unperturbed->tape;
	g->snaps = &unperturbed->snaps;
	if (pass && sync && sync->carry) {
		g->pass = pass;
		g->sync = sync;
	}
	g->need = ecp_scratch_take(scratch, s1 * sizeof(uint32_t));
	g->stamp = ecp_scratch_take_zeroed(scratch, s1, sizeof(uint32_t));
	g->ready = ecp_scratch_take(scratch, s1 * sizeof(uint32_t));
	g->active.a = malloc(s1 * sizeof(struct heap_item));
	g->delayed.a = malloc(s1 * sizeof(struct heap_item));
	uint32_t n_roots = 0;
	for (uint32_t s = 0; s < S; s++)
		n_roots += succ->init_remaining[s] == 0;
	g->roots = malloc((n_roots ? n_roots : 1) * sizeof(uint32_t));
	if (!g->need || !g->stamp || !g->ready || !g->active.a || !g->delayed.a ||
	    !g->roots) {
		ecp_tangent_destroy(g);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (tangent, %u segments)", S);
	}
	for (uint32_t s = 0; s < S; s++)
		if (succ->init_remaining[s] == 0)
			g->roots[g->n_roots++] = s;
	*tangent = g;
	return 0;
}

void ecp_tangent_destroy(struct ecp_tangent *g)
{
	if (!g)
		return;
	size_t bytes = (g->dag->n_segments ? g->dag->n_segments : 1) * sizeof(uint32_t);
	free(g->roots);
	/* need goes back for the next P-run's simulation, which takes one
	 * such array; kept, the other two would lie idle through it, when the
	 * run holds the most memory */
	ecp_scratch_give(g->scratch, g->need, bytes);
	free(g->stamp);
	free(g->ready);
	free(g->active.a);
	free(g->delayed.a);
	free(g);
}

uint64_t ecp_tangent_events(const struct ecp_tangent *g)
{
	return g->events;
}

uint64_t ecp_tangent_synced(const struct ecp_tangent *g)
{
	return g->synced;
}

/* What the unperturbed run's segment s still waited for at the starting
 * snapshot: the inputs whose source had not ended by then.  A thread edge
 * with a delay still pending is the caller's (restore() stamps those). */
static uint32_t need_at_start(const struct ecp_tangent *g, uint32_t s)
{
	uint32_t n = g->succ->init_remaining[s];
	if (g->from < 0)
		return n;
	const struct ecp_dag *dag = g->dag;
	const uint32_t *end = g->tape->end_instant;
	ecp_id p = dag->pred[s];
	if (p != ECP_NO_ID && end[p] <= g->from)
		n--;
	for (uint32_t e = dag->in_offset[s]; e < dag->in_offset[s + 1]; e++)
		if (end[dag->in_from[e]] <= g->from)
			n--;
	return n;
}

static void satisfy(struct ecp_tangent *g, uint32_t s)
{
	if (g->stamp[s] != g->epoch) {
		g->stamp[s] = g->epoch;
		g->need[s] = need_at_start(g, s);
	}
	if (--g->need[s] == 0)
		g->ready[g->n_ready++] = s;
}

static void finish(struct ecp_tangent *g, uint32_t s)
{
	const struct ecp_dag *dag = g->dag;
	uint32_t nx = g->succ->next[s];
	if (nx != ECP_NO_ID) {
		if (dag->delay[nx] > 0)
			heap_push(
			    &g->delayed,
			    sym_add(g->t, (struct sym){(long double)dag->delay[nx], 0}),
			    nx);
		else
			satisfy(g, nx);
	}
	for (uint32_t i = g->succ->out_offset[s]; i < g->succ->out_offset[s + 1]; i++)
		satisfy(g, g->succ->out_to[i]);
}

/* Starts what became ready at the current instant; a segment that takes no
 * time (length 0, not the shortened one) ends at once, which can make more
 * ready. */
static void start_ready(struct ecp_tangent *g)
{
	while (g->n_ready) {
		uint32_t s = g->ready[--g->n_ready];
		if (s == g->shortened)
			g->shortened_started = true;
		struct sym len = {(long double)g->dag->length[s],
				  s == g->shortened ? -1.0L : 0.0L};
		if (sym_cmp(len, (struct sym){0, 0}) <= 0)
			finish(g, s);
		else
			heap_push(&g->active, sym_add(g->w, len), s);
	}
}

/* P * F(n) / P: the real time one unit of the work clock takes. */
static long double slowdown(size_t n, unsigned processors)
{
	if (!processors || n <= processors)
		return 1.0L;
	return (long double)n / processors;
}

/* From here on the run is the unperturbed one shifted by t.b in real time:
 * every running segment has its unperturbed remaining work and every sleeper
 * wakes t.b later than unperturbed.  Then T_P moves by t.b, and the rest need
 * not be simulated. */
static bool settled(const struct ecp_tangent *g)
{
	if (!g->shortened_started)
		return false;
	for (size_t i = 0; i < g->active.n; i++)
		if (sym_cmp((struct sym){0, g->active.a[i].key.b},
			    (struct sym){0, g->w.b}))
			return false;
	for (size_t i = 0; i < g->delayed.n; i++)
		if (sym_cmp((struct sym){0, g->delayed.a[i].key.b},
			    (struct sym){0, g->t.b}))
			return false;
	return true;
}

/* Same instant as in sym_cmp. */
static bool same_time(long double x, long double y)
{
	return ecp_same_instant(x, y);
}

/* When the events processed so far are the tape's up to a safe snapshot
 * (ecp/adjoint.h), the run from there is the tape's linear piece, and the
 * makespan's eps coefficient is the snapshot's adjoints times the state's
 * eps parts: the clocks', every running segment's end (adjoint: its pass
 * weight), every pending delay's wake.  The state must be the snapshot's:
 * the same counts, every running segment running there on the tape, every
 * delay pending there. */
static bool synced(struct ecp_tangent *g, long double *b)
{
	const struct ecp_prun_snapshots *x = g->snaps;
	uint64_t at = (g->from < 0 ? 0 : (uint64_t)g->from) + g->done;
	while (g->next_snap < x->n && x->snap[g->next_snap].sub < at)
		g->next_snap++;
	if (g->next_snap == x->n || x->snap[g->next_snap].sub != at ||
	    !g->sync->safe[g->next_snap])
		return false;
	const struct ecp_prun_snapshot *p = &x->snap[g->next_snap];
	/* the instant is over: nothing queued is due at it */
	if ((g->active.n && same_time(g->active.a[0].key.a, g->w.a)) ||
	    (g->delayed.n && same_time(g->delayed.a[0].key.a, g->t.a)))
		return false;
	if (g->active.n != p->n_active || g->delayed.n != p->n_delayed)
		return false;
	const double *carry = g->sync->carry + 2 * g->next_snap;
	long double sum = carry[0] * g->t.b + carry[1] * g->w.b;
	for (size_t i = 0; i < g->active.n; i++) {
		uint32_t y = g->active.a[i].seg;
		if (g->tape->start_instant[y] > at || g->tape->end_instant[y] <= at)
			return false;
		sum += g->pass[y] * g->active.a[i].key.b;
	}
	const struct ecp_prun_queued *q = x->pool + p->at + p->n_active;
	const double *wake = g->sync->wake + p->at + p->n_active;
	for (size_t i = 0; i < g->delayed.n; i++) {
		uint32_t z = g->delayed.a[i].seg;
		size_t o = 0;
		while (o < p->n_delayed && q[o].seg != z)
			o++;
		if (o == p->n_delayed || isnan(wake[o]))
			return false;
		sum += wake[o] * g->delayed.a[i].key.b;
	}
	g->synced++;
	*b = sum;
	return true;
}

/* The state before anything started. */
static void start_fresh(struct ecp_tangent *g)
{
	g->active.n = g->delayed.n = 0;
	memcpy(g->ready, g->roots, g->n_roots * sizeof(uint32_t));
	g->n_ready = g->n_roots;
	g->t = g->w = (struct sym){0, 0};
	g->from = -1;
}

static void restore(struct ecp_tangent *g, const struct ecp_prun_snapshot *x)
{
	const struct ecp_prun_queued *q = g->snaps->pool + x->at;
	for (uint32_t i = 0; i < x->n_active; i++)
		g->active.a[i] =
		    (struct heap_item){.key = {q[i].key, 0}, .seg = q[i].seg};
	q += x->n_active;
	g->from = x->sub;
	for (uint32_t i = 0; i < x->n_delayed; i++) {
		uint32_t s = q[i].seg;
		g->delayed.a[i] = (struct heap_item){.key = {q[i].key, 0}, .seg = s};
		/* its predecessor has ended, its delay has not */
		g->need[s] = need_at_start(g, s) + 1;
		g->stamp[s] = g->epoch;
	}
	g->active.n = x->n_active;
	g->delayed.n = x->n_delayed;
	g->n_ready = 0;
	g->t = (struct sym){x->t, 0};
	g->w = (struct sym){x->w, 0};
}

/* Runs from the current state until the rest is the unperturbed run
 * shifted in time, or to the end; returns the makespan's eps coefficient. */
static long double run(struct ecp_tangent *g)
{
	g->over_limit = false;
	for (;;) {
		start_ready(g);
		if (!g->active.n && !g->delayed.n)
			break;
		/* Checked every few instants only: the check scans every
		 * queued segment, and going on past the instant the run
		 * settled changes nothing (a shift stays a shift). */
		if ((g->events & 7) == 0 && settled(g))
			break;
		long double b;
		if (g->sync && g->shortened_started && synced(g, &b))
			return b;
		long double f = slowdown(g->active.n, g->processors);
		struct sym next;
		bool by_end = false;
		if (g->active.n) {
			next = sym_add(g->t,
				       sym_scale(sym_sub(g->active.a[0].key, g->w), f));
			by_end = true;
		}
		if (g->delayed.n && (!by_end || sym_cmp(g->delayed.a[0].key, next) < 0)) {
			next = g->delayed.a[0].key;
			by_end = false;
		}
		/* The work clock at the instant: taken from the event that defines
		 * it when a segment ends, so that equal ends stay equal. */
		if (by_end)
			g->w = g->active.a[0].key;
		else
			g->w = sym_add(g->w, sym_scale(sym_sub(next, g->t), 1.0L / f));
		g->t = next;
		if (++g->events > g->limit) {
			g->over_limit = true;
			break;
		}
		while (g->active.n && sym_cmp(g->active.a[0].key, g->w) <= 0) {
			finish(g, heap_pop(&g->active).seg);
			g->done++;
		}
		while (g->delayed.n && sym_cmp(g->delayed.a[0].key, g->t) <= 0) {
			satisfy(g, heap_pop(&g->delayed).seg);
			g->done++;
		}
	}
	return g->t.b;
}

bool ecp_tangent_weight(struct ecp_tangent *g, uint32_t segment, uint64_t max_events,
			double *weight)
{
	const struct ecp_dag *dag = g->dag;
	*weight = 0.0;
	if (segment >= dag->n_segments || dag->length[segment] == 0)
		return true;
	/* A new epoch: every need[] is the starting state's until touched. */
	if (++g->epoch == 0) {
		memset(g->stamp, 0, (size_t)dag->n_segments * sizeof(uint32_t));
		g->epoch = 1;
	}
	/* From the last snapshot taken before the segment starts (snapshots
	 * are taken after an instant's starts), or from time 0. */
	size_t lo =
	    ecp_prun_snapshot_at_or_after(g->snaps, g->tape->start_instant[segment]);
	if (lo == 0)
		start_fresh(g);
	else
		restore(g, &g->snaps->snap[lo - 1]);
	g->done = 0;
	g->next_snap = lo;
	g->shortened = segment;
	g->shortened_started = false;
	g->limit = g->events + max_events;
	long double b = run(g);
	if (g->over_limit)
		return false;
	/* eps coefficients that cancel leave rounding noise of the order of
	 * 1e-18; a weight that small is 0 (the segment is off the ECP). */
	long double w = -b;
	*weight = fabsl(w) < 1e-12L ? 0.0 : (double)w;
	return true;
}
