/* SPDX-License-Identifier: MIT */
/* Threads that hand data to each other through the kernel, for the
 * end-to-end tests of the recorder's channels and blocking calls.  Built
 * with _FORTIFY_SOURCE=2, as many distributions build programs, so that its
 * reads go through glibc's __read_chk and __recv_chk.
 *
 *   pipe, socketpair, eventfd, mqueue: a producer/consumer of 16 items
 *       (slow to produce and quick to consume, then the reverse) through
 *       that channel; main prints the CPU time of every piece of work
 *       between two hand-offs ("seg KEY ns"), read with the thread's own
 *       CLOCK_THREAD_CPUTIME_ID, for the oracle of the test
 *   misc: one call of each other wrapped blocking call (ppoll, pselect,
 *       epoll_pwait, readv/writev, pread/pwrite, sendto/recvfrom,
 *       sendmsg/recvmsg, waitpid, sigtimedwait, flock, fcntl F_SETLKW,
 *       rwlock clock locks, pthread_tryjoin_np/timedjoin_np/clockjoin_np,
 *       pthread_cancel, sched_yield), each printed as "call=result" */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ITEMS   16
#define SLOW_NS 5000000
#define FAST_NS 500000

static const char *mode;
static int rfd = -1, wfd = -1;
static mqd_t mq = (mqd_t)-1;
static uint64_t prod_ns[ITEMS], cons_ns[ITEMS], setup_ns, ctail_ns, mtail_ns;
static volatile double sink;
/* a length the compiler cannot see: fortified reads into fixed buffers
 * then check it at run time, through __read_chk and __recv_chk */
static volatile size_t item_len = sizeof(int);

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void work(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	double s = 0;
	do {
		for (int i = 0; i < 20000; i++)
			s += (double)(i & 7) * 1e-9;
	} while (cpu_ns() < end);
	sink += s;
}

static void put(int i)
{
	if (!strcmp(mode, "eventfd")) {
		uint64_t one = 1;
		if (write(wfd, &one, sizeof(one)) != sizeof(one))
			exit(3);
	} else if (!strcmp(mode, "mqueue")) {
		if (mq_send(mq, (const char *)&i, sizeof(i), 0))
			exit(3);
	} else if (!strcmp(mode, "socketpair")) {
		if (send(wfd, &i, sizeof(i), 0) != sizeof(i))
			exit(3);
	} else if (write(wfd, &i, sizeof(i)) != sizeof(i)) {
		exit(3);
	}
}

/* Items taken: an eventfd read takes every item written since the last. */
static int take(void)
{
	char buf[64];
	if (!strcmp(mode, "eventfd")) {
		uint64_t n;
		return read(rfd, &n, sizeof(n)) == sizeof(n) ? (int)n : -1;
	}
	if (!strcmp(mode, "mqueue"))
		return mq_receive(mq, buf, sizeof(buf), NULL) == sizeof(int) ? 1 : -1;
	if (!strcmp(mode, "socketpair"))
		return recv(rfd, buf, item_len, MSG_WAITALL) == sizeof(int) ? 1 : -1;
	return read(rfd, buf, item_len) == sizeof(int) ? 1 : -1;
}

static void *consumer(void *arg)
{
	(void)arg;
	uint64_t t = cpu_ns();
	for (int i = 0; i < ITEMS;) {
		int n = take();
		if (n <= 0)
			exit(4);
		for (; n > 0 && i < ITEMS; n--, i++) {
			work(i < ITEMS / 2 ? FAST_NS : SLOW_NS);
			uint64_t now = cpu_ns();
			cons_ns[i] = now - t;
			t = now;
		}
	}
	ctail_ns = cpu_ns() - t;
	return NULL;
}

