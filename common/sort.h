/* SPDX-License-Identifier: MIT */
/* qsort that first looks whether the array is already in order.
 *
 * glibc's qsort (a merge sort) makes n log n comparisons even on sorted
 * input, and the model builder's largest sorts -- a thread's context-switch
 * records, which the trace's muxer delivers in time order -- usually are.
 * An array in order is what a stable sort (glibc's) leaves it as. */
#ifndef ECP_COMMON_SORT_H
#define ECP_COMMON_SORT_H

#include <stddef.h>
#include <stdlib.h>

/* Inline so that, at a call with a known comparator, the order check
 * calls no function per element: through a pointer it was 0.4% of a
 * sync-heavy trace's model build (issue 35). */
static inline void ecp_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	const char *p = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0) {
			qsort(base, n, size, cmp);
			return;
		}
}

#endif
