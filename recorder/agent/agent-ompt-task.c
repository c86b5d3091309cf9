/* SPDX-License-Identifier: MIT */
/* OpenMP explicit tasks of LLVM's libomp, through OMPT (task_create,
 * dependences, task_schedule, and the taskwait and taskgroup sync regions),
 * written as the task events of recorder/EVENTS.md ("OpenMP tasks"), the
 * same events libgomp's task entry points give:
 *
 *  - omp_task_create on the creating thread (task ids are the agent's own,
 *    process-unique, kept in OMPT's task data; an implicit task is 0), with
 *    one omp_task_dep per depend item right after it;
 *  - omp_task_begin when the task first runs (task_schedule to it), and
 *    omp_task_end when it completes, on the executing thread: a suspended
 *    task that resumes writes nothing, and the tasks a thread runs nest;
 *  - omp_taskwait 0/1 around a taskwait's sync region, omp_taskgroup 0 at
 *    the group's start, 1 and 2 around its end's wait.
 *
 * Waiting threads run tasks inside a barrier, taskwait or taskgroup wait,
 * where the agent's guard is held (ecp_ompt_hold): a task's body runs with
 * the guard lowered, so that its functions and waits are recorded, and the
 * wait it ran inside holds the guard again when it completes.
 *
 * The model deals these tasks out again as libgomp's
 * (simulator/trace/builder-tasks.c).  ECP_OMP_TASK_EVENTS=0 in the
 * environment turns the events off (the constructs are then named
 * `unmodelled`, as before the model read them); the guard is lowered in
 * task bodies either way. */
#include <stdlib.h>

#include "recorder/agent/agent-ompt.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

/* In OMPT's task data: the id, and whether the task has begun. */
#define BEGUN (1ull << 63)
/* omp_task_create's flags (recorder/EVENTS.md); FLAG_OMPT tells the model
 * that libomp's scheduler, not libgomp's, runs the task. */
enum { FLAG_UNDEFERRED = 1, FLAG_TASKLOOP = 2, FLAG_OMPT = 4 };
enum { DEP_IN = 1, DEP_OUT = 2, DEP_INOUT = 3, DEP_MUTEXINOUTSET = 4, DEP_INOUTSET = 7 };
enum { STATUS_COMPLETE = 1, STATUS_CANCEL = 3 };
enum { OMPT_TASK_MERGED = (int)0x80000000u };

static uint64_t next_task = 1;

ECP_AGENT_FN static bool task_events(void)
{
	static int on; /* 0: not read yet; 1: no; 2: yes */
	int v = __atomic_load_n(&on, __ATOMIC_RELAXED);
	if (!v) {
		const char *s = getenv("ECP_OMP_TASK_EVENTS");
		v = s && s[0] == '0' && !s[1] ? 1 : 2;
		__atomic_store_n(&on, v, __ATOMIC_RELAXED);
	}
	return v == 2;
}
#define TASK_TP(...)                                                                     \
	do {                                                                             \
		if (task_events())                                                       \
			ECP_TP(__VA_ARGS__, ecp_cpu_ns());                               \
	} while (0)

/* Taskloop constructs this thread is in (their tasks carry FLAG_TASKLOOP). */
static __thread unsigned in_taskloop __attribute__((tls_model("initial-exec")));
/* The waits the running tasks interrupted, innermost last: the thread each
 * held, or NULL (none, or deeper than the stack: then not held again). */
#define NEST_DEPTH 64
static __thread struct ecp_thread *interrupted[NEST_DEPTH]
    __attribute__((tls_model("initial-exec")));
static __thread unsigned nested __attribute__((tls_model("initial-exec")));

ECP_AGENT_FN static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame,
					ompt_data_t *task, int flags, int deps,
					const void *ra)
{
	struct ecp_thread *t;
	uint64_t id;
	uint8_t f = FLAG_OMPT;
	(void)frame;
	(void)deps;
	if (!task)
		return;
	task->value = 0;
	if (!(flags & OMPT_TASK_EXPLICIT))
		return;
	if (!task_events())
		ecp_ompt_unmodelled(in_taskloop ? "OpenMP taskloop" : "OpenMP task");
	if (!(t = ecp_enter()))
		return;
	id = __atomic_fetch_add(&next_task, 1, __ATOMIC_RELAXED);
	task->value = id;
	if (flags & (OMPT_TASK_UNDEFERRED | OMPT_TASK_MERGED))
		f |= FLAG_UNDEFERRED;
	if (in_taskloop)
		f |= FLAG_TASKLOOP;
	TASK_TP(omp_task_create, id, parent ? parent->value & ~BEGUN : 0,
		(uint64_t)(uintptr_t)ra, f);
	ecp_leave(t);
}

