/* SPDX-License-Identifier: MIT */
/* The paper's worked examples (Broberg et al. 2001, Sec. 2), reconstructed
 * with durations consistent with its text, checked with both the engine and
 * the brute-force oracle. */
#include "tests/engine/check.h"

#include <string.h>

#include "ecp/analysis.h"
#include "tests/engine/fixture.h"

enum { FA, FB, FC, FD, FE, FF, FG, FH, FI };

static void name_letters(struct fx *f)
{
	const char *names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
	for (unsigned i = 0; i < 9; i++)
		fx_name(f, i, names[i]);
}

static const struct ecp_function_result *find(const struct ecp_analysis *a, ecp_id fn)
{
	for (size_t i = 0; i < a->n_functions; i++)
		if (a->functions[i].function == fn)
			return &a->functions[i];
	fail_msg("function %u missing from the analysis", fn);
	return NULL;
}

/* Fig. 1: every function takes one unit (10 ns here). */
static void build_fig1(struct fx *f)
{
	fx_init(f);
	name_letters(f);
	ecp_id a1 = fx_run(f, 0, FA, 10, 0); /* signal X */
	ecp_id b1 = fx_run(f, 0, FB, 10, 0); /* wait Z */
	(void)b1;
	ecp_id a2 = fx_run(f, 0, FA, 10, 0); /* end */
	fx_run(f, 1, FB, 10, 0);             /* wait Y */
	ecp_id d = fx_run(f, 1, FD, 10, 0);  /* signal Z */
	fx_seg(f, 1, 0, 0);                  /* end */
	fx_seg(f, 2, 0, 0);                  /* start, wait X */
	ecp_id c = fx_run(f, 2, FC, 10, 0);  /* signal Y */
	fx_run(f, 2, FB, 10, 0);             /* end */
	fx_edge(f, a1, c);
	fx_edge(f, c, d);
	fx_edge(f, d, a2);
	assert_int_equal(fx_build(f), 0);
}

static void test_fig1(void **state)
{
	(void)state;
	struct fx f;
	build_fig1(&f);
	assert_int_equal(f.dag.span, 40);
	struct ecp_error err = {0};
	struct ecp_analysis a;
	/* 3 processors: a() gains 2 eps, b() nothing, c() and d() eps each. */
	free(check_weights(&f.dag, 3));
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 3, NULL, &a, &err), 0);
	assert_int_equal(a.makespan_ns, 40);
	assert_true(fabs(find(&a, FA)->tet_ns - 20) < 1e-9);
	assert_true(fabs(find(&a, FB)->tet_ns - 0) < 1e-9);
	assert_true(fabs(find(&a, FC)->tet_ns - 10) < 1e-9);
	assert_true(fabs(find(&a, FD)->tet_ns - 10) < 1e-9);
	assert_int_equal(find(&a, FA)->calls, 2);
	assert_int_equal(find(&a, FB)->calls, 0);
	assert_int_equal(a.functions[0].function, FA); /* the top function */
	ecp_analysis_finish(&a);
	/* 1 processor: b() gains 3 eps and is the top function. */
	free(check_weights(&f.dag, 1));
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 1, NULL, &a, &err), 0);
	assert_int_equal(a.makespan_ns, 70);
	assert_true(fabs(find(&a, FB)->tet_ns - 30) < 1e-9);
	assert_int_equal(a.functions[0].function, FB);
	assert_int_equal(find(&a, FB)->calls, 3);
	ecp_analysis_finish(&a);
	free(check_weights(&f.dag, 2));
	free(check_weights(&f.dag, ECP_UNLIMITED));
	fx_free(&f);
}

/* Fig. 4 / Fig. 6: on 3 processors thread 3 ends at 11 and is blocked from 4
 * to 5; on 2 processors the run takes 12, with three runnable threads during
 * 2-3 and 8-9. */
struct fig4 {
	ecp_id t1_a, t1_b, t1_c, t1_ei, t2_start, t2_c, t2_g, t2_d, t3_start, t3_d, t3_gh,
	    t3_a, t3_f;
};

