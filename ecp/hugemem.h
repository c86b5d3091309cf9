/* SPDX-License-Identifier: MIT */
/* Allocation of the engine's large arrays (one or a few words per node or
 * segment: tens of MB on a 10 M-event model).
 *
 * They ask for transparent huge pages.  The per-P passes read them at
 * scattered places (prefix sums by preorder interval, the timeline by
 * instant), where 4 KiB pages cost a TLB miss on nearly every read, and each
 * array is touched first in one pass, where 4 KiB pages cost one page fault
 * per 4 KiB.  Where the system gives no huge pages this is plain malloc. */
#ifndef ECP_ECP_HUGEMEM_H
#define ECP_ECP_HUGEMEM_H

#include <stddef.h>

/* Like malloc/calloc (n * size, overflow-checked); free with free(). */
void *ecp_huge_malloc(size_t bytes);
void *ecp_huge_calloc(size_t n, size_t size);
/* For a block from realloc: asks the same of its whole huge pages. */
void ecp_huge_advise(void *p, size_t bytes);

#endif
