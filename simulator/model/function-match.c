/* SPDX-License-Identifier: MIT */
#include "simulator/model/function-match.h"

#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t ecp_function_base_len(const char *name)
{
	const char *site = strstr(name, " <- ");
	size_t len = site ? (size_t)(site - name) : strlen(name);
	/* an inlined copy is the same function: "f [inlined]" is "f" */
	const char *mark = strstr(name, ECP_INLINED_MARK);
	if (mark && (size_t)(mark - name) < len)
		len = (size_t)(mark - name);
	/* the parameter list is the last top-level "(...)"; skip what may
	 * follow it (" const", " &", " volatile") back to its ')' */
	size_t end = len;
	while (end > 0 && name[end - 1] != ')')
		end--;
	/* after the list only qualifiers (" const", " &&"): a ')' followed by
	 * "::f" closes "(anonymous namespace)", and the name has no list */
	if (!end || (end < len && name[end] != ' '))
		return len;
	int depth = 0;
	for (size_t i = end; i-- > 0;) {
		if (name[i] == ')')
			depth++;
		else if (name[i] == '(' && --depth == 0)
			/* "(anonymous namespace)" opens a name, not a list */
			return i > 0 ? i : len;
	}
	return len;
}

static int push(struct ecp_function_match *out, size_t *cap, ecp_id id)
{
	if (out->n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		ecp_id *p = realloc(out->ids, c * sizeof(*p));
		if (!p)
			return -1;
		out->ids = p;
		*cap = c;
	}
	out->ids[out->n++] = id;
	return 0;
}

static bool is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/* The name itself, or its inlined copy ("f [inlined]"). */
static bool exact_or_inlined(const char *name, const char *pattern, size_t plen)
{
	return !strcmp(name, pattern) ||
	       (!strncmp(name, pattern, plen) && !strcmp(name + plen, ECP_INLINED_MARK));
}

/* "parse" or "Lexer::parse" names the base "ns::Lexer::parse". */
static bool base_matches(const char *name, size_t base, const char *pattern, size_t plen)
{
	if (plen > base || strncmp(name + base - plen, pattern, plen))
		return false;
	return plen == base || (base - plen >= 2 && name[base - plen - 1] == ':' &&
				name[base - plen - 2] == ':');
}

static bool glob_matches(const char *name, size_t base, const char *pattern)
{
	if (!fnmatch(pattern, name, 0))
		return true;
	char buf[512];
	if (base >= sizeof(buf))
		return false;
	memcpy(buf, name, base);
	buf[base] = '\0';
	return !fnmatch(pattern, buf, 0);
}

/* The functions of `kind` whose names pass `ok`; with one_name, all must
 * have one name or the match is ambiguous. */
static int collect(const struct ecp_model *m, const char *pattern,
		   enum ecp_match_kind kind, struct ecp_function_match *out)
{
	size_t cap = 0, plen = strlen(pattern);
	const char *first = NULL;
	size_t first_base = 0;
	bool several = false;
	out->n = 0;
	for (ecp_id i = 0; i < m->n_functions; i++) {
		const char *name = m->functions[i].name;
		if (!name)
			continue;
		size_t base = ecp_function_base_len(name);
		bool ok = kind == ECP_MATCH_EXACT  ? exact_or_inlined(name, pattern, plen)
			  : kind == ECP_MATCH_GLOB ? glob_matches(name, base, pattern)
			  : kind == ECP_MATCH_BASE
			      ? base_matches(name, base, pattern, plen)
			      : strstr(name, pattern) != NULL;
		if (!ok)
			continue;
		/* one function under several call sites (--by callsite: "f <-
		 * caller (file:line)") is one name */
		if (kind == ECP_MATCH_BASE || kind == ECP_MATCH_PART) {
			if (!first) {
				first = name;
				first_base = base;
			} else if (first_base != base || strncmp(first, name, base)) {
				several = true;
			}
		}
		if (push(out, &cap, i) < 0)
			return -1;
	}
	out->kind = !out->n ? ECP_MATCH_NONE : several ? ECP_MATCH_AMBIGUOUS : kind;
	if (out->kind == ECP_MATCH_AMBIGUOUS) {
		/* one id per distinct name, for the message */
		size_t w = 0;
		for (size_t r = 0; r < out->n; r++) {
			const char *name = m->functions[out->ids[r]].name;
			size_t base = ecp_function_base_len(name);
			bool seen = false;
			for (size_t k = 0; k < w && !seen; k++) {
				const char *other = m->functions[out->ids[k]].name;
				seen = ecp_function_base_len(other) == base &&
				       !strncmp(other, name, base);
			}
			if (!seen)
				out->ids[w++] = out->ids[r];
		}
		out->n = w;
	}
	return 0;
}

int ecp_match_functions(const struct ecp_model *m, const char *pattern,
			struct ecp_function_match *out)
{
	memset(out, 0, sizeof(*out));
	static const enum ecp_match_kind order[] = {ECP_MATCH_EXACT, ECP_MATCH_GLOB,
						    ECP_MATCH_BASE, ECP_MATCH_PART};
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		if (order[k] == ECP_MATCH_GLOB && !is_glob(pattern))
			continue;
		if (collect(m, pattern, order[k], out) < 0)
			return -1;
		if (out->kind != ECP_MATCH_NONE)
			return 0;
		/* a glob that matches nothing is not taken literally */
		if (order[k] == ECP_MATCH_GLOB)
			return 0;
	}
	return 0;
}

void ecp_function_match_free(struct ecp_function_match *match)
{
	free(match->ids);
	match->ids = NULL;
	match->n = 0;
}
