/* SPDX-License-Identifier: MIT */
/* The unwinder's state, shared by its files: unwind.c (the libdwfl
 * session, unwinding) and unwind-functions.c (function identities).  Not
 * part of any interface. */
#ifndef ECP_SIMULATOR_UNWIND_INTERNAL_H
#define ECP_SIMULATOR_UNWIND_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "simulator/symbols/plt.h"
#include "simulator/symbols/unwind.h"

/* A function symbol of a module, at its address in the process. */
struct fn_sym {
	uint64_t addr, size;
	const char *name; /* libdwfl's, valid while the module is, or a PLT stub's */
};

struct object {
	uint64_t baddr, memsz;
	char *path;           /* the recorded path: the module's name */
	char *file;           /* what to read: a copy kept in the trace, else path */
	bool tried;           /* given to libdwfl (successfully when mod is set) */
	bool superseded;      /* overlapped by a later object */
	Dwfl_Module *mod;     /* its userdata: this object's index + 1 */
	Dwarf_Addr low, high; /* the module's range, to report it again */
	/* its function symbols sorted by address, read at the first lookup:
	 * libdwfl's own lookup scans the whole table each time */
	struct fn_sym *syms;
	size_t n_syms;
	bool syms_read;
	/* its PLT stubs, which own the names of their fn_syms (plt.h) */
	struct ecp_plt_stub *plt;
	size_t n_plt;
};

/* Remembered answers of ecp_unwinder_function_start: a trace asks about
 * the same return addresses again and again. */
#define START_CACHE_BITS 13
#define START_CACHE_SIZE (1u << START_CACHE_BITS)

struct start_entry {
	uint64_t addr, start;
	bool valid, named;
};

struct ecp_unwinder {
	Dwfl *dwfl;
	struct start_entry *starts; /* START_CACHE_SIZE, direct-mapped */
	struct object *objs;
	size_t n, cap;
	bool pending;  /* objects added since libdwfl last heard of them */
	bool attached; /* dwfl_attach_state done */
	/* The architecture for dwfl_attach_state, from the first readable
	 * object, owned here: libdwfl would otherwise borrow it from a module
	 * that a later object may replace. */
	int arch_fd;
	Elf *arch_elf;

	/* the sample being unwound, read by the callbacks */
	const Dwarf_Word *regs;
	const uint8_t *stack;
	size_t stack_len;
	/* when set, the stack still in COBS, decoded as far as read */
	struct ecp_cobs_cursor *lazy;
	uint64_t *pcs;
	size_t max, n_pcs;
	Dwarf_Word last_sp;
};

/* Tells libdwfl about the objects added since it last heard of them. */
void ecp_unwinder_sync(struct ecp_unwinder *u);

/* The object reported as mod (NULL if none). */
struct object *ecp_unwinder_object_of(struct ecp_unwinder *u, Dwfl_Module *mod);

/* Forgets the answers cached about any address, and frees what
 * unwind-functions.c keeps of o (may be NULL), whose module is going away. */
void ecp_unwinder_forget_functions(struct ecp_unwinder *u, struct object *o);

#endif
