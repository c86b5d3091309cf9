/* SPDX-License-Identifier: MIT */
/* Signals between the program's own threads (issue 32): pbzip2's and many
 * servers' signal thread waits in sigwait() for the whole run, until main
 * wakes it with pthread_kill() at the end.  Recorded as a channel per signal
 * number (EVENTS.md, "Signals"): a signal the program sends to itself
 * (pthread_kill, pthread_sigqueue, raise, tgkill, or kill and sigqueue on
 * its own pid) writes one unit into the channel of that signal before the
 * call, so that the trace orders it before the wait it ends; a sigwait,
 * sigwaitinfo or sigtimedwait that returns the signal reads one unit right
 * after its delay_end.  The reader makes that wait a dependency on the
 * sender, as a read of a pipe (simulator/trace/builder-channels.c); a signal from
 * another process writes nothing and the wait stays a delay, which it is.
 * Standard signals do not queue: two sent before one wait leave a unit the
 * next wait takes, a dependency on a sender that had already run -- never
 * a false delay.  pause() and sigsuspend() end when a handler ran, for any
 * signal: every signal sent also writes a unit into the "any signal"
 * channel (number 0), and those waits take all of it, so they depend on
 * the last signal sent before they returned. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "recorder/agent/agent-delay.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

/* channel numbers far above the agent's counted pipes (agent-io.c) */
#define SIGNAL_CHAN(sig) (UINT64_C(0x5349470000000000) | (uint64_t)(unsigned)(sig))

ECP_AGENT_FN static void sent(int sig)
{
	struct ecp_thread *t;
	if (sig <= 0 || !(t = ecp_enter()))
		return;
	ECP_TP(chan_write, SIGNAL_CHAN(sig), 1, ecp_cpu_ns());
	ECP_TP(chan_write, SIGNAL_CHAN(0), 1, ecp_cpu_ns());
	ecp_leave(t);
}

ECP_AGENT_FN static bool to_self(pid_t pid)
{
	return pid == getpid();
}

ECP_AGENT_API int pthread_kill(pthread_t th, int sig)
{
	__typeof__(&pthread_kill) real = ECP_REAL(pthread_kill);
	sent(sig);
	return real(th, sig);
}

ECP_AGENT_API int pthread_sigqueue(pthread_t th, int sig, const union sigval value)
{
	__typeof__(&pthread_sigqueue) real = ECP_REAL(pthread_sigqueue);
	sent(sig);
	return real(th, sig, value);
}

ECP_AGENT_API int raise(int sig)
{
	__typeof__(&raise) real = ECP_REAL(raise);
	sent(sig);
	return real(sig);
}

ECP_AGENT_API int kill(pid_t pid, int sig)
{
	__typeof__(&kill) real = ECP_REAL(kill);
	if (to_self(pid))
		sent(sig);
	return real(pid, sig);
}

ECP_AGENT_API int sigqueue(pid_t pid, int sig, const union sigval value)
{
	__typeof__(&sigqueue) real = ECP_REAL(sigqueue);
	if (to_self(pid))
		sent(sig);
	return real(pid, sig, value);
}

ECP_AGENT_API int tgkill(pid_t tgid, pid_t tid, int sig)
{
	__typeof__(&tgkill) real = ECP_REAL(tgkill);
	if (to_self(tgid))
		sent(sig);
	return real(tgid, tid, sig);
}

/* A wait for a signal: a delay, and right after it the read of `units`
 * from the channel `chan_expr` names once the call returned (r_), none
 * when it is 0 (no signal taken). */
#define SIGNAL_WAIT(t, tmo, call, chan_expr, units)                                      \
	__extension__({                                                                  \
		ECP_TP(delay_begin, D_SIGWAIT, -1, (uint64_t)(tmo), ecp_cpu_ns());       \
		int r_ = (call);                                                         \
		int saved_ = errno;                                                      \
		ECP_TP(delay_end, D_SIGWAIT, (int64_t)r_, ecp_cpu_ns());                 \
		uint64_t chan_ = (chan_expr);                                            \
		if (chan_)                                                               \
			ECP_TP(chan_read, chan_, (units), ecp_cpu_ns());                 \
		ecp_leave(t);                                                            \
		errno = saved_;                                                          \
		r_;                                                                      \
	})

/* What a wait for any handled signal takes from the "any signal" channel:
 * all that is there (the reader takes what was written). */
#define ALL_UNITS INT64_C(0x7fffffff)

ECP_AGENT_API int sigwait(const sigset_t *restrict set, int *restrict sig)
{
	__typeof__(&sigwait) real = ECP_REAL(sigwait);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(set, sig);
	return SIGNAL_WAIT(t, 0, real(set, sig), r_ == 0 ? SIGNAL_CHAN(*sig) : 0, 1);
}

ECP_AGENT_API int sigwaitinfo(const sigset_t *restrict set, siginfo_t *restrict info)
{
	__typeof__(&sigwaitinfo) real = ECP_REAL(sigwaitinfo);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(set, info);
	return SIGNAL_WAIT(t, 0, real(set, info), r_ > 0 ? SIGNAL_CHAN(r_) : 0, 1);
}

ECP_AGENT_API int sigtimedwait(const sigset_t *restrict set, siginfo_t *restrict info,
			       const struct timespec *restrict tmo)
{
	__typeof__(&sigtimedwait) real = ECP_REAL(sigtimedwait);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(set, info, tmo);
	return SIGNAL_WAIT(t, ecp_timespec_ns(tmo), real(set, info, tmo),
			   r_ > 0 ? SIGNAL_CHAN(r_) : 0, 1);
}

ECP_AGENT_API int pause(void)
{
	__typeof__(&pause) real = ECP_REAL(pause);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real();
	return SIGNAL_WAIT(t, 0, real(), SIGNAL_CHAN(0), ALL_UNITS);
}

ECP_AGENT_API int sigsuspend(const sigset_t *mask)
{
	__typeof__(&sigsuspend) real = ECP_REAL(sigsuspend);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(mask);
	return SIGNAL_WAIT(t, 0, real(mask), SIGNAL_CHAN(0), ALL_UNITS);
}
