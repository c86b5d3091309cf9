/* SPDX-License-Identifier: MIT */
/* OpenMP programs built with GCC (libgomp), through the GOMP_* ABI that
 * compiled code calls (through the PLT, so a preloaded definition wins).
 *
 * libgomp synchronizes with futexes called by inline `syscall`
 * instructions, which no wrapper sees; what the compiled code asks for is
 * visible only at this ABI.  Each construct is written as the existing
 * event whose meaning it has (recorder/EVENTS.md, "OpenMP"), on objects of
 * its own (OMP_OBJ: non-canonical addresses, never a real one):
 *
 *  - the fork of a team: the encountering thread runs a `pthread_once`
 *    initializer (once_begin, once_end ran=1) and every other team member,
 *    as it enters the region, waits on that once (ran=0): one edge from the
 *    fork to each member, whatever the team size;
 *  - the join at the region's end: each member other than the master posts
 *    a semaphore when its share of the region returns; the master, after
 *    the region, takes one token per member.  The pool's threads are reused
 *    across regions, but only these edges tie them to the master, so a
 *    thread's idle time between two regions creates no dependency;
 *  - barriers (explicit, and the implicit ones of loop/sections ends): a
 *    barrier object per team instance; the builder closes a round when the
 *    first thread leaves it, which a real barrier allows only once all
 *    arrived;
 *  - critical (unnamed: one object; named: the name's lock variable),
 *    atomic (libgomp's one global lock) and omp_*_lock / omp_*_nest_lock:
 *    mutexes (nest locks recursive);
 *  - ordered: a semaphore per team with one initial token, taken by each
 *    ordered block and posted at its end, so the blocks keep their order;
 *  - dynamic and guided loops, and sections: each chunk or section handed
 *    out (omp_chunk), for the model builder to deal out again
 *    (simulator/trace/builder-omp.c).
 *
 * master/masked compile to a test of omp_get_thread_num() and single to a
 * GOMP_single_start whose result picks the thread, with the barrier after
 * it a GOMP_barrier call: nothing more to record.  Tasks, taskwait,
 * taskgroup and taskloop have events of their own (agent-omp-task.c); so
 * that the tasks still queued at a region's end run inside a barrier the
 * trace shows, every member passes an explicit barrier at the end of its
 * share before the join (libgomp's own closing barrier then finds the team
 * there already).  Constructs the model cannot represent (runtime
 * schedules, copyprivate, doacross, cancellation, teams) are named once
 * each in an `unmodelled` event.
 *
 * The guard is not held while libgomp waits in a barrier or taskwait:
 * waiting threads run queued tasks there, which is program code.
 *
 * LLVM's libomp exports these entry points too (for programs GCC built)
 * and the omp_*_lock functions clang-built programs call: with libomp the
 * wrappers here record nothing, and its OMPT interface does
 * (agent-ompt.c). */
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "recorder/agent/agent-omp.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

enum { OBJ_CRITICAL = 0, OBJ_ATOMIC = 1 }; /* of team 0 */
enum { KIND_MUTEX = 0 };
enum { TYPE_NORMAL = 0, TYPE_RECURSIVE = 1 };

/* One instance of a parallel region, on the encountering thread's stack
 * (it outlives the region: GOMP_parallel returns after the join). */
struct region {
	void (*fn)(void *);
	void *data;
	uint64_t id;
	unsigned nthreads; /* the team's size, learnt inside the region */
};

static __thread struct region *cur_region __attribute__((tls_model("initial-exec")));
/* Dynamic loops of the current region this thread has entered, and whether
 * it is inside one (between its first chunk and the `done`). */
static __thread uint32_t loop_seq __attribute__((tls_model("initial-exec")));
static __thread bool in_loop __attribute__((tls_model("initial-exec")));
/* TSC when this thread's last omp_chunk was written. */
static __thread uint64_t chunk_tsc __attribute__((tls_model("initial-exec")));
static uint64_t next_region = 1;

__thread uint64_t ecp_omp_task __attribute__((tls_model("initial-exec")));
__thread bool ecp_omp_final __attribute__((tls_model("initial-exec")));

ECP_AGENT_FN bool ecp_omp_in_region(void)
{
	return cur_region != 0;
}

