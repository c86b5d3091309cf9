/* The prose of `ecp report`'s table output: what the columns mean, which
 * functions' calls the recorder folded, and the closing reading (what to
 * optimise at this P, its weight, and where the answer changes with P). */
#ifndef ECP_CLI_REPORT_READING_H
#define ECP_CLI_REPORT_READING_H

#include <stdio.h>

#include "cli/session.h"
#include "ecp/analysis.h"

/* What TET, TETID, calls, %T_P, work, span and idle mean, and when to look
 * at which. */
void ecp_report_print_legend(FILE *out);

/* "N calls of K functions (a, b, ...) shorter than ... were folded"; nothing
 * when no call was folded. */
void ecp_report_print_folded(FILE *out, const struct ecp_model *m);

/* The closing reading for the analysis `a` at P (a's functions sorted by
 * TET): the function to optimise, its weight (ms of run time one ms of its
 * own time saves), and the P at which the top function changes, from a
 * sweep over P = 1..max(16, P).  Returns 0 or an exit code (message
 * printed). */
int ecp_report_print_reading(FILE *out, const char *cmd, const struct ecp_cli_session *s,
			     const struct ecp_analysis *a, unsigned processors);

#endif
