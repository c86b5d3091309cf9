/* SPDX-License-Identifier: MIT */
/* A progress line on stderr for long analyses: only when stderr is a
 * terminal (never in pipes or logs), only once the work has taken half a
 * second (no flicker on small traces), rewritten in place and erased when
 * the work is done, so that the answer on stdout is all that remains. */
#ifndef ECP_CLI_PROGRESS_H
#define ECP_CLI_PROGRESS_H

#include <stdbool.h>

#include "answers/progress.h"

struct ecp_progress {
	const char *cmd;
	bool on;    /* stderr is a terminal */
	bool shown; /* a line is on the screen */
	double start;
};

void ecp_cli_progress_init(struct ecp_progress *p, const char *cmd);
void ecp_cli_progress_update(struct ecp_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ecp_cli_progress_done(struct ecp_progress *p);
/* The line as the answers' progress hooks (answers/progress.h). */
struct ecp_answer_progress ecp_cli_progress_hooks(struct ecp_progress *p);

#endif
