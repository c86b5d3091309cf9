/* SPDX-License-Identifier: MIT */
#include "cli/processor-sweep.h"

#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/progress.h"
#include "ecp/sweep.h"

const struct ecp_function_result *ecp_cli_sweep_top(const struct ecp_cli_sweep_point *p)
{
	const struct ecp_analysis *a = &p->analysis;
	/* The analysis is sorted by TET descending with deterministic ties; a
	 * function with no positive TET is not "the one that matters". */
	if (a->n_functions == 0 || !(a->functions[0].tet_ns > 0))
		return NULL;
	return &a->functions[0];
}

static double peak_tet(const struct ecp_cli_sweep *sw, ecp_id f)
{
	double best = 0;
	for (size_t i = 0; i < sw->n_points; i++) {
		const struct ecp_function_result *x = sw->points[i].by_function[f];
		if (x && x->tet_ns > best)
			best = x->tet_ns;
	}
	return best;
}

struct peak_order {
	const struct ecp_cli_sweep *sweep;
	const struct ecp_model *model;
};

static int compare_peak(const void *pa, const void *pb, void *ctx)
{
	const struct peak_order *o = ctx;
	ecp_id a = *(const ecp_id *)pa, b = *(const ecp_id *)pb;
	double ka = peak_tet(o->sweep, a), kb = peak_tet(o->sweep, b);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	int c = strcmp(o->model->functions[a].name, o->model->functions[b].name);
	return c ? c : (a > b) - (a < b);
}

void ecp_cli_sweep_finish(struct ecp_cli_sweep *sw)
{
	for (size_t i = 0; i < sw->n_points; i++) {
		ecp_analysis_finish(&sw->points[i].analysis);
		free(sw->points[i].by_function);
	}
	free(sw->points);
	free(sw->shown);
	free(sw->crossover_at);
	memset(sw, 0, sizeof(*sw));
}

static int sweep_run(const char *cmd, const struct ecp_cli_session *s,
		     const unsigned *processors, size_t n, size_t top, bool warn,
		     struct ecp_cli_sweep *sw)
{
	const struct ecp_model *m = s->model;
	size_t nf = m->n_functions ? m->n_functions : 1;
	memset(sw, 0, sizeof(*sw));
	sw->points = calloc(n ? n : 1, sizeof(*sw->points));
	sw->crossover_at = calloc(n ? n : 1, sizeof(*sw->crossover_at));
	sw->shown = calloc(nf, sizeof(*sw->shown));
	bool *is_top = calloc(nf, sizeof(*is_top));
	int rc = 0;
	struct ecp_sweep *engine = NULL;
	struct ecp_error err = {0};
	struct ecp_progress progress;
	ecp_cli_progress_init(&progress, cmd);
	if (!sw->points || !sw->crossover_at || !sw->shown || !is_top) {
		rc = ecp_cli_fail(cmd, "out of memory");
		goto out;
	}
	/* The P-independent part of the analysis is done once for all P. */
	if (ecp_sweep_create(m, &s->dag, &engine, &err) < 0) {
		rc = ecp_cli_fail(cmd, "%s", err.msg);
		goto out;
	}
	/* Batches of P share one attribution pass; the per-segment weights are
	 * not kept (nothing here shows them). */
	for (size_t i0 = 0; i0 < n; i0 += ECP_SWEEP_BATCH) {
		size_t k = n - i0 < ECP_SWEEP_BATCH ? n - i0 : ECP_SWEEP_BATCH;
		struct ecp_analysis batch[ECP_SWEEP_BATCH];
		if (k == 1)
			ecp_cli_progress_update(&progress, "analysing P=%u (%zu of %zu)",
						processors[i0], i0 + 1, n);
		else
			ecp_cli_progress_update(
			    &progress, "analysing P=%u..%u (%zu-%zu of %zu)",
			    processors[i0], processors[i0 + k - 1], i0 + 1, i0 + k, n);
		if (ecp_sweep_analyze_many(engine, processors + i0, k, false, batch,
					   &err) < 0) {
			rc = ecp_cli_fail(cmd, "%s", err.msg);
			goto out;
		}
		for (size_t j = 0; j < k; j++) {
			size_t i = i0 + j;
			struct ecp_cli_sweep_point *p = &sw->points[i];
			p->processors = processors[i];
			p->analysis = batch[j];
			sw->n_points = i + 1;
		}
		for (size_t i = i0; i < i0 + k; i++) {
			struct ecp_cli_sweep_point *p = &sw->points[i];
			p->by_function = calloc(nf, sizeof(*p->by_function));
			if (!p->by_function) {
				rc = ecp_cli_fail(cmd, "out of memory");
				goto out;
			}
			for (size_t x = 0; x < p->analysis.n_functions; x++)
				p->by_function[p->analysis.functions[x].function] =
				    &p->analysis.functions[x];
			const struct ecp_function_result *t = ecp_cli_sweep_top(p);
			if (t)
				is_top[t->function] = true;
			if (i > 0) {
				const struct ecp_function_result *prev =
				    ecp_cli_sweep_top(&sw->points[i - 1]);
				if (prev && t && prev->function != t->function)
					sw->crossover_at[sw->n_crossovers++] = i;
			}
		}
	}
	ecp_cli_progress_done(&progress);
	for (size_t i = 0; warn && i < sw->n_points; i++)
		if (!sw->points[i].analysis.weights_exact) {
			ecp_cli_warn_inexact(cmd, m, &sw->points[i].analysis);
			break;
		}
	size_t n_candidates = 0;
	for (ecp_id f = 0; f < m->n_functions; f++)
		if (is_top[f] || peak_tet(sw, f) > 0)
			sw->shown[n_candidates++] = f;
	struct peak_order order = {sw, m};
	qsort_r(sw->shown, n_candidates, sizeof(*sw->shown), compare_peak, &order);
	size_t kept = 0;
	for (size_t k = 0; k < n_candidates; k++) {
		ecp_id f = sw->shown[k];
		if (is_top[f] || kept < top)
			sw->shown[kept++] = f;
	}
	sw->n_shown = kept;
out:
	ecp_cli_progress_done(&progress);
	ecp_sweep_destroy(engine);
	free(is_top);
	return rc;
}

int ecp_cli_sweep_run(const char *cmd, const struct ecp_cli_session *s,
		      const unsigned *processors, size_t n, size_t top,
		      struct ecp_cli_sweep *sw)
{
	return sweep_run(cmd, s, processors, n, top, true, sw);
}

int ecp_cli_sweep_run_quiet(const char *cmd, const struct ecp_cli_session *s,
			    const unsigned *processors, size_t n, size_t top,
			    struct ecp_cli_sweep *sw)
{
	return sweep_run(cmd, s, processors, n, top, false, sw);
}
