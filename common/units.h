/* SPDX-License-Identifier: MIT */
/* Human-readable times for tables: "12.3 ms", "850 us", "4.02 s". */
#ifndef ECP_COMMON_UNITS_H
#define ECP_COMMON_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* ns rounded to integer ns by common/time-round.h's rule, then scaled to
 * the unit shown.  Writes at most len bytes; always NUL-terminates; returns
 * buf. */
char *ecp_format_ns(char *buf, size_t len, double ns);

#endif
