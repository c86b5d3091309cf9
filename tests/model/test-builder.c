/* SPDX-License-Identifier: MIT */
/* Unit tests of the model builder on synthetic event sequences: each
 * synchronization primitive, each repair, each error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "simulator/model/model.h"
#include "tests/support/event-seq.h"

#define MAIN 1
#define T2   2
#define T3   3
#define H1   0x1000
#define H2   0x2000
#define H3   0x3000
#define F    0x10
#define G    0x20
#define R2   0x30
#define R3   0x40
#define M    0xa0
#define C    0xb0
#define S    0xc0
#define B    0xd0

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

/* Builds a sequence that must fail; returns the error text. */
static void build_fails(struct ecp_test_seq *s, struct ecp_error *err)
{
	struct ecp_model *m = ecp_test_seq_build(s, NULL, err);
	assert_null(m);
	assert_true(ecp_error_is_set(err));
}

static void start_main(struct ecp_test_seq *s, uint64_t ts)
{
	ecp_test_ev(s, MAIN, ts, ECP_EV_THREAD_START, 0, 0, H1);
}

/* A segment all its start routine's, with no call, holds no activity
 * (model.h: implicit; issue 35), and reads as its start routine's through
 * ecp_segment_activities; one with a call holds its own.  An exec writes
 * the old image's implicit ones out: they stay the old main's. */
