/* SPDX-License-Identifier: MIT */
/* The HTML page of `ecp compare --html` (issue 36): a speedup plot against
 * P with two model curves (before/after: BASE and OTHER; measured at N: the
 * ideal model and the inflation-aware one) and, measured at N, the factored
 * speedups of the recordings (Acar, Chargueraud and Rainey) as marks at N;
 * then one bar per function, its work at N (or after) over its work at 1
 * (or before).  Plain data in, as the rest of viz/ (the CLI computes). */
#ifndef ECP_VIZ_HTML_COMPARE_H
#define ECP_VIZ_HTML_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"

struct ecp_html_compare_point {
	unsigned processors;
	double a_ns, b_ns; /* T_P of the two curves */
	bool extrapolated; /* drawn apart (measured: beyond N) */
};

struct ecp_html_compare_bar {
	const char *name;
	double before_ns, after_ns; /* work at 1 / at N, or before / after */
};

struct ecp_html_compare {
	const char *title;                                /* the command line compared */
	const char *base, *other;                         /* the trace directories */
	const char *a_label, *b_label;                    /* the two curves */
	const char *bar_label;                            /* "work at N / work at 1" */
	double t1_ns;                                     /* speedups are T_1 / T_P */
	bool measured;                                    /* the marks at N below */
	unsigned cpus;                                    /* N */
	double actual, idle_specific, inflation_specific; /* at N */
	const struct ecp_html_compare_point *points;
	size_t n_points;
	const struct ecp_html_compare_bar *bars; /* in the order shown */
	size_t n_bars;
	const char *reading; /* a paragraph, or NULL */
};

int ecp_html_compare_write(FILE *out, const struct ecp_html_compare *c,
			   struct ecp_error *err);

#endif
