/* SPDX-License-Identifier: MIT */
/* Unit tests of the model builder's OpenMP tasks (builder-tasks.c,
 * simulator/model/task-deal.c, builder-tasks-graph.c): tasks recorded on
 * one thread are dealt out again to the team, with the task graph's
 * edges; an epoch where a task takes a lock keeps its recorded placement,
 * and so do the tasks of a lossy trace analysed anyway;
 * the recorded one-CPU order does not change the model's span; libgomp's
 * and libomp's rules deal a task tree differently; a deal on a near tie
 * is named, with what it takes as the support oracle computes it.
 * Programs from tests/support/task-program.h, recorded on one CPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "simulator/model/dag.h"
#include "simulator/model/model.h"
#include "simulator/model/task-graph.h"
#include "tests/support/event-seq.h"
#include "tests/support/task-program.h"

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

static struct tp_op work(uint64_t len)
{
	return (struct tp_op){.kind = TP_WORK, .len = len};
}

static struct tp_op task(uint32_t body)
{
	return (struct tp_op){.kind = TP_TASK, .body = body};
}

/* Main (a `single`) makes three tasks of 30, 20 and 10 ns and runs them
 * all in the recording (order 0: the CPU stays on main); a team of two. */
static void three_tasks(struct tp_program *p, struct tp_body *b, struct tp_op *ops)
{
	ops[0] = work(5);
	ops[1] = task(1);
	ops[2] = task(2);
	ops[3] = task(3);
	ops[4] = work(30);
	ops[5] = work(20);
	ops[6] = work(10);
	b[0] = (struct tp_body){ops, 4};
	b[1] = (struct tp_body){ops + 4, 1};
	b[2] = (struct tp_body){ops + 5, 1};
	b[3] = (struct tp_body){ops + 6, 1};
	*p = (struct tp_program){b, 4, 2, false};
}

/* The threads' lengths: main ran 65 ns in the recording, the other 0.
 * Dealt again: the second thread, at the barrier from the start, takes
 * the 30 ns task when it is made at 5 ns; main, at the barrier once it has
 * made them (at 5), takes the 20 then the 10: main 5 + 20 + 10 = 35, the
 * other 30, the span 35; the task graph's creation edges go from main's
 * segment ending at each creation to the task's first segment. */
