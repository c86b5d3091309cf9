/* SPDX-License-Identifier: MIT */
/* Functions the compiler inlined at an address, from the DWARF of the
 * object that holds it (its own .debug_info or the separate debug file
 * libdwfl finds), as `perf report --inline` shows them: the
 * DW_TAG_inlined_subroutine scopes around the address, innermost first.
 * Sampling alone otherwise sees only the function they were inlined into
 * (issue 34: every stage of an -O2 C++ pool was "worker").
 *
 * Only functions the programmer wrote as functions are shown: ones the
 * compiler chose to inline (DW_AT_inline DW_INL_inlined), not marked
 * artificial, outside the system's headers.  What was declared inline (helpers, std::
 * templates, a header's small functions) stays part of the function it is in, as an
 * instrumented build (-finstrument-functions-exclude-file-list=/usr/include)
 * and perf's own self times count it. */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "simulator/symbols/dwarf-unit.h"
#include "simulator/symbols/symbols.h"
#include "simulator/symbols/unwind-internal.h"

/* The name of an inlined instance: its abstract origin's, demangled from
 * the linkage name when there is one (C++), else DW_AT_name. */
static char *origin_name(Dwarf_Die *scope)
{
	Dwarf_Attribute attr;
	const char *linkage = dwarf_formstring(
	    dwarf_attr_integrate(scope, DW_AT_linkage_name, &attr)
		? &attr
		: dwarf_attr_integrate(scope, DW_AT_MIPS_linkage_name, &attr));
	if (linkage) {
		char *dm = ecp_demangle(linkage);
		if (dm)
			return dm;
	}
	const char *name = dwarf_diename(scope);
	return name ? strdup(name) : NULL;
}

/* The abstract origin of an inlined instance (the function as written). */
static bool origin_of(Dwarf_Die *scope, Dwarf_Die *origin)
{
	Dwarf_Attribute attr;
	return dwarf_attr(scope, DW_AT_abstract_origin, &attr) &&
	       dwarf_formref_die(&attr, origin);
}

/* Whether the function was written as one: not declared inline (GCC says;
 * clang does not), not marked artificial (__attribute__((artificial)): a
 * helper to be taken as part of where it is inlined, as intrinsics are),
 * not from the system's headers. */
static bool written_as_function(Dwarf_Die *origin)
{
	Dwarf_Attribute attr;
	Dwarf_Word how = DW_INL_inlined;
	if (dwarf_hasattr_integrate(origin, DW_AT_artificial))
		return false;
	if (dwarf_attr_integrate(origin, DW_AT_inline, &attr))
		dwarf_formudata(&attr, &how);
	if (how != DW_INL_inlined)
		return false;
	const char *file = dwarf_decl_file(origin);
	return !file || strncmp(file, "/usr/", 5);
}

/* A key for the abstract origin: the object and the origin's DIE offset. */
static uint64_t origin_key(const struct ecp_unwinder *u, const struct object *o,
			   Dwarf_Die *origin)
{
	return ((uint64_t)(o - u->objs) + 1) << 40 |
	       (dwarf_dieoffset(origin) & ((1ull << 40) - 1));
}

size_t ecp_unwinder_inlined_at(struct ecp_unwinder *u, uint64_t addr,
			       struct ecp_inlined *out, size_t max)
{
	ecp_unwinder_sync(u);
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, addr);
	struct object *o = ecp_unwinder_object_of(u, mod);
	Dwarf_Addr bias = 0;
	Dwarf_Die unit, *cu = o ? dwfl_module_addrdie(mod, addr, &bias) : NULL;
	if (o && !cu) { /* no .debug_aranges (clang) */
		Dwarf *dbg = dwfl_module_getdwarf(mod, &bias);
		cu = ecp_dwarf_unit_at(dbg, addr - bias, &unit) ? &unit : NULL;
	}
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	/* dwarf_getscopes follows the innermost inlined instance into its
	 * abstract origin's own scopes; the instances it sits in (a stage
	 * inlined into a worker, around the std:: code inlined into it) come
	 * from the concrete tree, as eu-addr2line -i finds them */
	int first = 0;
	while (first < n && dwarf_tag(&scopes[first]) != DW_TAG_inlined_subroutine)
		first++;
	int m = first < n ? dwarf_getscopes_die(&scopes[first], &chain) : 0;
	size_t k = 0;
	for (int i = 0; i < m && k < max; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag == DW_TAG_subprogram)
			break; /* the function they were inlined into */
		Dwarf_Die origin;
		if (tag != DW_TAG_inlined_subroutine || !origin_of(&chain[i], &origin) ||
		    !written_as_function(&origin))
			continue; /* a lexical block, or part of what it is in */
		char *name = origin_name(&chain[i]);
		if (!name)
			continue;
		out[k].key = origin_key(u, o, &origin);
		out[k].name = name;
		k++;
	}
	free(chain);
	free(scopes);
	return k;
}
