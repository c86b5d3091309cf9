/* SPDX-License-Identifier: MIT */
/* The compilation unit that holds an address, with or without
 * .debug_aranges: dwarf_addrdie reads that table, which clang does not write
 * unless asked (-gdwarf-aranges); without it the units' own address ranges
 * are looked at, one unit after another. */
#ifndef ECP_SIMULATOR_DWARF_UNIT_H
#define ECP_SIMULATOR_DWARF_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>

bool ecp_dwarf_unit_at(Dwarf *dbg, uint64_t vaddr, Dwarf_Die *cu);

#endif
