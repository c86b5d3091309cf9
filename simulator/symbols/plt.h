/* SPDX-License-Identifier: MIT */
/* The PLT stubs of an x86_64 ELF object, named as perf names them
 * ("exp@plt"): the linker's trampolines to another object's functions have
 * no symbols, so a sample in one (a program calling libm's exp millions of
 * times spends a few percent there) would otherwise be charged to whatever
 * symbol precedes the PLT, usually `_init`.  Read with libelf: the PLT
 * sections (.plt, .plt.sec, .plt.got), each stub's indirect jump to its GOT
 * slot, and the relocation (.rela.plt, .rela.dyn) that names the slot. */
#ifndef ECP_SIMULATOR_PLT_H
#define ECP_SIMULATOR_PLT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a stub whose slot no relocation names (the lazy resolver's PLT0,
 * the push-and-jump entries of .plt beside .plt.sec) is called. */
#define ECP_PLT_UNNAMED "[plt]"

struct ecp_plt_stub {
	uint64_t addr, size; /* the stub's ELF virtual address and length */
	char *name;          /* "name@plt", or ECP_PLT_UNNAMED; owned */
};

/* The stubs of elf (not x86_64, or no PLT: none), sorted by address, in
 * *out (malloc'd, NULL when none); their count. */
size_t ecp_plt_stubs(Elf *elf, struct ecp_plt_stub **out);

void ecp_plt_free(struct ecp_plt_stub *stubs, size_t n);

/* Whether name is one ecp_plt_stubs gives. */
bool ecp_plt_is_stub_name(const char *name);

#endif
