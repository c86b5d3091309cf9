#include "ecp/parallel.h"

#include <pthread.h>
#include <stdlib.h>

static uint32_t min_segments = ECP_PARALLEL_MIN_SEGMENTS_DEFAULT;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_override(void)
{
	const char *v = getenv("ECP_PARALLEL_MIN_SEGMENTS");
	char *end;
	if (!v || !*v)
		return;
	unsigned long n = strtoul(v, &end, 10);
	/* a malformed value keeps the default: a tuning knob, not an input */
	if (!*end && n >= 1 && n <= UINT32_MAX)
		min_segments = (uint32_t)n;
}

uint32_t ecp_parallel_min_segments(void)
{
	pthread_once(&once, read_override);
	return min_segments;
}
