/* SPDX-License-Identifier: MIT */
/* Programs that wait the way real programs do (issue 32), for the
 * end-to-end tests of how such waits are modelled.  Every piece of work is
 * measured with the thread's own CLOCK_THREAD_CPUTIME_ID and printed as
 * "seg KEY ns" for the oracle of the test.
 *
 *   progress: main waits for two workers in a loop of timed condition
 *       waits (300 ms; liblzma's and CPython's shape): most of them time
 *       out, the last ones are ended by the workers' signals.  The timeouts are not
 *       delays the run must sit through: on more CPUs the workers finish
 *       sooner and fewer waits time out.
 *   sigwait: a thread waits in sigwait() for the whole run (pbzip2's
 *       signal thread); main wakes it with pthread_kill() when the workers
 *       are joined, then joins it.
 *   pause: a thread with a SIGUSR2 handler waits in pause() for the whole
 *       run; main wakes it with pthread_kill() when the workers are joined.
 *   cancel: a thread waits on a condition variable nobody signals for the
 *       whole run; main cancels it when the workers are joined, then joins
 *       it.
 *   blocked: two pool workers do their work, hand it to main through a
 *       semaphore and then wait for more work that never comes: main exits
 *       with them blocked and never joined.
 *   running: two threads are still computing when main returns (they are
 *       never joined); each publishes its CPU time as it goes, and main
 *       prints what they had done at its exit.
 *   eventloop: libuv's shape: two pool workers finish items and announce
 *       each on an eventfd; main's loop waits in epoll_wait, then looks at
 *       its other descriptor (an empty non-blocking pipe, as libuv's signal
 *       pipe) and takes its own lock before it reads the eventfd.
 *   rawclone: Go's shape: two threads made with clone() and their own
 *       stacks compute, then wake main with futex system calls made
 *       directly (no libc, so no agent, sees them); main waits on the futex
 *       the same way.
 *   plain: two workers, joined: the threaded program the next modes run
 *       as a child process.
 *   fork: main forks two worker processes and waits for them with
 *       waitpid; each child prints its own CPU time.
 *   system: main runs "THIS_PROGRAM plain" with system().
 * (A shell wrapper is tested by recording sh -c "THIS_PROGRAM plain; true":
 * the shell forks the program and waits for it.) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 2

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile double sink;

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

static uint64_t env_ms(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : dflt;
}

static uint64_t worker_ns[WORKERS];
static uint64_t work_ns = 300000000; /* WAITS_WORK_MS */

/* ---- progress ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int finished;

static void *progress_worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint64_t t = cpu_ns();
	work(work_ns);
	pthread_mutex_lock(&mu);
	finished++;
	worker_ns[i] = cpu_ns() - t;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int progress(void)
{
	uint64_t timeout_ms = env_ms("WAITS_TIMEOUT_MS", 300);
	pthread_t th[WORKERS];
	uint64_t t = cpu_ns();
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, progress_worker, (void *)(intptr_t)i))
			return 1;
	int timeouts = 0, woken = 0;
	pthread_mutex_lock(&mu);
	while (finished < WORKERS) {
		struct timespec abs;
		clock_gettime(CLOCK_REALTIME, &abs);
		uint64_t ns = (uint64_t)abs.tv_nsec + timeout_ms * 1000000u;
		abs.tv_sec += (time_t)(ns / 1000000000u);
		abs.tv_nsec = (long)(ns % 1000000000u);
		int rc = pthread_cond_timedwait(&cv, &mu, &abs);
		if (rc == ETIMEDOUT)
			timeouts++;
		else
			woken++;
	}
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	printf("seg main %llu\n", (unsigned long long)(cpu_ns() - t));
	printf("timeouts=%d\nwoken=%d\n", timeouts, woken);
	return 0;
}

/* ---- sigwait ---- */

static uint64_t sig_ns;

static void *signal_thread(void *arg)
{
	sigset_t *set = arg;
	int sig = 0;
	uint64_t t = cpu_ns();
	int rc = sigwait(set, &sig);
	sig_ns = cpu_ns() - t;
	printf("sigwait=%d sig=%d\n", rc, sig);
	return NULL;
}

static void *plain_worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint64_t t = cpu_ns();
	work(work_ns);
	worker_ns[i] = cpu_ns() - t;
	return NULL;
}

static int sigwaiter(void)
{
	static sigset_t set;
	pthread_t sigth, th[WORKERS];
	uint64_t t = cpu_ns();
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	/* blocked in every thread, taken only by sigwait */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return 1;
	if (pthread_create(&sigth, NULL, signal_thread, &set))
		return 1;
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, plain_worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	if (pthread_kill(sigth, SIGUSR1))
		return 1;
	pthread_join(sigth, NULL);
	printf("seg main %llu\n", (unsigned long long)(cpu_ns() - t));
	printf("seg signal %llu\n", (unsigned long long)sig_ns);
	return 0;
}

