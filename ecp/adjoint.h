/* SPDX-License-Identifier: MIT */
/* Segment weights with delays by one reverse pass over the P-run.
 *
 * Between ties the P-run is linear in the segment lengths: instant k's real
 * time t_k and work clock w_k move with the shortening of any one segment by
 * eps as
 *   a segment y ends:     dw_k = dw_(y's start) - [y shortened]
 *                         dt_k = dt_(k-1) + F(n) (dw_k - dw_(k-1))
 *   a delay before z ends: dt_k = dt_(the end of z's predecessor)
 *                         dw_k = dw_(k-1) + (dt_k - dt_(k-1)) / F(n)
 * (n the segments running since instant k - 1, F(n) = max(1, n/P)), and
 * T_P = t_K.  The derivative of t_K with respect to every segment's
 * shortening is one pass backwards over the instants (reverse-mode
 * differentiation of that recurrence): O(instants), for every segment at
 * once.  This follows sleeps exactly, which the closed form on the work
 * clock (ecp/plan.h) does not: a sleep passes in real time, so a shortening
 * that changes the processor share while it is pending moves its end on the
 * work clock.
 *
 * The weight is a one-sided derivative, and the recurrence is that
 * derivative only on the linear piece where the events keep the order the
 * run gave them: at a tie (two events at one instant, ECP_TAPE_TIED) the
 * perturbed run orders them by what was shortened.  So one more pass per
 * tie, seeded with the tie's gap t_j - t_(j-1), finds the segments whose
 * shortening would reverse it: their weights are not the pass's.  Segments
 * ending at or before the tape's barrier, and before a tie the budget could
 * not check, are not taken either; the engine re-simulates the others
 * (ecp/tangent.h). */
#ifndef ECP_ECP_ADJOINT_H
#define ECP_ECP_ADJOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "ecp/prun.h"
#include "simulator/model/dag.h"

/* The instants the first pass processes (each tie's pass costs the instants
 * up to it). */
uint64_t ecp_adjoint_instants(const struct ecp_prun_tape *tape);

/* What the first pass leaves at the run's snapshots (ecp/prun.h) so that a
 * re-simulation (ecp/tangent.h) can stop at one: once its state there is the
 * unperturbed one but for the eps parts, and no tie after the snapshot
 * depends on that state, the rest of the perturbed run is on the tape's
 * linear piece, and dT_P/deps is the adjoints below times the state's eps
 * parts: the clocks', each running segment's end (its adjoint is the pass's
 * weight), each pending delay's wake.  Zeroed (carry NULL) when the pass did
 * not cover the whole tape. */
struct ecp_adjoint_sync {
	double *carry; /* per snapshot: the adjoints of its t and w (2 each) */
	double *wake;  /* per snapshot pool record: a delayed one's wake-time adjoint */
	uint8_t *safe; /* per snapshot: every tie after it that a shortening can
			* reorder (or the budget did not check) is independent of
			* its state */
};

/* Within `budget` instants (what it used in *spent; nothing if the first
 * pass does not fit): sets weights[s] and exact[s] = 1 for every segment of
 * nonzero length that ends after the barrier, then clears exact[s] for those
 * that leave the linear piece at a tie or end before a tie left unchecked;
 * leaves the others alone.  processors >= 1.  snaps and sync may be NULL;
 * else sync is filled for snaps (ecp_adjoint_sync_finish frees it). */
int ecp_adjoint_weights(const struct ecp_dag *dag, const struct ecp_prun_tape *tape,
			const struct ecp_prun_snapshots *snaps, unsigned processors,
			uint64_t budget, uint64_t *spent, double *weights, uint8_t *exact,
			struct ecp_adjoint_sync *sync, struct ecp_error *err);
void ecp_adjoint_sync_finish(struct ecp_adjoint_sync *sync);

#endif
