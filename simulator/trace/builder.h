/* SPDX-License-Identifier: MIT */
/* The model builder: a push API that turns decoded events (event.h) into the
 * execution model (model.h), streaming, with bounded state per thread.
 *
 * Order of pushes: every ECP_EV_SCHED_* event first (the sched trace, read
 * completely first, EVENTS.md), then the program's events in trace order (the
 * muxer's timestamp order).  Function events carry their payload `ts`.
 *
 * Time.  With clock=perf-switch a thread's CPU time at wall time t is the sum
 * of its on-CPU intervals (from the switch records) before t; a thread with
 * no switch record at all is taken to be on CPU for its whole life (that is
 * how synthetic unit tests run).  With clock=thread-cputime segment lengths
 * come from the events' `cpu_ns` and function times inside a segment are its
 * wall times scaled to the segment's CPU length.  Either way the calibrated
 * cost of every event the thread emitted is subtracted (never below 0).
 *
 * Every problem is either an error (trace path, event index, thread, what is
 * wrong) or a counted warning in model->warnings; see builder-finish.c. */
#ifndef ECP_SIMULATOR_BUILDER_H
#define ECP_SIMULATOR_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/ctf/event.h"
#include "simulator/model/model.h"
#include "simulator/symbols/symbols.h"

enum ecp_clock_source {
	ECP_CLOCK_PERF_SWITCH = 0,
	ECP_CLOCK_THREAD_CPUTIME,
};

struct ecp_builder_options {
	enum ecp_clock_source clock;
	/* The recorder's own cost, taken out of the thread that paid it:
	 * per event it emitted (picoseconds: 20 M events of a call-dense
	 * program need better than a nanosecond) and per perf sample the
	 * kernel took on it (bld_overhead_ns). */
	uint64_t event_cost_ps;
	/* per event other than a function entry, exit, unwound frame or
	 * folded count (0: event_cost_ps): function records written in
	 * batches (issue 35) cost a few times less than an event of its own */
	uint64_t other_event_cost_ps;
	uint64_t sample_cost_ns;
	/* The CPU time a switch-in costs the incoming thread before its
	 * switch-in record (recorder/calibrate-switch.h): each on-CPU interval
	 * that a switch-in opens starts that much earlier. */
	uint64_t switch_cost_ps;
	/* The CPU time the kernel's copy of the recorder's perf events into a
	 * new thread costs its creator, inside pthread_create
	 * (recorder/calibrate-clone.h): taken out at each thread_create. */
	uint64_t thread_create_cost_ps;
	bool keep_calls;        /* fill model->calls (32 bytes per call) */
	bool lenient;           /* repair inconsistencies as counted warnings instead
				   of failing (a lossy trace under --allow-loss) */
	const char *trace_path; /* for error messages; may be NULL */
	/* A function is (function, call site): Cilkprof's call-site view
	 * (`--by callsite`).  The site is the return address in the caller
	 * (the agent's call_site; a sampled caller frame's pc). */
	bool by_callsite;
	/* function events only count (their cost is still subtracted): the
	 * samples alone split the time (ecp_load_options.functions_from) */
	bool ignore_function_events;
	/* CPUs the program was recorded on (0: one): what the builder infers
	 * from one CPU's order of events (builder-child-cpu.c) needs one */
	uint32_t recorded_cpus;
};

struct ecp_builder;

int ecp_builder_create(const struct ecp_builder_options *opts, struct ecp_builder **out,
		       struct ecp_error *err);
/* Consumes one event; on error the builder is unusable (destroy it). */
int ecp_builder_push(struct ecp_builder *b, const struct ecp_event *ev,
		     struct ecp_error *err);
/* A perf sample of thread `tid` at `ts` (sched-trace time, pushed with the
 * sched events, before the program's): the start addresses of the
 * functions on its stack, innermost first (0: a frame with no function,
 * skipped), and each one's call site (the return address in the next
 * frame, 0 for the outermost; sites may be NULL).  See builder-samples.c for how samples
 * split the time. */
/* Every perf sample taken on `tid` at `ts` (sched-trace time, pushed with
 * the sched events), whether or not it is pushed for attribution too: its
 * cost is the recorder's and comes out of the thread's clock. */
int ecp_builder_count_sample(struct ecp_builder *b, uint32_t tid, uint64_t ts,
			     struct ecp_error *err);
int ecp_builder_push_sample(struct ecp_builder *b, uint32_t tid, uint64_t ts,
			    const uint64_t *funcs, const uint64_t *sites, uint32_t n,
			    struct ecp_error *err);
/* Samples pushed, and applied to a thread's time (the others fell outside
 * every thread's life). */
void ecp_builder_sample_counts(const struct ecp_builder *b, uint64_t *pushed,
			       uint64_t *applied);
/* A fork or exit record of the sched trace (pushed with the sched events):
 * what places the program's child processes (builder-processes.c).
 * Returns 0, -1 when out of memory. */
int ecp_builder_push_task(struct ecp_builder *b, const struct ecp_task *t);
/* Thread name from the scheduler's view (perf COMM), used when the program
 * did not name the thread itself. */
int ecp_builder_set_comm(struct ecp_builder *b, uint64_t tid, const char *name);
/* The same name as the sched trace gives it, while it is read (before the
 * program's events): what tells LTTng-UST's own threads ("<comm>-ust") from
 * the program's when the switch records are sealed (builder-child-cpu.c).
 * ecp_builder_set_comm still names the threads at the end.  Returns 0, -1
 * when out of memory. */
int ecp_builder_note_comm(struct ecp_builder *b, uint64_t tid, const char *name);
/* An LTTng-UST listener thread `tid` wrote its statedump's end at `ts`
 * (lttng_ust_statedump:end): it has registered, and a child process held
 * by LTTng-UST's constructor until then runs on (builder-registration.c).
 * Returns 0, -1 when out of memory. */
int ecp_builder_note_registered(struct ecp_builder *b, uint64_t tid, uint64_t ts);
/* Closes what is still open, resolves function names with `syms` (NULL: the
 * names are "0xADDR") and hands over the model.  The builder is then spent:
 * destroy it. */
int ecp_builder_finish(struct ecp_builder *b, struct ecp_symbols *syms,
		       struct ecp_model **out, struct ecp_error *err);
void ecp_builder_destroy(struct ecp_builder *b);

#endif
