/* SPDX-License-Identifier: MIT */
/* OpenMP programs built with clang (LLVM's libomp), through the OpenMP
 * tools interface: libomp looks `ompt_start_tool` up in the process when it
 * initializes, and the preloaded agent's definition comes first.  Its
 * callbacks are written as the same events as libgomp's ABI gives
 * (agent-omp.c; recorder/EVENTS.md, "OpenMP"), on the same objects:
 *
 *  - the fork (parallel_begin, on the encountering thread): sem_init of the
 *    team's ordered semaphore and a once run; every other member, as its
 *    implicit task begins, waits on that once;
 *  - the join: libomp reports a worker's implicit task end (and the end of
 *    its closing barrier) only when the thread is woken for its next region,
 *    so the worker's post is written when it reaches the region's closing
 *    barrier (its share has returned), and the master takes one token per
 *    member when its own implicit task ends, past that barrier;
 *  - the other barriers (explicit, those of loop and single ends, the
 *    runtime's own for reductions): barrier_wait_begin/end on the team's
 *    barrier object;
 *  - locks, critical, atomic and ordered: agent-ompt-sync.c; the chunks of
 *    dynamic and guided loops: agent-kmpc.c (libomp's dispatch callback is
 *    never set); explicit tasks, taskwait, taskgroup: agent-ompt-task.c
 *    (the task events; named unmodelled until the model builds them);
 *  - teams, distribute, doacross and cancel: named, not modelled.
 *
 * LLVM 14 reports a region's closing barrier and a worksharing construct's
 * as the same kind (barrier_implicit): the closing one is told apart by its
 * code pointer, NULL on a worker and the fork's own on the master (a
 * construct's barrier carries its call site in the outlined function).
 *
 * Nothing here runs unless libomp starts the tool, and only in the process
 * `ecp record` started; a tool of the program's own (another
 * ompt_start_tool in the process) is started instead of this one, and then
 * the program is recorded through the pthread calls libomp makes, as
 * without OMPT.  OMP_TOOL_LIBRARIES is libomp's to honour only when no tool
 * is found in the process: with it set the agent also stands aside. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/agent/agent-ompt.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

int ecp_ompt_active;
/* libomp did call ompt_start_tool and the agent declined, or the runtime
 * could not give the callbacks the model needs. */
static int refused;

/* The implicit tasks this thread is in, innermost last; deeper nesting is
 * counted, not recorded. */
#define TEAM_DEPTH 16
static __thread struct ompt_team teams[TEAM_DEPTH]
    __attribute__((tls_model("initial-exec")));
static __thread unsigned depth __attribute__((tls_model("initial-exec")));
/* The code pointer of the region this thread just forked, for its own
 * implicit task in it (which begins next on this thread). */
static __thread const void *fork_ra __attribute__((tls_model("initial-exec")));

ECP_AGENT_FN struct ompt_team *ecp_ompt_team(void)
{
	unsigned d = depth;
	if (!d || d > TEAM_DEPTH || !teams[d - 1].team)
		return 0;
	return &teams[d - 1];
}

/* The thread whose guard a wait holds (ecp_ompt_hold), or NULL. */
static __thread struct ecp_thread *held __attribute__((tls_model("initial-exec")));

ECP_AGENT_FN struct ecp_thread *ecp_ompt_hold(void)
{
	struct ecp_thread *t;
	if (held) /* a wait inside a wait: the outer one keeps the guard */
		return 0;
	t = ecp_enter();
	held = t;
	return t;
}

ECP_AGENT_FN struct ecp_thread *ecp_ompt_unhold(void)
{
	struct ecp_thread *t = held;
	held = 0;
	return t;
}

ECP_AGENT_FN void ecp_ompt_unmodelled(const char *name)
{
	struct ecp_thread *t = ecp_enter();
	if (t) {
		ecp_unmodelled(name);
		ecp_leave(t);
	}
}

/* ------------------------------------------------------------ fork, join */

ECP_AGENT_FN static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame,
					   ompt_data_t *parallel, unsigned requested,
					   int flags, const void *ra)
{
	struct ecp_thread *t;
	uint64_t id;
	(void)task;
	(void)frame;
	(void)requested;
	if (!parallel)
		return;
	parallel->value = 0;
	if (flags & OMPT_PARALLEL_LEAGUE) {
		ecp_ompt_unmodelled("OpenMP teams");
		return;
	}
	if (!(t = ecp_enter()))
		return;
	id = ecp_omp_new_team();
	parallel->value = id;
	fork_ra = ra;
	ECP_TP(sem_init, OMP_OBJ(id, OBJ_ORDERED), 1, ecp_cpu_ns());
	ECP_TP(once_begin, OMP_OBJ(id, OBJ_FORK), ecp_cpu_ns());
	ECP_TP(once_end, OMP_OBJ(id, OBJ_FORK), 1, ecp_cpu_ns());
	ecp_leave(t);
}

