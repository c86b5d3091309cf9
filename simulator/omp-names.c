#include "simulator/omp-names.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simulator/symbols.h"

#include <elfutils/libdw.h>

/* The line of the outlined function's first instruction: GCC gives it the
 * line of the construct's pragma. */
static int source_line(const char *file, uint64_t vaddr, char *where, size_t len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), rc = -1;
	Dwarf *dbg;
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *src;
	int lineno = 0;
	if (fd < 0)
		return -1;
	dbg = dwarf_begin(fd, DWARF_C_READ);
	if (dbg && dwarf_addrdie(dbg, vaddr, &cu) &&
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
