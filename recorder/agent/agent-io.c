/* SPDX-License-Identifier: MIT */
/* Descriptor I/O: delays, and the channels between the program's threads.
 *
 * Delays.  read, write and their variants (recv, send, recvfrom, sendto,
 * recvmsg, sendmsg, readv, writev, pread, pwrite, the _FORTIFY_SOURCE
 * __read_chk, __recv_chk, __recvfrom_chk, __pread_chk, which glibc routes
 * past the plain functions), accept and accept4 are recorded as delays only
 * when they would block: a zero-timeout poll() first asks whether the
 * descriptor is ready, and a ready one (any regular file, a pipe with data)
 * is plain CPU time.  connect is always recorded (it waits for the
 * handshake).
 *
 * Channels.  Data a thread writes into a pipe, a socketpair or an eventfd
 * and another thread of the program reads is a dependency, not a sleep:
 * every write on such a descriptor writes chan_write (before the call, so
 * that the trace orders it before the read it releases, with a correction
 * after a short write) and every read chan_read (after the call, with what
 * it got).  The unit is the byte, or for an eventfd the counter value
 * written and read, so that a read takes the writes it consumed in FIFO
 * order and the reader pairs it with the write of its last unit.  A
 * channel is made by the program: pipe, pipe2, socketpair and eventfd
 * number it (chan_open) and keep its ends in a table by descriptor,
 * cleared by close.  A pipe the program inherited (its stdout read by the
 * shell) is no channel, and nothing is asked of a descriptor that is not
 * in the table.  Other sockets (TCP, UNIX sockets from connect/accept) and
 * a descriptor dup'ed from a channel end are not channels either: data
 * between threads through them is a delay of the reader. */
/* pread and pwrite by their own names (not redirected to pread64 by
 * _FILE_OFFSET_BITS=64): both names are wrapped below. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <mqueue.h>
#include <poll.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "recorder/agent/agent-delay.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

#define MAX_FD 4096
#define MQ_BIT (1ull << 63) /* a message queue's channel: its inode */
enum { FD_PLAIN = 0, FD_CHANNEL, FD_EVENTFD };

/* Descriptors created as channel ends (socketpair, eventfd), with the
 * channel's id; a descriptor above MAX_FD is not followed. */
static _Atomic uint8_t fd_kind[MAX_FD];
static _Atomic uint64_t fd_chan[MAX_FD];
static _Atomic uint64_t fd_file[MAX_FD]; /* its inode when made (inode_chan) */
static atomic_uint_fast64_t next_chan = 1;

ECP_AGENT_FN static uint64_t inode_chan(const struct stat *st)
{
	return ((uint64_t)(st->st_dev & 0x7fff) << 48) ^ (uint64_t)st->st_ino;
}

ECP_AGENT_FN static uint64_t file_of(int fd)
{
	struct stat st;
	int saved = errno;
	uint64_t f = fstat(fd, &st) == 0 ? inode_chan(&st) : 0;
	errno = saved;
	return f;
}

/* The channel of fd, 0 when it is none (kept errno).  A descriptor closed
 * past the close wrapper (fclose, close_range) and reused is told apart
 * by its file: then it is forgotten. */
ECP_AGENT_FN static uint64_t chan_of(int fd, bool *is_eventfd)
{
	uint8_t kind = fd >= 0 && fd < MAX_FD ? atomic_load(&fd_kind[fd]) : FD_PLAIN;
	*is_eventfd = kind == FD_EVENTFD;
	if (kind == FD_PLAIN)
		return 0;
	if (file_of(fd) != atomic_load(&fd_file[fd])) {
		atomic_store(&fd_kind[fd], FD_PLAIN);
		return 0;
	}
	return atomic_load(&fd_chan[fd]);
}

/* Numbers a new channel end (kept errno). */
ECP_AGENT_FN static uint64_t new_end(int fd, uint8_t kind)
{
	uint64_t c = atomic_fetch_add(&next_chan, 1);
	atomic_store(&fd_chan[fd], c);
	atomic_store(&fd_file[fd], file_of(fd));
	atomic_store(&fd_kind[fd], kind);
	return c;
}

ECP_AGENT_FN static void forget(int fd)
{
	if (fd >= 0 && fd < MAX_FD)
		atomic_store(&fd_kind[fd], FD_PLAIN);
}