ECP_AGENT_FN static void team_enter(uint64_t team, unsigned n, unsigned index)
{
	unsigned d = depth++;
	struct ecp_thread *t;
	if (d >= TEAM_DEPTH)
		return;
	memset(&teams[d], 0, sizeof(teams[d]));
	teams[d].team = team;
	teams[d].index = index;
	teams[d].nthreads = n;
	teams[d].fork_ra = index == 0 ? fork_ra : 0;
	if (team && index != 0 && (t = ecp_enter())) {
		ECP_TP(once_begin, OMP_OBJ(team, OBJ_FORK), ecp_cpu_ns());
		ECP_TP(once_end, OMP_OBJ(team, OBJ_FORK), 0, ecp_cpu_ns());
		ecp_leave(t);
	}
}

/* After a join, libomp frees a team that is not kept (a nested one) and
 * waits for its workers to be asleep in a loop that neither sleeps nor
 * yields; on the one recording CPU the workers, woken but not yet run,
 * cannot get there until the master's time slice ends, and the master's
 * spin (several ms, as much as the scheduler gives it) is recorded as the
 * work of the function that opened the region.  Yielding here lets them
 * run first: on P CPUs they would already be there. */
ECP_AGENT_FN static void join_yield(void)
{
	int saved = errno;
	ECP_REAL(sched_yield)();
	errno = saved;
}

/* The master, past the closing barrier: one token per other member. */
ECP_AGENT_FN static void team_leave(void)
{
	struct ompt_team *m = ecp_ompt_team();
	struct ecp_thread *t;
	if (depth)
		depth--;
	if (!m || m->index != 0 || !(t = ecp_enter()))
		return;
	for (unsigned i = 1; i < m->nthreads; i++) {
		ECP_TP(sem_wait_begin, OMP_OBJ(m->team, OBJ_JOIN), 0, ecp_cpu_ns());
		ECP_TP(sem_wait_end, OMP_OBJ(m->team, OBJ_JOIN), 0, ecp_cpu_ns());
	}
	ecp_leave(t);
	if (m->nthreads > 1)
		join_yield();
}

ECP_AGENT_FN static void on_implicit_task(int endpoint, ompt_data_t *parallel,
					  ompt_data_t *task, unsigned n, unsigned index,
					  int flags)
{
	/* the initial thread's implicit task, and the teams construct's */
	if (flags & OMPT_TASK_INITIAL)
		return;
	if (task)
		task->value = 0;
	if (endpoint == OMPT_SCOPE_BEGIN)
		team_enter(parallel ? parallel->value : 0, n, index);
	else if (endpoint == OMPT_SCOPE_END)
		team_leave();
}

/* ------------------------------------------------------------ barriers */

ECP_AGENT_FN static bool closing_barrier(const struct ompt_team *m, int kind,
					 const void *ra)
{
	if (kind == OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL)
		return true;
	if (kind != OMPT_SYNC_BARRIER_IMPLICIT && kind != OMPT_SYNC_BARRIER)
		return false;
	return !ra || (m->index == 0 && ra == m->fork_ra);
}

ECP_AGENT_FN static void barrier_begin(struct ompt_team *m, int kind, const void *ra)
{
	struct ecp_thread *t;
	if (closing_barrier(m, kind, ra)) {
		if (m->index != 0 && (t = ecp_enter())) {
			ECP_TP(sem_post, OMP_OBJ(m->team, OBJ_JOIN), ecp_cpu_ns());
			ecp_leave(t);
		}
	} else if ((t = ecp_ompt_hold())) {
		ECP_TP(barrier_wait_begin, OMP_OBJ(m->team, OBJ_BARRIER), ecp_cpu_ns());
	}
}

ECP_AGENT_FN static void barrier_end(struct ompt_team *m, int kind, const void *ra)
{
	struct ecp_thread *t;
	if (closing_barrier(m, kind, ra) || !(t = ecp_ompt_unhold()))
		return;
	ECP_TP(barrier_wait_end, OMP_OBJ(m->team, OBJ_BARRIER), 0, ecp_cpu_ns());
	ecp_leave(t);
}

