/* SPDX-License-Identifier: MIT */
/* Names a user recognises for the functions GCC and clang outline from
 * OpenMP constructs: GCC's `main._omp_fn.0` and clang's `.omp_outlined.`
 * (or a task's `.omp_task_entry.`) are shown as "main@prog.c:61", the
 * enclosing function and the construct's source line read from the
 * object's DWARF (libdw; for clang's, the enclosing function is the one
 * declared last before that line); without debug information the
 * compiler's name stays. */
#ifndef ECP_SIMULATOR_OMP_NAMES_H
#define ECP_SIMULATOR_OMP_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* `sym`: the symbol (already demangled or not), `vaddr` its link-time
 * address in `file`.  Returns a malloc'ed name, or NULL to keep `sym`
 * (not an outlined function, or no line known). */
char *ecp_omp_outlined_name(const char *file, const char *sym, uint64_t vaddr);

/* "file.c:LINE" of the instruction at link-time address vaddr in `file`,
 * from its DWARF line table (libdw); -1 when unknown. */
int ecp_source_line(const char *file, uint64_t vaddr, char *where, size_t len);

#endif
