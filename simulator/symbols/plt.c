/* SPDX-License-Identifier: MIT */
/* PLT stubs named by the GOT slot their jump reads (plt.h).  A stub's
 * jump is `jmp *disp32(%rip)` (ff 25), alone or after the prefixes the
 * linker puts there: bnd (f2) and, with indirect-branch tracking, endbr64
 * (f3 0f 1e fa).  Only those positions are read, so that an immediate
 * elsewhere in a stub (the push of a relocation index) is never taken for
 * a jump. */
#include "simulator/symbols/plt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef R_X86_64_GLOB_DAT
#define R_X86_64_GLOB_DAT 6
#endif
#ifndef R_X86_64_JUMP_SLOT
#define R_X86_64_JUMP_SLOT 7
#endif
#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

struct slot {
	uint64_t got;
	const char *name;  /* in the ELF's string table */
	uint64_t resolver; /* an IRELATIVE slot's (name NULL): the ifunc's resolver */
};

struct slots {
	struct slot *v;
	size_t n, cap;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return x->got < y->got ? -1 : x->got > y->got;
}

static int cmp_stub(const void *a, const void *b)
{
	const struct ecp_plt_stub *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The GOT slots the dynamic linker fills with a named symbol's address,
 * from every RELA section linked to a symbol table. */
static void read_slots(Elf *elf, struct slots *s)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh, symsh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_link)
			continue;
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		Elf_Data *rel = elf_getdata(scn, NULL);
		Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!rel || !syms || !gelf_getshdr(symscn, &symsh) || !sh.sh_entsize)
			continue;
		size_t count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < count; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			if (!gelf_getrela(rel, (int)i, &r))
				continue;
			uint64_t type = GELF_R_TYPE(r.r_info);
			const char *name = NULL;
			if (type == R_X86_64_IRELATIVE) {
				/* a call to the object's own ifunc (libm's exp to
				 * __ieee754_exp): named after the resolver below */
			} else if ((type != R_X86_64_JUMP_SLOT &&
				    type != R_X86_64_GLOB_DAT) ||
				   !GELF_R_SYM(r.r_info) ||
				   !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
				   !(name =
					 elf_strptr(elf, symsh.sh_link, sym.st_name)) ||
				   !*name) {
				continue;
			}
			if (s->n == s->cap) {
				size_t cap = s->cap ? 2 * s->cap : 64;
				struct slot *v = realloc(s->v, cap * sizeof(*v));
				if (!v)
					return; /* the stubs named so far stay named */
				s->v = v;
				s->cap = cap;
			}
			s->v[s->n++] =
			    (struct slot){r.r_offset, name, (uint64_t)r.r_addend};
		}
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_slot);
}

/* The name of the ifunc whose resolver is at addr: the symbol tables give
 * an STT_GNU_IFUNC symbol the resolver's address. */
static const char *ifunc_name(Elf *elf, uint64_t addr)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t count = data ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 1; i < count; i++) {
			GElf_Sym sym;
			const char *name;
			if (gelf_getsym(data, (int)i, &sym) && sym.st_value == addr &&
			    GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC &&
			    (name = elf_strptr(elf, sh.sh_link, sym.st_name)) && *name)
				return name;
		}
	}
	return NULL;
}

static const struct slot *slot_at(const struct slots *s, uint64_t got)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo].got == got ? &s->v[lo] : NULL;
}

/* The GOT slot the stub at bytes[0 .. len) (at ELF address addr) jumps
 * through; false if its jump is not at one of the linker's positions. */
static bool stub_slot(const uint8_t *bytes, size_t len, uint64_t addr, uint64_t *got)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	size_t at = 0;
	if (len >= 4 && !memcmp(bytes, endbr64, 4))
		at = 4;
	if (at < len && bytes[at] == 0xf2) /* bnd */
		at++;
	if (at + 6 > len || bytes[at] != 0xff || bytes[at + 1] != 0x25)
		return false;
	int32_t disp =
	    (int32_t)((uint32_t)bytes[at + 2] | (uint32_t)bytes[at + 3] << 8 |
		      (uint32_t)bytes[at + 4] << 16 | (uint32_t)bytes[at + 5] << 24);
	*got = addr + at + 6 + (uint64_t)(int64_t)disp;
	return true;
}

static bool is_plt_section(const char *name)
{
	return name && (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
			!strcmp(name, ".plt.got"));
}

/* A stub's name: its symbol's, an ifunc's (perf's "*ABS*+0x..." when no
 * table names the resolver), else ECP_PLT_UNNAMED; NULL out of memory. */
static char *stub_name(Elf *elf, const struct slot *slot)
{
	char abs[32];
	const char *target = slot ? slot->name : NULL;
	if (slot && !target && !(target = ifunc_name(elf, slot->resolver))) {
		snprintf(abs, sizeof(abs), "*ABS*+0x%" PRIx64, slot->resolver);
		target = abs;
	}
	if (!target)
		return strdup(ECP_PLT_UNNAMED);
	size_t len = strlen(target) + sizeof("@plt");
	char *name = malloc(len);
	if (name)
		snprintf(name, len, "%s@plt", target);
	return name;
}

static bool add_stub(struct ecp_plt_stub **v, size_t *n, size_t *cap, uint64_t addr,
		     uint64_t size, char *name)
{
	if (!name)
		return false;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct ecp_plt_stub *p = realloc(*v, c * sizeof(*p));
		if (!p) {
			free(name);
			return false;
		}
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = (struct ecp_plt_stub){addr, size, name};
	return true;
}

size_t ecp_plt_stubs(Elf *elf, struct ecp_plt_stub **out)
{
	*out = NULL;
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	struct slots slots = {0};
	struct ecp_plt_stub *v = NULL;
	size_t n = 0, cap = 0;
	bool read = false, ok = true;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); ok && scn;
	     scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    !is_plt_section(elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		/* .plt.got's entries are 8 bytes, the others' 16, where the
		 * linker left sh_entsize unset; a damaged copy's other sizes
		 * (a stub per byte) are no PLT */
		uint64_t ent = sh.sh_entsize ? sh.sh_entsize : sh.sh_size % 16 ? 8 : 16;
		if (!data || !data->d_buf || data->d_size < sh.sh_size || ent < 8 ||
		    ent > 32 || ent > sh.sh_size)
			continue;
		if (!read) {
			read_slots(elf, &slots);
			read = true;
		}
		const uint8_t *bytes = data->d_buf;
		for (uint64_t off = 0; ok && off + ent <= sh.sh_size; off += ent) {
			uint64_t got;
			const struct slot *slot =
			    stub_slot(bytes + off, ent, sh.sh_addr + off, &got)
				? slot_at(&slots, got)
				: NULL;
			ok = add_stub(&v, &n, &cap, sh.sh_addr + off, ent,
				      stub_name(elf, slot));
		}
	}
	free(slots.v);
	if (n)
		qsort(v, n, sizeof(*v), cmp_stub);
	*out = v;
	return n;
}

void ecp_plt_free(struct ecp_plt_stub *stubs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(stubs[i].name);
	free(stubs);
}

bool ecp_plt_is_stub_name(const char *name)
{
	size_t len = name ? strlen(name) : 0;
	return len && (!strcmp(name, ECP_PLT_UNNAMED) ||
		       (len > 4 && !strcmp(name + len - 4, "@plt")));
}
