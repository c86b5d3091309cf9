/* SPDX-License-Identifier: MIT */
#include "ecp/whatif.h"

#include <math.h>
#include <stdlib.h>

const char *ecp_whatif_scope_name(enum ecp_whatif_scope scope)
{
	return scope == ECP_WHATIF_EXCLUSIVE ? "exclusive" : "inclusive";
}

int ecp_whatif_lengths(const struct ecp_model *model,
		       const struct ecp_whatif_change *changes, size_t n_changes,
		       uint64_t **lengths, struct ecp_error *err)
{
	*lengths = NULL;
	/* Per function, the share removed from its inclusive time and from
	 * its exclusive time (both may be asked for the same function). */
	size_t nf = model->n_functions ? model->n_functions : 1;
	double *pct = calloc(2 * nf, sizeof(double));
	uint64_t *len =
	    malloc((model->n_segments ? model->n_segments : 1) * sizeof(uint64_t));
	if (!pct || !len) {
		free(pct);
		free(len);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (what-if lengths)");
	}
	for (size_t i = 0; i < n_changes; i++) {
		const struct ecp_whatif_change *c = &changes[i];
		if (c->function >= model->n_functions || !(c->faster_pct >= 0.0) ||
		    c->faster_pct > 100.0 ||
		    (c->scope != ECP_WHATIF_INCLUSIVE &&
		     c->scope != ECP_WHATIF_EXCLUSIVE)) {
			free(pct);
			free(len);
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "what-if change #%zu: function %u, %g%% is out of range", i,
			    c->function, c->faster_pct);
		}
		double *p =
		    &pct[(c->scope == ECP_WHATIF_EXCLUSIVE ? nf : 0) + c->function];
		*p = fmin(100.0, *p + c->faster_pct);
	}
	for (uint32_t s = 0; s < model->n_segments; s++) {
		const struct ecp_segment *seg = &model->segments[s];
		double cut = 0.0;
		struct ecp_activity one;
		const struct ecp_activity *acts;
		uint32_t n = ecp_segment_activities(model, seg, &one, &acts);
		for (uint32_t i = 0; i < n; i++) {
			const struct ecp_activity *a = &acts[i];
			if (a->function < model->n_functions)
				cut += pct[a->function] / 100.0 * (double)a->incl_ns +
				       pct[nf + a->function] / 100.0 * (double)a->self_ns;
		}
		double l = (double)seg->length - cut;
		len[s] = l > 0.0 ? (uint64_t)llround(l) : 0;
	}
	free(pct);
	*lengths = len;
	return 0;
}
