/* SPDX-License-Identifier: MIT */
/* Thread lifetime: create, start, exit (return, pthread_exit, cancellation),
 * join, detach and names. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

struct start_args {
	void *(*fn)(void *);
	void *arg;
	uint64_t create_id;
};

/* A cancel is a dependency of the cancelled thread's end on the thread
 * that asked for it (issue 32): pthread_cancel writes one unit into the
 * target's cancel channel (EVENTS.md), and a thread that ends without
 * returning or calling pthread_exit -- cancelled, in a blocked wait or at a
 * cancellation point -- reads it before its thread_exit. */
#define CANCEL_CHAN(handle)                                                              \
	(UINT64_C(0x4341000000000000) | ((uint64_t)(handle)&UINT64_C(0xffffffffffff)))

ECP_AGENT_FN void ecp_thread_cleanup(void *unused)
{
	struct ecp_thread *t = ecp_self;
	(void)unused;
	/* (cancelled inside a wrapped call, its guard is still raised) */
	if (t && !t->left) {
		t->guard++;
		ECP_TP(chan_read, CANCEL_CHAN(pthread_self()), 1, ecp_cpu_ns());
		t->guard--;
	}
	ecp_thread_end(t);
}

/* Runs the program's start routine inside the thread's recording: the
 * cleanup handler ends it on return, pthread_exit and cancellation alike. */
ECP_AGENT_FN static void *trampoline(void *p)
{
	struct start_args a = *(struct start_args *)p;
	struct ecp_thread *t;
	void *ret;

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
	if (ecp_self)
		ecp_self->left = true;
	pthread_cleanup_pop(1);
	return ret;
}

/* The creating and joining wrappers time their own windows (agent.h), the
 * real call left out: on one CPU the new thread runs inside the real
 * pthread_create, LTTng-UST's set-up of it included, and a join waits for
 * the thread's end.  Their events cost the creating thread 3-5x the
 * driver's calibrated figure (the caches cold after the new thread ran):
 * 20,000 threads made 4 at a time left main 50-100 ms above its own
 * clock. */
ECP_AGENT_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
				 void *(*fn)(void *), void *arg)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_create) real = ECP_REAL(pthread_create);
	struct ecp_thread *t;
	struct start_args *a;
	int rc;

	if (!ecp_agent_ready || !(t = ecp_enter_timed_at(ecp_t0_)))
		return real(thread, attr, fn, arg);
	a = malloc(sizeof(*a));
	if (!a) {
		ecp_leave_timed(t);
		return real(thread, attr, fn, arg);
	}
	a->fn = fn;
	a->arg = arg;
	uint64_t id = a->create_id = ecp_next_create_id();
	rc = ECP_UNTIMED(t, real(thread, attr, trampoline, a));
	if (rc)
		free(a);
	ECP_TP(thread_create, id, (uint64_t)(uintptr_t)fn, rc == 0, ecp_cpu_ns());
	ecp_leave_timed(t);
	return rc;
}

/* A join: a join that failed (EBUSY, ETIMEDOUT: the timed and try joins)
 * ends with ok = 0 and synchronizes nothing. */
#define JOIN_CALL(t, thread, call)                                                       \
	__extension__({                                                                  \
		ECP_TP(thread_join_begin, (uint64_t)(thread), ecp_cpu_ns());             \
		int rc_ = ECP_UNTIMED(t, call), saved_ = errno;                          \
		ECP_TP(thread_join_end, (uint64_t)(thread), rc_ == 0, ecp_cpu_ns());     \
		ecp_leave_timed(t);                                                      \
		errno = saved_;                                                          \
		rc_;                                                                     \
	})

ECP_AGENT_API int pthread_join(pthread_t thread, void **retval)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_join) real = ECP_REAL(pthread_join);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(thread, retval);
	return JOIN_CALL(t, thread, real(thread, retval));
}

