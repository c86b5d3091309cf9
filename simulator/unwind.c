#include "simulator/unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"

struct object {
	uint64_t baddr, memsz;
	char *path; /* the recorded path: the module's name */
	char *file; /* what to read: a copy kept in the trace, else path */
	bool tried; /* given to libdwfl (successfully when mod is set) */
	bool superseded; /* overlapped by a later object */
	Dwfl_Module *mod;
	Dwarf_Addr low, high; /* the module's range, to report it again */
};

/* Remembered answers of ecp_unwinder_function_start: libdwfl looks
 * symbols up by a scan of the whole table, and a trace asks about the same
 * return addresses again and again. */
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
	bool pending; /* objects added since libdwfl last heard of them */
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
	uint64_t *pcs;
	size_t max, n_pcs;
	Dwarf_Word last_sp;
};

static char *debuginfo_path; /* NULL: libdwfl's default search path */

/* Offline: every module comes from a file, and separate debug files are
 * found by build-id or .gnu_debuglink under the standard directories. */
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct ecp_unwinder *ecp_unwinder_create(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	struct ecp_unwinder *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->arch_fd = -1;
	u->dwfl = dwfl_begin(&offline_callbacks);
	if (!u->dwfl) {
		free(u);
		return NULL;
	}
	return u;
}

void ecp_unwinder_destroy(struct ecp_unwinder *u)
{
	if (!u)
		return;
	dwfl_end(u->dwfl);
	free(u->starts);
	elf_end(u->arch_elf);
	if (u->arch_fd >= 0)
		close(u->arch_fd);
	for (size_t i = 0; i < u->n; i++) {
		free(u->objs[i].path);
		free(u->objs[i].file);
	}
	free(u->objs);
	free(u);
}

int ecp_unwinder_add_object(struct ecp_unwinder *u, uint64_t baddr, uint64_t memsz,
			    const char *path, const char *copy)
{
	if (!path)
		path = "";
	for (size_t i = 0; i < u->n; i++)
		if (!u->objs[i].superseded && u->objs[i].baddr == baddr &&
		    u->objs[i].memsz == memsz && !strcmp(u->objs[i].path, path))
			return 0; /* listed twice (statedump and dlopen) */
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 16;
		struct object *o = realloc(u->objs, cap * sizeof(*o));
		if (!o)
			return ECP_ERR_NOMEM;
		u->objs = o;
		u->cap = cap;
	}
	struct object *o = &u->objs[u->n];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	o->file = strdup(copy ? copy : path);
	if (!o->path || !o->file) {
		free(o->path);
		free(o->file);
		return ECP_ERR_NOMEM;
	}
	o->baddr = baddr;
	o->memsz = memsz;
	for (size_t i = 0; i < u->n; i++)
		if (baddr < u->objs[i].baddr + u->objs[i].memsz &&
		    u->objs[i].baddr < baddr + memsz)
			u->objs[i].superseded = true;
	u->n++;
	u->pending = true;
	return 0;
}

/* ------------------------------------------------------------- reporting */

static bool first_load_vaddr(Elf *elf, GElf_Addr *vaddr)
{
	size_t nph = 0;
	if (elf_getphdrnum(elf, &nph) != 0)
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			*vaddr = ph.p_vaddr;
			return true;
		}
	}
	return false;
}

/* Reports o to libdwfl at its load bias, baddr - (first PT_LOAD p_vaddr):
 * with add_p_vaddr, dwfl_report_elf takes `base` as that bias (and ignores
 * it for a fixed-address executable, whose bias is 0 anyway). */
static void report_object(struct ecp_unwinder *u, struct object *o)
{
	o->tried = true;
	int fd = open(o->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Addr vaddr = 0;
	bool ok = elf && elf_kind(elf) == ELF_K_ELF && first_load_vaddr(elf, &vaddr);
	if (ok && !u->arch_elf) {
		u->arch_elf = elf;
		u->arch_fd = dup(fd);
		if (u->arch_fd < 0) {
			u->arch_elf = NULL;
			elf_end(elf);
		}
	} else {
		elf_end(elf);
	}
	if (!ok) {
		close(fd);
		return;
	}
	/* libdwfl owns fd from here on success */
	o->mod = dwfl_report_elf(u->dwfl, o->path, o->file, fd, o->baddr - vaddr, true);
	if (!o->mod) {
		close(fd);
		return;
	}
	dwfl_module_info(o->mod, NULL, &o->low, &o->high, NULL, NULL, NULL, NULL);
}

static int next_thread(Dwfl *dwfl, void *arg, void **thread_arg);
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg);
static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg);

static const Dwfl_Thread_Callbacks sample_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Tells libdwfl about the objects added since the last sample.  New ones
 * are added to the session, keeping what it has parsed; when an object
 * replaced another, the session is reported afresh, the kept modules by
 * their name and range (which libdwfl matches to the module it already
 * has) so that only the replaced ones are dropped. */