ECP_AGENT_FN static uint8_t dep_kind(int type)
{
	switch (type) {
	case DEP_IN:
		return 1;
	case DEP_OUT:
		return 2;
	default: /* inout; mutexinoutset and inoutset order at least as much */
		return 3;
	}
}

ECP_AGENT_FN static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps,
					int n)
{
	struct ecp_thread *t;
	uint64_t id = task ? task->value & ~BEGUN : 0;
	for (int i = 0; i < n; i++)
		if (deps[i].dependence_type == OMPT_DEP_SOURCE ||
		    deps[i].dependence_type == OMPT_DEP_SINK) {
			ecp_ompt_unmodelled("OpenMP doacross loop");
			return;
		}
	if (!id || !(t = ecp_enter()))
		return;
	for (int i = 0; i < n; i++)
		TASK_TP(omp_task_dep, id, (uint64_t)(uintptr_t)deps[i].variable.ptr,
			dep_kind(deps[i].dependence_type));
	ecp_leave(t);
}

/* The task begins: the wait it runs inside (if any) lets go of the guard. */
ECP_AGENT_FN static void task_begin(ompt_data_t *task)
{
	struct ecp_thread *held = ecp_ompt_unhold(), *t;
	if (held)
		ecp_leave(held);
	if (nested < NEST_DEPTH)
		interrupted[nested] = held;
	nested++;
	task->value |= BEGUN;
	if ((t = ecp_enter())) {
		TASK_TP(omp_task_begin, task->value & ~BEGUN);
		ecp_leave(t);
	}
}

ECP_AGENT_FN static void task_end(ompt_data_t *task)
{
	struct ecp_thread *t = ecp_enter();
	if (t) {
		TASK_TP(omp_task_end, task->value & ~BEGUN);
		ecp_leave(t);
	}
	if (!nested)
		return;
	nested--;
	if (nested < NEST_DEPTH && interrupted[nested])
		ecp_ompt_hold();
}

ECP_AGENT_FN static void on_task_schedule(ompt_data_t *prior, int status,
					  ompt_data_t *next)
{
	if (prior && (prior->value & BEGUN) &&
	    (status == STATUS_COMPLETE || status == STATUS_CANCEL))
		task_end(prior);
	if (next && next->value && !(next->value & BEGUN))
		task_begin(next);
}

/* A phase event of taskwait or taskgroup; `hold`: the wait begins (the
 * guard is held until it ends), else `release`: it ends. */
ECP_AGENT_FN static void phase(bool group, uint8_t ph, bool hold, bool release)
{
	struct ecp_thread *t = release ? ecp_ompt_unhold() : 0;
	if (!t && !(t = hold ? ecp_ompt_hold() : ecp_enter()))
		return;
	if (group)
		TASK_TP(omp_taskgroup, ph);
	else
		TASK_TP(omp_taskwait, ph);
	if (!hold)
		ecp_leave(t);
}

ECP_AGENT_FN void ecp_ompt_task_sync(int kind, int endpoint, bool wait)
{
	if (kind == OMPT_SYNC_TASKWAIT && !wait) {
		if (!task_events())
			ecp_ompt_unmodelled("OpenMP taskwait");
		if (endpoint == OMPT_SCOPE_BEGIN)
			phase(false, 0, true, false);
		else if (endpoint == OMPT_SCOPE_END)
			phase(false, 1, false, true);
	} else if (kind == OMPT_SYNC_TASKGROUP) {
		if (!task_events())
			ecp_ompt_unmodelled("OpenMP taskgroup");
		if (!wait && endpoint == OMPT_SCOPE_BEGIN)
			phase(true, 0, false, false);
		else if (wait && endpoint == OMPT_SCOPE_BEGIN)
			phase(true, 1, true, false);
		else if (wait && endpoint == OMPT_SCOPE_END)
			phase(true, 2, false, true);
	}
}

ECP_AGENT_FN void ecp_ompt_taskloop(int endpoint)
{
	if (endpoint == OMPT_SCOPE_BEGIN)
		in_taskloop++;
	else if (endpoint == OMPT_SCOPE_END && in_taskloop)
		in_taskloop--;
}

#define SET(event, fn) set((event), (ompt_callback_t)(void (*)(void))(fn))

ECP_AGENT_FN void ecp_ompt_register_tasks(ompt_set_callback_t set)
{
	SET(OMPT_CB_TASK_CREATE, on_task_create);
	SET(OMPT_CB_DEPENDENCES, on_dependences);
	SET(OMPT_CB_TASK_SCHEDULE, on_task_schedule);
}
