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

/* The child's report: errno of pinning (0 when pinned), and each perf fd
 * or -errno when perf refused it (-ENOSYS: not asked for). */
struct report {
	int pin_errno;
	int perf;
	int sample;
};

/* Sends the report and the descriptors among fds[0..1] that are >= 0
 * (SCM_RIGHTS), in that order. */
static int send_fds(int sock, struct report value, const int fds[2])
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = {&value, sizeof(value)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	int pass[2], n = 0;
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			pass[n++] = fds[i];
	memset(cbuf, 0, sizeof(cbuf));
	if (n) {
		struct cmsghdr *c;
		msg.msg_control = cbuf;
		msg.msg_controllen = CMSG_SPACE((size_t)n * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
		memcpy(CMSG_DATA(c), pass, (size_t)n * sizeof(int));
	}
	return sendmsg(sock, &msg, 0) == (ssize_t)sizeof(value) ? 0 : -1;
}

/* Receives the report and up to two descriptors, in the order sent. */
static int recv_fds(int sock, struct report *value, int fds[2], int *n_fds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = {value, sizeof(*value)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	ssize_t n;
	fds[0] = fds[1] = -1;
	*n_fds = 0;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*value))
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			if (k > 2)
				k = 2;
			memcpy(fds, CMSG_DATA(c), k * sizeof(int));
			*n_fds = (int)k;
		}
	return 0;
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
		  char *const env_cputime[], int cpu, bool use_perf, unsigned sample_hz)
{
	cpu_set_t set;
	struct report rep = {0, -ENOSYS, -ENOSYS};
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
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		rep.pin_errno = errno;
		send_fds(sock, rep, (int[2]){-1, -1});
		_exit(127);
	}
	if (use_perf)
		rep.perf = ecp_perf_switch_open(cpu);
	/* samples only beside the switch records: they split the segments
	 * those measure */
	if (rep.perf >= 0 && sample_hz)
		rep.sample = ecp_perf_sample_open(cpu, sample_hz);
	if (send_fds(sock, rep, (int[2]){rep.perf, rep.sample}) < 0)
		_exit(127);
	if (read(sock, &go, sizeof(go)) != (ssize_t)sizeof(go))
		_exit(127);
	/* the parent has its own copies now */
	if (rep.perf >= 0)
		close(rep.perf);
	if (rep.sample >= 0)
		close(rep.sample);
	fill_pid(rep.perf >= 0 ? env_perf : env_cputime);
	execvpe(argv[0], argv, rep.perf >= 0 ? env_perf : env_cputime);
	err = errno;
	if (write(sock, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

int ecp_launch_fork(char *const argv[], char *const env_perf[], char *const env_cputime[],
		    int cpu, bool use_perf, unsigned sample_hz, struct ecp_launch *l,
		    struct ecp_error *err)
{
	struct report value;
	int sv[2], fds[2], n_fds;

	l->pid = -1;
	l->sock = -1;
	l->perf_fd = -ENOSYS;
	l->sample_fd = -ENOSYS;
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
		child(sv[1], argv, env_perf, env_cputime, cpu, use_perf, sample_hz);
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
		return ecp_error_set(err, ECP_ERR_USAGE, "cannot run on CPU %d: %s", cpu,
				     strerror(value.pin_errno));
	}
	{
		int k = 0;
		l->perf_fd = value.perf >= 0 && k < n_fds ? fds[k++] : value.perf;
		l->sample_fd = value.sample >= 0 && k < n_fds ? fds[k++] : value.sample;
	}
	return ECP_OK;
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