ECP_AGENT_FN uint64_t ecp_omp_new_team(void)
{
	return __atomic_fetch_add(&next_region, 1, __ATOMIC_RELAXED);
}

/* Nothing is recorded here when LLVM's libomp is the runtime: it exports
 * GOMP_* entry points and the omp_*_lock functions too, and reports what
 * they do through OMPT (agent-ompt.c), which records it once. */
ECP_AGENT_FN struct ecp_thread *ecp_omp_enter(void)
{
	return ecp_omp_is_libomp() ? 0 : ecp_enter();
}

/* libgomp's functions: the next definition, or libgomp itself when the
 * program loaded it with dlopen (RTLD_LOCAL: RTLD_NEXT cannot see it). */
ECP_AGENT_FN ecp_fn ecp_omp_real(const char *name, const char *version)
{
	ecp_fn f = ecp_real(name, version);
	void *h, *p;
	if (f)
		return f;
	h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return 0;
	p = version ? dlvsym(h, name, version) : dlsym(h, name);
	dlclose(h);
	memcpy(&f, &p, sizeof(f));
	return f;
}

/* The program's declarations, not included from omp.h (the agent does
 * not link libgomp). */
int omp_get_thread_num(void);
int omp_get_num_threads(void);
typedef struct {
	unsigned char opaque[64];
} ecp_omp_lock; /* only its address is used */
ECP_AGENT_API void omp_init_lock(ecp_omp_lock *l);
ECP_AGENT_API void omp_set_lock(ecp_omp_lock *l);
ECP_AGENT_API void omp_unset_lock(ecp_omp_lock *l);
ECP_AGENT_API int omp_test_lock(ecp_omp_lock *l);
ECP_AGENT_API void omp_init_nest_lock(ecp_omp_lock *l);
ECP_AGENT_API void omp_set_nest_lock(ecp_omp_lock *l);
ECP_AGENT_API void omp_unset_nest_lock(ecp_omp_lock *l);
ECP_AGENT_API int omp_test_nest_lock(ecp_omp_lock *l);
/* The omp_lock_t layout changed in OpenMP 3.0: programs built since bind
 * the OMP_3.0 versions, which plain dlsym may not return. */
#define LOCK_VERSION "OMP_3.0"

/* ------------------------------------------------------------ notices */

enum unsupported {
	U_RUNTIME,
	U_COPYPRIVATE,
	U_DOACROSS,
	U_CANCEL,
	U_TEAMS,
	U_ULL_DYNAMIC,
	U_ORDERED_DYNAMIC,
	U_COUNT
};
/* Written as `unmodelled` events (agent-unmodelled.c): ecp record and the
 * analysis name them with the other calls ecp does not model. */
static const char *const unsupported_names[U_COUNT] = {
    "OpenMP schedule(runtime)",
    "OpenMP copyprivate",
    "OpenMP doacross loop",
    "OpenMP cancel",
    "OpenMP teams",
    "OpenMP dynamic loop (unsigned long long)",
    "OpenMP ordered dynamic loop"};
static int unsupported_seen[U_COUNT];

/* Names the construct the first time a recorded thread uses it. */
ECP_AGENT_FN void ecp_omp_unmodelled(const char *name, int *seen)
{
	struct ecp_thread *t;
	if (__atomic_load_n(seen, __ATOMIC_RELAXED) || !(t = ecp_omp_enter()))
		return;
	if (!__atomic_exchange_n(seen, 1, __ATOMIC_RELAXED))
		ecp_unmodelled(name);
	ecp_leave(t);
}

ECP_AGENT_FN static void note_unsupported(enum unsupported u)
{
	ecp_omp_unmodelled(unsupported_names[u], &unsupported_seen[u]);
}

/* ------------------------------------------------------------ fork, join */

ECP_AGENT_API void GOMP_barrier(void);

