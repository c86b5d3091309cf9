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

void ecp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
