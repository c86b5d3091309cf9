/* SPDX-License-Identifier: MIT */
/* Two recordings of one program, side by side (`ecp compare BASE OTHER`).
 *
 * The mode follows from where each was recorded (ecp_model_info.recorded_cpus):
 *
 *  - before/after: both on one CPU (a change to the program between them).
 *    Per function, matched by name: its work in each, the difference and
 *    ratio, and its TET at every P asked; T_P of both at every P.  Rows by
 *    the largest absolute change of work first.
 *  - measured at N: BASE on one CPU, OTHER run unpinned on N CPUs (`ecp
 *    record --cpus`), whose durations are what they cost side by side and
 *    whose wall time is a measured T_N.  Acar, Chargueraud and Rainey's work
 *    inflation accounting (ecp_inflation below), per function and per thread
 *    the work at 1 against the work at N.  Rows by extra time first.
 *
 * The engine (ecp/sweep.h) gives every T_P and TET; nothing here prints. */
#ifndef ECP_ECP_COMPARE_H
#define ECP_ECP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "ecp/options.h"
#include "ecp/handoff.h"
#include "ecp/inflated.h"
#include "simulator/model/dag.h"
#include "simulator/model/model.h"

/* The most CPUs a measured recording may have run on: the largest P the
 * engine is asked for anywhere (the CLI's -P bound). */
#define ECP_COMPARE_MAX_CPUS 4096u

enum ecp_compare_mode {
	ECP_COMPARE_BEFORE_AFTER = 0,
	ECP_COMPARE_MEASURED,
};

/* "before_after" or "measured", as JSON names the mode. */
const char *ecp_compare_mode_name(enum ecp_compare_mode mode);

/* From the CPUs each side was recorded on (0 counts as 1): the mode, and
 * whether BASE is the N-CPU side (the two are then exchanged).  Both on
 * more than one CPU, or on more than ECP_COMPARE_MAX_CPUS, is an error
 * (ECP_ERR) saying which. */
int ecp_compare_mode_of(uint64_t base_cpus, uint64_t other_cpus,
			enum ecp_compare_mode *mode, bool *swapped,
			struct ecp_error *err);

/* Work inflation at N (the paper's Facts 2.1-2.4 and 2.8), every figure in
 * integer ns: with T_1 the single-CPU run time, T_N the one measured on N
 * CPUs, W_N the work the program's threads did there and R_N the CPU time
 * the run spent outside the threads' segments (the recorder, thread
 * set-up):
 *     F_N = W_N - T_1              (work inflation, may be negative)
 *     I_N = N T_N - W_N - R_N      (idle: CPU time the N CPUs did not give
 *                                   to the program)
 * so that N T_N = T_1 + F_N + I_N + R_N exactly.  T^_N, the model's
 * prediction at N, gives the idle it foresaw, I^_N = N T^_N - T_1.
 *
 * Speedups are the paper's factored ones with T_s = T_1 (no sequential
 * baseline is measured): maximal N T_s / T_1 is then N itself. */
struct ecp_inflation_input {
	uint64_t cpus;            /* N */
	uint64_t t1_ns;           /* T_1 */
	uint64_t tn_ns;           /* T_N measured */
	uint64_t tn_predicted_ns; /* T^_N */
	uint64_t wn_ns;           /* W_N */
	uint64_t program_cpu_ns;  /* the N-CPU run's CPU time (0: unknown) */
};

struct ecp_inflation {
	uint64_t cpus;
	int64_t t1_ns, tn_ns, tn_predicted_ns, wn_ns;
	int64_t rn_ns; /* program_cpu_ns - W_N; 0 when that is unknown */
	bool rn_known;
	int64_t fn_ns, in_ns, in_predicted_ns;
	/* N (T_N - T^_N) = F_N + (I_N - I^_N) + R_N: the gap between measured
	 * and predicted in CPU time, split three ways (divide by N for wall
	 * time) */
	int64_t gap_cpu_ns, unforeseen_idle_ns;
	/* NaN where a denominator is not positive */
	double speedup_linear, speedup_maximal, speedup_idle, speedup_inflation,
	    speedup_actual, speedup_predicted;
};

