/* SPDX-License-Identifier: MIT */
/* Unit tests of sampled function time in the model builder (issue 18):
 * samples pushed before the program's events split each segment among the
 * functions they saw, each sample taking over half-way between its
 * neighbours (the first at the thread's start), below the instrumented
 * frames, never before a function event that preceded it; by call site a
 * function has one identity per caller; the sampled frames are calls on the
 * thread's timeline from take-over to take-over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "simulator/model/model.h"
#include "tests/support/event-seq.h"

#define MAIN   1
#define H1     0x1000
#define F      0x10
#define G      0x20
#define S      0xc0
#define SITE_A 0x55
#define SITE_B 0x66

struct sample {
	uint64_t ts;
	uint64_t funcs[3], sites[3];
	uint32_t n;
};

/* Samples first (as the sched trace comes first), then the events. */
static struct ecp_model *build(const struct sample *smp, size_t n_smp,
			       const struct ecp_test_seq *s, bool by_callsite,
			       bool samples_only)
{
	struct ecp_builder_options o = {.clock = ECP_CLOCK_PERF_SWITCH,
					.trace_path = "synthetic",
					.by_callsite = by_callsite,
					.keep_calls = true,
					.ignore_function_events = samples_only};
	struct ecp_error err = {0};
	struct ecp_builder *b = NULL;
	struct ecp_model *m = NULL;
	assert_int_equal(ecp_builder_create(&o, &b, &err), 0);
	for (size_t i = 0; i < n_smp; i++)
		assert_int_equal(ecp_builder_push_sample(b, MAIN, smp[i].ts, smp[i].funcs,
							 smp[i].sites, smp[i].n, &err),
				 0);
	for (size_t i = 0; i < s->n; i++)
		if (ecp_builder_push(b, &s->ev[i], &err) < 0)
			fail_msg("push: %s", err.msg);
	if (ecp_builder_finish(b, NULL, &m, &err) < 0)
		fail_msg("finish: %s", err.msg);
	ecp_builder_destroy(b);
	if (ecp_model_validate(m, &err) < 0)
		fail_msg("invalid model: %s", err.msg);
	return m;
}

/* The one call of function f on thread 0, which must exist. */
static const struct ecp_call *call_of(const struct ecp_model *m, ecp_id f)
{
	const struct ecp_call *found = NULL;
	for (uint64_t i = 0; i < m->n_calls; i++)
		if (m->calls[i].function == f) {
			assert_null(found);
			found = &m->calls[i];
		}
	assert_non_null(found);
	return found;
}

static void assert_call(const struct ecp_call *c, uint32_t depth, uint64_t enter,
			uint64_t exit, uint32_t flags)
{
	assert_int_equal(c->thread, 0);
	assert_int_equal(c->depth, depth);
	assert_int_equal(c->enter, enter);
	assert_int_equal(c->exit, exit);
	assert_int_equal(c->flags, flags);
}

/* main runs [0, 400) with a semaphore post at 200 (two segments); samples
 * at 100 and 200 in F called from G, at 300 in G: F holds [0, 250) (the
 * first sample from the start, the third from half-way between 200 and
 * 300), G [250, 400). */
