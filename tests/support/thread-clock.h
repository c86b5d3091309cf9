/* SPDX-License-Identifier: MIT */
/* The calling thread's own CPU clock, for the test programs that print
 * their ground truth (each thread's CPU time) beside ecp's answer. */
#ifndef ECP_TESTS_SUPPORT_THREAD_CLOCK_H
#define ECP_TESTS_SUPPORT_THREAD_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