static void test_tasks_dealt_again(void **state)
{
	(void)state;
	struct tp_program p;
	struct tp_body b[4];
	struct tp_op ops[7];
	struct ecp_test_seq s;
	three_tasks(&p, b, ops);
	ecp_test_seq_init(&s);
	tp_record(&p, 0, &s);
	struct ecp_model *m = build_ok(&s);
	assert_int_equal(m->n_threads, 2);
	uint64_t work0 = 0, work1 = 0;
	for (uint32_t k = 0; k < m->threads[0].n_segments; k++)
		work0 += m->segments[m->threads[0].first_segment + k].length;
	for (uint32_t k = 0; k < m->threads[1].n_segments; k++)
		work1 += m->segments[m->threads[1].first_segment + k].length;
	assert_int_equal(work0, 35);
	assert_int_equal(work1, 30);
	assert_int_equal(ecp_model_work(m), 65);
	assert_false(ecp_test_has_warning(m, "OpenMP tasks"));
	/* what ecp info says of them */
	assert_int_equal(m->info.tasks_dealt, 3);
	assert_int_equal(m->info.tasks_kept, 0);
	assert_int_equal(m->info.tie_draws, ECP_TASK_JITTER_DRAWS);
	/* the 30 ns task's segment on thread 1 is created from main's 5 ns */
	ecp_id made = ECP_NO_ID, task30 = ECP_NO_ID;
	for (uint32_t k = 0; k < m->threads[0].n_segments; k++)
		if (m->segments[m->threads[0].first_segment + k].length == 5)
			made = m->threads[0].first_segment + k;
	for (uint32_t k = 0; k < m->threads[1].n_segments; k++)
		if (m->segments[m->threads[1].first_segment + k].length == 30)
			task30 = m->threads[1].first_segment + k;
	assert_int_not_equal(made, ECP_NO_ID);
	assert_int_not_equal(task30, ECP_NO_ID);
	assert_true(ecp_test_has_edge(m, made, task30, ECP_EDGE_CREATE));
	/* it ran in main's start routine, which it keeps on thread 1 (the
	 * deal wrote its implicit activity out: model.h) */
	assert_int_not_equal(m->threads[0].start_function, m->threads[1].start_function);
	struct ecp_activity one;
	const struct ecp_activity *act;
	assert_int_equal(ecp_segment_activities(m, &m->segments[task30], &one, &act), 1);
	assert_int_equal(m->segments[task30].n_activity, 1);
	assert_int_equal(act[0].function, m->threads[0].start_function);
	assert_int_equal(act[0].self_ns, 30);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(dag.span, 35);
	ecp_dag_finish(&dag);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* The same program recorded in other orders (time slices and the tasks
 * the emulated libgomp picks) gives the same model span and threads'
 * work, on random programs too. */
static void test_recorded_order_does_not_matter(void **state)
{
	(void)state;
	unsigned checked = 0;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct tp_program p;
		tp_random(&p, seed, 12, 1000);
		uint64_t span0 = 0;
		for (uint64_t order = 0; order < 6; order++) {
			struct ecp_test_seq s;
			struct ecp_dag dag;
			struct ecp_error err = {0};
			ecp_test_seq_init(&s);
			tp_record(&p, order, &s);
			struct ecp_model *m = build_ok(&s);
			assert_int_equal(
			    ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err),
			    0);
			if (!order)
				span0 = dag.span;
			if (dag.span != span0)
				fail_msg("seed %llu order %llu: span %llu, order 0 %llu",
					 (unsigned long long)seed,
					 (unsigned long long)order,
					 (unsigned long long)dag.span,
					 (unsigned long long)span0);
			ecp_dag_finish(&dag);
			ecp_model_destroy(m);
			ecp_test_seq_finish(&s);
			checked++;
		}
		tp_free(&p);
	}
	assert_int_equal(checked, 200 * 6);
}

/* A task that takes a lock: its epoch keeps the recorded placement (main
 * ran everything), with the task graph's edges, and the model says so. */
static void test_lock_in_task_kept(void **state)
{
	(void)state;
	struct tp_program p;
	struct tp_body b[4];
	struct tp_op ops[7];
	struct ecp_test_seq s, t;
	three_tasks(&p, b, ops);
	ecp_test_seq_init(&s);
	tp_record(&p, 0, &s);
	/* a lock taken and released inside the first task's body: after its
	 * omp_task_begin, in the same thread and at the same time */
	ecp_test_seq_init(&t);
	for (size_t i = 0; i < s.n; i++) {
		struct ecp_event *e = ecp_test_ev(&t, s.ev[i].tid, s.ev[i].ts,
						  (enum ecp_event_type)s.ev[i].type,
						  s.ev[i].a, s.ev[i].b, s.ev[i].c);
		e->flags = s.ev[i].flags;
		if (s.ev[i].type == ECP_EV_OMP_TASK_BEGIN && s.ev[i].a == 1) {
			ecp_test_ev(&t, s.ev[i].tid, s.ev[i].ts, ECP_EV_LOCK_REQUEST,
				    0xa0, 0, 0);
			ecp_test_ev(&t, s.ev[i].tid, s.ev[i].ts, ECP_EV_LOCK_ACQUIRED,
				    0xa0, 0, 0);
			ecp_test_ev(&t, s.ev[i].tid, s.ev[i].ts, ECP_EV_LOCK_RELEASE,
				    0xa0, 0, 0);
		}
	}
	struct ecp_model *m = build_ok(&t);
	assert_true(ecp_test_has_warning(m, "3 OpenMP tasks (of 3)"));
	assert_int_equal(m->info.tasks_kept, 3);
	assert_int_equal(m->info.tasks_dealt, 0);
	uint64_t work1 = 0;
	for (uint32_t k = 0; k < m->threads[1].n_segments; k++)
		work1 += m->segments[m->threads[1].first_segment + k].length;
	assert_int_equal(work1, 0);
	assert_int_equal(ecp_model_work(m), 65);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
	ecp_test_seq_finish(&t);
}

