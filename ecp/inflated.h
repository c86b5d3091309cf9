/* SPDX-License-Identifier: MIT */
/* The inflation-aware prediction (issue 36): a second model beside the
 * ideal one.  The ideal model says a segment costs on P CPUs what it cost
 * on one; a recording on N CPUs (`ecp record --cpus`) measured what each
 * function costs there, running beside the others.  Here every segment of
 * the one-CPU model is lengthened by what its functions cost more at N --
 *     length' = length + f(P) * (sum over its functions of (r - 1) * self
 *                                + (r0 - 1) * the time no function holds)
 * with r a function's work at N over its work at 1 (matched by name; 1 for
 * a function one side lacks, and for a sampled one whose r is within the
 * noise of its samples), r0 the same for the time outside every
 * function (the work of functions only at N counted there), and f(P) the
 * share of the inflation assumed at P: 0 at P = 1, growing linearly to 1 at
 * P = N (how many CPUs run at once), 1 beyond N (held at what N measured:
 * an extrapolation, which the output names) -- and the DAG is simulated
 * again at P, its hand-offs re-decided for the slower segments. */
/*
 * Hand-offs: a woken thread waits for a CPU to take it up (ecp/handoff.h),
 * which both models take as 0.  The recording at N measured that wait;
 * each hand-off on the lengthened DAG's critical path (ASAP: as many CPUs
 * as threads) adds the mean wait at N, times the share, to T_P.  Where the
 * CPUs are all busy the path differs and that is an estimate. */
#ifndef ECP_ECP_INFLATED_H
#define ECP_ECP_INFLATED_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "ecp/options.h"
#include "simulator/model/dag.h"
#include "simulator/model/model.h"

struct ecp_inflated_point {
	unsigned processors;
	double share;         /* f(P): of the inflation measured at N */
	bool extrapolated;    /* P > N: held at N's inflation */
	uint64_t ideal_ns;    /* T_P of the one-CPU model */
	uint64_t inflated_ns; /* T_P with the segments lengthened, and the hand-offs */
	uint64_t handoffs;    /* on the lengthened DAG's critical path */
	uint64_t handoff_ns;  /* what they add to T_P */
};

struct ecp_inflated {
	struct ecp_inflated_point *points;
	size_t n_points;
	uint64_t cpus;            /* N */
	uint64_t work_ns;         /* the lengthened model's work at f = 1 */
	double residual_ratio;    /* r0 */
	uint64_t unplaced_ns;     /* work at N the one-CPU model has nowhere to put */
	uint64_t handoff_mean_ns; /* the mean hand-off wait measured at N */
	/* Functions whose sampled ratio lies within ECP_INFLATED_NOISE_SIGMAS
	 * of its sampling error of 1, taken as 1, and their work at 1. */
	uint64_t noise_functions;
	uint64_t noise_ns;
};

/* How many standard errors of its samples a sampled function's ratio must
 * lie from 1 to count as inflation. */
#define ECP_INFLATED_NOISE_SIGMAS 2.0

/* The inflation-aware T_P of `base` (one CPU) for each of processors[0..n)
 * (sorted, >= 1), from `other` recorded on N = other->info.recorded_cpus
 * CPUs; lock hand-offs re-decided with `policy` as the ideal DAG was. */
int ecp_inflated_predict(const struct ecp_model *base, const struct ecp_dag *base_dag,
			 const struct ecp_model *other, enum ecp_lock_policy policy,
			 const unsigned *processors, size_t n,
			 const struct ecp_engine_options *opts, struct ecp_inflated *out,
			 struct ecp_error *err);
void ecp_inflated_finish(struct ecp_inflated *r);

/* The segment lengths at share f (exposed for the tests): one per segment
 * of base, malloc'd; ratios[f] per function of base, r0 for the rest. */
int ecp_inflated_lengths(const struct ecp_model *base, const double *ratios, double r0,
			 double share, uint64_t **lengths, struct ecp_error *err);

#endif
