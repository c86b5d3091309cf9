/* SPDX-License-Identifier: MIT */
/* OpenMP task programs for tests of the task model (issue 37): a random
 * program, its recording on one CPU as the agent would write it (with a
 * chosen order of the CPU's time slices and of the tasks libgomp runs),
 * and an independent oracle of its run time on P processors.
 *
 * A program is one parallel region of `n_threads` threads whose master
 * runs body 0 (a `single`; the other threads go straight to the barrier
 * at the region's end).  A body is a list of ops: work, a task (made from
 * another body, with depend items on a few addresses, maybe undeferred),
 * taskwait, taskgroup start and end.
 *
 * The oracle deals the tasks out in work time as the model means (each
 * thread its own CPU; a task ready once made and its depend predecessors
 * done; undeferred tasks at once on their creator; events at one time
 * taken in thread order, the waiting threads looked at after each), by the
 * rules of the program's runtime:
 *  - libgomp: a thread at a taskwait runs the ready child of its task made
 *    ready last, or waits; at a taskgroup's end the group's ready task made
 *    ready last, or, when none of the group's tasks is ready or running,
 *    its own ready child made ready last; at the barrier the task made
 *    ready first;
 *  - libomp (`libomp` set: the recording marks its tasks as OMPT's): at a
 *    taskwait the oldest ready child of its task, at a taskgroup's end the
 *    oldest ready task of the group, otherwise the oldest ready descendant
 *    of its task; at the barrier the oldest ready task
 * and returns, from the threads' busy intervals, T_P = the integral over
 * work time of max(1, busy/P): under ideal processor sharing every busy
 * thread runs at min(1, P/busy). */
#ifndef ECP_TESTS_SUPPORT_TASK_PROGRAM_H
#define ECP_TESTS_SUPPORT_TASK_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/support/event-seq.h"

enum tp_kind { TP_WORK, TP_TASK, TP_TASKWAIT, TP_TG_START, TP_TG_END };

#define TP_MAX_DEPS 3

struct tp_op {
	uint8_t kind;
	bool undeferred; /* TP_TASK */
	uint32_t body;   /* TP_TASK: the task's body */
	uint64_t len;    /* TP_WORK */
	uint32_t n_deps; /* TP_TASK */
	uint64_t dep_addr[TP_MAX_DEPS];
	uint8_t dep_kind[TP_MAX_DEPS]; /* 1 in, 2 out, 3 inout */
};

struct tp_body {
	struct tp_op *ops;
	uint32_t n;
};

struct tp_program {
	struct tp_body *bodies;
	uint32_t n_bodies;
	uint32_t n_threads;
	bool libomp; /* recorded through OMPT (LLVM's libomp), else libgomp */
};

/* A random program from seed: up to `max_tasks` tasks, nesting depth 3,
 * work lengths in 0..max_len (small: ties everywhere), its runtime libomp
 * for odd seeds. */
void tp_random(struct tp_program *p, uint64_t seed, uint32_t max_tasks, uint64_t max_len);
void tp_free(struct tp_program *p);

/* The program recorded on one CPU into s: `order` picks the time slices
 * and the tasks the emulated runtime runs (0: in thread and creation
 * order; others: pseudo-random, any task OpenMP allows there).  Thread i is tid i + 1 (1:
 * main). */
void tp_record(const struct tp_program *p, uint64_t order, struct ecp_test_seq *s);

/* T_P of the program (processors 0: unlimited), by the oracle above. */
double tp_oracle(const struct tp_program *p, unsigned processors);

/* The program's total work (T_1). */
uint64_t tp_work(const struct tp_program *p);

/* The spawn site the recording gives a task of `body`: 0x4000 + body % 3,
 * so that tasks nest in tasks of their own site (a recursion). */
uint64_t tp_site(uint32_t body);

/* Work and span per spawn site (model.h, struct ecp_spawn_site), computed
 * on the program's structure: each task's subtree's span on unlimited
 * processors, the outermost tasks of a site summed.  Fills out (sorted by
 * site, at most max) and returns how many sites. */
struct tp_site {
	uint64_t site, tasks, work, span;
	uint64_t outermost; /* tasks with no ancestor made at the site */
};
uint32_t tp_spawn_sites(const struct tp_program *p, struct tp_site *out, uint32_t max);

#endif
