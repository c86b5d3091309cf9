/* SPDX-License-Identifier: MIT */
#include "simulator/symbols/symbols.h"
#include "common/hmap.h"
#include "common/open-regular.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simulator/symbols/omp-names.h"
#include "simulator/symbols/plt.h"
#include "simulator/symbols/unwind.h"

struct sym {
	uint64_t value, size;
	char *name;
};

struct object {
	uint64_t baddr, memsz;
	char *path;
	char *file;  /* what to read: a copy kept in the trace, else path */
	bool loaded; /* symbol table read (or found unreadable) */
	uint64_t first_vaddr;
	struct sym *syms; /* sorted by value */
	size_t n_syms;
	uint64_t seq;      /* registration order: later wins on overlap */
	char problem[160]; /* why no symbols could be read, "" if they could */
};

struct ecp_symbols {
	struct object *objs;
	size_t n, cap;
	/* libdwfl's view of the same objects, opened at the first address
	 * that the objects' own symbol tables do not name */
	struct ecp_unwinder *dw_names;
	/* names of inlined functions by their address (ECP_INLINED_FUNCTION) */
	struct ecp_hmap inlined;
	char **inlined_names;
	size_t n_inlined, cap_inlined;
};

struct ecp_symbols *ecp_symbols_create(void)
{
	struct ecp_symbols *syms = calloc(1, sizeof(struct ecp_symbols));
	if (syms)
		ecp_hmap_init(&syms->inlined);
	return syms;
}

int ecp_symbols_add_inlined(struct ecp_symbols *syms, uint64_t addr, const char *name)
{
	if (ecp_hmap_get(&syms->inlined, addr))
		return 0;
	if (syms->n_inlined == syms->cap_inlined) {
		size_t cap = syms->cap_inlined ? 2 * syms->cap_inlined : 16;
		char **p = realloc(syms->inlined_names, cap * sizeof(*p));
		if (!p)
			return ECP_ERR_NOMEM;
		syms->inlined_names = p;
		syms->cap_inlined = cap;
	}
	char *copy = strdup(name);
	if (!copy || ecp_hmap_put(&syms->inlined, addr, syms->n_inlined) < 0) {
		free(copy);
		return ECP_ERR_NOMEM;
	}
	syms->inlined_names[syms->n_inlined++] = copy;
	return 0;
}

void ecp_symbols_destroy(struct ecp_symbols *syms)
{
	if (!syms)
		return;
	for (size_t i = 0; i < syms->n; i++) {
		for (size_t k = 0; k < syms->objs[i].n_syms; k++)
			free(syms->objs[i].syms[k].name);
		free(syms->objs[i].syms);
		free(syms->objs[i].path);
		free(syms->objs[i].file);
	}
	free(syms->objs);
	ecp_unwinder_destroy(syms->dw_names);
	for (size_t i = 0; i < syms->n_inlined; i++)
		free(syms->inlined_names[i]);
	free(syms->inlined_names);
	ecp_hmap_finish(&syms->inlined);
	free(syms);
}

int ecp_symbols_add_object(struct ecp_symbols *syms, uint64_t baddr, uint64_t memsz,
			   const char *path)
{
	return ecp_symbols_add_object_copy(syms, baddr, memsz, path, NULL);
}

int ecp_symbols_add_object_copy(struct ecp_symbols *syms, uint64_t baddr, uint64_t memsz,
				const char *path, const char *copy)
{
	for (size_t i = 0; i < syms->n; i++)
		if (syms->objs[i].baddr == baddr && syms->objs[i].memsz == memsz &&
		    !strcmp(syms->objs[i].path, path))
			return 0; /* listed twice (statedump and dlopen) */
	if (syms->n == syms->cap) {
		size_t cap = syms->cap ? syms->cap * 2 : 16;
		struct object *o = realloc(syms->objs, cap * sizeof(*o));
		if (!o)
			return ECP_ERR_NOMEM;
		syms->objs = o;
		syms->cap = cap;
	}
	struct object *o = &syms->objs[syms->n];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path ? path : "");
	o->file = copy ? strdup(copy) : NULL;
	if (!o->path || (copy && !o->file)) {
		free(o->path);
		free(o->file);
		return ECP_ERR_NOMEM;
	}
	o->baddr = baddr;
	o->memsz = memsz;
	o->seq = syms->n;
	syms->n++;
	if (syms->dw_names)
		return ecp_unwinder_add_object(syms->dw_names, baddr, memsz, o->path,
					       copy);
	return 0;
}

/* ------------------------------------------------------------ demangling */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static cxa_demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

/* libstdc++ is loaded only to demangle, so ecp itself stays a C program and
 * works (with mangled names) where libstdc++ is absent. */
