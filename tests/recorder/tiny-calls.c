/* SPDX-License-Identifier: MIT */
/* A call-dense program (issue 31): two threads each call a 3-5 ns leaf
 * function a few million times.  Recorded with --min-duration 0, every call
 * is two events that cost the program some 20x the leaf itself, so the
 * recorder's cost must come out of the times exactly or the leaf vanishes.
 * Prints each thread's own CPU clock, for comparison with an unrecorded run
 * of the same test.  An argument sets the calls per thread (default
 * 1,500,000). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/support/thread-clock.h"

#define CALLS 1500000

static long n_calls = CALLS;

/* A few dependent multiplications: 3-5 ns. */
__attribute__((noinline)) static uint64_t leaf(uint64_t x)
{
	for (int i = 0; i < 4; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static uint64_t calls(uint64_t seed)
{
	uint64_t x = seed;
	for (long i = 0; i < n_calls; i++)
		x = leaf(x);
	return x;
}

static void *worker(void *arg)
{
	uint64_t t0 = thread_cpu_ns();
	uint64_t r = calls((uint64_t)(uintptr_t)arg);
	printf("worker cpu_ns=%llu result=%llu\n",
	       (unsigned long long)(thread_cpu_ns() - t0), (unsigned long long)(r & 1));
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && atol(argv[1]) > 0)
		n_calls = atol(argv[1]);
	pthread_t t;
	uint64_t t0 = thread_cpu_ns();
	if (pthread_create(&t, NULL, worker, (void *)(uintptr_t)7))
		return 1;
	uint64_t r = calls(3);
	pthread_join(t, NULL);
	printf("main cpu_ns=%llu result=%llu\n",
	       (unsigned long long)(thread_cpu_ns() - t0), (unsigned long long)(r & 1));
	return 0;
}
