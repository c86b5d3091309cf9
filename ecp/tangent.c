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
	struct sym t, w;
};

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
	if (!g->need || !g->ready || !g->active.a || !g->delayed.a) {
		ecp_tangent_destroy(g);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (tangent, %u segments)", S);
	}
	*tangent = g;
	return 0;
}

void ecp_tangent_destroy(struct ecp_tangent *g)
{
	if (!g)
		return;
	ecp_dag_succ_finish(&g->succ);
	free(g->need);
	free(g->ready);
	free(g->active.a);
	free(g->delayed.a);
	free(g);
}

uint64_t ecp_tangent_cost(const struct ecp_tangent *g)
{
	return 2 * (uint64_t)g->dag->n_segments;
}

static void satisfy(struct ecp_tangent *g, uint32_t s)
{
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

double ecp_tangent_weight(struct ecp_tangent *g, uint32_t segment)
{
	const struct ecp_dag *dag = g->dag;
	uint32_t S = dag->n_segments;
	if (segment >= S || dag->length[segment] == 0)
		return 0.0;
	g->shortened = segment;
	memcpy(g->need, g->succ.init_remaining, (size_t)S * sizeof(uint32_t));
	g->n_ready = g->active.n = g->delayed.n = 0;
	g->t = g->w = (struct sym){0, 0};
	for (uint32_t s = 0; s < S; s++)
		if (!g->need[s])
			g->ready[g->n_ready++] = s;
	for (;;) {
		start_ready(g);
		if (!g->active.n && !g->delayed.n)
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
		while (g->active.n && sym_cmp(g->active.a[0].key, g->w) <= 0)
			finish(g, heap_pop(&g->active).seg);
		while (g->delayed.n && sym_cmp(g->delayed.a[0].key, g->t) <= 0)
			satisfy(g, heap_pop(&g->delayed).seg);
	}
	/* eps coefficients that cancel leave rounding noise of the order of
	 * 1e-18; a weight that small is 0 (the segment is off the ECP). */
	long double w = -g->t.b;
	return fabsl(w) < 1e-12L ? 0.0 : (double)w;
}
