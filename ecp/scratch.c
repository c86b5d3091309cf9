/* SPDX-License-Identifier: MIT */
#include "ecp/scratch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/hugemem.h"

/* A kept block of exactly `bytes`, out of sc; NULL when there is none. */
static void *take_kept(struct ecp_scratch *sc, size_t bytes)
{
	if (!sc)
		return NULL;
	/* the latest given first: blocks of one size leave in the order of a
	 * stack, which is any order for equal blocks */
	for (unsigned i = sc->n; i-- > 0;) {
		if (sc->kept[i].bytes != bytes)
			continue;
		void *p = sc->kept[i].p;
		sc->kept[i] = sc->kept[--sc->n];
		return p;
	}
	return NULL;
}

void *ecp_scratch_take(struct ecp_scratch *sc, size_t bytes)
{
	void *p = take_kept(sc, bytes);
	return p ? p : ecp_huge_malloc(bytes);
}

void *ecp_scratch_take_zeroed(struct ecp_scratch *sc, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = take_kept(sc, n * size);
	if (p)
		return memset(p, 0, n * size);
	/* fresh pages are zero already: no memset to pay */
	return ecp_huge_calloc(n, size);
}

void ecp_scratch_give(struct ecp_scratch *sc, void *p, size_t bytes)
{
	if (!p)
		return;
	if (!sc || sc->n == ECP_SCRATCH_KEPT) {
		free(p);
		return;
	}
	sc->kept[sc->n++] =
	    (struct ecp_scratch_block){.p = p, .bytes = bytes, .run = sc->run};
}

void ecp_scratch_next_run(struct ecp_scratch *sc)
{
	if (!sc)
		return;
	unsigned kept = 0;
	for (unsigned i = 0; i < sc->n; i++) {
		if (sc->kept[i].run < sc->run)
			free(sc->kept[i].p);
		else
			sc->kept[kept++] = sc->kept[i];
	}
	sc->n = kept;
	sc->run++;
}

void ecp_scratch_finish(struct ecp_scratch *sc)
{
	if (!sc)
		return;
	for (unsigned i = 0; i < sc->n; i++)
		free(sc->kept[i].p);
	sc->n = 0;
}
