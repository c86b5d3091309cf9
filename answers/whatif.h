/* SPDX-License-Identifier: MIT */
/* ecp whatif's answer: the paper's "pseudo-optimized" simulation (its
 * Sec. 7).  The named functions' time (inclusive, or exclusive with --self)
 * shrinks by a percentage in every segment, the program is simulated again
 * (lock hand-offs re-decided), and the run times are compared with the
 * baseline at every P. */
#ifndef ECP_ANSWERS_WHATIF_H
#define ECP_ANSWERS_WHATIF_H

#include <stddef.h>
#include <stdio.h>

#include "answers/format.h"
#include "answers/progress.h"
#include "common/error.h"
#include "ecp/whatif.h"
#include "simulator/model/consistency.h"
#include "simulator/model/dag.h"
#include "simulator/replay/replay.h"

/* The simulated runs, baseline and faster, at each of n processor counts. */
struct ecp_whatif_runs {
	size_t n;
	struct ecp_replay *base;
	struct ecp_replay *what;
};

/* Simulates the model as recorded (its DAG) and with the changes applied,
 * under the scheduler model `sched`.  Returns 0, or -1 with *err set;
 * finish *out either way. */
int ecp_whatif_runs_make(const struct ecp_model *m, const struct ecp_dag *dag,
			 const struct ecp_whatif_change *changes, size_t n_changes,
			 enum ecp_lock_policy lock_order, enum ecp_sched_model sched,
			 const unsigned *processors, size_t n,
			 const struct ecp_answer_progress *progress,
			 struct ecp_whatif_runs *out, struct ecp_error *err);
void ecp_whatif_runs_finish(struct ecp_whatif_runs *runs);

/* One name the user gave, what it found and how much faster it is. */
struct ecp_whatif_asked {
	const char *name;
	const char *found; /* the function's full name, or "N functions" */
	double faster_pct;
};

struct ecp_whatif_answer {
	const char *trace_dir;
	enum ecp_sched_model sched;
	enum ecp_whatif_scope scope;
	const unsigned *processors;
	const struct ecp_whatif_runs *runs; /* runs->n processor counts */
	const struct ecp_whatif_asked *asked;
	size_t n_asked;
	const struct ecp_model *model; /* its warnings */
	const struct ecp_consistency *consistency;
};

/* Returns 0, or -1 with *err set (a write failed). */
int ecp_whatif_write(FILE *out, enum ecp_format format,
		     const struct ecp_whatif_answer *ans, struct ecp_error *err);

#endif
