/* SPDX-License-Identifier: MIT */
/* Segment weights, T_P and idleness for any P on a fixed DAG: the engine
 * under ecp_analyze(), exposed for sweeps over P (`ecp scan`) and tests.
 *
 * Exactness: the weights are the paper's definition (the brute-force oracle,
 * tests/engine/oracle.h, agrees on ties too) at every P, with or without delays, for
 * every segment not flagged by ecp_engine_inexact().  Flags can only appear
 * with delays at finite P when the exact re-simulations needed exceed the
 * budget (ecp_engine_set_exact_budget); see ecp/engine.c. */
#ifndef ECP_ECP_ENGINE_H
#define ECP_ECP_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "ecp/options.h"
#include "ecp/scratch.h"
#include "simulator/model/dag.h"

struct ecp_engine;

struct ecp_run_summary {
	long double makespan; /* T_P */
	long double idle;     /* I_P: processor time idle before T_P (0 when unlimited) */
	bool exact;           /* every weight is the exact definition */
};

/* Prepares the P-independent part (O(E log E)); the DAG must outlive it. */
/* opts: the caller's knobs (ecp/options.h), NULL for the defaults. */
int ecp_engine_create(const struct ecp_dag *dag, const struct ecp_engine_options *opts,
		      struct ecp_engine **engine, struct ecp_error *err);
/* The same, freeing the DAG's ASAP schedule (ecp_dag_free_schedule) once
 * read, before the plan's build, the peak (16 bytes per segment off it,
 * issue 35): for a caller that reads dag->start and dag->end no more
 * (nothing in the engine or a sweep does after this).  After an error
 * they may or may not be freed. */
int ecp_engine_create_consuming(struct ecp_dag *dag,
				const struct ecp_engine_options *opts,
				struct ecp_engine **engine, struct ecp_error *err);
void ecp_engine_destroy(struct ecp_engine *engine);

/* processors: P, 0 for unlimited.  weights and seg_idle (n_segments each) may
 * be NULL.  seg_idle: Tallent's idle charge of each segment at P. */
int ecp_engine_run(struct ecp_engine *engine, unsigned processors, double *weights,
		   double *seg_idle, struct ecp_run_summary *summary,
		   struct ecp_error *err);

/* What one run could vouch for: per segment (n_segments, the caller's), 1
 * where the weight could not be verified exact within the budget; the count
 * of those, of the weights re-simulated exactly (n_synced of them ended at a
 * snapshot by the reverse pass's adjoints, ecp/tangent.h), and of those the
 * reverse pass gave (ecp/adjoint.h) where no closed form vouched for them. */
struct ecp_engine_flags {
	uint8_t *inexact;
	uint32_t n_inexact, n_resimulated, n_synced, n_reverse;
	/* The large arrays of the runs made with these flags, kept from one
	 * to the next (ecp/scratch.h): one thread's at a time, as the flags
	 * are.  Zeroed is empty; ecp_scratch_finish() frees it. */
	struct ecp_scratch scratch;
};

/* ecp_engine_run() with its flags in `flags` instead of the engine's.  When
 * ecp_engine_simulates(engine, P), the run reads the engine and writes only
 * its arguments: such runs may go on at once in several threads, each with its
 * own outputs and flags (ecp_sweep_analyze_many() runs two). */
bool ecp_engine_simulates(const struct ecp_engine *engine, unsigned processors);
int ecp_engine_run_flagged(struct ecp_engine *engine, unsigned processors,
			   double *weights, double *seg_idle,
			   struct ecp_run_summary *summary,
			   struct ecp_engine_flags *flags, struct ecp_error *err);

/* The units the P-runs with delays simulate (ecp/merged-units.h): runs of a
 * thread's segments that nothing else observes count once (0 without
 * delays: nothing is simulated). */
uint32_t ecp_engine_simulated_units(const struct ecp_engine *engine);

/* From this P on, weights equal those at unlimited P: nothing shares a
 * processor in the ASAP run, nor after any shortening (the largest running
 * count plus the segments starting at one instant, and never more than
 * the threads). */
uint32_t ecp_engine_saturation(const struct ecp_engine *engine);

/* Instants the exact treatment of a run with delays may process per P: the
 * reverse pass (ecp/adjoint.h: the run's instants, and for each tie the
 * instants its sensitivity reaches), then the re-simulations (ecp/tangent.h,
 * a window of the run each); beyond it, segments are flagged instead. */
#define ECP_ENGINE_DEFAULT_EXACT_BUDGET 20000000ull
void ecp_engine_set_exact_budget(struct ecp_engine *engine, uint64_t events);

/* Per segment, of the last ecp_engine_run(): 1 where the weight could not
 * be verified exact within the budget (it is then the reverse pass's linear
 * piece next to the segment's own, or the closed form's); counts of those
 * and of the segments re-simulated exactly. */
const uint8_t *ecp_engine_inexact(const struct ecp_engine *engine, uint32_t *n_inexact,
				  uint32_t *n_resimulated);
/* Of the last run: the weights the reverse pass over the P-run gave exactly
 * (ecp/adjoint.h), where no closed form vouched for them. */
uint32_t ecp_engine_reverse_pass_weights(const struct ecp_engine *engine);
/* Of the last run: the re-simulations that ended at a snapshot by the
 * reverse pass's adjoints (ecp/tangent.h). */
uint32_t ecp_engine_synced_weights(const struct ecp_engine *engine);

/* From P = saturation on, a segment's idle charge is P * per_p[s] - fixed[s]
 * (n_segments each): sweeps over large P need no pass over the timeline. */
void ecp_engine_idle_linear(const struct ecp_engine *engine, double *per_p,
			    double *fixed);

#endif
