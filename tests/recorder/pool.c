/* SPDX-License-Identifier: MIT */
/* A pool of workers, each burning a share of a fixed amount of CPU: sized by
 * the CPU count the program asks for (`pool`), or fixed (`pool fixed N`),
 * which never asks.  Issue 34: a pool sized by the count is the pool ecp
 * records, and answers for more processors must say so. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/thread-clock.h"

#define TOTAL_NS 160000000ull /* 160 ms of CPU in all */

static uint64_t share_ns;

static void *worker(void *arg)
{
	volatile uint64_t x = (uint64_t)(uintptr_t)arg;
	uint64_t end = thread_cpu_ns() + share_ns;
	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 2 && !strcmp(argv[1], "fixed") ? atol(argv[2])
						       : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1 || n > 64)
		return 2;
	pthread_t t[64];
	share_ns = TOTAL_NS / (uint64_t)n;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i))
			return 1;
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%ld workers\n", n);
	return 0;
}
