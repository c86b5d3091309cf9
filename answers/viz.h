/* SPDX-License-Identifier: MIT */
/* ecp viz's answer: one self-contained HTML report of the simulated run on
 * P processors (answers/simrun.h) and of the sweep over a range of
 * processor counts (answers/sweep.h), with measured run times if given. */
#ifndef ECP_ANSWERS_VIZ_H
#define ECP_ANSWERS_VIZ_H

#include <stddef.h>
#include <stdio.h>

#include "answers/simrun.h"
#include "answers/sweep.h"
#include "common/error.h"
#include "viz/html-report.h"

/* Functions the sweep's plot draws besides every P's top one. */
#define ECP_VIZ_PLOT_FUNCTIONS 6

struct ecp_viz_answer {
	const char *trace_dir;
	const struct ecp_model *model;
	const struct ecp_dag *dag;
	const struct ecp_simrun *run;
	const struct ecp_answer_sweep *sweep;
	const struct ecp_html_measured *measured; /* wall times the user measured */
	size_t n_measured;
	const struct ecp_consistency *consistency; /* its verdict, in the report */
};

/* Returns 0, or -1 with *err set. */
int ecp_viz_write(FILE *out, const struct ecp_viz_answer *ans, struct ecp_error *err);

#endif
