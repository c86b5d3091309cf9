/* SPDX-License-Identifier: MIT */
#include "answers/sweep.h"

#include <stdlib.h>
#include <string.h>

#include "ecp/sweep.h"

const struct ecp_function_result *
ecp_answer_sweep_top(const struct ecp_answer_sweep_point *p)
{
	const struct ecp_analysis *a = &p->analysis;
	/* The analysis is sorted by TET descending with deterministic ties; a
	 * function with no positive TET is not "the one that matters". */
	if (a->n_functions == 0 || !(a->functions[0].tet_ns > 0))
		return NULL;
	return &a->functions[0];
}

static double peak_tet(const struct ecp_answer_sweep *sw, ecp_id f)
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
	const struct ecp_answer_sweep *sweep;
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

void ecp_answer_sweep_finish(struct ecp_answer_sweep *sw)
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

/* The model and the DAG of a sweep, for a caller that reads the model's
 * segment records and the DAG's ASAP schedule no more. */
struct sweep_last {
	struct ecp_model *model;
	struct ecp_dag *dag;
};

/* The sweep's engine; with `last`, the segment records are freed once the
 * sweep has read them, and the schedule once the engine has, both before
 * the plan's build. */
static int sweep_engine(const struct ecp_model *m, const struct ecp_dag *dag,
			const struct sweep_last *last,
			const struct ecp_engine_options *opts, struct ecp_sweep **engine,
			struct ecp_error *err)
{
	if (!last)
		return ecp_sweep_create(m, dag, opts, engine, err);
	int rc;
	if ((rc = ecp_sweep_prepare(m, dag, opts, engine, err)) < 0 ||
	    (rc = ecp_sweep_read_segments(*engine, err)) < 0)
		return rc;
	ecp_model_free_segments(last->model);
	return ecp_sweep_start(*engine, last->dag, err);
}

static int sweep_run(const struct ecp_model *m, const struct ecp_dag *dag,
		     const struct sweep_last *last, const struct ecp_engine_options *opts,
		     const unsigned *processors, size_t n, size_t top,
		     const struct ecp_answer_progress *progress,
		     struct ecp_answer_sweep *sw, struct ecp_error *err)
{
	size_t nf = m->n_functions ? m->n_functions : 1;
	memset(sw, 0, sizeof(*sw));
	sw->points = calloc(n ? n : 1, sizeof(*sw->points));
	sw->crossover_at = calloc(n ? n : 1, sizeof(*sw->crossover_at));
	sw->shown = calloc(nf, sizeof(*sw->shown));
	bool *is_top = calloc(nf, sizeof(*is_top));
	int rc = 0;
	struct ecp_sweep *engine = NULL;
	if (!sw->points || !sw->crossover_at || !sw->shown || !is_top) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* The P-independent part of the analysis is done once for all P. */
	if ((rc = sweep_engine(m, dag, last, opts, &engine, err)) < 0)
		goto out;
	/* Batches of P share one attribution pass; the per-segment weights are
	 * not kept (nothing here shows them). */
	for (size_t i0 = 0; i0 < n; i0 += ECP_SWEEP_BATCH) {
		size_t k = n - i0 < ECP_SWEEP_BATCH ? n - i0 : ECP_SWEEP_BATCH;
		struct ecp_analysis batch[ECP_SWEEP_BATCH];
		if (k == 1)
			ecp_answer_progress_update(progress,
						   "analysing P=%u (%zu of %zu)",
						   processors[i0], i0 + 1, n);
		else
			ecp_answer_progress_update(
			    progress, "analysing P=%u..%u (%zu-%zu of %zu)",
			    processors[i0], processors[i0 + k - 1], i0 + 1, i0 + k, n);
		if ((rc = ecp_sweep_analyze_many(engine, processors + i0, k, false, batch,
						 err)) < 0)
			goto out;
		for (size_t j = 0; j < k; j++) {
			size_t i = i0 + j;
			struct ecp_answer_sweep_point *p = &sw->points[i];
			p->processors = processors[i];
			p->analysis = batch[j];
			sw->n_points = i + 1;
		}
		for (size_t i = i0; i < i0 + k; i++) {
			struct ecp_answer_sweep_point *p = &sw->points[i];
			p->by_function = calloc(nf, sizeof(*p->by_function));
			if (!p->by_function) {
				rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
				goto out;
			}
			for (size_t x = 0; x < p->analysis.n_functions; x++)
				p->by_function[p->analysis.functions[x].function] =
				    &p->analysis.functions[x];
			const struct ecp_function_result *t = ecp_answer_sweep_top(p);
			if (t)
				is_top[t->function] = true;
			if (i > 0) {
				const struct ecp_function_result *prev =
				    ecp_answer_sweep_top(&sw->points[i - 1]);
				if (prev && t && prev->function != t->function)
					sw->crossover_at[sw->n_crossovers++] = i;
			}
		}
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
	ecp_answer_progress_done(progress);
	ecp_sweep_destroy(engine);
	free(is_top);
	return rc < 0 ? -1 : 0;
}

const struct ecp_answer_sweep_point *
ecp_answer_sweep_first_inexact(const struct ecp_answer_sweep *sw)
{
	for (size_t i = 0; i < sw->n_points; i++)
		if (!sw->points[i].analysis.weights_exact)
			return &sw->points[i];
	return NULL;
}

int ecp_answer_sched_makespans(const struct ecp_dag *dag, enum ecp_sched_model sched,
			       const unsigned *processors, size_t n, uint64_t *makespan,
			       struct ecp_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct ecp_replay rp = {0};
		int rc = ecp_replay_model_run(dag, sched, processors[i], 0, &rp, err);
		makespan[i] = rp.makespan;
		ecp_replay_finish(&rp);
		if (rc < 0) {
			ecp_error_prefix(err, "%s model at P=%u",
					 ecp_sched_model_name(sched), processors[i]);
			return -1;
		}
	}
	return 0;
}

int ecp_answer_sweep_run(const struct ecp_model *m, const struct ecp_dag *dag,
			 const struct ecp_engine_options *opts,
			 const unsigned *processors, size_t n, size_t top,
			 const struct ecp_answer_progress *progress,
			 struct ecp_answer_sweep *out, struct ecp_error *err)
{
	return sweep_run(m, dag, NULL, opts, processors, n, top, progress, out, err);
}

int ecp_answer_sweep_run_freeing(struct ecp_model *m, struct ecp_dag *dag,
				 const struct ecp_engine_options *opts,
				 const unsigned *processors, size_t n, size_t top,
				 const struct ecp_answer_progress *progress,
				 struct ecp_answer_sweep *out, struct ecp_error *err)
{
	struct sweep_last last = {.model = m, .dag = dag};
	return sweep_run(m, dag, &last, opts, processors, n, top, progress, out, err);
}
