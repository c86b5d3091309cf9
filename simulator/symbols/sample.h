/* SPDX-License-Identifier: MIT */
/* A perf sample as the sampler (sampler.h) unwinds it; the reader
 * (simulator/trace/) decodes one from each ecp_sched:sample event. */
#ifndef ECP_SIMULATOR_SYMBOLS_SAMPLE_H
#define ECP_SIMULATOR_SYMBOLS_SAMPLE_H

#include <stdint.h>

#include "common/cobs.h"

/* One perf sample (ecp_sched:sample, issue 18), as the reader decoded it;
 * the arrays are borrowed, valid during the callback.  regs are the user
 * registers in x86_64 DWARF order (n_regs 0 when the kernel gave none),
 * chain the frame-pointer call chain (user pc first), stack the words of
 * the user stack from regs[7] (the stack pointer) up.
 *
 * stack_cobs, when set, is that stack still in COBS as the trace carries it
 * (since issue 35; with zero runs since its stacks proved mostly zeros), to
 * be decoded only as far as the unwinder reads it (ecp_unwind_sample_cobs);
 * n_stack is then the most words it can hold, 0 when it holds none. */
struct ecp_sample {
	uint64_t ts;
	uint64_t index; /* position in the trace, for error messages */
	uint32_t tid;
	uint32_t n_regs, n_chain, n_stack;
	const uint64_t *regs, *chain, *stack;
	struct ecp_cobs_cursor *stack_cobs;
};

/* Bounds the reader enforces (a larger array is a damaged trace). */
#define ECP_SAMPLE_MAX_REGS  32u
#define ECP_SAMPLE_MAX_CHAIN 512u
#define ECP_SAMPLE_MAX_STACK 8192u /* words: 64 KiB */

#endif
