/* SPDX-License-Identifier: MIT */
/* Sampling without recompiling (issue 18): a cpu-clock sampling event on the
 * recording CPU, inherited by every thread of the program, whose samples
 * carry the user call chain (frame pointers), the user registers and a copy
 * of the top of the user stack (unwound offline with libdw, see
 * simulator/symbols/unwind.h), plus the program's file mappings.  The driver writes
 * them as ecp_sched:sample and ecp_sched:mmap events (recorder/EVENTS.md)
 * and remembers which objects the samples touched, to copy them into the
 * trace. */
#ifndef ECP_RECORDER_PERF_SAMPLE_H
#define ECP_RECORDER_PERF_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "common/error.h"
#include "recorder/perf-ring.h"
#include "recorder/perf-switch.h"
#include "recorder/sched-emit.h"

/* The vDSO's mapping name, and its copy's name in the trace's objects/. */
#define ECP_VDSO_NAME "[vdso]"

/* Default sampling rate: one sample per 333 us of a thread's CPU time.  A
 * sample costs the program 8-10 us of CPU time on this project's VMs (the
 * timer interrupt, measured by bench/recorder: (e)), so 3 kHz keeps the
 * overhead under 3%; perf's 4 kHz would cost 3-4% there. */
#define ECP_SAMPLE_DEFAULT_HZ 3000u
#define ECP_SAMPLE_MAX_HZ     ECP_RECORD_MAX_SAMPLE_HZ
/* Bytes of user stack copied with each sample (perf's --call-graph dwarf
 * default): enough for the frames near the leaf that attribution needs. */
#define ECP_SAMPLE_STACK_BYTES 8192u

/* In the child, after pinning and before exec (async-signal-safe): opens the
 * sampling event on `cpu` at `hz` samples per second of CPU time, enabled by
 * the exec.  Returns the fd or -errno. */
int ecp_perf_sample_open(int cpu, unsigned hz);
/* The attributes ecp_perf_sample_open uses (the sampler's calibration opens
 * the same event on one thread of its own). */
void ecp_perf_sample_attr(struct perf_event_attr *attr, unsigned hz);

struct ecp_sample_object {
	uint64_t start, end; /* an executable mapping */
	char *path;
	bool hit; /* a sample's pc or stack word points into it */
};

struct ecp_perf_sample {
	/* one per recorded CPU, drained merged in time order */
	struct ecp_perf_ring rings[ECP_PERF_MAX_CPUS];
	size_t n_rings;
	pid_t pid;
	/* the program's descendant processes (perf-switch.c): their samples
	 * are written without a stack, so that the reader takes their cost
	 * out of their threads (another address space: nothing to attribute) */
	const struct ecp_perf_switch *family;
	const struct ecp_sched_emitter *emit;
	uint64_t samples;
	uint64_t lost;
	uint64_t throttled; /* the kernel's stops of the sampler (perf-throttle.h) */
	struct ecp_sample_object *objs;
	size_t n_objs, cap_objs;
};

/* Maps the rings of the n `fds` (one per CPU; all owned, closed on failure). */
int ecp_perf_sample_init(struct ecp_perf_sample *s, const int *fds, size_t n, pid_t pid,
			 const struct ecp_sched_emitter *emit, struct ecp_error *err);
/* Whether a ring is mapped (or a descriptor still open). */
bool ecp_perf_sample_open_rings(const struct ecp_perf_sample *s);
void ecp_perf_sample_drain(struct ecp_perf_sample *s);
/* About max_bytes of it; true when samples are left (ecp_perf_ring_drain_some). */
bool ecp_perf_sample_drain_some(struct ecp_perf_sample *s, size_t max_bytes);
/* Drains what is left and unmaps; the object list stays until _free. */
void ecp_perf_sample_finish(struct ecp_perf_sample *s);
void ecp_perf_sample_free(struct ecp_perf_sample *s);

#endif
