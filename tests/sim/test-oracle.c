/* SPDX-License-Identifier: MIT */
/* Property test: on 1200 random models (gen-model), ecp_dag_build and the
 * ideal replay agree with the independent oracle (oracle.c):
 *  - ASAP start and end of every segment, exactly, in both lock policies;
 *  - the DAG's node semantics (dag.h) hold with its own inputs, and topo is a
 *    topological order;
 *  - on P = 1..4 and unlimited: makespan and per-segment times within 1 ns;
 *    without delays the time-warp and the event simulation agree;
 *  - the work and span laws, idle = P*T_P - T_1;
 *  - the Linux model completes every segment and respects both laws;
 *  - every generated model passes ecp_model_validate(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include <cmocka.h>

#include "simulator/model/dag.h"
#include "simulator/replay/linux-sched.h"
#include "simulator/replay/replay.h"
#include "tests/sim/oracle.h"
#include "tests/support/gen-model.h"

#define N_MODELS 1200

static void check_node_semantics(const struct ecp_dag *dag)
{
	uint32_t n = dag->n_segments;
	uint32_t *pos = malloc(n * sizeof(*pos));
	assert_non_null(pos);
	for (uint32_t i = 0; i < n; i++)
		pos[dag->topo[i]] = i;
	for (uint32_t s = 0; s < n; s++) {
		uint64_t t = 0;
		if (dag->pred[s] != ECP_NO_ID) {
			t = dag->end[dag->pred[s]] + dag->delay[s];
			assert_true(pos[dag->pred[s]] < pos[s]);
		}
		for (uint32_t k = dag->in_offset[s]; k < dag->in_offset[s + 1]; k++) {
			if (dag->end[dag->in_from[k]] > t)
				t = dag->end[dag->in_from[k]];
			assert_true(pos[dag->in_from[k]] < pos[s]);
		}
		assert_int_equal(dag->start[s], t);
		assert_int_equal(dag->end[s], dag->start[s] + dag->length[s]);
	}
	free(pos);
}

static void near(double oracle, uint64_t got, const char *what, uint64_t seed, unsigned p)
{
	double d = fabs(oracle - (double)got);
	if (d > 1.0 + 1e-9 * oracle) {
		print_error("seed %llu P=%u %s: oracle %.3f, got %llu\n",
			    (unsigned long long)seed, p, what, oracle,
			    (unsigned long long)got);
		fail();
	}
}

static void check_model(uint64_t seed, const struct ecp_model *m, bool recorded)
{
	struct ecp_error err = {0};
	struct oracle_run o = {0};
	struct ecp_dag dag;
	int orc = oracle_asap(m, recorded, &o);
	int rc = ecp_dag_build(
	    m, NULL, recorded ? ECP_LOCK_ORDER_RECORDED : ECP_LOCK_ORDER_ARRIVAL, &dag,
	    &err);
	if (orc != 0) {
		/* Arrival order can deadlock where the recording did not (it
		 * cannot here: no nested locks); either way both must agree. */
		assert_int_not_equal(rc, 0);
		oracle_run_free(&o);
		return;
	}
	if (rc != 0) {
		print_error("seed %llu: %s\n", (unsigned long long)seed, err.msg);
		fail();
	}
	for (uint32_t s = 0; s < m->n_segments; s++) {
		if (dag.start[s] != o.start[s] || dag.end[s] != o.end[s]) {
			print_error(
			    "seed %llu %s: segment %u ASAP [%llu,%llu], oracle "
			    "[%llu,%llu]\n",
			    (unsigned long long)seed, recorded ? "recorded" : "arrival",
			    s, (unsigned long long)dag.start[s],
			    (unsigned long long)dag.end[s],
			    (unsigned long long)o.start[s], (unsigned long long)o.end[s]);
			fail();
		}
	}
	assert_int_equal(dag.span, o.span);
	check_node_semantics(&dag);
	double *ts = malloc(m->n_segments * sizeof(double)),
	       *te = malloc(m->n_segments * sizeof(double));
	assert_non_null(ts);
	assert_non_null(te);
	for (unsigned p = 0; p <= 4; p++) {
		struct ecp_replay r;
		assert_int_equal(ecp_replay_run(&dag, p,
						ECP_REPLAY_TIMELINE | ECP_REPLAY_STEPS,
						&r, &err),
				 0);
		double om = oracle_replay(m, recorded, &o, p, ts, te);
		assert_true(om >= 0);
		near(om, r.makespan, "makespan", seed, p);
		for (uint32_t s = 0; s < m->n_segments; s++) {
			near(ts[s], r.seg_start[s], "segment start", seed, p);
			near(te[s], r.seg_end[s], "segment end", seed, p);
		}
		assert_true(r.work_law_ok);
		assert_true(r.span_law_ok);
		if (p) {
			double want_idle = (double)p * om - (double)dag.work;
			assert_true(fabs(want_idle - (double)r.idle) <= 1.0 + p);
		}
		/* The step profile integrates to the work. */
		double area = 0;
		for (size_t i = 0; i + 1 < r.n_steps; i++) {
			double len = (double)(r.steps[i + 1].time - r.steps[i].time);
			unsigned nr = r.steps[i].runnable;
			area += len * (p && nr > p ? p : nr);
		}
		assert_true(fabs(area - (double)dag.work) <= 8.0 * (double)r.n_steps + 1);
		if (dag.total_delay == 0) {
			struct ecp_replay sim;
			assert_int_equal(
			    ecp_replay_run(&dag, p, ECP_REPLAY_SIMULATE, &sim, &err), 0);
			assert_true(sim.makespan + 1 >= r.makespan &&
				    sim.makespan <= r.makespan + 1);
			ecp_replay_finish(&sim);
		}
		ecp_replay_finish(&r);
		if (p) {
			struct ecp_linux_params par;
			ecp_linux_params_default(&par);
			par.slice_ns = 1500;
			par.balance_ns = 2000;
			par.context_switch_ns = 10;
			assert_int_equal(ecp_linux_replay(&dag, p, &par,
							  ECP_REPLAY_TIMELINE, &r, &err),
					 0);
			assert_true(r.work_law_ok);
			assert_true(r.span_law_ok);
			for (uint32_t s = 0; s < m->n_segments; s++)
				assert_true(r.seg_end[s] >=
					    r.seg_start[s] + dag.length[s]);
			ecp_replay_finish(&r);
		}
	}
	free(ts);
	free(te);
	ecp_dag_finish(&dag);
	oracle_run_free(&o);
}

