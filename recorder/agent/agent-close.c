/* SPDX-License-Identifier: MIT */
/* The program's mass closes, kept off LTTng-UST's own descriptors.
 *
 * A program that closes every descriptor it did not open (daemons, shells,
 * anything about to exec) would close LTTng-UST's sockets and shared
 * memory and abort inside it.  liblttng-ust-fd (preloaded) covers close and
 * fclose; close_range and closefrom (glibc 2.34) go straight to the kernel,
 * so they are taken here through LTTng-UST's own descriptor tracker, which
 * skips what it holds.  Where that library is older than its tracker, the
 * calls pass through unchanged.
 *
 * Only the descriptors that are open are handed to the tracker: found with
 * ppoll, 1024 at a time (POLLNVAL marks a closed one), instead of one
 * close a descriptor up to the limit.  Python closes every descriptor in
 * the vfork child of each subprocess it starts, close_range(5, INT_MAX):
 * 20,000 closes there (RLIMIT_NOFILE), 3-4 ms a child. */
#include "recorder/agent/agent.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <linux/close_range.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int (*ecp_safe_close_fn)(int fd, int (*close_cb)(int fd));

/* Straight to the kernel: the tracker calls it with its lock held, and
 * close's wrappers (ours, liblttng-ust-fd's) would take it again. */
ECP_AGENT_FN static int kernel_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static ecp_safe_close_fn _Atomic tracker;
static _Atomic int tracker_looked_up;

/* LTTng-UST's tracker, looked up once: a vfork child shares its parent's
 * memory, so the first of Python's subprocesses (each closes everything
 * in its vfork child) looks it up for all the next ones, which call no
 * dlsym (it takes the loader's lock). */
ECP_AGENT_FN static ecp_safe_close_fn tracker_fn(void)
{
	if (!atomic_load(&tracker_looked_up)) {
		void *p = dlsym(RTLD_DEFAULT, "lttng_ust_safe_close_fd");
		ecp_safe_close_fn f;
		memcpy(&f, &p, sizeof(f)); /* as ecp_real: POSIX makes this sound */
		atomic_store(&tracker, f);
		atomic_store(&tracker_looked_up, 1);
	}
	return atomic_load(&tracker);
}

/* Hands every open descriptor in [first, end) to the tracker's `one`.
 * Straight to the kernel's ppoll: the agent's own poll wrapper would
 * record it. */
#define POLL_BATCH 1024u
ECP_AGENT_FN static void close_open(unsigned first, unsigned end, ecp_safe_close_fn one)
{
	struct pollfd fds[POLL_BATCH];
	const struct timespec now = {0, 0};
	for (unsigned base = first; base < end;) {
		unsigned n = end - base < POLL_BATCH ? end - base : POLL_BATCH;
		for (unsigned i = 0; i < n; i++) {
			fds[i].fd = (int)(base + i);
			fds[i].events = 0;
			fds[i].revents = 0;
		}
		if (syscall(SYS_ppoll, fds, (unsigned long)n, &now, NULL, 0) < 0) {
			/* nothing known of them: each one asked, as before */
			for (unsigned i = 0; i < n; i++)
				one((int)(base + i), kernel_close);
		} else {
			for (unsigned i = 0; i < n; i++)
				if (!(fds[i].revents & POLLNVAL))
					one(fds[i].fd, kernel_close);
		}
		base += n;
	}
}

/* Descriptors at or past this are never open. */
ECP_AGENT_FN static unsigned fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > INT_MAX)
		return INT_MAX;
	return (unsigned)rl.rlim_cur;
}

ECP_AGENT_API int close_range(unsigned int first, unsigned int last, int flags)
{
	__typeof__(&close_range) real = ECP_REAL(close_range);
	ecp_safe_close_fn one = tracker_fn();
	/* setting close-on-exec closes nothing; odd arguments get the
	 * kernel's own answer */
	if (!one || (flags & CLOSE_RANGE_CLOEXEC) || (flags & ~CLOSE_RANGE_UNSHARE) ||
	    first > last)
		return real(first, last, flags);
	if ((flags & CLOSE_RANGE_UNSHARE) && unshare(CLONE_FILES) < 0)
		return -1;
	struct ecp_thread *t = ecp_self;
	int saved = errno;
	unsigned limit = fd_limit();
	if (t) /* the tracker's mutex is not the program's synchronization */
		t->guard++;
	if (first < limit)
		close_open(first, last >= limit - 1 ? limit : last + 1, one);
	if (t)
		t->guard--;
	errno = saved; /* close_range succeeds whatever was open */
	return 0;
}

ECP_AGENT_API void closefrom(int lowfd)
{
	__typeof__(&closefrom) real = ECP_REAL(closefrom);
	ecp_safe_close_fn one = tracker_fn();
	if (!one || lowfd < 0) {
		real(lowfd);
		return;
	}
	struct ecp_thread *t = ecp_self;
	int saved = errno;
	unsigned limit = fd_limit();
	if (t)
		t->guard++;
	if ((unsigned)lowfd < limit)
		close_open((unsigned)lowfd, limit, one);
	if (t)
		t->guard--;
	errno = saved;
}
