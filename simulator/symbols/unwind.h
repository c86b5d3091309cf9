/* SPDX-License-Identifier: MIT */
/* Offline call-stack unwinding of perf samples, with elfutils' libdwfl, as
 * perf's own libdw unwinder does: a sample's user registers and the copy
 * of its user stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER) are
 * walked with the call frame information (.eh_frame, .debug_frame) of the
 * objects the trace lists, read from the files, never from the process.
 *
 * Objects are registered as in symbols.h: loaded at `baddr`, the address of
 * their first PT_LOAD segment, so that the load bias is
 *     baddr - (first PT_LOAD p_vaddr)
 * (0 for a fixed-address executable).  An unwinder keeps its libdwfl
 * session (opened files, parsed CFI and symbol tables) across samples. */
#ifndef ECP_SIMULATOR_UNWIND_H
#define ECP_SIMULATOR_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cobs.h"

/* x86_64 DWARF register numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15
 * rip.  perf's order differs: ecp_unwind_regs_from_perf reorders. */
#define ECP_UNWIND_NREGS  17
#define ECP_UNWIND_REG_SP 7
#define ECP_UNWIND_REG_IP 16

/* perf_event_attr.sample_regs_user for these 17 registers (perf numbers
 * them otherwise, asm/perf_regs.h). */
uint64_t ecp_unwind_perf_regs_mask(void);

/* Reorders a sample's PERF_SAMPLE_REGS_USER values (`vals`: n values, one
 * per bit of `mask`, lowest bit first) into DWARF order.  False when mask
 * lacks one of the 17 or n is short. */
bool ecp_unwind_regs_from_perf(uint64_t mask, const uint64_t *vals, size_t n,
			       uint64_t regs[ECP_UNWIND_NREGS]);

struct ecp_unwinder;

/* NULL when memory ran out. */
struct ecp_unwinder *ecp_unwinder_create(void);
void ecp_unwinder_destroy(struct ecp_unwinder *u);

/* Registers an object mapped at [baddr, baddr+memsz), read from `copy` (a
 * copy kept in the trace directory) or, when copy is NULL, from `path`.
 * May be called at any time, also between samples (dlopen); a later object
 * overlapping an earlier one replaces it (dlclose, then dlopen at the same
 * place).  An unreadable file is not an error here: its frames end the
 * unwinding.  Returns 0 or ECP_ERR_NOMEM. */
int ecp_unwinder_add_object(struct ecp_unwinder *u, uint64_t baddr, uint64_t memsz,
			    const char *path, const char *copy);

/* Unwinds one sample.  `regs` in DWARF order; `stack` holds the stack_len
 * bytes of the user stack from regs[ECP_UNWIND_REG_SP] upward.  Writes up
 * to `max` program counters, innermost first: pcs[0] is rip, then each
 * caller's return address.  Returns their count: 0 only when rip is 0 (or
 * max is 0), 1 when nothing can be unwound.  Stack memory is read only from
 * `stack`; garbage ends the walk (frames are bounded by max and the stack
 * pointer must grow from frame to frame). */
size_t ecp_unwind_sample(struct ecp_unwinder *u, const uint64_t regs[ECP_UNWIND_NREGS],
			 const uint8_t *stack, size_t stack_len, uint64_t *pcs,
			 size_t max);

/* The same with the stack still in COBS, with zero runs or not (common/cobs.h, how the
 * trace carries it), decoded only as far as the walk reads it.  A walk that meets a part
 * that is not COBS ends there and leaves stack->bad set. */
size_t ecp_unwind_sample_cobs(struct ecp_unwinder *u,
			      const uint64_t regs[ECP_UNWIND_NREGS],
			      struct ecp_cobs_cursor *stack, uint64_t *pcs, size_t max);

/* Start address of the function containing addr (for a return address,
 * pass addr-1): the ELF symbol covering it (.symtab, .dynsym, or a separate
 * debug file found by build-id or .gnu_debuglink), else the start of the
 * FDE covering it in .eh_frame or .debug_frame (so that each function of a
 * stripped object keeps an identity of its own), else addr itself.
 * *named (may be NULL) tells whether a symbol gave the start. */
uint64_t ecp_unwinder_function_start(struct ecp_unwinder *u, uint64_t addr, bool *named);

/* A function the compiler inlined at an address: a key for its abstract
 * origin (the same for every place it was inlined into, in one unwinder)
 * and its name (malloc'd: the caller frees it). */
struct ecp_inlined {
	uint64_t key;
	char *name;
};

/* The functions inlined at addr, innermost first (DW_TAG_inlined_subroutine
 * scopes of the object's DWARF, as perf report --inline): up to max, their
 * count (0 without DWARF, or when nothing was inlined there). */
size_t ecp_unwinder_inlined_at(struct ecp_unwinder *u, uint64_t addr,
			       struct ecp_inlined *out, size_t max);

/* The name of the function symbol covering addr, as libdwfl finds it (the
 * object's symbol tables or its separate debug file), or NULL; *start (may
 * be NULL) gets the symbol's address.  The string is borrowed from the
 * unwinder and stays valid until it is destroyed. */
const char *ecp_unwinder_function_name(struct ecp_unwinder *u, uint64_t addr,
				       uint64_t *start);

#endif