static void load_demangler(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		*(void **)&demangler = dlsym(h, "__cxa_demangle");
}

char *ecp_demangle(const char *sym)
{
	if (strncmp(sym, "_Z", 2) != 0)
		return NULL;
	pthread_once(&demangler_once, load_demangler);
	if (!demangler)
		return NULL;
	int status = 0;
	char *out = demangler(sym, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* ----------------------------------------------------------------- ELF */

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* prefer the sized symbol, then the shorter (unversioned) name */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return (int)(strlen(x->name) - strlen(y->name));
}

static void read_table(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct object *o)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t count = sh->sh_size / sh->sh_entsize;
	struct sym *syms = realloc(o->syms, (o->n_syms + count) * sizeof(*syms));
	if (!syms)
		return;
	o->syms = syms;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		char *copy = strdup(name);
		if (!copy)
			continue;
		o->syms[o->n_syms].value = s.st_value;
		o->syms[o->n_syms].size = s.st_size;
		o->syms[o->n_syms].name = copy;
		o->n_syms++;
	}
}

/* The PLT's stubs as sized symbols ("exp@plt"), so that an address in one
 * is not named after the unsized `_init` before the PLT. */
static void add_plt_stubs(Elf *elf, struct object *o)
{
	struct ecp_plt_stub *stubs;
	size_t n = ecp_plt_stubs(elf, &stubs);
	struct sym *syms = n ? realloc(o->syms, (o->n_syms + n) * sizeof(*syms)) : NULL;
	if (!syms) {
		ecp_plt_free(stubs, n);
		return;
	}
	o->syms = syms;
	for (size_t i = 0; i < n; i++)
		o->syms[o->n_syms++] =
		    (struct sym){stubs[i].addr, stubs[i].size, stubs[i].name};
	free(stubs); /* the names are the symbols' now */
}

static void load_object(struct object *o)
{
	o->loaded = true;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(o->problem, sizeof(o->problem), "libelf is unusable");
		return;
	}
	int fd = ecp_open_regular(o->file ? o->file : o->path, o->file != NULL);
	if (fd < 0) {
		snprintf(o->problem, sizeof(o->problem), "%s",
			 errno == EINVAL || errno == ELOOP ? "not a regular file"
							   : strerror(errno));
		return;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(o->problem, sizeof(o->problem), "not an ELF file (%s)",
			 elf ? "truncated or damaged" : elf_errmsg(-1));
		elf_end(elf);
		close(fd);
		return;
	}
	size_t nph = 0;
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				o->first_vaddr = ph.p_vaddr;
				break;
			}
		}
	}
	Elf_Scn *symtab = NULL, *dynsym = NULL;
	GElf_Shdr symtab_sh, dynsym_sh;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsym_sh = sh;
		}
	}
	if (symtab)
		read_table(elf, symtab, &symtab_sh, o);
	if (!o->n_syms && dynsym)
		read_table(elf, dynsym, &dynsym_sh, o);
	/* A truncated copy still has its ELF header but loses the section
	 * headers, which sit at the end of the file. */
	if (!o->n_syms)
		snprintf(o->problem, sizeof(o->problem), "%s",
			 symtab ? "its symbol table names no function (damaged?)"
			 : dynsym
			     ? "it is stripped (its .dynsym names only what it imports, "
			       "and no debug file was found)"
			     : "no symbol table (truncated, damaged or stripped?)");
	add_plt_stubs(elf, o);
	if (o->n_syms) {
		qsort(o->syms, o->n_syms, sizeof(*o->syms), cmp_sym);
		/* drop aliases at the same address: the first (best) stays */
		size_t w = 0;
		for (size_t i = 0; i < o->n_syms; i++) {
			if (w && o->syms[w - 1].value == o->syms[i].value) {
				free(o->syms[i].name);
				continue;
			}
			o->syms[w++] = o->syms[i];
		}
		o->n_syms = w;
	}
	elf_end(elf);
	close(fd);
}

static const struct sym *lookup(const struct object *o, uint64_t vaddr)
{
	size_t lo = 0, hi = o->n_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *s = &o->syms[lo - 1];
	/* a sized symbol must cover the address; an unsized one (hand-written
	 * assembly) is accepted up to the next symbol */
	if (s->size && vaddr >= s->value + s->size)
		return NULL;
	return s;
}

/* The name libdwfl gives addr, which also looks in the object's separate
 * debug file (build-id, .gnu_debuglink): a stripped object's own tables
 * often lack the function. */
