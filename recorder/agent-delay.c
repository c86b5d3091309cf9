/* Blocking calls recorded as delays: the thread sleeps without waiting for
 * another thread of the program.
 *
 * Sleeps and multiplexers are always recorded.  Descriptor I/O (read,
 * write, recv, send, accept) is recorded only when it would block: a zero
 * timeout poll() first asks whether the descriptor is ready, and a ready
 * one (any regular file, a pipe with data) is plain CPU time with no event.
 * connect is always recorded (a blocking connect waits for the handshake). */
#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include "recorder/agent.h"
#include "recorder/ecp-tp.h"

enum {
	D_NANOSLEEP = 0,
	D_CLOCK_NANOSLEEP,
	D_USLEEP,
	D_SLEEP,
	D_POLL,
	D_SELECT,
	D_EPOLL_WAIT,
	D_READ,
	D_WRITE,
	D_RECV,
	D_SEND,
	D_ACCEPT,
	D_CONNECT
};

/* Run `call` between delay_begin and delay_end, guard raised, errno kept.
 * `tmo` is the requested duration or timeout in ns (0: unbounded): the
 * reader caps the delay there, because after the wake-up a thread may wait
 * for the CPU, and that time is not the program's delay. */
#define DELAY(t, kind, fd, tmo, type, call)                                              \
	__extension__({                                                                  \
		ECP_TP(delay_begin, kind, fd, (uint64_t)(tmo),       \
				     ecp_cpu_ns());                                      \
		type r_ = (call);                                                        \
		int saved_ = errno;                                                      \
		ECP_TP(delay_end, kind, (int64_t)r_, ecp_cpu_ns());   \
		ecp_leave(t);                                                            \
		errno = saved_;                                                          \
		r_;                                                                      \
	})

ECP_AGENT_FN static uint64_t timespec_ns(const struct timespec *ts)
{
	if (!ts || ts->tv_sec < 0 || ts->tv_nsec < 0)
		return 0;
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* poll/epoll timeouts in ms; negative means unbounded. */
ECP_AGENT_FN static uint64_t ms_ns(int ms)
{
	return ms > 0 ? (uint64_t)ms * 1000000u : 0;
}

/* Whether an operation on fd would block now (events: POLLIN or POLLOUT). */
ECP_AGENT_FN static bool would_block(int fd, short events)
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
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(req, rem);
	return DELAY(t, D_NANOSLEEP, -1, timespec_ns(req), int, real(req, rem));
}

ECP_AGENT_API int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
				  struct timespec *rem)
{
	__typeof__(&clock_nanosleep) real = ECP_REAL(clock_nanosleep);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(clk, flags, req, rem);
	uint64_t tmo = timespec_ns(req);
	if (req && (flags & TIMER_ABSTIME)) {
		/* An absolute deadline: what is left of it now. */
		struct timespec now;
		uint64_t deadline = tmo;
		tmo = 0;
		if (clock_gettime(clk, &now) == 0 && deadline > timespec_ns(&now))
			tmo = deadline - timespec_ns(&now);
		else if (deadline)
			tmo = 1;
	}
	return DELAY(t, D_CLOCK_NANOSLEEP, -1, tmo, int, real(clk, flags, req, rem));
}

ECP_AGENT_API int usleep(useconds_t usec)
{
	__typeof__(&usleep) real = ECP_REAL(usleep);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(usec);
	return DELAY(t, D_USLEEP, -1, (uint64_t)usec * 1000u, int, real(usec));
}

ECP_AGENT_API unsigned sleep(unsigned seconds)
{
	__typeof__(&sleep) real = ECP_REAL(sleep);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(seconds);
	return DELAY(t, D_SLEEP, -1, (uint64_t)seconds * 1000000000u, unsigned, real(seconds));
}

ECP_AGENT_API int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	__typeof__(&poll) real = ECP_REAL(poll);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(fds, n, timeout);
	return DELAY(t, D_POLL, n == 1 ? fds[0].fd : -1, ms_ns(timeout), int,
		     real(fds, n, timeout));
}

ECP_AGENT_API int select(int nfds, fd_set *r, fd_set *w, fd_set *e,
			 struct timeval *timeout)
{
	__typeof__(&select) real = ECP_REAL(select);
	struct ecp_thread *t = ecp_enter();
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
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(epfd, ev, max, timeout);
	return DELAY(t, D_EPOLL_WAIT, epfd, ms_ns(timeout), int, real(epfd, ev, max, timeout));
}

#define FD_IO_WRAPPER(ret_t, name, kind, events, params, args)                           \
	ECP_AGENT_API ret_t name params                                                  \
	{                                                                                \
		__typeof__(&name) real = ECP_REAL(name);                                 \
		struct ecp_thread *t = ecp_self;                                         \
		if (!t || t->guard || !would_block(fd, events))                          \
			return real args;                                                \
		t = ecp_enter();                                                         \
		if (!t)                                                                  \
			return real args;                                                \
		return DELAY(t, kind, fd, 0, ret_t, real args);                             \
	}

FD_IO_WRAPPER(ssize_t, read, D_READ, POLLIN, (int fd, void *buf, size_t n), (fd, buf, n))
FD_IO_WRAPPER(ssize_t, write, D_WRITE, POLLOUT, (int fd, const void *buf, size_t n),
	      (fd, buf, n))
FD_IO_WRAPPER(ssize_t, recv, D_RECV, POLLIN, (int fd, void *buf, size_t n, int flags),
	      (fd, buf, n, flags))
FD_IO_WRAPPER(ssize_t, send, D_SEND, POLLOUT,
	      (int fd, const void *buf, size_t n, int flags), (fd, buf, n, flags))
FD_IO_WRAPPER(int, accept, D_ACCEPT, POLLIN,
	      (int fd, __SOCKADDR_ARG addr, socklen_t *len), (fd, addr, len))

/* __CONST_SOCKADDR_ARG: glibc's own (transparent union) parameter type. */
ECP_AGENT_API int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	__typeof__(&connect) real = ECP_REAL(connect);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real(fd, addr, len);
	return DELAY(t, D_CONNECT, fd, 0, int, real(fd, addr, len));
}
