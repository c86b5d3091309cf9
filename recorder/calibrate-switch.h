/* SPDX-License-Identifier: MIT */
/* The CPU time the kernel charges a thread for being switched in that its
 * context-switch records do not cover (issue 36): the scheduler starts the
 * incoming thread's clock when it picks it, perf writes the switch-in
 * record once the switch is done.  On this project's VMs that is 0.3 us a
 * switch on one CPU -- 7.7% of a program that hands a turn between two
 * threads 40,000 times a second, which the model lost and the consistency
 * check flagged.  The reader adds it before every switch-in it sees. */
#ifndef ECP_RECORDER_CALIBRATE_SWITCH_H
#define ECP_RECORDER_CALIBRATE_SWITCH_H

#include <stdint.h>

/* A cost above this is a measurement gone wrong (a burst preempted by
 * another process the median did not hide). */
#define ECP_SWITCH_COST_MAX_PS 20000000u /* 20 us */

/* Two threads of the caller (pin it to the recording CPU first, as `cpu`)
 * hand a turn to each other through a mutex and condition variable, with
 * a context-switch event on them: each thread's CPU clock against the
 * time its records say it was on the CPU, per switch-in, the median of a
 * few bursts.  Returns 0, or -1 when perf refuses or the figure is
 * implausible (*cost_ps is then 0). */
int ecp_calibrate_switches(int cpu, uint64_t *cost_ps, unsigned *bursts);

#endif
