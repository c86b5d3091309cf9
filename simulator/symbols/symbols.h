/* SPDX-License-Identifier: MIT */
/* Addresses to function names, with libelf, from the objects the trace's
 * statedump lists (lttng_ust_statedump:bin_info, lttng_ust_dl:dlopen).
 *
 * Each object is loaded at `baddr`, the address of its first PT_LOAD
 * segment; an address inside [baddr, baddr+memsz) is looked up in the ELF
 * symbol table (.symtab, else .dynsym) at
 *     addr - baddr + (first PT_LOAD p_vaddr),
 * which is right for PIE executables, shared libraries and fixed-address
 * executables alike.  An address that the object's own tables do not name
 * is looked up with libdwfl (unwind.h), which also reads the separate debug
 * file that a build-id or .gnu_debuglink leads to.  C++ names are demangled
 * (__cxa_demangle, loaded from libstdc++ at run time when present).  An
 * address that no symbol covers is named "object+0xOFFSET", one outside
 * every object "0xADDR": never dropped; ECP_UNKNOWN_FUNCTION "[unknown]". */
#ifndef ECP_SIMULATOR_SYMBOLS_H
#define ECP_SIMULATOR_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model/arena.h"
#include "simulator/model/model.h" /* ECP_INLINED_MARK */

struct ecp_symbols;

/* The address that stands for frames nothing maps (a failed unwind, code
 * generated at run time): named "[unknown]", as perf does.  Page 0 is
 * never mapped, so no function starts at 1. */
#define ECP_UNKNOWN_FUNCTION UINT64_C(1)

/* A function the compiler inlined (sampling finds it in the DWARF, as perf
 * report --inline): an address no code has (above user space) made of its
 * key (struct ecp_inlined), named "NAME [inlined]". */
#define ECP_INLINED_FUNCTION(key)     (UINT64_C(0xff00000000000000) | (key))
#define ECP_IS_INLINED_FUNCTION(addr) ((uint64_t)(addr) >> 56 == 0xff)

/* Names the inlined function at addr (ECP_INLINED_FUNCTION); the first
 * name given for an address stays.  Returns 0 or ECP_ERR_NOMEM. */
int ecp_symbols_add_inlined(struct ecp_symbols *syms, uint64_t addr, const char *name);

struct ecp_symbols *ecp_symbols_create(void);
void ecp_symbols_destroy(struct ecp_symbols *syms);

/* Registers an object mapped at [baddr, baddr+memsz).  A later object that
 * overlaps an earlier one (dlclose then dlopen at the same place) wins. */
int ecp_symbols_add_object(struct ecp_symbols *syms, uint64_t baddr, uint64_t memsz,
			   const char *path);

/* The same, reading the symbols from `copy` (a copy of the object kept in
 * the trace directory, see recorder/EVENTS.md "objects/") while naming the
 * object by its recorded `path`. */
int ecp_symbols_add_object_copy(struct ecp_symbols *syms, uint64_t baddr, uint64_t memsz,
				const char *path, const char *copy);
/* Names addr; strings are copied into `arena`.  *object is "" when no object
 * covers addr.  Returns 0, or a negative status only when memory ran out. */
int ecp_symbols_resolve(struct ecp_symbols *syms, uint64_t addr,
			struct ecp_strings *arena, const char **name,
			const char **object);

/* Where addr lies: the file to read (the copy in the trace when there is
 * one), its link-time address there, and the run-time start of the symbol
 * covering it (0 when none).  -1 when no object covers addr. */
int ecp_symbols_locate(struct ecp_symbols *syms, uint64_t addr, const char **file,
		       uint64_t *vaddr, uint64_t *sym_start);

/* Objects that addresses were looked up in but whose symbols could not be
 * read (missing, truncated or stripped file), so that the caller can say
 * why names are addresses.  ecp_symbols_unreadable() borrows the k-th one's
 * file read (the copy in the trace when there is one), its recorded path
 * and the reason; false past the last. */
size_t ecp_symbols_n_unreadable(const struct ecp_symbols *syms);
bool ecp_symbols_unreadable(const struct ecp_symbols *syms, size_t k, const char **file,
			    const char **path, const char **why);

/* Demangles a C++ symbol; returns a malloc'ed string or NULL (not mangled,
 * or no demangler available). */
char *ecp_demangle(const char *sym);

#endif
