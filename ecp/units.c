#include "ecp/units.h"

#include <stdlib.h>
#include <string.h>

static bool bit(const uint64_t *bits, uint32_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

/* Whether segment s (> 0) continues the unit of s - 1 (ecp/units.h). */
static bool continues(const struct ecp_dag *dag, const uint64_t *waited_for, uint32_t s)
{
	return dag->pred[s] == s - 1 && dag->delay[s] == 0 &&
	       dag->in_offset[s + 1] == dag->in_offset[s] && !bit(waited_for, s - 1);
}

void ecp_units_finish(struct ecp_units *x)
{
	free(x->first);
	free(x->dag.length);
	free(x->dag.delay);
	free(x->dag.pred);
	free(x->dag.in_offset);
	free(x->dag.in_from);
	free(x->dag.topo);
	memset(x, 0, sizeof(*x));
}

/* The merged DAG's arrays, given first[] and each segment's unit. */
static bool fill(struct ecp_units *x, const struct ecp_dag *dag, const uint32_t *unit_of)
{
	struct ecp_dag *d = &x->dag;
	uint32_t U = d->n_segments, S = dag->n_segments;
	for (uint32_t u = 0; u < U; u++) {
		uint32_t f = x->first[u];
		d->length[u] = 0;
		for (uint32_t s = f; s < x->first[u + 1]; s++)
			d->length[u] += dag->length[s];
		d->delay[u] = dag->delay[f];
		/* linear chains: every predecessor is a segment (ecp/engine.c) */
		d->pred[u] =
		    dag->pred[f] == ECP_NO_ID ? ECP_NO_ID : unit_of[dag->pred[f]];
		d->in_offset[u] = d->n_in;
		for (uint32_t e = dag->in_offset[f]; e < dag->in_offset[f + 1]; e++) {
			ecp_id from = dag->in_from[e];
			/* out of range stays out of range, for the checks downstream */
			d->in_from[d->n_in++] = from < S ? unit_of[from] : U + (from - S);
		}
	}
	d->in_offset[U] = d->n_in;
	if (!dag->topo)
		return true;
	/* A unit takes its first segment's place: its inputs all come before
	 * that, its outputs all after its last segment. */
	uint32_t n = 0;
	for (uint32_t i = 0; i < S; i++) {
		ecp_id s = dag->topo[i];
		if (s >= S || x->first[unit_of[s]] != s)
			continue;
		if (n == U)
			return false;
		d->topo[n++] = unit_of[s];
	}
	return n == U;
}

int ecp_units_init(struct ecp_units *x, const struct ecp_dag *dag, bool linear,
		   struct ecp_error *err)
{
	memset(x, 0, sizeof(*x));
	uint32_t S = dag->n_segments;
	if (!linear || S < 2)
		return 0;
	uint64_t *waited_for = calloc(S / 64 + 1, sizeof(uint64_t));
	uint32_t *unit_of = NULL;
	if (!waited_for)
		goto nomem;
	for (uint32_t e = 0; e < dag->n_in; e++)
		if (dag->in_from[e] < S)
			waited_for[dag->in_from[e] / 64] |= (uint64_t)1
							    << (dag->in_from[e] % 64);
	uint32_t U = 1;
	for (uint32_t s = 1; s < S; s++)
		U += !continues(dag, waited_for, s);
	if (U == S) {
		free(waited_for);
		return 0;
	}
	struct ecp_dag *d = &x->dag;
	d->n_segments = U;
	x->first = malloc(((size_t)U + 1) * sizeof(uint32_t));
	unit_of = malloc((size_t)S * sizeof(uint32_t));
	d->length = malloc((size_t)U * sizeof(uint64_t));
	d->delay = malloc((size_t)U * sizeof(uint64_t));
	d->pred = malloc((size_t)U * sizeof(ecp_id));
	d->in_offset = malloc(((size_t)U + 1) * sizeof(uint32_t));
	d->in_from = malloc((dag->n_in ? dag->n_in : 1) * sizeof(ecp_id));
	d->topo = dag->topo ? malloc((size_t)U * sizeof(ecp_id)) : NULL;
	if (!x->first || !unit_of || !d->length || !d->delay || !d->pred ||
	    !d->in_offset || !d->in_from || (dag->topo && !d->topo))
		goto nomem;
	uint32_t u = 0;
	x->first[0] = 0;
	unit_of[0] = 0;
	for (uint32_t s = 1; s < S; s++) {
		if (!continues(dag, waited_for, s))
			x->first[++u] = s;
		unit_of[s] = u;
	}
	x->first[U] = S;
	bool ok = fill(x, dag, unit_of);
	free(waited_for);
	free(unit_of);
	if (!ok) /* not a topological order: simulate the segments as they are */
		ecp_units_finish(x);
	return 0;
nomem:
	free(waited_for);
	free(unit_of);
	ecp_units_finish(x);
	return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (engine, %u segments)",
			     S);
}

uint32_t ecp_units_weighted(const struct ecp_units *x, const uint64_t *length, uint32_t u)
{
	if (!x->first)
		return length[u] > 0;
	uint32_t n = 0;
	for (uint32_t s = x->first[u]; s < x->first[u + 1]; s++)
		n += length[s] > 0;
	return n;
}

void ecp_units_expand(const struct ecp_units *x, const uint64_t *length, double *weights,
		      uint8_t *flags)
{
	/* Last unit first: unit u's segments start at first[u] >= u, so
	 * writing them never overwrites a unit not yet expanded. */
	for (uint32_t u = x->dag.n_segments; u-- > 0;) {
		double w = weights ? weights[u] : 0.0;
		uint8_t f = flags ? flags[u] : 0;
		for (uint32_t s = x->first[u]; s < x->first[u + 1]; s++) {
			if (weights)
				weights[s] = length[s] ? w : 0.0;
			if (flags)
				flags[s] = length[s] ? f : 0;
		}
	}
}
