/* SPDX-License-Identifier: MIT */
/* OpenMP tasks built by GCC: libgomp's GOMP_task, GOMP_taskloop{,_ull},
 * GOMP_taskwait and GOMP_taskgroup_{start,end}, written as the task events
 * of recorder/EVENTS.md ("OpenMP tasks"), which the model builder turns into
 * a task graph dealt out again at every P (simulator/trace/builder-tasks.c).
 *
 * A task's creation and its body are seen through what libgomp is given:
 *  - `cpyfn`: libgomp calls it once per task it makes, on the creating
 *    thread, while making it (into the block it queues for a deferred task,
 *    into a block on its stack for an undeferred one; once per task for a
 *    taskloop), so the agent always passes its own (task_copy): it numbers
 *    the task, writes omp_task_create and omp_task_dep, and fills the block
 *    with a header and the program's data, copied by the program's cpyfn
 *    when it has one, by memcpy as libgomp would otherwise;
 *  - `fn`: task_run reads the header, writes omp_task_begin, calls the
 *    program's function on its data, writes omp_task_end.
 * The block is the header, then the program's data at an offset that keeps
 * its alignment: arg_size grows by that offset, arg_align is at least the
 * header's.  libgomp writes a taskloop task's bounds into the block's first
 * two words: the header leaves them free, and task_run moves them into the
 * program's data, where the outlined function reads them.  `depend`,
 * `priority`, `if`, the flags and everything else are passed unchanged.
 *
 * Under LLVM's libomp, which exports these entry points too, nothing is
 * wrapped: its OMPT interface reports the tasks (agent-ompt-task.c).
 *
 * Left unwrapped, and named in an `unmodelled` event: detachable tasks
 * (libgomp writes the event's handle into `data`, which must then be the
 * program's), taskloops with a reduction (libgomp reads `data`'s head) and
 * taskwait with depend clauses. */
#include <stddef.h>
#include <string.h>

#include "recorder/agent/agent-omp.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

/* libgomp's flags (GOMP_task, GOMP_taskloop) that matter here. */
#define GOMP_FLAG_FINAL     2u
#define GOMP_FLAG_DEPEND    8u
#define GOMP_FLAG_IF        1024u
#define GOMP_FLAG_NOGROUP   2048u
#define GOMP_FLAG_REDUCTION 4096u
#define GOMP_FLAG_DETACH    8192u

/* omp_task_create's flags (EVENTS.md) */
#define TASK_UNDEFERRED 1u
#define TASK_LOOP       2u

/* What the wrappers give libgomp as `data`: task_copy's source, on the
 * wrapper's stack (libgomp copies from it before it returns). */
struct task_src {
	void *data;
	void (*cpyfn)(void *, void *);
	void (*fn)(void *);
	long size;  /* the program's arg_size */
	size_t off; /* where the program's data begins in a task's block */
	uint64_t parent, site;
	void **depend; /* NULL: none */
	uint8_t flags; /* omp_task_create's */
	bool final;    /* the tasks made are final */
};

/* The head of every task's block. */
struct task_hdr {
	uint64_t bounds[2]; /* a taskloop task's: written here by libgomp */
	void (*fn)(void *);
	uint64_t id;
	size_t off;
	bool loop, final;
};

static uint64_t next_task = 1;
static int seen_detach, seen_loop_reduction, seen_wait_depend;

/* One omp_task_dep per depend item.  libgomp's layout: depend[0] != 0 (the
 * old form): depend[0] items, the first depend[1] of them out/inout, from
 * depend[2].  depend[0] == 0: depend[1] items, depend[2] out/inout, then
 * depend[3] mutexinoutset, then depend[4] in, from depend[5]; the rest are
 * depend objects, each {address, kind} with libgomp's kinds 1 in, 2 out,
 * 3 inout, 4 mutexinoutset, 5 inoutset. */
ECP_AGENT_FN static void write_deps(uint64_t id, void **depend)
{
	uintptr_t n = (uintptr_t)depend[0];
	if (n) {
		uintptr_t nout = (uintptr_t)depend[1];
		for (uintptr_t i = 0; i < n; i++)
			ECP_TP(omp_task_dep, id, (uint64_t)(uintptr_t)depend[2 + i],
			       i < nout ? 2 : 1, ecp_cpu_ns());
		return;
	}
	n = (uintptr_t)depend[1];
	uintptr_t nout = (uintptr_t)depend[2], nmut = (uintptr_t)depend[3];
	uintptr_t normal = nout + nmut + (uintptr_t)depend[4];
	for (uintptr_t i = 0; i < n; i++) {
		uint64_t addr;
		uint8_t kind;
		if (i < normal) {
			addr = (uint64_t)(uintptr_t)depend[5 + i];
			kind = i < nout ? 2 : i < nout + nmut ? 3 : 1;
		} else {
			void **d = (void **)depend[5 + i];
			uintptr_t k = (uintptr_t)d[1];
			addr = (uint64_t)(uintptr_t)d[0];
			kind = k == 1 ? 1 : k == 2 ? 2 : 3;
		}
		ECP_TP(omp_task_dep, id, addr, kind, ecp_cpu_ns());
	}
}

