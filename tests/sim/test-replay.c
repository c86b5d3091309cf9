/* SPDX-License-Identifier: MIT */
/* The ideal replay (replay.c): time-warp totals, rounding, idle time, the
 * laws, sweeps over P, unlimited processors, steps, and the model switch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "simulator/model/dag.h"
#include "simulator/replay/replay.h"
#include "tests/sim/mb.h"

/* main creates `k` workers of `len` each and joins them all. */
static struct ecp_model *fork_join(unsigned k, uint64_t len)
{
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	uint32_t create[16], join;
	for (unsigned i = 0; i < k; i++)
		create[i] = mb_seg(&b, 10, 0);
	join = mb_seg(&b, 10, 0);
	uint32_t first = join + 1;
	for (unsigned i = 0; i < k; i++) {
		mb_thread(&b);
		mb_seg(&b, len, 0);
	}
	for (unsigned i = 0; i < k; i++) {
		mb_edge(&b, create[i], first + i, ECP_EDGE_CREATE);
		mb_edge(&b, first + i, join, ECP_EDGE_JOIN);
	}
	return mb_done(&b);
}

static void test_sweep_fork_join(void **state)
{
	(void)state;
	struct ecp_model *m = fork_join(4, 1000);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	unsigned ps[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct ecp_replay r[8];
	assert_int_equal(ecp_replay_sweep(&dag, ps, 8, 0, r, &err), 0);
	assert_int_equal(r[0].makespan, dag.work); /* T_1 = work */
	for (int i = 0; i < 8; i++) {
		assert_true(r[i].work_law_ok && r[i].span_law_ok);
		assert_true(r[i].makespan * ps[i] >= dag.work);
		assert_true(r[i].makespan >= dag.span);
		/* Idle time is the exact integral; P * T_P - T_1 differs
		 * only by the rounding of T_P to whole ns. */
		int64_t d =
		    (int64_t)(ps[i] * r[i].makespan - dag.work) - (int64_t)r[i].idle;
		assert_true(d >= -(int64_t)ps[i] && d <= (int64_t)ps[i]);
		if (i)
			assert_true(r[i].makespan <= r[i - 1].makespan);
		if (ps[i] >= 5) /* never more than 5 runnable at once */
			assert_int_equal(r[i].makespan, dag.span);
		assert_int_equal(r[i].sched_model, ECP_SCHED_IDEAL);
		assert_false(r[i].simulated);
	}
	/* Workers start at 10, 20, 30, 40 and run 1000 each: the hand-computed
	 * warp on 2 processors. */
	assert_int_equal(dag.span, 1050);
	ecp_replay_finish(&r[0]);
	for (int i = 1; i < 8; i++)
		ecp_replay_finish(&r[i]);
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_warp_by_hand(void **state)
{
	(void)state;
	/* Three equal threads from 0 on 2 processors: 1.5 x their length. */
	struct mb b;
	mb_init(&b);
	for (int i = 0; i < 3; i++) {
		mb_thread(&b);
		mb_seg(&b, 1000, 0);
	}
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	struct ecp_replay r;
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(ecp_replay_run(&dag, 2, ECP_REPLAY_STEPS, &r, &err), 0);
	assert_int_equal(r.makespan, 1500);
	assert_int_equal(r.idle, 0);
	assert_int_equal(r.n_steps, 2);
	assert_int_equal(r.steps[0].time, 0);
	assert_int_equal(r.steps[0].runnable, 3);
	assert_int_equal(r.steps[1].time, 1500);
	assert_int_equal(r.steps[1].runnable, 0);
	ecp_replay_finish(&r);
	ecp_dag_finish(&dag);
	/* Lengths of 1 ns: T_2 = 1.5 ns, reported rounded half up. */
	uint64_t ones[3] = {1, 1, 1};
	assert_int_equal(ecp_dag_build(m, ones, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(ecp_replay_run(&dag, 2, 0, &r, &err), 0);
	assert_int_equal(r.makespan, 2);
	assert_int_equal(r.idle, 0);
	assert_true(r.span_law_ok && r.work_law_ok);
	ecp_replay_finish(&r);
	/* Unlimited processors: the ASAP schedule. */
	assert_int_equal(ecp_replay_run(&dag, 0, ECP_REPLAY_TIMELINE, &r, &err), 0);
	assert_int_equal(r.makespan, 1);
	assert_int_equal(r.seg_end[2], 1);
	ecp_replay_finish(&r);
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_whatif_lengths(void **state)
{
	(void)state;
	struct ecp_model *m = fork_join(2, 1000);
	uint64_t len[5];
	for (uint32_t s = 0; s < m->n_segments; s++)
		len[s] = m->segments[s].length;
	len[3] = 500; /* the first worker twice as fast */
	struct ecp_dag base, fast;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &base, &err), 0);
	assert_int_equal(ecp_dag_build(m, len, ECP_LOCK_ORDER_ARRIVAL, &fast, &err), 0);
	assert_int_equal(fast.work, base.work - 500);
	struct ecp_replay a, b;
	assert_int_equal(ecp_replay_run(&base, 1, 0, &a, &err), 0);
	assert_int_equal(ecp_replay_run(&fast, 1, 0, &b, &err), 0);
	assert_int_equal(a.makespan - b.makespan, 500);
	ecp_replay_finish(&a);
	ecp_replay_finish(&b);
	/* On 2 processors the slower worker still ends last. */
	assert_int_equal(ecp_replay_run(&fast, 0, 0, &b, &err), 0);
	assert_int_equal(b.makespan, base.span);
	ecp_replay_finish(&b);
	ecp_dag_finish(&base);
	ecp_dag_finish(&fast);
	mb_free(m);
}

static void test_model_switch(void **state)
{
	(void)state;
	struct ecp_model *m = fork_join(3, 1000000);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	struct ecp_replay r;
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(ecp_replay_model_run(&dag, ECP_SCHED_LINUX, 2, 0, &r, &err), 0);
	assert_int_equal(r.sched_model, ECP_SCHED_LINUX);
	assert_true(r.simulated);
	assert_string_equal(ecp_sched_model_name(r.sched_model), "linux");
	ecp_replay_finish(&r);
	assert_int_equal(ecp_replay_model_run(&dag, ECP_SCHED_IDEAL, 2, 0, &r, &err), 0);
	assert_string_equal(ecp_sched_model_name(r.sched_model), "ideal");
	ecp_replay_finish(&r);
	/* The Linux model needs a finite P. */
	assert_int_not_equal(ecp_replay_model_run(&dag, ECP_SCHED_LINUX, 0, 0, &r, &err),
			     0);
	assert_int_equal(err.status, ECP_ERR_USAGE);
	ecp_dag_finish(&dag);
	mb_free(m);
}

/* With delays T_1 can exceed the work: speedups use the one-processor run. */
static void test_t1_with_delays(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	mb_seg(&b, 1000, 0);
	mb_seg(&b, 1000, 5000); /* sleeps 5 us first */
	mb_thread(&b);
	mb_seg(&b, 3000, 0);
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	/* One CPU: shared until 2000 (thread 1 ends), thread 2 alone till
	 * 4000, idle until the sleeper wakes at 7000, ends at 8000. */
	uint64_t t1;
	assert_int_equal(ecp_replay_t1(&dag, &t1, &err), 0);
	assert_int_equal(t1, 8000);
	assert_int_equal(dag.work, 5000);
	unsigned ps[2] = {2, 3};
	struct ecp_replay r[2];
	assert_int_equal(ecp_replay_sweep(&dag, ps, 2, 0, r, &err), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r[i].t1, 8000);
		assert_int_equal(r[i].makespan, dag.span); /* 2 CPUs suffice */
		assert_true(r[i].speedup > 8000.0 / 7000 - 1e-9 &&
			    r[i].speedup < 8000.0 / 7000 + 1e-9);
		ecp_replay_finish(&r[i]);
	}
	assert_int_equal(dag.span, 7000);
	/* the critical path is the sleeper's: 1000, the 5000 sleep, 1000 */
	assert_int_equal(ecp_dag_span_delay(&dag), 5000);
	struct ecp_replay lin;
	assert_int_equal(ecp_replay_model_run(&dag, ECP_SCHED_LINUX, 2, 0, &lin, &err),
			 0);
	assert_int_equal(lin.t1, 8000);
	ecp_replay_finish(&lin);
	ecp_dag_finish(&dag);
	mb_free(m);
}

/* The delays on the critical path: where a delay held a segment back, and
 * not where a dependency came later than the delay ended. */
static void test_span_delay(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	uint32_t a0 = mb_seg(&b, 100, 0);
	uint32_t a1 = mb_seg(&b, 100, 300); /* starts at 400: its delay held it */
	mb_thread(&b);
	uint32_t b0 = mb_seg(&b, 1000, 0);
	mb_thread(&b);
	mb_seg(&b, 50, 0);
	uint32_t c1 = mb_seg(&b, 500, 20); /* waits for b0 (ends 1000): not its delay */
	mb_edge(&b, a1, c1, ECP_EDGE_SEM);
	mb_edge(&b, b0, c1, ECP_EDGE_SEM);
	(void)a0;
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(dag.span, 1500);
	assert_int_equal(ecp_dag_span_delay(&dag), 0);
	ecp_dag_finish(&dag);
	mb_free(m);
	/* the same, thread 1 shorter: now a1 (delay 300) is what c1 waits for */
	mb_init(&b);
	mb_thread(&b);
	mb_seg(&b, 100, 0);
	a1 = mb_seg(&b, 100, 300);
	mb_thread(&b);
	b0 = mb_seg(&b, 200, 0);
	mb_thread(&b);
	mb_seg(&b, 50, 0);
	c1 = mb_seg(&b, 500, 20);
	mb_edge(&b, a1, c1, ECP_EDGE_SEM);
	mb_edge(&b, b0, c1, ECP_EDGE_SEM);
	m = mb_done(&b);
	/* a1's delay was a read that no thread of the program ended, c1's
	 * (not on the path) a timed wait */
	m->segments[a1].delay_kind = ECP_DELAY_CALL_FIRST + 7;
	m->segments[c1].delay_kind = ECP_DELAY_TIMED_OUT;
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(dag.span, 1000);
	assert_int_equal(ecp_dag_span_delay(&dag), 300);
	uint64_t by_kind[ECP_DELAY_KINDS];
	assert_int_equal(ecp_dag_span_delay_by_kind(&dag, m, by_kind), 300);
	assert_int_equal(by_kind[ECP_DELAY_CALL_FIRST + 7], 300);
	assert_int_equal(by_kind[ECP_DELAY_TIMED_OUT], 0);
	assert_string_equal(ecp_delay_kind_name(ECP_DELAY_CALL_FIRST + 7), "read");
	assert_string_equal(ecp_delay_kind_name(ECP_DELAY_CALL_FIRST + 0), "nanosleep");
	ecp_dag_finish(&dag);
	mb_free(m);
}

/* A sweep big enough to run its event simulations on several threads gives
 * what one-by-one replays give. */
static void test_threaded_sweep(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	uint64_t x = 12345;
	for (int t = 0; t < 8; t++) {
		mb_thread(&b);
		for (int i = 0; i < 5000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			mb_seg(&b, (x >> 33) % 1000,
			       (x >> 20) % 7 == 0 ? (x >> 40) % 3000 : 0);
		}
	}
	for (uint32_t t = 1; t < 8; t++)
		for (uint32_t i = 10; i < 5000; i += 97)
			mb_edge(&b, (t - 1) * 5000 + i, t * 5000 + i + 1, ECP_EDGE_SEM);
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_true(dag.total_delay > 0);
	unsigned ps[64];
	struct ecp_replay r[64];
	for (unsigned i = 0; i < 64; i++)
		ps[i] = i + 1;
	assert_int_equal(ecp_replay_sweep(&dag, ps, 64, 0, r, &err), 0);
	for (unsigned i = 0; i < 64; i += 9) {
		struct ecp_replay one;
		assert_int_equal(ecp_replay_run(&dag, ps[i], 0, &one, &err), 0);
		assert_int_equal(one.makespan, r[i].makespan);
		assert_int_equal(one.idle, r[i].idle);
		assert_int_equal(one.simulated, r[i].simulated);
		ecp_replay_finish(&one);
	}
	assert_true(r[0].simulated);
	assert_false(r[63].simulated); /* 8 threads never need more than 8 CPUs */
	assert_int_equal(r[63].makespan, dag.span);
	for (unsigned i = 0; i < 64; i++) {
		assert_true(r[i].work_law_ok && r[i].span_law_ok);
		ecp_replay_finish(&r[i]);
	}
	ecp_dag_finish(&dag);
	mb_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sweep_fork_join), cmocka_unit_test(test_warp_by_hand),
	    cmocka_unit_test(test_span_delay),      cmocka_unit_test(test_whatif_lengths),
	    cmocka_unit_test(test_model_switch),    cmocka_unit_test(test_threaded_sweep),
	    cmocka_unit_test(test_t1_with_delays),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
