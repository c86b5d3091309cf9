/* SPDX-License-Identifier: MIT */
/* Unit tests of the builder on threads that pace themselves until the
 * process's exit (builder-exit.c, bld_free_paced_threads): the JVM's
 * monitor-deflation thread times out every 250 ms, and its waits held a
 * Java program's simulated run open long after its work was done. */
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
#define M    0xa0
#define C    0xb0
#define S    0xc0

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

/* The delay before thread t's segment that starts at recorded time `at`. */
static uint64_t delay_at(const struct ecp_model *m, uint32_t t, uint64_t at)
{
	const struct ecp_thread *th = &m->threads[t];
	for (uint32_t k = 0; k < th->n_segments; k++)
		if (m->segments[th->first_segment + k].rec_start == at)
			return m->segments[th->first_segment + k].delay;
	fail_msg("thread %u has no segment starting at %llu", t, (unsigned long long)at);
	return 0;
}

static uint64_t thread_delays(const struct ecp_model *m, uint32_t t)
{
	const struct ecp_thread *th = &m->threads[t];
	uint64_t sum = 0;
	for (uint32_t k = 0; k < th->n_segments; k++)
		sum += m->segments[th->first_segment + k].delay;
	return sum;
}

/* T2's semaphore wait with a timeout of 100 that times out. */
static void tick(struct ecp_test_seq *s, uint64_t at)
{
	ecp_test_ev(s, T2, at, ECP_EV_SEM_WAIT_BEGIN, S, 100, 0);
	ecp_test_ev(s, T2, at + 100, ECP_EV_SEM_WAIT_END, S, ETIMEDOUT, 0);
}

/* T2 times out three times, nobody waiting for it, and is blocked in a
 * fourth wait when main ends the process: none of its waits is a delay. */
static void test_nobody_waits(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 2, ECP_EV_THREAD_START, 1, R2, H2);
	tick(&s, 5);
	tick(&s, 110);
	tick(&s, 215);
	ecp_test_ev(&s, T2, 320, ECP_EV_SEM_WAIT_BEGIN, S, 100, 0);
	ecp_test_ev(&s, MAIN, 400, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s);
	assert_int_equal(thread_delays(m, 1), 0);
	assert_true(ecp_test_has_warning(m, "1 threads paced themselves"));
	assert_true(ecp_test_has_warning(m, "(tid 2): those 0.000 ms"));
	/* the timeouts it no longer keeps are not said to be kept */
	assert_false(ecp_test_has_warning(m, "timed out with no wake-up"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* T2 times out, then signals main, which waited for it, then times out
 * again until the exit: the first timeout comes before what main waited
 * for and stays; the second is pacing. */
static void test_delay_before_signal_kept(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 2, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, MAIN, 3, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, MAIN, 4, ECP_EV_COND_WAIT_BEGIN, C, M, 0);
	tick(&s, 5);
	ecp_test_ev(&s, T2, 106, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, T2, 107, ECP_EV_COND_SIGNAL, C, 0, 0);
	ecp_test_ev(&s, T2, 108, ECP_EV_LOCK_RELEASE, M, 0, 0);
	ecp_test_ev(&s, MAIN, 109, ECP_EV_COND_WAIT_END, C, M, 0);
	ecp_test_ev(&s, MAIN, 110, ECP_EV_LOCK_RELEASE, M, 0, 0);
	tick(&s, 111);
	ecp_test_ev(&s, T2, 215, ECP_EV_SEM_WAIT_BEGIN, S, 100, 0);
	ecp_test_ev(&s, MAIN, 400, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s);
	assert_int_equal(delay_at(m, 1, 105), 100);
	assert_int_equal(delay_at(m, 1, 211), 0);
	assert_int_equal(thread_delays(m, 1), 100);
	assert_true(ecp_test_has_warning(m, "1 threads paced themselves"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* T2 times out, then ends and is joined: main waited for its end, so its
 * timeout is a delay as before, and nothing is said. */
static void test_joined_thread_keeps_delays(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 2, ECP_EV_THREAD_START, 1, R2, H2);
	tick(&s, 5);
	ecp_test_ev(&s, T2, 110, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 120, ECP_EV_THREAD_JOIN_BEGIN, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 121, ECP_EV_THREAD_JOIN_END, H2, 1, 0);
	ecp_test_ev(&s, MAIN, 400, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s);
	assert_int_equal(thread_delays(m, 1), 100);
	assert_false(ecp_test_has_warning(m, "paced themselves"));
	assert_true(ecp_test_has_warning(m, "1 timed waits timed out with no wake-up"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nobody_waits),
	    cmocka_unit_test(test_delay_before_signal_kept),
	    cmocka_unit_test(test_joined_thread_keeps_delays),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
