/* SPDX-License-Identifier: MIT */
/* Two CPU-bound threads time-slicing on one CPU.  Each spins until its own
 * CPU clock reaches SPIN_MS, then prints its kernel tid and the CPU time it
 * got (CLOCK_THREAD_CPUTIME_ID), which the test compares with the trace. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define SPIN_MS 250

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *spin(void *arg)
{
	volatile uint64_t x = 0;
	uint64_t t;
	while ((t = cpu_ns()) < SPIN_MS * 1000000ull)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
	(void)x; /* volatile: the loop is the point, not its sum */
	pthread_mutex_lock(&print_lock);
	printf("tid=%d cpu_ns=%llu\n", gettid(), (unsigned long long)cpu_ns());
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
	return arg;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, spin, NULL);
	pthread_create(&b, NULL, spin, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
