/* SPDX-License-Identifier: MIT */
#include "recorder/launch.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder/perf-sample.h"
#include "recorder/perf-switch.h"
#include "recorder/time-slice.h"

/* The child's report: errno of pinning (0 when pinned), for each kind of
 * perf event how many descriptors follow (one per CPU), or -errno when
 * perf refused one (-ENOSYS: not asked for), and the time slice it got. */
struct report {
	int pin_errno;
	int perf;
	int sample;
	uint64_t slice_ns;
};

#define MAX_FDS (2 * ECP_PERF_MAX_CPUS)

/* Sends the report and the n descriptors (SCM_RIGHTS), in order. */
static int send_fds(int sock, struct report value, const int *fds, size_t n)
{
	char cbuf[CMSG_SPACE(MAX_FDS * sizeof(int))];
	struct iovec iov = {&value, sizeof(value)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	memset(cbuf, 0, sizeof(cbuf));
	if (n) {
		struct cmsghdr *c;
		msg.msg_control = cbuf;
		msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	return sendmsg(sock, &msg, 0) == (ssize_t)sizeof(value) ? 0 : -1;
}

/* Receives the report and up to MAX_FDS descriptors, in the order sent. */
static int recv_fds(int sock, struct report *value, int fds[MAX_FDS], size_t *n_fds)
{
	char cbuf[CMSG_SPACE(MAX_FDS * sizeof(int))];
	struct iovec iov = {value, sizeof(*value)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	ssize_t n;
	*n_fds = 0;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*value))
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			if (k > MAX_FDS)
				k = MAX_FDS;
			memcpy(fds, CMSG_DATA(c), k * sizeof(int));
			*n_fds = k;
		}
	return 0;
}

/* Opens one event per CPU into fds with `open`; all or none: on a refusal
 * closes what it opened and returns -errno, else the count. */
static int open_each(const int *cpus, size_t n, int *fds,
		     int (*open)(int cpu, unsigned hz), unsigned hz)
{
	for (size_t i = 0; i < n; i++) {
		fds[i] = open(cpus[i], hz);
		if (fds[i] < 0) {
			int e = fds[i];
			while (i-- > 0)
				close(fds[i]);
			return e;
		}
	}
	return (int)n;
}

static int open_switch(int cpu, unsigned hz)
{
	(void)hz;
	return ecp_perf_switch_open(cpu);
}

/* Writes our pid into the ECP_PID placeholder of env (no allocation). */
static void fill_pid(char *const env[])
{
	const size_t prefix = strlen("ECP_PID=");
	for (size_t i = 0; env[i]; i++) {
		if (strncmp(env[i], ECP_LAUNCH_PID_PLACEHOLDER, prefix) == 0) {
			char *digits = env[i] + prefix;
			size_t n = strlen(digits);
			unsigned long pid = (unsigned long)getpid();
			while (n-- > 0) {
				digits[n] = (char)('0' + pid % 10);
				pid /= 10;
			}
		}
	}
}

/* The child: only async-signal-safe calls and exec (the parent may have
 * threads: LTTng-UST's, once the sched provider is loaded). */
