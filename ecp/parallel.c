/* SPDX-License-Identifier: MIT */
#include "ecp/parallel.h"

#include <pthread.h>

#include "common/parse.h"

static uint32_t min_segments = ECP_PARALLEL_MIN_SEGMENTS_DEFAULT;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_override(void)
{
	uint64_t n;
	if (ecp_env_knob_u64("ECP_PARALLEL_MIN_SEGMENTS", 1, UINT32_MAX, &n))
		min_segments = (uint32_t)n;
}

uint32_t ecp_parallel_min_segments(void)
{
	pthread_once(&once, read_override);
	return min_segments;
}
