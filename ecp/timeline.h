/* SPDX-License-Identifier: MIT */
/* Maps a thread's CPU-time line onto the simulated run on P processors.
 *
 * The model places every function call on its thread's CPU time (ecp_call),
 * and every segment covers [cpu_start, cpu_start + length) of it; the replay
 * gives each segment's simulated interval at P.  Inside a segment the mapping
 * is linear: under processor sharing the segment's rate can change while it
 * runs, so a call's drawn position inside a segment is an interpolation
 * (exact at segment boundaries, which is where dependencies act).
 *
 * The weighted CPU integral W(c) = sum over segments of weight x (the part of
 * the segment's CPU time before c) gives any CPU interval's ECP-weighted time
 * as W(b) - W(a): the TETID of a call, the weight of a folded stack. */
#ifndef ECP_ECP_TIMELINE_H
#define ECP_ECP_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "simulator/model/model.h"

struct ecp_timeline {
	const struct ecp_model *model;
	const uint64_t *seg_start; /* simulated, at P */
	const uint64_t *seg_end;
	const double *weights;
	double *weighted_before; /* per segment: W at its cpu_start (within its thread) */
};

int ecp_timeline_init(struct ecp_timeline *tl, const struct ecp_model *m,
		      const uint64_t *seg_start, const uint64_t *seg_end,
		      const double *weights);
void ecp_timeline_finish(struct ecp_timeline *tl);

/* Simulated time of CPU instant `cpu` of `thread`.  At a boundary shared by
 * several segments (zero-length ones), an exit maps to the earliest segment
 * that reaches `cpu` and an entry to the latest that starts there. */
double ecp_timeline_sim_time(const struct ecp_timeline *tl, ecp_id thread, uint64_t cpu,
			     bool is_exit);

/* ECP-weighted CPU time of [a, b) on `thread`. */
double ecp_timeline_weighted(const struct ecp_timeline *tl, ecp_id thread, uint64_t a,
			     uint64_t b);

/* True when some segment overlapping [a, b) (or containing a when a == b)
 * has a nonzero weight. */
bool ecp_timeline_on_ecp(const struct ecp_timeline *tl, ecp_id thread, uint64_t a,
			 uint64_t b);

#endif
