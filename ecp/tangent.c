#include "ecp/tangent.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/event-heap.h"
#include "simulator/dag-succ.h"

/* a + b * eps */
struct sym {
	long double a, b;
};

/* Times within a relative 1e-12 are one instant, as in the P-run simulation
 * (ecp/prun.c) whose instants the closed form uses: both must see the same
 * ties. */
static int sym_cmp(struct sym x, struct sym y)
{
	long double da = x.a - y.a;
	if (fabsl(da) > 1e-12L * (1.0L + fabsl(x.a) + fabsl(y.a)))
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

/* The unperturbed run's state after the starts of one instant: where a
 * re-simulation of a segment that starts later can begin.  Its running and
 * sleeping segments are in the pool (at most one per thread each); the inputs
 * each segment still waited for are not copied but recomputed on first use
 * from the instants at which the unperturbed run delivered them. */
struct snapshot {
	uint64_t instant;
	struct sym t, w;
	size_t pool_at;
	uint32_t n_active, n_delayed;
};

struct ecp_tangent {
	const struct ecp_dag *dag;
	unsigned processors;
	struct ecp_dag_succ succ;
	uint32_t *ready;
	size_t n_ready;
	struct heap active;  /* keyed by the work clock at which each ends */
	struct heap delayed; /* keyed by the real time at which each wakes */
	uint32_t shortened;  /* UINT32_MAX in the unperturbed run */
	bool shortened_started;
	struct sym t, w;
	uint64_t instant;    /* instants since the run began */
	uint64_t events;     /* instants processed by re-simulations, the cost */
	uint64_t limit;      /* where the current re-simulation gives up */
	bool over_limit;

	/* Inputs each segment still waits for.  In a re-simulation need[s] is
	 * valid only when stamp[s] == epoch; otherwise it is the unperturbed
	 * run's count at the starting snapshot (from_instant), which
	 * delivered[] gives: the instants at which the unperturbed run
	 * delivered each input, in order, delivered_at[s] .. [s + 1]. */
	uint32_t *need;
	uint32_t *stamp, epoch;
	uint64_t *delivered_at;
	uint32_t *delivered;
	int64_t from_instant; /* -1: from the beginning */

	/* Snapshots every `every` instants of the unperturbed run; when their
	 * pool outgrows its budget every other one is dropped and `every`
	 * doubles, so they stay evenly spread whatever the run's length. */
	struct snapshot *snaps;
	size_t n_snaps, cap_snaps;
	struct heap_item *pool;
	size_t pool_n, pool_cap, pool_budget;
	uint64_t every;
	bool no_more_snaps; /* out of memory: fewer snapshots, same results */

	uint32_t *start_instant; /* per segment, in the unperturbed run */
};

static void start_fresh(struct ecp_tangent *g);
static long double run(struct ecp_tangent *g, bool unperturbed);

int ecp_tangent_create(const struct ecp_dag *dag, unsigned processors,
		       struct ecp_tangent **tangent, struct ecp_error *err)
{
	*tangent = NULL;
	uint32_t S = dag->n_segments;
	size_t s1 = S ? S : 1;
	struct ecp_tangent *g = calloc(1, sizeof(*g));
	if (!g)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (tangent)");
	g->dag = dag;
	g->processors = processors;
	int rc = ecp_dag_succ_init(&g->succ, dag, err);
	if (rc < 0) {
		free(g);
		return rc;
	}
	g->need = malloc(s1 * sizeof(uint32_t));
	g->stamp = calloc(s1, sizeof(uint32_t));
	g->delivered_at = malloc((s1 + 1) * sizeof(uint64_t));
	g->ready = malloc(s1 * sizeof(uint32_t));
	g->active.a = malloc(s1 * sizeof(struct heap_item));
	g->delayed.a = malloc(s1 * sizeof(struct heap_item));
	g->start_instant = malloc(s1 * sizeof(uint32_t));
	bool ok = g->need && g->stamp && g->delivered_at && g->ready && g->active.a &&
		  g->delayed.a && g->start_instant;
	if (ok) {
		g->delivered_at[0] = 0;
		for (uint32_t s = 0; s < S; s++)
			g->delivered_at[s + 1] = g->delivered_at[s] + g->succ.init_remaining[s];
		g->delivered = malloc((g->delivered_at[S] ? g->delivered_at[S] : 1) *
				      sizeof(uint32_t));
		ok = g->delivered != NULL;
	}
	if (!ok) {
		ecp_tangent_destroy(g);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (tangent, %u segments)", S);
	}
	/* Snapshots may take 16 MB or 8 bytes per segment, whichever is more:
	 * a few hundred instants apart on a 10 M-event run. */
	g->pool_budget = (((size_t)16 << 20) > 8 * s1 ? ((size_t)16 << 20) : 8 * s1) /
			 sizeof(struct heap_item);
	g->every = 1;
	/* The unperturbed run, once: start instants, input deliveries and
	 * snapshots. */
	start_fresh(g);
	g->shortened = UINT32_MAX;
	run(g, true);
	g->epoch = 1;
	*tangent = g;
	return 0;
}

void ecp_tangent_destroy(struct ecp_tangent *g)
{
	if (!g)
		return;
	ecp_dag_succ_finish(&g->succ);
	free(g->snaps);
	free(g->pool);
	free(g->start_instant);
	free(g->need);
	free(g->stamp);
	free(g->delivered_at);
	free(g->delivered);
	free(g->ready);
	free(g->active.a);
	free(g->delayed.a);
	free(g);
}

uint64_t ecp_tangent_events(const struct ecp_tangent *g)
{
	return g->events;
}

/* What the unperturbed run's segment s still waited for after the starts
 * of from_instant. */
static uint32_t need_at_start(const struct ecp_tangent *g, uint32_t s)
{
	uint32_t n = g->succ.init_remaining[s];
	if (g->from_instant < 0)
		return n;
	for (uint64_t i = g->delivered_at[s]; i < g->delivered_at[s + 1]; i++) {
		if ((int64_t)g->delivered[i] > g->from_instant)
			break;
		n--;
	}
	return n;
}

static void satisfy(struct ecp_tangent *g, uint32_t s)
{
	if (g->shortened == UINT32_MAX) {
		uint32_t k = g->succ.init_remaining[s] - g->need[s];
		g->delivered[g->delivered_at[s] + k] = (uint32_t)g->instant;
	} else if (g->stamp[s] != g->epoch) {
		g->stamp[s] = g->epoch;
		g->need[s] = need_at_start(g, s);
	}
	if (--g->need[s] == 0)
		g->ready[g->n_ready++] = s;
}
static void finish(struct ecp_tangent *g, uint32_t s)
{
	const struct ecp_dag *dag = g->dag;
	uint32_t nx = g->succ.next[s];
	if (nx != ECP_NO_ID) {
		if (dag->delay[nx] > 0)
			heap_push(&g->delayed,
				  sym_add(g->t, (struct sym){(long double)dag->delay[nx], 0}),
				  nx);
		else
			satisfy(g, nx);
	}
	for (uint32_t i = g->succ.out_offset[s]; i < g->succ.out_offset[s + 1]; i++)
		satisfy(g, g->succ.out_to[i]);
}

/* Starts what became ready at the current instant; a segment that takes no
 * time (length 0, not the shortened one) ends at once, which can make more
 * ready. */
static void start_ready(struct ecp_tangent *g)
{
	while (g->n_ready) {
		uint32_t s = g->ready[--g->n_ready];
		/* Instants numbered by the unperturbed run: a re-simulation
		 * splits ties into more of them. */
		if (g->shortened == UINT32_MAX)
			g->start_instant[s] = (uint32_t)g->instant;
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
		if (sym_cmp((struct sym){0, g->active.a[i].key.b}, (struct sym){0, g->w.b}))
			return false;
	for (size_t i = 0; i < g->delayed.n; i++)
		if (sym_cmp((struct sym){0, g->delayed.a[i].key.b}, (struct sym){0, g->t.b}))
			return false;
	return true;
}

/* Keeps the snapshots at multiples of 2 * every and doubles every. */
static void snapshots_thin(struct ecp_tangent *g)
{
	uint64_t every = 2 * g->every;
	size_t kept = 0, pool_n = 0;
	for (size_t k = 0; k < g->n_snaps; k++) {
		struct snapshot x = g->snaps[k];
		if (x.instant % every)
			continue;
		size_t n = (size_t)x.n_active + x.n_delayed;
		memmove(g->pool + pool_n, g->pool + x.pool_at, n * sizeof(struct heap_item));
		x.pool_at = pool_n;
		pool_n += n;
		g->snaps[kept++] = x;
	}
	g->n_snaps = kept;
	g->pool_n = pool_n;
	g->every = every;
}

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

static void snapshot_take(struct ecp_tangent *g)
{
	size_t n = g->active.n + g->delayed.n;
	while (g->pool_n + n > g->pool_budget && g->n_snaps > 1) {
		snapshots_thin(g);
		if (g->instant % g->every)
			return;
	}
	size_t cap_items = g->pool_cap;
	if (!grow((void **)&g->snaps, &g->cap_snaps, g->n_snaps + 1, sizeof(*g->snaps)) ||
	    !grow((void **)&g->pool, &cap_items, g->pool_n + n, sizeof(struct heap_item))) {
		g->no_more_snaps = true;
		return;
	}
	g->pool_cap = cap_items;
	struct snapshot *k = &g->snaps[g->n_snaps++];
	*k = (struct snapshot){.instant = g->instant, .t = g->t, .w = g->w,
			       .pool_at = g->pool_n, .n_active = (uint32_t)g->active.n,
			       .n_delayed = (uint32_t)g->delayed.n};
	memcpy(g->pool + g->pool_n, g->active.a, g->active.n * sizeof(struct heap_item));
	memcpy(g->pool + g->pool_n + g->active.n, g->delayed.a,
	       g->delayed.n * sizeof(struct heap_item));
	g->pool_n += n;
}

/* The state before anything started. */
static void start_fresh(struct ecp_tangent *g)
{
	uint32_t S = g->dag->n_segments;
	g->n_ready = g->active.n = g->delayed.n = 0;
	for (uint32_t s = 0; s < S; s++) {
		g->need[s] = g->succ.init_remaining[s];
		if (!g->need[s])
			g->ready[g->n_ready++] = s;
	}
	g->t = g->w = (struct sym){0, 0};
	g->instant = 0;
	g->from_instant = -1;
}

static void snapshot_restore(struct ecp_tangent *g, const struct snapshot *x)
{
	memcpy(g->active.a, g->pool + x->pool_at, x->n_active * sizeof(struct heap_item));
	memcpy(g->delayed.a, g->pool + x->pool_at + x->n_active,
	       x->n_delayed * sizeof(struct heap_item));
	g->active.n = x->n_active;
	g->delayed.n = x->n_delayed;
	g->n_ready = 0;
	g->t = x->t;
	g->w = x->w;
	g->instant = x->instant;
	g->from_instant = (int64_t)x->instant;
}

/* Runs from the current state to the end, or (a re-simulation) until the
 * rest is the unperturbed run shifted in time; returns the makespan's eps
 * coefficient. */
static long double run(struct ecp_tangent *g, bool unperturbed)
{
	g->over_limit = false;
	for (;;) {
		start_ready(g);
		if (unperturbed && !g->no_more_snaps && g->instant % g->every == 0)
			snapshot_take(g);
		if (!g->active.n && !g->delayed.n)
			break;
		if (!unperturbed && settled(g))
			break;
		long double f = slowdown(g->active.n, g->processors);
		struct sym next;
		bool by_end = false;
		if (g->active.n) {
			next = sym_add(g->t, sym_scale(sym_sub(g->active.a[0].key, g->w), f));
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
		g->instant++;
		if (!unperturbed && ++g->events > g->limit) {
			g->over_limit = true;
			break;
		}
		while (g->active.n && sym_cmp(g->active.a[0].key, g->w) <= 0)
			finish(g, heap_pop(&g->active).seg);
		while (g->delayed.n && sym_cmp(g->delayed.a[0].key, g->t) <= 0)
			satisfy(g, heap_pop(&g->delayed).seg);
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
	/* From the last snapshot taken before the segment starts (snapshots
	 * are taken after the instant's starts), or from the beginning. */
	size_t lo = 0, hi = g->n_snaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->snaps[mid].instant < g->start_instant[segment])
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		start_fresh(g);
	else
		snapshot_restore(g, &g->snaps[lo - 1]);
	/* A new epoch: every need[] is the starting state's until touched. */
	if (++g->epoch == 0) {
		memset(g->stamp, 0, (size_t)dag->n_segments * sizeof(uint32_t));
		g->epoch = 1;
	}
	g->shortened = segment;
	g->shortened_started = false;
	g->limit = g->events + max_events;
	long double b = run(g, false);
	if (g->over_limit)
		return false;
	/* eps coefficients that cancel leave rounding noise of the order of
	 * 1e-18; a weight that small is 0 (the segment is off the ECP). */
	long double w = -b;
	*weight = fabsl(w) < 1e-12L ? 0.0 : (double)w;
	return true;
}
