/* SPDX-License-Identifier: MIT */
/* The chunks of dynamic and guided loops in programs built with clang
 * (LLVM's libomp), through the __kmpc_dispatch_* entry points the compiled
 * loop calls (through the PLT: the preloaded definitions win).  LLVM 14's
 * libomp never calls OMPT's dispatch callback, so each chunk handed out is
 * seen here and written as libgomp's are (agent-omp.c, chunk_event): an
 * omp_chunk event for the model builder to deal out again as P processors
 * would, `loop` = team << 24 | this thread's count of dealt loops in the
 * region (the same for every member), `done` when none is left for it,
 * and a chunk handed out less than --min-duration after the thread's
 * previous one merged into it.
 *
 * Which loops: __kmpc_dispatch_init_* says the schedule.  Dynamic, guided
 * and their variants are dealt out again; static schedules keep their
 * iterations on the thread the schedule names (ordered static loops come
 * here too); runtime schedules and ordered dynamic ones are named, as
 * with libgomp.  Nothing here records unless agent-ompt.c's tool runs: a
 * chunk belongs to a recorded team. */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "recorder/agent/agent-ompt.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

/* libomp's sched_type values (its kmp.h): the loop's schedule, plus
 * modifier bits and an ordered (+32) or no-merge (+128) offset. */
enum {
	SCH_DYNAMIC = 35,
	SCH_GUIDED = 36,
	SCH_RUNTIME = 37,
	SCH_AUTO = 38,
	SCH_TRAPEZOIDAL = 39,
	SCH_GUIDED_ITERATIVE = 42,
	SCH_GUIDED_ANALYTICAL = 43,
	SCH_STATIC_STEAL = 44,
	SCH_GUIDED_SIMD = 46,
	SCH_RUNTIME_SIMD = 47,
	SCH_ORDERED = 32,
	SCH_NOMERGE = 128,
	SCH_MODIFIERS = 3 << 29,
};

/* How this thread's next chunks are recorded (per thread: each member of
 * the team calls the init for the loop). */
static __thread bool dealt __attribute__((tls_model("initial-exec")));

ECP_AGENT_FN static void loop_init(int sched)
{
	int s = sched & ~SCH_MODIFIERS;
	bool ordered;
	if (s >= 160)
		s -= SCH_NOMERGE;
	ordered = s >= 64 && s < 96;
	if (ordered)
		s -= SCH_ORDERED;
	dealt = false;
	if (!ecp_ompt_team())
		return;
	switch (s) {
	case SCH_RUNTIME:
	case SCH_RUNTIME_SIMD:
		ecp_ompt_unmodelled("OpenMP schedule(runtime)");
		break;
	case SCH_DYNAMIC:
	case SCH_GUIDED:
	case SCH_AUTO:
	case SCH_TRAPEZOIDAL:
	case SCH_GUIDED_ITERATIVE:
	case SCH_GUIDED_ANALYTICAL:
	case SCH_STATIC_STEAL:
	case SCH_GUIDED_SIMD:
		if (ordered)
			ecp_ompt_unmodelled("OpenMP ordered dynamic loop");
		else
			dealt = true;
		break;
	default:
		break;
	}
}

ECP_AGENT_FN static int chunk_event(int got)
{
	struct ompt_team *m;
	struct ecp_thread *t;
	uint64_t now;
	if (!dealt || !ecp_self || !(m = ecp_ompt_team()))
		return got;
	now = ecp_tsc();
	if (got && m->in_loop && now - m->chunk_tsc < ecp_settings.min_tsc)
		return got;
	if (!(t = ecp_enter()))
		return got;
	if (!m->in_loop) {
		m->in_loop = true;
		m->loop_seq++;
	}
	m->chunk_tsc = now;
	ECP_TP(omp_chunk, (m->team << 24) | m->loop_seq, !got, ecp_cpu_ns());
	if (!got) {
		m->in_loop = false;
		dealt = false;
	}
	ecp_leave(t);
	return got;
}

/* libomp's functions: the next definition, or libomp itself when a library
 * the program loaded with dlopen (RTLD_LOCAL) brought it in. */
ECP_AGENT_FN static ecp_fn kmpc_real(const char *name)
{
	static const char *const libs[] = {"libomp.so.5", "libomp.so", "libiomp5.so"};
	int saved = errno; /* the loader's failures set it */
	ecp_fn f = ecp_real(name, 0);
	for (unsigned i = 0; !f && i < sizeof(libs) / sizeof(libs[0]); i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD), *p;
		if (!h)
			continue;
		p = dlsym(h, name);
		dlclose(h);
		memcpy(&f, &p, sizeof(f));
	}
	errno = saved;
	return f;
}

#define KMPC_REAL(fn)                                                                    \
	__extension__({                                                                  \
		static __typeof__(&fn) real_##fn;                                        \
		__typeof__(&fn) r_ = __atomic_load_n(&real_##fn, __ATOMIC_RELAXED);      \
		if (!r_) {                                                               \
			r_ = (__typeof__(&fn))kmpc_real(#fn);                            \
			__atomic_store_n(&real_##fn, r_, __ATOMIC_RELAXED);              \
		}                                                                        \
		r_;                                                                      \
	})

/* The program's declarations (libomp's kmp.h is not included: the agent
 * does not link libomp). */
#define DISPATCH(sfx, type, stype)                                                       \
	ECP_AGENT_API void __kmpc_dispatch_init_##sfx(void *loc, int32_t gtid,           \
						      int32_t sched, type lb, type ub,   \
						      stype st, stype chunk);            \
	ECP_AGENT_API void __kmpc_dispatch_init_##sfx(void *loc, int32_t gtid,           \
						      int32_t sched, type lb, type ub,   \
						      stype st, stype chunk)             \
	{                                                                                \
		loop_init(sched);                                                        \
		KMPC_REAL(__kmpc_dispatch_init_##sfx)                                    \
		(loc, gtid, sched, lb, ub, st, chunk);                                   \
	}                                                                                \
	ECP_AGENT_API int __kmpc_dispatch_next_##sfx(                                    \
	    void *loc, int32_t gtid, int32_t *last, type *lb, type *ub, stype *st);      \
	ECP_AGENT_API int __kmpc_dispatch_next_##sfx(                                    \
	    void *loc, int32_t gtid, int32_t *last, type *lb, type *ub, stype *st)       \
	{                                                                                \
		return chunk_event(                                                      \
		    KMPC_REAL(__kmpc_dispatch_next_##sfx)(loc, gtid, last, lb, ub, st)); \
	}
DISPATCH(4, int32_t, int32_t)
DISPATCH(4u, uint32_t, int32_t)
DISPATCH(8, int64_t, int64_t)
DISPATCH(8u, uint64_t, int64_t)
