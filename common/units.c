/* SPDX-License-Identifier: MIT */
#include "common/units.h"

#include <inttypes.h>
#include <stdio.h>

#include "common/time-round.h"

char *ecp_format_ns(char *buf, size_t len, double ns)
{
	/* the integer ns every other output prints (common/time-round.h)
	 * first: "%.0f" rounded halves to even, so a table said 2 ns where the
	 * JSON of the same answer said 3 */
	int64_t n = ecp_round_ns(ns);
	double a = n < 0 ? -(double)n : (double)n;
	if (a < 1e3)
		snprintf(buf, len, "%" PRId64 " ns", n);
	else if (a < 1e6)
		snprintf(buf, len, "%.3g us", (double)n / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.3g ms", (double)n / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)n / 1e9);
	return buf;
}
