/* SPDX-License-Identifier: MIT */
/* Unit tests of the builder on a program that runs its linker as child
 * processes and polls their output pipes (rustc's link step: cc, collect2,
 * ld; std's Command::output polls stdout and stderr until both close):
 * what of the program's blocked time was waiting for the children
 * (builder-child-cpu.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "simulator/model/model.h"
#include "tests/support/event-seq.h"

#define MAIN 1
#define KID  50 /* the child process (pid = tid) */
#define UST  51 /* its LTTng-UST listener thread: the recorder's */
#define H1   0x1000

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

static uint64_t thread_delay(const struct ecp_model *m, uint32_t t)
{
	uint64_t d = 0;
	for (uint32_t k = 0; k < m->threads[t].n_segments; k++)
		d += m->segments[m->threads[t].first_segment + k].delay;
	return d;
}

/* main forks KID at 100 and polls (kind 4) its pipes from 115 to 335, off
 * the CPU 120..330.  KID runs 120..200 and is preempted (the CPU is
 * shared with other programs), runs again 260..320 and exits there,
 * on the CPU: perf writes no switch-out for a thread that dies, only the
 * exit record.  Its listener thread runs 322..324 to die with it (the
 * recorder's; skipped).  The exit closed the pipes and ended the poll: it
 * handed off, and the whole 210 blocked was waiting for KID, no delay
 * (its work is in the model).  Before, the stay that ended in the exit
 * had no known end and was dropped: only KID's first 80 of CPU were
 * taken out and 130 stayed a delay at every P -- in rustc, 805 ms of an
 * 885 ms poll on a link of 87 ms of CPU.  Had KID been preempted before
 * its exit (main woken 20 us later, by something else), its CPU time
 * alone is taken out: 210 - 80 - 60 = 70 stay, and the 20 us it came late. */