static void build_fig4(struct fx *f, struct fig4 *s)
{
	fx_init(f);
	name_letters(f);
	s->t1_a = fx_run(f, 0, FA, 1, 0); /* signal X */
	s->t1_b = fx_run(f, 0, FB, 4, 0); /* signal Z */
	s->t1_c = fx_run(f, 0, FC, 1, 0); /* wait X */
	s->t1_ei = fx_seg(f, 0, 2, 0);    /* e(), i(), end */
	fx_act(f, s->t1_ei, FE, 1, 1, 1);
	fx_act(f, s->t1_ei, FI, 1, 1, 1);
	s->t2_start = fx_seg(f, 1, 0, 0); /* wait X */
	s->t2_c = fx_run(f, 1, FC, 1, 0); /* signal Y */
	s->t2_g = fx_run(f, 1, FG, 1, 0); /* wait Y */
	s->t2_d = fx_run(f, 1, FD, 2, 0); /* end */
	s->t3_start = fx_seg(f, 2, 0, 0); /* wait Y */
	s->t3_d = fx_run(f, 2, FD, 2, 0); /* wait Z */
	s->t3_gh = fx_seg(f, 2, 2, 0);    /* g(), h(), signal X */
	fx_act(f, s->t3_gh, FG, 1, 1, 1);
	fx_act(f, s->t3_gh, FH, 1, 1, 1);
	s->t3_a = fx_run(f, 2, FA, 1, 0); /* signal Y */
	s->t3_f = fx_run(f, 2, FF, 3, 0); /* end */
	fx_edge(f, s->t1_a, s->t2_c);
	fx_edge(f, s->t2_c, s->t3_d);
	fx_edge(f, s->t1_b, s->t3_gh);
	fx_edge(f, s->t3_gh, s->t1_ei);
	fx_edge(f, s->t3_a, s->t2_d);
	assert_int_equal(fx_build(f), 0);
}

static void test_fig4_fig6(void **state)
{
	(void)state;
	struct fx f;
	struct fig4 s;
	build_fig4(&f, &s);
	/* The reconstruction matches the text's timeline. */
	assert_int_equal(f.dag.end[s.t3_f], 11);
	assert_int_equal(f.dag.end[s.t3_d], 4);
	assert_int_equal(f.dag.start[s.t3_gh], 5);
	/* 3 processors: the ECP is thread 1 a, b and thread 3 g, h, a, f. */
	double *w = check_weights(&f.dag, 3);
	ecp_id on3[] = {s.t1_a, s.t1_b, s.t3_gh, s.t3_a, s.t3_f};
	for (uint32_t i = 0; i < f.dag.n_segments; i++) {
		bool on = false;
		for (size_t j = 0; j < sizeof(on3) / sizeof(on3[0]); j++)
			on |= on3[j] == i;
		if (f.dag.length[i])
			assert_true(fabs(w[i] - (on ? 1.0 : 0.0)) < 1e-12);
	}
	free(w);
	/* 2 processors: 12 units; ECP thread 1 a, b, e, i; thread 2 g;
	 * thread 3 g, h, a, f; g() on thread 2 weighs 0.5 ((12 - 11.75) / 0.5);
	 * c() on thread 1 weighs 0. */
	struct ecp_error err = {0};
	struct ecp_engine *engine;
	assert_int_equal(ecp_engine_create(&f.dag, NULL, &engine, &err), 0);
	struct ecp_run_summary sum;
	w = calloc(f.dag.n_segments, sizeof(double));
	assert_int_equal(ecp_engine_run(engine, 2, w, NULL, &sum, &err), 0);
	assert_true(fabsl(sum.makespan - 12.0L) < 1e-12L);
	assert_true(fabs(w[s.t2_g] - 0.5) < 1e-12);
	assert_true(fabs(w[s.t1_c]) < 1e-12);
	ecp_id on2[] = {s.t1_a, s.t1_b, s.t1_ei, s.t2_g, s.t3_gh, s.t3_a, s.t3_f};
	for (uint32_t i = 0; i < f.dag.n_segments; i++) {
		bool on = false;
		for (size_t j = 0; j < sizeof(on2) / sizeof(on2[0]); j++)
			on |= on2[j] == i;
		if (on != (fabs(w[i]) > 1e-12))
			fail_msg("segment %u: weight %g at P=2, on the paper's ECP: %d",
				 i, w[i], on);
	}
	free(w);
	ecp_engine_destroy(engine);
	free(check_weights(&f.dag, 2));
	free(check_weights(&f.dag, 1));
	free(check_weights(&f.dag, ECP_UNLIMITED));
	fx_free(&f);
}

/* Fig. 7: the thick segment's end releases thread 2 (the last to finish) and
 * a thread that leaves a period of four runnable threads: weight 4/3 at
 * P = 3, 1.0 at P = 2. */
