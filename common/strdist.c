/* SPDX-License-Identifier: MIT */
#include "common/strdist.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

static char fold(char c, unsigned flags)
{
	return (flags & ECP_EDIT_IGNORE_CASE) ? (char)tolower((unsigned char)c) : c;
}

size_t ecp_edit_distance(const char *a, const char *b, unsigned flags)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > ECP_EDIT_MAX_LEN || lb > ECP_EDIT_MAX_LEN)
		return SIZE_MAX;
	/* Three rolling rows: the one before the previous is what a
	 * transposition looks back to. */
	size_t rows[3][ECP_EDIT_MAX_LEN + 1];
	size_t *older = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			char x = fold(a[i - 1], flags), y = fold(b[j - 1], flags);
			size_t best = prev[j - 1] + (x != y);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if ((flags & ECP_EDIT_TRANSPOSE) && i > 1 && j > 1 &&
			    x == fold(b[j - 2], flags) && fold(a[i - 2], flags) == y &&
			    older[j - 2] + 1 < best)
				best = older[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = older;
		older = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}
