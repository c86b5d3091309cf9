/* SPDX-License-Identifier: MIT */
#include "tests/engine/oracle.h"

#include "ecp/options.h"

/* tests/engine/check.h */
const struct ecp_engine_options *ecp_test_engine_options;

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/tie.h"
#include "simulator/model/dag-succ.h"

/* a + b * eps */
struct sym {
	long double a, b;
};

/* Relative bound on the eps parts: derivatives, whose size does not grow
 * with the run's length. */
#define TOL_EPS 1e-9L

/* Times are one instant within ecp/tie.h's bound at the clock's scale
 * `scale`, which does not grow with the clock faster than its rounding: a
 * relative bound here (1e-9 * t) merged events a microsecond apart in a run
 * of 1e12 ns, and the tests then compared the engine with another DAG's
 * answer.  A remaining work is compared at the clock's scale, not its own:
 * it carries the clock's rounding (it shrinks by differences of times), and
 * a residue of a few ulps of t that is not 0 at its own scale would end its
 * segment at t + residue, which rounds to t: the run would stand still. */
static int sym_cmp_at(struct sym x, struct sym y, long double scale)
{
	long double da = x.a - y.a;
	if (fabsl(da) > ecp_tie_bound(scale))
		return da < 0 ? -1 : 1;
	long double db = x.b - y.b;
	if (fabsl(db) > TOL_EPS * (1.0L + fabsl(x.b) + fabsl(y.b)))
		return db < 0 ? -1 : 1;
	return 0;
}

static int sym_cmp(struct sym x, struct sym y)
{
	return sym_cmp_at(x, y, fabsl(x.a) > fabsl(y.a) ? x.a : y.a);
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
	struct ecp_dag_succ succ; /* who each segment's end releases */
	uint32_t *live;           /* the segments ACTIVE or DELAYED, unordered */
	uint8_t *listed;          /* in live[] (a woken segment stays where it was) */
	uint32_t n_live;
	uint32_t *need;
	uint8_t *state;
	struct sym *rem;          /* remaining work of an active segment */
	struct sym *wake;         /* end of the delay of a delayed segment */
	long double *start, *end; /* NULL, or where to note each segment's times */
};

static void become_ready(struct oracle *o, uint32_t s, uint32_t shortened, struct sym t);

static void list(struct oracle *o, uint32_t s)
{
	if (!o->listed[s]) {
		o->listed[s] = 1;
		o->live[o->n_live++] = s;
	}
}

static void finish(struct oracle *o, uint32_t s, uint32_t shortened, struct sym t)
{
	const struct ecp_dag *dag = o->dag;
	o->state[s] = DONE;
	if (o->end)
		o->end[s] = t.a;
	uint32_t nx = o->succ.next[s];
	if (nx != ECP_NO_ID) {
		if (dag->delay[nx] > 0) {
			o->state[nx] = DELAYED;
			list(o, nx);
			o->wake[nx] =
			    sym_add(t, (struct sym){(long double)dag->delay[nx], 0});
		} else if (--o->need[nx] == 0) {
			become_ready(o, nx, shortened, t);
		}
	}
	for (uint32_t i = o->succ.out_offset[s]; i < o->succ.out_offset[s + 1]; i++)
		if (--o->need[o->succ.out_to[i]] == 0)
			become_ready(o, o->succ.out_to[i], shortened, t);
}

