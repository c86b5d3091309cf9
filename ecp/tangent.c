#include "ecp/tangent.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

struct item {
	struct sym key;
	uint32_t seg;
};

struct heap {
	struct item *a;
	size_t n;
};

static void heap_push(struct heap *h, struct sym key, uint32_t seg)
{
	size_t i = h->n++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (sym_cmp(h->a[p].key, key) <= 0)
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = (struct item){.key = key, .seg = seg};
}

static struct item heap_pop(struct heap *h)
{
	struct item top = h->a[0];
	struct item last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && sym_cmp(h->a[c + 1].key, h->a[c].key) < 0)
			c++;
		if (sym_cmp(last.key, h->a[c].key) <= 0)
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
	return top;
}

struct ecp_tangent {
	const struct ecp_dag *dag;
	unsigned processors;
	struct ecp_dag_succ succ;
	uint32_t *need;      /* inputs each segment still waits for */
	uint32_t *ready;
	size_t n_ready;
	struct heap active;  /* keyed by the work clock at which each ends */
	struct heap delayed; /* keyed by the real time at which each wakes */
	uint32_t shortened;
	bool shortened_started;
	struct sym t, w;
	uint64_t instant;    /* instants processed since the run began */
	uint64_t events;     /* instants processed by re-simulations, the cost */
	uint64_t limit;      /* where the current re-simulation gives up */
	bool over_limit;
	/* Undo log of need[] decrements since the snapshot in force. */
	uint32_t *undo;
	size_t n_undo, cap_undo;
	bool undo_overflow; /* too many: restore need[] by copying instead */
	/* Snapshots of the unperturbed run: a re-simulation starts from the
	 * last one before the shortened segment starts (nothing differs
	 * before that). */
	struct snapshot *snaps;
	size_t n_snaps, cap_snaps;
	uint32_t *start_instant; /* per segment, in the unperturbed run */
	size_t current;          /* snapshot whose need[] is in force */
};

struct snapshot {
	uint64_t instant;
	struct sym t, w;
	uint32_t *need;
	struct item *active, *delayed;
	size_t n_active, n_delayed;
};

static void start_fresh(struct ecp_tangent *g);
static long double run(struct ecp_tangent *g, uint64_t snap_every);

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
	g->ready = malloc(s1 * sizeof(uint32_t));
	g->active.a = malloc(s1 * sizeof(struct item));
	g->delayed.a = malloc(s1 * sizeof(struct item));
	g->start_instant = malloc(s1 * sizeof(uint32_t));
	/* Each snapshot holds a copy of need[] (4 bytes per segment): up to 64
	 * of them, within 16 MB or 8 bytes per segment in all, whichever is
	 * more.  The undo log holds what a settled re-simulation typically
	 * touches; a longer one restores need[] by copying instead. */
	size_t by_memory = ((size_t)16 << 20) / (4 * s1);
	if (by_memory < 2)
		by_memory = 2;
	g->cap_snaps = by_memory < 64 ? by_memory : 64;
	g->cap_undo = 4096 + s1 / 16;
	g->undo = malloc(g->cap_undo * sizeof(uint32_t));
	g->snaps = calloc(g->cap_snaps, sizeof(*g->snaps));
	if (!g->need || !g->ready || !g->active.a || !g->delayed.a || !g->start_instant ||
	    !g->undo || !g->snaps) {
		ecp_tangent_destroy(g);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (tangent, %u segments)", S);
	}
	/* The unperturbed run, once: start instants and snapshots.  There are
	 * at most 2 instants per segment (each ends once and wakes at most
	 * once), so one snapshot every 2S / cap_snaps spreads them evenly. */
	start_fresh(g);
	g->shortened = UINT32_MAX;
	uint64_t every = (2 * (uint64_t)s1 + g->cap_snaps - 1) / g->cap_snaps;
	size_t cap_undo = g->cap_undo;
	g->cap_undo = 0; /* no undo log for the unperturbed run */
	run(g, every ? every : 1);
	g->cap_undo = cap_undo;
	g->current = SIZE_MAX; /* need[] is the end state, no snapshot's */
	*tangent = g;
	return 0;
}

void ecp_tangent_destroy(struct ecp_tangent *g)
{
	if (!g)
		return;
	ecp_dag_succ_finish(&g->succ);
	for (size_t k = 0; k < g->n_snaps; k++) {
		free(g->snaps[k].need);
		free(g->snaps[k].active);
		free(g->snaps[k].delayed);
	}
	free(g->snaps);
	free(g->start_instant);
	free(g->undo);
	free(g->need);
	free(g->ready);
	free(g->active.a);
	free(g->delayed.a);
	free(g);
}

