/* SPDX-License-Identifier: MIT */
/* Condition variables, semaphores, barriers and pthread_once. */
#include <errno.h>
#include <semaphore.h>
#include <stdint.h>

#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

#define OBJ(p) ((uint64_t)(uintptr_t)(p))
/* libomp's own condition variables (its threads sleeping and being woken)
 * while its OMPT tool records the constructs they serve. */
#define OMPT_OWN() ecp_ompt_own_call(__builtin_return_address(0))
/* glibc's pthread_cond_* exist in two versions; this is the current one. */
#define COND_VERSION "GLIBC_2.3.2"

/* Relative timeout of an absolute deadline on `clk`; at least 1 so that a
 * timed wait whose deadline has passed still reads as timed. */
ECP_AGENT_FN uint64_t ecp_relative_ns(clockid_t clk, const struct timespec *abstime)
{
	struct timespec now;
	int64_t d;
	if (!abstime)
		return 0;
	clock_gettime(clk, &now);
	d = (int64_t)(abstime->tv_sec - now.tv_sec) * 1000000000 +
	    (abstime->tv_nsec - now.tv_nsec);
	return d > 0 ? (uint64_t)d : 1;
}

/* The clock a condition variable's deadlines use (pthread_condattr_setclock);
 * glibc keeps it in bit 1 of __wrefs. */
ECP_AGENT_FN static clockid_t cond_clock(const pthread_cond_t *c)
{
	return (c->__data.__wrefs & 2) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

#define WAIT_END(t, rc, event, ...)                                                      \
	__extension__({                                                                  \
		int saved_ = errno;                                                      \
		ECP_TP(event, __VA_ARGS__, ecp_cpu_ns());                                \
		ecp_leave_timed(t);                                                      \
		errno = saved_;                                                          \
		rc;                                                                      \
	})

ECP_AGENT_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_cond_wait) real = ECP_REAL_V(pthread_cond_wait, COND_VERSION);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(c, m);
	ECP_TP(cond_wait_begin, OBJ(c), OBJ(m), 0, ecp_cpu_ns());
	int rc = ECP_UNTIMED(t, real(c, m));
	return WAIT_END(t, rc, cond_wait_end, OBJ(c), OBJ(m), rc);
}

ECP_AGENT_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
					 const struct timespec *abstime)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_cond_timedwait) real =
	    ECP_REAL_V(pthread_cond_timedwait, COND_VERSION);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(c, m, abstime);
	ECP_TP(cond_wait_begin, OBJ(c), OBJ(m), ecp_relative_ns(cond_clock(c), abstime),
	       ecp_cpu_ns());
	int rc = ECP_UNTIMED(t, real(c, m, abstime));
	return WAIT_END(t, rc, cond_wait_end, OBJ(c), OBJ(m), rc);
}

ECP_AGENT_API int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
					 clockid_t clk, const struct timespec *abstime)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_cond_clockwait) real = ECP_REAL(pthread_cond_clockwait);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(c, m, clk, abstime);
	ECP_TP(cond_wait_begin, OBJ(c), OBJ(m), ecp_relative_ns(clk, abstime),
	       ecp_cpu_ns());
	int rc = ECP_UNTIMED(t, real(c, m, clk, abstime));
	return WAIT_END(t, rc, cond_wait_end, OBJ(c), OBJ(m), rc);
}

ECP_AGENT_API int pthread_cond_signal(pthread_cond_t *c)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_cond_signal) real =
	    ECP_REAL_V(pthread_cond_signal, COND_VERSION);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(c);
	ECP_TP(cond_signal, OBJ(c), ecp_cpu_ns());
	int rc = ECP_UNTIMED_LAST(t, real(c));
	ecp_leave(t);
	return rc;
}

ECP_AGENT_API int pthread_cond_broadcast(pthread_cond_t *c)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_cond_broadcast) real =
	    ECP_REAL_V(pthread_cond_broadcast, COND_VERSION);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(c);
	ECP_TP(cond_broadcast, OBJ(c), ecp_cpu_ns());
	int rc = ECP_UNTIMED_LAST(t, real(c));
	ecp_leave(t);
	return rc;
}

ECP_AGENT_API int sem_init(sem_t *s, int pshared, unsigned value)
{
	__typeof__(&sem_init) real = ECP_REAL(sem_init);
	int rc = real(s, pshared, value);
	struct ecp_thread *t;
	if (rc || !(t = ecp_enter_timed()))
		return rc;
	ECP_TP(sem_init, OBJ(s), value, ecp_cpu_ns());
	ecp_leave_timed(t);
	return rc;
}

