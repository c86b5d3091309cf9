/* SPDX-License-Identifier: MIT */
/* Unit tests of the builder's cut of LLVM libomp's spins outside the waits
 * OMPT reports (ecp:omp_spin, bld_cut_spin in builder-segments.c): the
 * CPU time spun comes out of the segment, of the calls open across it and
 * of the work, back to no earlier than the thread's last event, and is
 * counted as the runtime's (the consistency check's overhead). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "simulator/model/model.h"
#include "tests/support/event-seq.h"

#define MAIN 1
#define H1   0x1000
#define F    0x2000
#define G    0x3000

static struct ecp_model *build_ok(struct ecp_test_seq *s,
				  const struct ecp_builder_options *o)
{
	struct ecp_error err = {0};
	struct ecp_model *m = ecp_test_seq_build(s, o, &err);
	if (!m)
		fail_msg("build failed: %s", err.msg);
	if (ecp_model_validate(m, &err) < 0)
		fail_msg("invalid model: %s", err.msg);
	return m;
}

/* F runs 10..100 and spins 30..70 (spun 40 at 70): F holds 50, the
 * thread 80, and the 40 are the runtime's. */
static void test_spin_cut_from_call_and_work(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 70, ECP_EV_OMP_SPIN, 40, 0, 0);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 120, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->n_segments, 1);
	assert_int_equal(m->segments[0].length, 80);
	assert_int_equal(ecp_model_work(m), 80);
	ecp_id f = ecp_test_fn(m, F);
	assert_int_equal(ecp_test_self(m, 0, f), 50);
	assert_int_equal(ecp_test_incl(m, 0, f), 50);
	assert_int_equal(m->info.overhead_ns, 40);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* The spin said 40 but G was entered at 50: only 50..70 is cut; G
 * (50..80) keeps 10, F (10..100) 70. */
static void test_spin_cut_back_to_the_last_event(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_FUNC_ENTRY, G, 0, 0);
	ecp_test_ev(&s, MAIN, 70, ECP_EV_OMP_SPIN, 40, 0, 0);
	ecp_test_ev(&s, MAIN, 80, ECP_EV_FUNC_EXIT, G, 0, 0);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 120, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->segments[0].length, 100);
	ecp_id f = ecp_test_fn(m, F), g = ecp_test_fn(m, G);
	assert_int_equal(ecp_test_incl(m, 0, g), 10);
	assert_int_equal(ecp_test_self(m, 0, g), 10);
	assert_int_equal(ecp_test_incl(m, 0, f), 70);
	assert_int_equal(ecp_test_self(m, 0, f), 60);
	assert_int_equal(m->info.overhead_ns, 20);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* One run told twice (spun 20 at 60, 50 at 90): 40..90 cut once, not
 * 40..60 and 40..90. */
static void test_spin_told_twice_cut_once(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 60, ECP_EV_OMP_SPIN, 20, 0, 0);
	ecp_test_ev(&s, MAIN, 90, ECP_EV_OMP_SPIN, 50, 0, 0);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 120, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->segments[0].length, 70);
	assert_int_equal(ecp_test_incl(m, 0, ecp_test_fn(m, F)), 40);
	assert_int_equal(m->info.overhead_ns, 50);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A spin across a segment's start is cut from that start only: the
 * segment before it (ended by a delay's end at 50: without switch records
 * the delay's wall time is in it) keeps its time. */
static void test_spin_not_cut_across_segments(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_DELAY_BEGIN, 1, (uint64_t)-1, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_DELAY_END, 1, 0, 0);
	ecp_test_ev(&s, MAIN, 70, ECP_EV_OMP_SPIN, 60, 0, 0);
	ecp_test_ev(&s, MAIN, 120, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->n_segments, 2);
	assert_int_equal(m->segments[ecp_test_seg(m, 0, 0)].length, 50);
	assert_int_equal(m->segments[ecp_test_seg(m, 0, 1)].length, 120 - 50 - 20);
	assert_int_equal(m->info.overhead_ns, 20);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* On the thread-CPU clock the functions are timed in wall time: nothing is
 * cut, rather than the segment alone. */
static void test_spin_kept_on_thread_cpu_clock(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	struct ecp_event *e = ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	e->cpu_ns = 0;
	e = ecp_test_ev(&s, MAIN, 70, ECP_EV_OMP_SPIN, 40, 0, 0);
	e->cpu_ns = 70;
	e = ecp_test_ev(&s, MAIN, 120, ECP_EV_THREAD_EXIT, H1, 0, 0);
	e->cpu_ns = 120;
	struct ecp_builder_options o = {.clock = ECP_CLOCK_THREAD_CPUTIME};
	struct ecp_model *m = build_ok(&s, &o);
	assert_int_equal(ecp_model_work(m), 120);
	assert_int_equal(m->info.overhead_ns, 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spin_cut_from_call_and_work),
	    cmocka_unit_test(test_spin_cut_back_to_the_last_event),
	    cmocka_unit_test(test_spin_told_twice_cut_once),
	    cmocka_unit_test(test_spin_not_cut_across_segments),
	    cmocka_unit_test(test_spin_kept_on_thread_cpu_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
