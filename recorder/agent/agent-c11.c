/* SPDX-License-Identifier: MIT */
/* C11 threads (<threads.h>): thrd_*, mtx_*, cnd_*, call_once.
 *
 * glibc implements them on its pthread internals by direct calls, which no
 * preloaded pthread_* wrapper sees: without these wrappers a C11 program
 * records as one thread.  They write the same events as the pthread
 * wrappers (glibc's mtx_t, cnd_t and once_flag are its pthread objects), so
 * the reader models them alike.  C11 result codes are mapped to the errno
 * values the events carry (thrd_timedout: ETIMEDOUT, thrd_busy: EBUSY). */
#include <errno.h>
#include <stdlib.h>
#include <threads.h>

#include "recorder/agent/agent-delay.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

#define OBJ(p)     ((uint64_t)(uintptr_t)(p))
#define KIND_MUTEX 0
#define MODE_EXCL  0

struct c11_start {
	thrd_start_t fn;
	void *arg;
	uint64_t create_id;
};

ECP_AGENT_FN static int c11_err(int rc)
{
	switch (rc) {
	case thrd_success:
		return 0;
	case thrd_timedout:
		return ETIMEDOUT;
	case thrd_busy:
		return EBUSY;
	case thrd_nomem:
		return ENOMEM;
	default:
		return EINVAL;
	}
}

/* As the pthread trampoline (agent-thread.c): the thread's recording ends
 * in the cleanup handler, on return and on thrd_exit alike. */
ECP_AGENT_FN static int c11_trampoline(void *p)
{
	struct c11_start a = *(struct c11_start *)p;
	struct ecp_thread *t;
	int ret;

	free(p);
	t = ecp_thread_begin(a.create_id);
	if (t) {
		t->guard++;
		ECP_TP(thread_start, a.create_id, (uint64_t)(uintptr_t)a.fn,
		       (uint64_t)pthread_self(), ecp_thread_cpu_ns());
		t->guard--;
	}
	pthread_cleanup_push(ecp_thread_cleanup, NULL);
	ret = a.fn(a.arg);
	pthread_cleanup_pop(1);
	return ret;
}

ECP_AGENT_API int thrd_create(thrd_t *thr, thrd_start_t fn, void *arg)
{
	__typeof__(&thrd_create) real = ECP_REAL(thrd_create);
	struct ecp_thread *t;
	struct c11_start *a;
	int rc;

	if (!ecp_agent_ready || !(t = ecp_enter()))
		return real(thr, fn, arg);
	a = malloc(sizeof(*a));
	if (!a) {
		ecp_leave(t);
		return real(thr, fn, arg);
	}
	a->fn = fn;
	a->arg = arg;
	uint64_t id = a->create_id = ecp_next_create_id();
	rc = real(thr, c11_trampoline, a);
	int saved = errno;
	if (rc != thrd_success)
		free(a);
	ECP_TP(thread_create, id, (uint64_t)(uintptr_t)fn, rc == thrd_success,
	       ecp_cpu_ns());
	ecp_leave(t);
	errno = saved;
	return rc;
}

ECP_AGENT_API int thrd_join(thrd_t thr, int *res)
{
	__typeof__(&thrd_join) real = ECP_REAL(thrd_join);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(thr, res);
	ECP_TP(thread_join_begin, (uint64_t)thr, ecp_cpu_ns());
	int rc = real(thr, res), saved = errno;
	ECP_TP(thread_join_end, (uint64_t)thr, rc == thrd_success, ecp_cpu_ns());
	ecp_leave(t);
	errno = saved;
	return rc;
}

ECP_AGENT_API int thrd_detach(thrd_t thr)
{
	__typeof__(&thrd_detach) real = ECP_REAL(thrd_detach);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(thr);
	ECP_TP(thread_detach, (uint64_t)thr, ecp_cpu_ns());
	ecp_leave(t);
	return real(thr);
}

ECP_AGENT_API int thrd_sleep(const struct timespec *dur, struct timespec *rem)
{
	__typeof__(&thrd_sleep) real = ECP_REAL(thrd_sleep);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(dur, rem);
	uint64_t tmo = dur && dur->tv_sec >= 0 && dur->tv_nsec >= 0
			   ? (uint64_t)dur->tv_sec * 1000000000u + (uint64_t)dur->tv_nsec
			   : 0;
	ECP_TP(delay_begin, D_THRD_SLEEP, -1, tmo, ecp_cpu_ns());
	int rc = real(dur, rem), saved = errno;
	ECP_TP(delay_end, D_THRD_SLEEP, rc, ecp_cpu_ns());
	ecp_leave(t);
	errno = saved;
	return rc;
}

/* glibc's thrd_yield calls the kernel directly, past the sched_yield
 * wrapper: named here too (agent-unmodelled.c). */
ECP_AGENT_API void thrd_yield(void)
{
	__typeof__(&thrd_yield) real = ECP_REAL(thrd_yield);
	struct ecp_thread *t = ecp_enter();
	if (t) {
		ecp_unmodelled("thrd_yield");
		ecp_leave(t);
	}
	real();
}

ECP_AGENT_API int mtx_init(mtx_t *m, int type)
{
	__typeof__(&mtx_init) real = ECP_REAL(mtx_init);
	int rc = real(m, type);
	struct ecp_thread *t;
	if (rc != thrd_success || !(t = ecp_enter()))
		return rc;
	/* the pthread mutex type: recursive (1) or normal (0) */
	ECP_TP(lock_init, OBJ(m), KIND_MUTEX, (type & mtx_recursive) ? 1 : 0,
	       ecp_cpu_ns());
	ecp_leave(t);
	return rc;
}