/* ------------------------------------------------------------- creation */

#define ENDS_OK(fds)                                                                     \
	((fds)[0] >= 0 && (fds)[0] < MAX_FD && (fds)[1] >= 0 && (fds)[1] < MAX_FD)

/* A pipe's two ends are one channel. */
ECP_AGENT_FN static void pipe_made(int fds[2])
{
	struct ecp_thread *t;
	uint64_t c = new_end(fds[0], FD_CHANNEL);
	atomic_store(&fd_chan[fds[1]], c);
	atomic_store(&fd_file[fds[1]], file_of(fds[1]));
	atomic_store(&fd_kind[fds[1]], FD_CHANNEL);
	if ((t = ecp_enter_timed())) {
		ECP_TP(chan_open, c, 0, 0, ecp_cpu_ns());
		ecp_leave_timed(t);
	}
}

ECP_AGENT_API int pipe(int fds[2])
{
	__typeof__(&pipe) real = ECP_REAL(pipe);
	int rc = real(fds);
	if (rc == 0 && ENDS_OK(fds))
		pipe_made(fds);
	return rc;
}

ECP_AGENT_API int pipe2(int fds[2], int flags)
{
	__typeof__(&pipe2) real = ECP_REAL(pipe2);
	int rc = real(fds, flags);
	if (rc == 0 && ENDS_OK(fds))
		pipe_made(fds);
	return rc;
}

/* What one end of a socketpair writes, the other end reads. */
ECP_AGENT_API int socketpair(int domain, int type, int proto, int sv[2])
{
	__typeof__(&socketpair) real = ECP_REAL(socketpair);
	int rc = real(domain, type, proto, sv);
	struct ecp_thread *t;
	if (rc || !ENDS_OK(sv))
		return rc;
	uint64_t c0 = new_end(sv[0], FD_CHANNEL), c1 = new_end(sv[1], FD_CHANNEL);
	if ((t = ecp_enter_timed())) {
		ECP_TP(chan_open, c0, c1, 0, ecp_cpu_ns());
		ECP_TP(chan_open, c1, c0, 0, ecp_cpu_ns());
		ecp_leave_timed(t);
	}
	return rc;
}

ECP_AGENT_API int eventfd(unsigned int initval, int flags)
{
	__typeof__(&eventfd) real = ECP_REAL(eventfd);
	int fd = real(initval, flags);
	struct ecp_thread *t;
	if (fd < 0 || fd >= MAX_FD)
		return fd;
	uint64_t c = new_end(fd, FD_EVENTFD);
	if ((t = ecp_enter_timed())) {
		/* the initial counter: units no thread wrote */
		ECP_TP(chan_open, c, 0, initval, ecp_cpu_ns());
		ecp_leave_timed(t);
	}
	return fd;
}

/* close and fclose pass through liblttng-ust-fd (preloaded after the
 * agent: it keeps the program off LTTng-UST's own descriptors), which takes
 * a mutex of its own: with the guard raised, that is not recorded as the
 * program's synchronization (it once added an 11th lock to 10).
 *
 * That library's close is LTTng-UST's descriptor tracker around libc's
 * close, and the tracker blocks every signal around its mutex: four
 * sigprocmask calls a close, about 1 us, the recorder's cost (ripgrep
 * closes 16,000 files).  A recorded thread's close calls the tracker
 * itself, as that library would, with libc's close as the tracker's
 * callback left out of the window: the window's time (no event) is taken
 * out as quiet_windows (agent-sync-cost.c). */
typedef int (*close_fn)(int fd);
typedef int (*safe_close_fn)(int fd, close_fn close_cb);
static safe_close_fn _Atomic tracker_close;
static close_fn _Atomic libc_close;
static _Atomic int close_resolved; /* 1: both looked up (found or not) */

/* Looked up once, by a recorded thread with its guard raised: the loader
 * may close a descriptor meanwhile, which then takes the plain path. */
ECP_AGENT_FN static void resolve_close(void)
{
	void *tracker = dlsym(RTLD_DEFAULT, "lttng_ust_safe_close_fd");
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *plain = libc ? dlsym(libc, "close") : NULL;
	safe_close_fn t;
	close_fn c;
	memcpy(&t, &tracker, sizeof(t)); /* as ecp_real: POSIX makes this sound */
	memcpy(&c, &plain, sizeof(c));
	atomic_store(&tracker_close, t);
	atomic_store(&libc_close, c);
	atomic_store(&close_resolved, 1);
}