static void become_ready(struct oracle *o, uint32_t s, uint32_t shortened, struct sym t)
{
	struct sym len = {(long double)o->dag->length[s], s == shortened ? -1.0L : 0.0L};
	if (o->start)
		o->start[s] = t.a;
	if (sym_cmp(len, (struct sym){0, 0}) <= 0) {
		finish(o, s, shortened, t);
		return;
	}
	o->state[s] = ACTIVE;
	list(o, s);
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
	o->n_live = 0;
	memset(o->listed, 0, S);
	for (uint32_t s = 0; s < S; s++)
		if (o->state[s] == WAITING && o->need[s] == 0)
			become_ready(o, s, shortened, t);
	for (;;) {
		/* Drop what left the live states since the last instant. */
		uint32_t kept = 0;
		for (uint32_t i = 0; i < o->n_live; i++) {
			uint32_t s = o->live[i];
			if (o->state[s] == ACTIVE || o->state[s] == DELAYED)
				o->live[kept++] = s;
			else
				o->listed[s] = 0;
		}
		o->n_live = kept;
		uint32_t n = 0;
		for (uint32_t i = 0; i < o->n_live; i++)
			n += o->state[o->live[i]] == ACTIVE;
		long double f = 1.0L;
		if (o->processors && n > o->processors)
			f = (long double)n / o->processors;
		bool any = false;
		struct sym next = {0, 0};
		for (uint32_t i = 0; i < o->n_live; i++) {
			uint32_t s = o->live[i];
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
		for (uint32_t i = 0; i < o->n_live; i++)
			if (o->state[o->live[i]] == ACTIVE)
				o->rem[o->live[i]] =
				    sym_sub(o->rem[o->live[i]], progress);
		/* Everything due now.  Segments that start now are appended
		 * past n_due with their whole length to run (not due); those
		 * of length 0 were finished on the spot. */
		uint32_t n_due = o->n_live;
		for (uint32_t i = 0; i < n_due; i++) {
			uint32_t s = o->live[i];
			if (o->state[s] == ACTIVE &&
			    sym_cmp_at(o->rem[s], (struct sym){0, 0}, t.a) <= 0) {
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

/* One oracle over `dag` (its arrays, a fresh successor index), or an
 * error. */
static int oracle_init(struct oracle *o, const struct ecp_dag *dag, unsigned processors,
		       struct ecp_error *err)
{
	uint32_t S = dag->n_segments;
	size_t s1 = S ? S : 1;
	*o = (struct oracle){.dag = dag, .processors = processors};
	o->live = malloc(s1 * sizeof(uint32_t));
	o->listed = malloc(s1);
	o->need = malloc(s1 * sizeof(uint32_t));
	o->state = malloc(s1);
	o->rem = malloc(s1 * sizeof(struct sym));
	o->wake = malloc(s1 * sizeof(struct sym));
	if (!o->live || !o->listed || !o->need || !o->state || !o->rem || !o->wake)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (oracle, %u segments)", S);
	return ecp_dag_succ_init(&o->succ, dag, err);
}

static void oracle_finish(struct oracle *o)
{
	ecp_dag_succ_finish(&o->succ);
	free(o->live);
	free(o->listed);
	free(o->need);
	free(o->state);
	free(o->rem);
	free(o->wake);
}

/* The unperturbed run, with a check that every segment ran. */
static int base_run(struct oracle *o, struct sym *makespan, struct ecp_error *err)
{
	*makespan = simulate(o, UINT32_MAX);
	for (uint32_t s = 0; s < o->dag->n_segments; s++)
		if (o->state[s] != DONE)
			return ecp_error_set(err, ECP_ERR,
					     "oracle: segment %u never ran (cyclic DAG?)",
					     s);
	return 0;
}

int ecp_oracle_times(const struct ecp_dag *dag, unsigned processors, long double *start,
		     long double *end, struct ecp_error *err)
{
	struct oracle o;
	int rc = oracle_init(&o, dag, processors, err);
	if (rc >= 0) {
		o.start = start;
		o.end = end;
		struct sym makespan;
		rc = base_run(&o, &makespan, err);
	}
	oracle_finish(&o);
	return rc;
}

int ecp_weights_oracle(const struct ecp_dag *dag, unsigned processors, double *weights,
		       long double *makespan, struct ecp_error *err)
{
	struct oracle o;
	int rc = oracle_init(&o, dag, processors, err);
	struct sym base;
	if (rc >= 0)
		rc = base_run(&o, &base, err);
	if (rc >= 0) {
		if (makespan)
			*makespan = base.a;
		for (uint32_t s = 0; s < dag->n_segments; s++) {
			if (dag->length[s] == 0) {
				weights[s] = 0.0;
				continue;
			}
			struct sym t = simulate(&o, s);
			weights[s] = (double)-t.b;
		}
	}
	oracle_finish(&o);
	return rc;
}
