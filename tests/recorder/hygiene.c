/* SPDX-License-Identifier: MIT */
/* What being recorded must not change, one check per argument (built with
 * -finstrument-functions):
 *   errno     errno set inside instrumented calls, by failed and by
 *             successful wrapped calls, is what the program sees
 *   signals   print the dispositions of SIGHUP, SIGINT and SIGTERM
 *   count     count SIGINTs for 1.5 s after printing "ready"
 *   sleep     print "ready", then sleep 30 s
 *   forkwork  fork without exec; the child locks, calls and exits 7 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t sigints;
static volatile long sink;

/* Long enough to be emitted (default --min-duration 10 us): its exit hook
 * writes events after it set errno. */
__attribute__((noinline)) static void sets_errno(int e)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 50000);
	errno = e;
}

__attribute__((noinline)) static void locked_step(void)
{
	pthread_mutex_lock(&lock);
	sink++;
	pthread_mutex_unlock(&lock);
}

static int check_errno(void)
{
	sem_t sem;
	struct timespec ms = {0, 1000000};
	int bad = 0;
	for (int i = 0; i < 200; i++) {
		sets_errno(EDOM + i % 2);
		if (errno != EDOM + i % 2)
			bad++;
	}
	sem_init(&sem, 0, 0);
	for (int i = 0; i < 200; i++) {
		errno = 0;
		if (sem_trywait(&sem) == 0 || errno != EAGAIN)
			bad++;
		/* a successful call leaves errno as it was */
		errno = ERANGE;
		locked_step();
		sem_post(&sem);
		sem_wait(&sem);
		if (errno != ERANGE)
			bad++;
	}
	errno = ENOTTY;
	nanosleep(&ms, NULL);
	if (errno != ENOTTY)
		bad++;
	printf("errno_bad=%d\n", bad);
	return bad != 0;
}

static const char *disposition(int sig)
{
	struct sigaction sa;
	sigaction(sig, NULL, &sa);
	return sa.sa_handler == SIG_IGN   ? "ign"
	       : sa.sa_handler == SIG_DFL ? "dfl"
					  : "handler";
}

static void on_sigint(int sig)
{
	(void)sig;
	sigints++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "errno"))
		return check_errno();
	if (!strcmp(mode, "signals")) {
		printf("SIGHUP=%s SIGINT=%s SIGTERM=%s\n", disposition(SIGHUP),
		       disposition(SIGINT), disposition(SIGTERM));
		return 0;
	}
	if (!strcmp(mode, "count")) {
		struct timespec t = {1, 500000000};
		signal(SIGINT, on_sigint);
		printf("ready\n");
		fflush(stdout);
		while (nanosleep(&t, &t) < 0 && errno == EINTR)
			;
		printf("sigints=%d\n", (int)sigints);
		return 0;
	}
	if (!strcmp(mode, "sleep")) {
		printf("ready\n");
		fflush(stdout);
		sleep(30);
		return 0;
	}
	if (!strcmp(mode, "forkwork")) {
		int status = 0;
		pid_t pid = fork();
		if (pid == 0) {
			for (int i = 0; i < 100; i++)
				locked_step();
			sets_errno(0);
			_exit(7);
		}
		locked_step();
		waitpid(pid, &status, 0);
		printf("child_status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	return 2;
}
