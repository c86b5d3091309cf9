/* Starting the recorded program: pinned to one CPU, perf opened in it
 * before exec, the agent preloaded. */
#ifndef ECP_RECORDER_LAUNCH_H
#define ECP_RECORDER_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

/* An environment entry the child fills in with its own pid before exec
 * (ECP_PID, zero-padded): the agent records only that process, so a child
 * the program forks and execs is not recorded. */
#define ECP_LAUNCH_PID_PLACEHOLDER "ECP_PID=0000000000"

struct ecp_launch {
	pid_t pid;
	int sock;      /* to the child until it has exec'd */
	int perf_fd;   /* the child's perf event, or -errno when refused */
	int sample_fd; /* its sampling event, or -errno (-ENOSYS: not asked for) */
};

/* Forks; the child pins itself to `cpu`, opens the perf switch event
 * (unless !use_perf) and, when sample_hz is not 0, the sampling event, and
 * passes them back, then waits for ecp_launch_exec.
 * The child execs `argv` with `env_perf` when perf worked, else with
 * `env_cputime`. */
int ecp_launch_fork(char *const argv[], char *const env_perf[], char *const env_cputime[],
		    int cpu, bool use_perf, unsigned sample_hz, struct ecp_launch *l,
		    struct ecp_error *err);
/* Lets the child exec and reports whether the exec worked (on failure the
 * child has exited with 127). */
int ecp_launch_exec(struct ecp_launch *l, struct ecp_error *err);

#endif
