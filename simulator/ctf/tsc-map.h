/* SPDX-License-Identifier: MIT */
/* TSC to CLOCK_MONOTONIC, through the clock anchors of a recording.
 *
 * The agent writes function times as raw TSC values; the driver writes
 * (CLOCK_MONOTONIC, TSC) pairs into the sched trace as the recording goes
 * (ecp_sched:clock, recorder/EVENTS.md).  A time is converted by linear
 * interpolation between the anchors around it, so the conversion follows
 * the clock wherever it was measured and never depends on a ratio
 * calibrated once.  Only anchors later than the last kept one in both
 * clocks are kept: the map is non-decreasing, and so is every thread's
 * sequence of converted function times. */
#ifndef ECP_SIMULATOR_TSC_MAP_H
#define ECP_SIMULATOR_TSC_MAP_H

#include <stddef.h>
#include <stdint.h>

struct ecp_tsc_anchor {
	uint64_t tsc, mono;
};

struct ecp_tsc_map {
	struct ecp_tsc_anchor *a;
	size_t n, cap;
	size_t hint; /* segment of the last conversion (times come in order) */
};

void ecp_tsc_map_init(struct ecp_tsc_map *m);
void ecp_tsc_map_finish(struct ecp_tsc_map *m);
/* Adds an anchor (in the order they were measured); -1 when out of memory. */
int ecp_tsc_map_add(struct ecp_tsc_map *m, uint64_t mono, uint64_t tsc);
/* Two anchors at least: conversion possible. */
static inline int ecp_tsc_map_ready(const struct ecp_tsc_map *m)
{
	return m->n >= 2;
}
/* CLOCK_MONOTONIC ns at TSC `tsc` (beyond the first or last anchor, the
 * nearest segment's rate continues).  Requires ecp_tsc_map_ready. */
uint64_t ecp_tsc_map_time(struct ecp_tsc_map *m, uint64_t tsc);
/* A duration of `ticks`, at the recording's mean rate (first to last
 * anchor).  Requires ecp_tsc_map_ready. */
uint64_t ecp_tsc_map_duration(const struct ecp_tsc_map *m, uint64_t ticks);

#endif
