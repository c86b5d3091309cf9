/* SPDX-License-Identifier: MIT */
/* `ecp compare --html FILE`: the compare result as viz/html-compare.h's
 * plain data -- the two model curves against P, the factored speedups at N,
 * and the functions' work ratios as bars. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "answers/compare.h"
#include "common/units.h"
#include "viz/html-compare.h"

/* Before/after: both models' T_P; measured: the ideal and inflation-aware. */
static struct ecp_html_compare_point *curve_points(const struct ecp_compare_result *r,
						   size_t *n)
{
	bool measured = r->mode == ECP_COMPARE_MEASURED;
	*n = measured ? r->inflated.n_points : r->n_points;
	struct ecp_html_compare_point *p = calloc(*n ? *n : 1, sizeof(*p));
	for (size_t i = 0; p && i < *n; i++) {
		if (measured) {
			const struct ecp_inflated_point *q = &r->inflated.points[i];
			p[i] = (struct ecp_html_compare_point){
			    q->processors, (double)q->ideal_ns, (double)q->inflated_ns,
			    q->extrapolated};
		} else {
			const struct ecp_compare_point *q = &r->points[i];
			p[i] = (struct ecp_html_compare_point){
			    q->processors, (double)q->makespan_base_ns,
			    (double)q->makespan_other_ns, false};
		}
	}
	return p;
}

static struct ecp_html_compare_bar *function_bars(const struct ecp_compare_result *r,
						  size_t rows, size_t *n)
{
	*n = r->n_functions < rows ? r->n_functions : rows;
	struct ecp_html_compare_bar *b = calloc(*n ? *n : 1, sizeof(*b));
	for (size_t i = 0; b && i < *n; i++)
		b[i] = (struct ecp_html_compare_bar){
		    r->functions[i].name, (double)r->functions[i].work_base_ns,
		    (double)r->functions[i].work_other_ns};
	return b;
}

/* One sentence: what was measured against what each model says. */
static void reading(const struct ecp_compare_result *r, char *buf, size_t len)
{
	char a[40], b[40], c[40];
	if (r->mode != ECP_COMPARE_MEASURED) {
		snprintf(buf, len,
			 "Before/after: the two recordings' predicted speedups "
			 "(BASE solid, OTHER dashed) and each function's work after "
			 "over before.");
		return;
	}
	const struct ecp_inflation *x = &r->inflation;
	snprintf(buf, len,
		 "Measured T_%llu %s; the ideal model predicts %s, the inflation-aware "
		 "one %s.",
		 (unsigned long long)x->cpus,
		 ecp_format_ns(a, sizeof(a), (double)x->tn_ns),
		 ecp_format_ns(b, sizeof(b), (double)x->tn_predicted_ns),
		 ecp_format_ns(c, sizeof(c), (double)r->tn_inflated_ns));
}

int ecp_compare_write_html(FILE *out, const struct ecp_compare_view *v,
			   struct ecp_error *err)
{
	const struct ecp_compare_result *r = v->r;
	bool measured = r->mode == ECP_COMPARE_MEASURED;
	size_t n_points, n_bars;
	struct ecp_html_compare_point *points = curve_points(r, &n_points);
	struct ecp_html_compare_bar *bars = function_bars(r, v->rows, &n_bars);
	char text[400];
	reading(r, text, sizeof(text));
	uint64_t t1 = measured      ? (uint64_t)r->inflation.t1_ns
		      : r->n_points ? r->points[0].makespan_base_ns
				    : 0;
	struct ecp_html_compare page = {
	    .title = r->base->info.program,
	    .base = v->base.dir,
	    .other = v->other.dir,
	    .a_label = measured ? "ideal model" : "BASE (predicted)",
	    .b_label = measured ? "inflation-aware model" : "OTHER (predicted)",
	    .bar_label = measured ? "Work at N over work at 1, per function"
				  : "Work after over before, per function",
	    .t1_ns = (double)t1,
	    .measured = measured,
	    .cpus = (unsigned)r->inflation.cpus,
	    .actual = r->inflation.speedup_actual,
	    .idle_specific = r->inflation.speedup_idle,
	    .inflation_specific = r->inflation.speedup_inflation,
	    .points = points,
	    .n_points = n_points,
	    .bars = bars,
	    .n_bars = n_bars,
	    .reading = text,
	};
	int rc = 0;
	if (!points || !bars)
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	else
		rc = ecp_html_compare_write(out, &page, err);
	free(points);
	free(bars);
	return rc < 0 ? -1 : 0;
}
