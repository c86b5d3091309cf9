/* SPDX-License-Identifier: MIT */
#include "common/units.h"

#include <math.h>
#include <stdio.h>

char *ecp_format_ns(char *buf, size_t len, double ns)
{
	double a = fabs(ns);
	if (a < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}
