/* SPDX-License-Identifier: MIT */
/* The one rule by which a time becomes the integer nanoseconds that every
 * command prints (docs/DESIGN.md, "Output contract"): the nearest integer,
 * halves away from zero, where a value within the tie bound of k + 1/2 is
 * that half.
 *
 * Halves away from zero, not to even: simulated times at P = 2 are often
 * exact halves, and a rule that sent 2.5 to 2 and 3.5 to 4 would make a
 * difference of two printed times differ from the printed difference of the
 * same times; away from zero also keeps -x printed as -(x printed), which a
 * difference between two answers needs.  The tie bound (ecp/tie.h explains
 * its size) is there because the engine carries an exact k + 1/2 in long
 * double with rounding error: without it one run's k + 1/2 - 1e-15 printed k
 * and another's k + 1/2 printed k + 1.  A double's exact half (TETs, a
 * timeline's times) is a half as it is; the bound changes nothing else for
 * doubles, whose spacing is coarser than it.
 *
 * Layer 0, so that the engine (ecp/), the replay, viz and the writers all
 * reach the same function; none may print a time with llround, %.0f or a
 * cast (printf's %.0f rounds halves to even). */
#ifndef ECP_COMMON_TIME_ROUND_H
#define ECP_COMMON_TIME_ROUND_H

#include <math.h>
#include <stdint.h>

#define ECP_TIE_NS   1e-12L   /* the floor, at time 0 */
#define ECP_TIE_ULPS 0x1p-54L /* 512 ulps of long double, relative */

/* Two times near x (the larger of them) closer than this are one instant. */
static inline long double ecp_tie_bound(long double x)
{
	return ECP_TIE_NS + fabsl(x) * ECP_TIE_ULPS;
}

/* x ns as the integer ns printed.  NaN is 0, and what int64_t cannot hold
 * is its end: no printed time comes near either, and a cast of them is
 * undefined behaviour. */
static inline int64_t ecp_round_ns(long double x)
{
	if (isnan(x))
		return 0;
	long double a = floorl(fabsl(x) + 0.5L + ecp_tie_bound(x));
	if (a >= 0x1p63L)
		return x < 0.0L ? INT64_MIN : INT64_MAX;
	return x < 0.0L ? -(int64_t)a : (int64_t)a;
}

/* A time, never negative: rounding error below 0 is 0. */
static inline uint64_t ecp_round_time_ns(long double x)
{
	return x > 0.0L ? (uint64_t)ecp_round_ns(x) : 0;
}

#endif
