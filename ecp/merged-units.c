/* SPDX-License-Identifier: MIT */
#include "ecp/merged-units.h"

#include <stdlib.h>
#include <string.h>

#include "ecp/hugemem.h"

static bool bit(const uint64_t *bits, uint32_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

/* Whether segment s (> 0) continues the unit of s - 1 (ecp/merged-units.h). */
static bool continues(const struct ecp_dag *dag, const uint64_t *waited_for, uint32_t s)
{
	return dag->pred[s] == s - 1 && dag->delay[s] == 0 &&
	       dag->in_offset[s + 1] == dag->in_offset[s] && !bit(waited_for, s - 1);
}

void ecp_units_finish(struct ecp_units *x)
{
	free(x->first);
	free(x->end);
	free(x->has_empty);
	free(x->dag.length);
	free(x->dag.delay);
	free(x->dag.pred);
	free(x->dag.in_offset);
	free(x->dag.in_from);
	free(x->dag.topo);
	memset(x, 0, sizeof(*x));
}

/* Numbers the units in the DAG's topological order: a unit takes its first
 * segment's place (its inputs all come before that, its outputs after its
 * last segment).  unit_of[s] holds each segment's unit in segment order on
 * entry and its new number on return; first[] and end[] are filled.  False
 * when `topo` is not an order of the segments. */
static bool number(struct ecp_units *x, const struct ecp_dag *dag, uint32_t *unit_of,
		   uint32_t *new_of)
{
	uint32_t U = x->dag.n_segments, S = dag->n_segments, n = 0;
	for (uint32_t u = 0; u < U; u++)
		new_of[u] = UINT32_MAX;
	for (uint32_t i = 0; i < S; i++) {
		ecp_id s = dag->topo[i];
		if (s >= S || (s > 0 && unit_of[s] == unit_of[s - 1]))
			continue;
		if (n == U || new_of[unit_of[s]] != UINT32_MAX)
			return false;
		new_of[unit_of[s]] = n;
		x->first[n++] = s;
	}
	if (n != U)
		return false;
	for (uint32_t u = 0; u < U; u++)
		x->end[u] = x->first[u] + 1;
	for (uint32_t s = 0; s < S; s++) {
		unit_of[s] = new_of[unit_of[s]];
		x->end[unit_of[s]] = s + 1;
	}
	return true;
}

/* The merged DAG's arrays, given each unit's segments and each segment's
 * unit. */
static void fill(struct ecp_units *x, const struct ecp_dag *dag, const uint32_t *unit_of)
{
	struct ecp_dag *d = &x->dag;
	uint32_t U = d->n_segments, S = dag->n_segments;
	for (uint32_t u = 0; u < U; u++) {
		uint32_t f = x->first[u];
		d->length[u] = 0;
		for (uint32_t s = f; s < x->end[u]; s++)
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
		d->topo[u] = u;
	}
	d->in_offset[U] = d->n_in;
}

int ecp_units_init(struct ecp_units *x, const struct ecp_dag *dag, bool linear,
		   struct ecp_error *err)
{
	memset(x, 0, sizeof(*x));
	uint32_t S = dag->n_segments;
	if (!linear || S < 2 || !dag->topo)
		return 0;
	uint64_t *waited_for = calloc(S / 64 + 1, sizeof(uint64_t));
	uint32_t *unit_of = NULL, *new_of = NULL;
	if (!waited_for)
		goto nomem;
	for (uint32_t e = 0; e < dag->n_in; e++)
		if (dag->in_from[e] < S)
			waited_for[dag->in_from[e] / 64] |= (uint64_t)1
							    << (dag->in_from[e] % 64);
	uint32_t U = 1;
	for (uint32_t s = 1; s < S; s++)
		U += !continues(dag, waited_for, s);
	struct ecp_dag *d = &x->dag;
	d->n_segments = U;
	x->first = ecp_huge_malloc((size_t)U * sizeof(uint32_t));
	x->end = ecp_huge_malloc((size_t)U * sizeof(uint32_t));
	unit_of = malloc((size_t)S * sizeof(uint32_t));
	new_of = malloc((size_t)U * sizeof(uint32_t));
	d->length = ecp_huge_malloc((size_t)U * sizeof(uint64_t));
	d->delay = ecp_huge_malloc((size_t)U * sizeof(uint64_t));
	d->pred = ecp_huge_malloc((size_t)U * sizeof(ecp_id));
	d->in_offset = ecp_huge_malloc(((size_t)U + 1) * sizeof(uint32_t));
	d->in_from = ecp_huge_malloc((dag->n_in ? dag->n_in : 1) * sizeof(ecp_id));
	d->topo = ecp_huge_malloc((size_t)U * sizeof(ecp_id));
	if (!x->first || !x->end || !unit_of || !new_of || !d->length || !d->delay ||
	    !d->pred || !d->in_offset || !d->in_from || !d->topo)
		goto nomem;
	uint32_t u = 0;
	unit_of[0] = 0;
	for (uint32_t s = 1; s < S; s++)
		unit_of[s] = u += !continues(dag, waited_for, s);
	if (number(x, dag, unit_of, new_of)) {
		fill(x, dag, unit_of);
		if (!(x->has_empty = calloc((size_t)U / 64 + 1, sizeof(uint64_t))))
			goto nomem;
		for (uint32_t s = 0; s < S; s++)
			if (!dag->length[s])
				x->has_empty[unit_of[s] / 64] |= (uint64_t)1
								 << (unit_of[s] % 64);
	} else { /* not a topological order: simulate the segments as they are */
		ecp_units_finish(x);
	}
	free(waited_for);
	free(unit_of);
	free(new_of);
	return 0;
nomem:
	free(waited_for);
	free(unit_of);
	free(new_of);
	ecp_units_finish(x);
	return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (engine, %u segments)",
			     S);
}

uint32_t ecp_units_weighted(const struct ecp_units *x, const uint64_t *length, uint32_t u)
{
	if (!x->first)
		return length[u] > 0;
	uint32_t n = 0;
	for (uint32_t s = x->first[u]; s < x->end[u]; s++)
		n += length[s] > 0;
	return n;
}

int ecp_units_expand(const struct ecp_units *x, const uint64_t *length, double *weights,
		     uint8_t *flags)
{
	uint32_t U = x->dag.n_segments;
	/* the units' entries, copied out: unit u's segments need not lie
	 * above u's own entry */
	double *unit = ecp_huge_malloc((size_t)(U ? U : 1) * sizeof(double));
	if (!unit)
		return -1;
	if (weights) {
		memcpy(unit, weights, (size_t)U * sizeof(double));
		for (uint32_t u = 0; u < U; u++) {
			double w = unit[u];
			if (bit(x->has_empty, u))
				for (uint32_t s = x->first[u]; s < x->end[u]; s++)
					weights[s] = length[s] ? w : 0.0;
			else
				for (uint32_t s = x->first[u]; s < x->end[u]; s++)
					weights[s] = w;
		}
	}
	if (flags) {
		uint8_t *f = (uint8_t *)unit;
		memcpy(f, flags, U);
		for (uint32_t u = 0; u < U; u++)
			for (uint32_t s = x->first[u]; s < x->end[u]; s++)
				flags[s] = !bit(x->has_empty, u) || length[s] ? f[u] : 0;
	}
	free(unit);
	return 0;
}
