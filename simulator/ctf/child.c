/* SPDX-License-Identifier: MIT */
#include "simulator/ctf/child.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>

const char *ecp_child_signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV, a segmentation fault";
	case SIGABRT:
		return "SIGABRT, an abort";
	case SIGBUS:
		return "SIGBUS, a bus error";
	case SIGFPE:
		return "SIGFPE, an arithmetic fault";
	case SIGILL:
		return "SIGILL, an illegal instruction";
	case SIGKILL:
		return "SIGKILL (out of memory?)";
	default:
		return "a signal";
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

int ecp_child_run(int (*fn)(void *user, char *msg, size_t len), void *user,
		  struct ecp_child_result *res, struct ecp_error *err)
{
	return ecp_child_run_limited(fn, user, 0, res, err);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A signal that asks ecp to stop while it waits for the child: taken by a
 * handler (not restarting the wait), so that the caller can kill the child
 * and remove what it made before the signal takes its course. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP (sizeof(stop_signals) / sizeof(stop_signals[0]))
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

void ecp_child_reraise(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The child: default actions for crash signals (so the parent sees them),
 * fn run, then its message written to wfd after a '!' that says fn
 * returned. */
static _Noreturn void child_main(int (*fn)(void *user, char *msg, size_t len), void *user,
				 pid_t parent, int rfd, int wfd)
{
	static const int crash_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent) /* the parent died before the line above */
		_exit(125);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		signal(crash_signals[i], SIG_DFL);
	close(rfd);
	static char msg[ECP_CHILD_MSG_MAX];
	msg[0] = '\0';
	int rc = fn(user, msg, sizeof(msg));
	size_t n = strnlen(msg, sizeof(msg) - 1);
	/* The first byte says the message is complete: fn returned. */
	write_all(wfd, "!", 1);
	write_all(wfd, msg, n);
	fflush(stderr);
	_exit(rc < 0 || rc > 125 ? 125 : rc);
}

/* on_stop() for the stop signals that are not ignored; old keeps the
 * actions to restore. */
static void stop_handlers_install(struct sigaction old[N_STOP])
{
	stop_signal = 0;
	for (size_t i = 0; i < N_STOP; i++) {
		struct sigaction sa = {.sa_handler = on_stop};
		sigemptyset(&sa.sa_mask);
		sigaction(stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

/* Reads the child's message from fd into buf (ECP_CHILD_MSG_MAX + 1 bytes)
 * until it closes the pipe, the buffer is full, a stop signal comes or,
 * with a timeout, the deadline passes (then the child is killed); returns
 * the bytes read. */
static size_t child_message_read(int fd, pid_t pid, unsigned timeout_s, char *buf,
				 struct ecp_child_result *res)
{
	const size_t size = ECP_CHILD_MSG_MAX + 1;
	size_t got = 0;
	uint64_t deadline = timeout_s ? mono_ms() + 1000u * (uint64_t)timeout_s : 0;
	for (;;) {
		if (deadline) {
			uint64_t now = mono_ms();
			struct pollfd p = {.fd = fd, .events = POLLIN};
			int ready =
			    now >= deadline ? 0 : poll(&p, 1, (int)(deadline - now));
			if (ready < 0 && errno == EINTR && !stop_signal)
				continue;
			if (ready < 0 && stop_signal)
				break;
			if (ready == 0) {
				kill(pid, SIGKILL);
				res->timed_out = true;
				break;
			}
		}
		ssize_t r = read(fd, buf + got, size - 1 - got);
		if (r < 0 && errno == EINTR && !stop_signal)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == size - 1)
			break;
	}
	return got;
}

/* What became of the child, from its wait status wst and the message it
 * wrote (got bytes of buf). */
static void child_result_set(struct ecp_child_result *res, int wst, char *buf, size_t got)
{
	buf[got] = '\0';
	bool returned = got > 0 && buf[0] == '!';
	if (returned)
		snprintf(res->msg, sizeof(res->msg), "%s", buf + 1);
	if (res->timed_out || res->interrupted) {
		/* killed by us: neither a crash nor an answer */
	} else if (WIFSIGNALED(wst)) {
		res->crashed = true;
		res->signal = WTERMSIG(wst);
	} else if (!returned) {
		/* Exited without fn returning: a sanitizer or libFuzzer caught
		 * the crash and exited on its own. */
		res->crashed = true;
	} else {
		res->status = WEXITSTATUS(wst);
	}
}

int ecp_child_run_limited(int (*fn)(void *user, char *msg, size_t len), void *user,
			  unsigned timeout_s, struct ecp_child_result *res,
			  struct ecp_error *err)
{
	pid_t parent = getpid();
	struct sigaction old[N_STOP];
	memset(res, 0, sizeof(*res));
	int fds[2];
	if (pipe(fds) < 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot create a pipe: %s",
				     strerror(errno));
	/* Nothing buffered may be written twice (the child never flushes, but
	 * a pending line should come before the child's own output). */
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return ecp_error_set(err, ECP_ERR_IO,
				     "cannot start the decoding process: %s",
				     strerror(e));
	}
	if (pid == 0)
		child_main(fn, user, parent, fds[0], fds[1]);
	close(fds[1]);
	stop_handlers_install(old);
	char buf[ECP_CHILD_MSG_MAX + 1];
	size_t got = child_message_read(fds[0], pid, timeout_s, buf, res);
	close(fds[0]);
	if (stop_signal) {
		kill(pid, SIGKILL);
		res->interrupted = stop_signal;
	}
	int wst = 0, rc = 0;
	while (rc == 0 && waitpid(pid, &wst, 0) < 0)
		if (errno != EINTR)
			rc = ecp_error_set(err, ECP_ERR_IO,
					   "cannot wait for the decoding process: %s",
					   strerror(errno));
	/* the caller's handlers back, whatever the wait said */
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(stop_signals[i], &old[i], NULL);
	if (rc < 0)
		return rc;
	child_result_set(res, wst, buf, got);
	return 0;
}