/* Every member of the team runs the region's function through this. */
ECP_AGENT_FN static void region_fn(void *p)
{
	struct region *r = p;
	struct region *outer = cur_region;
	int num = OMP_REAL(omp_get_thread_num)();
	struct ecp_thread *t;

	if (num == 0) {
		r->nthreads = (unsigned)OMP_REAL(omp_get_num_threads)();
	} else if ((t = ecp_omp_enter())) {
		ECP_TP(once_begin, OMP_OBJ(r->id, OBJ_FORK), ecp_cpu_ns());
		ECP_TP(once_end, OMP_OBJ(r->id, OBJ_FORK), 0, ecp_cpu_ns());
		ecp_leave(t);
	}
	uint32_t outer_seq = loop_seq;
	bool outer_in = in_loop;
	uint64_t outer_task = ecp_omp_task;
	bool outer_final = ecp_omp_final;
	loop_seq = 0;
	in_loop = false;
	ecp_omp_task = 0;
	ecp_omp_final = false;
	cur_region = r;
	/* GCC does not instrument the functions it outlines from a construct
	 * (main._omp_fn.0): recorded here as a call, so the region's time is
	 * charged to it (shown as the enclosing function and the construct's
	 * line) rather than to libgomp's thread routine. */
	__cyg_profile_func_enter((void *)(uintptr_t)r->fn, __builtin_return_address(0));
	r->fn(r->data);
	__cyg_profile_func_exit((void *)(uintptr_t)r->fn, __builtin_return_address(0));
	/* The region's closing barrier, made visible: the tasks still queued
	 * run in it, on whichever member is free, before any member's join. */
	GOMP_barrier();
	cur_region = outer;
	loop_seq = outer_seq;
	in_loop = outer_in;
	ecp_omp_task = outer_task;
	ecp_omp_final = outer_final;
	/* Before libgomp's closing barrier: the master cannot pass it, nor
	 * take this token, before the post is written. */
	if (num != 0 && (t = ecp_omp_enter())) {
		ECP_TP(sem_post, OMP_OBJ(r->id, OBJ_JOIN), ecp_cpu_ns());
		ecp_leave(t);
	}
}

/* The encountering thread, before the team starts; false when it is not
 * recorded (then the region runs unwrapped). */
ECP_AGENT_FN static bool fork_begin(struct region *r, void (*fn)(void *), void *data)
{
	struct ecp_thread *t = ecp_omp_enter();
	if (!t)
		return false;
	r->fn = fn;
	r->data = data;
	r->id = ecp_omp_new_team();
	r->nthreads = 1;
	ECP_TP(sem_init, OMP_OBJ(r->id, OBJ_ORDERED), 1, ecp_cpu_ns());
	ECP_TP(once_begin, OMP_OBJ(r->id, OBJ_FORK), ecp_cpu_ns());
	ECP_TP(once_end, OMP_OBJ(r->id, OBJ_FORK), 1, ecp_cpu_ns());
	ecp_leave(t);
	return true;
}

/* The master, after the region: one token per other member. */
ECP_AGENT_FN static void join_end(struct region *r)
{
	struct ecp_thread *t = ecp_omp_enter();
	if (!t)
		return;
	for (unsigned i = 1; i < r->nthreads; i++) {
		ECP_TP(sem_wait_begin, OMP_OBJ(r->id, OBJ_JOIN), 0, ecp_cpu_ns());
		ECP_TP(sem_wait_end, OMP_OBJ(r->id, OBJ_JOIN), 0, ecp_cpu_ns());
	}
	ecp_leave(t);
}

ECP_AGENT_API void GOMP_parallel(void (*fn)(void *), void *data, unsigned n,
				 unsigned flags);
ECP_AGENT_API void GOMP_parallel(void (*fn)(void *), void *data, unsigned n,
				 unsigned flags)
{
	__typeof__(&GOMP_parallel) real = OMP_REAL(GOMP_parallel);
	struct region r;
	if (!fork_begin(&r, fn, data)) {
		real(fn, data, n, flags);
		return;
	}
	real(region_fn, &r, n, flags);
	join_end(&r);
}

ECP_AGENT_API unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data,
						unsigned n, unsigned flags);
ECP_AGENT_API unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data,
						unsigned n, unsigned flags)
{
	__typeof__(&GOMP_parallel_reductions) real = OMP_REAL(GOMP_parallel_reductions);
	struct region r;
	unsigned ret;
	if (!fork_begin(&r, fn, data))
		return real(fn, data, n, flags);
	ret = real(region_fn, &r, n, flags);
	join_end(&r);
	return ret;
}

