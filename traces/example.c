/* SPDX-License-Identifier: MIT */
/* Shared helpers of the example programs: see example.h. */
#include "example.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile uint64_t ex_sink_value;

static EX_NOINSTR bool parse_double(const char *text, double *out)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !isfinite(v))
		return false;
	*out = v;
	return true;
}

EX_NOINSTR bool ex_parse_options(int argc, char **argv, struct ex_options *opts)
{
	opts->scale = 1.0;
	opts->check = false;
	opts->quiet = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
			if (!parse_double(argv[++i], &opts->scale) ||
			    opts->scale <= 0.0 || opts->scale > 100.0) {
				fprintf(
				    stderr,
				    "%s: --scale wants a number in (0, 100], got '%s'\n",
				    argv[0], argv[i]);
				return false;
			}
		} else if (strcmp(argv[i], "--check") == 0) {
			opts->check = true;
		} else if (strcmp(argv[i], "--quiet") == 0) {
			opts->quiet = true;
		} else {
			fprintf(stderr,
				"%s: unknown argument '%s'\nusage: %s [--scale S] "
				"[--check] [--quiet]\n",
				argv[0], argv[i], argv[0]);
			return false;
		}
	}
	return true;
}

EX_NOINSTR double ex_work_factor(const char *name)
{
	const char *list = getenv("ECP_EXAMPLE_FASTER");
	if (list == NULL)
		return 1.0;
	size_t name_len = strlen(name);
	const char *p = list;
	while (*p != '\0') {
		size_t len = strcspn(p, ",");
		size_t key_len = strcspn(p, ",=");
		if (key_len == name_len && strncmp(p, name, name_len) == 0) {
			double pct = 20.0;
			if (key_len < len) {
				/* NAME=PCT, with an optional trailing '%' */
				char buf[32];
				size_t vlen = len - key_len - 1;
				if (vlen > 0 && p[key_len + vlen] == '%')
					vlen--;
				if (vlen == 0 || vlen >= sizeof buf) {
					fprintf(stderr,
						"ECP_EXAMPLE_FASTER: bad entry for %s\n",
						name);
					return 1.0;
				}
				memcpy(buf, p + key_len + 1, vlen);
				buf[vlen] = '\0';
				if (!parse_double(buf, &pct) || pct < 0.0 ||
				    pct >= 100.0) {
					fprintf(
					    stderr,
					    "ECP_EXAMPLE_FASTER: bad percentage for %s\n",
					    name);
					return 1.0;
				}
			}
			return 1.0 - pct / 100.0;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 1.0;
}

EX_NOINSTR uint64_t ex_iters(double units, double factor)
{
	double iters = units * factor * (double)EX_ITERS_PER_UNIT;
	return iters < 1.0 ? 1 : (uint64_t)llround(iters);
}

EX_NOINSTR size_t ex_scaled(size_t base, double scale, size_t min)
{
	double v = (double)base * scale;
	size_t n = v < 1.0 ? 0 : (size_t)llround(v);
	return n < min ? min : n;
}

EX_NOINSTR void ex_check(int status, const char *what)
{
	if (status != 0) {
		fprintf(stderr, "%s failed: %s\n", what, strerror(status));
		exit(1);
	}
}

EX_NOINSTR void ex_check_errno(int ret, const char *what)
{
	if (ret != 0)
		ex_check(errno != 0 ? errno : EINVAL, what);
}

EX_NOINSTR void ex_sem_wait(sem_t *sem)
{
	int ret;
	while ((ret = sem_wait(sem)) != 0 && errno == EINTR)
		;
	ex_check_errno(ret, "sem_wait");
}

EX_NOINSTR void ex_sem_post(sem_t *sem)
{
	ex_check_errno(sem_post(sem), "sem_post");
}
