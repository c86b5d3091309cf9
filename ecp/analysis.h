/* SPDX-License-Identifier: MIT */
/* The answer to "which functions matter on P processors": the contract between
 * the ECP engine (ecp/) and everything that shows results (viz/, cli/).
 *
 * ecp_analyze() takes the model and its fixed ASAP DAG (simulator/model/dag.h) and,
 * for one processor count P (0 = unlimited), computes every segment's weight
 * (DESIGN.md: (T_P - T_P with the segment shortened by eps) / eps), the
 * predicted run time and idle time, and the per-function attribution of the
 * paper's Sec. 2.2 (calls on the ECP, TET, TETID), with the work (P = 1) and
 * span (P = unlimited) profiles of Cilkprof and Tallent's idleness at P. */
#ifndef ECP_ECP_ANALYSIS_H
#define ECP_ECP_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "ecp/options.h"
#include "simulator/model/dag.h"
#include "simulator/model/model.h"

#define ECP_UNLIMITED 0u

struct ecp_function_result {
	ecp_id function;     /* index into model->functions */
	uint64_t calls;      /* entries in segments on the ECP (weight != 0) at P */
	double tet_ns;       /* sum over segments of weight x exclusive time */
	double tetid_ns;     /* sum over segments of weight x inclusive time */
	double work_ns;      /* exclusive time at P = 1 (the ordinary profile) */
	double span_ns;      /* TET at P = unlimited (on the critical path) */
	double span_incl_ns; /* TETID at P = unlimited */
	double idle_ns;      /* processor time idle while this function ran, at P */
	bool inexact;        /* some segment it ran in has a weight that could not
			      * be verified exact (see ecp_analysis.inexact_segments) */
};

struct ecp_analysis {
	unsigned processors;           /* P; ECP_UNLIMITED for unlimited */
	uint64_t makespan_ns;          /* T_P predicted on the fixed DAG */
	uint64_t work_ns;              /* T_1 */
	uint64_t span_ns;              /* T_inf */
	uint64_t idle_ns;              /* I_P = processor time idle before T_P */
	double speedup;                /* T_1 / T_P */
	bool weights_exact;            /* every weight is the exact definition; false only
					* when the program sleeps and the exact
					* re-simulations needed exceed the budget
					* (ecp/engine.h), see inexact_segments */
	uint32_t inexact_segments;     /* segments whose weight is unverified */
	uint32_t resimulated_segments; /* segments whose weight was re-simulated */
	uint32_t synced_segments;      /* of those, the ones whose re-simulation
					* ended at a snapshot by the reverse pass's
					* adjoints (ecp/tangent.h) */
	uint32_t reverse_pass_segments;        /* ... given by the reverse pass over the
						* P-run instead (ecp/adjoint.h) */
	double *weights;                       /* per segment (n_segments) */
	struct ecp_function_result *functions; /* sorted by tet_ns descending */
	size_t n_functions;
};

/* opts: the engine's knobs (ecp/options.h), NULL for the defaults. */
int ecp_analyze(const struct ecp_model *model, const struct ecp_dag *dag,
		unsigned processors, const struct ecp_engine_options *opts,
		struct ecp_analysis *out, struct ecp_error *err);
void ecp_analysis_finish(struct ecp_analysis *analysis);

#endif
