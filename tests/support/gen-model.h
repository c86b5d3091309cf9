/* SPDX-License-Identifier: MIT */
/* Random execution models for property tests (simulator and ECP engine).
 *
 * A random multithreaded *program* is generated and then "recorded": executed
 * on one simulated CPU with a random interleaving, exactly as the recorder
 * would see it.  That makes every model valid by construction: segments,
 * lock hand-offs (recorded ECP_EDGE_LOCK edges), semaphore tokens, condition
 * broadcasts, barriers, creates and joins are all those of a real run, and
 * the recorded order is deadlock-free.
 *
 * The program: a main thread creates 1..max_threads children, which run
 * 1..max_phases phases separated by a barrier among the children, then main
 * joins them.  In a phase a child runs random blocks: computation (small
 * integer lengths, zero included, so ties are common), critical sections on
 * shared mutexes (contention) possibly re-locking a recursive one, rwlock
 * readers and writers, sleeps (delays), and semaphore and condition-variable
 * hand-offs from a lower-numbered child to a higher-numbered one (so no
 * cycle of waits can form).  The condition pattern is the usual
 * `lock; while (!flag) cond_wait; unlock` against `lock; flag = 1;
 * broadcast; unlock`.
 *
 * Lengths are multiples of `unit_ns`.  Activities: with `activities`, each
 * segment charges its time to 1..3 of three fake functions "f0".."f2".
 *
 * The model is self-contained: free it with gen_model_destroy(), never with
 * ecp_model_destroy() (it does not use the model builder's string arena). */
#ifndef ECP_TESTS_SUPPORT_GEN_MODEL_H
#define ECP_TESTS_SUPPORT_GEN_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model/model.h"

struct gen_model_opts {
	uint32_t max_threads; /* children, >= 1 (default 4) */
	uint32_t max_phases;  /* phases per child, >= 1 (default 2) */
	uint32_t max_blocks;  /* random blocks per child per phase (default 4) */
	uint32_t n_mutexes;   /* shared mutexes, the first recursive (default 2) */
	uint32_t max_len;     /* computation lengths in 0..max_len units (default 3) */
	uint64_t unit_ns;     /* default 1 */
	bool rwlocks;         /* one rwlock, readers and writers (default true) */
	bool semaphores;      /* default true */
	bool conds;           /* default true */
	bool barriers;        /* barrier between phases (default true) */
	bool delays;          /* sleeps (default true) */
	bool activities;      /* fake functions per segment (default true) */
};

void gen_model_opts_default(struct gen_model_opts *opts);

/* Generates the model for `seed` (same seed and options, same model). */
int gen_model_create(uint64_t seed, const struct gen_model_opts *opts,
		     struct ecp_model **out, struct ecp_error *err);
void gen_model_destroy(struct ecp_model *model);

#endif
