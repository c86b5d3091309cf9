/* SPDX-License-Identifier: MIT */
#include "recorder/steal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/stat's "cpuN user nice system idle iowait irq softirq steal ..."
 * lines: the steal of every listed CPU, in clock ticks, summed into *sum.
 * Returns whether each CPU had its line with a steal field (kernels since
 * 2.6.11). */
static bool read_steal_ticks(const int *cpus, size_t n, uint64_t *sum)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];
	size_t found = 0;
	*sum = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f) && found < n) {
		int cpu;
		unsigned long long v[8];
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9)
			continue;
		for (size_t i = 0; i < n; i++)
			if (cpus[i] == cpu) {
				*sum += v[7];
				found++;
				break;
			}
	}
	fclose(f);
	return found == n;
}

void ecp_steal_start(struct ecp_steal *s, const int *cpus, size_t n)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks;
	memset(s, 0, sizeof(*s));
	if (hz <= 0 || !read_steal_ticks(cpus, n, &ticks))
		return;
	s->tick_ns = 1000000000u / (uint64_t)hz;
	s->start_ns = ticks * s->tick_ns;
	s->known = true;
}

void ecp_steal_end(struct ecp_steal *s, const int *cpus, size_t n)
{
	uint64_t ticks;
	if (!s->known || !read_steal_ticks(cpus, n, &ticks) ||
	    ticks * s->tick_ns < s->start_ns) {
		s->known = false;
		return;
	}
	s->ns = ticks * s->tick_ns - s->start_ns;
}
