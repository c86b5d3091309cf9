/* SPDX-License-Identifier: MIT */
/* Situations the agent must survive, one per argument (built with
 * -finstrument-functions):
 *   sleep     print "ready", then sleep 20 s (the test sends Ctrl-C)
 *   crash     lock a mutex 10 times, then dereference NULL
 *   fork      fork a child that locks a mutex 10 times and execs true; the
 *             parent locks once and waits
 *   running   exit while another thread still locks in a loop
 *   cancel    cancel a thread blocked inside nested calls
 *   signals   instrumented signal handler firing during instrumented calls */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;
static volatile sig_atomic_t ticks;

__attribute__((noinline)) static void locked_step(void)
{
	pthread_mutex_lock(&lock);
	sink++;
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static void wait_forever(void)
{
	pause(); /* a cancellation point */
}

__attribute__((noinline)) static void nested(void)
{
	wait_forever();
}

static void *cancel_target(void *arg)
{
	nested();
	return arg;
}

static void *busy(void *arg)
{
	for (;;)
		locked_step();
	return arg;
}

__attribute__((noinline)) static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
	sink++;
}

__attribute__((noinline)) static long work(long n)
{
	return n ? work(n - 1) + 1 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "sleep")) {
		struct timespec ts = {20, 0};
		puts("ready");
		fflush(stdout);
		nanosleep(&ts, NULL);
		return 0;
	}
	if (!strcmp(mode, "crash")) {
		for (int i = 0; i < 10; i++)
			locked_step();
		fflush(stdout);
		*(volatile int *)(uintptr_t)sink = 0; /* sink is 10: an invalid address */
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			for (int i = 0; i < 10; i++)
				locked_step();
			execlp("true", "true", (char *)NULL);
			_exit(1);
		}
		locked_step();
		int st;
		waitpid(pid, &st, 0);
		printf("child=%d status=%d\n", (int)pid,
		       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 0;
	}
	if (!strcmp(mode, "running")) {
		pthread_t t;
		struct timespec ts = {0, 20000000};
		pthread_create(&t, NULL, busy, NULL);
		nanosleep(&ts, NULL);
		exit(4);
	}
	if (!strcmp(mode, "cancel")) {
		pthread_t t;
		void *ret;
		struct timespec ts = {0, 20000000};
		pthread_create(&t, NULL, cancel_target, NULL);
		nanosleep(&ts, NULL);
		pthread_cancel(t);
		pthread_join(t, &ret);
		printf("cancelled=%d\n", ret == PTHREAD_CANCELED);
		return 0;
	}
	if (!strcmp(mode, "signals")) {
		struct itimerval it = {{0, 100}, {0, 100}};
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		long total = 0;
		while (ticks < 200)
			total += work(50);
		it.it_value.tv_usec = 0;
		it.it_interval.tv_usec = 0;
		setitimer(ITIMER_REAL, &it, NULL);
		printf("ticks=%d total=%ld\n", (int)ticks, total > 0 ? 1L : 0L);
		return 0;
	}
	fprintf(stderr, "unknown mode '%s'\n", mode);
	return 2;
}
