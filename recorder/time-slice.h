/* SPDX-License-Identifier: MIT */
/* The recorded program's time slice on its one CPU.  Threads that would run
 * side by side on P CPUs take turns on the one CPU; at Linux's default
 * slice (a few ms) each turn refills caches the other threads evicted, and
 * a program with megabytes of working set per thread (xz, pixz) then uses
 * 10-20% more CPU time recorded than on P CPUs -- work the model would take
 * for the program's own.  A longer slice (Linux 6.12's per-task slice for
 * fair tasks, sched_attr.sched_runtime) makes those turns rare; woken
 * threads still preempt at once, so waits are not lengthened. */
#ifndef ECP_RECORDER_TIME_SLICE_H
#define ECP_RECORDER_TIME_SLICE_H

#include <stdint.h>

/* Default `ecp record --time-slice`: the kernel's own.  A long slice also
 * changes which waits block: a thread that spins or yields before it
 * sleeps (C++20's atomic wait, std::latch) finds the work it waits for done
 * in one turn and never sleeps, and libomp's spinning taskwait spins a
 * whole turn -- so it is asked for, not the default. */
#define ECP_TIME_SLICE_DEFAULT_NS 0u
/* The kernel's bounds for a custom slice */
#define ECP_TIME_SLICE_MIN_NS 100000u
#define ECP_TIME_SLICE_MAX_NS 100000000u

/* Asks the kernel for a time slice of `ns` for the calling thread (and so
 * for the threads and processes it makes), keeping its policy, nice value
 * and flags; only for the fair policies (SCHED_OTHER, SCHED_BATCH).
 * Returns the slice the kernel then reports for the thread, or 0 where it
 * keeps none (a kernel before 6.12 takes and ignores the request; another
 * policy; a refusal).  Raw system calls only: safe between fork and exec. */
uint64_t ecp_time_slice_set(uint64_t ns);

#endif