/* Combined parallel loops: the team starts with the loop's work share. */
#define PARALLEL_LOOP(name, dynamic)                                                     \
	ECP_AGENT_API void name(void (*fn)(void *), void *data, unsigned n, long start,  \
				long end, long incr, long chunk, unsigned flags);        \
	ECP_AGENT_API void name(void (*fn)(void *), void *data, unsigned n, long start,  \
				long end, long incr, long chunk, unsigned flags)         \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL(name);                                 \
		struct region r;                                                         \
		if (dynamic)                                                             \
			note_unsupported(U_RUNTIME);                                     \
		if (!fork_begin(&r, fn, data)) {                                         \
			real(fn, data, n, start, end, incr, chunk, flags);               \
			return;                                                          \
		}                                                                        \
		real(region_fn, &r, n, start, end, incr, chunk, flags);                  \
		join_end(&r);                                                            \
	}
PARALLEL_LOOP(GOMP_parallel_loop_static, 0)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic, 0)
PARALLEL_LOOP(GOMP_parallel_loop_guided, 0)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, 0)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, 0)

#define PARALLEL_LOOP_RUNTIME(name)                                                      \
	ECP_AGENT_API void name(void (*fn)(void *), void *data, unsigned n, long start,  \
				long end, long incr, unsigned flags);                    \
	ECP_AGENT_API void name(void (*fn)(void *), void *data, unsigned n, long start,  \
				long end, long incr, unsigned flags)                     \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL(name);                                 \
		struct region r;                                                         \
		note_unsupported(U_RUNTIME);                                             \
		if (!fork_begin(&r, fn, data)) {                                         \
			real(fn, data, n, start, end, incr, flags);                      \
			return;                                                          \
		}                                                                        \
		real(region_fn, &r, n, start, end, incr, flags);                         \
		join_end(&r);                                                            \
	}
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

ECP_AGENT_API void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned n,
					  unsigned count, unsigned flags);
ECP_AGENT_API void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned n,
					  unsigned count, unsigned flags)
{
	__typeof__(&GOMP_parallel_sections) real = OMP_REAL(GOMP_parallel_sections);
	struct region r;
	if (!fork_begin(&r, fn, data)) {
		real(fn, data, n, count, flags);
		return;
	}
	real(region_fn, &r, n, count, flags);
	join_end(&r);
}

/* The GOMP 1.0 form (GCC before 4.9): GOMP_parallel_start starts the team,
 * the master calls the function itself, GOMP_parallel_end joins.  Regions
 * nest, so the open ones are a per-thread stack; deeper than it, regions
 * run unrecorded (NULL entries keep the pairing). */
#define START_DEPTH 16
static __thread struct region start_stack[START_DEPTH]
    __attribute__((tls_model("initial-exec")));
static __thread struct region *start_outer[START_DEPTH]
    __attribute__((tls_model("initial-exec")));
static __thread bool start_recorded[START_DEPTH]
    __attribute__((tls_model("initial-exec")));
static __thread unsigned start_depth __attribute__((tls_model("initial-exec")));

ECP_AGENT_API void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned n);
ECP_AGENT_API void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned n)
{
	__typeof__(&GOMP_parallel_start) real = OMP_REAL(GOMP_parallel_start);
	unsigned d = start_depth++;
	struct region *r = d < START_DEPTH ? &start_stack[d] : NULL;
	if (!r || !(start_recorded[d] = fork_begin(r, fn, data))) {
		real(fn, data, n);
		return;
	}
	real(region_fn, r, n);
	r->nthreads = (unsigned)OMP_REAL(omp_get_num_threads)();
	start_outer[d] = cur_region;
	cur_region = r;
}

ECP_AGENT_API void GOMP_parallel_end(void);
ECP_AGENT_API void GOMP_parallel_end(void)
{
	__typeof__(&GOMP_parallel_end) real = OMP_REAL(GOMP_parallel_end);
	unsigned d = start_depth ? --start_depth : 0;
	bool recorded = d < START_DEPTH && start_recorded[d];
	if (recorded)
		GOMP_barrier(); /* the closing barrier, as region_fn's */
	real();
	if (recorded) {
		start_recorded[d] = false;
		cur_region = start_outer[d];
		join_end(&start_stack[d]);
	}
}

