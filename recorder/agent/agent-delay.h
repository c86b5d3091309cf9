/* SPDX-License-Identifier: MIT */
/* Blocking calls recorded as delays (agent-delay.c, agent-io.c,
 * agent-block.c): the kinds of EVENTS.md and the shape of a wrapper. */
#ifndef ECP_RECORDER_AGENT_DELAY_H
#define ECP_RECORDER_AGENT_DELAY_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* delay_begin's `kind` (recorder/EVENTS.md) */
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
	D_CONNECT,
	D_THRD_SLEEP,
	D_PPOLL,
	D_PSELECT,
	D_EPOLL_PWAIT,
	D_RECVFROM,
	D_RECVMSG,
	D_SENDTO,
	D_SENDMSG,
	D_READV,
	D_WRITEV,
	D_PREAD,
	D_PWRITE,
	D_WAIT_CHILD,
	D_SIGWAIT,
	D_FILE_LOCK,
	D_MQ_RECEIVE,
	D_MQ_SEND,
};

/* Run `call` between delay_begin and delay_end, guard raised, errno kept.
 * `tmo` is the requested duration or timeout in ns (0: unbounded): the
 * reader caps the delay there, because after the wake-up a thread may wait
 * for the CPU, and that time is not the program's delay.  `t` entered with
 * ecp_enter_timed: the wrapper's own time is timed in the run (agent.h),
 * the call left out. */
#define DELAY(t, kind, fd, tmo, type, call)                                              \
	__extension__({                                                                  \
		ECP_TP(delay_begin, kind, fd, (uint64_t)(tmo), ecp_cpu_ns());            \
		type r_ = ECP_UNTIMED(t, call);                                          \
		int saved_ = errno;                                                      \
		ECP_TP(delay_end, kind, (int64_t)r_, ecp_cpu_ns());                      \
		ecp_leave_timed(t);                                                      \
		errno = saved_;                                                          \
		r_;                                                                      \
	})

/* glibc's _FORTIFY_SOURCE entry points (declared by its headers only in
 * fortified builds): they check the buffer size and call the kernel
 * directly, so each needs its own wrapper. */
struct pollfd;
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
int __poll_chk(struct pollfd *fds, unsigned long n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, unsigned long n, const struct timespec *tmo,
		const sigset_t *ss, size_t fdslen);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, long off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, long off, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
		       struct sockaddr *addr, socklen_t *alen);

uint64_t ecp_timespec_ns(const struct timespec *ts);
/* poll/epoll timeouts in ms; negative means unbounded (0). */
uint64_t ecp_ms_ns(int ms);
/* Whether an operation on fd would block now (events: POLLIN or POLLOUT). */
bool ecp_would_block(int fd, short events);

#endif
