/* SPDX-License-Identifier: MIT */
/* Hand-built DAGs and models for the engine tests.
 *
 * Until the simulator's ecp_dag_build() is available the tests construct
 * struct ecp_dag directly: segments per thread (with their delay), cross
 * edges end -> start, and a forward pass computing the ASAP start/end, the
 * topological order, work and span exactly as simulator/model/dag.h defines them. */
#ifndef ECP_TESTS_ENGINE_FIXTURE_H
#define ECP_TESTS_ENGINE_FIXTURE_H

#include <stdint.h>

#include "simulator/model/dag.h"
#include "simulator/model/model.h"

#define FX_MAX_ACT 8

struct fx_act {
	ecp_id function;
	uint32_t calls;
	uint64_t self_ns, incl_ns;
};

struct fx {
	struct ecp_dag dag;
	struct ecp_model model;
	/* building */
	uint32_t n_seg, cap_seg;
	uint64_t *length, *delay;
	ecp_id *pred, *thread;
	uint32_t n_edge, cap_edge;
	ecp_id *edge_from, *edge_to;
	uint32_t n_thread_last; /* size of last_of_thread and start_fn */
	ecp_id *last_of_thread;
	ecp_id *start_fn; /* by thread: ECP_NO_ID unless fx_start set it */
	uint32_t *n_act;
	struct fx_act (*act)[FX_MAX_ACT];
	uint32_t n_functions;
	char **names;
};

void fx_init(struct fx *f);
void fx_free(struct fx *f);
/* Appends a segment to `thread` (its predecessor is the thread's last one). */
ecp_id fx_seg(struct fx *f, ecp_id thread, uint64_t length, uint64_t delay);
/* The end of `from` releases the start of `to`. */
void fx_edge(struct fx *f, ecp_id from, ecp_id to);
/* Function activity in a segment; functions are created by index on demand. */
void fx_act(struct fx *f, ecp_id seg, ecp_id function, uint32_t calls, uint64_t self_ns,
	    uint64_t incl_ns);
/* A segment made of one function running for its whole length. */
ecp_id fx_run(struct fx *f, ecp_id thread, ecp_id function, uint64_t length,
	      uint64_t delay);
void fx_name(struct fx *f, ecp_id function, const char *name);
/* Thread's start routine: its segments without activities are that
 * function's, all of them (model.h's implicit activity). */
void fx_start(struct fx *f, ecp_id thread, ecp_id function);
/* Builds dag and model; returns 0, or -1 if the edges form a cycle. */
int fx_build(struct fx *f);

#endif
