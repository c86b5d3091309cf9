/* SPDX-License-Identifier: MIT */
/* Finding the functions a user names (`ecp whatif --faster NAME=PCT`):
 * a C++ function's demangled name is a whole signature, 150 characters for
 * a template or a lambda, which nobody types.  In order, NAME is
 *
 *  1. a function's exact name (every function of that name: another object,
 *     another call site with --by callsite, its inlined copies "f [inlined]");
 *  2. a glob (it has * ? or [): every function whose name, or whose name
 *     without its parameter list, matches -- `'std::*'`, `'parse*'`;
 *  3. a name without its parameter list, or its last qualified parts:
 *     `parse` or `Lexer::parse` for `ns::Lexer::parse(char const*) const`;
 *  4. a part of one name: `detect_rep` for `detect_replays(...)`.
 *
 * Steps 3 and 4 must find one name (the functions of that one name); more
 * than one is ambiguous and says which, never a guess. */
#ifndef ECP_SIMULATOR_FUNCTION_MATCH_H
#define ECP_SIMULATOR_FUNCTION_MATCH_H

#include <stddef.h>

#include "simulator/model/model.h"

enum ecp_match_kind {
	ECP_MATCH_NONE = 0,
	ECP_MATCH_EXACT,
	ECP_MATCH_GLOB,
	ECP_MATCH_BASE,
	ECP_MATCH_PART,
	ECP_MATCH_AMBIGUOUS, /* ids: one function of each candidate name */
};

struct ecp_function_match {
	enum ecp_match_kind kind;
	ecp_id *ids;
	size_t n;
};

/* Returns 0, or -1 when out of memory. */
int ecp_match_functions(const struct ecp_model *m, const char *pattern,
			struct ecp_function_match *out);
void ecp_function_match_free(struct ecp_function_match *match);

/* The length of `name` without its parameter list (and what follows it:
 * " const", a call site's " <- caller"): "ns::f<int>(int) const" -> 10. */
size_t ecp_function_base_len(const char *name);

#endif
