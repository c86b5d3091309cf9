/* SPDX-License-Identifier: MIT */
/* ecp-record.meta: the key=value description of a recording
 * (recorder/EVENTS.md). */
#ifndef ECP_RECORDER_META_H
#define ECP_RECORDER_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/record-meta.h"

#define ECP_TRACE_FORMAT 1

struct ecp_record_meta {
	char *const *argv;
	int cpu;
	size_t n_cpus;        /* CPUs the program ran on (1: pinned to `cpu`) */
	const char *cpu_list; /* them, as a list, when more than one */
	uint32_t as_cpus;
	const char *clock;             /* "perf-switch" or "thread-cputime" */
	uint64_t event_cost_ns;        /* rounded (readers before event_cost_ps) */
	uint64_t event_cost_ps;        /* the recorder's cost per event */
	const char *event_cost_source; /* "run" or "calibration" */
	/* the cost of an event other than a function record (calibrated):
	 * with function records in batches (issue 35) a record costs a few
	 * times less than an event of its own (0: event_cost_ps) */
	uint64_t other_event_cost_ps;
	const char *other_event_cost_source; /* "run" or NULL: calibration */
	uint64_t other_event_calibrated_ps;  /* the calibration's figure */
	uint64_t other_events_timed;         /* how many the wrappers timed */
	uint64_t other_event_untimed_ps;     /* a wrapper's cost outside its windows */
	uint64_t calls_too_deep; /* calls deeper than the agent records (not recorded) */
	bool cpu_count_read;     /* the program asked how many CPUs it has */
	uint64_t time_slice_ns;  /* the program's time slice (0: the kernel's own) */
	uint64_t sample_cost_ns; /* the kernel's cost per perf sample (0: none) */
	uint64_t switch_cost_ps; /* a switch-in's CPU time outside its record */
	/* a new thread's copy of the perf events, paid by its creator */
	uint64_t thread_create_cost_ps;
	uint64_t call_cost_ns;    /* the agent's cost per folded call (no event) */
	uint64_t call_untimed_ps; /* a call's hook cost outside their windows */
	int exit_code;            /* when !signaled */
	int signal;               /* >0 when the program was killed by it */
	uint64_t wall_ns;
	uint64_t cpu_ns; /* the program's CPU time, user + system, all threads */
	/* the hypervisor's steal on the program's CPUs meanwhile, to a tick
	 * (steal.h); not written when unknown */
	bool steal_known;
	uint64_t steal_ns, steal_tick_ns;
	/* the program's CPUs' time that neither idle, the program nor the
	 * steal took (other processes, interrupts), and what it may be off by
	 * (cpu-idle.h); not written when unknown */
	bool other_cpu_known;
	uint64_t other_cpu_ns, other_cpu_resolution_ns;
	bool functions;
	const char *functions_mode; /* instrument, sample, both */
	unsigned sample_hz;         /* 0: no samples */
	unsigned sample_hz_asked;   /* before the kernel's ceiling (perf-throttle.h) */
	unsigned sample_rate_max;   /* that ceiling at the end (0: unknown) */
	uint64_t samples, samples_lost;
	uint64_t samples_throttled;
	uint32_t depth;
	char *const *include; /* NULL-terminated, may be NULL */
	char *const *exclude;
	uint64_t min_duration_ns;
	uint64_t sched_lost;   /* perf switch records the kernel dropped */
	uint64_t discarded;    /* discarded events, as the session daemon counts them */
	uint64_t lost_packets; /* packets lost, as the session daemon counts them */
};

int ecp_record_meta_write(const char *dir, const struct ecp_record_meta *m,
			  struct ecp_error *err);

#endif
