/* SPDX-License-Identifier: MIT */
/* The simulated run on P processors as `viz` and `export` draw it: the
 * analysis (weights, per-function results), the replay's per-segment times
 * and parallelism steps, and display names for threads and functions. */
#ifndef ECP_CLI_SIMRUN_H
#define ECP_CLI_SIMRUN_H

#include "cli/session.h"
#include "ecp/timeline.h"
#include "ecp/analysis.h"
#include "simulator/replay/replay.h"

struct ecp_simrun {
	unsigned processors;
	struct ecp_analysis analysis;
	struct ecp_replay replay;
	struct ecp_timeline timeline;
	const char **function_names; /* model->functions[i].name */
	char **thread_names;         /* "name (tid)" or "thread tid" */
	ecp_id *dominant;            /* per segment: function with most self time */
};

/* Returns 0 or an exit code (message printed). */
int ecp_cli_simrun_init(const char *cmd, struct ecp_cli_session *s, unsigned processors,
			struct ecp_simrun *run);
void ecp_cli_simrun_finish(struct ecp_simrun *run, const struct ecp_model *m);

#endif
