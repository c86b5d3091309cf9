/* SPDX-License-Identifier: MIT */
/* What the hypervisor took from the program's CPUs while it ran (steal
 * time, /proc/stat).  A thread's switch records time its stays on the CPU
 * in wall time, which includes the steal; its CPU clock and the program's
 * CPU time from wait4 do not.  The reader holds the stays no thread clock
 * scaled (threads with none of their own: raw clone's, a fork's copies)
 * to this figure. */
#ifndef ECP_RECORDER_STEAL_H
#define ECP_RECORDER_STEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ecp_steal {
	bool known;        /* /proc/stat gave every CPU's steal both times */
	uint64_t start_ns; /* the CPUs' steal summed at the start */
	uint64_t ns;       /* taken while the program ran (after ecp_steal_end) */
	uint64_t tick_ns;  /* the resolution of /proc/stat: one clock tick */
};

/* The steal of the CPUs cpus[0..n) so far. */
void ecp_steal_start(struct ecp_steal *s, const int *cpus, size_t n);
/* The steal since ecp_steal_start; s->known false when it cannot be said. */
void ecp_steal_end(struct ecp_steal *s, const int *cpus, size_t n);

#endif
