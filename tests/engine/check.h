/* SPDX-License-Identifier: MIT */
/* Shared assertions for the engine tests: fast weights == oracle weights. */
#ifndef ECP_TESTS_ENGINE_CHECK_H
#define ECP_TESTS_ENGINE_CHECK_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "ecp/engine.h"
#include "tests/engine/oracle.h"

/* The engine's knobs the checks below pass (NULL: the defaults); a test
 * that tunes them sets this (defined in oracle.c). */
extern const struct ecp_engine_options *ecp_test_engine_options;

/* Weights at P from the engine, asserted equal to the oracle's (and T_P). */
static inline double *check_weights(const struct ecp_dag *dag, unsigned p)
{
	size_t n = dag->n_segments ? dag->n_segments : 1;
	double *fast = calloc(n, sizeof(double));
	double *slow = calloc(n, sizeof(double));
	struct ecp_error err = {0};
	struct ecp_engine *engine = NULL;
	if (ecp_engine_create(dag, ecp_test_engine_options, &engine, &err) < 0)
		fail_msg("engine: %s", err.msg);
	struct ecp_run_summary sum;
	if (ecp_engine_run(engine, p, fast, NULL, &sum, &err) < 0)
		fail_msg("engine at P=%u: %s", p, err.msg);
	long double t_oracle = 0;
	if (ecp_weights_oracle(dag, p, slow, &t_oracle, &err) < 0)
		fail_msg("oracle at P=%u: %s", p, err.msg);
	for (uint32_t s = 0; s < dag->n_segments; s++) {
		if (fabs(fast[s] - slow[s]) > 1e-9)
			fail_msg("P=%u segment %u: engine %.6f, oracle %.6f", p, s,
				 fast[s], slow[s]);
	}
	if (fabsl(sum.makespan - t_oracle) > 1e-6L)
		fail_msg("P=%u makespan: engine %.6Lf, oracle %.6Lf", p, sum.makespan,
			 t_oracle);
	ecp_engine_destroy(engine);
	free(slow);
	return fast;
}

#endif