static void child(int sock, char *const argv[], char *const env_perf[],
		  char *const env_cputime[], const int *cpus, size_t n_cpus,
		  bool use_perf, unsigned sample_hz, uint64_t slice_ns)
{
	cpu_set_t set;
	struct report rep = {0, -ENOSYS, -ENOSYS, 0};
	int fds[MAX_FDS];
	size_t n_fds = 0;
	int go, err;

	/* The driver's signal handlers, inherited, go back to the default
	 * (exec would do it too, but a signal may come first); an ignored
	 * signal (nohup) stays ignored, as it would without ecp. */
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction cur;
		if (sigaction(sigs[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
			signal(sigs[i], SIG_DFL);
	}
	CPU_ZERO(&set);
	for (size_t i = 0; i < n_cpus; i++)
		CPU_SET(cpus[i], &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		rep.pin_errno = errno;
		send_fds(sock, rep, fds, 0);
		_exit(127);
	}
	if (slice_ns)
		rep.slice_ns = ecp_time_slice_set(slice_ns);
	if (use_perf)
		rep.perf = open_each(cpus, n_cpus, fds, open_switch, 0);
	if (rep.perf > 0)
		n_fds += (size_t)rep.perf;
	/* samples only beside the switch records: they split the segments
	 * those measure */
	if (rep.perf > 0 && sample_hz)
		rep.sample =
		    open_each(cpus, n_cpus, fds + n_fds, ecp_perf_sample_open, sample_hz);
	if (rep.sample > 0)
		n_fds += (size_t)rep.sample;
	if (send_fds(sock, rep, fds, n_fds) < 0)
		_exit(127);
	if (read(sock, &go, sizeof(go)) != (ssize_t)sizeof(go))
		_exit(127);
	/* the parent has its own copies now */
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	fill_pid(rep.perf > 0 ? env_perf : env_cputime);
	execvpe(argv[0], argv, rep.perf > 0 ? env_perf : env_cputime);
	err = errno;
	if (write(sock, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

int ecp_launch_fork(char *const argv[], char *const env_perf[], char *const env_cputime[],
		    const int *cpus, size_t n_cpus, bool use_perf, unsigned sample_hz,
		    uint64_t slice_ns, struct ecp_launch *l, struct ecp_error *err)
{
	struct report value;
	int sv[2], fds[MAX_FDS];
	size_t n_fds;

	l->pid = -1;
	l->sock = -1;
	l->perf_fd[0] = -ENOSYS;
	l->sample_fd[0] = -ENOSYS;
	l->n_perf = l->n_sample = 0;
	l->slice_ns = 0;
	if (n_cpus < 1 || n_cpus > ECP_PERF_MAX_CPUS)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "cannot record on %zu CPUs (1 to %d)", n_cpus,
				     ECP_PERF_MAX_CPUS);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return ecp_error_set(err, ECP_ERR_IO, "socketpair: %s", strerror(errno));
	l->pid = fork();
	if (l->pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return ecp_error_set(err, ECP_ERR_IO, "cannot fork: %s", strerror(errno));
	}
	if (l->pid == 0) {
		close(sv[0]);
		child(sv[1], argv, env_perf, env_cputime, cpus, n_cpus, use_perf,
		      sample_hz, slice_ns);
	}
	close(sv[1]);
	l->sock = sv[0];
	if (recv_fds(l->sock, &value, fds, &n_fds) < 0) {
		waitpid(l->pid, NULL, 0);
		close(l->sock);
		return ecp_error_set(err, ECP_ERR_IO,
				     "the program's process died before exec");
	}
	if (value.pin_errno) {
		waitpid(l->pid, NULL, 0);
		close(l->sock);
		if (n_cpus == 1)
			return ecp_error_set(err, ECP_ERR_USAGE,
					     "cannot run on CPU %d: %s", cpus[0],
					     strerror(value.pin_errno));
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "cannot run on those %zu CPUs: %s", n_cpus,
				     strerror(value.pin_errno));
	}
	l->slice_ns = value.slice_ns;
	size_t k = 0;
	if (value.perf > 0 && (size_t)value.perf <= n_fds) {
		memcpy(l->perf_fd, fds, (size_t)value.perf * sizeof(int));
		l->n_perf = (size_t)value.perf;
		k = l->n_perf;
	} else {
		l->perf_fd[0] = value.perf > 0 ? -EIO : value.perf;
	}
	if (value.sample > 0 && k + (size_t)value.sample <= n_fds) {
		memcpy(l->sample_fd, fds + k, (size_t)value.sample * sizeof(int));
		l->n_sample = (size_t)value.sample;
		k += l->n_sample;
	} else {
		l->sample_fd[0] = value.sample > 0 ? -EIO : value.sample;
	}
	for (; k < n_fds; k++) /* a report that did not match: none kept */
		close(fds[k]);
	return ECP_OK;
}

void ecp_launch_close_fds(struct ecp_launch *l)
{
	for (size_t i = 0; i < l->n_perf; i++)
		close(l->perf_fd[i]);
	for (size_t i = 0; i < l->n_sample; i++)
		close(l->sample_fd[i]);
	l->n_perf = l->n_sample = 0;
}

int ecp_launch_exec(struct ecp_launch *l, struct ecp_error *err)
{
	int go = 1, child_errno = 0;
	ssize_t n;
	if (write(l->sock, &go, sizeof(go)) != (ssize_t)sizeof(go)) {
		close(l->sock);
		return ecp_error_set(err, ECP_ERR_IO,
				     "the program's process died before exec");
	}
	/* The socket is close-on-exec: end of file means the exec worked. */
	do
		n = read(l->sock, &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(l->sock);
	l->sock = -1;
	if (n == (ssize_t)sizeof(child_errno)) {
		waitpid(l->pid, NULL, 0);
		return ecp_error_set(err, ECP_ERR_USAGE, "cannot run the program: %s",
				     strerror(child_errno));
	}
	return ECP_OK;
}
