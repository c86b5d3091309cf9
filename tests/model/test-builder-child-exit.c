/* SPDX-License-Identifier: MIT */
/* Unit tests of the builder on a read of a child process's output that the
 * child's exit ends (builder-child-cpu.c): the child's last stay on the
 * CPU has no switch-out (perf lets go of a task before its last switch),
 * and its exit record ends it.  Left out, the stay before it was taken for
 * the child's last: GNU parallel's reads of its commands' output (perl
 * backticks) kept 308 ms of their 451 ms blocked as delays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "simulator/model/model.h"
#include "tests/support/event-seq.h"

#define MAIN 1
#define KID  50
#define H1   0x1000
#define US   1000ull

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

static uint64_t thread_delay(const struct ecp_model *m, ecp_id t)
{
	uint64_t d = 0;
	for (uint32_t k = 0; k < m->threads[t].n_segments; k++)
		d += m->segments[m->threads[t].first_segment + k].delay;
	return d;
}

/* main forks 50 at 100 us and reads a pipe from it (kind 7) from 115 to
 * 335 us, off the CPU 120..330 us.  The child runs 120..200 us, is
 * preempted (another program has the CPU 200..250 us), runs again from
 * 250 us and exits at 320 us (its exit record; no switch-out).  Its exit
 * ended main's read (EOF): the whole 210 us blocked were waiting for it,
 * no delay.  With the last stay left out, the preempted one at 200 us was
 * the child's last before the wake, so only its 80 us of CPU time were
 * taken out: 130 us stayed a delay.  Had the child not exited (its last
 * stay open until the records end), nothing says when it left: 130 us
 * stay. */
static void test_read_ended_by_child_exit(void **state)
{
	(void)state;
	for (int exits = 0; exits < 2; exits++) {
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100 * US, KID, KID, MAIN, MAIN, 0);
		if (exits)
			ecp_test_task(&s, 320 * US, KID, KID, MAIN, MAIN, 1);
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 120 * US, 1, 0);
		ecp_test_switch(&s, KID, 120 * US, 0, 0);
		ecp_test_switch(&s, KID, 200 * US, 1, 1);
		ecp_test_switch(&s, KID, 250 * US, 0, 0);
		ecp_test_switch(&s, MAIN, 330 * US, 0, 0);
		ecp_test_switch(&s, MAIN, 400 * US, 1, 0);
		ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
		ecp_test_ev(&s, MAIN, 115 * US, ECP_EV_DELAY_BEGIN, 7, 3, 0);
		ecp_test_ev(&s, MAIN, 335 * US, ECP_EV_DELAY_END, 7, 0, 0);
		ecp_test_ev(&s, MAIN, 390 * US, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_model *m = build_ok(&s);
		assert_int_equal(m->threads[0].tid, MAIN);
		assert_int_equal(thread_delay(m, 0), exits ? 0 : 130 * US);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_ended_by_child_exit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
