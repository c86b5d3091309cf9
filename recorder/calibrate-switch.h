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

#include <stddef.h>
#include <stdint.h>

/* A cost above this is a measurement gone wrong (a burst preempted by
 * another process the median did not hide). */
#define ECP_SWITCH_COST_MAX_PS 20000000u /* 20 us */

/* Two threads of the caller (give it the recording's CPUs first: the
 * n_cpus `cpus`) hand a turn to each other through a mutex and condition
 * variable, with a context-switch event on them on each of those CPUs:
 * each thread's CPU clock against the time its records say it was on a
 * CPU, per switch-in, the median of a few bursts.  On several CPUs a
 * woken thread often lands on an idle one, which costs more (4.5 us a
 * switch-in measured from a program recorded on two here), and that is
 * what the recording's threads pay too.  Returns 0, or -1 when perf
 * refuses or the figure is implausible (*cost_ps is then 0). */
int ecp_calibrate_switches(const int *cpus, size_t n_cpus, uint64_t *cost_ps,
			   unsigned *bursts);

#endif
