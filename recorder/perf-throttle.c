/* SPDX-License-Identifier: MIT */
#include "recorder/perf-throttle.h"

#include <stdio.h>

unsigned ecp_perf_max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	unsigned rate = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%u", &rate) != 1)
		rate = 0;
	fclose(f);
	return rate;
}