/* ------------------------------------------------------------ barriers */

/* A team barrier: begin, the real wait (guard down: tasks may run in it),
 * end.  Outside a recorded team it is a plain call. */
#define TEAM_BARRIER(type, name)                                                         \
	ECP_AGENT_API type name(void);                                                   \
	ECP_AGENT_API type name(void)                                                    \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL(name);                                 \
		struct region *r = cur_region;                                           \
		struct ecp_thread *t;                                                    \
		if (!r || !(t = ecp_omp_enter()))                                        \
			return real();                                                   \
		ECP_TP(barrier_wait_begin, OMP_OBJ(r->id, OBJ_BARRIER), ecp_cpu_ns());   \
		ecp_leave(t);                                                            \
		type ret_ = real();                                                      \
		if ((t = ecp_omp_enter())) {                                             \
			ECP_TP(barrier_wait_end, OMP_OBJ(r->id, OBJ_BARRIER), 0,         \
			       ecp_cpu_ns());                                            \
			ecp_leave(t);                                                    \
		}                                                                        \
		return ret_;                                                             \
	}
#define TEAM_BARRIER_VOID(name)                                                          \
	ECP_AGENT_API void name(void);                                                   \
	ECP_AGENT_API void name(void)                                                    \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL(name);                                 \
		struct region *r = cur_region;                                           \
		struct ecp_thread *t;                                                    \
		if (!r || !(t = ecp_omp_enter())) {                                      \
			real();                                                          \
			return;                                                          \
		}                                                                        \
		ECP_TP(barrier_wait_begin, OMP_OBJ(r->id, OBJ_BARRIER), ecp_cpu_ns());   \
		ecp_leave(t);                                                            \
		real();                                                                  \
		if ((t = ecp_omp_enter())) {                                             \
			ECP_TP(barrier_wait_end, OMP_OBJ(r->id, OBJ_BARRIER), 0,         \
			       ecp_cpu_ns());                                            \
			ecp_leave(t);                                                    \
		}                                                                        \
	}
TEAM_BARRIER_VOID(GOMP_barrier)
TEAM_BARRIER_VOID(GOMP_loop_end)
TEAM_BARRIER_VOID(GOMP_sections_end)
TEAM_BARRIER(bool, GOMP_barrier_cancel)
TEAM_BARRIER(bool, GOMP_loop_end_cancel)
TEAM_BARRIER(bool, GOMP_sections_end_cancel)

/* ------------------------------------------------------------ mutual exclusion */

ECP_AGENT_FN static void excl_acquire(uint64_t obj, void (*real)(void))
{
	struct ecp_thread *t = ecp_omp_enter();
	if (!t) {
		real();
		return;
	}
	ECP_TP(lock_request, obj, KIND_MUTEX, 0, ecp_cpu_ns());
	real();
	ECP_TP(lock_acquired, obj, KIND_MUTEX, 0, 0, ecp_cpu_ns());
	ecp_leave(t);
}

ECP_AGENT_FN static void excl_release(uint64_t obj, void (*real)(void))
{
	struct ecp_thread *t = ecp_omp_enter();
	if (t) {
		ECP_TP(lock_release, obj, KIND_MUTEX, ecp_cpu_ns());
		ecp_leave(t);
	}
	real();
}

ECP_AGENT_API void GOMP_critical_start(void);
ECP_AGENT_API void GOMP_critical_start(void)
{
	excl_acquire(OMP_OBJ(0, OBJ_CRITICAL), OMP_REAL(GOMP_critical_start));
}
ECP_AGENT_API void GOMP_critical_end(void);
ECP_AGENT_API void GOMP_critical_end(void)
{
	excl_release(OMP_OBJ(0, OBJ_CRITICAL), OMP_REAL(GOMP_critical_end));
}
ECP_AGENT_API void GOMP_atomic_start(void);
ECP_AGENT_API void GOMP_atomic_start(void)
{
	excl_acquire(OMP_OBJ(0, OBJ_ATOMIC), OMP_REAL(GOMP_atomic_start));
}
ECP_AGENT_API void GOMP_atomic_end(void);
ECP_AGENT_API void GOMP_atomic_end(void)
{
	excl_release(OMP_OBJ(0, OBJ_ATOMIC), OMP_REAL(GOMP_atomic_end));
}

