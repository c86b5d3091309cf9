/* SPDX-License-Identifier: MIT */
/* Unit tests of the model builder's OpenMP dynamic loops (builder-omp.c):
 * chunks recorded on one thread are dealt out again to the team. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "simulator/model/model.h"
#include "tests/support/event-seq.h"

#define MAIN 1
#define T2   2
#define H1   0x1000
#define H2   0x2000
#define R2   0x30
#define LOOP 0x0100000001ull

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

/* The main thread ran all three chunks of 40 ns in the recording; the
 * second thread found none left.  Dealt again (the next chunk to the
 * thread free first): main 40 + 40, T2 40. */
static void test_chunks_dealt_again(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 5, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_OMP_CHUNK, LOOP, 0, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_OMP_CHUNK, LOOP, 0, 0);
	ecp_test_ev(&s, MAIN, 90, ECP_EV_OMP_CHUNK, LOOP, 0, 0);
	ecp_test_ev(&s, MAIN, 130, ECP_EV_OMP_CHUNK, LOOP, 1, 0);
	ecp_test_ev(&s, T2, 140, ECP_EV_OMP_CHUNK, LOOP, 1, 0);
	ecp_test_ev(&s, T2, 150, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 160, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	const struct ecp_segment *main_loop = &m->segments[ecp_test_seg(m, 0, 2)];
	const struct ecp_segment *t2_loop = &m->segments[ecp_test_seg(m, 1, 1)];
	assert_int_equal(main_loop->length, 80);
	assert_int_equal(t2_loop->length, 40);
	/* no work is lost or made: T1 is what was recorded */
	assert_int_equal(ecp_model_work(m), (160 - 0) + (150 - 5));
	/* the main thread's next segment starts 40 ns earlier on its CPU line */
	assert_int_equal(m->segments[ecp_test_seg(m, 0, 3)].cpu_start, 10 + 80);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A thread's part that spans a synchronization (a lock inside a chunk)
 * leaves the loop as recorded. */
static void test_irregular_loop_kept(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 5, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_OMP_CHUNK, LOOP, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_LOCK_REQUEST, 0xa0, 0, 0);
	ecp_test_ev(&s, MAIN, 21, ECP_EV_LOCK_ACQUIRED, 0xa0, 0, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_LOCK_RELEASE, 0xa0, 0, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_OMP_CHUNK, LOOP, 0, 0);
	ecp_test_ev(&s, MAIN, 90, ECP_EV_OMP_CHUNK, LOOP, 1, 0);
	ecp_test_ev(&s, T2, 140, ECP_EV_OMP_CHUNK, LOOP, 1, 0);
	ecp_test_ev(&s, T2, 150, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 160, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->segments[ecp_test_seg(m, 1, 1)].length, 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* The chunks dealt on the threads' own clocks.  One CPU: main on it
 * 0..100 and 130..1000, T2 100..130.  T2 finds no chunk left (its `done`
 * at 110); main runs both chunks, 100 ns each (140..340), posts at 350
 * and 650 and exits at 900.  Main's clock reads 10 at its start, 320 and
 * 470 at the posts (the hypervisor took half of 350..650), 720 at its
 * exit.  Dealt again, one chunk each: main's loop segment 100, T2's 100.
 * Main's segment between the posts keeps the steal that fell in it (300
 * on the records, 150), the one after none (250).  Dealt before the
 * scaling, the segments after the loop would start 100 earlier on the
 * records and be mapped through the wrong readings: 200 and 200.  T2's
 * clock reads 5 at its start and 20 at its exit. */
static void test_chunks_dealt_after_the_steal_is_placed(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 100, 1, 1);
	ecp_test_switch(&s, T2, 100, 0, 0);
	ecp_test_switch(&s, T2, 130, 1, 0);
	ecp_test_switch(&s, MAIN, 130, 0, 0);
	ecp_test_switch(&s, MAIN, 1000, 1, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_THREAD_START, 0, 0, H1)->cpu_ns = 10;
	ecp_test_ev(&s, MAIN, 20, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 105, ECP_EV_THREAD_START, 1, R2, H2)->cpu_ns = 5;
	ecp_test_ev(&s, T2, 110, ECP_EV_OMP_CHUNK, LOOP, 1, 0);
	ecp_test_ev(&s, T2, 120, ECP_EV_THREAD_EXIT, H2, 0, 0)->cpu_ns = 20;
	ecp_test_ev(&s, MAIN, 140, ECP_EV_OMP_CHUNK, LOOP, 0, 0);
	ecp_test_ev(&s, MAIN, 240, ECP_EV_OMP_CHUNK, LOOP, 0, 0);
	ecp_test_ev(&s, MAIN, 340, ECP_EV_OMP_CHUNK, LOOP, 1, 0);
	ecp_test_ev(&s, MAIN, 350, ECP_EV_SEM_POST, 0xa0, 0, 0)->cpu_ns = 320;
	ecp_test_ev(&s, MAIN, 650, ECP_EV_SEM_POST, 0xa0, 0, 0)->cpu_ns = 470;
	ecp_test_ev(&s, MAIN, 900, ECP_EV_PROCESS_EXIT, 0, 0, 0)->cpu_ns = 720;
	struct ecp_builder_options o = {.clock = ECP_CLOCK_PERF_SWITCH};
	struct ecp_model *m = build_ok(&s, &o);
	assert_int_equal(m->threads[0].n_segments, 6);
	const uint64_t want[6] = {10, 90, 100, 10, 150, 250};
	for (uint32_t k = 0; k < 6; k++) {
		uint64_t got = m->segments[ecp_test_seg(m, 0, k)].length;
		/* each end mapped and rounded down on its own */
		if (got + 1 < want[k] || got > want[k] + 1)
			fail_msg("main's segment %u: %llu ns, want %llu", k,
				 (unsigned long long)got, (unsigned long long)want[k]);
	}
	assert_int_equal(m->segments[ecp_test_seg(m, 1, 1)].length, 100);
	/* what each thread's own clock is held to carries the chunk the deal
	 * moved: main's 710 less it, T2's 15 and it, each its work (the
	 * consistency check warned of both threads before) */
	assert_int_equal(m->threads[0].own_clock_ns, 710 - 100);
	assert_int_equal(m->threads[1].own_clock_ns, 15 + 100);
	assert_int_equal(ecp_model_thread_work(m, 1), 15 + 100);
	uint64_t main_work = ecp_model_thread_work(m, 0);
	if (main_work + 2 < 610 || main_work > 610)
		fail_msg("main's work %llu, want 610", (unsigned long long)main_work);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chunks_dealt_again),
	    cmocka_unit_test(test_irregular_loop_kept),
	    cmocka_unit_test(test_chunks_dealt_after_the_steal_is_placed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
