/* SPDX-License-Identifier: MIT */
/* An independent, deliberately simple simulator used as a test oracle for
 * ecp_dag_build() and the ideal replay: quadratic loops over all segments at
 * every instant, no heaps, no CSR, no time-warp.  It reads the model directly
 * and re-implements the documented rules (dag.c's header):
 *  - ASAP on unlimited processors, lock hand-offs decided by arrival: at each
 *    instant, first everything that needs no decision (ends, releases,
 *    starts of ready segments, recursive re-acquisitions), then one grant at
 *    a time to the smallest (request time, thread, segment) among requests
 *    their lock can accept (rwlocks: readers admitted while no writer holds).
 *  - P processors, ideal sharing: small steps between events, n running
 *    segments each at min(1, P/n), delays in real time, lock order as the
 *    ASAP run decided it (each acquisition waits for the releases of every
 *    earlier incompatible grant of its lock). */
#ifndef ECP_TESTS_SIM_ORACLE_H
#define ECP_TESTS_SIM_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "simulator/model/model.h"

struct oracle_run {
	uint64_t *start, *end; /* ASAP, per segment */
	uint32_t *grant_seq;   /* per segment: order of its lock grant, or UINT32_MAX */
	uint64_t span;
};

/* 0 on success, -1 on deadlock, -2 on a release of a lock not held. */
int oracle_asap(const struct ecp_model *m, bool recorded, struct oracle_run *out);
void oracle_run_free(struct oracle_run *r);

/* The makespan on p processors (0 = unlimited); per-segment start and end
 * into t_start/t_end when not NULL.  Returns a negative value on deadlock. */
double oracle_replay(const struct ecp_model *m, bool recorded,
		     const struct oracle_run *asap, unsigned p, double *t_start,
		     double *t_end);

#endif