/* sem_* report failure through errno; the event carries it. */
#define SEM_WAIT(t, s, timeout, call)                                                    \
	__extension__({                                                                  \
		ECP_TP(sem_wait_begin, OBJ(s), timeout, ecp_cpu_ns());                   \
		int rc_ = ECP_UNTIMED(t, call);                                          \
		WAIT_END(t, rc_, sem_wait_end, OBJ(s), rc_ == 0 ? 0 : errno);            \
	})

ECP_AGENT_API int sem_wait(sem_t *s)
{
	ECP_WINDOW_OPEN;
	__typeof__(&sem_wait) real = ECP_REAL(sem_wait);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(s);
	return SEM_WAIT(t, s, 0, real(s));
}

ECP_AGENT_API int sem_trywait(sem_t *s)
{
	ECP_WINDOW_OPEN;
	__typeof__(&sem_trywait) real = ECP_REAL(sem_trywait);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(s);
	return SEM_WAIT(t, s, UINT64_MAX, real(s));
}

ECP_AGENT_API int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
	ECP_WINDOW_OPEN;
	__typeof__(&sem_timedwait) real = ECP_REAL(sem_timedwait);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(s, abstime);
	return SEM_WAIT(t, s, ecp_relative_ns(CLOCK_REALTIME, abstime), real(s, abstime));
}

ECP_AGENT_API int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abstime)
{
	ECP_WINDOW_OPEN;
	__typeof__(&sem_clockwait) real = ECP_REAL(sem_clockwait);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(s, clk, abstime);
	return SEM_WAIT(t, s, ecp_relative_ns(clk, abstime), real(s, clk, abstime));
}

ECP_AGENT_API int sem_post(sem_t *s)
{
	ECP_WINDOW_OPEN;
	__typeof__(&sem_post) real = ECP_REAL(sem_post);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(s);
	ECP_TP(sem_post, OBJ(s), ecp_cpu_ns());
	int rc = ECP_UNTIMED_LAST(t, real(s)), saved = errno;
	ecp_leave(t);
	errno = saved;
	return rc;
}

ECP_AGENT_API int pthread_barrier_init(pthread_barrier_t *b,
				       const pthread_barrierattr_t *attr, unsigned count)
{
	__typeof__(&pthread_barrier_init) real = ECP_REAL(pthread_barrier_init);
	int rc = real(b, attr, count);
	struct ecp_thread *t;
	if (rc || !(t = ecp_enter_timed()))
		return rc;
	ECP_TP(barrier_init, OBJ(b), count, ecp_cpu_ns());
	ecp_leave_timed(t);
	return rc;
}

ECP_AGENT_API int pthread_barrier_wait(pthread_barrier_t *b)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_barrier_wait) real = ECP_REAL(pthread_barrier_wait);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(b);
	ECP_TP(barrier_wait_begin, OBJ(b), ecp_cpu_ns());
	int rc = ECP_UNTIMED(t, real(b));
	return WAIT_END(t, rc, barrier_wait_end, OBJ(b),
			rc == PTHREAD_BARRIER_SERIAL_THREAD);
}

/* pthread_once's (and call_once's) init routine takes no argument: the
 * thread state carries the program's routine to this trampoline, which
 * notes that it ran. */
ECP_AGENT_FN void ecp_once_trampoline(void)
{
	struct ecp_thread *t = ecp_self;
	void (*fn)(void) = t->once_fn;
	t->once_ran = true;
	fn();
}

ECP_AGENT_API int pthread_once(pthread_once_t *once, void (*init)(void))
{
	__typeof__(&pthread_once) real = ECP_REAL(pthread_once);
	struct ecp_thread *t = ecp_enter();
	void (*outer_fn)(void);
	bool outer_ran;
	int rc;
	if (!t)
		return real(once, init);
	ECP_TP(once_begin, OBJ(once), ecp_cpu_ns());
	/* The init routine is program code: record it, so drop the guard. */
	outer_fn = t->once_fn;
	outer_ran = t->once_ran;
	t->once_fn = init;
	t->once_ran = false;
	ecp_leave(t);
	rc = real(once, ecp_once_trampoline);
	t->guard++;
	ecp_flush_frames(t);
	ECP_TP(once_end, OBJ(once), t->once_ran, ecp_cpu_ns());
	t->once_fn = outer_fn;
	t->once_ran = outer_ran;
	ecp_leave(t);
	return rc;
}
