/* SPDX-License-Identifier: MIT */
/* What the agent's OpenMP files share (agent-omp.c: teams, barriers,
 * locks, loops; agent-omp-task.c: tasks). */
#ifndef ECP_RECORDER_AGENT_OMP_H
#define ECP_RECORDER_AGENT_OMP_H

#include <stdbool.h>
#include <stdint.h>

#include "recorder/agent/agent.h"

/* libgomp's functions: the next definition, or libgomp itself when the
 * program loaded it with dlopen (RTLD_LOCAL: RTLD_NEXT cannot see it). */
ecp_fn ecp_omp_real(const char *name, const char *version);

#define OMP_REAL(fn) OMP_REAL_V(fn, 0)
#define OMP_REAL_V(fn, ver)                                                              \
	__extension__({                                                                  \
		static __typeof__(&fn) real_##fn;                                        \
		__typeof__(&fn) r_ = __atomic_load_n(&real_##fn, __ATOMIC_RELAXED);      \
		if (!r_) {                                                               \
			r_ = (__typeof__(&fn))ecp_omp_real(#fn, ver);                    \
			__atomic_store_n(&real_##fn, r_, __ATOMIC_RELAXED);              \
		}                                                                        \
		r_;                                                                      \
	})

/* The explicit task this thread is running (0: its implicit task, as at
 * the start of every region) and whether that task is final (its
 * children are included: they run at once on it). */
extern __thread uint64_t ecp_omp_task __attribute__((tls_model("initial-exec")));
extern __thread bool ecp_omp_final __attribute__((tls_model("initial-exec")));

/* Whether this thread is inside a recorded parallel region (outside one,
 * libgomp runs every task at once on the thread that makes it). */
bool ecp_omp_in_region(void);

/* ecp_enter(), or NULL when LLVM's libomp is the runtime: it exports the
 * GOMP_* entry points too and reports through OMPT (agent-ompt.c). */
struct ecp_thread *ecp_omp_enter(void);

/* Names a construct ecp does not model, once (agent-unmodelled.c). */
void ecp_omp_unmodelled(const char *name, int *seen);

#endif