ECP_AGENT_API int pthread_tryjoin_np(pthread_t thread, void **retval)
{
	ECP_WINDOW_OPEN;
	__typeof__(&pthread_tryjoin_np) real = ECP_REAL(pthread_tryjoin_np);
	struct ecp_thread *t = ecp_enter_timed_at(ecp_t0_);
	if (!t)
		return real(thread, retval);
	return JOIN_CALL(t, thread, real(thread, retval));
}

ECP_AGENT_API int pthread_timedjoin_np(pthread_t thread, void **retval,
				       const struct timespec *abstime)
{
	__typeof__(&pthread_timedjoin_np) real = ECP_REAL(pthread_timedjoin_np);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(thread, retval, abstime);
	return JOIN_CALL(t, thread, real(thread, retval, abstime));
}

ECP_AGENT_API int pthread_clockjoin_np(pthread_t thread, void **retval, clockid_t clk,
				       const struct timespec *abstime)
{
	__typeof__(&pthread_clockjoin_np) real = ECP_REAL(pthread_clockjoin_np);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(thread, retval, clk, abstime);
	return JOIN_CALL(t, thread, real(thread, retval, clk, abstime));
}

/* The cancelled thread's end depends on the cancel (CANCEL_CHAN above),
 * written before the call so that the trace orders it first. */
ECP_AGENT_API int pthread_cancel(pthread_t thread)
{
	__typeof__(&pthread_cancel) real = ECP_REAL(pthread_cancel);
	struct ecp_thread *t = ecp_enter_timed();
	if (t) {
		ECP_TP(chan_write, CANCEL_CHAN(thread), 1, ecp_cpu_ns());
		ecp_leave_timed(t);
	}
	return real(thread);
}

ECP_AGENT_API void pthread_exit(void *retval)
{
	__typeof__(&pthread_exit) real = ECP_REAL(pthread_exit);
	if (ecp_self)
		ecp_self->left = true;
	real(retval);
	__builtin_unreachable();
}

ECP_AGENT_API int pthread_detach(pthread_t thread)
{
	__typeof__(&pthread_detach) real = ECP_REAL(pthread_detach);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(thread);
	ECP_TP(thread_detach, (uint64_t)thread, ecp_cpu_ns());
	ecp_leave_timed(t);
	return real(thread);
}

ECP_AGENT_FN static void emit_name(const char *name)
{
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return;
	ECP_TP(thread_name, name, ecp_cpu_ns());
	ecp_leave_timed(t);
}

ECP_AGENT_API int pthread_setname_np(pthread_t thread, const char *name)
{
	__typeof__(&pthread_setname_np) real = ECP_REAL(pthread_setname_np);
	int rc = real(thread, name);
	/* thread_name names the emitting thread: only a thread naming itself. */
	if (rc == 0 && pthread_equal(thread, pthread_self()))
		emit_name(name);
	return rc;
}

ECP_AGENT_API int prctl(int option, ...)
{
	__typeof__(&prctl) real = ECP_REAL(prctl);
	unsigned long a[4];
	va_list ap;
	int rc, saved;

	/* prctl takes up to four further unsigned long arguments; passing all
	 * four on is what glibc's own wrapper does. */
	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	rc = real(option, a[0], a[1], a[2], a[3]);
	if (rc == 0 && option == PR_SET_NAME && a[0]) {
		char name[17];
		saved = errno;
		strncpy(name, (const char *)a[0], 16);
		name[16] = 0;
		emit_name(name);
		errno = saved;
	}
	return rc;
}

/* fork passes through liblttng-ust-fork (preloaded after the agent), which
 * takes LTTng-UST's own locks around the fork: with the guard raised they
 * are not recorded as the program's.  The child stops recording (the
 * atfork handler drops its state), so only the parent lowers the guard. */
ECP_AGENT_API pid_t fork(void)
{
	struct ecp_thread *t = ecp_self;
	pid_t pid;
	if (t)
		t->guard++;
	pid = ECP_REAL(fork)();
	if (pid != 0 && t)
		t->guard--;
	return pid;
}
