/* SPDX-License-Identifier: MIT */
/* ecp report's answer: which functions matter on P processors, their TET,
 * TETID, calls, work, span and idle, and for people a reading of it. */
#ifndef ECP_ANSWERS_REPORT_H
#define ECP_ANSWERS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "answers/format.h"
#include "answers/progress.h"
#include "answers/sweep.h"
#include "common/error.h"
#include "ecp/analysis.h"
#include "simulator/model/consistency.h"
#include "simulator/model/dag.h"

enum ecp_report_sort {
	ECP_REPORT_SORT_TET = 0,
	ECP_REPORT_SORT_TETID,
	ECP_REPORT_SORT_CALLS,
	ECP_REPORT_SORT_WORK,
	ECP_REPORT_SORT_SPAN,
	ECP_REPORT_SORT_IDLE,
	ECP_REPORT_SORTS
};
/* "tet", "tetid", ...; the names --sort takes and JSON says. */
const char *ecp_report_sort_name(enum ecp_report_sort sort);
/* Returns 0 and the sort named, or -1 for a name that is none. */
int ecp_report_sort_from_name(const char *name, enum ecp_report_sort *out);

/* What ecp report computes: the analysis at P with its functions in the
 * order asked, and for the reading under a table the sweep over
 * P = 1..max(16, P) that says where the answer changes. */
struct ecp_report_run {
	struct ecp_analysis analysis;
	bool analysed;
	struct ecp_answer_sweep reading; /* n_points 0 unless asked and needed */
};

/* `with_reading`: sweep for the reading too (table output).  Returns 0, or
 * -1 with *err set; finish *out either way. */
int ecp_report_run_make(const struct ecp_model *m, const struct ecp_dag *dag,
			const struct ecp_engine_options *opts, unsigned processors,
			enum ecp_report_sort sort, bool with_reading,
			const struct ecp_answer_progress *progress,
			struct ecp_report_run *out, struct ecp_error *err);
void ecp_report_run_finish(struct ecp_report_run *run);

/* The function with the largest positive TET, whatever the order; NULL if
 * none has time on the extended critical path. */
const struct ecp_function_result *ecp_report_top(const struct ecp_analysis *a);

struct ecp_report_answer {
	const char *trace_dir;
	const struct ecp_model *model;
	unsigned processors;
	bool processors_given; /* else P is the online CPUs, and the table says so */
	const struct ecp_report_run *run;
	size_t rows; /* the first rows of run->analysis.functions are written */
	enum ecp_report_sort sort;
	enum ecp_lock_policy lock_order;
	const struct ecp_consistency *consistency;
};

/* Returns 0, or -1 with *err set (a write failed). */
int ecp_report_write(FILE *out, enum ecp_format format,
		     const struct ecp_report_answer *ans, struct ecp_error *err);

/* "FUNCTION+0xOFF": the function that made a site's tasks, and where in
 * it (report-spawn.c; also the HTML report's spawn-site table). */
void ecp_spawn_site_name(char *buf, size_t n, const struct ecp_model *m,
			 const struct ecp_spawn_site *s);

/* ecp report --by spawnsite (report-spawn.c): work, span and parallelism
 * per task-creating call site of the model (table or JSON). */
int ecp_report_spawn_write(FILE *out, enum ecp_format format, const char *trace,
			   const struct ecp_model *m, struct ecp_error *err);

#endif
