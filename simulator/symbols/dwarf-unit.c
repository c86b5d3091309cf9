/* SPDX-License-Identifier: MIT */
#include "simulator/symbols/dwarf-unit.h"

bool ecp_dwarf_unit_at(Dwarf *dbg, uint64_t vaddr, Dwarf_Die *cu)
{
	if (!dbg)
		return false;
	if (dwarf_addrdie(dbg, vaddr, cu))
		return true;
	Dwarf_Off off = 0, next;
	size_t header;
	while (dwarf_nextcu(dbg, off, &next, &header, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dbg, off + header, cu) && dwarf_haspc(cu, vaddr) == 1)
			return true;
		off = next;
	}
	return false;
}
