/* SPDX-License-Identifier: MIT */
/* Starting the recorded program: pinned to one CPU (or the set of
 * `--cpus`), perf opened in it before exec on each, the agent preloaded. */
#ifndef ECP_RECORDER_LAUNCH_H
#define ECP_RECORDER_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "recorder/perf-switch.h"

/* An environment entry the child fills in with its own pid before exec
 * (ECP_PID, zero-padded): the agent records only that process, so a child
 * the program forks and execs is not recorded. */
#define ECP_LAUNCH_PID_PLACEHOLDER "ECP_PID=0000000000"

struct ecp_launch {
	pid_t pid;
	int sock; /* to the child until it has exec'd */
	/* the child's perf events, one per CPU, or in [0] -errno when refused
	 * (-ENOSYS: not asked for), then none */
	int perf_fd[ECP_PERF_MAX_CPUS];
	int sample_fd[ECP_PERF_MAX_CPUS];
	size_t n_perf, n_sample; /* descriptors held in each */
	uint64_t slice_ns;       /* the time slice the child got (0: the kernel's) */
};

/* Forks; the child pins itself to the n `cpus`, opens the perf switch
 * event on each (unless !use_perf) and, when sample_hz is not 0, the
 * sampling event on each, asks for a time slice of slice_ns unless it is 0
 * (time-slice.h), and passes them back, then waits for
 * ecp_launch_exec.  All of a kind or none: a CPU perf refuses turns the
 * switch records off (the fallback clock) or the samples.
 * The child execs `argv` with `env_perf` when perf worked, else with
 * `env_cputime`. */
int ecp_launch_fork(char *const argv[], char *const env_perf[], char *const env_cputime[],
		    const int *cpus, size_t n_cpus, bool use_perf, unsigned sample_hz,
		    uint64_t slice_ns, struct ecp_launch *l, struct ecp_error *err);
/* Closes the descriptors still held. */
void ecp_launch_close_fds(struct ecp_launch *l);
/* Lets the child exec and reports whether the exec worked (on failure the
 * child has exited with 127). */
int ecp_launch_exec(struct ecp_launch *l, struct ecp_error *err);

#endif
