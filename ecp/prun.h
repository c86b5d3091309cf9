/* The P-processor run of a fixed DAG, simulated event by event.
 *
 * Ideal processor sharing (the paper's model): while n segments are runnable
 * each progresses at min(1, P/n); delays elapse in real time and use no
 * processor.  Without delays this run is a time-warp of the ASAP schedule and
 * the engine never needs it; with delays it does not warp, so the engine
 * simulates it to get T_P, and to place every node on the run's *work clock*
 * W (dW/dt = min(1, P/n), and 1 while nothing runs), on which the run is again
 * a warp (see ecp/plan.h and ecp/engine.c for what that approximates).
 *
 * Floating point (long double); events closer than a relative 1e-12 are one
 * instant.  O(E log E). */
#ifndef ECP_ECP_PRUN_H
#define ECP_ECP_PRUN_H

#include <stdint.h>

#include "common/error.h"
#include "simulator/dag.h"

struct ecp_prun {
	double *node_time; /* real time, 2 per segment ([2s] start, [2s+1] end) */
	double *node_work; /* work clock W of the same nodes */
	uint8_t
	    *pred_tight;   /* per segment: the thread edge (with its delay) released it */
	uint8_t *in_tight; /* per in-edge: that edge released it */
	long double makespan;
	uint32_t n_instants;
};

/* processors: P, or 0 for unlimited. */
int ecp_prun_simulate(const struct ecp_dag *dag, unsigned processors,
		      struct ecp_prun *run, struct ecp_error *err);
void ecp_prun_finish(struct ecp_prun *run);

#endif
