/* SPDX-License-Identifier: MIT */
/* Asking the answers layer (answers/) as every command does: the progress
 * line on a terminal, a failure said as "ecp CMD: error: ..." with an exit
 * code, and the note on weights that could not be verified exact. */
#ifndef ECP_CLI_ASK_H
#define ECP_CLI_ASK_H

#include <stdbool.h>
#include <stddef.h>

#include "answers/simrun.h"
#include "answers/sweep.h"
#include "cli/session.h"

/* The sweep over n processor counts; `warn`: say which weights are not
 * verified exact (off for a caller that said it for its own P); `last`:
 * the caller reads the model's segment records and the DAG's ASAP
 * schedule no more, so they are freed before the sweep's peak
 * (ecp_answer_sweep_run_freeing).  Returns 0 or an exit code (message
 * printed); finish *out either way. */
int ecp_cli_ask_sweep(const char *cmd, struct ecp_cli_session *s,
		      const unsigned *processors, size_t n, size_t top, bool warn,
		      bool last, struct ecp_answer_sweep *out);

/* The simulated run at P.  Returns 0 or an exit code (message printed);
 * finish *run either way. */
int ecp_cli_ask_simrun(const char *cmd, const struct ecp_cli_session *s,
		       unsigned processors, struct ecp_simrun *run);

#endif