/* The tracker's callback: libc's close, the program's own time. */
ECP_AGENT_FN static int untimed_libc_close(int fd)
{
	struct ecp_thread *t = ecp_self;
	close_fn c = atomic_load(&libc_close);
	return ECP_UNTIMED(t, c(fd));
}

ECP_AGENT_API int close(int fd)
{
	ECP_WINDOW_OPEN;
	__typeof__(&close) real = ECP_REAL(close);
	struct ecp_thread *t = ecp_enter_quiet_at(ecp_t0_);
	int rc;
	forget(fd);
	if (!t) {
		/* not recorded, or inside the agent: as before, guard raised */
		t = ecp_self;
		if (t)
			t->guard++;
		rc = real(fd);
		if (t)
			t->guard--;
		return rc;
	}
	if (!atomic_load(&close_resolved)) {
		int saved = errno;
		resolve_close();
		errno = saved;
	}
	safe_close_fn tracker = atomic_load(&tracker_close);
	if (tracker && atomic_load(&libc_close))
		rc = tracker(fd, untimed_libc_close);
	else
		rc = ECP_UNTIMED(t, real(fd));
	int saved = errno;
	ecp_leave_timed(t);
	errno = saved;
	return rc;
}

ECP_AGENT_API int fclose(FILE *stream);
ECP_AGENT_API int fclose(FILE *stream)
{
	__typeof__(&fclose) real = ECP_REAL(fclose);
	struct ecp_thread *t = ecp_self;
	int rc;
	if (t)
		t->guard++;
	rc = real(stream);
	if (t)
		t->guard--;
	return rc;
}

/* ------------------------------------------------------------ transfers */

ECP_AGENT_FN static uint64_t iov_bytes(const struct iovec *iov, int n)
{
	uint64_t s = 0;
	for (int i = 0; iov && i < n; i++)
		s += iov[i].iov_len;
	return s;
}

/* The eventfd counter value in a buffer of 8 bytes (read or written). */
ECP_AGENT_FN static int64_t eventfd_units(const void *buf, int64_t r)
{
	uint64_t v;
	if (r != 8 || !buf)
		return 0;
	memcpy(&v, buf, 8);
	return (int64_t)v;
}

/* The asking (is fd a channel, would it block) is the recorder's time,
 * timed in a window (agent.h) whether or not an event follows; a call that
 * writes none leaves the window and the guard before the call, as if
 * unwrapped. */
#define QUIET_CALL(t, call)                                                              \
	__extension__({                                                                  \
		ecp_sync_window((t), ecp_tsc() - (t)->win_start);                        \
		ecp_leave(t);                                                            \
		(call);                                                                  \
	})

/* A read: [delay if it would block], the call, chan_read of what it got.
 * `buf` is the buffer of a plain read (the eventfd value), else NULL. */
#define READ_CALL(kind, fd, buf, type, call)                                             \
	__extension__({                                                                  \
		ECP_WINDOW_OPEN;                                                         \
		struct ecp_thread *t_ = ecp_enter_quiet_at(ecp_t0_);                     \
		bool evfd_, block_;                                                      \
		uint64_t chan_;                                                          \
		type r_;                                                                 \
		if (!t_)                                                                 \
			r_ = (call);                                                     \
		else if ((chan_ = chan_of(fd, &evfd_),                                   \
			  block_ = ecp_would_block(fd, POLLIN), !chan_ && !block_))      \
			r_ = QUIET_CALL(t_, call); /* block_ is used below */            \
		else {                                                                   \
			ecp_flush_frames(t_);                                            \
			if (block_)                                                      \
				ECP_TP(delay_begin, kind, fd, 0, ecp_cpu_ns());          \
			r_ = ECP_UNTIMED(t_, call);                                      \
			int saved_ = errno;                                              \
			if (block_)                                                      \
				ECP_TP(delay_end, kind, (int64_t)r_, ecp_cpu_ns());      \
			if (chan_ && r_ > 0)                                             \
				ECP_TP(chan_read, chan_,                                 \
				       evfd_ ? eventfd_units(buf, r_) : (int64_t)r_,     \
				       ecp_cpu_ns());                                    \
			ecp_leave_timed(t_);                                             \
			errno = saved_;                                                  \
		}                                                                        \
		r_;                                                                      \
	})

