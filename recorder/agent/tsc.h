/* SPDX-License-Identifier: MIT */
/* The time stamp counter, read by the agent (function times) and by the
 * driver (clock anchors).  This machine's TSC is constant, does not stop,
 * and is the kernel's clocksource (so it is synchronized across CPUs); the
 * reader converts raw TSC values to CLOCK_MONOTONIC through the anchors
 * the driver writes (recorder/EVENTS.md, `ecp_sched:clock`). */
#ifndef ECP_RECORDER_TSC_H
#define ECP_RECORDER_TSC_H

#include <stdint.h>

static inline __attribute__((always_inline, no_instrument_function)) uint64_t
ecp_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#endif
