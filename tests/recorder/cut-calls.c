/* SPDX-License-Identifier: MIT */
/* A thread cut by the process's end keeps its recorded calls (issue 35):
 * a worker calls tick() (about 1 ms of CPU each) and never returns; main
 * computes for WORK_MS, prints how many ticks the worker had finished and
 * tick's address, and returns, so that exit() ends the worker in the middle
 * of a call.  Its function records travel in a per-thread batch
 * (recorder/agent/func-batch.h); 2 records a tick would take the worker
 * several hundred ticks to fill one, so without the batch's age bound every
 * tick it made would end with it, unwritten.  test_cut_calls.py counts the
 * recorded ticks.
 *
 * usage: rec-cut-calls [WORK_MS (200)] */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static __attribute__((no_instrument_function)) uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile double sink;

static __attribute__((noinline, no_instrument_function)) void spin(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	double s = 0;
	do {
		for (int i = 0; i < 2000; i++)
			s += (double)(i & 7) * 1e-9;
	} while (cpu_ns() < end);
	sink += s;
}

/* the only recorded function besides main and worker */
static __attribute__((noinline)) void tick(void)
{
	spin(1000000);
}

static atomic_ulong ticks;

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		tick();
		atomic_fetch_add(&ticks, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long work_ms = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
	pthread_t th;
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	spin(work_ms * 1000000u);
	printf("ticks=%lu\ntick=0x%llx\n", (unsigned long)atomic_load(&ticks),
	       (unsigned long long)(uintptr_t)tick);
	fflush(stdout);
	return 0;
}
