/* SPDX-License-Identifier: MIT */
/* OMPT's mutual exclusion callbacks (LLVM's libomp), written as
 * agent-omp.c writes libgomp's: omp_*_lock and omp_*_nest_lock, critical
 * (each name its own lock, `wait_id` the program's variable for it) and
 * atomic (the runtime's lock for it, when a construct needs one) as
 * mutexes on the `wait_id` libomp gives (the lock's address), nest locks
 * recursive; ordered as the team's semaphore with one token, taken by each
 * ordered block and posted at its end.
 *
 * libomp reports an acquisition as mutex_acquire then mutex_acquired (or,
 * for a nest lock the thread already holds, nest_lock begin), a test as
 * mutex_acquired alone when it took the lock (a failed test reports
 * nothing), and a release as mutex_released (nest_lock end while the
 * count stays above zero). */
#include "recorder/agent/agent-ompt.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

enum { KIND_MUTEX = 0 };
enum { TYPE_NORMAL = 0, TYPE_RECURSIVE = 1 };

/* The lock this thread asked for (lock_request written), to tell a
 * blocking acquisition from a test that succeeded. */
static __thread uint64_t requested __attribute__((tls_model("initial-exec")));

ECP_AGENT_FN static bool is_lock(int kind)
{
	return kind >= OMPT_MUTEX_LOCK && kind <= OMPT_MUTEX_ATOMIC;
}

ECP_AGENT_FN static void on_lock_init(int kind, unsigned hint, unsigned impl,
				      ompt_wait_id_t wait, const void *ra)
{
	struct ecp_thread *t;
	(void)hint;
	(void)impl;
	(void)ra;
	if ((kind != OMPT_MUTEX_LOCK && kind != OMPT_MUTEX_NEST_LOCK) ||
	    !(t = ecp_enter()))
		return;
	ECP_TP(lock_init, wait, KIND_MUTEX,
	       kind == OMPT_MUTEX_NEST_LOCK ? TYPE_RECURSIVE : TYPE_NORMAL, ecp_cpu_ns());
	ecp_leave(t);
}

/* The wait for the lock or the ordered turn: the guard is held until it
 * is granted (ecp_ompt_hold). */
ECP_AGENT_FN static void on_acquire(int kind, unsigned hint, unsigned impl,
				    ompt_wait_id_t wait, const void *ra)
{
	struct ompt_team *m = ecp_ompt_team();
	(void)hint;
	(void)impl;
	(void)ra;
	if (kind == OMPT_MUTEX_ORDERED) {
		if (m && ecp_ompt_hold())
			ECP_TP(sem_wait_begin, OMP_OBJ(m->team, OBJ_ORDERED), 0,
			       ecp_cpu_ns());
	} else if (kind != OMPT_MUTEX_TEST_LOCK && kind != OMPT_MUTEX_TEST_NEST_LOCK &&
		   is_lock(kind) && ecp_ompt_hold()) {
		ECP_TP(lock_request, wait, KIND_MUTEX, 0, ecp_cpu_ns());
		requested = wait;
	}
}

/* Granted: after a request (the guard held since), or a test that took it. */
ECP_AGENT_FN static void acquired(uint64_t wait)
{
	struct ecp_thread *t = ecp_ompt_unhold();
	if (!t && !(t = ecp_enter()))
		return;
	ECP_TP(lock_acquired, wait, KIND_MUTEX, 0, requested != wait, ecp_cpu_ns());
	requested = 0;
	ecp_leave(t);
}

ECP_AGENT_FN static void released(uint64_t wait)
{
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return;
	ECP_TP(lock_release, wait, KIND_MUTEX, ecp_cpu_ns());
	ecp_leave(t);
}

ECP_AGENT_FN static void on_acquired(int kind, ompt_wait_id_t wait, const void *ra)
{
	struct ecp_thread *t;
	(void)ra;
	if (is_lock(kind)) {
		acquired(wait);
	} else if (kind == OMPT_MUTEX_ORDERED && ecp_ompt_team() &&
		   (t = ecp_ompt_unhold())) {
		ECP_TP(sem_wait_end, OMP_OBJ(ecp_ompt_team()->team, OBJ_ORDERED), 0,
		       ecp_cpu_ns());
		ecp_leave(t);
	}
}

ECP_AGENT_FN static void on_released(int kind, ompt_wait_id_t wait, const void *ra)
{
	struct ompt_team *m;
	struct ecp_thread *t;
	(void)ra;
	if (is_lock(kind)) {
		released(wait);
	} else if (kind == OMPT_MUTEX_ORDERED && (m = ecp_ompt_team()) &&
		   (t = ecp_enter())) {
		ECP_TP(sem_post, OMP_OBJ(m->team, OBJ_ORDERED), ecp_cpu_ns());
		ecp_leave(t);
	}
}

/* A nest lock taken again, or released while still held. */
ECP_AGENT_FN static void on_nest_lock(int endpoint, ompt_wait_id_t wait, const void *ra)
{
	(void)ra;
	if (endpoint == OMPT_SCOPE_BEGIN)
		acquired(wait);
	else if (endpoint == OMPT_SCOPE_END)
		released(wait);
}

#define SET(event, fn) set((event), (ompt_callback_t)(void (*)(void))(fn))

ECP_AGENT_FN void ecp_ompt_register_sync(ompt_set_callback_t set)
{
	SET(OMPT_CB_LOCK_INIT, on_lock_init);
	SET(OMPT_CB_MUTEX_ACQUIRE, on_acquire);
	SET(OMPT_CB_MUTEX_ACQUIRED, on_acquired);
	SET(OMPT_CB_MUTEX_RELEASED, on_released);
	SET(OMPT_CB_NEST_LOCK, on_nest_lock);
}