/* ---- pause ---- */

static volatile sig_atomic_t woken_by_signal;

static void on_usr2(int sig)
{
	(void)sig;
	woken_by_signal = 1;
}

static void *pausing(void *arg)
{
	(void)arg;
	uint64_t t = cpu_ns();
	while (!woken_by_signal)
		pause();
	sig_ns = cpu_ns() - t;
	return NULL;
}

static int paused(void)
{
	pthread_t waiter, th[WORKERS];
	uint64_t t = cpu_ns();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	if (sigaction(SIGUSR2, &sa, NULL))
		return 1;
	if (pthread_create(&waiter, NULL, pausing, NULL))
		return 1;
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, plain_worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	if (pthread_kill(waiter, SIGUSR2) || pthread_join(waiter, NULL))
		return 1;
	printf("seg main %llu\nseg signal %llu\n", (unsigned long long)(cpu_ns() - t),
	       (unsigned long long)sig_ns);
	return 0;
}

/* ---- cancel ---- */

static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t never_mu = PTHREAD_MUTEX_INITIALIZER;

static void unlock_never(void *arg)
{
	(void)arg;
	pthread_mutex_unlock(&never_mu);
}

static void *cancel_target(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&never_mu);
	pthread_cleanup_push(unlock_never, NULL);
	for (;;)
		pthread_cond_wait(&never, &never_mu);
	pthread_cleanup_pop(1);
	return NULL;
}

static int cancelled(void)
{
	pthread_t target, th[WORKERS];
	uint64_t t = cpu_ns();
	if (pthread_create(&target, NULL, cancel_target, NULL))
		return 1;
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, plain_worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	void *ret;
	if (pthread_cancel(target) || pthread_join(target, &ret))
		return 1;
	printf("seg main %llu\ncancelled=%d\n", (unsigned long long)(cpu_ns() - t),
	       ret == PTHREAD_CANCELED);
	return 0;
}

/* ---- blocked ---- */

static sem_t done_sem, more_work;

static void *pool_worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint64_t t = cpu_ns();
	work(work_ns);
	worker_ns[i] = cpu_ns() - t;
	sem_post(&done_sem);
	/* the next job never comes: the process exits under this wait */
	while (sem_wait(&more_work) && errno == EINTR)
		;
	return NULL;
}

static int blocked(void)
{
	pthread_t th[WORKERS];
	uint64_t t = cpu_ns();
	if (sem_init(&done_sem, 0, 0) || sem_init(&more_work, 0, 0))
		return 1;
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, pool_worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < WORKERS; i++)
		while (sem_wait(&done_sem) && errno == EINTR)
			;
	printf("seg main %llu\n", (unsigned long long)(cpu_ns() - t));
	return 0;
}

/* ---- running ---- */

static _Atomic uint64_t published_ns[WORKERS];

static void *endless_worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint64_t t = cpu_ns();
	for (;;) {
		work(1000000);
		atomic_store(&published_ns[i], cpu_ns() - t);
	}
	return NULL;
}

static int running(void)
{
	pthread_t th[WORKERS];
	uint64_t t = cpu_ns();
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, endless_worker, (void *)(intptr_t)i))
			return 1;
	work(work_ns);
	for (int i = 0; i < WORKERS; i++)
		worker_ns[i] = atomic_load(&published_ns[i]);
	printf("seg main %llu\n", (unsigned long long)(cpu_ns() - t));
	for (int i = 0; i < WORKERS; i++)
		printf("seg w%d %llu\n", i, (unsigned long long)worker_ns[i]);
	fflush(stdout);
	return 0;
}

/* ---- eventloop ---- */

#define LOOP_ITEMS 8

static int loop_efd;
static pthread_mutex_t loop_mu = PTHREAD_MUTEX_INITIALIZER;

static void *loop_worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint64_t t = cpu_ns();
	for (int k = 0; k < LOOP_ITEMS; k++) {
		work(work_ns / LOOP_ITEMS);
		uint64_t one = 1;
		if (write(loop_efd, &one, sizeof(one)) != sizeof(one))
			abort();
	}
	worker_ns[i] = cpu_ns() - t;
	return NULL;
}