static void test_fig7(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id thick = fx_run(&f, 0, 0, 2, 0); /* broadcast */
	fx_seg(&f, 0, 0, 0);                   /* end */
	fx_seg(&f, 1, 0, 0);                   /* thread 2: wait */
	ecp_id t2 = fx_run(&f, 1, 1, 6, 0);
	fx_seg(&f, 3, 0, 0); /* thread 4: wait */
	ecp_id t4 = fx_run(&f, 3, 2, 2, 0);
	ecp_id t3a = fx_run(&f, 2, 3, 3, 0); /* thread 3: signal thread 5 */
	fx_run(&f, 2, 3, 3, 0);
	fx_seg(&f, 4, 0, 0); /* thread 5: wait */
	ecp_id t5 = fx_run(&f, 4, 4, 3, 0);
	fx_edge(&f, thick, t2);
	fx_edge(&f, thick, t4);
	fx_edge(&f, t3a, t5);
	assert_int_equal(fx_build(&f), 0);
	double *w = check_weights(&f.dag, 3);
	assert_true(fabs(w[thick] - 4.0 / 3.0) < 1e-12);
	free(w);
	w = check_weights(&f.dag, 2);
	assert_true(fabs(w[thick] - 1.0) < 1e-12);
	free(w);
	free(check_weights(&f.dag, 4));
	fx_free(&f);
}

/* Fig. 8: shortening the thick segment starts two threads earlier, into a
 * period with three runnable threads: the period of four gets longer and
 * the run slower.  Negative weight at P = 3. */
static void test_fig8(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id thick = fx_run(&f, 0, 0, 2, 0);
	fx_seg(&f, 0, 0, 0);
	fx_seg(&f, 1, 0, 0);
	ecp_id t2 = fx_run(&f, 1, 1, 2, 0);
	fx_seg(&f, 3, 0, 0);
	ecp_id t4 = fx_run(&f, 3, 1, 2, 0);
	fx_run(&f, 2, 2, 3, 0);
	fx_run(&f, 4, 3, 10, 0);
	fx_edge(&f, thick, t2);
	fx_edge(&f, thick, t4);
	assert_int_equal(fx_build(&f), 0);
	double *w = check_weights(&f.dag, 3);
	assert_true(w[thick] < 0);
	assert_true(fabs(w[thick] + 1.0 / 3.0) < 1e-12);
	free(w);
	w = check_weights(&f.dag, 2);
	assert_true(fabs(w[thick]) < 1e-12);
	free(w);
	fx_free(&f);
}

/* Fig. 20: a 12-unit computation and a watchdog running 1 unit every second
 * unit, five times.  On one processor the run takes 17 and the watchdog is
 * on the ECP; on two it is not. */
static void test_fig20_watchdog(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	fx_name(&f, 0, "compute");
	fx_name(&f, 1, "watchdog");
	ecp_id work = fx_run(&f, 0, 0, 12, 0);
	ecp_id dog[5];
	for (int i = 0; i < 5; i++)
		dog[i] = fx_run(&f, 1, 1, 1, i ? 1 : 0);
	assert_int_equal(fx_build(&f), 0);
	double *w = check_weights(&f.dag, 1);
	assert_true(fabs(w[work] - 1.0) < 1e-12);
	for (int i = 0; i < 5; i++)
		assert_true(fabs(w[dog[i]] - 1.0) < 1e-12);
	free(w);
	w = check_weights(&f.dag, 2);
	assert_true(fabs(w[work] - 1.0) < 1e-12);
	for (int i = 0; i < 5; i++)
		assert_true(fabs(w[dog[i]]) < 1e-12);
	free(w);
	struct ecp_error err = {0};
	struct ecp_analysis a;
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 1, NULL, &a, &err), 0);
	assert_int_equal(a.makespan_ns, 17);
	assert_true(fabs(find(&a, 1)->tet_ns - 5.0) < 1e-12);
	ecp_analysis_finish(&a);
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 2, NULL, &a, &err), 0);
	assert_int_equal(a.makespan_ns, 12);
	assert_true(fabs(find(&a, 1)->tet_ns) < 1e-12);
	assert_int_equal(find(&a, 1)->calls, 0);
	ecp_analysis_finish(&a);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fig1),           cmocka_unit_test(test_fig4_fig6),
	    cmocka_unit_test(test_fig7),           cmocka_unit_test(test_fig8),
	    cmocka_unit_test(test_fig20_watchdog),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