/* libgomp's cpyfn: one task made, on the creating thread. */
ECP_AGENT_FN static void task_copy(void *dst, void *src)
{
	struct task_src *s = src;
	struct task_hdr *h = dst;
	struct ecp_thread *t;
	if (s->cpyfn)
		s->cpyfn((char *)dst + s->off, s->data);
	else
		memcpy((char *)dst + s->off, s->data, (size_t)s->size);
	h->fn = s->fn;
	h->id = __atomic_fetch_add(&next_task, 1, __ATOMIC_RELAXED);
	h->off = s->off;
	h->loop = (s->flags & TASK_LOOP) != 0;
	h->final = s->final;
	if (!(t = ecp_enter()))
		return;
	ECP_TP(omp_task_create, h->id, s->parent, s->site, s->flags, ecp_cpu_ns());
	if (s->depend)
		write_deps(h->id, s->depend);
	ecp_leave(t);
}

/* libgomp's fn: a task's body, on the thread that runs it. */
ECP_AGENT_FN static void task_run(void *arg)
{
	struct task_hdr *h = arg;
	char *data = (char *)arg + h->off;
	uint64_t outer = ecp_omp_task;
	bool outer_final = ecp_omp_final;
	struct ecp_thread *t;
	if (h->loop)
		memcpy(data, h->bounds, sizeof(h->bounds));
	ecp_omp_task = h->id;
	ecp_omp_final = h->final;
	if ((t = ecp_enter())) {
		ECP_TP(omp_task_begin, h->id, ecp_cpu_ns());
		ecp_leave(t);
	}
	/* GCC does not instrument the function it outlines from the construct
	 * (main._omp_fn.1): a call here charges the body's time to it. */
	__cyg_profile_func_enter((void *)(uintptr_t)h->fn, __builtin_return_address(0));
	h->fn(data);
	__cyg_profile_func_exit((void *)(uintptr_t)h->fn, __builtin_return_address(0));
	if ((t = ecp_enter())) {
		ECP_TP(omp_task_end, h->id, ecp_cpu_ns());
		ecp_leave(t);
	}
	ecp_omp_task = outer;
	ecp_omp_final = outer_final;
}

/* Fills s for tasks of fn/data/cpyfn; returns the block's alignment and
 * sets *size to its size. */
ECP_AGENT_FN static long task_src_init(struct task_src *s, void (*fn)(void *), void *data,
				       void (*cpyfn)(void *, void *), long arg_size,
				       long arg_align, long *size)
{
	long align = arg_align < (long)_Alignof(struct task_hdr)
			 ? (long)_Alignof(struct task_hdr)
			 : arg_align;
	s->data = data;
	s->cpyfn = cpyfn;
	s->fn = fn;
	s->size = arg_size;
	s->off = (sizeof(struct task_hdr) + (size_t)align - 1) & ~((size_t)align - 1);
	s->parent = ecp_omp_task;
	s->depend = NULL;
	*size = (long)s->off + arg_size;
	return align;
}

ECP_AGENT_FN static void write_phase(bool taskgroup, uint8_t phase)
{
	struct ecp_thread *t = ecp_omp_enter();
	if (!t)
		return;
	if (taskgroup)
		ECP_TP(omp_taskgroup, phase, ecp_cpu_ns());
	else
		ECP_TP(omp_taskwait, phase, ecp_cpu_ns());
	ecp_leave(t);
}

ECP_AGENT_API void GOMP_task(void (*fn)(void *), void *data,
			     void (*cpyfn)(void *, void *), long arg_size, long arg_align,
			     bool if_clause, unsigned flags, void **depend, int priority,
			     void *detach);
