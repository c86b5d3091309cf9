/* SPDX-License-Identifier: MIT */
/* The paper's worked examples as synthetic models (1 time unit = 1000 ns).
 *
 * Fig. 1: three threads, every function one unit.  On three processors the
 * run takes 4 units; shortening a() by eps saves 2 eps, b() nothing, c() and
 * d() eps each; on one processor b() saves 3 eps.
 *
 * Fig. 4/6: the figure's durations are not in the text; these are
 * reconstructed from what the text states: thread 3 ends at 11 on three
 * processors after being blocked from 4 to 5 (waiting for Z from thread 1),
 * three threads run during 2-3 and 8-9, the run on two processors takes 12,
 * and 11.75 with g() on thread 2 shortened by half a unit (its time segment
 * becomes 2-2.5, the next one 2.5-4); shortening c() on thread 1 changes
 * nothing (Fig. 6c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "simulator/model/dag.h"
#include "simulator/replay/replay.h"
#include "tests/sim/mb.h"

#define U 1000u

/* Fig. 1 segment indices. */
enum { F1_A1, F1_B1, F1_A2, F1_B2, F1_D2, F1_END2, F1_W3, F1_C3, F1_B3, F1_N };

static struct ecp_model *fig1(void)
{
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	mb_seg(&b, U, 0); /* a(), signal X */
	mb_seg(&b, U, 0); /* b(), wait Z */
	mb_seg(&b, U, 0); /* a(), end */
	mb_thread(&b);
	mb_seg(&b, U, 0); /* b(), wait Y */
	mb_seg(&b, U, 0); /* d(), signal Z */
	mb_seg(&b, 0, 0); /* end */
	mb_thread(&b);
	mb_seg(&b, 0, 0);                         /* wait X */
	mb_seg(&b, U, 0);                         /* c(), signal Y */
	mb_seg(&b, U, 0);                         /* b(), end */
	mb_edge(&b, F1_A1, F1_C3, ECP_EDGE_COND); /* X */
	mb_edge(&b, F1_C3, F1_D2, ECP_EDGE_COND); /* Y */
	mb_edge(&b, F1_D2, F1_A2, ECP_EDGE_COND); /* Z */
	return mb_done(&b);
}

static uint64_t span_with(const struct ecp_model *m, const uint32_t *segs, size_t n,
			  uint64_t eps)
{
	uint64_t *len = malloc(m->n_segments * sizeof(*len));
	assert_non_null(len);
	for (uint32_t s = 0; s < m->n_segments; s++)
		len[s] = m->segments[s].length;
	for (size_t i = 0; i < n; i++)
		len[segs[i]] -= eps;
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, len, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	uint64_t span = dag.span;
	ecp_dag_finish(&dag);
	free(len);
	return span;
}