/* Fills *out; ECP_ERR when an input or a product does not fit int64 (runs
 * of 2^63 ns / N and more). */
int ecp_inflation_account(const struct ecp_inflation_input *in, struct ecp_inflation *out,
			  struct ecp_error *err);

struct ecp_compare_input {
	const struct ecp_model *base, *other;
	const struct ecp_dag *base_dag, *other_dag; /* their ASAP DAGs */
	/* before/after: the P for T_P and TET; measured: for the
	 * inflation-aware prediction, N added (sorted, each >= 1) */
	const unsigned *processors;
	size_t n_processors;
	/* how the ideal DAGs re-decided lock hand-offs: the inflation-aware
	 * model does the same */
	enum ecp_lock_policy lock_policy;
	/* measured: also the inflation-aware prediction, which rebuilds
	 * BASE's DAG from lengthened segments (ecp_dag_build: a model whose
	 * segments belong to threads, as every recorded one) */
	bool inflation_aware;
	/* the engine's knobs (ecp/options.h), NULL for the defaults */
	const struct ecp_engine_options *engine_options;
};

/* A function, by name; *_base / *_other after any exchange of the sides. */
struct ecp_compare_function {
	const char *name;       /* borrowed from a model */
	bool in_base, in_other; /* ran in that recording (has activity there) */
	uint64_t work_base_ns;  /* exclusive time (before/after: in BASE; */
	uint64_t work_other_ns; /*  measured: work at 1 and at N) */
	int64_t diff_ns;        /* other - base (measured: the extra ns) */
	double ratio;           /* other / base; NaN when base is 0 */
	double *tet_base_ns;    /* before/after: per P; NULL in measured mode */
	double *tet_other_ns;
};

/* A thread, by the order of creation in each recording (the time its
 * parent called pthread_create; main first); measured mode only. */
struct ecp_compare_thread {
	uint32_t index;                        /* its place in that order */
	const struct ecp_thread *base, *other; /* NULL where that side has fewer */
	uint64_t work_base_ns, work_other_ns;
	int64_t diff_ns;
	double ratio;
};

struct ecp_compare_point {
	unsigned processors;
	uint64_t makespan_base_ns, makespan_other_ns;
	int64_t diff_ns;
	/* segments whose weight the engine could not verify exact there */
	uint32_t inexact_base, inexact_other;
};

struct ecp_compare_result {
	enum ecp_compare_mode mode;
	bool swapped;                         /* the given BASE was the N-CPU recording */
	bool same_program;                    /* the recorded command lines are equal */
	const struct ecp_model *base, *other; /* after the exchange */
	struct ecp_compare_point *points;     /* before/after: per P */
	size_t n_points;
	struct ecp_compare_function *functions;
	size_t n_functions;
	struct ecp_compare_thread *threads;
	size_t n_threads;
	struct ecp_inflation inflation; /* measured mode */
	/* measured mode: the inflation-aware prediction (ecp/inflated.h) at
	 * every P asked and N, and its T_N */
	struct ecp_inflated inflated;
	uint64_t tn_inflated_ns;
	/* measured mode: the hand-offs each recording saw (ecp/handoff.h) */
	struct ecp_handoffs handoffs_base, handoffs_other;
	/* private: the TET arrays the rows point into */
	double *tet;
};

/* Functions with no work on either side are left out.  Returns 0 or an
 * error (the mode's, the engine's, out of memory). */
int ecp_compare(const struct ecp_compare_input *in, struct ecp_compare_result *out,
		struct ecp_error *err);
void ecp_compare_finish(struct ecp_compare_result *r);

#endif