static void test_start_routine_implicit(void **state)
{
	const uint64_t old_main = 0x500, new_main = 0x600;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, old_main, H1);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_DELAY_BEGIN, 15, (uint64_t)-1, 0);
	ecp_test_ev(&s, MAIN, 150, ECP_EV_DELAY_END, 15, 0, 0);
	ecp_test_ev(&s, MAIN, 160, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 170, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 200, ECP_EV_DELAY_BEGIN, 15, (uint64_t)-1, 0);
	ecp_test_ev(&s, MAIN, 250, ECP_EV_DELAY_END, 15, 0, 0);
	ecp_test_ev(&s, MAIN, 300, ECP_EV_THREAD_START, 0, new_main, H1); /* exec */
	ecp_test_ev(&s, MAIN, 350, ECP_EV_DELAY_BEGIN, 15, (uint64_t)-1, 0);
	ecp_test_ev(&s, MAIN, 400, ECP_EV_DELAY_END, 15, 0, 0);
	ecp_test_ev(&s, MAIN, 450, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id fold = ecp_test_fn(m, old_main), fnew = ecp_test_fn(m, new_main),
	       f = ecp_test_fn(m, F);
	assert_int_not_equal(fold, ECP_NO_ID);
	assert_int_not_equal(fnew, ECP_NO_ID);
	assert_int_equal(m->threads[0].start_function, fnew);
	unsigned before = 0, after = 0, with_call = 0;
	for (uint32_t i = 0; i < m->n_segments; i++) {
		const struct ecp_segment *seg = &m->segments[i];
		struct ecp_activity one;
		const struct ecp_activity *act;
		uint32_t n = ecp_segment_activities(m, seg, &one, &act);
		uint64_t self = 0;
		for (uint32_t k = 0; k < n; k++)
			self += act[k].self_ns;
		assert_int_equal(self, seg->length);
		if (ecp_test_calls(m, i, f)) { /* 150..200 */
			with_call++;
			assert_int_equal(ecp_test_self(m, i, f), 10);
			assert_int_equal(ecp_test_self(m, i, fold), seg->length - 10);
			assert_true(seg->n_activity == 2);
		} else if (seg->rec_end <= 300) {
			before++; /* written out at the exec */
			assert_int_equal(seg->n_activity, 1);
			assert_int_equal(ecp_test_self(m, i, fold), seg->length);
		} else {
			after++;
			assert_int_equal(seg->n_activity, 0);
			assert_int_equal(n, 1);
			assert_int_equal(act[0].function, fnew);
			assert_int_equal(act[0].calls, 0);
			assert_int_equal(act[0].incl_ns, seg->length);
		}
	}
	assert_int_equal(with_call, 1);
	assert_true(before >= 1);
	assert_int_equal(after, 2); /* 300..350, 400..450 */
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_functions_single_thread(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 1000);
	ecp_test_ev(&s, MAIN, 1010, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 1020, ECP_EV_FUNC_ENTRY, G, 0, 0);
	ecp_test_ev(&s, MAIN, 1050, ECP_EV_FUNC_EXIT, G, 0, 0);
	ecp_test_ev(&s, MAIN, 1070, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 1100, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->n_threads, 1);
	assert_int_equal(m->n_segments, 1);
	assert_int_equal(m->segments[0].length, 100);
	assert_int_equal(ecp_model_work(m), 100);
	ecp_id f = ecp_test_fn(m, F), g = ecp_test_fn(m, G);
	ecp_id main_fn = ecp_model_find_function(m, "main");
	assert_int_not_equal(main_fn, ECP_NO_ID);
	assert_int_equal(m->threads[0].start_function, main_fn);
	assert_int_equal(ecp_test_self(m, 0, main_fn), 40);
	assert_int_equal(ecp_test_incl(m, 0, main_fn), 100);
	assert_int_equal(ecp_test_self(m, 0, f), 30);
	assert_int_equal(ecp_test_incl(m, 0, f), 60);
	assert_int_equal(ecp_test_self(m, 0, g), 30);
	assert_int_equal(ecp_test_incl(m, 0, g), 30);
	assert_int_equal(ecp_test_calls(m, 0, f), 1);
	/* calls kept: g nested in f, times from the thread's start */
	assert_int_equal(m->n_calls, 2);
	assert_int_equal(m->calls[0].function, g);
	assert_int_equal(m->calls[0].depth, 1);
	assert_int_equal(m->calls[0].enter, 20);
	assert_int_equal(m->calls[0].exit, 50);
	assert_string_equal(m->functions[f].name, "0x10");
	assert_int_equal(m->n_warnings, 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_create_join_with_switches(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 50, 0, 0);
	ecp_test_switch(&s, MAIN, 250, 1, 1);
	ecp_test_switch(&s, T2, 250, 0, 0);
	ecp_test_switch(&s, T2, 400, 1, 0);
	ecp_test_switch(&s, MAIN, 400, 0, 0);
	start_main(&s, 100);
	ecp_test_ev(&s, MAIN, 200, ECP_EV_THREAD_CREATE, 7, R2, 1);
	ecp_test_ev(&s, T2, 300, ECP_EV_THREAD_START, 7, R2, H2);
	ecp_test_ev(&s, T2, 390, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 450, ECP_EV_THREAD_JOIN_BEGIN, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 460, ECP_EV_THREAD_JOIN_END, H2, 1, 0);
	ecp_test_ev(&s, MAIN, 500, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->n_threads, 2);
	assert_int_equal(m->threads[0].n_segments, 3);
	assert_int_equal(m->threads[1].n_segments, 1);
	assert_int_equal(m->threads[1].parent, 0);
	assert_int_equal(m->threads[0].parent, ECP_NO_ID);
	assert_int_equal(m->threads[1].start_function, ecp_test_fn(m, R2));
	ecp_id m0 = ecp_test_seg(m, 0, 0), m1 = ecp_test_seg(m, 0, 1),
	       m2 = ecp_test_seg(m, 0, 2), c0 = ecp_test_seg(m, 1, 0);
	/* CPU time: the child's run inside main's wall interval is removed */
	assert_int_equal(m->segments[m0].length, 100);
	assert_int_equal(m->segments[m1].length, 100);
	assert_int_equal(m->segments[m2].length, 50);
	assert_int_equal(m->segments[c0].length, 90);
	assert_int_equal(ecp_model_work(m), 340);
	assert_true(ecp_test_has_edge(m, m0, c0, ECP_EDGE_CREATE));
	assert_true(ecp_test_has_edge(m, c0, m2, ECP_EDGE_JOIN));
	assert_int_equal(m->n_edges, 2);
	/* preemption is time-slicing, not delay */
	assert_int_equal(m->segments[m1].delay, 0);
	assert_int_equal(m->segments[m2].delay, 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* Main on the CPU 50..600: it starts at 100 (its clock 1000), calls F at
 * 150 until f_exit, posts at 400 and exits at 500 (its clock exit_clock). */
static struct ecp_model *build_call_then_post(struct ecp_test_seq *s, uint64_t f_exit,
					      uint64_t exit_clock)
{
	ecp_test_seq_init(s);
	ecp_test_switch(s, MAIN, 50, 0, 0);
	ecp_test_switch(s, MAIN, 600, 1, 0);
	ecp_test_ev(s, MAIN, 100, ECP_EV_THREAD_START, 0, 0, H1)->cpu_ns = 1000;
	ecp_test_ev(s, MAIN, 150, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(s, MAIN, f_exit, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(s, MAIN, 400, ECP_EV_SEM_POST, S, 0, 0);
	ecp_test_ev(s, MAIN, 500, ECP_EV_THREAD_EXIT, H1, 0, 0)->cpu_ns = exit_clock;
	return build_ok(s, NULL);
}

/* Steal: the switch records say main stayed on the CPU 400 ns, its own
 * clock (cpu_ns of thread_start and thread_exit) says it used 200: every
 * CPU time of the thread is halved (segments, functions, calls). */
static void test_scaled_to_thread_clock(void **state)
{
	struct ecp_test_seq s;
	(void)state;
	struct ecp_model *m = build_call_then_post(&s, 350, 1200);
	ecp_id f = ecp_test_fn(m, F);
	assert_int_equal(m->threads[0].n_segments, 2);
	assert_int_equal(m->segments[ecp_test_seg(m, 0, 0)].length, 150);
	assert_int_equal(m->segments[ecp_test_seg(m, 0, 1)].length, 50);
	assert_int_equal(m->segments[ecp_test_seg(m, 0, 1)].cpu_start, 150);
	assert_int_equal(ecp_model_work(m), 200);
	assert_int_equal(ecp_test_self(m, ecp_test_seg(m, 0, 0), f), 100);
	assert_int_equal(m->calls[0].enter, 25);
	assert_int_equal(m->calls[0].exit, 125);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* The same with a ratio that truncates: main's clock says 266 of its 400
 * ns (0.665).  Its first segment, 300 ns, is 199.5 -> 199; F's 150 ns and
 * main's own 150 ns are each 99.75 -> 99.  The ns the truncation took from
 * the self times goes to the start routine: they still fill the segment,
 * as they did before the scaling. */
static void test_scaled_self_times_fill_the_segment(void **state)
{
	struct ecp_test_seq s;
	(void)state;
	struct ecp_model *m = build_call_then_post(&s, 300, 1266);
	ecp_id seg = ecp_test_seg(m, 0, 0), root = m->threads[0].start_function;
	assert_int_equal(m->segments[seg].length, 199);
	assert_int_equal(ecp_test_self(m, seg, ecp_test_fn(m, F)), 99);
	assert_int_equal(ecp_test_self(m, seg, root), 100);
	struct ecp_activity implicit;
	const struct ecp_activity *acts;
	uint32_t n = ecp_segment_activities(m, &m->segments[seg], &implicit, &acts);
	uint64_t self = 0;
	assert_int_equal(n, 2);
	for (uint32_t a = 0; a < n; a++) {
		self += acts[a].self_ns;
		if (acts[a].function == root)
			assert_int_equal(acts[a].incl_ns, 199);
	}
	assert_int_equal(self, 199);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_child_runs_before_create_returns(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, T2, 10, ECP_EV_THREAD_START, 9, R2, H2);
	ecp_test_ev(&s, T2, 20, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_THREAD_CREATE, 9, R2, 1);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_true(ecp_test_has_edge(m, ecp_test_seg(m, 0, 0), ecp_test_seg(m, 1, 0),
				      ECP_EDGE_CREATE));
	assert_int_equal(m->threads[1].parent, 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_event_cost_subtracted(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_builder_options o = {.clock = ECP_CLOCK_PERF_SWITCH,
					.event_cost_ps = 5000};
	struct ecp_model *m = build_ok(&s, &o);
	/* three events emitted before the exit, 5 ns each */
	assert_int_equal(m->segments[0].length, 85);
	/* F's entry was written lazily by the hook of its exit, after both
	 * times: neither event's cost falls inside the call */
	assert_int_equal(ecp_test_self(m, 0, ecp_test_fn(m, F)), 10);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* What the recorder cost a thread outside every event's average: the
 * wrappers' windows that wrote no event (quiet_windows) and the perf
 * events' copy into each thread it made (thread_create_cost_ps). */
static uint64_t main_work_with_costs(uint64_t quiet_ns, uint64_t create_cost_ps)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_QUIET_WINDOWS, quiet_ns, 3, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_THREAD_CREATE, 7, R2, 1);
	ecp_test_ev(&s, T2, 60, ECP_EV_THREAD_START, 7, R2, H2);
	ecp_test_ev(&s, T2, 70, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 80, ECP_EV_THREAD_CREATE, 8, R3, 0); /* failed */
	ecp_test_ev(&s, MAIN, 90, ECP_EV_THREAD_JOIN_BEGIN, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 95, ECP_EV_THREAD_JOIN_END, H2, 1, 0);
	ecp_test_ev(&s, MAIN, 200, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_builder_options o = {.clock = ECP_CLOCK_PERF_SWITCH,
					.thread_create_cost_ps = create_cost_ps};
	struct ecp_model *m = build_ok(&s, &o);
	uint64_t work = 0;
	for (uint32_t i = 0; i < m->threads[0].n_segments; i++)
		work += m->segments[ecp_test_seg(m, 0, i)].length;
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
	return work;
}

static void test_quiet_windows_and_thread_creation_cost(void **state)
{
	(void)state;
	uint64_t plain = main_work_with_costs(0, 0);
	assert_int_equal(main_work_with_costs(20, 0), plain - 20);
	/* one thread made: the failed pthread_create copied nothing */
	assert_int_equal(main_work_with_costs(0, 7000), plain - 7);
	assert_int_equal(main_work_with_costs(20, 7000), plain - 27);
}

/* The process exit's block on main (agent-clocks.c): the thread_clock
 * events it writes, then its own time (quiet_windows, or a slow_window).
 * The readings of other threads' clocks are no reading of main's: the
 * block's time comes out of main whole, not clamped at main's clock as it
 * stood at the last thread_clock (150 here, 20 too much). */
static uint64_t main_work_at_exit(bool thread_clocks)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	if (thread_clocks) {
		ecp_test_ev(&s, MAIN, 140, ECP_EV_THREAD_CLOCK, 4242, 5000, 0);
		ecp_test_ev(&s, MAIN, 150, ECP_EV_THREAD_CLOCK, 4243, 6000, 0);
	}
	ecp_test_ev(&s, MAIN, 160, ECP_EV_QUIET_WINDOWS, 40, 1, 0);
	ecp_test_ev(&s, MAIN, 170, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_builder_options o = {.clock = ECP_CLOCK_PERF_SWITCH};
	struct ecp_model *m = build_ok(&s, &o);
	uint64_t work = ecp_model_work(m);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
	return work;
}

static void test_exit_block_after_thread_clocks(void **state)
{
	(void)state;
	assert_int_equal(main_work_at_exit(false), 170 - 40);
	assert_int_equal(main_work_at_exit(true), 170 - 40);
}

static void test_mutex(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_LOCK_REQUEST, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 12, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 35, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 36, ECP_EV_LOCK_REQUEST, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 37, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 45, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, T2, 50, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 60, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->n_locks, 1);
	assert_int_equal(m->locks[0].addr, M);
	ecp_id crit = ecp_test_seg(m, 0, 2);
	assert_int_equal(m->segments[crit].lock_acquire, 0);
	assert_int_equal(m->segments[crit].lock_release, 0);
	/* the wait's CPU (10..12) goes to the segment after it */
	assert_int_equal(m->segments[crit].length, 20);
	assert_int_equal(m->segments[ecp_test_seg(m, 0, 1)].length, 9);
	assert_int_equal(m->segments[ecp_test_seg(m, 0, 1)].lock_release, ECP_NO_ID);
	ecp_id t2crit = ecp_test_seg(m, 1, 1);
	assert_int_equal(m->segments[t2crit].lock_acquire, 0);
	assert_true(ecp_test_has_edge(m, crit, t2crit, ECP_EDGE_LOCK));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_recursive_mutex_and_trylock(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_LOCK_ACQUIRED, M, 0, 0)->flags = ECP_EVF_TRY;
	ecp_test_ev(&s, MAIN, 20, ECP_EV_LOCK_ACQUIRED, M, 0, 0); /* recursive */
	ecp_test_ev(&s, MAIN, 30, ECP_EV_LOCK_RELEASE, M, 0, 0);  /* inner */
	ecp_test_ev(&s, MAIN, 40, ECP_EV_LOCK_FAILED, M + 8, 0, EBUSY);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_LOCK_RELEASE, M, 0, 0);
	ecp_test_ev(&s, MAIN, 60, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	/* boundaries only at the trylock and the outer unlock */
	assert_int_equal(m->n_segments, 3);
	assert_int_equal(m->segments[1].lock_acquire, 0);
	assert_int_equal(m->segments[1].lock_release, 0);
	assert_int_equal(m->segments[1].length, 40);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_unlock_not_held_is_error(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_LOCK_RELEASE, M, 0, 0);
	build_fails(&s, &err);
	assert_non_null(
	    strstr(err.msg, "unlock of a mutex that the thread does not hold"));
	assert_non_null(strstr(err.msg, "trace=synthetic"));
	assert_non_null(strstr(err.msg, "event=#1"));
	assert_non_null(strstr(err.msg, "thread=1"));
	ecp_test_seq_finish(&s);
}

/* T2 waits on C; main signals: COND edge from the signal, the waiter
 * re-acquires the mutex (lock_acquire + LOCK edge from main's unlock). */
static void test_cond_signal(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 6, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 8, ECP_EV_LOCK_REQUEST, M, 0, 0);
	ecp_test_ev(&s, T2, 10, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, T2, 20, ECP_EV_COND_WAIT_BEGIN, C, M, 0);
	ecp_test_ev(&s, MAIN, 28, ECP_EV_LOCK_REQUEST, M, 0, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_COND_SIGNAL, C, 0, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_LOCK_RELEASE, M, 0, 0);
	ecp_test_ev(&s, T2, 60, ECP_EV_COND_WAIT_END, C, M, 0);
	ecp_test_ev(&s, T2, 70, ECP_EV_LOCK_RELEASE, M, 0, 0);
	ecp_test_ev(&s, T2, 80, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 90, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	/* main: [0,5] [5,28] [30,40] [40,50] [50,90] */
	ecp_id sig = ecp_test_seg(m, 0, 2), unl = ecp_test_seg(m, 0, 3);
	assert_int_equal(m->segments[sig].rec_end, 40);
	/* T2: [6,8] [10,20] [60,70] [70,80] */
	ecp_id before = ecp_test_seg(m, 1, 1), woken = ecp_test_seg(m, 1, 2);
	assert_int_equal(m->segments[before].lock_release, 0);
	assert_true(ecp_test_has_edge(m, sig, woken, ECP_EDGE_COND));
	assert_true(ecp_test_has_edge(m, unl, woken, ECP_EDGE_LOCK));
	assert_int_equal(m->segments[woken].lock_acquire, 0);
	/* main's acquire at 30 follows T2's release inside cond_wait */
	assert_true(ecp_test_has_edge(m, before, sig, ECP_EDGE_LOCK));
	assert_int_equal(m->segments[woken].delay, 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_cond_broadcast_wakes_all(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, MAIN, 2, ECP_EV_THREAD_CREATE, 2, R3, 1);
	ecp_test_ev(&s, T2, 3, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 4, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, T2, 5, ECP_EV_COND_WAIT_BEGIN, C, M, 0);
	ecp_test_ev(&s, T3, 6, ECP_EV_THREAD_START, 2, R3, H3);
	ecp_test_ev(&s, T3, 7, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, T3, 8, ECP_EV_COND_WAIT_BEGIN, C, M, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_COND_SIGNAL, C, 0, 0);    /* wakes T2 only */
	ecp_test_ev(&s, MAIN, 20, ECP_EV_COND_BROADCAST, C, 0, 0); /* wakes T3 */
	ecp_test_ev(&s, T2, 30, ECP_EV_COND_WAIT_END, C, M, 0);
	ecp_test_ev(&s, T2, 31, ECP_EV_LOCK_RELEASE, M, 0, 0);
	ecp_test_ev(&s, T3, 32, ECP_EV_COND_WAIT_END, C, M, 0);
	ecp_test_ev(&s, T3, 33, ECP_EV_LOCK_RELEASE, M, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id sig = ecp_test_seg(m, 0, 2), bc = ecp_test_seg(m, 0, 3);
	assert_int_equal(m->segments[sig].rec_end, 10);
	assert_int_equal(m->segments[bc].rec_end, 20);
	assert_true(ecp_test_has_edge(m, sig, ecp_test_seg(m, 1, 2), ECP_EDGE_COND));
	assert_true(ecp_test_has_edge(m, bc, ecp_test_seg(m, 2, 2), ECP_EDGE_COND));
	assert_false(ecp_test_has_edge(m, bc, ecp_test_seg(m, 1, 2), ECP_EDGE_COND));
	/* threads without thread_exit (main: without process_exit) are closed
	 * with a counted warning */
	assert_true(ecp_test_has_warning(m, "3 threads had no thread_exit"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_cond_timeout_is_delay(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 22, 1, 0); /* sleeps in the timed wait */
	ecp_test_switch(&s, MAIN, 1022, 0, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_COND_WAIT_BEGIN, C, M, 1000);
	ecp_test_ev(&s, MAIN, 1025, ECP_EV_COND_WAIT_END, C, M, ETIMEDOUT);
	ecp_test_ev(&s, MAIN, 1030, ECP_EV_LOCK_RELEASE, M, 0, 0);
	ecp_test_ev(&s, MAIN, 1040, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id after = ecp_test_seg(m, 0, 2);
	assert_int_equal(m->segments[after].delay, 1000);
	/* CPU inside the wait: 20..22 and 1022..1025 plus 1025..1030 */
	assert_int_equal(m->segments[after].length, 10);
	assert_int_equal(ecp_model_work(m), 1040 - 1000);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* main's timed waits on C time out twice (its loop polls progress), then
 * T2's signal ends the third: a progress loop, whose timeouts are no delay.
 * A timeout on another object that nothing ends afterwards stays a delay,
 * and the warnings count both. */
static void test_progress_loop_timeouts_taken_back(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 21, 1, 0); /* asleep in each wait */
	ecp_test_switch(&s, MAIN, 119, 0, 0);
	ecp_test_switch(&s, MAIN, 131, 1, 0);
	ecp_test_switch(&s, MAIN, 229, 0, 0);
	ecp_test_switch(&s, MAIN, 241, 1, 0);
	ecp_test_switch(&s, T2, 242, 0, 0);
	ecp_test_switch(&s, T2, 281, 1, 0);
	ecp_test_switch(&s, MAIN, 285, 0, 0);
	ecp_test_switch(&s, MAIN, 311, 1, 0);
	ecp_test_switch(&s, MAIN, 359, 0, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_COND_WAIT_BEGIN, C, M, 100);
	ecp_test_ev(&s, MAIN, 120, ECP_EV_COND_WAIT_END, C, M, ETIMEDOUT);
	ecp_test_ev(&s, MAIN, 130, ECP_EV_COND_WAIT_BEGIN, C, M, 100);
	ecp_test_ev(&s, MAIN, 230, ECP_EV_COND_WAIT_END, C, M, ETIMEDOUT);
	ecp_test_ev(&s, MAIN, 240, ECP_EV_COND_WAIT_BEGIN, C, M, 100);
	ecp_test_ev(&s, T2, 245, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 250, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, T2, 260, ECP_EV_COND_SIGNAL, C, 0, 0);
	ecp_test_ev(&s, T2, 270, ECP_EV_LOCK_RELEASE, M, 0, 0);
	ecp_test_ev(&s, T2, 280, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 290, ECP_EV_COND_WAIT_END, C, M, 0);
	ecp_test_ev(&s, MAIN, 300, ECP_EV_LOCK_RELEASE, M, 0, 0);
	/* a sleep by timed wait on S that nothing ends: a delay */
	ecp_test_ev(&s, MAIN, 310, ECP_EV_SEM_WAIT_BEGIN, S, 50, 0);
	ecp_test_ev(&s, MAIN, 360, ECP_EV_SEM_WAIT_END, S, ETIMEDOUT, 0);
	ecp_test_ev(&s, MAIN, 370, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	const struct ecp_thread *t = &m->threads[0];
	uint64_t delays = 0;
	for (uint32_t k = 0; k < t->n_segments; k++)
		delays += m->segments[t->first_segment + k].delay;
	/* of 98 + 98 + 48 ns asleep, only the unended timeout is left */
	assert_int_equal(delays, 48);
	assert_int_equal(m->segments[ecp_test_seg(m, 0, t->n_segments - 1)].delay, 48);
	assert_true(ecp_test_has_warning(m, "2 timed waits timed out in loops"));
	assert_true(ecp_test_has_warning(m, "1 timed waits timed out with no wake-up"));
	assert_true(ecp_test_has_warning(m, "kept as 0.000 ms of fixed delays"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* T2 computes past its last event until the exit kills it: it keeps the
 * CPU time its switch records give it up to its last switch-out. */
static void test_thread_running_at_exit_keeps_work(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 8, 1, 1);
	ecp_test_switch(&s, T2, 8, 0, 0);
	ecp_test_switch(&s, T2, 400, 1, 1);
	ecp_test_switch(&s, MAIN, 400, 0, 0);
	ecp_test_switch(&s, MAIN, 460, 1, 0);
	ecp_test_switch(&s, T2, 460, 0, 0);
	ecp_test_switch(&s, T2, 500, 1, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 10, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, MAIN, 450, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	const struct ecp_thread *t = &m->threads[1];
	assert_int_equal(t->n_segments, 1);
	const struct ecp_segment *seg = &m->segments[t->first_segment];
	assert_int_equal(seg->length, (400 - 10) + (500 - 460));
	assert_int_equal(seg->rec_end, 500);
	assert_int_equal(m->info.unknown_deps_ns, 430); /* all after its last event */
	assert_true(ecp_test_has_warning(m,
					 "1 threads were still running when the process "
					 "exited (tid 2)"));
	assert_false(ecp_test_has_warning(m, "had no thread_exit"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A pool worker waits for work that never comes: it ends where the wait
 * began, whatever the switch records say, and is named as blocked. */
static void test_thread_blocked_at_exit_ends_at_wait(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 8, 1, 1);
	ecp_test_switch(&s, T2, 8, 0, 0);
	ecp_test_switch(&s, T2, 30, 1, 0);
	ecp_test_switch(&s, MAIN, 30, 0, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 10, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 20, ECP_EV_SEM_WAIT_BEGIN, S, 0, 0);
	ecp_test_ev(&s, MAIN, 1000, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	const struct ecp_thread *t = &m->threads[1];
	const struct ecp_segment *last =
	    &m->segments[t->first_segment + t->n_segments - 1];
	assert_int_equal(last->rec_end, 20);
	assert_true(ecp_test_has_warning(m, "1 threads were blocked in a wait when the "
					    "process exited"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* Tid 7 never starts a thread the agent sees (clone() and raw futexes, as
 * Go makes them): it is a thread of the model with the CPU time of its
 * switch records, named in a warning; LTTng-UST's listener (comm
 * "prog-ust") stays outside. */
static void test_unseen_thread_in_model(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 20, 1, 1);
	ecp_test_switch(&s, 7, 20, 0, 0);
	ecp_test_switch(&s, 7, 220, 1, 1);
	ecp_test_switch(&s, 8, 220, 0, 0);
	ecp_test_switch(&s, 8, 225, 1, 0);
	ecp_test_switch(&s, MAIN, 225, 0, 0);
	ecp_test_switch(&s, MAIN, 300, 1, 0);
	ecp_test_switch(&s, 7, 300, 0, 0);
	ecp_test_switch(&s, 7, 350, 1, 0);
	ecp_test_comm(&s, 8, "prog-ust");
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 290, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->n_threads, 2);
	assert_int_equal(m->threads[1].tid, 7);
	assert_int_equal(ecp_model_work(m), 20 + 65 + 200 + 50);
	assert_int_equal(m->info.outside_threads, 1);
	assert_int_equal(m->info.unknown_deps_ns, 250);
	assert_true(ecp_test_has_warning(m,
					 "1 threads ran that the agent never saw start "
					 "(tid 7; 0.000 ms of CPU)"));
	assert_string_equal(m->functions[m->threads[1].start_function].name,
			    "(thread the agent did not see)");
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* main forks process 50 at 100 and waits for it (waitpid, delay kind 25)
 * from 115 to 335; the child runs 120..320 and exits.  Main's segment ends
 * at the fork, the child's thread depends on it, and the wait is a join of
 * the child, not a delay. */
static void test_child_process_forked_and_waited(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_task(&s, 100, 50, 50, MAIN, MAIN, 0);
	ecp_test_task(&s, 320, 50, 50, MAIN, MAIN, 1);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 120, 1, 0);
	ecp_test_switch(&s, 50, 120, 0, 0);
	ecp_test_switch(&s, 50, 320, 1, 0);
	ecp_test_switch(&s, MAIN, 330, 0, 0);
	ecp_test_switch(&s, MAIN, 400, 1, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 115, ECP_EV_DELAY_BEGIN, 25, (uint64_t)-1, 0);
	ecp_test_ev(&s, MAIN, 335, ECP_EV_DELAY_END, 25, 50, 0);
	ecp_test_ev(&s, MAIN, 390, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->n_threads, 2);
	assert_int_equal(m->threads[1].tid, 50);
	ecp_id fork_seg = ecp_test_seg(m, 0, 0), child = ecp_test_seg(m, 1, 0);
	ecp_id after = ecp_test_seg(m, 0, m->threads[0].n_segments - 1);
	assert_int_equal(m->segments[fork_seg].rec_end, 100);
	assert_int_equal(m->segments[child].length, 200);
	assert_true(ecp_test_has_edge(m, fork_seg, child, ECP_EDGE_CREATE));
	assert_true(ecp_test_has_edge(m, child, after, ECP_EDGE_JOIN));
	assert_int_equal(m->segments[after].delay, 0);
	assert_int_equal(m->segments[after].rec_start, 335);
	assert_int_equal(m->info.unknown_deps_ns, 0); /* one thread: no wait inside */
	assert_true(ecp_test_has_warning(m, "1 child processes were followed (pid 50; 1 "
					    "threads, 0.000 ms of CPU)"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* The delays of a thread's segments, summed. */
static uint64_t thread_delay(const struct ecp_model *m, ecp_id t)
{
	uint64_t d = 0;
	for (uint32_t k = 0; k < m->threads[t].n_segments; k++)
		d += m->segments[m->threads[t].first_segment + k].delay;
	return d;
}

/* GNU make -j: main forks process 50 at 100 and waits for it in pselect
 * (kind 15) from 115 to 335, which the child's SIGCHLD interrupts (-1);
 * make then reaps it with waitpid(WNOHANG), which is not recorded.  The
 * pselect is a join of the child, not a delay of 220.  A second pselect
 * (no child left to exit) that a signal interrupts keeps its delay; one
 * that returned for a descriptor while a child exited is no join. */
static void test_poll_ended_by_child_exit(void **state)
{
	for (int ready = 0; ready < 2; ready++) {
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100, 50, 50, MAIN, MAIN, 0);
		ecp_test_task(&s, 320, 50, 50, MAIN, MAIN, 1);
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 120, 1, 0);
		ecp_test_switch(&s, 50, 120, 0, 0);
		ecp_test_switch(&s, 50, 320, 1, 0);
		ecp_test_switch(&s, MAIN, 330, 0, 0);
		ecp_test_switch(&s, MAIN, 350, 1, 0); /* the second pselect */
		ecp_test_switch(&s, MAIN, 400, 0, 0);
		ecp_test_switch(&s, MAIN, 450, 1, 0);
		start_main(&s, 0);
		ecp_test_ev(&s, MAIN, 115, ECP_EV_DELAY_BEGIN, 15, (uint64_t)-1, 0);
		ecp_test_ev(&s, MAIN, 335, ECP_EV_DELAY_END, 15, ready ? 1 : (uint64_t)-1,
			    0);
		ecp_test_ev(&s, MAIN, 345, ECP_EV_DELAY_BEGIN, 15, (uint64_t)-1, 0);
		ecp_test_ev(&s, MAIN, 405, ECP_EV_DELAY_END, 15, (uint64_t)-1, 0);
		ecp_test_ev(&s, MAIN, 440, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_model *m = build_ok(&s, NULL);
		ecp_id child = ecp_test_seg(m, 1, 0);
		if (!ready) {
			ecp_id after = ecp_test_seg(m, 0, 2),
			       last = ecp_test_seg(m, 0, 3);
			assert_int_equal(m->segments[after].rec_start, 335);
			assert_true(ecp_test_has_edge(m, child, after, ECP_EDGE_JOIN));
			assert_int_equal(m->segments[after].delay, 0);
			assert_int_equal(m->segments[last].delay, 50);
			assert_int_equal(m->segments[last].rec_start, 405);
		} else {
			/* no join; but the child ran last and exited: the
			 * wait was for it, no delay and no boundary
			 * (test_read_while_child_ran) */
			assert_int_equal(m->threads[0].n_segments, 3);
			assert_false(ecp_test_has_edge(m, child, ecp_test_seg(m, 0, 1),
						       ECP_EDGE_JOIN));
			assert_int_equal(m->segments[ecp_test_seg(m, 0, 2)].rec_start,
					 405);
		}
		assert_int_equal(thread_delay(m, 0), 50);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

/* A worker process of Python's multiprocessing: main forks process 50 at
 * 100 and reads a pipe from it (kind 7) from 115 to 335, off the CPU
 * 120..330 while the child computes 120..320 (it writes; no event of its
 * is read).  The child left the CPU blocked (it exited, or waits for the
 * next job) just before main's wake: it handed off, and all 210 blocked
 * were waiting for it, no delay (its work is already in the model).  So
 * it did when it was preempted at that very switch (main, which its write
 * woke, took the CPU from it).  Had the child been preempted 20 us before
 * main came in (something else ran between: main woken by something
 * else), only its 200 of CPU time are taken out: 20,000 stay.  A
 * nanosleep keeps all 210, and so does the read of a recording on two
 * CPUs, where a child running says nothing of what main waited for. */
static void test_read_while_child_ran(void **state)
{
	for (int shape = 0; shape < 5; shape++) {
		bool preempted = shape == 1 || shape == 4, sleep = shape == 2,
		     two_cpus = shape == 3, handed = shape == 0 || shape == 4;
		/* main's switch-in, and what follows it, 20 us later when
		 * something else ran after the child */
		uint64_t late = shape == 1 ? 20000 - 10 : 0;
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100, 50, 50, MAIN, MAIN, 0);
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 120, 1, 0);
		ecp_test_switch(&s, 50, 120, 0, 0);
		ecp_test_switch(&s, 50, 320, 1, preempted);
		ecp_test_switch(&s, MAIN, 330 + late, 0, 0);
		ecp_test_switch(&s, MAIN, 400 + late, 1, 0);
		start_main(&s, 0);
		uint64_t kind = sleep ? 0 : 7;
		ecp_test_ev(&s, MAIN, 115, ECP_EV_DELAY_BEGIN, kind, 3, 0);
		ecp_test_ev(&s, MAIN, 335 + late, ECP_EV_DELAY_END, kind,
			    sleep ? 0 : 4096, 0);
		ecp_test_ev(&s, MAIN, 390 + late, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_builder_options two = {.clock = ECP_CLOCK_PERF_SWITCH,
						  .keep_calls = true,
						  .trace_path = "synthetic",
						  .recorded_cpus = 2};
		struct ecp_model *m = build_ok(&s, two_cpus ? &two : NULL);
		/* a wait that was all for the child is no boundary either */
		assert_int_equal(m->threads[0].n_segments, handed ? 2 : 3);
		assert_int_equal(thread_delay(m, 0), sleep || two_cpus      ? 210
						     : preempted && !handed ? 20000
									    : 0);
		assert_int_equal(
		    ecp_test_has_warning(m, "1 blocking reads or polls of the "
					    "program's threads waited while "
					    "its child processes ran: 0.000 ms"),
		    !sleep && !two_cpus);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

/* A one-thread child that exec'd and sleeps (`sleep 0.1` from a shell):
 * the time it was off the CPU and not runnable is its delay, after an
 * empty first segment that takes the fork's edge; the wait for it joins
 * its end.  (test_child_process_forked_and_waited: a forked copy that did
 * not exec gets none.) */
static void test_child_sleep_is_delay(void **state)
{
	/* and again with the child's own LTTng-UST listener thread (51, which
	 * the preload starts in every child) running 200..210 and blocking
	 * while the child sleeps: the recorder's, so nothing the child waited
	 * for (it took the sleep's delay away, 1 run in 2 under ASan) */
	for (int ust = 0; ust < 2; ust++) {
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100, 50, 50, MAIN, MAIN, 0);
		if (ust)
			ecp_test_task(&s, 121, 51, 50, 50, 50, 0);
		ecp_test_task(&s, 320, 50, 50, MAIN, MAIN, 1);
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 120, 1, 0);
		ecp_test_switch(&s, 50, 120, 0, 0);
		ecp_test_switch(&s, 50, 150, 1, 0); /* asleep 150..250 */
		if (ust) {
			ecp_test_switch(&s, 51, 200, 0, 0);
			ecp_test_switch(&s, 51, 210, 1, 0);
		}
		ecp_test_switch(&s, 50, 250, 0, 0);
		ecp_test_switch(&s, 50, 320, 1, 0);
		ecp_test_switch(&s, MAIN, 330, 0, 0);
		ecp_test_switch(&s, MAIN, 400, 1, 0);
		ecp_test_comm(&s, 50, "sleep"); /* it exec'd */
		if (ust)
			ecp_test_comm(&s, 51, "sleep-ust");
		start_main(&s, 0);
		ecp_test_ev(&s, MAIN, 115, ECP_EV_DELAY_BEGIN, 25, (uint64_t)-1, 0);
		ecp_test_ev(&s, MAIN, 335, ECP_EV_DELAY_END, 25, 50, 0);
		ecp_test_ev(&s, MAIN, 390, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_model *m = build_ok(&s, NULL);
		const struct ecp_thread *c = &m->threads[1];
		assert_int_equal(c->tid, 50);
		assert_int_equal(c->n_segments, 2);
		const struct ecp_segment *first = &m->segments[c->first_segment];
		const struct ecp_segment *work = &m->segments[c->first_segment + 1];
		assert_int_equal(first->length, 0);
		assert_int_equal(work->delay, 100);
		assert_int_equal(work->length, 100);
		assert_true(ecp_test_has_edge(m, ecp_test_seg(m, 0, 0), c->first_segment,
					      ECP_EDGE_CREATE));
		assert_true(ecp_test_has_edge(
		    m, c->first_segment + 1,
		    ecp_test_seg(m, 0, m->threads[0].n_segments - 1), ECP_EDGE_JOIN));
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

/* A shell's `sleep`, which blocks before the shell's wait for it does:
 * main forks 50 at 100; the child runs 110000..115000 and sleeps; main
 * runs 116000..118000, begins its wait at 117000 and blocks until the
 * child has ended; the child wakes at 250000, runs 100000 and exits.  Main
 * was on the CPU last before the child woke and left it blocked, but it
 * was waiting for that child: nothing it did woke it (it blocked 132 us
 * before), and the child's gap less main's 2 us is its delay.  Taken for a
 * hand-off, a shell's `sleep 0.2` lost its delay in 1 recording in 2 on a
 * busy CPU once children started without LTTng-UST.  When the child comes
 * in right at main's switch-out (main wrote to it, then waited), main
 * handed off and the gap is none. */
static void test_child_sleep_after_parent_waits(void **state)
{
	for (int handoff = 0; handoff < 2; handoff++) {
		uint64_t wake = handoff ? 118002 : 250000;
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100, 50, 50, MAIN, MAIN, 0);
		ecp_test_task(&s, wake + 100000, 50, 50, MAIN, MAIN, 1);
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 110000, 1, 1);
		ecp_test_switch(&s, 50, 110000, 0, 0);
		ecp_test_switch(&s, 50, 115000, 1, 0); /* asleep */
		ecp_test_switch(&s, MAIN, 116000, 0, 0);
		ecp_test_switch(&s, MAIN, 118000, 1, 0); /* in its wait */
		ecp_test_switch(&s, 50, wake, 0, 0);
		ecp_test_switch(&s, 50, wake + 100000, 1, 0);
		ecp_test_switch(&s, MAIN, wake + 100010, 0, 0);
		ecp_test_switch(&s, MAIN, wake + 100100, 1, 0);
		ecp_test_comm(&s, 50, "sleep"); /* it exec'd */
		start_main(&s, 0);
		ecp_test_ev(&s, MAIN, 117000, ECP_EV_DELAY_BEGIN, 25, (uint64_t)-1, 0);
		ecp_test_ev(&s, MAIN, wake + 100020, ECP_EV_DELAY_END, 25, 50, 0);
		ecp_test_ev(&s, MAIN, wake + 100090, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_model *m = build_ok(&s, NULL);
		const struct ecp_thread *c = &m->threads[1];
		assert_int_equal(c->tid, 50);
		assert_int_equal(thread_delay(m, 1),
				 handoff ? 0 : 250000 - 115000 - 2000);
		assert_int_equal(thread_delay(m, 0), 0);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

/* A shell pipeline `gzip | bzip2`: main forks 50 (gzip) at 100 and 60
 * (bzip2) at 105 and waits.  bzip2 runs 110..120 and blocks on its empty
 * pipe; the CPU is idle 120..130; gzip runs 130..200 and leaves the CPU
 * blocked (its pipe full), or is preempted at that very switch (bzip2,
 * which its write woke, takes the CPU), or is preempted 20 us before bzip2
 * comes in (something else ran between); bzip2 then runs for 100.  bzip2's
 * blocked time was waiting for gzip, inside the program: when gzip handed
 * off none is a delay; when it was preempted long before (bzip2 woken by
 * something else) what gzip did not run is (the 10 idle and the 20 us).
 * Read as all delay, a pipeline's stages waited out each other's CPU time
 * and `cat | gzip | bzip2 | wc` was predicted 0.88x on two CPUs. */
static void test_pipeline_child_waits_for_sibling(void **state)
{
	for (int shape = 0; shape < 3; shape++) {
		bool preempted = shape > 0;
		uint64_t late = shape == 2 ? 20000 : 0; /* from bzip2's wake on */
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		ecp_test_task(&s, 100, 50, 50, MAIN, MAIN, 0);
		ecp_test_task(&s, 105, 60, 60, MAIN, MAIN, 0);
		ecp_test_task(&s, 300 + late, 60, 60, MAIN, MAIN, 1);
		ecp_test_task(&s, 310 + late, 50, 50, MAIN, MAIN, 1);
		ecp_test_switch(&s, MAIN, 0, 0, 0);
		ecp_test_switch(&s, MAIN, 110, 1, 0);
		ecp_test_switch(&s, 60, 110, 0, 0);
		ecp_test_switch(&s, 60, 120, 1, 0);
		ecp_test_switch(&s, 50, 130, 0, 0);
		ecp_test_switch(&s, 50, 200, 1, preempted);
		ecp_test_switch(&s, 60, 200 + late, 0, 0);
		ecp_test_switch(&s, 60, 300 + late, 1, 0);
		ecp_test_switch(&s, 50, 300 + late, 0, 0);
		ecp_test_switch(&s, 50, 310 + late, 1, 0);
		ecp_test_switch(&s, MAIN, 315 + late, 0, 0);
		ecp_test_switch(&s, MAIN, 330 + late, 1, 0);
		ecp_test_comm(&s, 50, "gzip");
		ecp_test_comm(&s, 60, "bzip2");
		start_main(&s, 0);
		ecp_test_ev(&s, MAIN, 108, ECP_EV_DELAY_BEGIN, 25, (uint64_t)-1, 0);
		ecp_test_ev(&s, MAIN, 320 + late, ECP_EV_DELAY_END, 25, 50, 0);
		ecp_test_ev(&s, MAIN, 325 + late, ECP_EV_PROCESS_EXIT, 0, 0, 0);
		struct ecp_model *m = build_ok(&s, NULL);
		ecp_id bz = m->threads[1].tid == 60 ? 1 : 2;
		assert_int_equal(m->threads[bz].tid, 60);
		assert_int_equal(thread_delay(m, bz), shape == 2 ? 10 + late : 0);
		assert_int_equal(thread_delay(m, 3 - bz), 0);
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
}

/* A child process's last stay on the CPU has no switch-out (perf lets go
 * of a task before its last switch): the child 50 runs 110..310 in one
 * stay and exits; its exit record ends that stay, and its 200 are its
 * work (ended at its switch-in, a gcc -flto link lost its ltrans's 353 ms
 * and T1 was 411 ms of 868). */
static void test_child_last_stay_ends_at_exit(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_task(&s, 100, 50, 50, MAIN, MAIN, 0);
	ecp_test_task(&s, 310, 50, 50, MAIN, MAIN, 1);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 110, 1, 0);
	ecp_test_switch(&s, 50, 110, 0, 0);
	ecp_test_switch(&s, MAIN, 320, 0, 0);
	ecp_test_switch(&s, MAIN, 400, 1, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 105, ECP_EV_DELAY_BEGIN, 25, (uint64_t)-1, 0);
	ecp_test_ev(&s, MAIN, 330, ECP_EV_DELAY_END, 25, 50, 0);
	ecp_test_ev(&s, MAIN, 390, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->threads[1].tid, 50);
	uint64_t work = 0;
	for (uint32_t k = 0; k < m->threads[1].n_segments; k++)
		work += m->segments[m->threads[1].first_segment + k].length;
	assert_int_equal(work, 200);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A one-thread child that makes a process of its own (ld running
 * lto-wrapper, a shell running its commands; split_child_thread) may wait
 * for it beyond what the switch records show: its work's
 * dependencies are unknown, and the answer's lower bound counts it; so is
 * its own child's, which starts after nothing the model knows and which
 * its parent's wait does not join (xargs -P2's gzips all overlap). */
static void test_child_with_children_unknown_deps(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_task(&s, 100, 50, 50, MAIN, MAIN, 0);
	ecp_test_task(&s, 150, 60, 60, 50, 50, 0);
	ecp_test_task(&s, 250, 60, 60, 50, 50, 1);
	ecp_test_task(&s, 300, 50, 50, MAIN, MAIN, 1);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 110, 1, 0);
	ecp_test_switch(&s, 50, 110, 0, 0);
	ecp_test_switch(&s, 50, 160, 1, 0);
	ecp_test_switch(&s, 60, 160, 0, 0);
	ecp_test_switch(&s, 60, 250, 1, 0);
	ecp_test_switch(&s, 50, 250, 0, 0);
	ecp_test_switch(&s, 50, 300, 1, 0);
	ecp_test_switch(&s, MAIN, 320, 0, 0);
	ecp_test_switch(&s, MAIN, 400, 1, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 105, ECP_EV_DELAY_BEGIN, 25, (uint64_t)-1, 0);
	ecp_test_ev(&s, MAIN, 330, ECP_EV_DELAY_END, 25, 50, 0);
	ecp_test_ev(&s, MAIN, 390, ECP_EV_PROCESS_EXIT, 0, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->info.unknown_deps_ns, 50 + 50 + 90); /* 50's and 60's */
	/* 50 is cut at its fork of 60 and where it came back after 60
	 * exited: 60 starts after the one, the other waits for 60 */
	ecp_id sh = m->threads[1].tid == 50 ? 1 : 2, gz = 3 - sh;
	assert_int_equal(m->threads[sh].tid, 50);
	ecp_id gz_last = m->threads[gz].first_segment + m->threads[gz].n_segments - 1;
	bool forked = false, joined = false;
	for (uint32_t k = 0; k < m->threads[sh].n_segments; k++) {
		ecp_id seg = m->threads[sh].first_segment + k;
		forked |= m->segments[seg].rec_end == 150 - 0 &&
			  ecp_test_has_edge(m, seg, m->threads[gz].first_segment,
					    ECP_EDGE_CREATE);
		joined |= m->segments[seg].rec_start == 250 &&
			  ecp_test_has_edge(m, gz_last, seg, ECP_EDGE_JOIN);
	}
	assert_true(forked);
	assert_true(joined);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* An event loop: T2 waits in epoll_wait, which main's eventfd write ends;
 * T2 runs a callback (a function) and takes its own lock before it reads
 * the eventfd.  The read
 * takes the write made before the poll returned: the poll's delay is taken
 * back and the segment it opened depends on the write.  A second poll
 * returns for another descriptor (nothing written yet); the write that
 * comes after it is no reason for that poll to have ended: its delay
 * stays, and the read depends on the write at the read. */
static void test_event_loop_poll_woken_by_write(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 8, 1, 1);
	ecp_test_switch(&s, T2, 8, 0, 0);
	ecp_test_switch(&s, T2, 22, 1, 0); /* blocks in epoll_wait */
	ecp_test_switch(&s, MAIN, 22, 0, 0);
	ecp_test_switch(&s, MAIN, 42, 1, 1);
	ecp_test_switch(&s, T2, 42, 0, 0);
	ecp_test_switch(&s, T2, 72, 1, 0); /* second epoll_wait */
	ecp_test_switch(&s, MAIN, 72, 0, 0);
	ecp_test_switch(&s, MAIN, 92, 1, 1);
	ecp_test_switch(&s, T2, 92, 0, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 2, ECP_EV_CHAN_OPEN, 0x77, 0, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 10, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 20, ECP_EV_DELAY_BEGIN, 6, 3, 0);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_CHAN_WRITE, 0x77, 1, 0);
	ecp_test_ev(&s, T2, 45, ECP_EV_DELAY_END, 6, 1, 0);
	ecp_test_ev(&s, T2, 50, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, T2, 55, ECP_EV_FUNC_EXIT, F, 0, 0);
	/* the loop's own lock: the segment the poll opened is closed */
	ecp_test_ev(&s, T2, 56, ECP_EV_LOCK_REQUEST, M, 0, 0);
	ecp_test_ev(&s, T2, 57, ECP_EV_LOCK_ACQUIRED, M, 0, 0);
	ecp_test_ev(&s, T2, 60, ECP_EV_CHAN_READ, 0x77, 1, 0);
	ecp_test_ev(&s, T2, 61, ECP_EV_LOCK_RELEASE, M, 0, 0);
	ecp_test_ev(&s, T2, 70, ECP_EV_DELAY_BEGIN, 16, 5, 0);
	ecp_test_ev(&s, T2, 95, ECP_EV_DELAY_END, 16, 1, 0);
	ecp_test_ev(&s, MAIN, 96, ECP_EV_CHAN_WRITE, 0x77, 1, 0);
	ecp_test_ev(&s, T2, 97, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, T2, 98, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, T2, 99, ECP_EV_CHAN_READ, 0x77, 1, 0);
	ecp_test_ev(&s, T2, 100, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 110, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	/* T2: [10,20] [45,57] [57,61] [61,70] [95,99] [99,100] */
	ecp_id woken = ecp_test_seg(m, 1, 1), second = ecp_test_seg(m, 1, 4);
	assert_int_equal(m->segments[woken].rec_start, 45);
	assert_int_equal(m->segments[woken].delay, 0);
	assert_true(ecp_test_has_edge(m, ecp_test_seg(m, 0, 1), woken, ECP_EDGE_SEM));
	assert_int_equal(m->segments[second].rec_start, 95);
	assert_true(m->segments[second].delay > 0);
	assert_true(ecp_test_has_edge(m, ecp_test_seg(m, 0, 2), ecp_test_seg(m, 1, 5),
				      ECP_EDGE_SEM));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* Woken by its timer while another thread had the CPU: the time runnable
 * is not delay; the requested timeout bounds it. */
static void test_timeout_delay_bounded(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 22, 1, 0);
	ecp_test_switch(&s, T2, 22, 0, 0);
	ecp_test_switch(&s, T2, 1522, 1, 1);
	ecp_test_switch(&s, MAIN, 1522, 0, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_SEM_WAIT_BEGIN, S, 1000, 0);
	ecp_test_ev(&s, MAIN, 1525, ECP_EV_SEM_WAIT_END, S, ETIMEDOUT, 0);
	ecp_test_ev(&s, MAIN, 1530, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->segments[1].delay, 1000);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_semaphore_fifo(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_SEM_INIT, S, 1, 0);
	ecp_test_ev(&s, MAIN, 2, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 3, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 4, ECP_EV_SEM_WAIT_BEGIN, S, 0, 0);
	ecp_test_ev(&s, T2, 5, ECP_EV_SEM_WAIT_END, S, 0, 0); /* initial token */
	ecp_test_ev(&s, T2, 6, ECP_EV_SEM_WAIT_BEGIN, S, 0, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_SEM_POST, S, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_SEM_POST, S, 0, 0);
	ecp_test_ev(&s, T2, 30, ECP_EV_SEM_WAIT_END, S, 0, 0); /* first post */
	ecp_test_ev(&s, T2, 31, ECP_EV_SEM_WAIT_BEGIN, S, 0, 0);
	ecp_test_ev(&s, T2, 32, ECP_EV_SEM_WAIT_END, S, 0, 0); /* second post */
	ecp_test_ev(&s, T2, 33, ECP_EV_SEM_WAIT_BEGIN, S, UINT64_MAX, 0);
	ecp_test_ev(&s, T2, 34, ECP_EV_SEM_WAIT_END, S, EAGAIN, 0); /* trywait failed */
	ecp_test_ev(&s, T2, 40, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id p1 = ecp_test_seg(m, 0, 1), p2 = ecp_test_seg(m, 0, 2);
	assert_int_equal(m->segments[p1].rec_end, 10);
	assert_int_equal(m->segments[p2].rec_end, 20);
	/* T2: [3,4] [5,6] [30,31] [32,33] [34,40] */
	assert_int_equal(ecp_segment_n_in(m, ecp_test_seg(m, 1, 1)), 0);
	assert_true(ecp_test_has_edge(m, p1, ecp_test_seg(m, 1, 2), ECP_EDGE_SEM));
	assert_true(ecp_test_has_edge(m, p2, ecp_test_seg(m, 1, 3), ECP_EDGE_SEM));
	assert_int_equal(ecp_segment_n_in(m, ecp_test_seg(m, 1, 4)), 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_barrier_last_arrival(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_BARRIER_INIT, B, 2, 0);
	ecp_test_ev(&s, MAIN, 2, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, MAIN, 3, ECP_EV_BARRIER_WAIT_BEGIN, B, 0, 0);
	ecp_test_ev(&s, T2, 10, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 20, ECP_EV_BARRIER_WAIT_BEGIN, B, 0, 0);
	ecp_test_ev(&s, T2, 21, ECP_EV_BARRIER_WAIT_END, B, 1, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_BARRIER_WAIT_END, B, 0, 0);
	ecp_test_ev(&s, T2, 40, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id last = ecp_test_seg(m, 1, 0);
	assert_true(ecp_test_has_edge(m, last, ecp_test_seg(m, 0, 2), ECP_EDGE_BARRIER));
	/* the last arrival itself gets no edge */
	assert_int_equal(ecp_segment_n_in(m, ecp_test_seg(m, 1, 1)), 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_once(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, MAIN, 2, ECP_EV_ONCE_BEGIN, 0x77, 0, 0);
	ecp_test_ev(&s, MAIN, 9, ECP_EV_ONCE_END, 0x77, 1, 0);
	ecp_test_ev(&s, T2, 10, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 11, ECP_EV_ONCE_BEGIN, 0x77, 0, 0);
	ecp_test_ev(&s, T2, 12, ECP_EV_ONCE_END, 0x77, 0, 0);
	ecp_test_ev(&s, T2, 13, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id init = ecp_test_seg(m, 0, 2);
	assert_int_equal(m->segments[init].rec_end, 9);
	assert_true(ecp_test_has_edge(m, init, ecp_test_seg(m, 1, 1), ECP_EDGE_ONCE));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A futex wake releases the thread waiting on the address (C++20 waits). */
static void test_futex_wake(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 6, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 20, ECP_EV_FUTEX_WAIT_BEGIN, 0x500, 0, 0);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_FUTEX_WAKE, 0x500, 1, 0);
	ecp_test_ev(&s, T2, 60, ECP_EV_FUTEX_WAIT_END, 0x500, 0, 0);
	/* a second wait finds the word changed by a wake it missed */
	ecp_test_ev(&s, MAIN, 65, ECP_EV_FUTEX_WAKE, 0x500, 1, 0);
	ecp_test_ev(&s, T2, 70, ECP_EV_FUTEX_WAIT_BEGIN, 0x500, 0, 0);
	ecp_test_ev(&s, T2, 72, ECP_EV_FUTEX_WAIT_END, 0x500, EAGAIN, 0);
	ecp_test_ev(&s, T2, 80, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 90, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	/* main: [0,5] [5,40] [40,65] [65,90]; T2: [6,20] [60,70] [72,80] */
	ecp_id wake = ecp_test_seg(m, 0, 1), wake2 = ecp_test_seg(m, 0, 2);
	assert_int_equal(m->segments[wake].rec_end, 40);
	assert_true(ecp_test_has_edge(m, wake, ecp_test_seg(m, 1, 1), ECP_EDGE_COND));
	assert_true(ecp_test_has_edge(m, wake2, ecp_test_seg(m, 1, 2), ECP_EDGE_COND));
	assert_false(ecp_test_has_warning(m, "futex"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A blocking read of what another thread wrote into a pipe depends on
 * that write and is no delay; a socketpair end's writes are read at its
 * peer. */
static void test_channel_write_read(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 2, ECP_EV_CHAN_OPEN, 0xa, 0xb, 0);
	ecp_test_ev(&s, MAIN, 3, ECP_EV_CHAN_OPEN, 0xb, 0xa, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 6, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 20, ECP_EV_DELAY_BEGIN, 7, 3, 0);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_CHAN_WRITE, 0x77, 8, 0);
	ecp_test_ev(&s, T2, 60, ECP_EV_DELAY_END, 7, 8, 0);
	ecp_test_ev(&s, T2, 60, ECP_EV_CHAN_READ, 0x77, 4, 0);
	/* the other half, read later without blocking */
	ecp_test_ev(&s, T2, 64, ECP_EV_CHAN_READ, 0x77, 4, 0);
	/* socketpair: main writes on end a, T2 reads end b */
	ecp_test_ev(&s, MAIN, 66, ECP_EV_CHAN_WRITE, 0xa, 3, 0);
	ecp_test_ev(&s, T2, 70, ECP_EV_CHAN_READ, 0xb, 3, 0);
	ecp_test_ev(&s, T2, 80, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 90, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	/* main: [0,5] [5,40] [40,66] [66,90]; T2: [6,20] [60,64] [64,70] [70,80] */
	ecp_id w = ecp_test_seg(m, 0, 1), r = ecp_test_seg(m, 1, 1);
	assert_int_equal(m->segments[w].rec_end, 40);
	assert_true(ecp_test_has_edge(m, w, r, ECP_EDGE_SEM));
	assert_int_equal(m->segments[r].delay, 0);
	assert_true(ecp_test_has_edge(m, w, ecp_test_seg(m, 1, 2), ECP_EDGE_SEM));
	assert_true(ecp_test_has_edge(m, ecp_test_seg(m, 0, 2), ecp_test_seg(m, 1, 3),
				      ECP_EDGE_SEM));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* std::async joins its thread inside std::call_once: the thread running
 * the init routine may wait in it.  A call ecp does not model is named. */
static void test_once_init_waits_and_unmodelled(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 1, ECP_EV_THREAD_CREATE, 1, R2, 1);
	ecp_test_ev(&s, T2, 2, ECP_EV_THREAD_START, 1, R2, H2);
	ecp_test_ev(&s, T2, 3, ECP_EV_THREAD_EXIT, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 4, ECP_EV_ONCE_BEGIN, 0x77, 0, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_THREAD_JOIN_BEGIN, H2, 0, 0);
	ecp_test_ev(&s, MAIN, 6, ECP_EV_THREAD_JOIN_END, H2, 1, 0);
	ecp_test_ev(&s, MAIN, 7, ECP_EV_ONCE_END, 0x77, 1, 0);
	ecp_test_ev(&s, MAIN, 8, ECP_EV_UNMODELLED, 0, 0, 0)->name = "pthread_cancel";
	ecp_test_ev(&s, MAIN, 9, ECP_EV_UNMODELLED, 0, 0, 0)->name = "pthread_cancel";
	ecp_test_ev(&s, MAIN, 20, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_true(ecp_test_has_edge(m, ecp_test_seg(m, 1, 0), ecp_test_seg(m, 0, 3),
				      ECP_EDGE_JOIN));
	assert_true(
	    ecp_test_has_warning(m, "called pthread_cancel, which ecp does not model"));
	assert_false(ecp_test_has_warning(m, "waits began while"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_delay_blocked_vs_preempted(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 12, 1, 0); /* asleep */
	ecp_test_switch(&s, MAIN, 52, 0, 0);
	ecp_test_switch(&s, MAIN, 70, 1, 1); /* preempted: not delay */
	ecp_test_switch(&s, MAIN, 90, 0, 0);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_DELAY_BEGIN, 0, (uint64_t)-1, 0);
	ecp_test_ev(&s, MAIN, 55, ECP_EV_DELAY_END, 0, 0, 0);
	ecp_test_ev(&s, MAIN, 65, ECP_EV_DELAY_BEGIN, 7, 3, 0);
	ecp_test_ev(&s, MAIN, 95, ECP_EV_DELAY_END, 7, 10, 0);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	/* the read that was only preempted is no boundary */
	assert_int_equal(m->n_segments, 2);
	assert_int_equal(m->segments[0].length, 15);
	assert_int_equal(m->segments[1].delay, 40);
	assert_int_equal(m->segments[1].length, 100 - 40 - 20 - 15);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* On one CPU a woken sleeper may wait, runnable, for the CPU; the switch
 * records cannot tell that wait from the sleep, the requested duration can. */
static void test_delay_capped_at_requested_duration(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 0, 0, 0);
	ecp_test_switch(&s, MAIN, 12, 1, 0); /* asleep from 12 ... */
	ecp_test_switch(&s, MAIN, 52, 0, 0); /* ... back on the CPU at 52 */
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_DELAY_BEGIN, 0, (uint64_t)-1, 30); /* asked 30 */
	ecp_test_ev(&s, MAIN, 55, ECP_EV_DELAY_END, 0, 0, 0);
	ecp_test_ev(&s, MAIN, 60, ECP_EV_DELAY_BEGIN, 0, (uint64_t)-1, 0); /* unbounded */
	ecp_test_ev(&s, MAIN, 60, ECP_EV_DELAY_END, 0, 0, 0);
	ecp_test_ev(&s, MAIN, 100, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_int_equal(m->n_segments, 2);
	assert_int_equal(m->segments[1].delay, 30);
	/* the 10 ns runnable after the wake-up are neither delay nor CPU time */
	assert_int_equal(m->segments[0].length + m->segments[1].length, 100 - 40);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_stack_across_segments(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_SEM_POST, S, 0, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id f = ecp_test_fn(m, F);
	assert_int_equal(m->n_segments, 2);
	assert_int_equal(ecp_test_calls(m, 0, f), 1);
	assert_int_equal(ecp_test_self(m, 0, f), 10);
	assert_int_equal(ecp_test_incl(m, 0, f), 10);
	assert_int_equal(ecp_test_calls(m, 1, f), 0);
	assert_int_equal(ecp_test_self(m, 1, f), 10);
	assert_int_equal(ecp_test_incl(m, 1, f), 10);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_recursion_counted_once(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_FUNC_FOLDED, G, 12, 300);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id f = ecp_test_fn(m, F);
	assert_int_equal(ecp_test_calls(m, 0, f), 2);
	assert_int_equal(ecp_test_self(m, 0, f), 30);
	assert_int_equal(ecp_test_incl(m, 0, f), 30);
	assert_int_equal(m->functions[ecp_test_fn(m, G)].folded_calls, 12);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A segment with more functions than a scan finds (builder-functions.c:
 * ACT_SCAN, 8) keeps each one's time apart, found again through the index
 * when called again; the next segment starts with none of them, so a
 * function of the first found there (past the scan's reach) is its own. */
static void test_many_functions_in_one_segment(void **state)
{
	enum { NF = 20, NG = 12 };
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	/* nested: function i entered at 10(i+1), left at 210 + 10(19-i) */
	for (uint64_t i = 0; i < NF; i++)
		ecp_test_ev(&s, MAIN, 10 * (i + 1), ECP_EV_FUNC_ENTRY, 0x1000 + 16 * i, 0,
			    0);
	for (uint64_t i = NF; i-- > 0;)
		ecp_test_ev(&s, MAIN, 210 + 10 * (19 - i), ECP_EV_FUNC_EXIT,
			    0x1000 + 16 * i, 0, 0);
	/* then each once more, 10 ns, one after another */
	for (uint64_t i = 0; i < NF; i++) {
		ecp_test_ev(&s, MAIN, 405 + 20 * i, ECP_EV_FUNC_ENTRY, 0x1000 + 16 * i, 0,
			    0);
		ecp_test_ev(&s, MAIN, 415 + 20 * i, ECP_EV_FUNC_EXIT, 0x1000 + 16 * i, 0,
			    0);
	}
	ecp_test_ev(&s, MAIN, 820, ECP_EV_LOCK_REQUEST, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 822, ECP_EV_LOCK_ACQUIRED, M, ECP_LOCK_MUTEX, 0);
	/* the next segment: twelve others, then the first one again */
	for (uint64_t j = 0; j < NG; j++) {
		ecp_test_ev(&s, MAIN, 830 + 20 * j, ECP_EV_FUNC_ENTRY, 0x8000 + 16 * j, 0,
			    0);
		ecp_test_ev(&s, MAIN, 840 + 20 * j, ECP_EV_FUNC_EXIT, 0x8000 + 16 * j, 0,
			    0);
	}
	ecp_test_ev(&s, MAIN, 1070, ECP_EV_FUNC_ENTRY, 0x1000, 0, 0);
	ecp_test_ev(&s, MAIN, 1080, ECP_EV_FUNC_EXIT, 0x1000, 0, 0);
	ecp_test_ev(&s, MAIN, 1090, ECP_EV_LOCK_RELEASE, M, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, MAIN, 1100, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	ecp_id main_fn = ecp_model_find_function(m, "main");
	ecp_id first = ecp_test_seg(m, 0, 0), crit = ecp_test_seg(m, 0, 1);
	assert_int_equal(m->segments[first].length, 820);
	assert_int_equal(m->segments[first].n_activity, NF + 1);
	for (uint64_t i = 0; i < NF; i++) {
		ecp_id f = ecp_test_fn(m, 0x1000 + 16 * i);
		assert_int_equal(ecp_test_self(m, first, f), i == NF - 1 ? 20 : 30);
		assert_int_equal(ecp_test_calls(m, first, f), 2);
	}
	assert_int_equal(ecp_test_self(m, first, main_fn), 230);
	assert_int_equal(m->segments[crit].length, 270);
	assert_int_equal(m->segments[crit].n_activity, NG + 2);
	for (uint64_t j = 0; j < NG; j++) {
		ecp_id g = ecp_test_fn(m, 0x8000 + 16 * j);
		assert_int_equal(ecp_test_self(m, crit, g), 10);
		assert_int_equal(ecp_test_calls(m, crit, g), 1);
	}
	assert_int_equal(ecp_test_self(m, crit, ecp_test_fn(m, 0x1000)), 10);
	assert_int_equal(ecp_test_calls(m, crit, ecp_test_fn(m, 0x1000)), 1);
	assert_int_equal(ecp_test_self(m, crit, ecp_test_fn(m, 0x1010)), 0);
	assert_int_equal(ecp_test_self(m, crit, main_fn), 140);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_repairs_counted(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 5, ECP_EV_FUNC_EXIT, 0x99, 0, 0); /* no entry */
	ecp_test_ev(&s, MAIN, 10, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 20, ECP_EV_FUNC_ENTRY, G, 0, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_FUNC_EXIT, F, 0, 0);  /* g never exits */
	ecp_test_ev(&s, MAIN, 40, ECP_EV_FUNC_ENTRY, F, 0, 0); /* open at exit */
	ecp_test_ev(&s, MAIN, 45, ECP_EV_FUNC_ENTRY, R2, 0, 0);
	ecp_test_ev(&s, MAIN, 1500, ECP_EV_FUNC_UNWOUND, R2, 0, 0); /* documented */
	/* 1400 ns back: more than an event's timestamping noise, counted */
	ecp_test_ev(&s, MAIN, 100, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 1510, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 1505, ECP_EV_FUNC_ENTRY, G, 0, 0); /* 5 ns: noise */
	ecp_test_ev(&s, MAIN, 1520, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	assert_true(ecp_test_has_warning(m, "1 function exits without an entry"));
	assert_true(ecp_test_has_warning(m, "3 function entries without an exit"));
	assert_true(ecp_test_has_warning(m, "1 function timestamps went backwards"));
	int repaired = 0;
	for (uint64_t i = 0; i < m->n_calls; i++)
		repaired += !!(m->calls[i].flags & ECP_CALL_REPAIRED);
	assert_int_equal(repaired, 3);
	ecp_id f = ecp_test_fn(m, F);
	/* f: 10..30, 40..1500 (the exit clamped to 1500), 1510..1520 */
	assert_int_equal(ecp_test_incl(m, 0, f), 20 + 1460 + 10);
	assert_int_equal(m->segments[0].length, 1520);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_thread_cputime_clock(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 0, ECP_EV_THREAD_START, 0, 0, H1)->cpu_ns = 1000;
	ecp_test_ev(&s, MAIN, 10, ECP_EV_FUNC_ENTRY, F, 0, 0);
	ecp_test_ev(&s, MAIN, 30, ECP_EV_FUNC_EXIT, F, 0, 0);
	ecp_test_ev(&s, MAIN, 40, ECP_EV_SEM_POST, S, 0, 0)->cpu_ns = 1020;
	ecp_test_ev(&s, MAIN, 100, ECP_EV_THREAD_EXIT, H1, 0, 0)->cpu_ns = 1050;
	struct ecp_builder_options o = {.clock = ECP_CLOCK_THREAD_CPUTIME};
	struct ecp_model *m = build_ok(&s, &o);
	assert_int_equal(m->segments[0].length, 20);
	assert_int_equal(m->segments[1].length, 30);
	/* half the wall time was CPU: f's 20 ns of wall are 10 ns of CPU */
	assert_int_equal(ecp_test_self(m, 0, ecp_test_fn(m, F)), 10);
	assert_string_equal(m->info.clock, "thread-cputime");
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_error_wait_end_without_begin(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_SEM_WAIT_END, S, 0, 0);
	build_fails(&s, &err);
	assert_non_null(strstr(err.msg, "wait end without begin"));
	assert_non_null(strstr(err.msg, "event=#1 (sem_wait_end) thread=1"));
	ecp_test_seq_finish(&s);

	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_DELAY_END, 0, 0, 0);
	build_fails(&s, &err);
	assert_non_null(strstr(err.msg, "wait end without begin"));
	ecp_test_seq_finish(&s);
}

static void test_error_timestamps_backwards(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	ecp_test_seq_init(&s);
	start_main(&s, 100);
	ecp_test_ev(&s, MAIN, 50, ECP_EV_SEM_POST, S, 0, 0);
	build_fails(&s, &err);
	assert_non_null(strstr(err.msg, "timestamps going backwards"));
	assert_non_null(strstr(err.msg, "event=#1"));
	ecp_test_seq_finish(&s);
}

static void test_error_event_before_start(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, 42, 10, ECP_EV_LOCK_REQUEST, M, 0, 0);
	build_fails(&s, &err);
	assert_non_null(strstr(err.msg, "before its start"));
	assert_non_null(strstr(err.msg, "thread=42"));
	ecp_test_seq_finish(&s);
}

static void test_error_switch_after_program(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_switch(&s, MAIN, 5, 1, 0);
	build_fails(&s, &err);
	assert_non_null(strstr(err.msg, "context-switch record after"));
	ecp_test_seq_finish(&s);
}

static void test_error_no_thread(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, MAIN, 5, 1, 0);
	build_fails(&s, &err);
	assert_non_null(strstr(err.msg, "no thread of the program was recorded"));
	ecp_test_seq_finish(&s);
}

/* Under --allow-loss (lenient), what a lost event leaves inconsistent is
 * skipped or repaired and counted, never fatal. */
static void test_lenient_repairs(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	start_main(&s, 0);
	ecp_test_ev(&s, MAIN, 10, ECP_EV_SEM_WAIT_END, S, 0, 0); /* begin lost */
	ecp_test_ev(&s, MAIN, 20, ECP_EV_LOCK_RELEASE, M, 0, 0); /* acquire lost */
	ecp_test_ev(&s, 42, 30, ECP_EV_SEM_POST, S, 0, 0);       /* start lost */
	ecp_test_ev(&s, MAIN, 25, ECP_EV_SEM_POST, S, 0, 0);     /* backwards */
	ecp_test_ev(&s, MAIN, 40, ECP_EV_THREAD_EXIT, H1, 0, 0);
	struct ecp_builder_options o = {.clock = ECP_CLOCK_PERF_SWITCH, .lenient = true};
	struct ecp_model *m = build_ok(&s, &o);
	assert_true(
	    ecp_test_has_warning(m, "4 inconsistent events were skipped or repaired"));
	assert_true(
	    ecp_test_has_warning(m, "first inconsistency: event=#1 (sem_wait_end)"));
	assert_int_equal(m->n_threads, 1);
	assert_int_equal(ecp_model_work(m), 40);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_lost_switch_records_counted(void **state)
{
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, 0, 0, ECP_EV_SCHED_LOST, 3, 0, 0);
	start_main(&s, 0);
	struct ecp_model *m = build_ok(&s, NULL);
	/* perf's losses, apart from LTTng's discards */
	assert_int_equal(m->info.switches_lost, 3);
	assert_int_equal(m->info.discarded_events, 0);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* What a cycle holds up is counted as Kahn's algorithm counts it: the
 * segments on it and after it, not those that wait only for segments
 * before it (thread 2 parks on thread 0, and is woken). */
static void test_validate_counts_cycle_tail(void **state)
{
	(void)state;
	struct ecp_thread th[3] = {
	    {.tid = 1, .first_segment = 0, .n_segments = 3, .parent = ECP_NO_ID},
	    {.tid = 2, .first_segment = 3, .n_segments = 2, .parent = 0},
	    {.tid = 3, .first_segment = 5, .n_segments = 1, .parent = 0}};
	struct ecp_segment seg[6];
	for (int i = 0; i < 6; i++)
		seg[i] = (struct ecp_segment){.thread = i < 3   ? 0
							: i < 5 ? 1
								: 2,
					      .lock_acquire = ECP_NO_ID,
					      .lock_release = ECP_NO_ID};
	/* 4 -> 1 and 2 -> 3 close a cycle through both threads' order */
	struct ecp_edge edges[3] = {
	    {.from = 4, .to = 1}, {.from = 2, .to = 3}, {.from = 0, .to = 5}};
	seg[2].first_in = seg[3].first_in = 1;
	seg[4].first_in = seg[5].first_in = 2;
	for (int t = 0; t < 3; t++)
		th[t].start_function = ECP_NO_ID;
	struct ecp_model m = {.threads = th,
			      .n_threads = 3,
			      .segments = seg,
			      .n_segments = 6,
			      .edges = edges,
			      .n_edges = 3};
	struct ecp_error err = {0};
	assert_int_not_equal(ecp_model_validate(&m, &err), 0);
	assert_non_null(strstr(err.msg, "4 of 6 segments are never released"));
	/* without 4 -> 1: a DAG */
	m.edges = edges + 1;
	m.n_edges = 2;
	seg[2].first_in = seg[3].first_in = 0;
	seg[4].first_in = seg[5].first_in = 1;
	assert_int_equal(ecp_model_validate(&m, &err), 0);
}

static void test_validate_rejects_cycle(void **state)
{
	struct ecp_thread th[2] = {{.tid = 1,
				    .first_segment = 0,
				    .n_segments = 1,
				    .start_function = ECP_NO_ID,
				    .parent = ECP_NO_ID},
				   {.tid = 2,
				    .first_segment = 1,
				    .n_segments = 1,
				    .start_function = ECP_NO_ID,
				    .parent = 0}};
	struct ecp_segment seg[2] = {{.thread = 0,
				      .lock_acquire = ECP_NO_ID,
				      .lock_release = ECP_NO_ID,
				      .first_in = 0},
				     {.thread = 1,
				      .lock_acquire = ECP_NO_ID,
				      .lock_release = ECP_NO_ID,
				      .first_in = 1}};
	struct ecp_edge edges[2] = {{.from = 1, .to = 0}, {.from = 0, .to = 1}};
	struct ecp_model m = {.threads = th,
			      .n_threads = 2,
			      .segments = seg,
			      .n_segments = 2,
			      .edges = edges,
			      .n_edges = 2};
	struct ecp_error err = {0};
	assert_int_not_equal(ecp_model_validate(&m, &err), 0);
	assert_non_null(strstr(err.msg, "cycle"));
	m.n_edges = 1; /* only 1 -> 0 */
	assert_int_equal(ecp_model_validate(&m, &err), 0);
	seg[1].thread = 0; /* not inside its thread's range */
	assert_int_not_equal(ecp_model_validate(&m, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_functions_single_thread),
	    cmocka_unit_test(test_many_functions_in_one_segment),
	    cmocka_unit_test(test_start_routine_implicit),
	    cmocka_unit_test(test_create_join_with_switches),
	    cmocka_unit_test(test_scaled_to_thread_clock),
	    cmocka_unit_test(test_exit_block_after_thread_clocks),
	    cmocka_unit_test(test_scaled_self_times_fill_the_segment),
	    cmocka_unit_test(test_child_runs_before_create_returns),
	    cmocka_unit_test(test_event_cost_subtracted),
	    cmocka_unit_test(test_quiet_windows_and_thread_creation_cost),
	    cmocka_unit_test(test_mutex),
	    cmocka_unit_test(test_recursive_mutex_and_trylock),
	    cmocka_unit_test(test_unlock_not_held_is_error),
	    cmocka_unit_test(test_cond_signal),
	    cmocka_unit_test(test_cond_broadcast_wakes_all),
	    cmocka_unit_test(test_cond_timeout_is_delay),
	    cmocka_unit_test(test_progress_loop_timeouts_taken_back),
	    cmocka_unit_test(test_thread_running_at_exit_keeps_work),
	    cmocka_unit_test(test_thread_blocked_at_exit_ends_at_wait),
	    cmocka_unit_test(test_event_loop_poll_woken_by_write),
	    cmocka_unit_test(test_unseen_thread_in_model),
	    cmocka_unit_test(test_child_process_forked_and_waited),
	    cmocka_unit_test(test_poll_ended_by_child_exit),
	    cmocka_unit_test(test_read_while_child_ran),
	    cmocka_unit_test(test_pipeline_child_waits_for_sibling),
	    cmocka_unit_test(test_child_last_stay_ends_at_exit),
	    cmocka_unit_test(test_child_with_children_unknown_deps),
	    cmocka_unit_test(test_child_sleep_is_delay),
	    cmocka_unit_test(test_child_sleep_after_parent_waits),
	    cmocka_unit_test(test_timeout_delay_bounded),
	    cmocka_unit_test(test_semaphore_fifo),
	    cmocka_unit_test(test_barrier_last_arrival),
	    cmocka_unit_test(test_once),
	    cmocka_unit_test(test_futex_wake),
	    cmocka_unit_test(test_channel_write_read),
	    cmocka_unit_test(test_once_init_waits_and_unmodelled),
	    cmocka_unit_test(test_delay_blocked_vs_preempted),
	    cmocka_unit_test(test_delay_capped_at_requested_duration),
	    cmocka_unit_test(test_stack_across_segments),
	    cmocka_unit_test(test_recursion_counted_once),
	    cmocka_unit_test(test_repairs_counted),
	    cmocka_unit_test(test_thread_cputime_clock),
	    cmocka_unit_test(test_error_wait_end_without_begin),
	    cmocka_unit_test(test_error_timestamps_backwards),
	    cmocka_unit_test(test_error_event_before_start),
	    cmocka_unit_test(test_error_switch_after_program),
	    cmocka_unit_test(test_error_no_thread),
	    cmocka_unit_test(test_lenient_repairs),
	    cmocka_unit_test(test_lost_switch_records_counted),
	    cmocka_unit_test(test_validate_rejects_cycle),
	    cmocka_unit_test(test_validate_counts_cycle_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
