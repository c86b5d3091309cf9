/* SPDX-License-Identifier: MIT */
/* Function identities for the unwound pcs: the covering function symbol,
 * which libdwfl reads from the object or from its separate debug file, else
 * the start of the covering FDE. */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "simulator/symbols/unwind-internal.h"

static int cmp_fn_sym(const void *a, const void *b)
{
	const struct fn_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* prefer the sized symbol, then the shorter (unversioned) name */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	return lx < ly ? -1 : lx > ly;
}

/* Indexes the module's function symbols: the table libdwfl chose (.symtab
 * of the object or of its debug file, else .dynsym), and its PLT stubs
 * (which no table names: a sample in exp@plt would be `_init`'s), sorted,
 * one name per address. */
static void read_symbols(struct object *o)
{
	o->syms_read = true;
	int count = dwfl_module_getsymtab(o->mod);
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(o->mod, &bias);
	o->n_plt = elf ? ecp_plt_stubs(elf, &o->plt) : 0;
	size_t room = (count > 1 ? (size_t)count : 0) + o->n_plt;
	if (!room)
		return;
	o->syms = malloc(room * sizeof(*o->syms));
	if (!o->syms)
		return;
	for (size_t i = 0; i < o->n_plt; i++)
		o->syms[o->n_syms++] = (struct fn_sym){o->plt[i].addr + bias,
						       o->plt[i].size, o->plt[i].name};
	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr addr = 0;
		GElf_Word shndx = SHN_UNDEF;
		const char *name =
		    dwfl_module_getsym_info(o->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    shndx == SHN_UNDEF || !addr)
			continue;
		o->syms[o->n_syms++] = (struct fn_sym){addr, sym.st_size, name};
	}
	qsort(o->syms, o->n_syms, sizeof(*o->syms), cmp_fn_sym);
	size_t w = 0;
	for (size_t i = 0; i < o->n_syms; i++)
		if (!w || o->syms[w - 1].addr != o->syms[i].addr)
			o->syms[w++] = o->syms[i];
	o->n_syms = w;
}

/* The function symbol covering addr: sized and covering it, or (hand-written
 * assembly) unsized, when *sized is then false. */
static const struct fn_sym *covering_symbol(struct object *o, uint64_t addr, bool *sized)
{
	if (!o->syms_read)
		read_symbols(o);
	size_t lo = 0, hi = o->n_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct fn_sym *s = &o->syms[lo - 1];
	if (s->size && addr - s->addr >= s->size)
		return NULL;
	*sized = s->size != 0;
	return s;
}

void ecp_unwinder_forget_functions(struct ecp_unwinder *u, struct object *o)
{
	if (u->starts)
		memset(u->starts, 0, START_CACHE_SIZE * sizeof(*u->starts));
	if (!o)
		return;
	free(o->syms);
	o->syms = NULL;
	o->n_syms = 0;
	ecp_plt_free(o->plt, o->n_plt);
	o->plt = NULL;
	o->n_plt = 0;
	o->syms_read = false;
}

/* Whether the CFI row `frame` is the one every x86_64 function starts
 * with: CFA = rsp+8 and no callee-saved register saved yet.  A row inside
 * a function that saves registers keeps their rules to its end, even after
 * an epilogue's pops. */
static bool entry_row(Dwarf_Frame *frame)
{
	static const int callee_saved[] = {3, 6, 12, 13, 14, 15}; /* rbx rbp r12-r15 */
	Dwarf_Op *ops, ops_mem[3];
	size_t nops;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1 ||
	    !((ops[0].atom == DW_OP_bregx && ops[0].number == ECP_UNWIND_REG_SP &&
	       ops[0].number2 == 8) ||
	      (ops[0].atom == DW_OP_breg7 && ops[0].number == 8)))
		return false;
	for (size_t i = 0; i < sizeof(callee_saved) / sizeof(callee_saved[0]); i++)
		if (dwarf_frame_register(frame, callee_saved[i], ops_mem, &ops, &nops) !=
			0 ||
		    nops != 0)
			return false;
	return true;
}

