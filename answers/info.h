/* SPDX-License-Identifier: MIT */
/* ecp info's answer: a recorded trace summarised -- program, threads,
 * events, losses, clock source, work T1, span T_inf (the critical path on
 * unlimited processors, from the ASAP DAG), parallelism and the top
 * functions by work (exclusive CPU time, i.e. an ordinary profile). */
#ifndef ECP_ANSWERS_INFO_H
#define ECP_ANSWERS_INFO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "answers/format.h"
#include "common/error.h"
#include "simulator/model/consistency.h"
#include "simulator/model/dag.h"
#include "simulator/model/model.h"

/* How many functions the summary lists by work. */
#define ECP_INFO_TOP_FUNCTIONS 10

struct ecp_info_function {
	ecp_id function;
	uint64_t work_ns;
	uint64_t calls; /* with the calls the recorder folded */
};

/* The functions with the most work, at most ECP_INFO_TOP_FUNCTIONS with
 * work, by decreasing work: *top (free it) and *n.  Returns 0, or -1 with
 * *err set. */
int ecp_info_top_functions(const struct ecp_model *m, struct ecp_info_function **top,
			   size_t *n, struct ecp_error *err);

struct ecp_info_answer {
	const struct ecp_model *model;
	const struct ecp_dag *dag;
	const struct ecp_info_function *top;
	size_t n_top;
	const struct ecp_consistency *consistency;
};

/* ECP_FORMAT_TABLE or ECP_FORMAT_JSON.  Returns 0, or -1 with *err set. */
int ecp_info_write(FILE *out, enum ecp_format format, const struct ecp_info_answer *ans,
		   struct ecp_error *err);

#endif
