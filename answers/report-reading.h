/* SPDX-License-Identifier: MIT */
/* The prose of `ecp report`'s table output: what the columns mean, which
 * functions' calls the recorder folded, and the closing reading (what to
 * optimise at this P, its weight, and where the answer changes with P). */
#ifndef ECP_ANSWERS_REPORT_READING_H
#define ECP_ANSWERS_REPORT_READING_H

#include <stdio.h>

#include "answers/sweep.h"
#include "ecp/analysis.h"
#include "simulator/model/model.h"

/* What TET, TETID, calls, %T_P, work, span and idle mean, and when to look
 * at which. */
void ecp_report_print_legend(FILE *out);

/* "N calls of K functions (a, b, ...) shorter than ... were folded"; nothing
 * when no call was folded. */
void ecp_report_print_folded(FILE *out, const struct ecp_model *m);

/* The closing reading for the analysis `a` at P (a's functions sorted by
 * TET): the function to optimise, its weight (ms of run time one ms of its
 * own time saves), and the P at which the top function changes, from
 * `sweep` over P = 1..max(16, P) (ecp_report_reading_sweep; NULL when no
 * function has TET at P). */
void ecp_report_print_reading(FILE *out, const struct ecp_model *m,
			      const struct ecp_analysis *a, unsigned processors,
			      const struct ecp_answer_sweep *sweep);

/* Functions timed by samples: fewer than this many samples and their
 * self time is uncertain by more than ±20% (95%); marked "~". */
#define ECP_FEW_SAMPLES 100
/* The 95% relative error of a time estimated from n samples (1.96/sqrt n);
 * 0 for n = 0 (not sampled: instrumented, exact). */
double ecp_report_sample_error(uint64_t n);
/* What the samples column and "~" mean, and how many samples there were. */
void ecp_report_print_sample_legend(FILE *out, const struct ecp_model *m);

#endif
