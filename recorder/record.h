/* SPDX-License-Identifier: MIT */
/* `ecp record`: run a program on one CPU under a private LTTng session with
 * the agent preloaded and write the trace directory (recorder/EVENTS.md).
 * cli/cmd-record.c parses the options into this struct and calls
 * ecp_record_run; everything else lives here. */
#ifndef ECP_RECORDER_RECORD_H
#define ECP_RECORDER_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Default --min-duration: calls shorter than this are folded (counted, not
 * emitted).  An emitted call costs ~350 ns (two events), so 10 us bounds the
 * agent's overhead near 3.5% of any emitted call; it keeps the example
 * programs (recursive quicksort included) under 5%. */
#define ECP_RECORD_DEFAULT_MIN_DURATION_NS 10000u

/* Where function attribution comes from (--functions). */
enum ecp_functions_mode {
	ECP_FUNCTIONS_AUTO = 0, /* instrument if the program has the hooks, else sample */
	ECP_FUNCTIONS_INSTRUMENT, /* -finstrument-functions entry/exit only */
	ECP_FUNCTIONS_SAMPLE,     /* perf samples only */
	ECP_FUNCTIONS_BOTH,       /* entry/exit, and samples below and between them */
};

/* The options' limits, which cli/cmd-record.c checks: the most CPUs
 * --cpus may name (a perf ring each for switches and samples) and the
 * highest --sample-freq. */
#define ECP_RECORD_MAX_CPUS      64
#define ECP_RECORD_MAX_SAMPLE_HZ 50000u

struct ecp_record_options {
	const char *output; /* trace directory; NULL = ./ecp.data */
	bool force;         /* replace an existing trace */
	int cpu;            /* -1 = first CPU of the caller's affinity mask */
	/* --cpus: the program runs unpinned on these n CPUs (n > 1), context
	 * switches and samples from each; NULL: on `cpu` alone */
	const int *cpus;
	size_t n_cpus;
	uint32_t as_cpus; /* CPUs the program sees; 0 = the caller's CPU count */
	uint32_t depth;   /* 0 = unlimited */
	char **include;   /* NULL-terminated globs, or NULL */
	char **exclude;
	uint64_t min_duration_ns;
	bool functions; /* false with --no-functions */
	enum ecp_functions_mode functions_mode;
	unsigned sample_hz; /* 0 = ECP_SAMPLE_DEFAULT_HZ */
	/* --time-slice on one CPU (time-slice.h); 0 = the kernel's own */
	uint64_t time_slice_ns;
	bool quiet;  /* no summary */
	char **argv; /* the program and its arguments, NULL-terminated */
};

struct ecp_record_summary {
	/* threads, events (both traces) and discarded events: the caller's,
	 * from the model it builds of the trace (cli/cmd-record.c) */
	uint64_t threads;
	uint64_t events;
	uint64_t bytes;
	uint64_t discarded;
	uint64_t wall_ns;
	uint64_t cpu_ns; /* CPU time of the program, all threads (rusage) */
	uint64_t switches;
	uint64_t event_cost_ns;              /* rounded, for the summary */
	uint64_t event_cost_ps;              /* what the reader subtracts per event */
	const char *event_cost_source;       /* "run" (the hooks timed themselves) or
						"calibration" */
	uint64_t other_event_cost_ps;        /* per event other than a function record
						(0: event_cost_ps) */
	const char *other_event_cost_source; /* "run" (the wrappers timed
						themselves), else calibration */
	uint64_t other_event_calibrated_ps;  /* the calibration's figure */
	uint64_t other_events_timed;         /* events in the wrappers' windows */
	uint64_t other_event_untimed_ps;     /* a wrapper's cost outside them */
	uint64_t sample_cost_ns;             /* ... and per sample */
	uint64_t switch_cost_ps; /* ... and per switch-in, outside its record */
	unsigned switch_bursts;
	/* ... and per thread created, the perf events' copy into it
	 * (calibrate-clone.h) */
	uint64_t thread_create_cost_ps;
	unsigned thread_create_bursts;
	unsigned event_bursts, sample_bursts; /* the calibration's medians */
	const char *calibration_problem;      /* a cost not measured, or NULL */
	uint64_t calls_too_deep; /* calls deeper than the agent's shadow stack */
	int cpu;                 /* the recording CPU (the first of --cpus) */
	size_t n_cpus;           /* CPUs the program ran on: 1, or --cpus' count */
	char cpu_list[256];      /* them, as a list ("0-1") */
	uint32_t as_cpus;        /* CPUs the program was shown */
	const char *clock;
	enum ecp_functions_mode functions_mode; /* as decided (never AUTO) */
	uint64_t samples;                       /* samples written */
	uint64_t samples_lost;
	/* the rate asked for (--sample-freq or the default), the rate used (no
	 * more than kernel.perf_event_max_sample_rate at the start), that
	 * ceiling at the end, and the kernel's stops of the sampler
	 * (perf-throttle.h) */
	unsigned sample_hz_asked, sample_hz, sample_rate_max;
	/* the program's time slice as the kernel reported it (0: the kernel's
	 * own: not asked for, on --cpus, or not granted) */
	uint64_t time_slice_ns;
	/* the program's CPUs' time other processes (and interrupts) took
	 * while it ran (cpu-idle.h; 0: none, or not known) */
	uint64_t other_cpu_ns;
	uint64_t samples_throttled;
	const char *sampling_problem; /* why sampling was asked for but is off, or NULL */
	/* calls the program made that ecp does not model (or only in part) */
	char unmodelled[16][64];
	int n_unmodelled;
	bool cpu_count_read; /* the program asked how many CPUs it has */
};

/* Runs the recording.  On ECP_OK, *exit_code is what `ecp record` exits
 * with: the program's exit status, or 128+N when signal N killed it (as a
 * shell reports it).  Errors name what failed; the program may then not
 * have run at all. */
int ecp_record_run(const struct ecp_record_options *o, int *exit_code,
		   struct ecp_record_summary *summary, struct ecp_error *err);

#endif