static void sync_objects(struct ecp_unwinder *u)
{
	if (!u->pending)
		return;
	u->pending = false;
	bool drop = false;
	for (size_t i = 0; i < u->n; i++)
		drop |= u->objs[i].superseded && u->objs[i].mod;
	if (drop)
		dwfl_report_begin(u->dwfl);
	else
		dwfl_report_begin_add(u->dwfl);
	for (size_t i = 0; i < u->n; i++) {
		struct object *o = &u->objs[i];
		if (o->superseded) {
			o->mod = NULL;
			continue;
		}
		if (!o->tried)
			report_object(u, o);
		else if (drop && o->mod)
			o->mod = dwfl_report_module(u->dwfl, o->path, o->low, o->high);
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (u->starts)
		memset(u->starts, 0, START_CACHE_SIZE * sizeof(*u->starts));
	if (!u->attached && u->arch_elf)
		u->attached = dwfl_attach_state(u->dwfl, u->arch_elf, 1, &sample_callbacks, u);
}

/* ------------------------------------------------------------- unwinding */

/* One thread, the sample's, whose pid is the 1 given to dwfl_attach_state. */
static int next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	if (*thread_arg)
		return 0;
	*thread_arg = arg;
	return dwfl_pid(dwfl);
}

/* Stack memory comes from the sample's copy only: the process is gone, and
 * what lies beyond the copy is unknown. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct ecp_unwinder *u = arg;
	Dwarf_Addr sp = u->regs[ECP_UNWIND_REG_SP];
	(void)dwfl;
	if (addr < sp || addr - sp > u->stack_len ||
	    u->stack_len - (addr - sp) < sizeof(*result))
		return false;
	memcpy(result, u->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct ecp_unwinder *u = thread_arg;
	if (!dwfl_thread_state_registers(thread, 0, ECP_UNWIND_NREGS, u->regs))
		return false;
	dwfl_thread_state_register_pc(thread, u->regs[ECP_UNWIND_REG_IP]);
	return true;
}

/* Keeps each frame's pc while the stack pointer grows: a caller's frame
 * lies above its callee's, so a walk that does not go up is looping on
 * garbage. */
static int frame_callback(Dwfl_Frame *frame, void *arg)
{
	struct ecp_unwinder *u = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp;
	if (!dwfl_frame_pc(frame, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	if (u->n_pcs) {
		if (dwfl_frame_reg(frame, ECP_UNWIND_REG_SP, &sp) != 0 || sp <= u->last_sp)
			return DWARF_CB_ABORT;
		u->last_sp = sp;
	}
	u->pcs[u->n_pcs++] = pc;
	return u->n_pcs < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t ecp_unwind_sample(struct ecp_unwinder *u, const uint64_t regs[ECP_UNWIND_NREGS],
			 const uint8_t *stack, size_t stack_len, uint64_t *pcs, size_t max)
{
	if (!max || !regs[ECP_UNWIND_REG_IP])
		return 0;
	sync_objects(u);
	if (!u->attached) {
		pcs[0] = regs[ECP_UNWIND_REG_IP];
		return 1;
	}
	u->regs = regs;
	u->stack = stack;
	u->stack_len = stack ? stack_len : 0;
	u->pcs = pcs;
	u->max = max;
	u->n_pcs = 0;
	u->last_sp = regs[ECP_UNWIND_REG_SP];
	/* Its result is not needed: the end of the walk, an unreadable frame
	 * and an aborted callback all leave the frames found so far. */
	dwfl_getthread_frames(u->dwfl, 1, frame_callback, u);
	if (!u->n_pcs) {
		pcs[0] = regs[ECP_UNWIND_REG_IP];
		u->n_pcs = 1;
	}
	u->regs = NULL;
	u->stack = NULL;
	return u->n_pcs;
}

/* ------------------------------------------------------------- functions */

static bool is_function(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* The function symbol covering addr: sized and covering it, or (hand-written
 * assembly) unsized, when *sized is then false. */
static const char *covering_symbol(Dwfl_Module *mod, uint64_t addr, uint64_t *start,
				   bool *sized)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name || !is_function(&sym) || (sym.st_size && off >= sym.st_size))
		return NULL;
	*start = addr - off;
	*sized = sym.st_size != 0;
	return name;
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
		if (dwarf_frame_register(frame, callee_saved[i], ops_mem, &ops, &nops) != 0 ||
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
	uint64_t start = addr, fde = 0;
	bool sized = false, has_fde;
	*named = false;
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, addr);
	if (!mod)
		return addr;
	bool has_sym = covering_symbol(mod, addr, &start, &sized) != NULL;
	/* an unsized symbol may lie far below addr, past whole functions
	 * that the CFI still tells apart */
	if (has_sym && sized)
		goto named;
	has_fde = fde_start(mod, addr, &fde);
	if (has_fde && (!has_sym || fde > start))
		return fde;
	if (!has_sym)
		return addr;
named:
	*named = true;
	return start;
}

uint64_t ecp_unwinder_function_start(struct ecp_unwinder *u, uint64_t addr, bool *named)
{
	sync_objects(u);
	if (!u->starts)
		u->starts = calloc(START_CACHE_SIZE, sizeof(*u->starts));
	bool is_named;
	uint64_t start;
	/* Fibonacci hashing spreads nearby addresses over the table */
	struct start_entry *e =
		u->starts ? &u->starts[(addr * 0x9e3779b97f4a7c15ull) >> (64 - START_CACHE_BITS)] : NULL;
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
	uint64_t s = 0;
	bool sized;
	sync_objects(u);
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, addr);
	const char *name = mod ? covering_symbol(mod, addr, &s, &sized) : NULL;
	if (name && start)
		*start = s;
	return name;
}
