/* SPDX-License-Identifier: MIT */
/* How long the program's CPUs were idle while it ran, so that the driver
 * can say how much of their time went to other processes.  A thread woken
 * while another process holds its one CPU waits for it, and where its wait
 * is a delay (a sleep, I/O, a timeout) the switch records make that wait
 * longer by the other process's turn: the recording cannot see this, only
 * that the CPU was busy without the program.  Busy is the window's time
 * less the idle time; the other processes' part is busy less the program's
 * own CPU time and the hypervisor's steal. */
#ifndef ECP_RECORDER_CPU_IDLE_H
#define ECP_RECORDER_CPU_IDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ecp_cpu_idle {
	bool known;             /* both readings had every CPU's idle time */
	bool cpuidle;           /* from cpuidle's states (us), else /proc/stat */
	uint64_t start_ns;      /* the CPUs' idle time summed at the start */
	uint64_t start_mono_ns; /* when it was read (CLOCK_MONOTONIC) */
	uint64_t ns;            /* idle while the program ran (after _end) */
	uint64_t window_ns;     /* the time between the two readings */
	uint64_t resolution_ns; /* what either reading may be off by */
};

/* The idle time of the CPUs cpus[0..n) so far.  Moves the calling thread
 * onto each CPU in turn to read it (cpuidle counts an idle period only
 * once it ends) and back to where it was allowed before. */
void ecp_cpu_idle_start(struct ecp_cpu_idle *s, const int *cpus, size_t n);
/* The idle time since ecp_cpu_idle_start; s->known false when it cannot
 * be said. */
void ecp_cpu_idle_end(struct ecp_cpu_idle *s, const int *cpus, size_t n);
/* Of the CPUs' time in the window, what neither idle, the program
 * (program_cpu_ns, from wait4) nor the hypervisor (steal_ns) took: other
 * processes and interrupts.  0 when not known or none. */
uint64_t ecp_cpu_idle_others(const struct ecp_cpu_idle *s, size_t n_cpus,
			     uint64_t program_cpu_ns, uint64_t steal_ns);

#endif