/* A write of `n` bytes: chan_write before the call, [delay if it would
 * block], the call, a correction after a short write. */
#define WRITE_CALL(kind, fd, buf, n, type, call)                                         \
	__extension__({                                                                  \
		ECP_WINDOW_OPEN;                                                         \
		struct ecp_thread *t_ = ecp_enter_quiet_at(ecp_t0_);                     \
		bool evfd_, block_;                                                      \
		uint64_t chan_;                                                          \
		type r_;                                                                 \
		if (!t_)                                                                 \
			r_ = (call);                                                     \
		else if ((chan_ = chan_of(fd, &evfd_),                                   \
			  block_ = ecp_would_block(fd, POLLOUT), !chan_ && !block_))     \
			r_ = QUIET_CALL(t_, call); /* block_ is used below */            \
		else {                                                                   \
			ecp_flush_frames(t_);                                            \
			int64_t units_ =                                                 \
			    evfd_ ? eventfd_units(buf, (int64_t)(n)) : (int64_t)(n);     \
			if (chan_)                                                       \
				ECP_TP(chan_write, chan_, units_, ecp_cpu_ns());         \
			if (block_)                                                      \
				ECP_TP(delay_begin, kind, fd, 0, ecp_cpu_ns());          \
			r_ = ECP_UNTIMED(t_, call);                                      \
			int saved_ = errno;                                              \
			if (block_)                                                      \
				ECP_TP(delay_end, kind, (int64_t)r_, ecp_cpu_ns());      \
			if (chan_ && (int64_t)r_ != (int64_t)(n))                        \
				ECP_TP(chan_write, chan_,                                \
				       evfd_ ? -units_                                   \
					     : (r_ > 0 ? (int64_t)r_ : 0) - units_,      \
				       ecp_cpu_ns());                                    \
			ecp_leave_timed(t_);                                             \
			errno = saved_;                                                  \
		}                                                                        \
		r_;                                                                      \
	})

ECP_AGENT_API ssize_t read(int fd, void *buf, size_t n)
{
	__typeof__(&read) real = ECP_REAL(read);
	return READ_CALL(D_READ, fd, buf, ssize_t, real(fd, buf, n));
}

ECP_AGENT_API ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	__typeof__(&__read_chk) real = ECP_REAL(__read_chk);
	return READ_CALL(D_READ, fd, buf, ssize_t, real(fd, buf, n, buflen));
}

ECP_AGENT_API ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	__typeof__(&recv) real = ECP_REAL(recv);
	return READ_CALL(D_RECV, fd, buf, ssize_t, real(fd, buf, n, flags));
}

ECP_AGENT_API ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	__typeof__(&__recv_chk) real = ECP_REAL(__recv_chk);
	return READ_CALL(D_RECV, fd, buf, ssize_t, real(fd, buf, n, buflen, flags));
}

ECP_AGENT_API ssize_t recvfrom(int fd, void *buf, size_t n, int flags,
			       __SOCKADDR_ARG addr, socklen_t *alen)
{
	__typeof__(&recvfrom) real = ECP_REAL(recvfrom);
	return READ_CALL(D_RECVFROM, fd, buf, ssize_t,
			 real(fd, buf, n, flags, addr, alen));
}

ECP_AGENT_API ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen,
				     int flags, struct sockaddr *addr, socklen_t *alen)
{
	__typeof__(&__recvfrom_chk) real = ECP_REAL(__recvfrom_chk);
	return READ_CALL(D_RECVFROM, fd, buf, ssize_t,
			 real(fd, buf, n, buflen, flags, addr, alen));
}

ECP_AGENT_API ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	__typeof__(&recvmsg) real = ECP_REAL(recvmsg);
	return READ_CALL(D_RECVMSG, fd, NULL, ssize_t, real(fd, msg, flags));
}

ECP_AGENT_API ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	__typeof__(&readv) real = ECP_REAL(readv);
	return READ_CALL(D_READV, fd, NULL, ssize_t, real(fd, iov, cnt));
}

ECP_AGENT_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	__typeof__(&pread) real = ECP_REAL(pread);
	return READ_CALL(D_PREAD, fd, NULL, ssize_t, real(fd, buf, n, off));
}

