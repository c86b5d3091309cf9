/* SPDX-License-Identifier: MIT */
/* Stable LSD radix sort of (key, value) pairs by key.
 *
 * The engine sorts millions of nodes by time and entries by position once per
 * trace; a comparison sort would dominate the near-linear budget.  Stability
 * matters: the engine sorts nodes already in dominator-tree preorder by time,
 * so nodes at one instant come out in preorder. */
#ifndef ECP_ECP_RADIX_H
#define ECP_ECP_RADIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ecp_radix_pair {
	uint64_t key;
	uint32_t value;
};

/* Sorts pairs[0..n) by key, stably.  Returns 0, or -1 if scratch memory could
 * not be allocated (pairs left unchanged). */
int ecp_radix_sort(struct ecp_radix_pair *pairs, size_t n);

/* Sorts keys[0..n) stably by their bits [lo_bit, hi_bit) (the bits below
 * lo_bit ride along: a payload).  8 bytes an element instead of 16, and
 * 11-bit digits: a 35-bit time takes 4 passes where the pairs take 6.  On
 * large inputs (ecp/parallel.h) two threads count and scatter a half each,
 * the first half's elements of a digit before the second's: the same result.
 * Returns 0, or -1 if scratch memory could not be allocated. */
int ecp_radix_sort_bits(uint64_t *keys, size_t n, unsigned lo_bit, unsigned hi_bit,
			bool two_threads);

#endif
