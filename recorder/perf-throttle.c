/* SPDX-License-Identifier: MIT */
#include "recorder/perf-throttle.h"

#include <stdio.h>

void ecp_perf_throttle_record(struct ecp_perf_throttle *t,
			      const struct perf_event_header *h)
{
	/* the kernel's layout: time, id, stream_id (then the sample_id) */
	if (h->type == PERF_RECORD_THROTTLE &&
	    h->size >= sizeof(*h) + 3 * sizeof(uint64_t))
		t->episodes++;
}

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