/* A lossy trace analysed anyway (lenient), with an inconsistency: the
 * tasks stay where they ran, without the task graph's edges (a missing
 * begin or end could make them a cycle), and the model says so. */
static void test_lossy_trace_kept(void **state)
{
	(void)state;
	struct tp_program p;
	struct tp_body b[4];
	struct tp_op ops[7];
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	three_tasks(&p, b, ops);
	ecp_test_seq_init(&s);
	tp_record(&p, 0, &s);
	/* a wait's end with no begin, on main before it exits */
	struct ecp_event last = s.ev[s.n - 1];
	s.n--;
	ecp_test_ev(&s, last.tid, last.ts, ECP_EV_COND_WAIT_END, 0xc0, 0xa0, 0);
	ecp_test_ev(&s, last.tid, last.ts, (enum ecp_event_type)last.type, last.a, last.b,
		    last.c);
	struct ecp_builder_options opts = {.clock = ECP_CLOCK_PERF_SWITCH,
					   .keep_calls = true,
					   .lenient = true,
					   .trace_path = "synthetic"};
	struct ecp_model *m = ecp_test_seq_build(&s, &opts, &err);
	if (!m)
		fail_msg("build failed: %s", err.msg);
	assert_int_equal(ecp_model_validate(m, &err), 0);
	assert_true(ecp_test_has_warning(m, "3 OpenMP tasks kept"));
	assert_true(ecp_test_has_warning(m, "without their dependencies"));
	uint64_t work1 = 0;
	for (uint32_t k = 0; k < m->threads[1].n_segments; k++)
		work1 += m->segments[m->threads[1].first_segment + k].length;
	assert_int_equal(work1, 0);
	assert_int_equal(ecp_model_work(m), 65);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* Work and span per spawn site (the model's spawn_sites) equal an
 * independent computation on the program's structure (task-program.h),
 * for random programs recorded in two orders; sites nest (a task's site
 * is its body's index modulo 3), so recursion counted once is exercised. */
static void test_spawn_sites(void **state)
{
	(void)state;
	unsigned long compared = 0, nested = 0;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct tp_program p;
		struct tp_site want[16];
		tp_random(&p, seed, 12, 1000);
		uint32_t n = tp_spawn_sites(&p, want, 16);
		for (uint64_t order = 0; order < 4; order += 2) {
			struct ecp_test_seq s;
			ecp_test_seq_init(&s);
			tp_record(&p, order, &s);
			struct ecp_model *m = build_ok(&s);
			assert_int_equal(m->n_spawn_sites, n);
			for (uint32_t i = 0; i < n; i++) {
				const struct ecp_spawn_site *g = &m->spawn_sites[i];
				if (g->site != want[i].site ||
				    g->tasks != want[i].tasks ||
				    g->work_ns != want[i].work ||
				    g->span_ns != want[i].span)
					fail_msg("seed %llu site %llx: tasks %llu work "
						 "%llu span "
						 "%llu, want %llu %llu %llu",
						 (unsigned long long)seed,
						 (unsigned long long)g->site,
						 (unsigned long long)g->tasks,
						 (unsigned long long)g->work_ns,
						 (unsigned long long)g->span_ns,
						 (unsigned long long)want[i].tasks,
						 (unsigned long long)want[i].work,
						 (unsigned long long)want[i].span);
				compared++;
				nested += order == 0 && want[i].outermost < want[i].tasks;
			}
			ecp_model_destroy(m);
			ecp_test_seq_finish(&s);
		}
		tp_free(&p);
	}
	printf("  %lu spawn sites compared, %lu with tasks nested in their own site\n",
	       compared, nested);
	assert_true(compared > 600);
	assert_true(nested > 20);
}

/* libomp's taskwait and taskgroup ends loop looking for tasks and never
 * sleep: on the one recording CPU that spin is CPU time inside the wait.
 * A team of one: main makes a task (10 ns), waits for it, spins 7 ns, runs
 * it (20 ns), spins 5 ns until the wait ends, then 3 ns to the barrier,
 * 5 ns to its exit; a taskgroup the same way (2 ns work, 4 ns spin, 6 ns
 * task, 1 ns spin).  The spins are not work: 10 + 20 + 3 + 2 + 6 + 5. */
static void test_task_wait_spin_not_work(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, 1, 0, 0, 0);
	ecp_test_ev(&s, 1, 0, ECP_EV_THREAD_START, 0, 0, 0x1000);
	ecp_test_ev(&s, 1, 0, ECP_EV_ONCE_BEGIN, 0xecb0000000000004ull, 0, 0);
	ecp_test_ev(&s, 1, 0, ECP_EV_ONCE_END, 0xecb0000000000004ull, 1, 0);
	ecp_test_ev(&s, 1, 10, ECP_EV_OMP_TASK_CREATE, 1, 0, 0x400);
	ecp_test_ev(&s, 1, 10, ECP_EV_OMP_TASKWAIT, 0, 0, 0);
	ecp_test_ev(&s, 1, 17, ECP_EV_OMP_TASK_BEGIN, 1, 0, 0);
	ecp_test_ev(&s, 1, 37, ECP_EV_OMP_TASK_END, 1, 0, 0);
	ecp_test_ev(&s, 1, 42, ECP_EV_OMP_TASKWAIT, 1, 0, 0);
	ecp_test_ev(&s, 1, 45, ECP_EV_OMP_TASKGROUP, 0, 0, 0);
	ecp_test_ev(&s, 1, 45, ECP_EV_OMP_TASK_CREATE, 2, 0, 0x500);
	ecp_test_ev(&s, 1, 47, ECP_EV_OMP_TASKGROUP, 1, 0, 0);
	ecp_test_ev(&s, 1, 51, ECP_EV_OMP_TASK_BEGIN, 2, 0, 0);
	ecp_test_ev(&s, 1, 57, ECP_EV_OMP_TASK_END, 2, 0, 0);
	ecp_test_ev(&s, 1, 58, ECP_EV_OMP_TASKGROUP, 2, 0, 0);
	ecp_test_ev(&s, 1, 58, ECP_EV_BARRIER_WAIT_BEGIN, 0xecb0000000000006ull, 0, 0);
	ecp_test_ev(&s, 1, 58, ECP_EV_BARRIER_WAIT_END, 0xecb0000000000006ull, 0, 0);
	ecp_test_ev(&s, 1, 63, ECP_EV_THREAD_EXIT, 0x1000, 0, 0);
	struct ecp_model *m = build_ok(&s);
	assert_int_equal(ecp_model_work(m), 10 + 20 + 3 + 2 + 6 + 5);
	assert_false(ecp_test_has_warning(m, "OpenMP tasks"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* libomp runs the tasks left at a region's end in its closing barrier,
 * which the agent writes as the worker's join post (no team barrier):
 * main makes three tasks of 30, 20 and 10 ns at 5 ns and runs the first;
 * the worker starts, posts its join and runs the other two; main joins
 * and runs 5 ns more.  The worker stays in the epoch until the join: the
 * tasks are dealt as at a barrier (the worker takes the 30, main the 20
 * and the 10), not kept as recorded, and the span is 5 + 30 + 5. */
static void test_tasks_after_join_post_dealt(void **state)
{
	(void)state;
	const uint64_t fork = 0xecb0000000000004ull, join = 0xecb0000000000005ull;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	/* the sched trace first: main runs to 35, the worker to 65 */
	ecp_test_switch(&s, 1, 0, 0, 0);
	ecp_test_switch(&s, 1, 35, 1, 1);
	ecp_test_switch(&s, 2, 35, 0, 0);
	ecp_test_switch(&s, 2, 65, 1, 0);
	ecp_test_switch(&s, 1, 65, 0, 0);
	ecp_test_ev(&s, 1, 0, ECP_EV_THREAD_START, 0, 0, 0x1000);
	ecp_test_ev(&s, 1, 0, ECP_EV_THREAD_CREATE, 1, 0x20, 1);
	ecp_test_ev(&s, 1, 0, ECP_EV_ONCE_BEGIN, fork, 0, 0);
	ecp_test_ev(&s, 1, 0, ECP_EV_ONCE_END, fork, 1, 0);
	for (uint64_t id = 1; id <= 3; id++)
		ecp_test_ev(&s, 1, 5, ECP_EV_OMP_TASK_CREATE, id, 0, 0x400);
	ecp_test_ev(&s, 1, 5, ECP_EV_OMP_TASK_BEGIN, 1, 0, 0);
	ecp_test_ev(&s, 1, 35, ECP_EV_OMP_TASK_END, 1, 0, 0);
	ecp_test_ev(&s, 2, 35, ECP_EV_THREAD_START, 1, 0x20, 0x2000);
	ecp_test_ev(&s, 2, 35, ECP_EV_ONCE_BEGIN, fork, 0, 0);
	ecp_test_ev(&s, 2, 35, ECP_EV_ONCE_END, fork, 0, 0);
	ecp_test_ev(&s, 2, 35, ECP_EV_SEM_POST, join, 0, 0);
	ecp_test_ev(&s, 2, 35, ECP_EV_OMP_TASK_BEGIN, 2, 0, 0);
	ecp_test_ev(&s, 2, 55, ECP_EV_OMP_TASK_END, 2, 0, 0);
	ecp_test_ev(&s, 2, 55, ECP_EV_OMP_TASK_BEGIN, 3, 0, 0);
	ecp_test_ev(&s, 2, 65, ECP_EV_OMP_TASK_END, 3, 0, 0);
	ecp_test_ev(&s, 1, 65, ECP_EV_SEM_WAIT_BEGIN, join, 0, 0);
	ecp_test_ev(&s, 1, 65, ECP_EV_SEM_WAIT_END, join, 0, 0);
	ecp_test_ev(&s, 1, 70, ECP_EV_THREAD_EXIT, 0x1000, 0, 0);
	struct ecp_model *m = build_ok(&s);
	assert_false(ecp_test_has_warning(m, "OpenMP tasks"));
	assert_int_equal(ecp_model_work(m), 70);
	struct ecp_dag dag;
	struct ecp_error err = {0};
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	assert_int_equal(dag.span, 40);
	ecp_dag_finish(&dag);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* An epoch kept as recorded (a lock in a task) where main runs a task
 * inside its taskwait (or taskgroup end, `group`): main makes A and B and
 * waits; it runs B, which makes C; the worker runs C (taking a lock), then
 * A.  The wait's join waits for A and B (and C) at the wait's end, after
 * B ran on main, not at its begin: there the edge A -> main's wait would
 * close a cycle through B's creation of C and the worker's order (C
 * before A). */
static void kept_wait_runs_tasks(bool group)
{
	const enum ecp_event_type w = group ? ECP_EV_OMP_TASKGROUP : ECP_EV_OMP_TASKWAIT;
	const uint64_t fork = 0xecb0000000000004ull, join = 0xecb0000000000005ull,
		       bar = 0xecb0000000000006ull;
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_switch(&s, 1, 0, 0, 0);
	ecp_test_switch(&s, 1, 12, 1, 0);
	ecp_test_switch(&s, 2, 12, 0, 0);
	ecp_test_switch(&s, 2, 30, 1, 0);
	ecp_test_switch(&s, 1, 30, 0, 0);
	ecp_test_switch(&s, 1, 32, 1, 0);
	ecp_test_switch(&s, 2, 32, 0, 0);
	ecp_test_switch(&s, 2, 33, 1, 0);
	ecp_test_switch(&s, 1, 33, 0, 0);
	ecp_test_ev(&s, 1, 0, ECP_EV_THREAD_START, 0, 0, 0x1000);
	ecp_test_ev(&s, 1, 0, ECP_EV_THREAD_CREATE, 1, 0x20, 1);
	ecp_test_ev(&s, 1, 0, ECP_EV_ONCE_BEGIN, fork, 0, 0);
	ecp_test_ev(&s, 1, 0, ECP_EV_ONCE_END, fork, 1, 0);
	if (group)
		ecp_test_ev(&s, 1, 4, w, 0, 0, 0);
	ecp_test_ev(&s, 1, 5, ECP_EV_OMP_TASK_CREATE, 1, 0, 0x400);
	ecp_test_ev(&s, 1, 5, ECP_EV_OMP_TASK_CREATE, 2, 0, 0x500);
	ecp_test_ev(&s, 1, 5, w, group ? 1 : 0, 0, 0);
	ecp_test_ev(&s, 1, 6, ECP_EV_OMP_TASK_BEGIN, 2, 0, 0);
	ecp_test_ev(&s, 1, 10, ECP_EV_OMP_TASK_CREATE, 3, 2, 0x600);
	ecp_test_ev(&s, 1, 12, ECP_EV_OMP_TASK_END, 2, 0, 0);
	ecp_test_ev(&s, 2, 12, ECP_EV_THREAD_START, 1, 0x20, 0x2000);
	ecp_test_ev(&s, 2, 12, ECP_EV_ONCE_BEGIN, fork, 0, 0);
	ecp_test_ev(&s, 2, 12, ECP_EV_ONCE_END, fork, 0, 0);
	ecp_test_ev(&s, 2, 12, ECP_EV_BARRIER_WAIT_BEGIN, bar, 0, 0);
	ecp_test_ev(&s, 2, 12, ECP_EV_OMP_TASK_BEGIN, 3, 0, 0);
	ecp_test_ev(&s, 2, 13, ECP_EV_LOCK_REQUEST, 0xa0, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, 2, 13, ECP_EV_LOCK_ACQUIRED, 0xa0, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, 2, 15, ECP_EV_LOCK_RELEASE, 0xa0, ECP_LOCK_MUTEX, 0);
	ecp_test_ev(&s, 2, 20, ECP_EV_OMP_TASK_END, 3, 0, 0);
	ecp_test_ev(&s, 2, 20, ECP_EV_OMP_TASK_BEGIN, 1, 0, 0);
	ecp_test_ev(&s, 2, 30, ECP_EV_OMP_TASK_END, 1, 0, 0);
	ecp_test_ev(&s, 1, 30, w, group ? 2 : 1, 0, 0);
	ecp_test_ev(&s, 1, 32, ECP_EV_BARRIER_WAIT_BEGIN, bar, 0, 0);
	ecp_test_ev(&s, 1, 32, ECP_EV_BARRIER_WAIT_END, bar, 0, 0);
	ecp_test_ev(&s, 2, 32, ECP_EV_BARRIER_WAIT_END, bar, 0, 0);
	ecp_test_ev(&s, 2, 32, ECP_EV_SEM_POST, join, 0, 0);
	ecp_test_ev(&s, 2, 33, ECP_EV_THREAD_EXIT, 0x2000, 0, 0);
	ecp_test_ev(&s, 1, 33, ECP_EV_SEM_WAIT_BEGIN, join, 0, 0);
	ecp_test_ev(&s, 1, 33, ECP_EV_SEM_WAIT_END, join, 0, 0);
	ecp_test_ev(&s, 1, 35, ECP_EV_THREAD_EXIT, 0x1000, 0, 0);
	struct ecp_model *m = build_ok(&s);
	assert_true(ecp_test_has_warning(m, "OpenMP tasks"));
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static struct tp_op taskwait(void)
{
	return (struct tp_op){.kind = TP_TASKWAIT};
}

/* The program recorded in `order` into s (initialised here) and built,
 * every task dealt (none kept as recorded); *span: the model's span. */
static struct ecp_model *build_dealt(const struct tp_program *p, uint64_t order,
				     struct ecp_test_seq *s, uint64_t *span)
{
	struct ecp_dag dag;
	struct ecp_error err = {0};
	ecp_test_seq_init(s);
	tp_record(p, order, s);
	struct ecp_model *m = build_ok(s);
	assert_false(ecp_test_has_warning(m, "OpenMP tasks"));
	assert_int_equal(ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err), 0);
	*span = dag.span;
	ecp_dag_finish(&dag);
	return m;
}

/* A branch of a task tree that only its own thread may run under libgomp
 * (a waiting thread runs only its own task's children) and that another
 * thread shares under libomp (it runs any ready descendant): main makes A
 * and B and waits; A makes A1 and A2 (10 ns each) and waits; B is 1 ns.
 * The second thread, in the barrier, takes A; main runs B (libgomp: its
 * newest child; libomp: its only ready one), then waits for A.  libgomp:
 * A's thread runs A2 then A1, main idles: span 20.  libomp: main runs A2
 * beside A1: span 11.  Both recorded in two orders. */
static void test_runtime_rules(void **state)
{
	(void)state;
	struct tp_op ops[] = {task(1),    task(2), taskwait(), task(3), task(4),
			      taskwait(), work(1), work(10),   work(10)};
	struct tp_body b[] = {
	    {ops, 3}, {ops + 3, 3}, {ops + 6, 1}, {ops + 7, 1}, {ops + 8, 1}};
	for (int libomp = 0; libomp < 2; libomp++)
		for (uint64_t order = 0; order < 2; order++) {
			struct tp_program p = {b, 5, 2, libomp};
			struct ecp_test_seq s;
			uint64_t span;
			struct ecp_model *m = build_dealt(&p, order, &s, &span);
			assert_int_equal(ecp_model_work(m), 21);
			assert_int_equal(span, libomp ? 11 : 20);
			assert_int_equal(tp_oracle(&p, 0), libomp ? 11 : 20);
			ecp_model_destroy(m);
			ecp_test_seq_finish(&s);
		}
}

/* The tie check of the deal (task-deal.c): main makes C, works 20 us,
 * makes A and B and waits; A makes A1 and A2 (10 us each) and waits; B
 * is 0.1 us; a team of two, under libgomp.  The second thread takes C at
 * once.  When C ends before main has run B, it takes A from the barrier,
 * and main, which may run only its own children, waits for it: span 40
 * us.  When C ends later, main takes A itself after B and runs A2 while
 * the second thread runs A1: span 30.1 us.  C of 20 us ties with
 * main's 20 us, and the deal's draws (lengths moved by up to 300 ns
 * each, or 1 us all) fall on both sides: the model says so.  C of 10 or 30 us is clear of
 * the tie and is not called one, though the draws' lengths move the
 * span too (each draw's deal is timed on the recorded lengths).  The
 * deal itself spans 40 us in all three (with C of 30 us the second
 * thread runs A1 from 30 to 40 us). */
static void test_near_tie_warned(void **state)
{
	(void)state;
	const uint64_t us = 1000;
	const struct {
		uint64_t c;
		bool tie;
	} cases[] = {{20 * us, true}, {10 * us, false}, {30 * us, false}};
	unsigned checked = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (uint64_t order = 0; order < 2; order++) {
			struct tp_op ops[] = {
			    task(1),    work(20 * us),    task(2),       task(3),
			    taskwait(), work(cases[i].c), task(4),       task(5),
			    taskwait(), work(us / 10),    work(10 * us), work(10 * us)};
			struct tp_body b[] = {{ops, 5},     {ops + 5, 1},  {ops + 6, 3},
					      {ops + 9, 1}, {ops + 10, 1}, {ops + 11, 1}};
			struct tp_program p = {b, 6, 2, false};
			struct ecp_test_seq s;
			uint64_t span;
			struct ecp_model *m = build_dealt(&p, order, &s, &span);
			if (span != 40 * us)
				fail_msg("C %llu ns: span %llu ns, want 40 us",
					 (unsigned long long)cases[i].c,
					 (unsigned long long)span);
			if (ecp_test_has_warning(m, "near tie in the OpenMP task deal") !=
			    cases[i].tie) {
				for (size_t w = 0; w < m->n_warnings; w++)
					print_message("%s\n", m->warnings[w]);
				fail_msg("C %llu ns: near tie %s",
					 (unsigned long long)cases[i].c,
					 cases[i].tie ? "not warned" : "warned");
			}
			/* the other deal, timed on the recorded lengths: main
			 * runs B to 20.1 us, then A and A2 to 30.1 us, the
			 * second thread A1 from 20.1 to 30.1 us */
			if (cases[i].tie)
				assert_true(ecp_test_has_warning(
				    m, "take 0.0301 to 0.04 ms on their teams' own CPUs "
				       "instead of 0.04 ms"));
			ecp_model_destroy(m);
			ecp_test_seq_finish(&s);
			checked++;
		}
	assert_int_equal(checked, 6);
}

/* The figures of the near-tie warning, parsed: the deal's time on the
 * teams' own CPUs and on two (0: not given). */
static bool tie_figures(const struct ecp_model *m, double *own_ms, double *two_ms)
{
	for (size_t w = 0; w < m->n_warnings; w++) {
		const char *at = strstr(m->warnings[w], "own CPUs instead of ");
		if (!at || sscanf(at, "own CPUs instead of %lf ms", own_ms) != 1)
			continue;
		const char *two = strstr(m->warnings[w], "on two CPUs instead of ");
		*two_ms = 0;
		if (two && sscanf(two, "on two CPUs instead of %lf ms", two_ms) != 1)
			fail_msg("unreadable: %s", m->warnings[w]);
		return true;
	}
	return false;
}

/* What the warning says the deal takes is what the support oracle (an
 * independent deal, tests/support/task-program.c) computes on the same
 * program: on the team's own CPUs and, for teams over two, on two under
 * ideal sharing (printed to 4 digits).  Random programs of 2 to 4
 * threads, lengths up to 1 us: most sit on ties. */
static void test_near_tie_figures_against_oracle(void **state)
{
	(void)state;
	unsigned checked = 0, warned = 0, with_two = 0;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct tp_program p;
		tp_random(&p, seed, 12, 1000);
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		tp_record(&p, 0, &s);
		struct ecp_model *m = build_ok(&s);
		double own, two;
		if (tie_figures(m, &own, &two)) {
			double want = tp_oracle(&p, 0) / 1e6,
			       want2 = tp_oracle(&p, 2) / 1e6;
			if (fabs(own - want) > 6e-4 * want)
				fail_msg("seed %llu: own CPUs %.6g ms, the oracle %.6g",
					 (unsigned long long)seed, own, want);
			if (p.n_threads > 2) {
				if (fabs(two - want2) > 6e-4 * want2)
					fail_msg("seed %llu: two CPUs %.6g ms, the "
						 "oracle %.6g",
						 (unsigned long long)seed, two, want2);
				with_two++;
			} else {
				assert_true(two == 0);
			}
			warned++;
		}
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
		tp_free(&p);
		checked++;
	}
	print_message("%u programs, %u warned, %u with two CPUs\n", checked, warned,
		      with_two);
	assert_int_equal(checked, 300);
	assert_true(warned >= 100);
	assert_true(with_two >= 50);
}

static void test_kept_taskwait_runs_tasks(void **state)
{
	(void)state;
	kept_wait_runs_tasks(false);
}

static void test_kept_taskgroup_runs_tasks(void **state)
{
	(void)state;
	kept_wait_runs_tasks(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tasks_dealt_again),
	    cmocka_unit_test(test_recorded_order_does_not_matter),
	    cmocka_unit_test(test_lock_in_task_kept),
	    cmocka_unit_test(test_lossy_trace_kept),
	    cmocka_unit_test(test_spawn_sites),
	    cmocka_unit_test(test_task_wait_spin_not_work),
	    cmocka_unit_test(test_tasks_after_join_post_dealt),
	    cmocka_unit_test(test_runtime_rules),
	    cmocka_unit_test(test_near_tie_warned),
	    cmocka_unit_test(test_near_tie_figures_against_oracle),
	    cmocka_unit_test(test_kept_taskwait_runs_tasks),
	    cmocka_unit_test(test_kept_taskgroup_runs_tasks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
