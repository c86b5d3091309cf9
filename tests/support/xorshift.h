/* SPDX-License-Identifier: MIT */
/* xorshift64 (Marsaglia, shifts 13, 7, 17): the fixed, portable sequence
 * the property tests draw from, so that a failing case is the same case
 * on every machine and every run.  The state is the seed, never 0. */
#ifndef ECP_TESTS_SUPPORT_XORSHIFT_H
#define ECP_TESTS_SUPPORT_XORSHIFT_H

#include <stdint.h>

static inline uint64_t ecp_test_xorshift(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif
