/* SPDX-License-Identifier: MIT */
/* Mutexes (normal, recursive, error-checking), spinlocks and rwlocks.
 *
 * Each wrapper runs the real call with the thread's guard raised, so
 * whatever libc or LTTng-UST does inside is never recorded, and keeps the
 * errno of the real call.  lock_release is written before the unlock: after
 * it another thread could acquire and write its lock_acquired first. */
#include <errno.h>

#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

enum { KIND_MUTEX = 0, KIND_SPIN = 1, KIND_RWLOCK = 2 };
enum { MODE_EXCL = 0, MODE_SHARED = 1 };

#define OBJ(p) ((uint64_t)(uintptr_t)(p))
/* libomp's own mutexes while its OMPT tool records the constructs. */
#define OMPT_OWN() ecp_ompt_own_call(__builtin_return_address(0))

/* The common shape: [request], real call, acquired or failed. */
#define LOCK_CALL(t, obj, kind, mode, is_try, call)                                      \
	__extension__({                                                                  \
		int rc_, saved_;                                                         \
		if (!(is_try))                                                           \
			ECP_TP(lock_request, obj, kind, mode, ecp_cpu_ns());             \
		rc_ = ECP_UNTIMED(t, call);                                              \
		saved_ = errno;                                                          \
		if (rc_ == 0)                                                            \
			ECP_TP(lock_acquired, obj, kind, mode, is_try, ecp_cpu_ns());    \
		else                                                                     \
			ECP_TP(lock_failed, obj, kind, mode, rc_, ecp_cpu_ns());         \
		ecp_leave_timed(t);                                                      \
		errno = saved_;                                                          \
		rc_;                                                                     \
	})

ECP_AGENT_API int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	__typeof__(&pthread_mutex_init) real = ECP_REAL(pthread_mutex_init);
	int rc = real(m, attr), type = PTHREAD_MUTEX_NORMAL;
	struct ecp_thread *t;
	if (rc || !(t = ecp_enter_timed()))
		return rc;
	if (attr)
		pthread_mutexattr_gettype(attr, &type);
	ECP_TP(lock_init, OBJ(m), KIND_MUTEX, (uint8_t)type, ecp_cpu_ns());
	ecp_leave_timed(t);
	return rc;
}

ECP_AGENT_API int pthread_mutex_lock(pthread_mutex_t *m)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_mutex_lock) real = ECP_REAL(pthread_mutex_lock);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(m);
	return LOCK_CALL(t, OBJ(m), KIND_MUTEX, MODE_EXCL, 0, real(m));
}

ECP_AGENT_API int pthread_mutex_trylock(pthread_mutex_t *m)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_mutex_trylock) real = ECP_REAL(pthread_mutex_trylock);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(m);
	return LOCK_CALL(t, OBJ(m), KIND_MUTEX, MODE_EXCL, 1, real(m));
}

ECP_AGENT_API int pthread_mutex_timedlock(pthread_mutex_t *m,
					  const struct timespec *abstime)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_mutex_timedlock) real = ECP_REAL(pthread_mutex_timedlock);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(m, abstime);
	return LOCK_CALL(t, OBJ(m), KIND_MUTEX, MODE_EXCL, 0, real(m, abstime));
}

ECP_AGENT_API int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
					  const struct timespec *abstime)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_mutex_clocklock) real = ECP_REAL(pthread_mutex_clocklock);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(m, clk, abstime);
	return LOCK_CALL(t, OBJ(m), KIND_MUTEX, MODE_EXCL, 0, real(m, clk, abstime));
}

ECP_AGENT_API int pthread_mutex_unlock(pthread_mutex_t *m)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_mutex_unlock) real = ECP_REAL(pthread_mutex_unlock);
	struct ecp_thread *t = OMPT_OWN() ? 0 : ecp_enter_timed_at(ecp_t0_);
	int rc, saved;
	if (!t)
		return real(m);
	/* glibc records the owner's tid in every mutex kind; an unlock by a
	 * thread that does not hold it (refused for error-checking mutexes,
	 * undefined otherwise) releases nothing and writes no event. */
	if (m->__data.__owner == t->tid)
		ECP_TP(lock_release, OBJ(m), KIND_MUTEX, ecp_cpu_ns());
	rc = ECP_UNTIMED_LAST(t, real(m));
	saved = errno;
	ecp_leave(t);
	errno = saved;
	return rc;
}

ECP_AGENT_API int pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
	__typeof__(&pthread_spin_init) real = ECP_REAL(pthread_spin_init);
	int rc = real(s, pshared);
	struct ecp_thread *t;
	if (rc || !(t = ecp_enter_timed()))
		return rc;
	ECP_TP(lock_init, OBJ(s), KIND_SPIN, 0, ecp_cpu_ns());
	ecp_leave_timed(t);
	return rc;
}

ECP_AGENT_API int pthread_spin_lock(pthread_spinlock_t *s)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_spin_lock) real = ECP_REAL(pthread_spin_lock);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(s);
	return LOCK_CALL(t, OBJ(s), KIND_SPIN, MODE_EXCL, 0, real(s));
}

ECP_AGENT_API int pthread_spin_trylock(pthread_spinlock_t *s)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_spin_trylock) real = ECP_REAL(pthread_spin_trylock);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(s);
	return LOCK_CALL(t, OBJ(s), KIND_SPIN, MODE_EXCL, 1, real(s));
}

ECP_AGENT_API int pthread_spin_unlock(pthread_spinlock_t *s)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_spin_unlock) real = ECP_REAL(pthread_spin_unlock);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(s);
	ECP_TP(lock_release, OBJ(s), KIND_SPIN, ecp_cpu_ns());
	int rc = ECP_UNTIMED_LAST(t, real(s));
	ecp_leave(t);
	return rc;
}

ECP_AGENT_API int pthread_rwlock_init(pthread_rwlock_t *l,
				      const pthread_rwlockattr_t *attr)
{
	__typeof__(&pthread_rwlock_init) real = ECP_REAL(pthread_rwlock_init);
	int rc = real(l, attr);
	struct ecp_thread *t;
	if (rc || !(t = ecp_enter_timed()))
		return rc;
	ECP_TP(lock_init, OBJ(l), KIND_RWLOCK, 0, ecp_cpu_ns());
	ecp_leave_timed(t);
	return rc;
}

#define RWLOCK_WRAPPER(name, mode, is_try, params, args)                                 \
	ECP_AGENT_API int name params                                                    \
	{                                                                                \
		ECP_WINDOW_OPEN;                                                         \
		__typeof__(&name) real = ECP_REAL(name);                                 \
		struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);                      \
		if (!t)                                                                  \
			return real args;                                                \
		return LOCK_CALL(t, OBJ(l), KIND_RWLOCK, mode, is_try, real args);       \
	}

RWLOCK_WRAPPER(pthread_rwlock_rdlock, MODE_SHARED, 0, (pthread_rwlock_t * l), (l))
RWLOCK_WRAPPER(pthread_rwlock_wrlock, MODE_EXCL, 0, (pthread_rwlock_t * l), (l))
RWLOCK_WRAPPER(pthread_rwlock_tryrdlock, MODE_SHARED, 1, (pthread_rwlock_t * l), (l))
RWLOCK_WRAPPER(pthread_rwlock_trywrlock, MODE_EXCL, 1, (pthread_rwlock_t * l), (l))
RWLOCK_WRAPPER(pthread_rwlock_timedrdlock, MODE_SHARED, 0,
	       (pthread_rwlock_t * l, const struct timespec *abstime), (l, abstime))
RWLOCK_WRAPPER(pthread_rwlock_timedwrlock, MODE_EXCL, 0,
	       (pthread_rwlock_t * l, const struct timespec *abstime), (l, abstime))
RWLOCK_WRAPPER(pthread_rwlock_clockrdlock, MODE_SHARED, 0,
	       (pthread_rwlock_t * l, clockid_t clk, const struct timespec *abstime),
	       (l, clk, abstime))
RWLOCK_WRAPPER(pthread_rwlock_clockwrlock, MODE_EXCL, 0,
	       (pthread_rwlock_t * l, clockid_t clk, const struct timespec *abstime),
	       (l, clk, abstime))

ECP_AGENT_API int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_rwlock_unlock) real = ECP_REAL(pthread_rwlock_unlock);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(l);
	ECP_TP(lock_release, OBJ(l), KIND_RWLOCK, ecp_cpu_ns());
	int rc = ECP_UNTIMED_LAST(t, real(l));
	ecp_leave(t);
	return rc;
}