ECP_AGENT_FN static void on_sync_region(int kind, int endpoint, ompt_data_t *parallel,
					ompt_data_t *task, const void *ra)
{
	struct ompt_team *m = ecp_ompt_team();
	(void)parallel;
	(void)task;
	switch (kind) {
	case OMPT_SYNC_TASKWAIT:
	case OMPT_SYNC_TASKGROUP:
		ecp_ompt_task_sync(kind, endpoint, false);
		return;
	case OMPT_SYNC_REDUCTION:
	case OMPT_SYNC_BARRIER_TEAMS:
		return;
	default:
		break;
	}
	if (!m)
		return;
	if (endpoint == OMPT_SCOPE_BEGIN)
		barrier_begin(m, kind, ra);
	else if (endpoint == OMPT_SCOPE_END)
		barrier_end(m, kind, ra);
}

/* A taskgroup's end waits in sync_region_wait (its sync_region spans the
 * whole group). */
ECP_AGENT_FN static void on_sync_wait(int kind, int endpoint, ompt_data_t *parallel,
				      ompt_data_t *task, const void *ra)
{
	(void)parallel;
	(void)task;
	(void)ra;
	if (kind == OMPT_SYNC_TASKGROUP)
		ecp_ompt_task_sync(kind, endpoint, true);
}

/* ------------------------------------------------------------ named, not modelled */

ECP_AGENT_FN static void on_work(int type, int endpoint, ompt_data_t *parallel,
				 ompt_data_t *task, uint64_t count, const void *ra)
{
	(void)parallel;
	(void)task;
	(void)count;
	(void)ra;
	if (type == OMPT_WORK_TASKLOOP)
		ecp_ompt_taskloop(endpoint);
	else if (type == OMPT_WORK_DISTRIBUTE)
		ecp_ompt_unmodelled("OpenMP teams");
}

ECP_AGENT_FN static void on_cancel(ompt_data_t *task, int flags, const void *ra)
{
	(void)task;
	(void)flags;
	(void)ra;
	ecp_ompt_unmodelled("OpenMP cancel");
}

/* ------------------------------------------------------------ start */

/* A callback the model cannot do without: false when the runtime will
 * never call it (then no tool, and the pthread calls carry the program). */
#define SET(set, event, fn)                                                              \
	((set)((event), (ompt_callback_t)(void (*)(void))(fn)) > OMPT_SET_NEVER)

ECP_AGENT_FN static int initialize(ompt_function_lookup_t lookup, int device,
				   ompt_data_t *data)
{
	ompt_set_callback_t set =
	    (ompt_set_callback_t)(void (*)(void))lookup("ompt_set_callback");
	int saved = errno;
	(void)device;
	(void)data;
	if (!set || !SET(set, OMPT_CB_PARALLEL_BEGIN, on_parallel_begin) ||
	    !SET(set, OMPT_CB_IMPLICIT_TASK, on_implicit_task) ||
	    !SET(set, OMPT_CB_SYNC_REGION, on_sync_region)) {
		__atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
		errno = saved;
		return 0;
	}
	ecp_ompt_register_sync(set);
	/* only to name constructs: the model does without them */
	(void)SET(set, OMPT_CB_WORK, on_work);
	(void)SET(set, OMPT_CB_SYNC_REGION_WAIT, on_sync_wait);
	(void)SET(set, OMPT_CB_CANCEL, on_cancel);
	ecp_ompt_register_tasks(set);
	__atomic_store_n(&ecp_ompt_active, 1, __ATOMIC_RELAXED);
	(void)ecp_ompt_runtime_call(0); /* libomp's range, found before any region */
	errno = saved;
	return 1;
}

ECP_AGENT_FN static void finalize(ompt_data_t *data)
{
	(void)data;
}

typedef ompt_start_tool_result_t *(*start_tool_fn)(unsigned, const char *);

ECP_AGENT_FN static bool same_object(void *a, void *b)
{
	Dl_info x, y;
	return dladdr(a, &x) && dladdr(b, &y) && x.dli_fbase == y.dli_fbase;
}

/* Another tool's ompt_start_tool after the agent's in the search order (not
 * libomp's own weak default, which finds nothing more). */
