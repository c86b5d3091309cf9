/* SPDX-License-Identifier: MIT */
/* The simulated run on P processors as `viz` and `export` draw it: the
 * analysis (weights, per-function results), the replay's per-segment times
 * and parallelism steps, and display names for threads and functions. */
#ifndef ECP_ANSWERS_SIMRUN_H
#define ECP_ANSWERS_SIMRUN_H

#include <stdbool.h>

#include "common/error.h"
#include "ecp/timeline.h"
#include "ecp/analysis.h"
#include "simulator/model/dag.h"
#include "simulator/model/model.h"
#include "simulator/replay/replay.h"

struct ecp_simrun {
	unsigned processors;
	struct ecp_analysis analysis;
	bool analysed; /* analysis holds the answer at P (replay may still fail) */
	struct ecp_replay replay;
	struct ecp_timeline timeline;
	const char **function_names; /* model->functions[i].name */
	char **thread_names;         /* "name (tid)" or "thread tid" */
	ecp_id *dominant;            /* per segment: function with most self time */
};

/* Analyses and simulates the model at P.  Returns 0, or -1 with *err set
 * (finish *run either way). */
int ecp_answer_simrun_init(const struct ecp_model *m, const struct ecp_dag *dag,
			   const struct ecp_engine_options *opts, unsigned processors,
			   struct ecp_simrun *run, struct ecp_error *err);
void ecp_answer_simrun_finish(struct ecp_simrun *run, const struct ecp_model *m);

#endif
