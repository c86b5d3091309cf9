/* SPDX-License-Identifier: MIT */
#include "common/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

int ecp_parse_u64(const char *s, uint64_t *out)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int ecp_parse_duration_ns(const char *s, uint64_t *out)
{
	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	double scale;
	if (!*end || !strcmp(end, "ns"))
		scale = 1;
	else if (!strcmp(end, "us"))
		scale = 1e3;
	else if (!strcmp(end, "ms"))
		scale = 1e6;
	else if (!strcmp(end, "s"))
		scale = 1e9;
	else
		return -1;
	double ns = v * scale;
	if (!isfinite(ns) || ns > 1.8e19)
		return -1;
	*out = (uint64_t)llround(ns);
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

static int parse_proc_value(const char *s, const char *end, unsigned min, unsigned max,
			    unsigned *out)
{
	if (s == end || (size_t)(end - s) > 9)
		return -1;
	unsigned v = 0;
	for (const char *p = s; p < end; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A list of values in [min, max] (ranges, commas), sorted, without
 * repeats; `what` names it in errors. */
static int parse_list(const char *s, unsigned min, unsigned max, const char *what,
		      const char *examples, unsigned **out, size_t *n,
		      struct ecp_error *err)
{
	*out = NULL;
	*n = 0;
	if (!s || !*s)
		return ecp_error_set(err, ECP_ERR_USAGE, "empty %s", what);
	size_t cap = 16, len = 0;
	unsigned *vals = malloc(cap * sizeof(*vals));
	if (!vals)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	const char *p = s;
	while (*p) {
		const char *comma = strchr(p, ',');
		const char *item_end = comma ? comma : p + strlen(p);
		const char *dash = memchr(p, '-', (size_t)(item_end - p));
		unsigned lo, hi;
		if (dash) {
			if (parse_proc_value(p, dash, min, max, &lo) < 0 ||
			    parse_proc_value(dash + 1, item_end, min, max, &hi) < 0 ||
			    hi < lo)
				goto bad;
		} else {
			if (parse_proc_value(p, item_end, min, max, &lo) < 0)
				goto bad;
			hi = lo;
		}
		for (unsigned v = lo; v <= hi; v++) {
			if (len == cap) {
				cap *= 2;
				unsigned *nv = realloc(vals, cap * sizeof(*nv));
				if (!nv) {
					free(vals);
					return ecp_error_set(err, ECP_ERR_NOMEM,
							     "out of memory");
				}
				vals = nv;
			}
			vals[len++] = v;
		}
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			goto bad;
	}
	qsort(vals, len, sizeof(*vals), cmp_unsigned);
	size_t w = 0;
	for (size_t i = 0; i < len; i++)
		if (w == 0 || vals[w - 1] != vals[i])
			vals[w++] = vals[i];
	*out = vals;
	*n = w;
	return 0;
bad:
	free(vals);
	return ecp_error_set(err, ECP_ERR_USAGE,
			     "malformed %s '%s' (expected values %u..%u like %s)", what,
			     s, min, max, examples);
}

int ecp_parse_proc_list(const char *s, unsigned max, unsigned **out, size_t *n,
			struct ecp_error *err)
{
	return parse_list(s, 1, max, "processor list", "'1-16' or '1,2,4,8'", out, n,
			  err);
}

int ecp_parse_cpu_list(const char *s, unsigned **out, size_t *n, struct ecp_error *err)
{
	return parse_list(s, 0, CPU_SETSIZE - 1, "CPU list", "'0-1' or '0,2,4'", out, n,
			  err);
}

int ecp_parse_name_pct(const char *s, char **name, double *pct, struct ecp_error *err)
{
	const char *eq = s ? strrchr(s, '=') : NULL;
	if (!eq || eq == s || !eq[1])
		return ecp_error_set(
		    err, ECP_ERR_USAGE,
		    "malformed --faster '%s' (expected NAME=PCT, e.g. parse=20%%)",
		    s ? s : "");
	char *end;
	errno = 0;
	double v = strtod(eq + 1, &end);
	if (errno || end == eq + 1 || (*end && strcmp(end, "%")) || !(v > 0) ||
	    !(v < 100))
		return ecp_error_set(
		    err, ECP_ERR_USAGE,
		    "malformed --faster '%s': PCT must be a number in (0, 100)", s);
	*name = strndup(s, (size_t)(eq - s));
	if (!*name)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	*pct = v;
	return 0;
}

int ecp_env_knob_u64(const char *name, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *v = getenv(name);
	uint64_t n;
	if (!v || ecp_parse_u64(v, &n) < 0 || n < min || n > max)
		return 0;
	*out = n;
	return 1;
}
