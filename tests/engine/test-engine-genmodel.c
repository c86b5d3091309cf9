/* SPDX-License-Identifier: MIT */
/* The engine on realistic random models: programs generated and "recorded"
 * by tests/support/gen-model.h (mutexes, rwlocks, semaphores, condition
 * variables, barriers, create/join, sleeps), turned into the fixed DAG by the
 * simulator's ecp_dag_build(), analysed by the engine and by the oracle.
 * Also: the engine's T_P equals the simulator's replay on the same DAG, and
 * the attribution at P = 1 is the ordinary profile.
 *
 * 10,000 models (ECP_GENMODEL_MODELS overrides), a third with sleeps; the
 * weights must equal the oracle's exactly, sleeps included. */
#include "tests/engine/check.h"

#include <stdio.h>
#include <string.h>

#include "ecp/analysis.h"
#include "simulator/model/dag.h"
#include "simulator/replay/replay.h"
#include "tests/support/gen-model.h"

static void test_genmodel(void **state)
{
	(void)state;
	unsigned long n_models = 10000;
	const char *env = getenv("ECP_GENMODEL_MODELS");
	if (env)
		n_models = strtoul(env, NULL, 10);
	unsigned long weights = 0, sleep_weights = 0, segments_max = 0;
	for (unsigned long i = 0; i < n_models; i++) {
		struct gen_model_opts opts;
		gen_model_opts_default(&opts);
		opts.delays = i % 3 == 2;
		opts.max_threads = 2 + (uint32_t)(i % 4);
		struct ecp_model *model = NULL;
		struct ecp_error err = {0};
		if (gen_model_create(1000 + i, &opts, &model, &err) < 0)
			fail_msg("gen_model %lu: %s", i, err.msg);
		struct ecp_dag dag;
		if (ecp_dag_build(model, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err) < 0)
			fail_msg("dag %lu: %s", i, err.msg);
		if (dag.n_segments > segments_max)
			segments_max = dag.n_segments;
		double *fast = calloc(dag.n_segments + 1, sizeof(double));
		double *slow = calloc(dag.n_segments + 1, sizeof(double));
		struct ecp_engine *engine;
		if (ecp_engine_create(&dag, NULL, &engine, &err) < 0)
			fail_msg("model %lu: %s", i, err.msg);
		for (unsigned p = 0; p <= 4; p++) {
			struct ecp_run_summary sum;
			if (ecp_engine_run(engine, p, fast, NULL, &sum, &err) < 0)
				fail_msg("model %lu P=%u: %s", i, p, err.msg);
			long double t_oracle;
			if (ecp_weights_oracle(&dag, p, slow, &t_oracle, &err) < 0)
				fail_msg("model %lu oracle: %s", i, err.msg);
			struct ecp_replay rep;
			if (ecp_replay_run(&dag, p, 0, &rep, &err) < 0)
				fail_msg("model %lu replay: %s", i, err.msg);
			if (fabsl(sum.makespan - (long double)rep.makespan) > 1.0L ||
			    fabsl(sum.makespan - t_oracle) > 1e-6L)
				fail_msg("model %lu P=%u: T_P engine %.3Lf replay %llu "
					 "oracle %.3Lf",
					 i, p, sum.makespan,
					 (unsigned long long)rep.makespan, t_oracle);
			ecp_replay_finish(&rep);
			for (uint32_t s = 0; s < dag.n_segments; s++) {
				if (fabs(fast[s] - slow[s]) > 1e-9)
					fail_msg("model %lu P=%u segment %u: engine %.9f "
						 "oracle %.9f",
						 i, p, s, fast[s], slow[s]);
				weights++;
				sleep_weights += dag.total_delay > 0 && p > 0;
			}
		}
		/* TET at P = 1 is the ordinary profile (without sleeps every
		 * segment weighs 1 at P = 1). */
		if (!dag.total_delay) {
			struct ecp_analysis a;
			if (ecp_analyze(model, &dag, 1, NULL, &a, &err) < 0)
				fail_msg("model %lu analyze: %s", i, err.msg);
			for (size_t k = 0; k < a.n_functions; k++)
				assert_true(fabs(a.functions[k].tet_ns -
						 a.functions[k].work_ns) < 1e-6);
			ecp_analysis_finish(&a);
		}
		ecp_engine_destroy(engine);
		free(fast);
		free(slow);
		ecp_dag_finish(&dag);
		gen_model_destroy(model);
	}
	printf("%lu generated models (up to %lu segments): %lu weights equal to the "
	       "oracle, %lu of them with sleeps at P = 1..4\n",
	       n_models, segments_max, weights, sleep_weights);
	assert_true(weights > 0 && sleep_weights > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_genmodel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
