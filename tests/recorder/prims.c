/* SPDX-License-Identifier: MIT */
/* Every primitive the recorder interposes, used by 8 threads in a fixed,
 * countable way.  Prints to stdout the number of calls of each kind it made
 * (the e2e test compares them with the trace) and exits with status 7. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 8
#define ROUNDS   20

static pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive, errorcheck, timed;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t cond_mutex = PTHREAD_MUTEX_INITIALIZER;
static int cond_waiting; /* under cond_mutex */
static sem_t sem;
static pthread_barrier_t barrier;
static pthread_rwlock_t rwlock;
static pthread_spinlock_t spin;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int pipefd[2];
static long shared_counter;
static int once_runs;

static void *detached_fn(void *arg)
{
	return arg;
}

static void init_once(void)
{
	once_runs++;
}

static void pause_ns(long ns)
{
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

static void deadline_in(struct timespec *ts, long ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += ns;
	while (ts->tv_nsec >= 1000000000L) {
		ts->tv_nsec -= 1000000000L;
		ts->tv_sec++;
	}
}

static void *worker(void *arg)
{
	long id = (long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%ld", id);
	pthread_setname_np(pthread_self(), name);
	pthread_once(&once, init_once);
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&normal);
		shared_counter++;
		pthread_mutex_unlock(&normal);

		pthread_mutex_lock(&recursive);
		pthread_mutex_lock(&recursive);
		pthread_mutex_unlock(&recursive);
		pthread_mutex_unlock(&recursive);

		pthread_rwlock_rdlock(&rwlock);
		pthread_rwlock_unlock(&rwlock);
		pthread_rwlock_wrlock(&rwlock);
		pthread_rwlock_unlock(&rwlock);

		pthread_spin_lock(&spin);
		shared_counter++;
		pthread_spin_unlock(&spin);
	}
	/* semaphore: every thread posts once and takes once */
	sem_post(&sem);
	sem_wait(&sem);
	pthread_barrier_wait(&barrier);
	/* thread 0 consumes what thread 1 writes to the pipe, blocking */
	if (id == 0) {
		char c;
		if (read(pipefd[0], &c, 1) != 1)
			return (void *)1;
	} else if (id == 1) {
		pause_ns(2000000);
		if (write(pipefd[1], "x", 1) != 1)
			return (void *)1;
	}
	/* condition variable: thread 2 waits, thread 3 signals once thread 2
	 * is in its wait (holding the mutex with cond_waiting set means thread
	 * 2 released it in pthread_cond_wait): a signal sent before, on a
	 * loaded machine, left thread 2 no wait to record */
	if (id == 2) {
		pthread_mutex_lock(&cond_mutex);
		cond_waiting = 1;
		while (shared_counter >= 0 && !(shared_counter & (1L << 40)))
			pthread_cond_wait(&cond, &cond_mutex);
		pthread_mutex_unlock(&cond_mutex);
	} else if (id == 3) {
		for (int signalled = 0; !signalled;) {
			pause_ns(1000000);
			pthread_mutex_lock(&cond_mutex);
			if (cond_waiting) {
				shared_counter |= 1L << 40;
				pthread_cond_signal(&cond);
				signalled = 1;
			}
			pthread_mutex_unlock(&cond_mutex);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS], detached;
	pthread_mutexattr_t ma;
	struct timespec deadline;
	struct pollfd pfd;
	fd_set rfds;
	struct timeval tv = {0, 1000};
	int rc, epfd;
	struct epoll_event ev;

	prctl(PR_SET_NAME, "prims-main");
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&recursive, &ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&errorcheck, &ma);
	pthread_mutex_init(&timed, NULL);
	pthread_mutexattr_destroy(&ma);
	sem_init(&sem, 0, 0);
	pthread_barrier_init(&barrier, NULL, NTHREADS);
	pthread_rwlock_init(&rwlock, NULL);
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	if (pipe(pipefd) < 0)
		return 1;

	/* error-checking: relock refused, unlock by owner */
	pthread_mutex_lock(&errorcheck);
	rc = pthread_mutex_lock(&errorcheck);
	if (rc != EDEADLK)
		return 1;
	pthread_mutex_unlock(&errorcheck);
	/* trylock success and failure, timedlock timeout */
	pthread_mutex_trylock(&timed);
	pthread_mutex_unlock(&timed);
	pthread_mutex_lock(&timed);
	if (pthread_mutex_trylock(&timed) != EBUSY)
		return 1;
	/* a normal mutex relocked by its owner with a deadline times out */
	deadline_in(&deadline, 1000000);
	if (pthread_mutex_timedlock(&timed, &deadline) != ETIMEDOUT)
		return 1;
	pthread_mutex_unlock(&timed);
	/* timed condition wait that times out */
	pthread_mutex_lock(&cond_mutex);
	deadline_in(&deadline, 1000000);
	rc = pthread_cond_timedwait(&cond, &cond_mutex, &deadline);
	pthread_mutex_unlock(&cond_mutex);
	if (rc != ETIMEDOUT)
		return 1;
	pthread_cond_broadcast(&cond);
	/* semaphore trywait (fails: empty) and timedwait (times out) */
	if (sem_trywait(&sem) == 0)
		return 1;
	deadline_in(&deadline, 1000000);
	if (sem_timedwait(&sem, &deadline) == 0)
		return 1;
	/* delays */
	pause_ns(1000000);
	usleep(1000);
	sleep(0);
	{
		struct timespec ts = {0, 1000000};
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	poll(&pfd, 1, 1);
	FD_ZERO(&rfds);
	FD_SET(pipefd[0], &rfds);
	select(pipefd[0] + 1, &rfds, NULL, NULL, &tv);
	epfd = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.fd = pipefd[0];
	epoll_ctl(epfd, EPOLL_CTL_ADD, pipefd[0], &ev);
	epoll_wait(epfd, &ev, 1, 1);
	close(epfd);

	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	pthread_create(&detached, NULL, detached_fn, NULL);
	pthread_detach(detached);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	/* What the program did, for the test to compare with the trace. */
	printf("created=%d\n", NTHREADS + 1);
	printf("joins=%d\n", NTHREADS);
	printf("once_runs=%d\n", once_runs);
	printf("normal_locks=%d\n", NTHREADS * ROUNDS);
	printf("recursive_locks=%d\n", 2 * NTHREADS * ROUNDS);
	printf("rwlock_rd=%d\n", NTHREADS * ROUNDS);
	printf("rwlock_wr=%d\n", NTHREADS * ROUNDS);
	printf("spin_locks=%d\n", NTHREADS * ROUNDS);
	printf("sem_posts=%d\n", NTHREADS);
	printf("barrier_waits=%d\n", NTHREADS);
	printf("counter=%ld\n", shared_counter & ((1L << 40) - 1));
	fflush(stdout);
	return 7;
}
