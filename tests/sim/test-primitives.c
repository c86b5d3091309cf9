/* SPDX-License-Identifier: MIT */
/* Each primitive's semantics in the ASAP DAG (dag.c): lock hand-offs by
 * arrival and as recorded, FIFO and ties, rwlocks, recursive mutexes,
 * semaphores, condition variables with the mutex re-acquire, barriers,
 * create/join, delays; and the errors for deadlocks and broken models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "simulator/model/dag.h"
#include "simulator/ctf/event.h"
#include "simulator/replay/replay.h"
#include "tests/sim/mb.h"

static struct ecp_dag build_ok(const struct ecp_model *m, enum ecp_lock_policy policy)
{
	struct ecp_dag dag;
	struct ecp_error err = {0};
	int rc = ecp_dag_build(m, NULL, policy, &dag, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	return dag;
}

static bool has_input(const struct ecp_dag *dag, uint32_t to, uint32_t from, uint8_t kind)
{
	for (uint32_t k = dag->in_offset[to]; k < dag->in_offset[to + 1]; k++)
		if (dag->in_from[k] == from && dag->in_kind[k] == kind)
			return true;
	return false;
}

/* Two threads contend for L: thread 2 arrives first in the simulated run,
 * thread 1 got it first in the recording. */
static struct ecp_model *contention(void)
{
	struct mb b;
	mb_init(&b);
	uint32_t l = mb_lock(&b, ECP_LOCK_MUTEX);
	mb_thread(&b);
	mb_seg(&b, 3, 0);               /* 0 */
	uint32_t c1 = mb_seg(&b, 2, 0); /* 1: lock; 2 units; unlock */
	mb_seg(&b, 1, 0);               /* 2 */
	mb_thread(&b);
	mb_seg(&b, 1, 0);               /* 3 */
	uint32_t c2 = mb_seg(&b, 2, 0); /* 4 */
	mb_seg(&b, 0, 0);               /* 5 */
	mb_acquire(&b, c1, l, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, c1, l);
	mb_acquire(&b, c2, l, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, c2, l);
	mb_edge(&b, c1, c2, ECP_EDGE_LOCK); /* recorded: thread 1 first */
	return mb_done(&b);
}

