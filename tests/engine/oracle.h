/* SPDX-License-Identifier: MIT */
/* The brute-force definition of segment weights, kept as the test oracle.
 *
 * weight_P(s) = (T_P - T_P with s shortened by eps) / eps, computed literally:
 * the fixed DAG is re-simulated on P processors (ideal processor sharing,
 * delays in real time) once per segment.  eps is symbolic: every time is a
 * pair a + b*eps compared lexicographically, so the result is the exact
 * one-sided derivative for an infinitesimal eps (ties included) and the
 * weight is -b of the makespan.  O(S^2 * events): for small models only. */
#ifndef ECP_TESTS_ENGINE_ORACLE_H
#define ECP_TESTS_ENGINE_ORACLE_H

#include "common/error.h"
#include "simulator/model/dag.h"

/* processors: P, or 0 for unlimited.  weights: n_segments; zero-length
 * segments get 0 (a segment that takes no time cannot be shortened).
 * makespan (may be NULL): the unperturbed T_P. */
int ecp_weights_oracle(const struct ecp_dag *dag, unsigned processors, double *weights,
		       long double *makespan, struct ecp_error *err);

/* The same unperturbed run's times: per segment, when it started (became
 * ready, after its inputs and delay) and ended. */
int ecp_oracle_times(const struct ecp_dag *dag, unsigned processors, long double *start,
		     long double *end, struct ecp_error *err);

#endif
