/* SPDX-License-Identifier: MIT */
/* The fixed DAG's edges the other way round, for the event simulations that
 * release successors when a segment ends (the replay, the engine's P-run, its
 * exact re-simulation and the oracle): one builder instead of one each. */
#ifndef ECP_SIMULATOR_DAG_SUCC_H
#define ECP_SIMULATOR_DAG_SUCC_H

#include <stdint.h>

#include "common/error.h"
#include "simulator/model/dag.h"

struct ecp_dag_succ {
	ecp_id *next;             /* thread successor of each segment, or ECP_NO_ID */
	uint32_t *out_offset;     /* n_segments + 1: CSR of cross-thread out-edges */
	ecp_id *out_to;           /* targets, grouped by source */
	uint32_t *init_remaining; /* inputs each segment waits for (thread + cross) */
};

/* Checks the indices (a predecessor or input out of range, two segments
 * claiming the same thread predecessor) and fills *succ. */
int ecp_dag_succ_init(struct ecp_dag_succ *succ, const struct ecp_dag *dag,
		      struct ecp_error *err);
void ecp_dag_succ_finish(struct ecp_dag_succ *succ);

#endif
