/* SPDX-License-Identifier: MIT */
/* The CPU time a thread that creates threads pays for the recorder's perf
 * events: each new thread gets its own copy of every inherited event
 * (the context switches on each recording CPU, the samples) and a fork
 * record is written, in the creating thread's pthread_create.  No wrapper
 * window sees it (it is inside the call the wrapper leaves out), and it
 * is 1-4 us a thread on this project's VMs: 20,000 threads made 4 at a
 * time left main 50-100 ms above its own clock.  The reader takes it out
 * of the creating thread at each thread_create. */
#ifndef ECP_RECORDER_CALIBRATE_CLONE_H
#define ECP_RECORDER_CALIBRATE_CLONE_H

#include <stddef.h>
#include <stdint.h>

/* A cost above this is a measurement gone wrong. */
#define ECP_CLONE_COST_MAX_PS 50000000u /* 50 us */

/* Bursts of pthread_create (each thread joined at once) by the calling
 * thread, in turn without and with the recording's events on it: the
 * switch event on each of the n_cpus `cpus`, mapped and on, and with a
 * `sample_hz` the sampling event too (off: what it costs a new thread is
 * its copy, not its samples).  The calling thread's CPU clock around each
 * pthread_create; the median of the bursts' differences.  Returns 0, or
 * -1 when perf refuses or the figure is not believable (*cost_ps is then
 * 0). */
int ecp_calibrate_clones(const int *cpus, size_t n_cpus, unsigned sample_hz,
			 uint64_t *cost_ps, unsigned *bursts);

#endif
