/* SPDX-License-Identifier: MIT */
/* Parsing of command-line values shared by several commands. */
#ifndef ECP_COMMON_PARSE_H
#define ECP_COMMON_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* A strictly decimal unsigned integer; rejects signs, blanks and overflow. */
int ecp_parse_u64(const char *s, uint64_t *out);

/* A tuning knob from the environment: the value of variable `name` when it
 * is a decimal in [min, max] (returns 1), else 0 and *out untouched (a
 * malformed knob keeps the default: it tunes, it is not an input). */
int ecp_env_knob_u64(const char *name, uint64_t min, uint64_t max, uint64_t *out);

/* A duration such as "500", "500ns", "20us", "1.5ms", "2s" into ns. */
int ecp_parse_duration_ns(const char *s, uint64_t *out);

/* A processor list such as "1-16", "1,2,4,8" or "1-4,8,16" into a sorted,
 * de-duplicated array (caller frees).  Every value must be in [1, max]. */
int ecp_parse_proc_list(const char *s, unsigned max, unsigned **out, size_t *n,
			struct ecp_error *err);

/* A CPU list such as "0-1" or "0,2,4" (`ecp record --cpus`), the same way:
 * CPU numbers from 0 to CPU_SETSIZE - 1. */
int ecp_parse_cpu_list(const char *s, unsigned **out, size_t *n, struct ecp_error *err);

/* "NAME=PCT" or "NAME=PCT%" with 0 < PCT < 100, for `ecp whatif --faster`. */
int ecp_parse_name_pct(const char *s, char **name, double *pct, struct ecp_error *err);

#endif
