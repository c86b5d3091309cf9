/* SPDX-License-Identifier: MIT */
/* The Linux-like scheduler model (linux-sched.c): hand-computed round robin
 * with switch costs, agreement with ideal sharing on fork-join, wake-affine
 * placement of light wakees only, and the CPU partition Linux reaches on a
 * pipeline whose heavy middle stage is the bottleneck. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "simulator/model/dag.h"
#include "simulator/replay/linux-sched.h"
#include "simulator/replay/replay.h"
#include "tests/sim/mb.h"

#define MS 1000000ull

static void run_both(const struct ecp_model *m, unsigned p, struct ecp_replay *ideal,
		     struct ecp_replay *lin)
{
	struct ecp_dag dag;
	struct ecp_error err = {0};
	struct ecp_linux_params par;
	ecp_linux_params_default(&par);
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(ecp_replay_run(&dag, p, 0, ideal, &err), 0);
	assert_int_equal(ecp_linux_replay(&dag, p, &par, ECP_REPLAY_STEPS, lin, &err), 0);
	assert_true(lin->work_law_ok && lin->span_law_ok);
	ecp_dag_finish(&dag);
}

static void test_round_robin_one_cpu(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	mb_seg(&b, 10 * MS, 0);
	mb_thread(&b);
	mb_seg(&b, 10 * MS, 0);
	struct ecp_model *m = mb_done(&b);
	struct ecp_replay ideal, lin;
	run_both(m, 1, &ideal, &lin);
	/* 3 ms slices: T0 T1 T0 T1 T0 T1 T0(1 ms) T1(1 ms): 7 switches of 3 us. */
	assert_int_equal(lin.context_switches, 7);
	assert_int_equal(lin.makespan, 20 * MS + 7 * 3000);
	assert_int_equal(ideal.makespan, 20 * MS);
	assert_int_equal(lin.idle, 0);
	assert_true(lin.n_steps >= 2);
	ecp_replay_finish(&ideal);
	ecp_replay_finish(&lin);
	mb_free(m);
}

static void test_fork_join_agrees(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	uint32_t c0 = mb_seg(&b, 50000, 0), c1 = mb_seg(&b, 50000, 0),
		 j = mb_seg(&b, 50000, 0);
	mb_thread(&b);
	uint32_t w0 = mb_seg(&b, 100 * MS, 0);
	mb_thread(&b);
	uint32_t w1 = mb_seg(&b, 100 * MS, 0);
	mb_edge(&b, c0, w0, ECP_EDGE_CREATE);
	mb_edge(&b, c1, w1, ECP_EDGE_CREATE);
	mb_edge(&b, w0, j, ECP_EDGE_JOIN);
	mb_edge(&b, w1, j, ECP_EDGE_JOIN);
	struct ecp_model *m = mb_done(&b);
	struct ecp_replay ideal, lin;
	run_both(m, 2, &ideal, &lin);
	double ratio = (double)lin.makespan / (double)ideal.makespan;
	assert_true(ratio > 0.99 && ratio < 1.01);
	/* The new workers were spread over both CPUs by fork balancing. */
	assert_true(lin.makespan < 110 * MS);
	ecp_replay_finish(&ideal);
	ecp_replay_finish(&lin);
	mb_free(m);
}

/* Three stages handing n items over with semaphores through queues of k
 * slots; one segment per item and stage (wait, compute, post). */
static struct ecp_model *pipeline(unsigned n, unsigned k, const uint64_t cost[3])
{
	struct mb b;
	mb_init(&b);
	uint32_t first[3];
	for (int s = 0; s < 3; s++) {
		mb_thread(&b);
		first[s] = b.m->n_segments;
		for (unsigned i = 0; i < n; i++)
			mb_seg(&b, cost[s], 0);
		mb_seg(&b, 0, 0); /* exit */
	}
	for (int s = 0; s < 3; s++)
		for (unsigned i = 0; i < n; i++) {
			if (s > 0) /* item i from the previous stage */
				mb_edge(&b, first[s - 1] + i, first[s] + i, ECP_EDGE_SEM);
			if (s < 2 && i >= k) /* a free slot: item i-k consumed */
				mb_edge(&b, first[s + 1] + i - k, first[s] + i,
					ECP_EDGE_SEM);
		}
	return mb_done(&b);
}