/* The start of the FDE covering addr (a module address), found through
 * libdw's row lookups alone, as libdw does not tell which FDE a row comes
 * from: walking back row by row, an FDE starts where the row before is
 * missing (the padding between functions has no CFI), or, for FDEs that
 * follow each other without padding, at a function-aligned (16 bytes)
 * row with the entry rules. */
static bool cfi_function_start(Dwarf_CFI *cfi, Dwarf_Addr addr, Dwarf_Addr *start)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr lo = 0, hi = 0;
	if (dwarf_cfi_addrframe(cfi, addr, &frame) != 0)
		return false;
	/* bounded: a function has far fewer rows than this */
	for (int rows = 0; rows < 100000; rows++) {
		bool ok = dwarf_frame_info(frame, &lo, &hi, NULL) >= 0;
		bool entry = ok && lo % 16 == 0 && entry_row(frame);
		free(frame);
		frame = NULL;
		if (!ok)
			return false;
		if (entry || !lo || dwarf_cfi_addrframe(cfi, lo - 1, &frame) != 0)
			break;
	}
	free(frame);
	*start = lo;
	return true;
}

/* The start of the FDE covering addr in the module's .eh_frame, else its
 * .debug_frame. */
static bool fde_start(Dwfl_Module *mod, uint64_t addr, uint64_t *start)
{
	for (int k = 0; k < 2; k++) {
		Dwarf_Addr bias = 0, lo;
		Dwarf_CFI *cfi = k ? dwfl_module_dwarf_cfi(mod, &bias)
				   : dwfl_module_eh_cfi(mod, &bias);
		if (cfi && cfi_function_start(cfi, addr - bias, &lo)) {
			*start = lo + bias;
			return true;
		}
	}
	return false;
}

static uint64_t lookup_function_start(struct ecp_unwinder *u, uint64_t addr, bool *named)
{
	uint64_t fde = 0;
	bool sized = false;
	*named = false;
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, addr);
	struct object *o = ecp_unwinder_object_of(u, mod);
	if (!o)
		return addr;
	const struct fn_sym *s = covering_symbol(o, addr, &sized);
	/* an unsized symbol may lie far below addr, past whole functions
	 * that the CFI still tells apart */
	if (s && sized)
		goto named;
	bool has_fde = fde_start(mod, addr, &fde);
	if (has_fde && (!s || fde > s->addr))
		return fde;
	if (!s)
		return addr;
named:
	*named = true;
	return s->addr;
}

uint64_t ecp_unwinder_function_start(struct ecp_unwinder *u, uint64_t addr, bool *named)
{
	ecp_unwinder_sync(u);
	if (!u->starts)
		u->starts = calloc(START_CACHE_SIZE, sizeof(*u->starts));
	bool is_named;
	uint64_t start;
	/* Fibonacci hashing spreads nearby addresses over the table */
	struct start_entry *e =
	    u->starts
		? &u->starts[(addr * 0x9e3779b97f4a7c15ull) >> (64 - START_CACHE_BITS)]
		: NULL;
	if (e && e->valid && e->addr == addr) {
		start = e->start;
		is_named = e->named;
	} else {
		start = lookup_function_start(u, addr, &is_named);
		if (e)
			*e = (struct start_entry){addr, start, true, is_named};
	}
	if (named)
		*named = is_named;
	return start;
}

const char *ecp_unwinder_function_name(struct ecp_unwinder *u, uint64_t addr,
				       uint64_t *start)
{
	bool sized;
	ecp_unwinder_sync(u);
	struct object *o = ecp_unwinder_object_of(u, dwfl_addrmodule(u->dwfl, addr));
	const struct fn_sym *s = o ? covering_symbol(o, addr, &sized) : NULL;
	if (s && start)
		*start = s->addr;
	return s ? s->name : NULL;
}