static void test_random_models(void **state)
{
	(void)state;
	struct gen_model_opts opts;
	unsigned with_delays = 0, contended = 0;
	for (uint64_t seed = 1; seed <= N_MODELS; seed++) {
		gen_model_opts_default(&opts);
		opts.unit_ns = 1000;
		opts.delays = seed % 3 != 0;
		opts.max_threads = 2 + (unsigned)(seed % 5);
		struct ecp_model *m = NULL;
		struct ecp_error err = {0};
		if (gen_model_create(seed, &opts, &m, &err) != 0 ||
		    ecp_model_validate(m, &err) != 0) {
			print_error("seed %llu: %s\n", (unsigned long long)seed, err.msg);
			fail();
		}
		for (uint32_t s = 0; s < m->n_segments; s++)
			if (m->segments[s].delay &&
			    s != m->threads[m->segments[s].thread].first_segment) {
				with_delays++;
				break;
			}
		for (uint32_t e = 0; e < m->n_edges; e++)
			if (m->edges[e].kind == ECP_EDGE_LOCK) {
				contended++;
				break;
			}
		check_model(seed, m, false);
		check_model(seed, m, true);
		gen_model_destroy(m);
	}
	/* The generator really exercised delays and lock hand-offs. */
	assert_true(with_delays > N_MODELS / 3);
	assert_true(contended > N_MODELS / 3);
}

/* Bigger programs with more phases and threads, lengths of 0..2 ns: many
 * exact ties at every instant. */
static void test_random_models_ties(void **state)
{
	(void)state;
	struct gen_model_opts opts;
	for (uint64_t seed = 5001; seed <= 5000 + N_MODELS / 2; seed++) {
		gen_model_opts_default(&opts);
		opts.unit_ns = 1;
		opts.max_len = 2;
		opts.max_threads = 8;
		opts.max_phases = 3;
		opts.max_blocks = 6;
		opts.n_mutexes = 1 + (uint32_t)(seed % 3);
		opts.delays = seed % 2;
		struct ecp_model *m = NULL;
		struct ecp_error err = {0};
		assert_int_equal(gen_model_create(seed, &opts, &m, &err), 0);
		assert_int_equal(ecp_model_validate(m, &err), 0);
		check_model(seed, m, false);
		check_model(seed, m, true);
		gen_model_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_models),
	    cmocka_unit_test(test_random_models_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