static void test_pipeline_partition(void **state)
{
	(void)state;
	/* Middle stage the bottleneck and heavy: Linux keeps each woken stage
	 * on its previous CPU (its load is too high for wake-affine), so the
	 * middle stage ends up with a CPU of its own and the run beats ideal
	 * sharing, where it only gets 2/3 of a CPU while all three run. */
	const uint64_t cost[3] = {1 * MS, 3 * MS, 1 * MS};
	struct ecp_model *m = pipeline(200, 4, cost);
	struct ecp_replay ideal1, lin1, ideal2, lin2;
	run_both(m, 1, &ideal1, &lin1);
	run_both(m, 2, &ideal2, &lin2);
	double s_ideal = (double)ideal1.makespan / (double)ideal2.makespan;
	double s_linux = (double)lin1.makespan / (double)lin2.makespan;
	print_message("pipeline 2-CPU speedup: ideal %.3f, linux %.3f (%llu switches,"
		      " %llu migrations)\n",
		      s_ideal, s_linux, (unsigned long long)lin2.context_switches,
		      (unsigned long long)lin2.migrations);
	assert_true(s_linux > s_ideal + 0.1);
	/* The bound of a partition: the middle stage's 3 ms per item. */
	assert_true(lin2.makespan >= 200 * 3 * MS);
	ecp_replay_finish(&ideal1);
	ecp_replay_finish(&lin1);
	ecp_replay_finish(&ideal2);
	ecp_replay_finish(&lin2);
	mb_free(m);
}

/* A woken thread follows its waker's CPU (wake-affine) only when light. */
static uint64_t migrations_of_wakee(uint64_t wakee_first_ns)
{
	struct mb b;
	mb_init(&b);
	mb_thread(&b); /* A: computes 100 ms on CPU 0 */
	mb_seg(&b, 100 * MS, 0);
	mb_thread(&b); /* B: 10 ms, wakes C, 100 ms more, on CPU 1 */
	uint32_t post = mb_seg(&b, 10 * MS, 0);
	mb_seg(&b, 100 * MS, 0);
	mb_thread(&b); /* C: queued with A, runs, then waits for B */
	mb_seg(&b, wakee_first_ns, 0);
	uint32_t woken = mb_seg(&b, 1 * MS, 0);
	mb_edge(&b, post, woken, ECP_EDGE_SEM);
	struct ecp_model *m = mb_done(&b);
	struct ecp_replay ideal, lin;
	run_both(m, 2, &ideal, &lin);
	uint64_t mig = lin.migrations;
	ecp_replay_finish(&ideal);
	ecp_replay_finish(&lin);
	mb_free(m);
	return mig;
}

static void test_wake_affine(void **state)
{
	(void)state;
	/* C has hardly run: light, it is placed on B's (the waker's) CPU. */
	assert_int_equal(migrations_of_wakee(0), 1);
	/* C ran 8 ms beside A: its load keeps it on its previous CPU. */
	assert_int_equal(migrations_of_wakee(8 * MS), 0);
}

static void test_sleep_wakes_on_timer(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	mb_seg(&b, 1 * MS, 0);
	uint32_t after = mb_seg(&b, 1 * MS, 5 * MS);
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	struct ecp_linux_params par;
	struct ecp_replay r;
	ecp_linux_params_default(&par);
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(ecp_linux_replay(&dag, 2, &par, ECP_REPLAY_TIMELINE, &r, &err),
			 0);
	assert_int_equal(r.seg_start[after], 6 * MS);
	assert_int_equal(r.makespan, 7 * MS);
	assert_int_equal(r.idle, 2 * 7 * MS - 2 * MS);
	ecp_replay_finish(&r);
	ecp_dag_finish(&dag);
	mb_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_robin_one_cpu),
	    cmocka_unit_test(test_fork_join_agrees),
	    cmocka_unit_test(test_pipeline_partition),
	    cmocka_unit_test(test_wake_affine),
	    cmocka_unit_test(test_sleep_wakes_on_timer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
