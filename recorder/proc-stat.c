/* SPDX-License-Identifier: MIT */
#include "recorder/proc-stat.h"

#include <stdio.h>

bool ecp_proc_stat_sum(const int *cpus, size_t n, unsigned columns, uint64_t *ticks)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];
	size_t found = 0;
	*ticks = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f) && found < n) {
		int cpu;
		unsigned long long v[8];
		/* steal since 2.6.11: every kernel ecp runs on has all eight */
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9)
			continue;
		for (size_t i = 0; i < n; i++)
			if (cpus[i] == cpu) {
				for (unsigned c = 0; c < 8; c++)
					if (columns & (1u << c))
						*ticks += v[c];
				found++;
				break;
			}
	}
	fclose(f);
	return found == n;
}
