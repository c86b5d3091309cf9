/* SPDX-License-Identifier: MIT */
/* Replaying the fixed ASAP DAG (dag.h) on P processors.
 *
 * Two scheduler models, selected by enum ecp_sched_model:
 *
 *  - ECP_SCHED_IDEAL (the default, the paper's model of Fig. 5): ideal
 *    processor sharing.  While n threads are runnable on P processors each
 *    progresses at min(1, P/n); delays (sleep, blocking I/O) use no processor
 *    and pass in real time.  Without delays the run is a time-warp of the
 *    ASAP schedule, T_P = sum over time segments of length * max(n/P, 1),
 *    computed exactly in integer arithmetic (see replay.c for rounding); with
 *    delays it is simulated event by event.
 *  - ECP_SCHED_LINUX (linux-sched.h): a model of the Linux scheduler users
 *    actually run on — per-CPU run queues, wake-affine placement, periodic
 *    load balancing, a time slice and a context-switch cost.  Never the
 *    default; results are labelled with the model that produced them.
 *
 * Both run on the FIXED DAG: lock hand-offs are those decided when the DAG
 * was built (weights and predictions then agree on one dependency order).
 * For a what-if, rebuild the DAG with ecp_dag_build(model, lengths, ...) and
 * replay it: both are near-linear. */
#ifndef ECP_SIMULATOR_REPLAY_H
#define ECP_SIMULATOR_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model/dag.h"

enum ecp_sched_model {
	ECP_SCHED_IDEAL = 0, /* ideal processor sharing (the paper's model) */
	ECP_SCHED_LINUX,     /* Linux-like per-CPU queues (linux-sched.h) */
};

/* Flags: what to fill besides the totals. */
#define ECP_REPLAY_STEPS    0x1u /* steps: runnable threads over time */
#define ECP_REPLAY_TIMELINE 0x2u /* seg_start/seg_end: per-segment times at P */
#define ECP_REPLAY_SIMULATE                                                              \
	0x4u /* ideal model: simulate event by event even                                \
	      * without delays (tests compare it with the warp) */

/* From `time` until the next step's time, `runnable` threads have work to
 * do: min(runnable, P) of them run, max(runnable - P, 0) wait for a CPU. */
struct ecp_replay_step {
	uint64_t time;
	uint32_t runnable;
	uint32_t pad;
};

struct ecp_replay {
	unsigned processors;  /* P; 0 = unlimited */
	uint32_t sched_model; /* enum ecp_sched_model that produced it */
	uint64_t makespan;    /* T_P, ns */
	uint64_t work;        /* T_1 = sum of segment lengths */
	uint64_t span;        /* T_inf = ASAP makespan */
	uint64_t idle;        /* I_P = integral of max(P - running, 0) dt over [0, T_P] */
	uint64_t t1;          /* T_1: the ideal run on one processor (= work
			       * unless delays leave the processor idle) */
	double speedup;       /* t1 / T_P */
	bool work_law_ok;     /* T_P >= T_1 / P (always, unless a bug) */
	bool span_law_ok;     /* T_P >= T_inf */
	bool simulated;       /* event by event (delays, or the Linux model) */
	uint64_t context_switches;     /* Linux model only */
	uint64_t migrations;           /* Linux model only */
	struct ecp_replay_step *steps; /* with ECP_REPLAY_STEPS */
	size_t n_steps;
	uint64_t *seg_start; /* with ECP_REPLAY_TIMELINE: per segment, at P */
	uint64_t *seg_end;
};

/* The ASAP running count as a step function, independent of P: computed once
 * and shared by the time-warps of many P. */
struct ecp_profile {
	size_t len;            /* breakpoints */
	uint64_t *time;        /* increasing; time[len-1] = span */
	uint32_t *runnable;    /* count on [time[i], time[i+1]); 0 at the last */
	uint32_t max_runnable; /* the largest count */
};

int ecp_profile_init(struct ecp_profile *prof, const struct ecp_dag *dag,
		     struct ecp_error *err);
void ecp_profile_finish(struct ecp_profile *prof);

/* Ideal processor sharing on P processors (0 = unlimited).  `out` is caller
 * memory, filled and owned until ecp_replay_finish(). */
int ecp_replay_run(const struct ecp_dag *dag, unsigned processors, unsigned flags,
		   struct ecp_replay *out, struct ecp_error *err);

/* Ideal replays for n processor counts, sharing one profile: out[i] for
 * processors[i]. */
int ecp_replay_sweep(const struct ecp_dag *dag, const unsigned *processors, size_t n,
		     unsigned flags, struct ecp_replay *out, struct ecp_error *err);

/* Either model, the Linux one with its default parameters. */
int ecp_replay_model_run(const struct ecp_dag *dag, enum ecp_sched_model model,
			 unsigned processors, unsigned flags, struct ecp_replay *out,
			 struct ecp_error *err);

void ecp_replay_finish(struct ecp_replay *r);

/* T_1 of the ideal model: the work, or with delays the simulated
 * one-processor run (idle while every thread sleeps counts). */
int ecp_replay_t1(const struct ecp_dag *dag, uint64_t *t1, struct ecp_error *err);

const char *ecp_sched_model_name(enum ecp_sched_model model);

#endif