static uint64_t makespan_with(const struct ecp_model *m, const uint32_t *segs, size_t n,
			      uint64_t eps, unsigned p)
{
	uint64_t *len = malloc(m->n_segments * sizeof(*len));
	assert_non_null(len);
	for (uint32_t s = 0; s < m->n_segments; s++)
		len[s] = m->segments[s].length;
	for (size_t i = 0; i < n; i++)
		len[segs[i]] -= eps;
	struct ecp_dag dag;
	struct ecp_error err = {0};
	struct ecp_replay r;
	assert_int_equal(ecp_dag_build(m, len, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(ecp_replay_run(&dag, p, 0, &r, &err), 0);
	uint64_t t = r.makespan;
	ecp_replay_finish(&r);
	ecp_dag_finish(&dag);
	free(len);
	return t;
}

static void test_fig1_asap(void **state)
{
	(void)state;
	struct ecp_model *m = fig1();
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(dag.span, 4 * U);
	assert_int_equal(dag.work, 7 * U);
	assert_int_equal(dag.start[F1_C3], 1 * U);
	assert_int_equal(dag.start[F1_D2], 2 * U);
	assert_int_equal(dag.start[F1_A2], 3 * U);
	assert_int_equal(dag.end[F1_B3], 3 * U);
	/* The topological order lists every segment once, after its inputs. */
	uint32_t pos[F1_N];
	for (uint32_t i = 0; i < F1_N; i++)
		pos[dag.topo[i]] = i;
	for (uint32_t s = 0; s < F1_N; s++) {
		if (dag.pred[s] != ECP_NO_ID)
			assert_true(pos[dag.pred[s]] < pos[s]);
		for (uint32_t k = dag.in_offset[s]; k < dag.in_offset[s + 1]; k++)
			assert_true(pos[dag.in_from[k]] < pos[s]);
	}
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_fig1_epsilon(void **state)
{
	(void)state;
	struct ecp_model *m = fig1();
	const uint64_t eps = 100;
	const uint32_t a[] = {F1_A1, F1_A2}, b[] = {F1_B1, F1_B2, F1_B3};
	const uint32_t c[] = {F1_C3}, d[] = {F1_D2};
	/* Three processors (= unlimited here). */
	assert_int_equal(span_with(m, a, 2, eps), 4 * U - 2 * eps);
	assert_int_equal(span_with(m, b, 3, eps), 4 * U);
	assert_int_equal(span_with(m, c, 1, eps), 4 * U - eps);
	assert_int_equal(span_with(m, d, 1, eps), 4 * U - eps);
	assert_int_equal(makespan_with(m, a, 2, eps, 3), 4 * U - 2 * eps);
	/* One processor: b() has the largest impact, 3 eps. */
	assert_int_equal(makespan_with(m, NULL, 0, 0, 1), 7 * U);
	assert_int_equal(makespan_with(m, b, 3, eps, 1), 7 * U - 3 * eps);
	assert_int_equal(makespan_with(m, a, 2, eps, 1), 7 * U - 2 * eps);
	mb_free(m);
}

/* Fig. 4 segment indices. */
enum {
	F4_A1,
	F4_B1,
	F4_C1,
	F4_EI1, /* thread 1 */
	F4_W2,
	F4_C2,
	F4_G2,
	F4_D2, /* thread 2 */
	F4_W3,
	F4_D3,
	F4_GH3,
	F4_A3,
	F4_F3, /* thread 3 */
};

static struct ecp_model *fig4(void)
{
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	mb_seg(&b, 1 * U, 0); /* a(), signal X */
	mb_seg(&b, 4 * U, 0); /* b(), signal Z */
	mb_seg(&b, 1 * U, 0); /* c(), wait X */
	mb_seg(&b, 2 * U, 0); /* e() i(), end */
	mb_thread(&b);
	mb_seg(&b, 0, 0);     /* wait X */
	mb_seg(&b, 1 * U, 0); /* c(), signal Y */
	mb_seg(&b, 1 * U, 0); /* g(), wait Y */
	mb_seg(&b, 1 * U, 0); /* d(), end */
	mb_thread(&b);
	mb_seg(&b, 0, 0);                          /* wait Y */
	mb_seg(&b, 2 * U, 0);                      /* d(), wait Z */
	mb_seg(&b, 2 * U, 0);                      /* g() h(), signal X */
	mb_seg(&b, 1 * U, 0);                      /* a(), signal Y */
	mb_seg(&b, 3 * U, 0);                      /* f(), end */
	mb_edge(&b, F4_A1, F4_C2, ECP_EDGE_SEM);   /* X: 1 -> 2 */
	mb_edge(&b, F4_C2, F4_D3, ECP_EDGE_SEM);   /* Y: 2 -> 3 */
	mb_edge(&b, F4_B1, F4_GH3, ECP_EDGE_SEM);  /* Z: 1 -> 3 */
	mb_edge(&b, F4_GH3, F4_EI1, ECP_EDGE_SEM); /* X: 3 -> 1 */
	mb_edge(&b, F4_A3, F4_D2, ECP_EDGE_SEM);   /* Y: 3 -> 2 */
	return mb_done(&b);
}

static void test_fig4_three_processors(void **state)
{
	(void)state;
	struct ecp_model *m = fig4();
	struct ecp_dag dag;
	struct ecp_error err = {0};
	struct ecp_replay r;
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(dag.span, 11 * U);
	assert_int_equal(dag.end[F4_F3], 11 * U);
	/* Thread 3 blocked from 4 to 5, released by thread 1 at 5. */
	assert_int_equal(dag.end[F4_D3], 4 * U);
	assert_int_equal(dag.start[F4_GH3], 5 * U);
	assert_int_equal(dag.end[F4_B1], 5 * U);
	assert_int_equal(ecp_replay_run(&dag, 3, ECP_REPLAY_STEPS, &r, &err), 0);
	assert_int_equal(r.makespan, 11 * U);
	/* Three runnable threads exactly during 2-3 and 8-9. */
	for (size_t i = 0; i + 1 < r.n_steps; i++) {
		bool three = r.steps[i].runnable == 3;
		bool in = (r.steps[i].time >= 2 * U && r.steps[i + 1].time <= 3 * U) ||
			  (r.steps[i].time >= 8 * U && r.steps[i + 1].time <= 9 * U);
		assert_true(three == in);
		assert_true(r.steps[i].runnable <= 3);
	}
	ecp_replay_finish(&r);
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_fig6_two_processors(void **state)
{
	(void)state;
	struct ecp_model *m = fig4();
	const uint32_t g2[] = {F4_G2}, c1[] = {F4_C1};
	/* Fig. 6a: 12 units on two processors. */
	assert_int_equal(makespan_with(m, NULL, 0, 0, 2), 12 * U);
	/* Fig. 6b: g() on thread 2 half a unit shorter: 11.75. */
	assert_int_equal(makespan_with(m, g2, 1, U / 2, 2), 11 * U + 3 * U / 4);
	/* Fig. 6c: c() on thread 1 shortened: no change. */
	assert_int_equal(makespan_with(m, c1, 1, U / 2, 2), 12 * U);
	/* One processor: the work. */
	assert_int_equal(makespan_with(m, NULL, 0, 0, 1), 19 * U);
	mb_free(m);
}

static void test_fig6_totals(void **state)
{
	(void)state;
	struct ecp_model *m = fig4();
	struct ecp_dag dag;
	struct ecp_error err = {0};
	struct ecp_replay r;
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(
	    ecp_replay_run(&dag, 2, ECP_REPLAY_TIMELINE | ECP_REPLAY_STEPS, &r, &err), 0);
	assert_int_equal(r.makespan, 12 * U);
	assert_int_equal(r.work, 19 * U);
	assert_int_equal(r.span, 11 * U);
	/* I_2 = 2 * T_2 - T_1 = 5 units. */
	assert_int_equal(r.idle, 5 * U);
	assert_true(r.work_law_ok && r.span_law_ok);
	assert_true(r.speedup > 1.58 && r.speedup < 1.59);
	/* Warped timeline: thread 3 ends last at 12; thread 1's b() stretched
	 * by the 3-thread interval 2-3 to end at 5.5. */
	assert_int_equal(r.seg_end[F4_F3], 12 * U);
	assert_int_equal(r.seg_end[F4_B1], 5 * U + U / 2);
	assert_int_equal(r.seg_start[F4_D2], 8 * U + U / 2);
	assert_int_equal(r.seg_end[F4_D2], 10 * U);
	/* The event simulation gives the same run. */
	struct ecp_replay s;
	assert_int_equal(
	    ecp_replay_run(&dag, 2, ECP_REPLAY_SIMULATE | ECP_REPLAY_TIMELINE, &s, &err),
	    0);
	assert_true(s.simulated);
	assert_int_equal(s.makespan, 12 * U);
	assert_int_equal(s.idle, 5 * U);
	for (uint32_t i = 0; i < dag.n_segments; i++) {
		assert_int_equal(s.seg_start[i], r.seg_start[i]);
		assert_int_equal(s.seg_end[i], r.seg_end[i]);
	}
	ecp_replay_finish(&s);
	ecp_replay_finish(&r);
	ecp_dag_finish(&dag);
	mb_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fig1_asap),
	    cmocka_unit_test(test_fig1_epsilon),
	    cmocka_unit_test(test_fig4_three_processors),
	    cmocka_unit_test(test_fig6_two_processors),
	    cmocka_unit_test(test_fig6_totals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