ECP_AGENT_API void GOMP_task(void (*fn)(void *), void *data,
			     void (*cpyfn)(void *, void *), long arg_size, long arg_align,
			     bool if_clause, unsigned flags, void **depend, int priority,
			     void *detach)
{
	__typeof__(&GOMP_task) real = OMP_REAL(GOMP_task);
	struct task_src s;
	long size, align;
	if (flags & GOMP_FLAG_DETACH)
		ecp_omp_unmodelled("OpenMP detachable task", &seen_detach);
	if ((flags & GOMP_FLAG_DETACH) || !ecp_self || ecp_omp_is_libomp()) {
		real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
		     priority, detach);
		return;
	}
	align = task_src_init(&s, fn, data, cpyfn, arg_size, arg_align, &size);
	s.site = (uint64_t)(uintptr_t)__builtin_return_address(0);
	s.depend = (flags & GOMP_FLAG_DEPEND) && depend ? depend : NULL;
	s.flags =
	    !if_clause || !ecp_omp_in_region() || ecp_omp_final ? TASK_UNDEFERRED : 0;
	s.final = ecp_omp_final || (flags & GOMP_FLAG_FINAL);
	real(task_run, &s, task_copy, size, align, if_clause, flags, depend, priority,
	     detach);
}

/* A taskloop makes its tasks inside a taskgroup of its own unless nogroup:
 * libgomp opens and closes it by internal calls no hook sees, so the
 * wrapper writes them, the end's wait after libgomp returns (the tasks
 * this thread ran meanwhile are in the trace as tasks all the same). */
#define TASKLOOP(name, type)                                                             \
	ECP_AGENT_API void name(void (*fn)(void *), void *data,                          \
				void (*cpyfn)(void *, void *), long arg_size,            \
				long arg_align, unsigned flags, unsigned long num_tasks, \
				int priority, type start, type end, type step);          \
	ECP_AGENT_API void name(void (*fn)(void *), void *data,                          \
				void (*cpyfn)(void *, void *), long arg_size,            \
				long arg_align, unsigned flags, unsigned long num_tasks, \
				int priority, type start, type end, type step)           \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL(name);                                 \
		struct task_src s;                                                       \
		long size, align;                                                        \
		bool group = !(flags & GOMP_FLAG_NOGROUP);                               \
		if (flags & GOMP_FLAG_REDUCTION)                                         \
			ecp_omp_unmodelled("OpenMP taskloop reduction",                  \
					   &seen_loop_reduction);                        \
		if ((flags & GOMP_FLAG_REDUCTION) || !ecp_self || ecp_omp_is_libomp()) { \
			real(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,     \
			     priority, start, end, step);                                \
			return;                                                          \
		}                                                                        \
		align = task_src_init(&s, fn, data, cpyfn, arg_size, arg_align, &size);  \
		s.site = (uint64_t)(uintptr_t)__builtin_return_address(0);               \
		s.flags = TASK_LOOP;                                                     \
		if (!(flags & GOMP_FLAG_IF) || !ecp_omp_in_region() || ecp_omp_final)    \
			s.flags |= TASK_UNDEFERRED;                                      \
		s.final = ecp_omp_final || (flags & GOMP_FLAG_FINAL);                    \
		if (group)                                                               \
			write_phase(true, 0);                                            \
		real(task_run, &s, task_copy, size, align, flags, num_tasks, priority,   \
		     start, end, step);                                                  \
		if (group) {                                                             \
			write_phase(true, 1);                                            \
			write_phase(true, 2);                                            \
		}                                                                        \
	}
TASKLOOP(GOMP_taskloop, long)
TASKLOOP(GOMP_taskloop_ull, unsigned long long)

/* The waits: the guard is down while libgomp waits, as the tasks it runs
 * meanwhile are program code. */
ECP_AGENT_API void GOMP_taskwait(void);
ECP_AGENT_API void GOMP_taskwait(void)
{
	__typeof__(&GOMP_taskwait) real = OMP_REAL(GOMP_taskwait);
	write_phase(false, 0);
	real();
	write_phase(false, 1);
}

ECP_AGENT_API void GOMP_taskgroup_start(void);
ECP_AGENT_API void GOMP_taskgroup_start(void)
{
	write_phase(true, 0);
	OMP_REAL(GOMP_taskgroup_start)();
}

ECP_AGENT_API void GOMP_taskgroup_end(void);
ECP_AGENT_API void GOMP_taskgroup_end(void)
{
	__typeof__(&GOMP_taskgroup_end) real = OMP_REAL(GOMP_taskgroup_end);
	write_phase(true, 1);
	real();
	write_phase(true, 2);
}

ECP_AGENT_API void GOMP_taskwait_depend(void **depend);
ECP_AGENT_API void GOMP_taskwait_depend(void **depend)
{
	ecp_omp_unmodelled("OpenMP taskwait depend", &seen_wait_depend);
	OMP_REAL(GOMP_taskwait_depend)(depend);
}
