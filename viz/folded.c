/* SPDX-License-Identifier: MIT */
#include "viz/folded.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/time-round.h"

struct line {
	char *stack;
	double ns;
};

static char *join_frames(const struct ecp_folded_stack *s)
{
	size_t len = 0;
	for (size_t i = 0; i < s->depth; i++)
		len += strlen(s->frames[i] ? s->frames[i] : "[unknown]") + 1;
	char *out = malloc(len + 1);
	if (!out)
		return NULL;
	char *p = out;
	for (size_t i = 0; i < s->depth; i++) {
		const char *f = s->frames[i] ? s->frames[i] : "[unknown]";
		if (i)
			*p++ = ';';
		for (; *f; f++) {
			unsigned char c = (unsigned char)*f;
			*p++ = c == ';' ? ':' : (c < 0x20 || c == 0x7F) ? '?' : (char)c;
		}
	}
	*p = '\0';
	return out;
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->stack, ((const struct line *)b)->stack);
}

int ecp_folded_write(FILE *out, const struct ecp_folded_stack *stacks, size_t count,
		     struct ecp_folded_result *result, struct ecp_error *err)
{
	struct ecp_folded_result res = {0};
	struct line *lines = count ? calloc(count, sizeof(*lines)) : NULL;
	size_t n = 0;
	int rc = ECP_OK;
	if (count && !lines)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory folding %zu stacks", count);
	for (size_t i = 0; i < count; i++) {
		if (stacks[i].depth == 0) {
			rc = ecp_error_set(err, ECP_ERR_USAGE,
					   "folded stack #%zu is empty", i);
			goto out;
		}
		lines[n].stack = join_frames(&stacks[i]);
		if (!lines[n].stack) {
			rc = ecp_error_set(err, ECP_ERR_NOMEM,
					   "out of memory folding stacks");
			goto out;
		}
		lines[n++].ns = stacks[i].weighted_ns;
	}
	if (n > 1)
		qsort(lines, n, sizeof(*lines), by_stack);
	for (size_t i = 0; i < n;) {
		double sum = 0;
		size_t j = i;
		for (; j < n && strcmp(lines[j].stack, lines[i].stack) == 0; j++)
			sum += lines[j].ns;
		int64_t v = isfinite(sum) ? ecp_round_ns(sum) : 0;
		if (v > 0) {
			fprintf(out, "%s %" PRId64 "\n", lines[i].stack, v);
			res.lines++;
		} else if (v < 0) {
			res.negative++;
			res.negative_ns += sum;
		}
		i = j;
	}
	if (fflush(out) != 0 || ferror(out))
		rc = ecp_error_set(err, ECP_ERR_IO, "failed to write folded stacks");
out:
	for (size_t i = 0; i < n; i++)
		free(lines[i].stack);
	free(lines);
	if (result)
		*result = res;
	return rc;
}
