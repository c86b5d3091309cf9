/* SPDX-License-Identifier: MIT */
/* Sleeps and multiplexers, recorded as delays: the thread sleeps without
 * waiting for another thread of the program.  They are always recorded
 * (descriptor I/O: agent-io.c).  The _FORTIFY_SOURCE variants (__poll_chk,
 * __ppoll_chk) check their buffer size and call the kernel directly, past
 * the plain wrappers: they are wrapped too. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include "recorder/agent/agent-delay.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

ECP_AGENT_FN uint64_t ecp_timespec_ns(const struct timespec *ts)
{
	if (!ts || ts->tv_sec < 0 || ts->tv_nsec < 0)
		return 0;
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

ECP_AGENT_FN uint64_t ecp_ms_ns(int ms)
{
	return ms > 0 ? (uint64_t)ms * 1000000u : 0;
}

ECP_AGENT_FN bool ecp_would_block(int fd, short events)
{
	__typeof__(&poll) poll_fn = ECP_REAL(poll);
	struct pollfd p = {.fd = fd, .events = events};
	int saved = errno;
	int n = poll_fn(&p, 1, 0);
	errno = saved;
	return n == 0;
}

ECP_AGENT_API int nanosleep(const struct timespec *req, struct timespec *rem)
{
	__typeof__(&nanosleep) real = ECP_REAL(nanosleep);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(req, rem);
	return DELAY(t, D_NANOSLEEP, -1, ecp_timespec_ns(req), int, real(req, rem));
}

ECP_AGENT_API int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
				  struct timespec *rem)
{
	__typeof__(&clock_nanosleep) real = ECP_REAL(clock_nanosleep);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(clk, flags, req, rem);
	uint64_t tmo = ecp_timespec_ns(req);
	if (req && (flags & TIMER_ABSTIME)) {
		/* An absolute deadline: what is left of it now. */
		struct timespec now;
		uint64_t deadline = tmo;
		tmo = 0;
		if (clock_gettime(clk, &now) == 0 && deadline > ecp_timespec_ns(&now))
			tmo = deadline - ecp_timespec_ns(&now);
		else if (deadline)
			tmo = 1;
	}
	return DELAY(t, D_CLOCK_NANOSLEEP, -1, tmo, int, real(clk, flags, req, rem));
}

ECP_AGENT_API int usleep(useconds_t usec)
{
	__typeof__(&usleep) real = ECP_REAL(usleep);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(usec);
	return DELAY(t, D_USLEEP, -1, (uint64_t)usec * 1000u, int, real(usec));
}

ECP_AGENT_API unsigned sleep(unsigned seconds)
{
	__typeof__(&sleep) real = ECP_REAL(sleep);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(seconds);
	return DELAY(t, D_SLEEP, -1, (uint64_t)seconds * 1000000000u, unsigned,
		     real(seconds));
}

ECP_AGENT_API int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	__typeof__(&poll) real = ECP_REAL(poll);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(fds, n, timeout);
	return DELAY(t, D_POLL, n == 1 ? fds[0].fd : -1, ecp_ms_ns(timeout), int,
		     real(fds, n, timeout));
}

ECP_AGENT_API int select(int nfds, fd_set *r, fd_set *w, fd_set *e,
			 struct timeval *timeout)
{
	__typeof__(&select) real = ECP_REAL(select);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(nfds, r, w, e, timeout);
	uint64_t tmo = timeout ? (uint64_t)timeout->tv_sec * 1000000000u +
				     (uint64_t)timeout->tv_usec * 1000u
			       : 0;
	return DELAY(t, D_SELECT, -1, tmo, int, real(nfds, r, w, e, timeout));
}

ECP_AGENT_API int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	__typeof__(&epoll_wait) real = ECP_REAL(epoll_wait);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(epfd, ev, max, timeout);
	return DELAY(t, D_EPOLL_WAIT, epfd, ecp_ms_ns(timeout), int,
		     real(epfd, ev, max, timeout));
}

ECP_AGENT_API int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	__typeof__(&__poll_chk) real = ECP_REAL(__poll_chk);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(fds, n, timeout, fdslen);
	return DELAY(t, D_POLL, n == 1 ? fds[0].fd : -1, ecp_ms_ns(timeout), int,
		     real(fds, n, timeout, fdslen));
}

ECP_AGENT_API int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
			const sigset_t *ss)
{
	__typeof__(&ppoll) real = ECP_REAL(ppoll);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(fds, n, tmo, ss);
	return DELAY(t, D_PPOLL, n == 1 ? fds[0].fd : -1, ecp_timespec_ns(tmo), int,
		     real(fds, n, tmo, ss));
}

ECP_AGENT_API int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
			      const sigset_t *ss, size_t fdslen)
{
	__typeof__(&__ppoll_chk) real = ECP_REAL(__ppoll_chk);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(fds, n, tmo, ss, fdslen);
	return DELAY(t, D_PPOLL, n == 1 ? fds[0].fd : -1, ecp_timespec_ns(tmo), int,
		     real(fds, n, tmo, ss, fdslen));
}

ECP_AGENT_API int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
			  const struct timespec *tmo, const sigset_t *ss)
{
	__typeof__(&pselect) real = ECP_REAL(pselect);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(nfds, r, w, e, tmo, ss);
	return DELAY(t, D_PSELECT, -1, ecp_timespec_ns(tmo), int,
		     real(nfds, r, w, e, tmo, ss));
}

ECP_AGENT_API int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
			      const sigset_t *ss)
{
	__typeof__(&epoll_pwait) real = ECP_REAL(epoll_pwait);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(epfd, ev, max, timeout, ss);
	return DELAY(t, D_EPOLL_PWAIT, epfd, ecp_ms_ns(timeout), int,
		     real(epfd, ev, max, timeout, ss));
}

ECP_AGENT_API int epoll_pwait2(int epfd, struct epoll_event *ev, int max,
			       const struct timespec *tmo, const sigset_t *ss)
{
	__typeof__(&epoll_pwait2) real = ECP_REAL(epoll_pwait2);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(epfd, ev, max, tmo, ss);
	return DELAY(t, D_EPOLL_PWAIT, epfd, ecp_timespec_ns(tmo), int,
		     real(epfd, ev, max, tmo, ss));
}
