/* SPDX-License-Identifier: MIT */
/* Unit tests of the builder on locks still held when the trace ends
 * (builder-held.c): the JVM exits with its threads holding locks, and a
 * taking that the simulator moved before another thread's critical section
 * then blocked that thread for ever ("deadlock in the simulated run"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "simulator/model/dag.h"
#include "simulator/model/model.h"
#include "tests/support/event-seq.h"

#define MAIN 1
#define T2   2
#define T3   3
#define H1   0x1000
#define R2   0x30
#define R3   0x40
#define M    0xa0

static struct ecp_model *build_ok(struct ecp_test_seq *s)
{
	struct ecp_error err = {0};
	struct ecp_model *m = ecp_test_seq_build(s, NULL, &err);
	if (!m)
		fail_msg("build failed: %s", err.msg);
	if (ecp_model_validate(m, &err) < 0)
		fail_msg("invalid model: %s", err.msg);
	return m;
}

/* The simulated run on unlimited processors in both lock modes: every
 * segment runs (no deadlock). */
static void simulates(const struct ecp_model *m)
{
	for (int policy = 0; policy < 2; policy++) {
		struct ecp_dag dag;
		struct ecp_error err = {0};
		int rc = ecp_dag_build(
		    m, NULL, policy ? ECP_LOCK_ORDER_RECORDED : ECP_LOCK_ORDER_ARRIVAL,
		    &dag, &err);
		if (rc)
			fail_msg("%s lock order: %s", policy ? "recorded" : "arrival",
				 err.msg);
		ecp_dag_finish(&dag);
	}
}

/* The segment of thread `t` that starts at recorded time `at`. */
static ecp_id seg_at(const struct ecp_model *m, uint32_t t, uint64_t at)
{
	const struct ecp_thread *th = &m->threads[t];
	for (uint32_t k = 0; k < th->n_segments; k++)
		if (m->segments[th->first_segment + k].rec_start == at)
			return th->first_segment + k;
	fail_msg("thread %u has no segment starting at %llu", t, (unsigned long long)at);
	return ECP_NO_ID;
}

/* main computes, then holds M briefly; the worker, late on the one CPU,
 * takes M after main's release and still holds it at main's exit.  On
 * unlimited processors the worker comes to M first: it must not keep it
 * from main. */
static void test_exclusive_held_at_exit(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_LOCK_REQUEST, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 101, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 110, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 111, ECP_EV_THREAD_START, 1, R2, 0x2000);
	ecp_test_ev(&s, T2, 115, ECP_EV_LOCK_REQUEST, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 116, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 200, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s);
	simulates(m);
	ecp_id crit = seg_at(m, 0, 101), held = seg_at(m, 1, 116);
	assert_int_equal(m->segments[crit].lock_acquire, 0);
	assert_int_equal(m->segments[crit].lock_release, 0);
	assert_int_equal(m->segments[held].lock_acquire, ECP_NO_ID);
	assert_true(ecp_test_has_edge(m, crit, held, ECP_EDGE_LOCK_HELD));
	assert_true(ecp_test_has_warning(m, "1 takings of a lock were never released"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A reader of an rwlock holds it at exit; a writer released it before the
 * reader took it, another reader took and released it after: only the
 * writer's release comes before the held taking. */
static void test_shared_held_at_exit(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, MAIN, 2, ECP_EV_THREAD_CREATE, 2, R3, 2);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_RWLOCK,
		    ECP_LOCK_EXCLUSIVE);
	ecp_test_ev(&s, MAIN, 60, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_RWLOCK, 0);
	ecp_test_ev(&s, T2, 61, ECP_EV_THREAD_START, 1, R2, 0x2000);
	ecp_test_ev(&s, T2, 70, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_RWLOCK,
		    ECP_LOCK_SHARED);
	ecp_test_ev(&s, T3, 71, ECP_EV_THREAD_START, 2, R3, 0x3000);
	ecp_test_ev(&s, T3, 80, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_RWLOCK,
		    ECP_LOCK_SHARED);
	ecp_test_ev(&s, T3, 90, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_RWLOCK, 0);
	ecp_test_ev(&s, T3, 95, ECP_EV_THREAD_EXIT, 0x3000, 0, 0);
	ecp_test_ev(&s, MAIN, 200, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s);
	simulates(m);
	ecp_id wrote = seg_at(m, 0, 50), held = seg_at(m, 1, 70), read = seg_at(m, 2, 80);
	assert_int_equal(m->segments[held].lock_acquire, ECP_NO_ID);
	assert_int_equal(m->segments[read].lock_acquire, 0);
	assert_true(ecp_test_has_edge(m, wrote, held, ECP_EDGE_LOCK_HELD));
	assert_false(ecp_test_has_edge(m, read, held, ECP_EDGE_LOCK_HELD));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* The CI trace's order (LLVM's libomp reports a release after it): main
 * takes M and is preempted after releasing it but before its release is
 * written; T2 takes and releases M meanwhile; main's release comes last.
 * Main's late release ends its critical section: no inconsistency, and
 * no deadlock at replay in either lock order. */
static void test_release_written_late(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 5, ECP_EV_THREAD_START, 1, R2, 0x2000);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_LOCK_REQUEST, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 101, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 120, ECP_EV_LOCK_REQUEST, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 121, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 130, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 131, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 140, ECP_EV_LOCK_REQUEST, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 141, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 150, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 160, ECP_EV_THREAD_EXIT, 0x2000, 0, 0);
	ecp_test_ev(&s, MAIN, 200, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s);
	simulates(m);
	/* main's first critical section takes and releases M, as its second */
	ecp_id crit = seg_at(m, 0, 101), again = seg_at(m, 0, 141);
	assert_int_equal(m->segments[crit].lock_acquire, 0);
	assert_int_equal(m->segments[crit].lock_release, 0);
	assert_int_equal(m->segments[again].lock_acquire, 0);
	assert_int_equal(m->segments[again].lock_release, 0);
	assert_true(
	    ecp_test_has_warning(m, "1 locks were acquired while the trace says"));
	assert_false(ecp_test_has_warning(m, "inconsistent"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* Every taking released: the model is as before, no edge, no warning. */
static void test_all_released(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s);
	for (uint32_t e = 0; e < m->n_edges; e++)
		assert_int_not_equal(m->edges[e].kind, ECP_EDGE_LOCK_HELD);
	assert_false(ecp_test_has_warning(m, "never released"));
	assert_int_equal(m->segments[seg_at(m, 0, 10)].lock_acquire, 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exclusive_held_at_exit),
	    cmocka_unit_test(test_shared_held_at_exit),
	    cmocka_unit_test(test_release_written_late),
	    cmocka_unit_test(test_all_released),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