/* Named critical sections: `pptr` is the program's common symbol
 * `.gomp_critical_user_NAME`, one per name. */
ECP_AGENT_API void GOMP_critical_name_start(void **pptr);
ECP_AGENT_API void GOMP_critical_name_start(void **pptr)
{
	__typeof__(&GOMP_critical_name_start) real = OMP_REAL(GOMP_critical_name_start);
	struct ecp_thread *t = ecp_omp_enter();
	if (!t) {
		real(pptr);
		return;
	}
	ECP_TP(lock_request, (uint64_t)(uintptr_t)pptr, KIND_MUTEX, 0, ecp_cpu_ns());
	real(pptr);
	ECP_TP(lock_acquired, (uint64_t)(uintptr_t)pptr, KIND_MUTEX, 0, 0, ecp_cpu_ns());
	ecp_leave(t);
}
ECP_AGENT_API void GOMP_critical_name_end(void **pptr);
ECP_AGENT_API void GOMP_critical_name_end(void **pptr)
{
	__typeof__(&GOMP_critical_name_end) real = OMP_REAL(GOMP_critical_name_end);
	struct ecp_thread *t = ecp_omp_enter();
	if (t) {
		ECP_TP(lock_release, (uint64_t)(uintptr_t)pptr, KIND_MUTEX, ecp_cpu_ns());
		ecp_leave(t);
	}
	real(pptr);
}

#define LOCK_INIT(name, type)                                                            \
	ECP_AGENT_API void name(ecp_omp_lock *l)                                         \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL_V(name, LOCK_VERSION);                 \
		struct ecp_thread *t;                                                    \
		real(l);                                                                 \
		if ((t = ecp_omp_enter())) {                                             \
			ECP_TP(lock_init, (uint64_t)(uintptr_t)l, KIND_MUTEX, type,      \
			       ecp_cpu_ns());                                            \
			ecp_leave(t);                                                    \
		}                                                                        \
	}
LOCK_INIT(omp_init_lock, TYPE_NORMAL)
LOCK_INIT(omp_init_nest_lock, TYPE_RECURSIVE)

#define LOCK_SET(name)                                                                   \
	ECP_AGENT_API void name(ecp_omp_lock *l)                                         \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL_V(name, LOCK_VERSION);                 \
		struct ecp_thread *t = ecp_omp_enter();                                  \
		if (!t) {                                                                \
			real(l);                                                         \
			return;                                                          \
		}                                                                        \
		ECP_TP(lock_request, (uint64_t)(uintptr_t)l, KIND_MUTEX, 0,              \
		       ecp_cpu_ns());                                                    \
		real(l);                                                                 \
		ECP_TP(lock_acquired, (uint64_t)(uintptr_t)l, KIND_MUTEX, 0, 0,          \
		       ecp_cpu_ns());                                                    \
		ecp_leave(t);                                                            \
	}
LOCK_SET(omp_set_lock)
LOCK_SET(omp_set_nest_lock)

#define LOCK_UNSET(name)                                                                 \
	ECP_AGENT_API void name(ecp_omp_lock *l)                                         \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL_V(name, LOCK_VERSION);                 \
		struct ecp_thread *t = ecp_omp_enter();                                  \
		if (t) {                                                                 \
			ECP_TP(lock_release, (uint64_t)(uintptr_t)l, KIND_MUTEX,         \
			       ecp_cpu_ns());                                            \
			ecp_leave(t);                                                    \
		}                                                                        \
		real(l);                                                                 \
	}
LOCK_UNSET(omp_unset_lock)
LOCK_UNSET(omp_unset_nest_lock)

/* omp_test_lock returns non-zero when it took the lock; omp_test_nest_lock
 * the new nesting count (0: busy). */
