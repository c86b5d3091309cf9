/* SPDX-License-Identifier: MIT */
/* Large arrays a thread's P-runs take again and again: the tape, the
 * simulation's input counts, the snapshot pool and the re-simulations' counts
 * have the same sizes at every P (they depend on the model, not on P).  Freed
 * and allocated anew, each costs the kernel a page fault and the zeroing of
 * every page at every P (on the 10 M-event benchmark with sleeps, keeping
 * them made P = 1..64 about 5% faster); kept here between the runs of one
 * thread, they are taken back as they are.  Arrays that a run needs only
 * after its simulation (the units' expansion copy, two of the re-simulations'
 * three) are freed instead: kept, they would lie idle through the next
 * simulation, when the run holds the most memory.
 *
 * A scratch belongs to one thread at a time.  It keeps at most
 * ECP_SCRATCH_KEPT blocks, each taken back only by a request of exactly its
 * size: between two runs it holds what the last one gave back. */
#ifndef ECP_ECP_SCRATCH_H
#define ECP_ECP_SCRATCH_H

#include <stddef.h>

#define ECP_SCRATCH_KEPT 16

struct ecp_scratch {
	struct ecp_scratch_block {
		void *p;
		size_t bytes;
		unsigned long run; /* given back during it */
	} kept[ECP_SCRATCH_KEPT];
	unsigned n;
	unsigned long run;
};

/* A block of `bytes` (contents undefined), kept or new (ecp/hugemem.h); NULL
 * when out of memory.  sc may be NULL: then a new block every time. */
void *ecp_scratch_take(struct ecp_scratch *sc, size_t bytes);
/* The same, of n * size bytes set to zero (overflow-checked). */
void *ecp_scratch_take_zeroed(struct ecp_scratch *sc, size_t n, size_t size);
/* Gives back a block of `bytes` taken from sc (or from malloc): kept for the
 * next take of that size, or freed when sc is NULL or full.  p may be NULL. */
void ecp_scratch_give(struct ecp_scratch *sc, void *p, size_t bytes);
/* A new run begins: frees the blocks that the run before it did not take
 * back (a size no run asks for any more, such as a grown snapshot pool),
 * so that none is kept for longer than one run unused. */
void ecp_scratch_next_run(struct ecp_scratch *sc);
/* Frees what sc keeps; it is then empty and may be used again. */
void ecp_scratch_finish(struct ecp_scratch *sc);

#endif