static int channel(void)
{
	int fds[2];
	pthread_t th;
	uint64_t t = cpu_ns();
	if (!strcmp(mode, "pipe")) {
		if (pipe(fds))
			return 1;
		rfd = fds[0], wfd = fds[1];
	} else if (!strcmp(mode, "socketpair")) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
			return 1;
		wfd = fds[0], rfd = fds[1];
	} else if (!strcmp(mode, "eventfd")) {
		rfd = wfd = eventfd(0, 0);
	} else {
		char name[64];
		struct mq_attr attr = {.mq_maxmsg = 10, .mq_msgsize = sizeof(int)};
		snprintf(name, sizeof(name), "/ecp-io-sync-%d", (int)getpid());
		mq = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
		mq_unlink(name);
		if (mq == (mqd_t)-1) {
			printf("skip=mq_open: %s\n", strerror(errno));
			return 0;
		}
	}
	if (pthread_create(&th, NULL, consumer, NULL))
		return 1;
	uint64_t now = cpu_ns();
	setup_ns = now - t;
	t = now;
	for (int i = 0; i < ITEMS; i++) {
		work(i < ITEMS / 2 ? SLOW_NS : FAST_NS);
		put(i);
		now = cpu_ns();
		prod_ns[i] = now - t;
		t = now;
	}
	pthread_join(th, NULL);
	mtail_ns = cpu_ns() - t;
	printf("seg setup %llu\n", (unsigned long long)setup_ns);
	for (int i = 0; i < ITEMS; i++)
		printf("seg p%d %llu\nseg c%d %llu\n", i, (unsigned long long)prod_ns[i],
		       i, (unsigned long long)cons_ns[i]);
	printf("seg ctail %llu\nseg mtail %llu\n", (unsigned long long)ctail_ns,
	       (unsigned long long)mtail_ns);
	return 0;
}

static void *sleeper(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 20000000};
	for (;;) {
		nanosleep(&ts, NULL); /* a cancellation point */
		pthread_testcancel();
	}
	return NULL;
}

static void *quick(void *arg)
{
	return arg;
}