#define LOCK_TEST(name)                                                                  \
	ECP_AGENT_API int name(ecp_omp_lock *l)                                          \
	{                                                                                \
		__typeof__(&name) real = OMP_REAL_V(name, LOCK_VERSION);                 \
		struct ecp_thread *t = ecp_omp_enter();                                  \
		int rc;                                                                  \
		if (!t)                                                                  \
			return real(l);                                                  \
		rc = real(l);                                                            \
		if (rc)                                                                  \
			ECP_TP(lock_acquired, (uint64_t)(uintptr_t)l, KIND_MUTEX, 0, 1,  \
			       ecp_cpu_ns());                                            \
		else                                                                     \
			ECP_TP(lock_failed, (uint64_t)(uintptr_t)l, KIND_MUTEX, 0,       \
			       EBUSY, ecp_cpu_ns());                                     \
		ecp_leave(t);                                                            \
		return rc;                                                               \
	}
LOCK_TEST(omp_test_lock)
LOCK_TEST(omp_test_nest_lock)

/* ------------------------------------------------------------ ordered */

ECP_AGENT_API void GOMP_ordered_start(void);
ECP_AGENT_API void GOMP_ordered_start(void)
{
	__typeof__(&GOMP_ordered_start) real = OMP_REAL(GOMP_ordered_start);
	struct region *r = cur_region;
	struct ecp_thread *t;
	if (!r || !(t = ecp_omp_enter())) {
		real();
		return;
	}
	ECP_TP(sem_wait_begin, OMP_OBJ(r->id, OBJ_ORDERED), 0, ecp_cpu_ns());
	real();
	ECP_TP(sem_wait_end, OMP_OBJ(r->id, OBJ_ORDERED), 0, ecp_cpu_ns());
	ecp_leave(t);
}

ECP_AGENT_API void GOMP_ordered_end(void);
ECP_AGENT_API void GOMP_ordered_end(void)
{
	__typeof__(&GOMP_ordered_end) real = OMP_REAL(GOMP_ordered_end);
	struct region *r = cur_region;
	struct ecp_thread *t;
	if (r && (t = ecp_omp_enter())) {
		ECP_TP(sem_post, OMP_OBJ(r->id, OBJ_ORDERED), ecp_cpu_ns());
		ecp_leave(t);
	}
	real();
}

/* ------------------------------------------------------------ named, not modelled */

/* Dynamic and guided schedules hand chunks out as threads ask: which
 * thread ran which chunk in the recording is an artefact of one CPU's time
 * slices.  Each hand-out is written (omp_chunk) so that the model builder
 * can deal the chunks out again as P processors would (the next free
 * thread takes the next chunk).  The k-th dynamic loop a thread enters in
 * a region is the team's k-th (OpenMP requires every member to meet the
 * worksharing constructs in the same order): that names the loop.
 *
 * Chunks of one iteration cost little more than libgomp's atomic add: a
 * chunk handed out less than --min-duration after this thread's previous
 * one is merged into it (no event), so a loop of a million tiny chunks
 * costs events per --min-duration of work, and dealing out chunks of that
 * size changes no balance that matters. */
ECP_AGENT_FN static bool chunk_event(bool got)
{
	struct region *r = cur_region;
	struct ecp_thread *t;
	uint64_t now;
	if (!r || !ecp_self)
		return got;
	now = ecp_tsc();
	if (got && in_loop && now - chunk_tsc < ecp_settings.min_tsc)
		return got;
	if (!(t = ecp_omp_enter()))
		return got;
	if (!in_loop) {
		in_loop = true;
		loop_seq++;
	}
	chunk_tsc = now;
	ECP_TP(omp_chunk, (r->id << 24) | loop_seq, !got, ecp_cpu_ns());
	if (!got)
		in_loop = false;
	ecp_leave(t);
	return got;
}

#define CHUNK_START(name)                                                                \
	ECP_AGENT_API bool name(long start, long end, long incr, long chunk,             \
				long *istart, long *iend);                               \
	ECP_AGENT_API bool name(long start, long end, long incr, long chunk,             \
				long *istart, long *iend)                                \
	{                                                                                \
		return chunk_event(                                                      \
		    OMP_REAL(name)(start, end, incr, chunk, istart, iend));              \
	}
CHUNK_START(GOMP_loop_dynamic_start)
CHUNK_START(GOMP_loop_guided_start)
CHUNK_START(GOMP_loop_nonmonotonic_dynamic_start)
CHUNK_START(GOMP_loop_nonmonotonic_guided_start)

