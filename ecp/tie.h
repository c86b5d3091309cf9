/* SPDX-License-Identifier: MIT */
/* When two simulated times are one instant, and how a time becomes integer
 * nanoseconds: one rule for the P-run (prun.c), its exact re-simulations
 * (tangent.c), the tests' oracle (tests/engine/oracle.c) and everything that prints a
 * time.
 *
 * The model's lengths and delays are integer ns; processor sharing makes the
 * simulated times rationals whose denominators are products of running
 * counts and P, and two distinct ones can be far closer than a nanosecond
 * (1e-4 ns apart at t = 20 ns in the product test's models of 24 threads).
 * Long double (64-bit mantissa, one ulp = 2^-63 |t| to 2^-64 |t|) carries
 * them with rounding error that grows with the clock and with the events
 * between the two times compared: 12 ulps at 1e9 and 1e12 ns, 30 at 1e13 ns
 * on models of 260 segments (oracle, against the same run unshifted).  So
 * two times are one instant within 1e-12 ns plus 2^-54 |t|: 512 ulps of
 * rounding allowance, nothing more (5.6e-5 ns at 1e12 ns, 5.6e-4 ns at
 * 1e13 ns).  The bound it replaces, 1e-12 (1 + |t|), was 9 million ulps: it
 * merged events a whole nanosecond apart once a run lasted 1e12 ns (17
 * minutes), and the weights and T_P of such a run were those of another
 * DAG.  8,192 ulps still merged distinct events of 12-thread models at
 * 1e12 ns (46 weights of 331,492 in engine-timescale); 512 merge none there
 * up to 1e13 ns, and the 10 M-event benchmark with sleeps stays exact.  No
 * bound fixed in ns can serve every scale in long double: 1e-4 ns merges
 * the product test's distinct events above, and is less than 512 ulps past
 * 2e12 ns. */
#ifndef ECP_ECP_TIE_H
#define ECP_ECP_TIE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* the bound (ECP_TIE_NS, ECP_TIE_ULPS, ecp_tie_bound) and the printing rule,
 * in the lowest layer so that every writer rounds by it */
#include "common/time-round.h"

static inline bool ecp_same_instant(long double x, long double y)
{
	long double m = fabsl(x) > fabsl(y) ? x : y;
	return fabsl(x - y) <= ecp_tie_bound(m);
}

/* A simulated time (or time sum) as integer ns: common/time-round.h's rule
 * (the nearest, halves up, a time within the tie bound of k + 1/2 being that
 * half: the exact times are rationals, and halves are common at P = 2).
 * Negative rounding error at 0 gives 0. */
static inline uint64_t ecp_time_round_ns(long double x)
{
	return ecp_round_time_ns(x);
}

#endif
