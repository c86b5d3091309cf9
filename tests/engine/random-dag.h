/* SPDX-License-Identifier: MIT */
/* Random models for the engine's property tests: fork/join fan-in,
 * broadcast fan-out, barriers, thread chains, zero-length segments and
 * lengths drawn from a tiny set so that ties are everywhere (or, for the
 * differentiability invariant, from a wide range so that there are none). */
#ifndef ECP_TESTS_ENGINE_RANDOM_DAG_H
#define ECP_TESTS_ENGINE_RANDOM_DAG_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/engine/fixture.h"

struct random_dag_opts {
	uint32_t max_threads; /* 1..max_threads threads (at most 64) */
	uint32_t min_threads;
	uint32_t min_segments; /* segments: min_segments .. +spread-1 */
	uint32_t spread;
	bool delays;        /* sleeps between a thread's segments */
	bool wide_lengths;  /* lengths 1..1e6 (no ties) instead of 0..4 */
	uint32_t functions; /* activities pick among this many functions */
	bool bursts;        /* a thread often runs several segments in a row,
			     * numbered consecutively as models number them:
			     * the engine merges some (ecp/merged-units.h) */
};

/* xorshift64; the state is the seed, never 0. */
uint32_t random_dag_next(uint64_t *state, uint32_t n);

/* Builds *f (fx_build done); aborts the test on a cyclic result. */
void random_dag(struct fx *f, uint64_t *state, const struct random_dag_opts *o);

#endif