#define CHUNK_NEXT(name)                                                                 \
	ECP_AGENT_API bool name(long *istart, long *iend);                               \
	ECP_AGENT_API bool name(long *istart, long *iend)                                \
	{                                                                                \
		return chunk_event(OMP_REAL(name)(istart, iend));                        \
	}
CHUNK_NEXT(GOMP_loop_dynamic_next)
CHUNK_NEXT(GOMP_loop_guided_next)
CHUNK_NEXT(GOMP_loop_nonmonotonic_dynamic_next)
CHUNK_NEXT(GOMP_loop_nonmonotonic_guided_next)

/* Runtime schedules (static or dynamic, decided by OMP_SCHEDULE) and the
 * unsigned long long forms are named, not dealt out again. */
#define LOOP_NEXT(name, type, u)                                                         \
	ECP_AGENT_API bool name(type *istart, type *iend);                               \
	ECP_AGENT_API bool name(type *istart, type *iend)                                \
	{                                                                                \
		note_unsupported(u);                                                     \
		return OMP_REAL(name)(istart, iend);                                     \
	}
LOOP_NEXT(GOMP_loop_runtime_next, long, U_RUNTIME)
LOOP_NEXT(GOMP_loop_nonmonotonic_runtime_next, long, U_RUNTIME)
LOOP_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next, long, U_RUNTIME)
LOOP_NEXT(GOMP_loop_ull_dynamic_next, unsigned long long, U_ULL_DYNAMIC)
LOOP_NEXT(GOMP_loop_ull_guided_next, unsigned long long, U_ULL_DYNAMIC)
LOOP_NEXT(GOMP_loop_ull_runtime_next, unsigned long long, U_RUNTIME)
LOOP_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next, unsigned long long, U_ULL_DYNAMIC)
LOOP_NEXT(GOMP_loop_ull_nonmonotonic_guided_next, unsigned long long, U_ULL_DYNAMIC)
/* With `ordered`, the chunks' order is also the ordered blocks' order. */
LOOP_NEXT(GOMP_loop_ordered_dynamic_next, long, U_ORDERED_DYNAMIC)
LOOP_NEXT(GOMP_loop_ordered_guided_next, long, U_ORDERED_DYNAMIC)
LOOP_NEXT(GOMP_loop_ordered_runtime_next, long, U_ORDERED_DYNAMIC)

/* Sections go to whichever thread asks next, like the chunks of a dynamic
 * schedule: recorded and dealt out again the same way (0: none left). */
ECP_AGENT_API unsigned GOMP_sections_start(unsigned count);
ECP_AGENT_API unsigned GOMP_sections_start(unsigned count)
{
	unsigned s = OMP_REAL(GOMP_sections_start)(count);
	chunk_event(s != 0);
	return s;
}

ECP_AGENT_API unsigned GOMP_sections_next(void);
ECP_AGENT_API unsigned GOMP_sections_next(void)
{
	unsigned s = OMP_REAL(GOMP_sections_next)();
	chunk_event(s != 0);
	return s;
}

ECP_AGENT_API void *GOMP_single_copy_start(void);
ECP_AGENT_API void *GOMP_single_copy_start(void)
{
	note_unsupported(U_COPYPRIVATE);
	return OMP_REAL(GOMP_single_copy_start)();
}

ECP_AGENT_API void GOMP_doacross_post(long *counts);
ECP_AGENT_API void GOMP_doacross_post(long *counts)
{
	note_unsupported(U_DOACROSS);
	OMP_REAL(GOMP_doacross_post)(counts);
}

ECP_AGENT_API bool GOMP_cancel(int which, bool do_cancel);
ECP_AGENT_API bool GOMP_cancel(int which, bool do_cancel)
{
	note_unsupported(U_CANCEL);
	return OMP_REAL(GOMP_cancel)(which, do_cancel);
}

ECP_AGENT_API void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
				  unsigned thread_limit, unsigned flags);
ECP_AGENT_API void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
				  unsigned thread_limit, unsigned flags)
{
	note_unsupported(U_TEAMS);
	OMP_REAL(GOMP_teams_reg)(fn, data, num_teams, thread_limit, flags);
}