static const char *debug_file_name(struct ecp_symbols *syms, struct object *o,
				   uint64_t addr)
{
	if (!syms->dw_names) {
		syms->dw_names = ecp_unwinder_create();
		for (size_t i = 0; syms->dw_names && i < syms->n; i++) {
			const struct object *k = &syms->objs[i];
			if (ecp_unwinder_add_object(syms->dw_names, k->baddr, k->memsz,
						    k->path, k->file) < 0) {
				ecp_unwinder_destroy(syms->dw_names);
				syms->dw_names = NULL;
			}
		}
		if (!syms->dw_names)
			return NULL;
	}
	const char *name = ecp_unwinder_function_name(syms->dw_names, addr, NULL);
	if (name)
		o->problem[0] = '\0'; /* its names could be read after all */
	return name;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The object mapped over addr; the one registered last when several are. */
static struct object *covering_object(struct ecp_symbols *syms, uint64_t addr)
{
	struct object *best = NULL;
	for (size_t i = 0; syms && i < syms->n; i++) {
		struct object *o = &syms->objs[i];
		if (addr >= o->baddr && addr - o->baddr < o->memsz &&
		    (!best || o->seq > best->seq))
			best = o;
	}
	return best;
}

int ecp_symbols_resolve(struct ecp_symbols *syms, uint64_t addr,
			struct ecp_strings *arena, const char **name, const char **object)
{
	if (ECP_IS_INLINED_FUNCTION(addr)) {
		const uint64_t *i = ecp_hmap_get(&syms->inlined, addr);
		*name = i ? ecp_strings_printf(arena, "%s" ECP_INLINED_MARK,
					       syms->inlined_names[*i])
			  : ecp_strings_printf(arena, "0x%llx" ECP_INLINED_MARK,
					       (unsigned long long)addr);
		*object = ecp_strings_dup(arena, "");
		return *name && *object ? 0 : ECP_ERR_NOMEM;
	}
	if (addr == ECP_UNKNOWN_FUNCTION) {
		*name = ecp_strings_dup(arena, "[unknown]");
		*object = ecp_strings_dup(arena, "");
		return *name && *object ? 0 : ECP_ERR_NOMEM;
	}
	struct object *best = covering_object(syms, addr);
	if (!best) {
		*name = ecp_strings_printf(arena, "0x%llx", (unsigned long long)addr);
		*object = ecp_strings_dup(arena, "");
		return *name && *object ? 0 : ECP_ERR_NOMEM;
	}
	if (!best->loaded)
		load_object(best);
	*object = ecp_strings_dup(arena, best->path);
	uint64_t off = addr - best->baddr;
	const struct sym *s = lookup(best, off + best->first_vaddr);
	const char *dw_name = s ? NULL : debug_file_name(syms, best, addr);
	if (dw_name) {
		/* a debug file's table also lists versioned aliases
		 * ("__libc_start_main@@GLIBC_2.34"): the version is noise here */
		char *plain = strndup(dw_name, strcspn(dw_name, "@"));
		char *dm = plain ? ecp_demangle(plain) : NULL;
		*name = ecp_strings_dup(arena, dm ? dm : plain ? plain : dw_name);
		free(dm);
		free(plain);
	} else if (s) {
		char *dm = ecp_omp_outlined_name(best->file ? best->file : best->path,
						 s->name, s->value);
		if (!dm)
			dm = ecp_demangle(s->name);
		*name = ecp_strings_dup(arena, dm ? dm : s->name);
		free(dm);
	} else {
		*name = ecp_strings_printf(arena, "%s+0x%llx", base_name(best->path),
					   (unsigned long long)off);
	}
	return *name && *object ? 0 : ECP_ERR_NOMEM;
}

size_t ecp_symbols_n_unreadable(const struct ecp_symbols *syms)
{
	size_t n = 0;
	for (size_t i = 0; syms && i < syms->n; i++)
		n += syms->objs[i].loaded && syms->objs[i].problem[0];
	return n;
}

bool ecp_symbols_unreadable(const struct ecp_symbols *syms, size_t k, const char **file,
			    const char **path, const char **why)
{
	for (size_t i = 0; syms && i < syms->n; i++) {
		const struct object *o = &syms->objs[i];
		if (!o->loaded || !o->problem[0] || k--)
			continue;
		*file = o->file ? o->file : o->path;
		*path = o->path;
		*why = o->problem;
		return true;
	}
	return false;
}

int ecp_symbols_locate(struct ecp_symbols *syms, uint64_t addr, const char **file,
		       uint64_t *vaddr, uint64_t *sym_start)
{
	struct object *best = covering_object(syms, addr);
	if (!best)
		return -1;
	if (!best->loaded)
		load_object(best);
	*file = best->file ? best->file : best->path;
	*vaddr = addr - best->baddr + best->first_vaddr;
	const struct sym *s = lookup(best, *vaddr);
	*sym_start = s ? s->value - best->first_vaddr + best->baddr : 0;
	return 0;
}
