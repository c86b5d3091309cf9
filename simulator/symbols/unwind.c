/* SPDX-License-Identifier: MIT */
#include "simulator/symbols/unwind.h"
#include "common/open-regular.h"

#include <asm/perf_regs.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "simulator/symbols/unwind-internal.h"

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
	for (size_t i = 0; i < u->n; i++) {
		ecp_unwinder_forget_functions(u, &u->objs[i]);
		free(u->objs[i].path);
		free(u->objs[i].file);
	}
	dwfl_end(u->dwfl);
	free(u->starts);
	elf_end(u->arch_elf);
	if (u->arch_fd >= 0)
		close(u->arch_fd);
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
	int fd = ecp_open_regular(o->file, false);
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
	void **userdata = NULL;
	dwfl_module_info(o->mod, &userdata, &o->low, &o->high, NULL, NULL, NULL, NULL);
	*userdata = (void *)(uintptr_t)(o - u->objs + 1);
}

struct object *ecp_unwinder_object_of(struct ecp_unwinder *u, Dwfl_Module *mod)
{
	void **userdata = NULL;
	if (!mod || !dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
		return NULL;
	uintptr_t k = (uintptr_t)*userdata;
	return k && k <= u->n && u->objs[k - 1].mod == mod ? &u->objs[k - 1] : NULL;
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
void ecp_unwinder_sync(struct ecp_unwinder *u)
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
			ecp_unwinder_forget_functions(u, o);
			o->mod = NULL;
			continue;
		}
		if (!o->tried)
			report_object(u, o);
		else if (drop && o->mod)
			o->mod = dwfl_report_module(u->dwfl, o->path, o->low, o->high);
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	/* addresses outside every object may be inside a new one */
	ecp_unwinder_forget_functions(u, NULL);
	if (!u->attached && u->arch_elf)
		u->attached =
		    dwfl_attach_state(u->dwfl, u->arch_elf, 1, &sample_callbacks, u);
}

/* ------------------------------------------------------------- unwinding */

/* perf's number of each DWARF register */
static const int perf_reg_of_dwarf[ECP_UNWIND_NREGS] = {
    PERF_REG_X86_AX,  PERF_REG_X86_DX,  PERF_REG_X86_CX,  PERF_REG_X86_BX,
    PERF_REG_X86_SI,  PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,
    PERF_REG_X86_R8,  PERF_REG_X86_R9,  PERF_REG_X86_R10, PERF_REG_X86_R11,
    PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
    PERF_REG_X86_IP,
};

uint64_t ecp_unwind_perf_regs_mask(void)
{
	uint64_t mask = 0;
	for (int r = 0; r < ECP_UNWIND_NREGS; r++)
		mask |= 1ull << perf_reg_of_dwarf[r];
	return mask;
}

bool ecp_unwind_regs_from_perf(uint64_t mask, const uint64_t *vals, size_t n,
			       uint64_t regs[ECP_UNWIND_NREGS])
{
	for (int r = 0; r < ECP_UNWIND_NREGS; r++) {
		uint64_t bit = 1ull << perf_reg_of_dwarf[r];
		/* the value's index: how many registers perf wrote before it */
		size_t k = (size_t)__builtin_popcountll(mask & (bit - 1));
		if (!(mask & bit) || k >= n)
			return false;
		regs[r] = vals[k];
	}
	return true;
}

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
	if (addr < sp || addr - sp > SIZE_MAX - sizeof(*result))
		return false;
	if (u->lazy) {
		int64_t have =
		    ecp_cobs_cursor_reach(u->lazy, addr - sp + sizeof(*result));
		if (have < 0)
			return false;
		u->stack_len = (size_t)have;
	}
	if (addr - sp > u->stack_len || u->stack_len - (addr - sp) < sizeof(*result))
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
		if (dwfl_frame_reg(frame, ECP_UNWIND_REG_SP, &sp) != 0 ||
		    sp <= u->last_sp)
			return DWARF_CB_ABORT;
		u->last_sp = sp;
	}
	u->pcs[u->n_pcs++] = pc;
	return u->n_pcs < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Walks the sample whose stack u->stack, u->stack_len and u->lazy say. */
static size_t walk(struct ecp_unwinder *u, const uint64_t regs[ECP_UNWIND_NREGS],
		   uint64_t *pcs, size_t max)
{
	if (!max || !regs[ECP_UNWIND_REG_IP])
		return 0;
	ecp_unwinder_sync(u);
	if (!u->attached) {
		pcs[0] = regs[ECP_UNWIND_REG_IP];
		return 1;
	}
	u->regs = regs;
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
	return u->n_pcs;
}

size_t ecp_unwind_sample(struct ecp_unwinder *u, const uint64_t regs[ECP_UNWIND_NREGS],
			 const uint8_t *stack, size_t stack_len, uint64_t *pcs,
			 size_t max)
{
	u->stack = stack;
	u->stack_len = stack ? stack_len : 0;
	u->lazy = NULL;
	size_t n = walk(u, regs, pcs, max);
	u->stack = NULL;
	return n;
}

size_t ecp_unwind_sample_cobs(struct ecp_unwinder *u,
			      const uint64_t regs[ECP_UNWIND_NREGS],
			      struct ecp_cobs_cursor *stack, uint64_t *pcs, size_t max)
{
	u->stack = stack->out;
	u->stack_len = stack->o;
	u->lazy = stack;
	size_t n = walk(u, regs, pcs, max);
	u->stack = NULL;
	u->lazy = NULL;
	return n;
}
