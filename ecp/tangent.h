/* SPDX-License-Identifier: MIT */
/* Exact segment weights where the closed form (ecp/plan.h) is not enough:
 * the P-run re-simulated with one segment shortened by a symbolic eps.
 *
 * With delays (sleep, blocking I/O) and a finite P, a delay passes in real
 * time while the closed form works on the run's work clock; a shortening that
 * changes the processor share while a delay is pending moves that delay's end
 * on the work clock, and the closed form does not follow.  This module
 * follows it literally: every time is a + b*eps, compared lexicographically
 * (the exact one-sided derivative for an infinitesimal eps, ties included),
 * and the weight is -b of the makespan.  It is the oracle's definition
 * (tests/engine/oracle.c) run with heaps, from the unperturbed run's last snapshot
 * (ecp/prun.h) before the segment starts, and only until the perturbation
 * has become a pure shift in time, or until a snapshot from which the
 * reverse pass's adjoints give the rest (ecp/adjoint.h): a window of the
 * run per segment instead of the oracle's whole run.  The engine calls it only for the
 * segments the reverse pass (ecp/adjoint.h) or the closed form cannot vouch for
 * (ecp/engine.c). */
#ifndef ECP_ECP_TANGENT_H
#define ECP_ECP_TANGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "ecp/adjoint.h"
#include "ecp/prun.h"
#include "simulator/model/dag-succ.h"
#include "simulator/model/dag.h"

struct ecp_tangent;

/* processors: P >= 1, or 0 for unlimited; unperturbed: the P-run of dag
 * on them, simulated with ECP_PRUN_TAPE | ECP_PRUN_SNAPSHOTS (its tape's
 * per-segment instants are what it reads).  pass and sync (both NULL, or
 * both given): the reverse pass's weights over the whole tape, as it left
 * them, and what it left at the snapshots (ecp/adjoint.h); with them a
 * re-simulation also stops at the first safe snapshot where its state is
 * the unperturbed run's but for the eps parts.  Everything given must
 * outlive the tangent, unchanged.  scratch (may be NULL): where its large
 * arrays come from and go back to (ecp/scratch.h). */
int ecp_tangent_create(const struct ecp_dag *dag, const struct ecp_dag_succ *succ,
		       unsigned processors, const struct ecp_prun *unperturbed,
		       const double *pass, const struct ecp_adjoint_sync *sync,
		       struct ecp_scratch *scratch, struct ecp_tangent **tangent,
		       struct ecp_error *err);
void ecp_tangent_destroy(struct ecp_tangent *tangent);

/* The exact weight of one segment (0 for a zero-length one) into *weight,
 * or false when finding it would take more than max_events instants (the
 * re-simulation stops as soon as the rest of the run is the unperturbed
 * one shifted in time). */
bool ecp_tangent_weight(struct ecp_tangent *tangent, uint32_t segment,
			uint64_t max_events, double *weight);

/* Instants all re-simulations have processed so far: the cost unit the
 * engine budgets with. */
uint64_t ecp_tangent_events(const struct ecp_tangent *tangent);
/* Re-simulations that ended at a snapshot by the pass's adjoints. */
uint64_t ecp_tangent_synced(const struct ecp_tangent *tangent);

#endif
