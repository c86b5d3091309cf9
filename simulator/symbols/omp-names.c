/* SPDX-License-Identifier: MIT */
#include "simulator/symbols/omp-names.h"
#include "common/open-regular.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simulator/symbols/dwarf-unit.h"
#include "simulator/symbols/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

/* The line of the outlined function's first instruction: GCC gives it the
 * line of the construct's pragma. */
static int source_line(const char *file, uint64_t vaddr, char *where, size_t len)
{
	int fd = ecp_open_regular(file, false), rc = -1;
	Dwarf *dbg;
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *src;
	int lineno = 0;
	if (fd < 0)
		return -1;
	dbg = dwarf_begin(fd, DWARF_C_READ);
	if (dbg && ecp_dwarf_unit_at(dbg, vaddr, &cu) &&
	    (line = dwarf_getsrc_die(&cu, vaddr)) &&
	    (src = dwarf_linesrc(line, NULL, NULL)) && dwarf_lineno(line, &lineno) == 0 &&
	    lineno > 0) {
		const char *base = strrchr(src, '/');
		snprintf(where, len, "%s:%d", base ? base + 1 : src, lineno);
		rc = 0;
	}
	if (dbg)
		dwarf_end(dbg);
	close(fd);
	return rc;
}

/* Naming every call site of a model looks up many addresses in the same
 * few files: the last file's DWARF stays open (the analysis is single-
 * threaded; the handle lives until the process ends). */
static struct {
	char *file;
	int fd;
	Dwarf *dbg;
} last = {NULL, -1, NULL};

int ecp_source_line(const char *file, uint64_t vaddr, char *where, size_t len)
{
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *src;
	int lineno = 0;
	if (!last.file || strcmp(last.file, file)) {
		if (last.dbg)
			dwarf_end(last.dbg);
		if (last.fd >= 0)
			close(last.fd);
		free(last.file);
		last.file = strdup(file);
		last.fd = ecp_open_regular(file, false);
		last.dbg = last.fd >= 0 ? dwarf_begin(last.fd, DWARF_C_READ) : NULL;
	}
	if (!last.dbg || !ecp_dwarf_unit_at(last.dbg, vaddr, &cu) ||
	    !(line = dwarf_getsrc_die(&cu, vaddr)) ||
	    !(src = dwarf_linesrc(line, NULL, NULL)) ||
	    dwarf_lineno(line, &lineno) != 0 || lineno <= 0)
		return -1;
	const char *base = strrchr(src, '/');
	snprintf(where, len, "%s:%d", base ? base + 1 : src, lineno);
	return 0;
}

/* clang names what it outlines `.omp_outlined.` (`.omp_outlined._debug__`
 * under -g, `.omp_outlined..N` for the next ones of a unit) and a task's
 * body `.omp_task_entry.`: the enclosing function is not in the name. */
static bool clang_outlined(const char *sym)
{
	return !strncmp(sym, ".omp_outlined.", 14) ||
	       !strncmp(sym, ".omp_task_entry.", 16);
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The function of the unit `cu`, in source file `src`, that encloses line
 * `lineno`: the one declared last before it (C functions do not nest).
 * libdw names no declaration file for a DWARF 5 unit's own functions (file
 * 0): those are the unit's file. */
static char *enclosing_function(Dwarf_Die *cu, const char *src, int lineno)
{
	Dwarf_Die die;
	const char *best = NULL, *name, *file, *unit = dwarf_diename(cu);
	int best_line = 0, line;
	if (dwarf_child(cu, &die) != 0)
		return NULL;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram ||
		    !dwarf_hasattr(&die, DW_AT_low_pc) || !(name = dwarf_diename(&die)) ||
		    clang_outlined(name) || dwarf_decl_line(&die, &line) != 0 ||
		    line > lineno || line <= best_line)
			continue;
		file = dwarf_decl_file(&die);
		if (file ? strcmp(file, src) != 0
			 : !unit || strcmp(base_of(unit), base_of(src)) != 0)
			continue;
		best = name;
		best_line = line;
	} while (dwarf_siblingof(&die, &die) == 0);
	if (!best)
		return NULL;
	char *dm = ecp_demangle(best);
	return dm ? dm : strdup(best);
}

static char *clang_outlined_name(const char *file, uint64_t vaddr)
{
	int fd = ecp_open_regular(file, false), lineno = 0;
	Dwarf *dbg;
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *src;
	char *fn = NULL, *out = NULL;
	if (fd < 0)
		return NULL;
	dbg = dwarf_begin(fd, DWARF_C_READ);
	if (dbg && ecp_dwarf_unit_at(dbg, vaddr, &cu) &&
	    (line = dwarf_getsrc_die(&cu, vaddr)) &&
	    (src = dwarf_linesrc(line, NULL, NULL)) && dwarf_lineno(line, &lineno) == 0 &&
	    lineno > 0 && (fn = enclosing_function(&cu, src, lineno))) {
		if (asprintf(&out, "%s@%s:%d", fn, base_of(src), lineno) < 0)
			out = NULL;
	}
	free(fn);
	if (dbg)
		dwarf_end(dbg);
	close(fd);
	return out;
}

char *ecp_omp_outlined_name(const char *file, const char *sym, uint64_t vaddr)
{
	const char *tag = strstr(sym, "._omp_fn.");
	char where[256], *out = NULL, *dm, *outer;
	if (file && clang_outlined(sym))
		return clang_outlined_name(file, vaddr);
	if (!tag || tag == sym || !file ||
	    source_line(file, vaddr, where, sizeof(where)) < 0)
		return NULL;
	outer = strndup(sym, (size_t)(tag - sym));
	if (!outer)
		return NULL;
	dm = ecp_demangle(outer);
	if (asprintf(&out, "%s@%s", dm ? dm : outer, where) < 0)
		out = NULL;
	free(dm);
	free(outer);
	return out;
}