static void test_child_exit_hands_off(void **state)
{
	(void)state;
	for (int preempted = 0; preempted < 2; preempted++) {
		/* woken by something else: later than the switch after
		 * KID's (builder-child-cpu.c, HANDOFF_SWITCH_NS) */
		const uint64_t late = preempted ? 20000 : 0;
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100, KID, KID, MAIN, MAIN, 0);
		ecp_test_task(&s, 110, UST, KID, KID, KID, 0);
		if (!preempted) {
			ecp_test_task(&s, 320, KID, KID, MAIN, MAIN, 1);
			ecp_test_task(&s, 324, UST, KID, MAIN, MAIN, 1);
		}
		ecp_test_comm(&s, KID, "cc");
		ecp_test_comm(&s, UST, "cc-ust");
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 120, 1, 0);
		ecp_test_switch(&s, KID, 120, 0, 0);
		ecp_test_switch(&s, KID, 200, 1, 1);
		ecp_test_switch(&s, KID, 260, 0, 0);
		if (preempted)
			ecp_test_switch(&s, KID, 320, 1, 1);
		ecp_test_switch(&s, UST, 322, 0, 0);
		if (preempted)
			ecp_test_switch(&s, UST, 324, 1, 0);
		ecp_test_switch(&s, MAIN, 330 + late, 0, 0);
		ecp_test_switch(&s, MAIN, 400 + late, 1, 0);
		ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
		ecp_test_ev(&s, MAIN, 115, ECP_EV_DELAY_BEGIN, 4, (uint64_t)-1, 0);
		ecp_test_ev(&s, MAIN, 335 + late, ECP_EV_DELAY_END, 4, 2, 0);
		ecp_test_ev(&s, MAIN, 390 + late, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_model *m = build_ok(&s);
		assert_int_equal(m->threads[0].tid, MAIN);
		assert_int_equal(thread_delay(m, 0), preempted ? 70 + late : 0);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

/* std's Command::spawn: main forks KID at 100 and waits in recv (kind 9)
 * from 100 to 200, off the CPU 100..195, for KID to exec.  KID runs
 * 100..105 and is held by LTTng-UST's constructor while its listener UST
 * registers: UST runs 105..110 and 140..145 (the session daemon works on
 * another CPU meanwhile) and writes its statedump's end at 144; KID runs
 * on 150..160 and is preempted there (main is woken 20 us later by its
 * exec, which the records do not show).  KID's 15 of CPU are taken out as before, and
 * now the window 105..144 too, the recorder's: 95 - 15 - 39 = 41 stay a
 * delay, and the 20 us.  Without the statedump's end (an older trace) 80
 * stay, and the 20 us. */
static void test_fork_copy_registering_is_no_delay(void **state)
{
	(void)state;
	/* main woken later than the switch after KID's preemption: not a
	 * hand-off by KID (builder-child-cpu.c, HANDOFF_SWITCH_NS) */
	const uint64_t late = 20000;
	for (int marked = 0; marked < 2; marked++) {
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100, KID, KID, MAIN, MAIN, 0);
		ecp_test_task(&s, 104, UST, KID, KID, KID, 0);
		ecp_test_comm(&s, KID, "rustc");
		ecp_test_comm(&s, UST, "rustc-ust");
		if (marked)
			ecp_test_registered(&s, UST, 144);
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 100, 1, 0);
		ecp_test_switch(&s, KID, 100, 0, 0);
		ecp_test_switch(&s, KID, 105, 1, 0);
		ecp_test_switch(&s, UST, 105, 0, 0);
		ecp_test_switch(&s, UST, 110, 1, 0);
		ecp_test_switch(&s, UST, 140, 0, 0);
		ecp_test_switch(&s, UST, 145, 1, 0);
		ecp_test_switch(&s, KID, 150, 0, 0);
		ecp_test_switch(&s, KID, 160, 1, 1);
		ecp_test_switch(&s, MAIN, 195 + late, 0, 0);
		ecp_test_switch(&s, MAIN, 400 + late, 1, 0);
		ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
		ecp_test_ev(&s, MAIN, 100, ECP_EV_DELAY_BEGIN, 9, 7, 0);
		ecp_test_ev(&s, MAIN, 200 + late, ECP_EV_DELAY_END, 9, 0, 0);
		ecp_test_ev(&s, MAIN, 390 + late, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_model *m = build_ok(&s);
		assert_int_equal(m->threads[0].tid, MAIN);
		assert_int_equal(thread_delay(m, 0), (marked ? 41 : 80) + late);
		assert_int_equal(ecp_test_has_warning(m, "LTTng-UST registered"), marked);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

/* `sleep 0.1` run by the program: KID runs 120..125 and is held while
 * UST registers (125..131, its statedump's end at 131), runs 131..150,
 * sleeps 150..250 and runs to its exit at 320.  Its delay is its sleep,
 * 100, not the 106 it was off the CPU (test_child_sleep_is_delay in
 * test-builder.c: a listener that merely wakes during the sleep, with no
 * statedump, takes nothing). */
static void test_child_registering_is_not_its_delay(void **state)
{
	(void)state;
	for (int marked = 0; marked < 2; marked++) {
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100, KID, KID, MAIN, MAIN, 0);
		ecp_test_task(&s, 124, UST, KID, KID, KID, 0);
		ecp_test_task(&s, 320, KID, KID, MAIN, MAIN, 1);
		ecp_test_comm(&s, KID, "sleep");
		ecp_test_comm(&s, UST, "sleep-ust");
		if (marked)
			ecp_test_registered(&s, UST, 131);
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 120, 1, 0);
		ecp_test_switch(&s, KID, 120, 0, 0);
		ecp_test_switch(&s, KID, 125, 1, 0);
		ecp_test_switch(&s, UST, 125, 0, 0);
		ecp_test_switch(&s, UST, 131, 1, 0);
		ecp_test_switch(&s, KID, 131, 0, 0);
		ecp_test_switch(&s, KID, 150, 1, 0);
		ecp_test_switch(&s, KID, 250, 0, 0);
		ecp_test_switch(&s, KID, 320, 1, 0);
		ecp_test_switch(&s, MAIN, 330, 0, 0);
		ecp_test_switch(&s, MAIN, 400, 1, 0);
		ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1);
		ecp_test_ev(&s, MAIN, 115, ECP_EV_DELAY_BEGIN, 25, (uint64_t)-1, 0);
		ecp_test_ev(&s, MAIN, 335, ECP_EV_DELAY_END, 25, KID, 0);
		ecp_test_ev(&s, MAIN, 390, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_model *m = build_ok(&s);
		const struct ecp_thread *c = &m->threads[1];
		assert_int_equal(c->tid, KID);
		assert_int_equal(thread_delay(m, 1), marked ? 100 : 106);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_child_exit_hands_off),
	    cmocka_unit_test(test_fork_copy_registering_is_no_delay),
	    cmocka_unit_test(test_child_registering_is_not_its_delay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
