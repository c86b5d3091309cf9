/* SPDX-License-Identifier: MIT */
/* OpenMP tasks in the model (issue 37), on random task programs
 * (tests/support/task-program.h: spawn trees, taskwaits, taskgroups,
 * depend items, undeferred tasks), each recorded on one CPU in three
 * different orders (the time slices and the tasks the emulated runtime
 * picks) and built by the model builder (up to 12 tasks a program, nested
 * to depth 3, on 2-4 threads; half of them libgomp's, dealt by its rules,
 * half libomp's):
 *
 *  - T_P of the model (the ECP engine) equals the program's oracle (the
 *    tasks dealt in work time, then ideal processor sharing over the busy
 *    threads) at P = 1..4 and unlimited, whatever the recorded order: the
 *    recorded one-CPU order does not change the prediction;
 *  - no task is kept as recorded (every epoch is dealt);
 *  - on every tenth program the engine's segment weights equal the
 *    brute-force oracle's (tests/engine/oracle.h) at every P: the re-dealt
 *    model is one DAG whose ECP weights are exact.
 * Lengths 0..4 (ties everywhere) and 1..1e6 (almost none).  The counts of
 * programs, recordings and comparisons are asserted. */
#include "tests/engine/check.h"

#include <stdio.h>
#include <string.h>

#include "ecp/analysis.h"
#include "simulator/model/dag.h"
#include "tests/support/event-seq.h"
#include "tests/support/task-program.h"

#define N_P     5
#define ORDERS  3
#define N_SMALL 2000
#define N_WIDE  500
static const unsigned g_p[N_P] = {1, 2, 3, 4, ECP_UNLIMITED};

struct counts {
	unsigned long programs, recordings, makespans, weights, tasks;
};

static long double makespan(const struct ecp_dag *dag, unsigned p)
{
	struct ecp_error err = {0};
	struct ecp_engine *engine = NULL;
	struct ecp_run_summary sum;
	if (ecp_engine_create(dag, NULL, &engine, &err) < 0 ||
	    ecp_engine_run(engine, p, NULL, NULL, &sum, &err) < 0)
		fail_msg("engine at P=%u: %s", p, err.msg);
	ecp_engine_destroy(engine);
	return sum.makespan;
}

static void one_program(uint64_t seed, uint64_t max_len, struct counts *c)
{
	struct tp_program prog;
	tp_random(&prog, seed, 12, max_len);
	double want[N_P];
	for (int k = 0; k < N_P; k++)
		want[k] = tp_oracle(&prog, g_p[k]);
	for (uint64_t order = 0; order < ORDERS; order++) {
		struct ecp_test_seq s;
		struct ecp_error err = {0};
		ecp_test_seq_init(&s);
		tp_record(&prog, order, &s);
		struct ecp_model *m = ecp_test_seq_build(&s, NULL, &err);
		if (!m)
			fail_msg("seed %llu order %llu: %s", (unsigned long long)seed,
				 (unsigned long long)order, err.msg);
		if (ecp_model_validate(m, &err) < 0)
			fail_msg("seed %llu: invalid model: %s", (unsigned long long)seed,
				 err.msg);
		if (ecp_test_has_warning(m, "OpenMP tasks"))
			fail_msg("seed %llu order %llu: tasks kept as recorded",
				 (unsigned long long)seed, (unsigned long long)order);
		assert_int_equal(ecp_model_work(m), tp_work(&prog));
		struct ecp_dag dag;
		if (ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err) < 0)
			fail_msg("seed %llu: dag: %s", (unsigned long long)seed, err.msg);
		for (int k = 0; k < N_P; k++) {
			long double got = makespan(&dag, g_p[k]);
			if (fabsl(got - (long double)want[k]) > 1e-6L * (1 + want[k]))
				fail_msg(
				    "seed %llu order %llu P=%u: model %.3Lf, oracle %.3f",
				    (unsigned long long)seed, (unsigned long long)order,
				    g_p[k], got, want[k]);
			c->makespans++;
			if (order == 0 && seed % 10 == 0) {
				free(check_weights(&dag, g_p[k]));
				c->weights++;
			}
		}
		ecp_dag_finish(&dag);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
		c->recordings++;
	}
	for (uint32_t b = 0; b < prog.n_bodies; b++)
		for (uint32_t i = 0; i < prog.bodies[b].n; i++)
			c->tasks += prog.bodies[b].ops[i].kind == TP_TASK;
	c->programs++;
	tp_free(&prog);
}

static void test_random_task_programs(void **state)
{
	(void)state;
	struct counts c = {0};
	for (uint64_t seed = 1; seed <= N_SMALL; seed++)
		one_program(seed, 4, &c);
	for (uint64_t seed = 1; seed <= N_WIDE; seed++)
		one_program(100000 + seed, 1000000, &c);
	printf("  %lu task programs (%lu tasks), %lu recordings, %lu makespans, "
	       "%lu weight vectors checked\n",
	       c.programs, c.tasks, c.recordings, c.makespans, c.weights);
	assert_int_equal(c.programs, N_SMALL + N_WIDE);
	assert_int_equal(c.recordings, (N_SMALL + N_WIDE) * ORDERS);
	assert_int_equal(c.makespans, (N_SMALL + N_WIDE) * ORDERS * N_P);
	assert_int_equal(c.weights, (N_SMALL + N_WIDE) / 10 * N_P);
	assert_true(c.tasks > c.programs); /* the generator made tasks */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_task_programs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
