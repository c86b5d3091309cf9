/* SPDX-License-Identifier: MIT */
/* The sweep over processor counts shared by `ecp scan` and `ecp viz`: one
 * analysis per P, the functions worth showing, and the crossovers (the P at
 * which the function with the largest TET changes). */
#ifndef ECP_CLI_PROCESSOR_SWEEP_H
#define ECP_CLI_PROCESSOR_SWEEP_H

#include <stddef.h>

#include "cli/session.h"
#include "ecp/analysis.h"

struct ecp_cli_sweep_point {
	unsigned processors;
	struct ecp_analysis analysis;
	struct ecp_function_result **by_function; /* by function id; NULL if absent */
};

struct ecp_cli_sweep {
	struct ecp_cli_sweep_point *points;
	size_t n_points;
	ecp_id *shown; /* by decreasing peak TET; every P's top is included */
	size_t n_shown;
	size_t *crossover_at; /* indices i > 0 into points where the top changes */
	size_t n_crossovers;
};

/* Returns 0 or an exit code (message printed).  `top`: functions to show
 * besides those that are the top at some P. */
int ecp_cli_sweep_run(const char *cmd, const struct ecp_cli_session *s,
		      const unsigned *processors, size_t n, size_t top,
		      struct ecp_cli_sweep *out);
/* The same without the note on approximate weights (for a caller that has
 * already said it for the P it reports). */
int ecp_cli_sweep_run_quiet(const char *cmd, const struct ecp_cli_session *s,
			    const unsigned *processors, size_t n, size_t top,
			    struct ecp_cli_sweep *sw);
void ecp_cli_sweep_finish(struct ecp_cli_sweep *sw);

/* The function with the largest positive TET at a point, or NULL. */
const struct ecp_function_result *ecp_cli_sweep_top(const struct ecp_cli_sweep_point *p);

#endif
