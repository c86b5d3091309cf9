/* SPDX-License-Identifier: MIT */
/* Unit tests of the builder on an event loop's poll that another thread's
 * write ends when the loop synchronizes before it reads (builder-channels.c,
 * poll_woken_by; builder-waits.c).  CPython's asyncio takes threading.Locks
 * (a sem_trywait each, then a sem_post) between epoll_wait's return and the
 * read of its self-pipe: those took the poll's wake-up away, and 1.41 s of
 * waits for its executor's threads were kept as delays (T1 1.80 s for
 * 0.77 s of work). */
#include <errno.h>
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
#define S    0xc0
#define CH   0x77
#define TRY  UINT64_MAX /* sem_wait_begin's timeout_ns for sem_trywait */

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

/* T2 blocks in epoll_wait (20-45) while main runs and writes to the loop's
 * socketpair at 40; after the poll T2 takes a lock of its own (sem S, one
 * token) with sem_wait_begin's timeout `wait_timeout` (TRY: sem_trywait;
 * 0: sem_wait), gives it back, and reads the unit at 60. */
static struct ecp_model *loop_with_lock(struct ecp_test_seq *s, uint64_t wait_timeout)
{
	ecp_test_seq_init(s);
	ecp_test_switch(s, MAIN, 0, 0, 0);
	ecp_test_switch(s, MAIN, 8, 1, 1);
	ecp_test_switch(s, T2, 8, 0, 0);
	ecp_test_switch(s, T2, 22, 1, 0); /* blocks in epoll_wait */
	ecp_test_switch(s, MAIN, 22, 0, 0);
	ecp_test_switch(s, MAIN, 42, 1, 1);
	ecp_test_switch(s, T2, 42, 0, 0);
	ecp_test_switch(s, T2, 72, 1, 0);
	ecp_test_switch(s, MAIN, 72, 0, 0);
	ecp_test_ev(s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(s, MAIN, 2, ECP_EV_CHAN_OPEN, CH, 0, 0);
	ecp_test_ev(s, MAIN, 3, ECP_EV_SEM_INIT, S, 1, 0);
	ecp_test_ev(s, MAIN, 5, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(s, T2, 10, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(s, T2, 20, ECP_EV_DELAY_BEGIN, 6, 3, 0); /* epoll_wait */
	ecp_test_ev(s, MAIN, 40, ECP_EV_CHAN_WRITE, CH, 1, 0);
	ecp_test_ev(s, T2, 45, ECP_EV_DELAY_END, 6, 1, 0);
	ecp_test_ev(s, T2, 50, ECP_EV_SEM_WAIT_BEGIN, S, wait_timeout, 0);
	ecp_test_ev(s, T2, 51, ECP_EV_SEM_WAIT_END, S, 0, 0);
	ecp_test_ev(s, T2, 55, ECP_EV_SEM_POST, S, 0, 0);
	ecp_test_ev(s, T2, 60, ECP_EV_CHAN_READ, CH, 1, 0);
	ecp_test_ev(s, T2, 70, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(s, MAIN, 80, ECP_EV_THREAD_EXIT, H1, 0, 0);
	return build_ok(s);
}

/* The segment of T2 (thread 1) that starts at recorded time `at`. */
static ecp_id seg_at(const struct ecp_model *m, uint64_t at)
{
	const struct ecp_thread *th = &m->threads[1];
	for (uint32_t k = 0; k < th->n_segments; k++)
		if (m->segments[th->first_segment + k].rec_start == at)
			return th->first_segment + k;
	fail_msg("no segment of T2 starts at %llu", (unsigned long long)at);
	return 0;
}

/* The trywait waits for no one: the poll was woken by main's write, its
 * 20 ns blocked are no delay, and what it opened depends on the write. */
static void test_trywait_keeps_poll_wake(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	struct ecp_model *m = loop_with_lock(&s, TRY);
	ecp_id woken = seg_at(m, 45);
	assert_int_equal(m->segments[woken].delay, 0);
	assert_true(ecp_test_has_edge(m, ecp_test_seg(m, 0, 1), woken, ECP_EDGE_SEM));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A blocking sem_wait between is a wait for another thread as far as the
 * builder can tell: the poll's delay stays (the rule is the trywait's
 * only), and the read depends on the write at the read. */
static void test_blocking_wait_ends_poll_wake(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	struct ecp_model *m = loop_with_lock(&s, 0);
	ecp_id woken = seg_at(m, 45);
	assert_true(m->segments[woken].delay > 0);
	assert_false(ecp_test_has_edge(m, ecp_test_seg(m, 0, 1), woken, ECP_EDGE_SEM));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_trywait_keeps_poll_wake),
	    cmocka_unit_test(test_blocking_wait_ends_poll_wake),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
