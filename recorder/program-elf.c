/* SPDX-License-Identifier: MIT */
#include "recorder/program-elf.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The file execvp would run: as given if it has a '/', else on $PATH. */
static bool find_program(const char *program, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	if (strchr(program, '/'))
		return (size_t)snprintf(buf, len, "%s", program) < len;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		if ((size_t)snprintf(buf, len, "%.*s/%s", (int)n, n ? path : ".",
				     program) < len &&
		    access(buf, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

/* Whether the program's dynamic symbol table imports one of `names`. */
static bool imports_any(const char *program, const char *const *names)
{
	char file[PATH_MAX];
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	bool found = false;
	int fd;

	if (!find_program(program, file, sizeof(file)) ||
	    elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize && !found;
		     i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (size_t k = 0; name && names[k] && !found; k++)
				found = !strcmp(name, names[k]);
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

bool ecp_program_uses_dlopen(const char *program)
{
	static const char *const names[] = {"dlopen", "dlmopen", NULL};
	return imports_any(program, names);
}

bool ecp_program_is_instrumented(const char *program)
{
	/* -finstrument-functions makes every function call these; the agent
	 * (or libc's empty default) provides them at run time */
	static const char *const names[] = {"__cyg_profile_func_enter",
					    "__cyg_profile_func_exit", NULL};
	return imports_any(program, names);
}