static void test_mutex_arrival(void **state)
{
	(void)state;
	struct ecp_model *m = contention();
	struct ecp_dag dag = build_ok(m, ECP_LOCK_ORDER_ARRIVAL);
	/* Thread 2 requests at 1, thread 1 at 3: thread 2 holds 1-3. */
	assert_int_equal(dag.start[4], 1);
	assert_int_equal(dag.start[1], 3);
	assert_int_equal(dag.end[2], 6);
	assert_int_equal(dag.span, 6);
	/* The decided hand-off is an edge, the recorded one is gone. */
	assert_true(has_input(&dag, 1, 4, ECP_EDGE_LOCK));
	assert_false(has_input(&dag, 4, 1, ECP_EDGE_LOCK));
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_mutex_recorded(void **state)
{
	(void)state;
	struct ecp_model *m = contention();
	struct ecp_dag dag = build_ok(m, ECP_LOCK_ORDER_RECORDED);
	assert_int_equal(dag.start[1], 3);
	assert_int_equal(dag.start[4], 5);
	assert_int_equal(dag.span, 7);
	assert_true(has_input(&dag, 4, 1, ECP_EDGE_LOCK));
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_mutex_fifo_and_ties(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	uint32_t l = mb_lock(&b, ECP_LOCK_MUTEX);
	uint32_t s[3], t[3];
	/* Three threads request L at time 0: granted by thread index. */
	for (int i = 0; i < 3; i++) {
		mb_thread(&b);
		s[i] = mb_seg(&b, 2, 0);
		mb_acquire(&b, s[i], l, ECP_LOCK_EXCLUSIVE);
		mb_release(&b, s[i], l);
	}
	/* Then threads 3 and 4 request at 5 and 4: FIFO by request time
	 * beats thread order (thread 2 holds L 4..6). */
	mb_thread(&b);
	mb_seg(&b, 5, 0);
	t[0] = mb_seg(&b, 1, 0);
	mb_thread(&b);
	mb_seg(&b, 4, 0);
	t[1] = mb_seg(&b, 1, 0);
	for (int i = 0; i < 2; i++) {
		mb_acquire(&b, t[i], l, ECP_LOCK_EXCLUSIVE);
		mb_release(&b, t[i], l);
	}
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag = build_ok(m, ECP_LOCK_ORDER_ARRIVAL);
	assert_int_equal(dag.start[s[0]], 0);
	assert_int_equal(dag.start[s[1]], 2);
	assert_int_equal(dag.start[s[2]], 4);
	assert_int_equal(dag.start[t[1]], 6);
	assert_int_equal(dag.start[t[0]], 7);
	assert_true(has_input(&dag, t[0], t[1], ECP_EDGE_LOCK));
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_rwlock(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	uint32_t l = mb_lock(&b, ECP_LOCK_RWLOCK);
	mb_thread(&b);
	uint32_t r1 = mb_seg(&b, 2, 0); /* reader 0..2 */
	mb_thread(&b);
	mb_seg(&b, 1, 0);
	uint32_t w = mb_seg(&b, 1, 0); /* writer requests at 1 */
	mb_thread(&b);
	mb_seg(&b, 1, 0);
	uint32_t r2 = mb_seg(&b, 2, 0); /* reader requests at 1 */
	mb_acquire(&b, r1, l, ECP_LOCK_SHARED);
	mb_release(&b, r1, l);
	mb_acquire(&b, w, l, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, w, l);
	mb_acquire(&b, r2, l, ECP_LOCK_SHARED);
	mb_release(&b, r2, l);
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag = build_ok(m, ECP_LOCK_ORDER_ARRIVAL);
	/* Readers coexist (and are preferred over the waiting writer, as
	 * glibc's default); the writer waits for both. */
	assert_int_equal(dag.start[r1], 0);
	assert_int_equal(dag.start[r2], 1);
	assert_int_equal(dag.start[w], 3);
	assert_true(has_input(&dag, w, r1, ECP_EDGE_LOCK));
	assert_true(has_input(&dag, w, r2, ECP_EDGE_LOCK));
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_recursive_mutex(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	uint32_t l = mb_lock(&b, ECP_LOCK_MUTEX);
	mb_thread(&b);
	uint32_t a = mb_seg(&b, 1, 0); /* lock */
	uint32_t r = mb_seg(&b, 1, 0); /* lock again (recursive), unlock */
	uint32_t c = mb_seg(&b, 1, 0); /* unlock */
	mb_thread(&b);
	mb_seg(&b, 1, 0);
	uint32_t o = mb_seg(&b, 1, 0); /* requests at 1 */
	mb_acquire(&b, a, l, ECP_LOCK_EXCLUSIVE);
	mb_acquire(&b, r, l, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, r, l);
	mb_release(&b, c, l);
	mb_acquire(&b, o, l, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, o, l);
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag = build_ok(m, ECP_LOCK_ORDER_ARRIVAL);
	assert_int_equal(dag.start[r], 1); /* the holder does not block */
	assert_int_equal(dag.start[o], 3); /* only the outermost unlock frees it */
	assert_true(has_input(&dag, o, c, ECP_EDGE_LOCK));
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_semaphore_cond_barrier_join(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	uint32_t mtx = mb_lock(&b, ECP_LOCK_MUTEX);
	mb_thread(&b);                  /* main */
	uint32_t m0 = mb_seg(&b, 1, 0); /* create worker */
	uint32_t m1 = mb_seg(&b, 2, 0); /* sem_post */
	uint32_t m2 = mb_seg(&b, 1, 0); /* lock(M) ... broadcast */
	uint32_t m3 = mb_seg(&b, 1, 0); /* ... unlock(M), barrier */
	uint32_t m4 = mb_seg(&b, 1, 0); /* join worker */
	uint32_t m5 = mb_seg(&b, 1, 0); /* after join */
	mb_thread(&b);                  /* worker */
	uint32_t w0 = mb_seg(&b, 1, 0); /* sem_wait */
	uint32_t w1 = mb_seg(&b, 0, 0); /* cond_wait: re-acquire M */
	uint32_t w2 = mb_seg(&b, 4, 0); /* barrier */
	uint32_t w3 = mb_seg(&b, 2, 0); /* exit */
	mb_acquire(&b, m2, mtx, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, m3, mtx);
	mb_acquire(&b, w1, mtx, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, w1, mtx);
	mb_edge(&b, m0, w0, ECP_EDGE_CREATE);
	mb_edge(&b, m1, w1, ECP_EDGE_SEM);
	mb_edge(&b, m2, w1, ECP_EDGE_COND);
	mb_edge(&b, w1, m4, ECP_EDGE_BARRIER); /* worker arrives last */
	mb_edge(&b, w3, m5, ECP_EDGE_JOIN);
	(void)w2;
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag = build_ok(m, ECP_LOCK_ORDER_ARRIVAL);
	assert_int_equal(dag.start[w0], 1); /* created at 1 */
	assert_int_equal(dag.end[m2], 4);   /* broadcast at 4, M held till 5 */
	assert_int_equal(dag.start[w1], 5); /* signalled at 4, M re-acquired at 5 */
	assert_true(has_input(&dag, w1, m3, ECP_EDGE_LOCK));
	assert_int_equal(dag.start[m4], 5); /* barrier: the worker arrives last, at 5 */
	assert_true(has_input(&dag, m4, w1, ECP_EDGE_BARRIER));
	assert_int_equal(dag.start[w2], 5);
	assert_int_equal(dag.start[m5], 11); /* join returns when the worker ends */
	assert_int_equal(dag.span, 12);
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_delays_use_no_processor(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	mb_seg(&b, 1000, 0);
	uint32_t after = mb_seg(&b, 1000, 5000); /* sleeps 5 us first */
	mb_thread(&b);
	mb_seg(&b, 5000, 0);
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag = build_ok(m, ECP_LOCK_ORDER_ARRIVAL);
	assert_int_equal(dag.start[after], 6000);
	assert_int_equal(dag.total_delay, 5000);
	assert_int_equal(dag.span, 7000);
	/* One CPU: both share it until 2000, the other thread runs alone till
	 * 6000, the sleeper wakes at 7000 and ends at 8000; idle 6000-7000. */
	struct ecp_replay r;
	struct ecp_error err = {0};
	assert_int_equal(ecp_replay_run(&dag, 1, ECP_REPLAY_TIMELINE, &r, &err), 0);
	assert_true(r.simulated);
	assert_int_equal(r.makespan, 8000);
	assert_int_equal(r.idle, 1000);
	assert_int_equal(r.seg_start[after], 7000);
	ecp_replay_finish(&r);
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_deadlock_arrival_only(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	uint32_t la = mb_lock(&b, ECP_LOCK_MUTEX), lb = mb_lock(&b, ECP_LOCK_MUTEX);
	mb_thread(&b);
	uint32_t s0 = mb_seg(&b, 2, 0), s1 = mb_seg(&b, 1, 0), s2 = mb_seg(&b, 0, 0);
	mb_thread(&b);
	uint32_t s3 = mb_seg(&b, 2, 0), s4 = mb_seg(&b, 1, 0), s5 = mb_seg(&b, 0, 0);
	/* Thread 0: lock A; lock B; unlock B; unlock A.  Thread 1: B then A. */
	mb_acquire(&b, s0, la, ECP_LOCK_EXCLUSIVE);
	mb_acquire(&b, s1, lb, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, s1, lb);
	mb_release(&b, s2, la);
	mb_acquire(&b, s3, lb, ECP_LOCK_EXCLUSIVE);
	mb_acquire(&b, s4, la, ECP_LOCK_EXCLUSIVE);
	mb_release(&b, s4, la);
	mb_release(&b, s5, lb);
	/* The recording ran thread 0 entirely first. */
	mb_edge(&b, s1, s3, ECP_EDGE_LOCK);
	mb_edge(&b, s2, s4, ECP_EDGE_LOCK);
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_not_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err),
			     0);
	assert_int_equal(err.status, ECP_ERR);
	assert_non_null(strstr(err.msg, "deadlock"));
	assert_non_null(strstr(err.msg, "thread 0 (tid 100)"));
	assert_non_null(strstr(err.msg, "mutex #1 (0x5040) held by thread 1"));
	/* The recorded order is deadlock-free. */
	dag = build_ok(m, ECP_LOCK_ORDER_RECORDED);
	assert_int_equal(dag.start[s3], 3);
	assert_int_equal(dag.span, 6);
	ecp_dag_finish(&dag);
	mb_free(m);
}

static void test_cycle_and_broken_models(void **state)
{
	(void)state;
	struct mb b;
	mb_init(&b);
	mb_thread(&b);
	uint32_t a0 = mb_seg(&b, 1, 0), a1 = mb_seg(&b, 1, 0);
	mb_thread(&b);
	uint32_t b0 = mb_seg(&b, 1, 0), b1 = mb_seg(&b, 1, 0);
	mb_edge(&b, b1, a1, ECP_EDGE_SEM);
	mb_edge(&b, a1, b1, ECP_EDGE_SEM);
	(void)a0;
	(void)b0;
	struct ecp_model *m = mb_done(&b);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_not_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err),
			     0);
	assert_non_null(strstr(err.msg, "deadlock or incomplete trace"));
	assert_non_null(strstr(err.msg,
			       "thread 0 (tid 100) segment 1 waits for a semaphore post"
			       " from thread 1 (tid 101) segment 3"));
	/* An edge from a segment that does not exist. */
	m->edges[0].from = 99;
	assert_int_not_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err),
			     0);
	assert_non_null(strstr(err.msg, "bad source"));
	mb_free(m);
	/* A release of a lock never taken (an acquisition missing). */
	mb_init(&b);
	uint32_t l = mb_lock(&b, ECP_LOCK_MUTEX);
	mb_thread(&b);
	uint32_t s = mb_seg(&b, 1, 0);
	mb_release(&b, s, l);
	m = mb_done(&b);
	assert_int_not_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err),
			     0);
	assert_non_null(strstr(err.msg, "does not hold"));
	mb_free(m);
	/* No segments at all. */
	mb_init(&b);
	m = mb_done(&b);
	assert_int_not_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err),
			     0);
	assert_non_null(strstr(err.msg, "no segments"));
	mb_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mutex_arrival),
	    cmocka_unit_test(test_mutex_recorded),
	    cmocka_unit_test(test_mutex_fifo_and_ties),
	    cmocka_unit_test(test_rwlock),
	    cmocka_unit_test(test_recursive_mutex),
	    cmocka_unit_test(test_semaphore_cond_barrier_join),
	    cmocka_unit_test(test_delays_use_no_processor),
	    cmocka_unit_test(test_deadlock_arrival_only),
	    cmocka_unit_test(test_cycle_and_broken_models),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
