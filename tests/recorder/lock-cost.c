/* SPDX-License-Identifier: MIT */
/* Lock events whose cost in the run is not the calibration's: one thread
 * takes and releases a mutex a few million times, and between two takes
 * it walks a buffer larger than the CPU's caches (a program like sqlite3's
 * shell, whose own work evicts the recorder's buffers and code between its
 * mutexes).  Each lock event then costs the recorder cache misses that the
 * driver's calibration, timed in a loop of its own, never sees.  Prints
 * the thread's own CPU clock, for comparison with an unrecorded run.
 * Arguments: rounds (default 1,000,000) and the bytes walked between two
 * takes (default 4096, a 64-byte line each; the walk covers 8 MiB). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/support/thread-clock.h"

#define AREA (8u << 20)

int main(int argc, char **argv)
{
	uint64_t t0 = thread_cpu_ns();
	long rounds = argc > 1 && atol(argv[1]) > 0 ? atol(argv[1]) : 1000000;
	size_t walk = argc > 2 && atol(argv[2]) > 0 ? (size_t)atol(argv[2]) : 4096;
	volatile uint8_t *area = malloc(AREA);
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	uint64_t sum = 0;
	size_t at = 0;
	if (!area)
		return 1;
	for (size_t i = 0; i < AREA; i += 64)
		area[i] = (uint8_t)i;
	for (long r = 0; r < rounds; r++) {
		pthread_mutex_lock(&m);
		for (size_t i = 0; i < walk; i += 64) {
			sum += area[at];
			area[at] = (uint8_t)sum;
			at = (at + 64) % AREA;
		}
		pthread_mutex_unlock(&m);
	}
	printf("main cpu_ns=%llu result=%llu\n",
	       (unsigned long long)(thread_cpu_ns() - t0), (unsigned long long)(sum & 1));
	return 0;
}
