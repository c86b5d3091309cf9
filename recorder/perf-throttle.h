/* SPDX-License-Identifier: MIT */
/* The kernel's ceiling on sampling.  Linux stops a sampling event for the
 * rest of a tick once it has taken kernel.perf_event_max_sample_rate / HZ
 * samples in it (PERF_RECORD_THROTTLE, then PERF_RECORD_UNTHROTTLE), and it
 * lowers that sysctl for good whenever its sampling interrupts take too long
 * on average ("perf: interrupt took too long ... lowering
 * kernel.perf_event_max_sample_rate" in dmesg): one host hiccup inside an
 * interrupt on a busy VM is enough.  A recording made then has fewer samples
 * than its rate asks for, which nothing else would show: the sampler's cost
 * is taken out per sample taken (right), but anyone who reckons with the
 * rate is off, and the split among functions is coarser.  So the recorder
 * samples no faster than the ceiling (as perf record lowers its frequency)
 * and counts the throttles. */
#ifndef ECP_RECORDER_PERF_THROTTLE_H
#define ECP_RECORDER_PERF_THROTTLE_H

/* The stops are counted where the sample ring is read (perf-sample.c:
 * ecp_perf_sample.throttled).  How long each lasted is not kept: an
 * inherited event stays stopped until its thread's next tick on a CPU, so
 * with threads time-slicing the stops' wall times add up to more than the
 * run (843 ms in a 520 ms one).  What was missed is the rate times the CPU
 * time, less the samples. */

/* kernel.perf_event_max_sample_rate, samples per second; 0 if it cannot be
 * read (no procfs, an older kernel). */
unsigned ecp_perf_max_sample_rate(void);

#endif
