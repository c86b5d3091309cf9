/* SPDX-License-Identifier: MIT */
/* The CPUs' context switches, from perf_event_open: every time one of the
 * program's threads goes on or off a recorded CPU (one, or each of
 * `ecp record --cpus`), with CLOCK_MONOTONIC times (LTTng's clock), at no
 * cost to the program. */
#ifndef ECP_RECORDER_PERF_SWITCH_H
#define ECP_RECORDER_PERF_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "common/error.h"
#include "common/hmap.h"
#include "recorder/perf-ring.h"
#include "recorder/record.h"
#include "recorder/sched-emit.h"

/* In the child, after pinning and before exec: a dummy software event with
 * context-switch, comm and task records for this process and its future
 * threads on `cpu`, enabled by the exec.  Returns the fd (close-on-exec) or
 * -errno when perf is refused. */
int ecp_perf_switch_open(int cpu);
/* The attributes ecp_perf_switch_open uses (the switch calibration opens
 * the same event, enabled at once, on threads of its own). */
void ecp_perf_switch_attr(struct perf_event_attr *attr);

/* The most CPUs one recording follows (`--cpus`): a ring and two
 * descriptors each, passed from the child in one message. */
#define ECP_PERF_MAX_CPUS ECP_RECORD_MAX_CPUS

struct ecp_perf_switch {
	struct ecp_perf_ring rings[ECP_PERF_MAX_CPUS]; /* one per recorded CPU */
	size_t n_rings;
	pid_t pid; /* this process's records are kept, and its descendants' */
	/* the descendant processes seen made (perf fork records), their
	 * records kept too (issue 32): a shell wrapper's program, fork and
	 * waitpid workers, system() and popen() children */
	struct ecp_hmap pids; /* pid -> 1, looked up for every record */
	const struct ecp_sched_emitter *emit;
	uint64_t switches;
	uint64_t lost;
	uint64_t threads; /* threads seen created (perf FORK records) */
};

/* Maps the ring buffers of the n `fds` (one per CPU, taking ownership of
 * them all, closed on failure too). */
int ecp_perf_switch_init(struct ecp_perf_switch *ps, const int *fds, size_t n, pid_t pid,
			 const struct ecp_sched_emitter *emit, struct ecp_error *err);
/* Whether a ring is mapped (or a descriptor still open). */
bool ecp_perf_switch_open_rings(const struct ecp_perf_switch *ps);
/* Turns every record in the ring buffers into an ecp_sched event, the CPUs'
 * records merged in time order. */
void ecp_perf_switch_drain(struct ecp_perf_switch *ps);
void ecp_perf_switch_finish(struct ecp_perf_switch *ps);
/* Whether pid is the program or a descendant process seen made so far. */
bool ecp_perf_switch_follows(const struct ecp_perf_switch *ps, uint32_t pid);
/* Frees the descendants' list (after the samples' last drain). */
void ecp_perf_switch_free(struct ecp_perf_switch *ps);

#endif
