/* SPDX-License-Identifier: MIT */
/* The sweep over processor counts that `scan`, `viz` and `report`'s reading
 * share: one analysis per P, the functions worth showing, and the
 * crossovers (the P at which the function with the largest TET changes). */
#ifndef ECP_ANSWERS_SWEEP_H
#define ECP_ANSWERS_SWEEP_H

#include <stddef.h>

#include "answers/progress.h"
#include "common/error.h"
#include "ecp/analysis.h"
#include "simulator/model/dag.h"
#include "simulator/model/model.h"
#include "simulator/replay/replay.h"

struct ecp_answer_sweep_point {
	unsigned processors;
	struct ecp_analysis analysis;
	struct ecp_function_result **by_function; /* by function id; NULL if absent */
};

struct ecp_answer_sweep {
	struct ecp_answer_sweep_point *points;
	size_t n_points;
	ecp_id *shown; /* by decreasing peak TET; every P's top is included */
	size_t n_shown;
	size_t *crossover_at; /* indices i > 0 into points where the top changes */
	size_t n_crossovers;
};

/* Analyses the model at each of the n processor counts, with the engine's
 * knobs opts (ecp/options.h; NULL: the defaults).  `top`: functions
 * to show besides those that are the top at some P.  Returns 0, or -1 with
 * *err set (*out then holds what was done; finish it either way). */
int ecp_answer_sweep_run(const struct ecp_model *m, const struct ecp_dag *dag,
			 const struct ecp_engine_options *opts,
			 const unsigned *processors, size_t n, size_t top,
			 const struct ecp_answer_progress *progress,
			 struct ecp_answer_sweep *out, struct ecp_error *err);
/* The same, for a caller that reads m's segment records and dag's ASAP
 * schedule no more: the records and the edges are freed
 * (ecp_model_free_segments) as soon as the sweep has read them, the
 * schedule once the engine has (ecp_dag_free_schedule), both before the
 * plan's build, the peak of a sweep -- 80 bytes per segment and 12 per
 * edge off it (issue 35: `ecp scan`'s memory).  After an error they may or
 * may not be freed: m->segments and dag->start say which. */
int ecp_answer_sweep_run_freeing(struct ecp_model *m, struct ecp_dag *dag,
				 const struct ecp_engine_options *opts,
				 const unsigned *processors, size_t n, size_t top,
				 const struct ecp_answer_progress *progress,
				 struct ecp_answer_sweep *out, struct ecp_error *err);
void ecp_answer_sweep_finish(struct ecp_answer_sweep *sw);

/* The function with the largest positive TET at a point, or NULL. */
const struct ecp_function_result *
ecp_answer_sweep_top(const struct ecp_answer_sweep_point *p);

/* The first point whose weights could not be verified exact, or NULL. */
const struct ecp_answer_sweep_point *
ecp_answer_sweep_first_inexact(const struct ecp_answer_sweep *sw);

/* T_P of another scheduler model (the Linux-like one) at each of the n
 * processor counts, into makespan[n]; returns 0, or -1 with *err naming P. */
int ecp_answer_sched_makespans(const struct ecp_dag *dag, enum ecp_sched_model sched,
			       const unsigned *processors, size_t n, uint64_t *makespan,
			       struct ecp_error *err);

#endif
