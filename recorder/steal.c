/* SPDX-License-Identifier: MIT */
#include "recorder/steal.h"

#include "recorder/proc-stat.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ecp_steal_start(struct ecp_steal *s, const int *cpus, size_t n)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks;
	memset(s, 0, sizeof(*s));
	if (hz <= 0 || !ecp_proc_stat_sum(cpus, n, 1u << ECP_PROC_STAT_STEAL, &ticks))
		return;
	s->tick_ns = 1000000000u / (uint64_t)hz;
	s->start_ns = ticks * s->tick_ns;
	s->known = true;
}

void ecp_steal_end(struct ecp_steal *s, const int *cpus, size_t n)
{
	uint64_t ticks;
	if (!s->known || !ecp_proc_stat_sum(cpus, n, 1u << ECP_PROC_STAT_STEAL, &ticks) ||
	    ticks * s->tick_ns < s->start_ns) {
		s->known = false;
		return;
	}
	s->ns = ticks * s->tick_ns - s->start_ns;
}
