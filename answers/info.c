/* SPDX-License-Identifier: MIT */
/* What ecp info computes (answers/info.h). */
#include "answers/info.h"

#include <stdlib.h>

static int cmp_work(const void *a, const void *b)
{
	const struct ecp_info_function *x = a, *y = b;
	if (x->work_ns != y->work_ns)
		return x->work_ns > y->work_ns ? -1 : 1;
	return (x->function > y->function) - (x->function < y->function);
}

/* Work per function over the whole run (exclusive CPU time). */
int ecp_info_top_functions(const struct ecp_model *m, struct ecp_info_function **top,
			   size_t *n, struct ecp_error *err)
{
	struct ecp_info_function *w =
	    calloc(m->n_functions ? m->n_functions : 1, sizeof(*w));
	if (!w)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory"), -1;
	for (uint32_t f = 0; f < m->n_functions; f++)
		w[f].function = f;
	for (uint32_t s = 0; s < m->n_segments; s++) {
		struct ecp_activity one;
		const struct ecp_activity *act;
		uint32_t k = ecp_segment_activities(m, &m->segments[s], &one, &act);
		for (uint32_t i = 0; i < k; i++) {
			w[act[i].function].work_ns += act[i].self_ns;
			w[act[i].function].calls += act[i].calls;
		}
	}
	/* calls folded by the recorder's filters are calls too (their time
	 * is in the caller's) */
	for (uint32_t f = 0; f < m->n_functions; f++)
		w[f].calls += m->functions[f].folded_calls;
	qsort(w, m->n_functions, sizeof(*w), cmp_work);
	size_t k = 0;
	while (k < m->n_functions && k < ECP_INFO_TOP_FUNCTIONS && w[k].work_ns)
		k++;
	*n = k;
	*top = w;
	return 0;
}
