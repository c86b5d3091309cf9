/* SPDX-License-Identifier: MIT */
#include "ecp/hugemem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

/* Below this a huge page would be mostly waste, and malloc serves the block
 * from its heap anyway. */
#define HUGE_MIN (4 * HUGE_PAGE)

void ecp_huge_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	if (!p || bytes < HUGE_MIN)
		return;
	uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
	/* Only the whole huge pages inside the block; a refusal (no THP in
	 * this kernel) leaves ordinary pages, which is fine. */
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

void *ecp_huge_malloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	ecp_huge_advise(p, bytes);
	return p;
}

void *ecp_huge_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = calloc(n ? n : 1, size ? size : 1);
	ecp_huge_advise(p, n * size);
	return p;
}
