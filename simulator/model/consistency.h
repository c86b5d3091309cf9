/* SPDX-License-Identifier: MIT */
/* The consistency check of a model against what the recording measured
 * apart from it (issue 31).
 *
 * Every answer rests on the model's work (the sum of its segments' lengths)
 * being the program's CPU time.  The recording measures that time twice more:
 * the kernel's CPU time of the whole program (rusage, all threads, the
 * recorder's cost included: ecp-record.meta's program_cpu_ns) and each
 * thread's own CPU clock at its first and last event.  So
 *
 *     expected work = program CPU - the recorder's cost
 *                     - CPU of tids outside the model (seen only by the
 *                       scheduler)
 *                     - CPU the threads used before their first and after
 *                       their last event (no segment can hold it)
 *
 * and per thread: work = own clock - the recorder's cost on it.  A model
 * that misses time (lost switch records, a thread not seen) or counts time
 * twice says so here instead of answering as if all were well. */
#ifndef ECP_SIMULATOR_CONSISTENCY_H
#define ECP_SIMULATOR_CONSISTENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model/model.h"

/* The bound, in percent of the program's CPU time: what the recording's
 * own noise cannot explain.  The recorder's cost is calibrated to a few
 * percent of itself, the steal scaling holds each thread to its own clock,
 * and the time outside every record is accounted above.  On the committed
 * samples (traces/samples) the gaps are 0.1-2.0%; quicksort's 4.4% (2.75
 * ms of 62) is the main thread's first stay on the CPU (exec, loader, the
 * recorder's start), which no switch record bounds in a trace whose
 * thread_start carries no CPU clock.  A thread not seen or switch records
 * lost show as more. */
#define ECP_CONSISTENCY_BOUND_PCT 3.0
/* A thread is held to the bound of its own clock, but never to less than
 * this: the microseconds outside its first and last event are a large
 * share of a thread that ran for a millisecond, and no answer turns on it. */
#define ECP_CONSISTENCY_THREAD_FLOOR_NS 1000000u
/* The same for the program: its start and end (exec, the loader, the
 * teardown of a process killed by a signal) take 0.5-1 ms here that no
 * event brackets, all of the time of a program that crashes at once. */
#define ECP_CONSISTENCY_PROGRAM_FLOOR_NS 2000000u
/* A refusal (fatal) asks for a gap of at least this much: on a loaded
 * machine a program's start and end took 2.06-2.12 ms outside its events
 * (a Ctrl-C 0.2 s into a program, a shell's `read; echo` beside the ASan
 * test pass), and a program that short is warned about, not refused. */
#define ECP_CONSISTENCY_FATAL_FLOOR_NS 4000000u
/* Fatal below this share (percent) of the expected work, or when the
 * expected work is below this share of the model's: with more than half of
 * the program's time missing (or invented), the critical path and every
 * weight describe another program, and no answer is better than one that
 * looks right. */
#define ECP_CONSISTENCY_FATAL_PCT 50.0

enum ecp_consistency_status {
	ECP_CONSISTENCY_UNKNOWN = 0, /* the trace holds no program CPU time */
	ECP_CONSISTENCY_OK,
	ECP_CONSISTENCY_WARNING,
	ECP_CONSISTENCY_FATAL,
};

/* A thread whose work is off its own clock by more than the bound. */
struct ecp_consistency_thread {
	ecp_id thread; /* index in model->threads */
	uint64_t tid;
	const char *name; /* borrowed from the model; may be "" */
	uint64_t work_ns;
	uint64_t own_clock_ns;
	uint64_t overhead_ns;
	int64_t gap_ns; /* work - (own clock - overhead) */
};

struct ecp_consistency {
	enum ecp_consistency_status status;
	bool checked; /* false: program_cpu_ns unknown, nothing compared */
	uint64_t work_ns;
	uint64_t program_cpu_ns;
	uint64_t overhead_ns;
	uint64_t outside_cpu_ns;
	uint32_t outside_threads;
	uint64_t untracked_cpu_ns;
	uint64_t guessed_ns;      /* of outside and untracked, upper bounds (model.h) */
	uint64_t steal_ns;        /* the hypervisor's, at most (model.h) */
	uint64_t unknown_deps_ns; /* of the work, dependencies not seen (model.h) */
	/* The work of the threads with no CPU clock of their own (raw clone
	 * threads, child processes' threads) under switch records, which time it in
	 * wall time with whatever the hypervisor stole meanwhile; steal_over:
	 * the steal, up to that work, is over the bound of the program's CPU
	 * time -- those threads' times (and what rests on them) may be that
	 * much long, and nothing measured says how much. */
	uint64_t unclocked_work_ns;
	uint32_t unclocked_threads;
	bool steal_over;
	uint64_t expected_ns; /* program CPU - overhead - outside - untracked (>= 0) */
	int64_t gap_ns;       /* work - expected, less what guessed_ns and steal_ns
				 explain of a positive gap */
	double gap_pct;       /* gap in percent of the program's CPU time */
	/* threads over the bound, largest |gap| first */
	struct ecp_consistency_thread *threads;
	size_t n_threads;
	/* The delays against the span (ecp_consistency_check_span): the
	 * model's T_inf, work and delays on its critical path, against the
	 * wall time of the run it describes. */
	bool span_checked; /* false: no DAG asked of it, or no wall time recorded */
	bool span_over;    /* the span is over the wall time by more than the bound */
	uint64_t span_ns;
	uint64_t wall_ns;    /* the recorded run's, exec to exit */
	int64_t span_gap_ns; /* span - wall */
};

const char *ecp_consistency_status_name(enum ecp_consistency_status s);

/* The verdict of the work check alone (what ecp_consistency_check sets
 * `status` to before ecp_consistency_check_span may raise it), from the
 * figures in *c: for a reader that says the two apart (the HTML report). */
enum ecp_consistency_status ecp_consistency_work_status(const struct ecp_consistency *c);

/* Fills *out (free with ecp_consistency_free).  Returns 0, or
 * ECP_ERR_NOMEM with err set. */
int ecp_consistency_check(const struct ecp_model *m, struct ecp_consistency *out,
			  struct ecp_error *err);
void ecp_consistency_free(struct ecp_consistency *c);

/* The span against the recorded run's wall time.  That run was one
 * schedule of the model's DAG, so no chain of its work and delays can be
 * longer than the run was (its work is the run's CPU time less the
 * recorder's cost, its delays the run's own sleeps and waits): a T_inf over
 * the wall time means delays or work counted where the run did not spend
 * them -- a wait's delay counted twice, a sleep in the wrong clock -- and
 * every T_P above T_1 / P rests on them.  Over the bound (of the wall
 * time, with the program floor: the loader and the teardown are in the wall
 * time, and so is the recorder's start) an OK verdict becomes a warning;
 * never fatal, since T_1 and the TETs below the span still hold.  Nothing
 * is checked without a recorded wall time. */
void ecp_consistency_check_span(struct ecp_consistency *c, const struct ecp_model *m,
				uint64_t span_ns);
/* One sentence for people about the span check, without a trailing
 * period; "" when it found nothing.  Always NUL-terminates; returns buf. */
char *ecp_consistency_describe_span(const struct ecp_consistency *c, char *buf,
				    size_t len);

/* One sentence for people: the figures compared and where the time went
 * (the threads with the largest gaps, the CPU time outside the model, the
 * recorder's cost), without a trailing period.  Always NUL-terminates;
 * returns buf. */
char *ecp_consistency_describe(const struct ecp_consistency *c, char *buf, size_t len);

#endif
