/* SPDX-License-Identifier: MIT */
/* Unit tests of the builder on a thread that sleeps again and again while
 * its child processes run (builder-child-cpu.c, child_sleep_warning): GNU
 * parallel polls its commands with selects that time out, which the model
 * keeps at every P.  The answer names the thread and its sleeps. */
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
#define MS   1000000ull

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

/* main forks 50 at 1 ms, which runs 2..101.5 ms and exits; main sleeps in
 * select (kind 5, no descriptor, timed out) `n` times, 100/n ms each, from
 * 2 to 102 ms while the child runs, or, with `after`, from 200 to 300 ms,
 * once the child is gone (preempted by it before). */
static struct ecp_model *sleeps(struct ecp_test_seq *s, int n, int after)
{
	uint64_t t0 = after ? 200 * MS : 2 * MS, each = 100 * MS / (uint64_t)n;
	ecp_test_seq_init(s);
	ecp_test_task(s, 1 * MS, KID, KID, MAIN, MAIN, 0);
	ecp_test_task(s, 1015 * MS / 10, KID, KID, MAIN, MAIN, 1);
	ecp_test_switch(s, MAIN, 0, 0, 0);
	ecp_test_switch(s, MAIN, 2 * MS, 1, after);
	ecp_test_switch(s, KID, 2 * MS, 0, 0);
	ecp_test_switch(s, MAIN, 1019 * MS / 10, 0, 0);
	if (after) {
		ecp_test_switch(s, MAIN, t0, 1, 0);
		ecp_test_switch(s, MAIN, t0 + 999 * MS / 10, 0, 0);
	}
	ecp_test_ev(s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
	uint64_t t = t0;
	for (int i = 0; i < n; i++) {
		ecp_test_ev(s, MAIN, t, ECP_EV_DELAY_BEGIN, 5, (uint64_t)-1, each);
		t += each;
		ecp_test_ev(s, MAIN, t, ECP_EV_DELAY_END, 5, 0, 0);
	}
	ecp_test_ev(s, MAIN, t + 5 * MS, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	return build_ok(s);
}

static void test_sleeps_while_children_ran_named(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	struct ecp_model *m = sleeps(&s, 5, 0);
	assert_true(ecp_test_has_warning(m, "1 threads slept again and again while the "
					    "program's child processes had the CPU"));
	assert_true(ecp_test_has_warning(m, "(tid 1) "));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* two sleeps are no loop; sleeps after the children are gone wait for no
 * child: neither is named */
static void test_other_sleeps_not_named(void **state)
{
	(void)state;
	for (int shape = 0; shape < 2; shape++) {
		struct ecp_test_seq s;
		struct ecp_model *m = shape ? sleeps(&s, 5, 1) : sleeps(&s, 2, 0);
		assert_false(ecp_test_has_warning(m, "slept again and again"));
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sleeps_while_children_ran_named),
	    cmocka_unit_test(test_other_sleeps_not_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
