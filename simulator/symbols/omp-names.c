/* SPDX-License-Identifier: MIT */
#include "simulator/symbols/omp-names.h"
#include "common/open-regular.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simulator/symbols/dwarf-unit.h"
#include "simulator/symbols/symbols.h"

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

char *ecp_omp_outlined_name(const char *file, const char *sym, uint64_t vaddr)
{
	const char *tag = strstr(sym, "._omp_fn.");
	char where[256], *out = NULL, *dm, *outer;
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