static int misc(void)
{
	int sv[2], ep, rc;
	char buf[16] = "abcdefgh";
	struct pollfd p;
	struct timespec zero = {0, 1000000}, deadline;
	pthread_t th;
	pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return 1;
	p.fd = sv[1];
	p.events = POLLIN;
	printf("ppoll=%d\n", ppoll(&p, 1, &zero, NULL));
	fd_set set;
	FD_ZERO(&set);
	FD_SET(sv[1], &set);
	printf("pselect=%d\n", pselect(sv[1] + 1, &set, NULL, NULL, &zero, NULL));
	/* a count the compiler cannot see: fortified, __poll_chk and __ppoll_chk */
	struct pollfd ps[2] = {p, p};
	printf("poll_chk=%d\n", poll(ps, (nfds_t)item_len / 4, 1));
	printf("ppoll_chk=%d\n", ppoll(ps, (nfds_t)item_len / 4, &zero, NULL));
	ep = epoll_create1(0);
	printf("epoll_pwait=%d\n", epoll_pwait(ep, &(struct epoll_event){0}, 1, 1, NULL));
	printf("epoll_pwait2=%d\n",
	       epoll_pwait2(ep, &(struct epoll_event){0}, 1, &zero, NULL));
	close(ep);
	printf("sendto=%zd\n", sendto(sv[0], buf, 4, 0, NULL, 0));
	printf("recvfrom=%zd\n", recvfrom(sv[1], buf, item_len, 0, NULL, NULL));
	struct iovec iov = {buf, 4};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	printf("sendmsg=%zd\n", sendmsg(sv[0], &msg, 0));
	printf("recvmsg=%zd\n", recvmsg(sv[1], &msg, 0));
	printf("writev=%zd\n", writev(sv[0], &iov, 1));
	printf("readv=%zd\n", readv(sv[1], &iov, 1));
	/* a connection to itself on an abstract UNIX address: connect (a delay),
	 * accept4 (its connection is pending: no delay) */
	struct sockaddr_un ua = {.sun_family = AF_UNIX};
	snprintf(ua.sun_path + 1, sizeof(ua.sun_path) - 1, "ecp-io-sync-%d",
		 (int)getpid());
	socklen_t ualen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				      strlen(ua.sun_path + 1));
	int ls = socket(AF_UNIX, SOCK_STREAM, 0), cs = socket(AF_UNIX, SOCK_STREAM, 0),
	    as;
	if (bind(ls, (struct sockaddr *)&ua, ualen) || listen(ls, 1) ||
	    connect(cs, (struct sockaddr *)&ua, ualen))
		return 1;
	as = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	printf("accept4=%d\n", as >= 0);
	close(as);
	close(cs);
	close(ls);
	/* a pipe end closed past the close wrapper (fclose) and its number
	 * reused by a file: the file is no channel */
	int pf[2];
	if (pipe(pf))
		return 1;
	close(pf[1]);
	fclose(fdopen(pf[0], "r"));
	char spath[] = "/tmp/ecp-io-sync-XXXXXX";
	int sf = mkstemp(spath);
	unlink(spath);
	printf("reused=%d\n", sf == pf[0]);
	printf("stale_write=%zd\n", write(sf, buf, 4));
	close(sf);
	char path[] = "/tmp/ecp-io-sync-XXXXXX";
	int f = mkstemp(path);
	unlink(path);
	printf("pwrite=%zd\n", pwrite(f, buf, 4, 0));
	printf("pread=%zd\n", pread(f, buf, item_len, 0));
	printf("flock=%d\n", flock(f, LOCK_EX));
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	printf("fcntl=%d\n", fcntl(f, F_SETLKW, &fl));
	close(f);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(2000);
		_exit(0);
	}
	printf("waitpid=%d\n", waitpid(pid, NULL, 0) == pid);
	if ((pid = fork()) == 0)
		_exit(0);
	printf("wait=%d\n", wait(NULL) == pid);
	if ((pid = fork()) == 0)
		_exit(0);
	siginfo_t si;
	printf("waitid=%d\n", waitid(P_PID, (id_t)pid, &si, WEXITED));
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);
	rc = sigtimedwait(&ss, NULL, &zero);
	printf("sigtimedwait=%s\n", rc < 0 && errno == EAGAIN ? "EAGAIN" : "other");
	int sig = 0;
	raise(SIGUSR1);
	printf("sigwait=%d\n", sigwait(&ss, &sig) == 0 && sig == SIGUSR1);
	raise(SIGUSR1);
	printf("sigwaitinfo=%d\n", sigwaitinfo(&ss, NULL) == SIGUSR1);
	printf("sched_yield=%d\n", sched_yield());
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += 5;
	printf("clockrdlock=%d\n",
	       pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &deadline));
	pthread_rwlock_unlock(&rw);
	printf("clockwrlock=%d\n",
	       pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &deadline));
	pthread_rwlock_unlock(&rw);
	pthread_create(&th, NULL, quick, NULL);
	while ((rc = pthread_tryjoin_np(th, NULL)) == EBUSY)
		sched_yield();
	printf("tryjoin=%d\n", rc);
	pthread_create(&th, NULL, quick, NULL);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	printf("timedjoin=%d\n", pthread_timedjoin_np(th, NULL, &deadline));
	pthread_create(&th, NULL, quick, NULL);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += 5;
	printf("clockjoin=%d\n",
	       pthread_clockjoin_np(th, NULL, CLOCK_MONOTONIC, &deadline));
	pthread_create(&th, NULL, sleeper, NULL);
	printf("cancel=%d\n", pthread_cancel(th));
	printf("join_cancelled=%d\n", pthread_join(th, NULL));
	close(sv[0]);
	close(sv[1]);
	return 0;
}

int main(int argc, char **argv)
{
	mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "misc"))
		return misc();
	if (!strcmp(mode, "pipe") || !strcmp(mode, "socketpair") ||
	    !strcmp(mode, "eventfd") || !strcmp(mode, "mqueue"))
		return channel();
	fprintf(stderr, "usage: %s pipe|socketpair|eventfd|mqueue|misc\n", argv[0]);
	return 2;
}
