#include "ecp/oracle.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* a + b * eps */
struct sym {
	long double a, b;
};

#define TOL 1e-9L

static int sym_cmp(struct sym x, struct sym y)
{
	long double da = x.a - y.a;
	if (fabsl(da) > TOL * (1.0L + fabsl(x.a) + fabsl(y.a)))
		return da < 0 ? -1 : 1;
	long double db = x.b - y.b;
	if (fabsl(db) > TOL * (1.0L + fabsl(x.b) + fabsl(y.b)))
		return db < 0 ? -1 : 1;
	return 0;
}

static struct sym sym_sub(struct sym x, struct sym y)
{
	return (struct sym){x.a - y.a, x.b - y.b};
}

static struct sym sym_add(struct sym x, struct sym y)
{
	return (struct sym){x.a + y.a, x.b + y.b};
}

static struct sym sym_scale(struct sym x, long double k)
{
	return (struct sym){x.a * k, x.b * k};
}

enum state { WAITING, DELAYED, ACTIVE, DONE };

struct oracle {
	const struct ecp_dag *dag;
	unsigned processors;
	uint32_t *next;
	uint32_t *need;
	uint8_t *state;
	struct sym *rem;  /* remaining work of an active segment */
	struct sym *wake; /* end of the delay of a delayed segment */
};

static void become_ready(struct oracle *o, uint32_t s, uint32_t shortened, struct sym t);

static void finish(struct oracle *o, uint32_t s, uint32_t shortened, struct sym t)
{
	const struct ecp_dag *dag = o->dag;
	o->state[s] = DONE;
	uint32_t nx = o->next[s];
	if (nx != UINT32_MAX) {
		if (dag->delay[nx] > 0) {
			o->state[nx] = DELAYED;
			o->wake[nx] =
			    sym_add(t, (struct sym){(long double)dag->delay[nx], 0});
		} else if (--o->need[nx] == 0) {
			become_ready(o, nx, shortened, t);
		}
	}
	/* Inputs are scanned (O(S) per end): the oracle favours obviousness. */
	for (uint32_t v = 0; v < dag->n_segments; v++)
		for (uint32_t e = dag->in_offset[v]; e < dag->in_offset[v + 1]; e++)
			if (dag->in_from[e] == s && --o->need[v] == 0)
				become_ready(o, v, shortened, t);
}

static void become_ready(struct oracle *o, uint32_t s, uint32_t shortened, struct sym t)
{
	struct sym len = {(long double)o->dag->length[s], s == shortened ? -1.0L : 0.0L};
	if (sym_cmp(len, (struct sym){0, 0}) <= 0) {
		finish(o, s, shortened, t);
		return;
	}
	o->state[s] = ACTIVE;
	o->rem[s] = len;
}

/* One run with segment `shortened` (UINT32_MAX: none) shortened by eps. */
static struct sym simulate(struct oracle *o, uint32_t shortened)
{
	const struct ecp_dag *dag = o->dag;
	uint32_t S = dag->n_segments;
	for (uint32_t s = 0; s < S; s++) {
		o->state[s] = WAITING;
		o->need[s] = (dag->pred[s] != ECP_NO_ID) +
			     (dag->in_offset[s + 1] - dag->in_offset[s]);
	}
	struct sym t = {0, 0};
	for (uint32_t s = 0; s < S; s++)
		if (o->state[s] == WAITING && o->need[s] == 0)
			become_ready(o, s, shortened, t);
	for (;;) {
		uint32_t n = 0;
		for (uint32_t s = 0; s < S; s++)
			n += o->state[s] == ACTIVE;
		long double f = 1.0L;
		if (o->processors && n > o->processors)
			f = (long double)n / o->processors;
		bool any = false;
		struct sym next = {0, 0};
		for (uint32_t s = 0; s < S; s++) {
			struct sym cand;
			if (o->state[s] == ACTIVE)
				cand = sym_add(t, sym_scale(o->rem[s], f));
			else if (o->state[s] == DELAYED)
				cand = o->wake[s];
			else
				continue;
			if (!any || sym_cmp(cand, next) < 0)
				next = cand;
			any = true;
		}
		if (!any)
			break;
		struct sym progress = sym_scale(sym_sub(next, t), 1.0L / f);
		t = next;
		for (uint32_t s = 0; s < S; s++)
			if (o->state[s] == ACTIVE)
				o->rem[s] = sym_sub(o->rem[s], progress);
		/* Everything due now; finishing may make more segments due now. */
		for (uint32_t s = 0; s < S; s++) {
			if (o->state[s] == ACTIVE &&
			    sym_cmp(o->rem[s], (struct sym){0, 0}) <= 0) {
				finish(o, s, shortened, t);
			} else if (o->state[s] == DELAYED &&
				   sym_cmp(o->wake[s], t) <= 0) {
				o->state[s] = WAITING;
				if (--o->need[s] == 0)
					become_ready(o, s, shortened, t);
			}
		}
	}
	return t;
}

int ecp_weights_oracle(const struct ecp_dag *dag, unsigned processors, double *weights,
		       long double *makespan, struct ecp_error *err)
{
	uint32_t S = dag->n_segments;
	size_t s1 = S ? S : 1;
	struct oracle o = {.dag = dag, .processors = processors};
	o.next = malloc(s1 * sizeof(uint32_t));
	o.need = malloc(s1 * sizeof(uint32_t));
	o.state = malloc(s1);
	o.rem = malloc(s1 * sizeof(struct sym));
	o.wake = malloc(s1 * sizeof(struct sym));
	int rc = 0;
	if (!o.next || !o.need || !o.state || !o.rem || !o.wake) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory (oracle, %u segments)", S);
		goto out;
	}
	for (uint32_t s = 0; s < S; s++)
		o.next[s] = UINT32_MAX;
	for (uint32_t s = 0; s < S; s++)
		if (dag->pred[s] != ECP_NO_ID)
			o.next[dag->pred[s]] = s;
	struct sym base = simulate(&o, UINT32_MAX);
	for (uint32_t s = 0; s < S; s++)
		if (o.state[s] != DONE) {
			rc = ecp_error_set(err, ECP_ERR,
					   "oracle: segment %u never ran (cyclic DAG?)",
					   s);
			goto out;
		}
	if (makespan)
		*makespan = base.a;
	for (uint32_t s = 0; s < S; s++) {
		if (dag->length[s] == 0) {
			weights[s] = 0.0;
			continue;
		}
		struct sym t = simulate(&o, s);
		weights[s] = (double)-t.b;
	}
out:
	free(o.next);
	free(o.need);
	free(o.state);
	free(o.rem);
	free(o.wake);
	return rc;
}
