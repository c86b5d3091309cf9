/* SPDX-License-Identifier: MIT */
/* Two stages the compiler inlines into the worker that calls them (static,
 * called once, not declared inline: GCC and clang inline them at -O2), as an
 * optimised program's stages are (issue 34: sampling saw only the worker).
 * Each thread prints the CPU time each stage took, read from its own clock
 * around the stage, for the test to compare with what sampling finds. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "tests/support/thread-clock.h"

#define THREADS 2

static uint64_t stage_parse(uint64_t x)
{
	for (long i = 0; i < 60000000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull + (x >> 29);
	return x;
}

static uint64_t stage_score(uint64_t x)
{
	for (long i = 0; i < 20000000; i++)
		x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15ull + (uint64_t)i;
	return x;
}

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg, t0 = thread_cpu_ns();
	x = stage_parse(x);
	uint64_t t1 = thread_cpu_ns();
	x = stage_score(x);
	uint64_t t2 = thread_cpu_ns();
	pthread_mutex_lock(&print_lock);
	printf("stage_parse %llu\nstage_score %llu\nsum %llu\n",
	       (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1),
	       (unsigned long long)(x & 1));
	pthread_mutex_unlock(&print_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
