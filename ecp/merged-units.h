/* SPDX-License-Identifier: MIT */
/* The DAG the P-runs with delays simulate: each run of a thread's
 * consecutive segments that nothing else observes, merged into one unit.
 *
 * Segment s + 1 joins the unit of s when it is the thread successor of s
 * (pred[s + 1] == s, and no other segment's), follows it without a delay,
 * waits for no other segment, and no other segment waits for s.  Then the
 * boundary between them is an event nothing reacts to: s + 1 starts the
 * instant s ends, on the same thread, so the running count does not change
 * and the run of every other segment is the same whatever the split of
 * their lengths.  T_P depends on the two lengths only through their sum,
 * so both have the unit's weight (a segment of length 0 keeps weight 0:
 * it cannot be shortened), and the P-run, its reverse pass and its
 * re-simulations process one event per unit instead of one per segment.
 * Only the idle charges are per segment: the P-run splits a unit's at the
 * work-clock instants of its boundaries (ecp/prun.h).
 *
 * Units are numbered in the DAG's topological order (its first segment's
 * place there; the model's is by ASAP start): the simulations visit them
 * roughly in that order, so their per-unit arrays are read nearly
 * sequentially instead of in one stream per thread (thread-major segment
 * ids), which a 32-thread run's prefetchers could not follow.  Each unit is
 * still a range of consecutive segment ids, first[u] .. end[u] - 1. */
#ifndef ECP_ECP_MERGED_UNITS_H
#define ECP_ECP_MERGED_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model/dag.h"

struct ecp_units {
	/* The merged DAG: n_segments units with their summed lengths, the
	 * first segment's delay and thread predecessor, the edges into the
	 * first and out of the last segment, and a topological order.  Its
	 * other fields are unset (0 or NULL): the simulations do not read
	 * them. */
	struct ecp_dag dag;
	uint32_t *first; /* per unit: unit u is segments first[u] .. end[u] - 1 */
	uint32_t *end;
	/* bit u: some segment of unit u takes no time (its weight stays 0),
	 * so that the expansion reads the segments' lengths only there */
	uint64_t *has_empty;
};

/* linear: no segment is the thread predecessor of two (else nothing is
 * merged).  Leaves units->first NULL when that does not hold or the DAG
 * has no topological order: then the units are the segments and the caller
 * simulates `dag` itself. */
int ecp_units_init(struct ecp_units *units, const struct ecp_dag *dag, bool linear,
		   struct ecp_error *err);
void ecp_units_finish(struct ecp_units *units);

/* Segments of length > 0 in unit u: the weights it stands for. */
uint32_t ecp_units_weighted(const struct ecp_units *units, const uint64_t *length,
			    uint32_t u);

/* Expands per-unit weights and flags (entries 0 .. units - 1 of each array,
 * either may be NULL) into per-segment ones in the same arrays: every
 * segment of length > 0 takes its unit's, the others weight 0 and no flag.
 * Returns 0, or -1 when its scratch (a copy of the units' entries) could
 * not be allocated. */
int ecp_units_expand(const struct ecp_units *units, const uint64_t *length,
		     double *weights, uint8_t *flags);

#endif