ECP_AGENT_FN static start_tool_fn other_tool(void)
{
	void *next = dlsym(RTLD_NEXT, "ompt_start_tool");
	void *rt = dlsym(RTLD_DEFAULT, "__kmpc_fork_call");
	start_tool_fn f;
	if (!next || (rt && same_object(next, rt)))
		return 0;
	memcpy(&f, &next, sizeof(f));
	return f;
}

ECP_AGENT_API ompt_start_tool_result_t *ompt_start_tool(unsigned int version,
							const char *runtime);
ECP_AGENT_API ompt_start_tool_result_t *ompt_start_tool(unsigned int version,
							const char *runtime)
{
	static ompt_start_tool_result_t result = {initialize, finalize, {0}};
	const char *pid = getenv("ECP_PID"), *libs = getenv("OMP_TOOL_LIBRARIES");
	ompt_start_tool_result_t *r = 0;
	int saved = errno;
	start_tool_fn other = other_tool();
	if (other) {
		r = other(version, runtime);
		ecp_ompt_unmodelled("OpenMP constructs (another OMPT tool is loaded)");
	} else if (libs && *libs) {
		ecp_ompt_unmodelled("OpenMP constructs (OMP_TOOL_LIBRARIES is set)");
	} else if (pid && strtoull(pid, 0, 10) == (unsigned long long)getpid()) {
		r = &result;
	}
	if (!r)
		__atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
	errno = saved;
	return r;
}

/* ------------------------------------------------------------ which runtime */

/* libomp is the runtime the GOMP_* wrappers would call: it is loaded, and
 * either no GOMP_* function comes after the agent (a clang-built program:
 * only the omp_*_lock wrappers are reached) or those that come are
 * libomp's own (a program GCC built, run on libomp's compatibility entry
 * points).  A libgomp loaded besides keeps its wrappers recording. */
ECP_AGENT_FN bool ecp_omp_is_libomp(void)
{
	static int known; /* 0: not asked yet; 1: libgomp (or none); 2: libomp */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (__atomic_load_n(&ecp_ompt_active, __ATOMIC_RELAXED))
		return true;
	if (!k) {
		int saved = errno;
		void *rt = dlsym(RTLD_DEFAULT, "__kmpc_fork_call");
		void *gomp = dlsym(RTLD_NEXT, "GOMP_parallel");
		k = rt && (!gomp || same_object(rt, gomp)) ? 2 : 1;
		errno = saved;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k == 2;
}

/* libomp's mapped segments, found once: [lo, hi). */
struct range {
	uintptr_t sym, lo, hi;
};

ECP_AGENT_FN static int find_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct range *r = arg, o = {r->sym, UINTPTR_MAX, 0};
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD)
			continue;
		o.lo = a < o.lo ? a : o.lo;
		o.hi = a + ph->p_memsz > o.hi ? a + ph->p_memsz : o.hi;
	}
	if (r->sym < o.lo || r->sym >= o.hi)
		return 0;
	*r = o;
	return 1;
}

/* libomp spins with sched_yield in its own waits (a worker starting, the
 * runtime initializing, a lock's back-off): with the tool running they are
 * inside constructs recorded as such, and naming the yield would only
 * mislead.  Without the tool they are named as before. */
ECP_AGENT_FN bool ecp_ompt_runtime_call(const void *caller)
{
	static struct range rt;
	static int known;
	if (__atomic_load_n(&refused, __ATOMIC_RELAXED) || !ecp_omp_is_libomp())
		return false;
	if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
		int saved = errno;
		struct range r = {(uintptr_t)dlsym(RTLD_DEFAULT, "__kmpc_fork_call"), 0,
				  0};
		if (r.sym)
			dl_iterate_phdr(find_segments, &r);
		rt = r;
		errno = saved;
		__atomic_store_n(&known, 1, __ATOMIC_RELEASE);
	}
	return (uintptr_t)caller >= rt.lo && (uintptr_t)caller < rt.hi;
}

/* libomp's own mutexes and condition variables, those its threads sleep
 * on and are woken with (a fork waking the team's workers, a closing
 * barrier waking the master): with the tool running, the constructs they
 * serve are recorded as such, and these would only split the master's
 * segments between the fork and the first task, keeping the epoch's tasks
 * from being dealt again (simulator/trace/builder-tasks.c).  libomp's
 * thread creation is still recorded. */
ECP_AGENT_FN bool ecp_ompt_own_call(const void *caller)
{
	return __atomic_load_n(&ecp_ompt_active, __ATOMIC_RELAXED) &&
	       ecp_ompt_runtime_call(caller);
}
