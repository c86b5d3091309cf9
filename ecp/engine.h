/* Segment weights, T_P and idleness for any P on a fixed DAG: the engine
 * under ecp_analyze(), exposed for sweeps over P (`ecp scan`) and tests.
 *
 * Exactness: without delays (and for P = unlimited with or without them) the
 * weights are exactly the paper's definition (the brute-force oracle,
 * ecp/oracle.h, agrees bit for bit on ties too).  With delays and finite P
 * the P-run is no longer a warp of the ASAP schedule; the engine simulates it
 * and differentiates it on its work clock, holding each delay's work-clock
 * length fixed: a shortening that changes the processor share *during* a
 * delay is not propagated through that delay (see ecp/engine.c and the
 * measured disagreement in tests/engine/test-engine-property.c). */
#ifndef ECP_ECP_ENGINE_H
#define ECP_ECP_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/dag.h"

struct ecp_engine;

struct ecp_run_summary {
	long double makespan; /* T_P */
	long double idle;     /* I_P: processor time idle before T_P (0 when unlimited) */
	bool exact;           /* weights are the exact definition (see above) */
};

/* Prepares the P-independent part (O(E log E)); the DAG must outlive it. */
int ecp_engine_create(const struct ecp_dag *dag, struct ecp_engine **engine,
		      struct ecp_error *err);
void ecp_engine_destroy(struct ecp_engine *engine);

/* processors: P, 0 for unlimited.  weights and seg_idle (n_segments each) may
 * be NULL.  seg_idle: Tallent's idle charge of each segment at P. */
int ecp_engine_run(struct ecp_engine *engine, unsigned processors, double *weights,
		   double *seg_idle, struct ecp_run_summary *summary,
		   struct ecp_error *err);

/* The largest number of segments running at once in the ASAP run: from this
 * P on, weights equal those at unlimited P (nothing shares a processor). */
uint32_t ecp_engine_saturation(const struct ecp_engine *engine);

/* From P = saturation on, a segment's idle charge is P * per_p[s] - fixed[s]
 * (n_segments each): sweeps over large P need no pass over the timeline. */
void ecp_engine_idle_linear(const struct ecp_engine *engine, double *per_p,
			    double *fixed);

/* One-shot convenience: weights of every segment at P. */
int ecp_weights(const struct ecp_dag *dag, unsigned processors, double *weights,
		struct ecp_error *err);

#endif
