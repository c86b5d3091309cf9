/* SPDX-License-Identifier: MIT */
/* The recorder's own costs, which the reader takes out of the thread that
 * paid them: one event written through LTTng-UST, and one perf sample (the
 * timer interrupt and the copy of registers and stack, charged by the
 * kernel to the sampled thread).
 *
 * Both are measured in the calibrating thread's own CPU clock, never in
 * wall time: on a shared CPU wall time counts whatever else ran meanwhile
 * (one loaded recording once calibrated 40,409 ns per event against 80 ns
 * quiet, and erased the program's work).  Each figure is the median of
 * many short bursts, and a figure outside what a cost can plausibly be is
 * refused (the caller records none, and says so) rather than subtracted. */
#ifndef ECP_RECORDER_CALIBRATE_H
#define ECP_RECORDER_CALIBRATE_H

#include <stdint.h>

#include "recorder/sched-emit.h"

/* Bounds of a believable cost: an event of LTTng-UST costs 50-200 ns on
 * these machines, a sample 5-40 us; ten times the top of each is a
 * measurement gone wrong (a preempted burst the median did not hide). */
#define ECP_EVENT_COST_MAX_PS  2000000u /* 2 us */
#define ECP_SAMPLE_COST_MAX_NS 400000u  /* 400 us */

/* The cost of one event written with `em` into the running calibration
 * session, in picoseconds of the calling thread's CPU time.  Returns 0, or
 * -1 when the figure is implausible (*cost_ps is then 0). */
int ecp_calibrate_events(const struct ecp_sched_emitter *em, uint64_t *cost_ps,
			 unsigned *bursts);

/* The CPU time the kernel charges a thread per sample of the sampler that
 * `ecp record` attaches at `hz`, measured on the calling thread (pin it to
 * the recording CPU first) by spinning bursts with the sampler off and on.
 * Returns 0, or -1 when perf refuses or the figure is implausible
 * (*cost_ns is then 0). */
int ecp_calibrate_samples(unsigned hz, uint64_t *cost_ns, unsigned *bursts);

/* The median of n values (reordered in place); 0 for n = 0. */
uint64_t ecp_median_u64(uint64_t *v, unsigned n);

#endif