/* [request], the real call, acquired or failed: as LOCK_CALL of
 * agent-lock.c, with C11 result codes. */
#define MTX_CALL(t, m, is_try, call)                                                     \
	__extension__({                                                                  \
		if (!(is_try))                                                           \
			ECP_TP(lock_request, OBJ(m), KIND_MUTEX, MODE_EXCL,              \
			       ecp_cpu_ns());                                            \
		int rc_ = (call), saved_ = errno;                                        \
		if (rc_ == thrd_success)                                                 \
			ECP_TP(lock_acquired, OBJ(m), KIND_MUTEX, MODE_EXCL, is_try,     \
			       ecp_cpu_ns());                                            \
		else                                                                     \
			ECP_TP(lock_failed, OBJ(m), KIND_MUTEX, MODE_EXCL, c11_err(rc_), \
			       ecp_cpu_ns());                                            \
		ecp_leave(t);                                                            \
		errno = saved_;                                                          \
		rc_;                                                                     \
	})

ECP_AGENT_API int mtx_lock(mtx_t *m)
{
	__typeof__(&mtx_lock) real = ECP_REAL(mtx_lock);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(m);
	return MTX_CALL(t, m, 0, real(m));
}

ECP_AGENT_API int mtx_trylock(mtx_t *m)
{
	__typeof__(&mtx_trylock) real = ECP_REAL(mtx_trylock);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(m);
	return MTX_CALL(t, m, 1, real(m));
}

ECP_AGENT_API int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
	__typeof__(&mtx_timedlock) real = ECP_REAL(mtx_timedlock);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(m, ts);
	return MTX_CALL(t, m, 0, real(m, ts));
}

ECP_AGENT_API int mtx_unlock(mtx_t *m)
{
	__typeof__(&mtx_unlock) real = ECP_REAL(mtx_unlock);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(m);
	/* glibc's mtx_t is a pthread mutex: as pthread_mutex_unlock, only the
	 * owner's unlock releases it. */
	if (((pthread_mutex_t *)(void *)m)->__data.__owner == t->tid)
		ECP_TP(lock_release, OBJ(m), KIND_MUTEX, ecp_cpu_ns());
	int rc = real(m), saved = errno;
	ecp_leave(t);
	errno = saved;
	return rc;
}

#define CND_END(t, c, m, rc)                                                             \
	__extension__({                                                                  \
		int saved_ = errno;                                                      \
		ECP_TP(cond_wait_end, OBJ(c), OBJ(m), c11_err(rc), ecp_cpu_ns());        \
		ecp_leave(t);                                                            \
		errno = saved_;                                                          \
		rc;                                                                      \
	})

ECP_AGENT_API int cnd_wait(cnd_t *c, mtx_t *m)
{
	__typeof__(&cnd_wait) real = ECP_REAL(cnd_wait);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(c, m);
	ECP_TP(cond_wait_begin, OBJ(c), OBJ(m), 0, ecp_cpu_ns());
	int rc = real(c, m);
	return CND_END(t, c, m, rc);
}

ECP_AGENT_API int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
				const struct timespec *restrict ts)
{
	__typeof__(&cnd_timedwait) real = ECP_REAL(cnd_timedwait);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(c, m, ts);
	/* C11 deadlines are on TIME_UTC, the realtime clock */
	ECP_TP(cond_wait_begin, OBJ(c), OBJ(m), ecp_relative_ns(CLOCK_REALTIME, ts),
	       ecp_cpu_ns());
	int rc = real(c, m, ts);
	return CND_END(t, c, m, rc);
}

ECP_AGENT_API int cnd_signal(cnd_t *c)
{
	__typeof__(&cnd_signal) real = ECP_REAL(cnd_signal);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(c);
	ECP_TP(cond_signal, OBJ(c), ecp_cpu_ns());
	int rc = real(c), saved = errno;
	ecp_leave(t);
	errno = saved;
	return rc;
}

ECP_AGENT_API int cnd_broadcast(cnd_t *c)
{
	__typeof__(&cnd_broadcast) real = ECP_REAL(cnd_broadcast);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(c);
	ECP_TP(cond_broadcast, OBJ(c), ecp_cpu_ns());
	int rc = real(c), saved = errno;
	ecp_leave(t);
	errno = saved;
	return rc;
}

/* As pthread_once (agent-wait.c): the init routine is program code, run
 * with the guard lowered, through the trampoline that notes it ran. */
ECP_AGENT_API void call_once(once_flag *flag, void (*fn)(void))
{
	__typeof__(&call_once) real = ECP_REAL(call_once);
	struct ecp_thread *t = ecp_enter();
	if (!t) {
		real(flag, fn);
		return;
	}
	ECP_TP(once_begin, OBJ(flag), ecp_cpu_ns());
	void (*outer_fn)(void) = t->once_fn;
	bool outer_ran = t->once_ran;
	t->once_fn = fn;
	t->once_ran = false;
	ecp_leave(t);
	real(flag, ecp_once_trampoline);
	int saved = errno;
	t->guard++;
	ecp_flush_frames(t);
	ECP_TP(once_end, OBJ(flag), t->once_ran, ecp_cpu_ns());
	t->once_fn = outer_fn;
	t->once_ran = outer_ran;
	ecp_leave(t);
	errno = saved;
}
