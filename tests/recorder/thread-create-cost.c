/* SPDX-License-Identifier: MIT */
/* Many short-lived threads: main makes them a few at a time and joins
 * them, each adds a run of numbers.  What the recorder costs the creating
 * thread (its wrappers of pthread_create and pthread_join, LTTng-UST's part
 * of a new thread) must be taken out of main's work in the model: main
 * prints its own CPU clock, and the workers' clocks summed, to compare.
 * Arguments: threads (default 20,000), made at a time (default 4), numbers
 * each adds (default 2,000). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/support/thread-clock.h"

static long numbers = 2000;
static _Atomic uint64_t workers_cpu_ns;
static _Atomic uint64_t total;

static void *worker(void *arg)
{
	volatile uint64_t sum = (uint64_t)(uintptr_t)arg;
	for (long i = 0; i < numbers; i++)
		sum += (uint64_t)i;
	atomic_fetch_add(&total, sum);
	/* its whole clock: the start-up before the routine is the thread's too */
	atomic_fetch_add(&workers_cpu_ns, thread_cpu_ns());
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t t0 = thread_cpu_ns(); /* not the loader's and the recorder's start-up */
	long threads = argc > 1 && atol(argv[1]) > 0 ? atol(argv[1]) : 20000;
	long at_once = argc > 2 && atol(argv[2]) > 0 ? atol(argv[2]) : 4;
	pthread_t *batch;
	if (argc > 3 && atol(argv[3]) > 0)
		numbers = atol(argv[3]);
	batch = calloc((size_t)at_once, sizeof(*batch));
	if (!batch)
		return 1;
	for (long made = 0; made < threads; made += at_once) {
		long n = threads - made < at_once ? threads - made : at_once;
		for (long i = 0; i < n; i++)
			if (pthread_create(&batch[i], NULL, worker, (void *)(uintptr_t)i))
				return 1;
		for (long i = 0; i < n; i++)
			pthread_join(batch[i], NULL);
	}
	printf("main cpu_ns=%llu workers cpu_ns=%llu threads=%ld result=%llu\n",
	       (unsigned long long)(thread_cpu_ns() - t0),
	       (unsigned long long)atomic_load(&workers_cpu_ns), threads,
	       (unsigned long long)(atomic_load(&total) & 1));
	free(batch);
	return 0;
}