ECP_AGENT_API ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	__typeof__(&pread64) real = ECP_REAL(pread64);
	return READ_CALL(D_PREAD, fd, NULL, ssize_t, real(fd, buf, n, off));
}

ECP_AGENT_API ssize_t __pread_chk(int fd, void *buf, size_t n, long off, size_t buflen)
{
	__typeof__(&__pread_chk) real = ECP_REAL(__pread_chk);
	return READ_CALL(D_PREAD, fd, NULL, ssize_t, real(fd, buf, n, off, buflen));
}

ECP_AGENT_API ssize_t __pread64_chk(int fd, void *buf, size_t n, long off, size_t buflen)
{
	__typeof__(&__pread64_chk) real = ECP_REAL(__pread64_chk);
	return READ_CALL(D_PREAD, fd, NULL, ssize_t, real(fd, buf, n, off, buflen));
}

ECP_AGENT_API ssize_t write(int fd, const void *buf, size_t n)
{
	__typeof__(&write) real = ECP_REAL(write);
	return WRITE_CALL(D_WRITE, fd, buf, n, ssize_t, real(fd, buf, n));
}

ECP_AGENT_API ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	__typeof__(&send) real = ECP_REAL(send);
	return WRITE_CALL(D_SEND, fd, buf, n, ssize_t, real(fd, buf, n, flags));
}

ECP_AGENT_API ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			     __CONST_SOCKADDR_ARG addr, socklen_t alen)
{
	__typeof__(&sendto) real = ECP_REAL(sendto);
	return WRITE_CALL(D_SENDTO, fd, buf, n, ssize_t,
			  real(fd, buf, n, flags, addr, alen));
}

ECP_AGENT_API ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	__typeof__(&sendmsg) real = ECP_REAL(sendmsg);
	uint64_t n = msg ? iov_bytes(msg->msg_iov, (int)msg->msg_iovlen) : 0;
	return WRITE_CALL(D_SENDMSG, fd, NULL, n, ssize_t, real(fd, msg, flags));
}

ECP_AGENT_API ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	__typeof__(&writev) real = ECP_REAL(writev);
	uint64_t n = iov_bytes(iov, cnt);
	return WRITE_CALL(D_WRITEV, fd, NULL, n, ssize_t, real(fd, iov, cnt));
}

ECP_AGENT_API ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	__typeof__(&pwrite) real = ECP_REAL(pwrite);
	return WRITE_CALL(D_PWRITE, fd, NULL, n, ssize_t, real(fd, buf, n, off));
}

ECP_AGENT_API ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	__typeof__(&pwrite64) real = ECP_REAL(pwrite64);
	return WRITE_CALL(D_PWRITE, fd, NULL, n, ssize_t, real(fd, buf, n, off));
}

/* ------------------------------------------------------------ accepting */

#define ACCEPT_CALL(kind, fd, call)                                                      \
	__extension__({                                                                  \
		ECP_WINDOW_OPEN;                                                         \
		struct ecp_thread *t_ = ecp_enter_quiet_at(ecp_t0_);                     \
		int ra_;                                                                 \
		if (!t_)                                                                 \
			ra_ = (call);                                                    \
		else if (!ecp_would_block(fd, POLLIN))                                   \
			ra_ = QUIET_CALL(t_, call);                                      \
		else {                                                                   \
			ecp_flush_frames(t_);                                            \
			ra_ = DELAY(t_, kind, fd, 0, int, call);                         \
		}                                                                        \
		ra_;                                                                     \
	})

ECP_AGENT_API int accept(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
	__typeof__(&accept) real = ECP_REAL(accept);
	return ACCEPT_CALL(D_ACCEPT, fd, real(fd, addr, len));
}

ECP_AGENT_API int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags)
{
	__typeof__(&accept4) real = ECP_REAL(accept4);
	return ACCEPT_CALL(D_ACCEPT, fd, real(fd, addr, len, flags));
}

/* __CONST_SOCKADDR_ARG: glibc's own (transparent union) parameter type. */
ECP_AGENT_API int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	__typeof__(&connect) real = ECP_REAL(connect);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(fd, addr, len);
	return DELAY(t, D_CONNECT, fd, 0, int, real(fd, addr, len));
}

/* -------------------------------------------------------- message queues */

