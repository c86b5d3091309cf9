/* SPDX-License-Identifier: MIT */
#include "simulator/model/dag-succ.h"

#include <stdlib.h>
#include <string.h>

void ecp_dag_succ_finish(struct ecp_dag_succ *g)
{
	free(g->next);
	free(g->out_offset);
	free(g->out_to);
	free(g->init_remaining);
	memset(g, 0, sizeof(*g));
}

int ecp_dag_succ_init(struct ecp_dag_succ *g, const struct ecp_dag *dag,
		      struct ecp_error *err)
{
	memset(g, 0, sizeof(*g));
	uint32_t n = dag->n_segments;
	size_t cells = (size_t)n + 1;
	g->next = malloc(cells * sizeof(*g->next));
	g->out_offset = calloc(cells, sizeof(*g->out_offset));
	g->out_to = malloc(((size_t)dag->n_in + 1) * sizeof(*g->out_to));
	g->init_remaining = malloc(cells * sizeof(*g->init_remaining));
	if (!g->next || !g->out_offset || !g->out_to || !g->init_remaining) {
		ecp_dag_succ_finish(g);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (successors of %u segments)", n);
	}
	for (ecp_id i = 0; i < n; i++)
		g->next[i] = ECP_NO_ID;
	for (ecp_id i = 0; i < n; i++) {
		ecp_id p = dag->pred[i];
		if (p != ECP_NO_ID && (p >= n || g->next[p] != ECP_NO_ID)) {
			ecp_dag_succ_finish(g);
			return ecp_error_set(err, ECP_ERR,
					     "segment %u: invalid thread predecessor %u",
					     i, p);
		}
		if (p != ECP_NO_ID)
			g->next[p] = i;
		for (uint32_t k = dag->in_offset[i]; k < dag->in_offset[i + 1]; k++) {
			if (dag->in_from[k] >= n) {
				ecp_dag_succ_finish(g);
				return ecp_error_set(err, ECP_ERR,
						     "segment %u: invalid input %u", i,
						     dag->in_from[k]);
			}
			g->out_offset[dag->in_from[k] + 1]++;
		}
	}
	for (ecp_id i = 0; i < n; i++)
		g->out_offset[i + 1] += g->out_offset[i];
	/* init_remaining doubles as the fill cursor, then gets its value. */
	uint32_t *fill = g->init_remaining;
	memcpy(fill, g->out_offset, cells * sizeof(*fill));
	for (ecp_id i = 0; i < n; i++)
		for (uint32_t k = dag->in_offset[i]; k < dag->in_offset[i + 1]; k++)
			g->out_to[fill[dag->in_from[k]]++] = i;
	for (ecp_id i = 0; i < n; i++)
		g->init_remaining[i] = dag->in_offset[i + 1] - dag->in_offset[i] +
				       (dag->pred[i] != ECP_NO_ID);
	return 0;
}