static void satisfy(struct ecp_tangent *g, uint32_t s)
{
	if (g->n_undo < g->cap_undo)
		g->undo[g->n_undo++] = s;
	else
		g->undo_overflow = true;
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

/* Takes a snapshot when memory allows; without it re-simulations start
 * from an earlier one, which costs time, not exactness. */
static void snapshot_take(struct ecp_tangent *g)
{
	if (g->n_snaps >= g->cap_snaps)
		return;
	size_t S = g->dag->n_segments;
	struct snapshot *k = &g->snaps[g->n_snaps];
	k->need = malloc((S ? S : 1) * sizeof(uint32_t));
	k->active = malloc((g->active.n ? g->active.n : 1) * sizeof(struct item));
	k->delayed = malloc((g->delayed.n ? g->delayed.n : 1) * sizeof(struct item));
	if (!k->need || !k->active || !k->delayed) {
		free(k->need);
		free(k->active);
		free(k->delayed);
		*k = (struct snapshot){0};
		g->cap_snaps = g->n_snaps;
		return;
	}
	k->instant = g->instant;
	k->t = g->t;
	k->w = g->w;
	memcpy(k->need, g->need, S * sizeof(uint32_t));
	memcpy(k->active, g->active.a, g->active.n * sizeof(struct item));
	memcpy(k->delayed, g->delayed.a, g->delayed.n * sizeof(struct item));
	k->n_active = g->active.n;
	k->n_delayed = g->delayed.n;
	g->n_snaps++;
}

/* The state before anything started. */
static void start_fresh(struct ecp_tangent *g)
{
	uint32_t S = g->dag->n_segments;
	memcpy(g->need, g->succ.init_remaining, (size_t)S * sizeof(uint32_t));
	g->n_ready = g->active.n = g->delayed.n = 0;
	for (uint32_t s = 0; s < S; s++)
		if (!g->need[s])
			g->ready[g->n_ready++] = s;
	g->t = g->w = (struct sym){0, 0};
	g->instant = 0;
	g->n_undo = 0;
	g->undo_overflow = false;
	g->current = SIZE_MAX;
}

/* The state at snapshot k, need[] by undoing the last run's decrements when
 * k is already in force. */
static void snapshot_restore(struct ecp_tangent *g, size_t k)
{
	const struct snapshot *x = &g->snaps[k];
	if (k != g->current || g->undo_overflow) {
		memcpy(g->need, x->need, (size_t)g->dag->n_segments * sizeof(uint32_t));
		g->current = k;
	} else {
		for (size_t i = 0; i < g->n_undo; i++)
			g->need[g->undo[i]]++;
	}
	g->n_undo = 0;
	g->undo_overflow = false;
	memcpy(g->active.a, x->active, x->n_active * sizeof(struct item));
	memcpy(g->delayed.a, x->delayed, x->n_delayed * sizeof(struct item));
	g->active.n = x->n_active;
	g->delayed.n = x->n_delayed;
	g->n_ready = 0;
	g->t = x->t;
	g->w = x->w;
	g->instant = x->instant;
}

/* Runs from the current state to the end (or until settled); returns the
 * makespan's eps coefficient.  snap_every: take snapshots (the unperturbed
 * run) every that many instants, 0 for none. */
static long double run(struct ecp_tangent *g, uint64_t snap_every)
{
	g->over_limit = false;
	for (;;) {
		start_ready(g);
		if (snap_every && g->instant % snap_every == 0)
			snapshot_take(g);
		if (!g->active.n && !g->delayed.n)
			break;
		if (!snap_every && settled(g))
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
		if (!snap_every && ++g->events > g->limit) {
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

uint64_t ecp_tangent_events(const struct ecp_tangent *g)
{
	return g->events;
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
		snapshot_restore(g, lo - 1);
	g->shortened = segment;
	g->shortened_started = false;
	g->limit = g->events + max_events;
	long double b = run(g, 0);
	if (g->over_limit)
		return false;
	/* eps coefficients that cancel leave rounding noise of the order of
	 * 1e-18; a weight that small is 0 (the segment is off the ECP). */
	long double w = -b;
	*weight = fabsl(w) < 1e-12L ? 0.0 : (double)w;
	return true;
}
