/* SPDX-License-Identifier: MIT */
/* The ASAP schedule as a dependency DAG: the contract between the simulator
 * (which builds it) and the ECP engine (which differentiates it).
 *
 * ecp_dag_build() runs the model on unlimited processors ("one thread per
 * processor", the paper's Sec. 2.1): every segment starts as soon as its
 * thread predecessor has ended and its delay has passed, and all its incoming
 * dependencies have ended; lock hand-offs are decided by arrival time in that
 * run (or kept as recorded).  Once decided, the hand-offs become ordinary
 * edges, so the DAG is fixed: replays on P processors and the ECP weights are
 * all computed on it (DESIGN.md: weights are derivatives on the fixed DAG).
 *
 * Node semantics, for every segment s:
 *     start[s] = max( end[pred[s]] + delay[s]      (if pred[s] != ECP_NO_ID),
 *                     end[f] for f in in_from[in_offset[s] .. in_offset[s+1]) ,
 *                     0 )
 *     end[s]   = start[s] + length[s]
 * A segment with no predecessor and no inputs (the main thread's first) starts
 * at 0.  span = max end = T_inf; work = sum length = T_1. */
#ifndef ECP_SIMULATOR_DAG_H
#define ECP_SIMULATOR_DAG_H

#include <stdint.h>

#include "common/error.h"
#include "simulator/model/model.h"

enum ecp_lock_policy {
	ECP_LOCK_ORDER_ARRIVAL = 0, /* re-decide hand-offs by simulated arrival */
	ECP_LOCK_ORDER_RECORDED,    /* keep the recorded unlock -> acquire edges */
};

struct ecp_dag {
	uint32_t n_segments;
	uint64_t *length;    /* CPU ns per segment (the model's, or a what-if's) */
	uint64_t *delay;     /* delay before the segment (from the model) */
	ecp_id *pred;        /* previous segment of the same thread, or ECP_NO_ID */
	ecp_id *thread;      /* thread of each segment */
	uint32_t *in_offset; /* n_segments + 1 entries: CSR of incoming edges */
	ecp_id *in_from;     /* sources of the cross-thread edges in force */
	uint8_t *in_kind;    /* enum ecp_edge_kind per incoming edge */
	uint32_t n_in;
	ecp_id *topo;    /* the segments in a topological order */
	uint64_t *start; /* ASAP start per segment */
	uint64_t *end;   /* ASAP end per segment */
	uint64_t span;   /* T_inf */
	uint64_t work;   /* T_1 */
	uint64_t total_delay;
};

/* lengths: NULL for the model's own lengths, else one per segment (what-if). */
int ecp_dag_build(const struct ecp_model *model, const uint64_t *lengths,
		  enum ecp_lock_policy policy, struct ecp_dag *dag,
		  struct ecp_error *err);
void ecp_dag_finish(struct ecp_dag *dag);
/* Frees the ASAP schedule alone (start and end NULL; span, work and the
 * rest kept), for a command that reads it no more: the engine's plan
 * holds it as node times (ecp_engine_create_consuming). */
void ecp_dag_free_schedule(struct ecp_dag *dag);

/* The delays on a critical path of the ASAP schedule: following, back from
 * the segment that ends last, the predecessor or input that ended when each
 * segment started (a delay counts where it was what held the start).  No
 * number of processors shortens them: with what T_inf holds of them, the
 * answer says how much of the run is waiting on something outside the
 * program's threads (sleeps, I/O, timeouts kept, other processes). */
uint64_t ecp_dag_span_delay(const struct ecp_dag *dag);
/* That path, step by step: for each segment s on it (back from the one
 * that ends last), what held its start -- the input `from` that ended then,
 * or its thread predecessor after its delay (by_delay) -- until a start no
 * input explains. */
void ecp_dag_walk_critical_path(const struct ecp_dag *dag,
				void (*step)(void *ctx, ecp_id s, ecp_id from,
					     bool by_delay),
				void *ctx);
/* The same, split by what each delay waited in (the model's segments'
 * delay_kind) into by_kind, zeroed first. */
uint64_t ecp_dag_span_delay_by_kind(const struct ecp_dag *dag, const struct ecp_model *m,
				    uint64_t by_kind[ECP_DELAY_KINDS]);

#endif
