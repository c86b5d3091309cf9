/* SPDX-License-Identifier: MIT */
/* /proc/stat's per-CPU time columns, summed over a set of CPUs: the steal
 * (steal.h) and the idle time where cpuidle cannot give it (cpu-idle.h). */
#ifndef ECP_RECORDER_PROC_STAT_H
#define ECP_RECORDER_PROC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The columns of a "cpuN user nice system idle iowait irq softirq steal"
 * line, in its order. */
enum ecp_proc_stat_column {
	ECP_PROC_STAT_IDLE = 3,
	ECP_PROC_STAT_IOWAIT = 4,
	ECP_PROC_STAT_STEAL = 7,
};

/* The columns in `columns` (a mask of 1u << ecp_proc_stat_column) of each
 * CPU of cpus[0..n), in clock ticks, summed into *ticks.  Returns whether
 * every CPU had its line with those fields. */
bool ecp_proc_stat_sum(const int *cpus, size_t n, unsigned columns, uint64_t *ticks);

#endif