/* A POSIX message queue is a channel of messages (one unit each): the
 * queue's inode, shared by every descriptor opened on its name. */
ECP_AGENT_FN static uint64_t mq_chan(mqd_t q)
{
	struct stat st;
	int saved = errno;
	uint64_t c = fstat((int)q, &st) == 0 ? MQ_BIT | inode_chan(&st) : 0;
	errno = saved;
	return c;
}

#define MQ_RECEIVE_CALL(q, tmo, call)                                                    \
	__extension__({                                                                  \
		struct ecp_thread *t_ = ecp_self;                                        \
		ssize_t r_;                                                              \
		if (!t_ || t_->guard || !(t_ = ecp_enter_timed()))                       \
			r_ = (call);                                                     \
		else {                                                                   \
			uint64_t chan_ = mq_chan(q);                                     \
			bool block_ = ecp_would_block((int)(q), POLLIN);                 \
			if (block_)                                                      \
				ECP_TP(delay_begin, D_MQ_RECEIVE, (int)(q), tmo,         \
				       ecp_cpu_ns());                                    \
			r_ = ECP_UNTIMED(t_, call);                                      \
			int saved_ = errno;                                              \
			if (block_)                                                      \
				ECP_TP(delay_end, D_MQ_RECEIVE, (int64_t)r_,             \
				       ecp_cpu_ns());                                    \
			if (chan_ && r_ >= 0)                                            \
				ECP_TP(chan_read, chan_, 1, ecp_cpu_ns());               \
			ecp_leave_timed(t_);                                             \
			errno = saved_;                                                  \
		}                                                                        \
		r_;                                                                      \
	})

#define MQ_SEND_CALL(q, tmo, call)                                                       \
	__extension__({                                                                  \
		struct ecp_thread *t_ = ecp_self;                                        \
		int r_;                                                                  \
		if (!t_ || t_->guard || !(t_ = ecp_enter_timed()))                       \
			r_ = (call);                                                     \
		else {                                                                   \
			uint64_t chan_ = mq_chan(q);                                     \
			bool block_ = ecp_would_block((int)(q), POLLOUT);                \
			if (chan_)                                                       \
				ECP_TP(chan_write, chan_, 1, ecp_cpu_ns());              \
			if (block_)                                                      \
				ECP_TP(delay_begin, D_MQ_SEND, (int)(q), tmo,            \
				       ecp_cpu_ns());                                    \
			r_ = ECP_UNTIMED(t_, call);                                      \
			int saved_ = errno;                                              \
			if (block_)                                                      \
				ECP_TP(delay_end, D_MQ_SEND, (int64_t)r_, ecp_cpu_ns()); \
			if (chan_ && r_ != 0)                                            \
				ECP_TP(chan_write, chan_, -1, ecp_cpu_ns());             \
			ecp_leave_timed(t_);                                             \
			errno = saved_;                                                  \
		}                                                                        \
		r_;                                                                      \
	})

ECP_AGENT_API ssize_t mq_receive(mqd_t q, char *buf, size_t len, unsigned *prio)
{
	__typeof__(&mq_receive) real = ECP_REAL(mq_receive);
	return MQ_RECEIVE_CALL(q, 0, real(q, buf, len, prio));
}

ECP_AGENT_API ssize_t mq_timedreceive(mqd_t q, char *restrict buf, size_t len,
				      unsigned *restrict prio,
				      const struct timespec *restrict abstime)
{
	__typeof__(&mq_timedreceive) real = ECP_REAL(mq_timedreceive);
	return MQ_RECEIVE_CALL(q, ecp_relative_ns(CLOCK_REALTIME, abstime),
			       real(q, buf, len, prio, abstime));
}

ECP_AGENT_API int mq_send(mqd_t q, const char *msg, size_t len, unsigned prio)
{
	__typeof__(&mq_send) real = ECP_REAL(mq_send);
	return MQ_SEND_CALL(q, 0, real(q, msg, len, prio));
}

ECP_AGENT_API int mq_timedsend(mqd_t q, const char *msg, size_t len, unsigned prio,
			       const struct timespec *abstime)
{
	__typeof__(&mq_timedsend) real = ECP_REAL(mq_timedsend);
	return MQ_SEND_CALL(q, ecp_relative_ns(CLOCK_REALTIME, abstime),
			    real(q, msg, len, prio, abstime));
}
