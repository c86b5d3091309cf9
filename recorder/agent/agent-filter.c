/* SPDX-License-Identifier: MIT */
/* --include/--exclude: which functions of the main executable are recorded.
 *
 * The constructor reads the executable's own symbol table (.symtab, else
 * .dynsym) once, matches every function name against the globs in
 * ECP_INCLUDE / ECP_EXCLUDE (newline-separated) and keeps a sorted array of
 * the run-time addresses whose decision differs from the default.  The
 * default is "record" without --include and "do not record" with it;
 * functions outside the executable (instrumented shared libraries) have no
 * name here and get the default.  The hook then costs one binary search,
 * and nothing when no filter is set. */
#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/agent/agent.h"

static uint64_t *marked; /* sorted run-time addresses differing from default */
static size_t n_marked;
static bool default_excluded;
static bool active;
uint64_t ecp_main_addr;

ECP_AGENT_FN static bool match_any(const char *list, const char *name)
{
	char glob[512];
	while (list && *list) {
		const char *nl = strchr(list, '\n');
		size_t len = nl ? (size_t)(nl - list) : strlen(list);
		if (len && len < sizeof(glob)) {
			memcpy(glob, list, len);
			glob[len] = 0;
			if (fnmatch(glob, name, 0) == 0)
				return true;
		}
		list = nl ? nl + 1 : NULL;
	}
	return false;
}

ECP_AGENT_FN static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1; /* the first object is the executable */
}

ECP_AGENT_FN static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The symbol table section to use: .symtab when present, else .dynsym. */
ECP_AGENT_FN static const Elf64_Shdr *find_symtab(const unsigned char *base, size_t size)
{
	const Elf64_Ehdr *eh = (const void *)base;
	const Elf64_Shdr *sh, *dyn = NULL;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		return NULL;
	sh = (const void *)(base + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB)
			return &sh[i];
		if (sh[i].sh_type == SHT_DYNSYM)
			dyn = &sh[i];
	}
	return dyn;
}

ECP_AGENT_FN int ecp_filter_load(void)
{
	const char *inc = getenv("ECP_INCLUDE"), *exc = getenv("ECP_EXCLUDE");
	uint64_t bias = 0;
	struct stat st;
	int fd, rc = -1;
	unsigned char *base;

	if (inc && !*inc)
		inc = NULL;
	if (exc && !*exc)
		exc = NULL;
	default_excluded = inc != NULL;
	dl_iterate_phdr(first_object, &bias);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -1;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return -1;
	const Elf64_Shdr *symtab = find_symtab(base, (size_t)st.st_size);
	if (symtab && symtab->sh_link < ((const Elf64_Ehdr *)base)->e_shnum) {
		const Elf64_Shdr *shdrs =
		    (const void *)(base + ((const Elf64_Ehdr *)base)->e_shoff);
		const Elf64_Shdr *strs = &shdrs[symtab->sh_link];
		const Elf64_Sym *syms = (const void *)(base + symtab->sh_offset);
		size_t n = symtab->sh_entsize ? symtab->sh_size / symtab->sh_entsize : 0;
		const char *names = (const char *)base + strs->sh_offset;
		if (symtab->sh_offset + symtab->sh_size > (uint64_t)st.st_size ||
		    strs->sh_offset + strs->sh_size > (uint64_t)st.st_size)
			n = 0;
		if ((inc || exc) && n)
			marked = malloc(n * sizeof(*marked));
		for (size_t i = 0; i < n; i++) {
			const Elf64_Sym *s = &syms[i];
			if (ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
			    s->st_shndx == SHN_UNDEF || s->st_name >= strs->sh_size)
				continue;
			const char *name = names + s->st_name;
			uint64_t addr = s->st_value + bias;
			if (strcmp(name, "main") == 0)
				ecp_main_addr = addr;
			if (!marked)
				continue;
			bool excluded = (inc && !match_any(inc, name)) ||
					(exc && match_any(exc, name));
			if (excluded != default_excluded)
				marked[n_marked++] = addr;
		}
		rc = 0;
	}
	munmap(base, (size_t)st.st_size);
	if (marked)
		qsort(marked, n_marked, sizeof(*marked), cmp_u64);
	active = inc || exc;
	return rc;
}

ECP_AGENT_FN bool ecp_filter_excludes(uint64_t addr)
{
	size_t lo = 0, hi = n_marked;
	if (!active)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (marked[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool found = lo < n_marked && marked[lo] == addr;
	return found ? !default_excluded : default_excluded;
}