static int eventloop(void)
{
	pthread_t th[WORKERS];
	int sigpipe[2];
	uint64_t t = cpu_ns();
	int ep = epoll_create1(0);
	loop_efd = eventfd(0, EFD_NONBLOCK);
	if (ep < 0 || loop_efd < 0 || pipe2(sigpipe, O_NONBLOCK))
		return 1;
	struct epoll_event e = {.events = EPOLLIN, .data.fd = loop_efd};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, loop_efd, &e))
		return 1;
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, loop_worker, (void *)(intptr_t)i))
			return 1;
	uint64_t done = 0;
	int wakeups = 0;
	while (done < WORKERS * LOOP_ITEMS) {
		struct epoll_event got;
		int n = epoll_wait(ep, &got, 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			return 1;
		wakeups++;
		char c;
		if (read(sigpipe[0], &c, 1) > 0) /* nothing: no signal came */
			return 1;
		/* the loop's own lock, as libuv's around its queue */
		uint64_t v;
		pthread_mutex_lock(&loop_mu);
		if (read(loop_efd, &v, sizeof(v)) == sizeof(v))
			done += v;
		pthread_mutex_unlock(&loop_mu);
	}
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	printf("seg main %llu\n", (unsigned long long)(cpu_ns() - t));
	printf("wakeups=%d\n", wakeups);
	return 0;
}

/* ---- rawclone ---- */

/* A system call made directly, as Go's runtime makes them: no libc
 * wrapper (and so no agent) in between. */
static long raw_syscall4(long nr, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

static _Atomic int raw_done;

static int raw_worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	uint64_t t = cpu_ns();
	work(work_ns);
	worker_ns[i] = cpu_ns() - t;
	atomic_fetch_add(&raw_done, 1);
	raw_syscall4(SYS_futex, (long)&raw_done, FUTEX_WAKE, 1, 0);
	return 0;
}

static int rawclone(void)
{
	static char stacks[WORKERS][256 * 1024] __attribute__((aligned(16)));
	uint64_t t = cpu_ns();
	for (int i = 0; i < WORKERS; i++)
		if (clone(raw_worker, stacks[i] + sizeof(stacks[i]),
			  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			      CLONE_THREAD | CLONE_SYSVSEM,
			  (void *)(intptr_t)i) < 0)
			return 1;
	for (int d; (d = atomic_load(&raw_done)) < WORKERS;)
		raw_syscall4(SYS_futex, (long)&raw_done, FUTEX_WAIT, d, 0);
	printf("seg main %llu\n", (unsigned long long)(cpu_ns() - t));
	return 0;
}

/* ---- plain, fork, system ---- */

static int plain(void)
{
	pthread_t th[WORKERS];
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, plain_worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static int forked(void)
{
	pid_t kids[WORKERS];
	uint64_t t = cpu_ns();
	fflush(stdout);
	for (int i = 0; i < WORKERS; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return 1;
		if (kids[i] == 0) {
			uint64_t c = cpu_ns();
			work(work_ns);
			printf("seg w%d %llu\n", i, (unsigned long long)(cpu_ns() - c));
			fflush(stdout);
			_exit(0);
		}
	}
	for (int i = 0; i < WORKERS; i++) {
		int status;
		if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status))
			return 1;
	}
	printf("seg main %llu\n", (unsigned long long)(cpu_ns() - t));
	return 0;
}

static int systemed(const char *self)
{
	char cmd[4096];
	uint64_t t = cpu_ns();
	if (snprintf(cmd, sizeof(cmd), "'%s' plain", self) >= (int)sizeof(cmd))
		return 1;
	fflush(stdout);
	int rc = system(cmd);
	printf("seg main %llu\n", (unsigned long long)(cpu_ns() - t));
	return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr,
			"usage: %s "
			"progress|sigwait|pause|cancel|blocked|running|eventloop|"
			"rawclone|plain|fork|system\n",
			argv[0]);
		return 2;
	}
	work_ns = env_ms("WAITS_WORK_MS", 300) * 1000000u;
	int rc;
	if (!strcmp(argv[1], "progress"))
		rc = progress();
	else if (!strcmp(argv[1], "sigwait"))
		rc = sigwaiter();
	else if (!strcmp(argv[1], "blocked"))
		rc = blocked();
	else if (!strcmp(argv[1], "cancel"))
		rc = cancelled();
	else if (!strcmp(argv[1], "pause"))
		rc = paused();
	else if (!strcmp(argv[1], "running"))
		rc = running();
	else if (!strcmp(argv[1], "eventloop"))
		rc = eventloop();
	else if (!strcmp(argv[1], "rawclone"))
		rc = rawclone();
	else if (!strcmp(argv[1], "plain"))
		rc = plain();
	else if (!strcmp(argv[1], "fork"))
		return forked();
	else if (!strcmp(argv[1], "system"))
		return systemed(argv[0]);
	else
		return 2;
	if (strcmp(argv[1], "running"))
		for (int i = 0; i < WORKERS; i++)
			printf("seg w%d %llu\n", i, (unsigned long long)worker_ns[i]);
	return rc;
}
