/* SPDX-License-Identifier: MIT */
/* ecp scan's answer: predicted T_P per P, the TET of the top functions per
 * P, and the crossovers -- the processor counts at which the function that
 * matters most changes. */
#ifndef ECP_ANSWERS_SCAN_H
#define ECP_ANSWERS_SCAN_H

#include <stdint.h>
#include <stdio.h>

#include "answers/format.h"
#include "answers/sweep.h"
#include "common/error.h"
#include "simulator/model/consistency.h"

struct ecp_scan_answer {
	const char *trace_dir;
	const struct ecp_model *model;
	uint64_t work_ns, span_ns; /* T_1 and T_inf of the model's DAG */
	const struct ecp_answer_sweep *sweep;
	const uint64_t *linux_makespan; /* T_P of the Linux-like model per P, or NULL */
	const struct ecp_consistency *consistency;
};

/* Returns 0, or -1 with *err set (a write failed). */
int ecp_scan_write(FILE *out, enum ecp_format format, const struct ecp_scan_answer *a,
		   struct ecp_error *err);

#endif
