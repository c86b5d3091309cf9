/* SPDX-License-Identifier: MIT */
/* A clock's time now as one count of ns (CLOCK_MONOTONIC for wall
 * intervals, CLOCK_THREAD_CPUTIME_ID for the caller's own CPU time): the
 * recorder times its calibrations, the program's run and the CPUs' idle
 * window with it. */
#ifndef ECP_COMMON_CLOCK_NS_H
#define ECP_COMMON_CLOCK_NS_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ecp_clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