static void test_samples_split_segments(void **state)
{
	(void)state;
	const struct sample smp[] = {
	    {100, {F, G, 0}, {SITE_A, SITE_B, 0}, 2},
	    {200, {F, G, 0}, {SITE_A, SITE_B, 0}, 2},
	    {300, {G, 0, 0}, {SITE_B, 0, 0}, 1},
	};
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 200, ECP_EV_SEM_POST, S, 0, 0);
	ecp_test_ev(&s, MAIN, 400, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build(smp, 3, &s, false, false);
	assert_int_equal(m->n_segments, 2);
	ecp_id f = ecp_test_fn(m, F), g = ecp_test_fn(m, G);
	assert_int_equal(ecp_test_self(m, 0, f), 200);
	assert_int_equal(ecp_test_incl(m, 0, g), 200);
	assert_int_equal(ecp_test_self(m, 0, g), 0);
	assert_int_equal(ecp_test_self(m, 1, f), 50);
	assert_int_equal(ecp_test_self(m, 1, g), 150);
	assert_int_equal(ecp_test_incl(m, 1, g), 200);
	assert_int_equal(ecp_test_calls(m, 0, f), 0); /* sampled: calls unknown */
	assert_int_equal(m->functions[f].samples, 2);
	assert_int_equal(m->functions[g].samples, 1);
	/* on the timeline: G over the whole thread, F inside it until the
	 * third sample takes over; the segment boundary splits no call */
	assert_int_equal(m->n_calls, 2);
	assert_call(call_of(m, g), 0, 0, 400, ECP_CALL_SAMPLED);
	assert_call(call_of(m, f), 1, 0, 250, ECP_CALL_SAMPLED);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* Instrumented G [50, 350): samples fill in below it (F at 100), never
 * before G's entry; the sample at 300 in G itself leaves G's time to the
 * instrumentation.  main 0-50 and 350-400. */
static void test_samples_below_instrumented(void **state)
{
	(void)state;
	const struct sample smp[] = {
	    {100, {F, G, 0}, {SITE_A, SITE_B, 0}, 2},
	    {300, {G, 0, 0}, {SITE_B, 0, 0}, 1},
	};
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_FUNC_ENTRY, G, SITE_B, 0);
	ecp_test_ev(&s, MAIN, 350, ECP_EV_FUNC_EXIT, G, 0, 0);
	ecp_test_ev(&s, MAIN, 400, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build(smp, 2, &s, false, false);
	ecp_id f = ecp_test_fn(m, F), g = ecp_test_fn(m, G);
	ecp_id main_fn = ecp_model_find_function(m, "main");
	assert_int_equal(ecp_test_self(m, 0, main_fn), 100);
	assert_int_equal(ecp_test_self(m, 0, f), 150); /* [50, 200) */
	assert_int_equal(ecp_test_incl(m, 0, f), 150);
	assert_int_equal(ecp_test_self(m, 0, g), 150); /* [200, 350) */
	assert_int_equal(ecp_test_incl(m, 0, g), 300);
	assert_int_equal(ecp_test_calls(m, 0, g), 1);
	assert_int_equal(m->functions[f].samples, 1);
	assert_int_equal(m->functions[g].samples, 0);
	/* F one level below the instrumented G, from G's entry to the sample
	 * that found G alone */
	assert_int_equal(m->n_calls, 2);
	assert_call(call_of(m, g), 0, 50, 350, 0);
	assert_call(call_of(m, f), 1, 50, 200, ECP_CALL_SAMPLED);
	ecp_model_destroy(m);

	/* the same run from the samples alone: G's entry and exit only count */
	m = build(smp, 2, &s, false, true);
	f = ecp_test_fn(m, F);
	g = ecp_test_fn(m, G);
	assert_int_equal(ecp_test_self(m, 0, f), 200); /* [0, 200) */
	assert_int_equal(ecp_test_self(m, 0, g), 200); /* [200, 400) */
	assert_int_equal(ecp_test_incl(m, 0, g), 400);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* G calls F, then H: G's call goes on across the take-over at 150, F's ends
 * and H's begins there. */
static void test_sampled_calls_share_outer_frames(void **state)
{
	(void)state;
	const uint64_t h = 0x30;
	const struct sample smp[] = {
	    {100, {F, G, 0}, {SITE_A, SITE_B, 0}, 2},
	    {200, {h, G, 0}, {SITE_A, SITE_B, 0}, 2},
	};
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 300, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build(smp, 2, &s, false, false);
	assert_int_equal(m->n_calls, 3);
	assert_call(call_of(m, ecp_test_fn(m, G)), 0, 0, 300, ECP_CALL_SAMPLED);
	assert_call(call_of(m, ecp_test_fn(m, F)), 1, 0, 150, ECP_CALL_SAMPLED);
	assert_call(call_of(m, ecp_test_fn(m, h)), 1, 150, 300, ECP_CALL_SAMPLED);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* By call site: F called from SITE_A and from another site are two
 * functions; an instrumented call's site is its call_site. */
static void test_samples_by_callsite(void **state)
{
	(void)state;
	const struct sample smp[] = {
	    {100, {F, G, 0}, {SITE_A, SITE_B, 0}, 2},
	    {300, {F, G, 0}, {SITE_B, SITE_B, 0}, 2},
	};
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 400, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build(smp, 2, &s, true, false);
	uint32_t n_f = 0;
	uint64_t self_a = 0, self_b = 0;
	for (ecp_id i = 0; i < m->n_functions; i++) {
		if (m->functions[i].addr != F)
			continue;
		n_f++;
		if (m->functions[i].call_site == SITE_A)
			self_a = ecp_test_self(m, 0, i);
		else if (m->functions[i].call_site == SITE_B)
			self_b = ecp_test_self(m, 0, i);
	}
	assert_int_equal(n_f, 2);
	assert_int_equal(self_a, 200);
	assert_int_equal(self_b, 200);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* Samples of a thread before its first event (the loader) and after its
 * exit are no part of the model; a function seen only there is not made. */
static void test_samples_outside_the_thread(void **state)
{
	(void)state;
	const struct sample smp[] = {
	    {5, {G, 0, 0}, {0, 0, 0}, 1},
	    {100, {F, 0, 0}, {0, 0, 0}, 1},
	    {500, {G, 0, 0}, {0, 0, 0}, 1},
	};
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 210, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build(smp, 3, &s, false, false);
	ecp_id f = ecp_test_fn(m, F);
	assert_int_equal(ecp_test_self(m, 0, f), 200);
	assert_int_equal(ecp_test_fn(m, G), ECP_NO_ID);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* The kernel's cost of each sample taken in the thread's life comes out of
 * its clock at the sample, also where the samples split no time (counted,
 * not pushed: --functions-from instrument, or a sample in the recorder's
 * own code): main [10, 400) with a post at 200; samples at 5 (before the
 * thread), 100, 150 and 300, 10 ns each. */
static void test_sample_cost_subtracted(void **state)
{
	(void)state;
	const uint64_t at[] = {5, 100, 150, 300};
	struct ecp_builder_options o = {.clock = ECP_CLOCK_PERF_SWITCH,
					.trace_path = "synthetic",
					.sample_cost_ns = 10};
	struct ecp_error err = {0};
	struct ecp_builder *b = NULL;
	struct ecp_model *m = NULL;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 200, ECP_EV_SEM_POST, S, 0, 0);
	ecp_test_ev(&s, MAIN, 400, ECP_EV_THREAD_EXIT, H1, 0, 0);
	assert_int_equal(ecp_builder_create(&o, &b, &err), 0);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		assert_int_equal(ecp_builder_count_sample(b, MAIN, at[i], &err), 0);
	for (size_t i = 0; i < s.n; i++)
		if (ecp_builder_push(b, &s.ev[i], &err) < 0)
			fail_msg("push: %s", err.msg);
	if (ecp_builder_finish(b, NULL, &m, &err) < 0)
		fail_msg("finish: %s", err.msg);
	ecp_builder_destroy(b);
	assert_int_equal(m->n_segments, 2);
	assert_int_equal(m->segments[0].length, 190 - 20);
	assert_int_equal(m->segments[1].length, 200 - 10);
	assert_int_equal(m->threads[0].overhead_ns, 30);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* libomp spins in a task wait outside the bodies of the tasks it runs
 * there, and that CPU time is no work (builder-tasks.c): samples taken
 * over inside the spin must go with it.  main (a team of one) makes a task
 * at 10, waits, spins to 17, runs it to 37, spins to 42, runs on to 50;
 * samples of F at 5, of G at 12 and 16 (taking over at 14, inside the
 * first spin) and at 40 and 41 (inside the second).  Before the spin's
 * charges went with it the model was refused: a segment's functions held
 * more time than its length.  The work is 10 + 20 + 8. */
static void test_samples_in_task_wait_spin(void **state)
{
	(void)state;
	const uint64_t fork = 0xecb0000000000004ull;
	const struct sample smp[] = {{5, {F}, {0}, 1},
				     {12, {G}, {0}, 1},
				     {16, {G}, {0}, 1},
				     {40, {F}, {0}, 1},
				     {41, {G}, {0}, 1}};
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_ONCE_BEGIN, fork, 0, 0);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_ONCE_END, fork, 1, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_OMP_TASK_CREATE, 1, 0, 0x400);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_OMP_TASKWAIT, 0, 0, 0);
	ecp_test_ev(&s, MAIN, 17, ECP_EV_OMP_TASK_BEGIN, 1, 0, 0);
	ecp_test_ev(&s, MAIN, 37, ECP_EV_OMP_TASK_END, 1, 0, 0);
	ecp_test_ev(&s, MAIN, 42, ECP_EV_OMP_TASKWAIT, 1, 0, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build(smp, sizeof(smp) / sizeof(smp[0]), &s, false, true);
	assert_int_equal(ecp_model_work(m), 10 + 20 + 8);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_samples_split_segments),
	    cmocka_unit_test(test_samples_below_instrumented),
	    cmocka_unit_test(test_sampled_calls_share_outer_frames),
	    cmocka_unit_test(test_samples_by_callsite),
	    cmocka_unit_test(test_samples_outside_the_thread),
	    cmocka_unit_test(test_sample_cost_subtracted),
	    cmocka_unit_test(test_samples_in_task_wait_spin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
