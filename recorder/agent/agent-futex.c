/* SPDX-License-Identifier: MIT */
/* Futexes reached through syscall(SYS_futex, ...).
 *
 * libstdc++ implements C++20 std::atomic<T>::wait/notify, std::latch,
 * std::barrier and std::counting_semaphore with inline code that calls
 * syscall(SYS_futex, ...) from the program itself: FUTEX_WAIT(_BITSET) to
 * block while a word holds a value, FUTEX_WAKE(_BITSET) to wake waiters.
 * The wait is written as futex_wait_begin/end and the wake as futex_wake,
 * before the syscall (as a condition variable's signal), so that the
 * trace orders it before the wait it ends; the reader makes a wake -> woken
 * wait dependency of them.  Other futex operations (requeue, wake-op,
 * priority inheritance) are named as unmodelled.  glibc's own futexes
 * (mutexes, condition variables) never come through here: it calls the
 * kernel directly.  Every other system call passes straight through. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

#ifndef FUTEX_CMD_MASK
#define FUTEX_CMD_MASK ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)
#endif

ECP_AGENT_FN static uint64_t rel_ns(const struct timespec *ts)
{
	if (!ts || ts->tv_sec < 0 || ts->tv_nsec < 0)
		return 0;
	uint64_t ns = (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
	return ns ? ns : 1;
}

ECP_AGENT_FN static const char *op_name(int cmd)
{
	switch (cmd) {
	case FUTEX_REQUEUE:
		return "syscall(SYS_futex, FUTEX_REQUEUE)";
	case FUTEX_CMP_REQUEUE:
		return "syscall(SYS_futex, FUTEX_CMP_REQUEUE)";
	case FUTEX_WAKE_OP:
		return "syscall(SYS_futex, FUTEX_WAKE_OP)";
	case FUTEX_LOCK_PI:
		return "syscall(SYS_futex, FUTEX_LOCK_PI)";
	case FUTEX_UNLOCK_PI:
		return "syscall(SYS_futex, FUTEX_UNLOCK_PI)";
	case FUTEX_TRYLOCK_PI:
		return "syscall(SYS_futex, FUTEX_TRYLOCK_PI)";
	case FUTEX_WAIT_REQUEUE_PI:
		return "syscall(SYS_futex, FUTEX_WAIT_REQUEUE_PI)";
	case FUTEX_CMP_REQUEUE_PI:
		return "syscall(SYS_futex, FUTEX_CMP_REQUEUE_PI)";
	default:
		return "syscall(SYS_futex, other operation)";
	}
}

/* syscall takes up to six further long arguments; passing all six on is
 * what glibc's own syscall() does with its registers. */
ECP_AGENT_API long syscall(long nr, ...)
{
	__typeof__(&syscall) real = ECP_REAL(syscall);
	long a[6];
	va_list ap;
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	struct ecp_thread *t;
#ifdef SYS_futex_waitv
	if (nr == SYS_futex_waitv && (t = ecp_enter())) {
		ecp_unmodelled("syscall(SYS_futex_waitv)");
		ecp_leave(t);
	}
#endif
	if (nr != SYS_futex || !(t = ecp_enter_timed()))
		return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	uint64_t addr = (uint64_t)a[0];
	int cmd = (int)a[1] & FUTEX_CMD_MASK;
	long r;
	int saved;
	bool closed = false; /* the window closed before the call */
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET: {
		/* FUTEX_WAIT's timeout is relative; FUTEX_WAIT_BITSET's an
		 * absolute time on CLOCK_MONOTONIC (or CLOCK_REALTIME) */
		const struct timespec *ts = (const struct timespec *)a[3];
		uint64_t tmo = cmd == FUTEX_WAIT
				   ? rel_ns(ts)
				   : ecp_relative_ns((int)a[1] & FUTEX_CLOCK_REALTIME
							 ? CLOCK_REALTIME
							 : CLOCK_MONOTONIC,
						     ts);
		ECP_TP(futex_wait_begin, addr, tmo, ecp_cpu_ns());
		r = ECP_UNTIMED(t, real(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
		saved = errno;
		ECP_TP(futex_wait_end, addr, r == 0 ? 0 : saved, ecp_cpu_ns());
		break;
	}
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		ECP_TP(futex_wake, addr, (int)a[2] > 0 ? (uint64_t)(int)a[2] : 0,
		       ecp_cpu_ns());
		r = ECP_UNTIMED_LAST(t, real(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
		closed = true;
		saved = errno;
		break;
	default:
		ecp_unmodelled(op_name(cmd));
		r = ECP_UNTIMED_LAST(t, real(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
		closed = true;
		saved = errno;
		break;
	}
	if (closed)
		ecp_leave(t);
	else
		ecp_leave_timed(t);
	errno = saved;
	return r;
}
