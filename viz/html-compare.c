/* SPDX-License-Identifier: MIT */
#include "viz/html-compare.h"

#include <math.h>
#include <string.h>

#include "common/units.h"
#include "viz/html-util.h"

#define CW       680.0 /* the speedup chart */
#define CH       380.0
#define ML       60.0
#define MR       170.0 /* the legend */
#define MT       16.0
#define MB       46.0
#define BAR_H    18.0 /* the inflation bars */
#define BAR_W    420.0
#define BAR_LEFT 220.0

static const char style[] =
    "body{font:14px system-ui,sans-serif;margin:18px;color:#1d2430}"
    "h1{font-size:19px}h2{font-size:16px;margin-top:26px}"
    ".note{color:#4f5967;font-size:13px;max-width:860px}"
    "svg text{font-size:12px;fill:#333}.grid{stroke:#e4e7eb}"
    ".axis{stroke:#666}.a{stroke:#2b6cb0;fill:none;stroke-width:2}"
    ".b{stroke:#c05621;fill:none;stroke-width:2;stroke-dasharray:6 3}"
    ".lin{stroke:#999;fill:none;stroke-dasharray:2 3}"
    ".more{fill:#c05621}.less{fill:#2f855a}";

/* The largest speedup any curve or mark reaches, and P's range. */
static void ranges(const struct ecp_html_compare *c, double *ymax, double *pmax)
{
	*ymax = 1.0;
	*pmax = 1.0;
	for (size_t i = 0; i < c->n_points; i++) {
		const struct ecp_html_compare_point *p = &c->points[i];
		double v[3] = {p->processors, c->t1_ns / p->a_ns, c->t1_ns / p->b_ns};
		for (int k = 0; k < 3; k++)
			if (isfinite(v[k]) && v[k] > *ymax)
				*ymax = v[k];
		if (p->processors > *pmax)
			*pmax = p->processors;
	}
	*ymax *= 1.08;
}

static void curve(FILE *out, const struct ecp_html_compare *c,
		  const struct ecp_html_scale *xs, const struct ecp_html_scale *ys,
		  bool second, const char *cls)
{
	fprintf(out, "<polyline class=\"%s\" points=\"", cls);
	for (size_t i = 0; i < c->n_points; i++) {
		const struct ecp_html_compare_point *p = &c->points[i];
		double t = second ? p->b_ns : p->a_ns;
		if (t > 0)
			fprintf(out, "%.1f,%.1f ", ecp_html_map(xs, p->processors),
				ecp_html_map(ys, c->t1_ns / t));
	}
	fputs("\"/>\n", out);
}

static void mark(FILE *out, const struct ecp_html_scale *xs,
		 const struct ecp_html_scale *ys, unsigned n, double v, const char *shape,
		 const char *label)
{
	if (!isfinite(v))
		return;
	double x = ecp_html_map(xs, n), y = ecp_html_map(ys, v);
	fprintf(out, "<g><title>%s at N = %u: %.2f</title>", label, n, v);
	if (!strcmp(shape, "square"))
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\"/>",
			x - 4.5, y - 4.5);
	else
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"/>", x, y,
			!strcmp(shape, "big") ? "6" : "4");
	fputs("</g>\n", out);
}

static void legend_row(FILE *out, int row, const char *what, const char *label)
{
	double y = 14.0 + 20.0 * row, x = CW - MR + 10;
	fprintf(out, "<g transform=\"translate(%.0f,%.0f)\">%s<text x=\"28\" y=\"4\">", x,
		y, what);
	ecp_html_text(out, label);
	fputs("</text></g>\n", out);
}

static void speedup_chart(FILE *out, const struct ecp_html_compare *c)
{
	double ymax, pmax;
	ranges(c, &ymax, &pmax);
	double pw = CW - ML - MR, ph = CH - MT - MB;
	struct ecp_html_scale xs = {1, pmax > 1 ? pmax : 2, 0, pw}, ys = {0, ymax, ph, 0};
	fprintf(out, "<svg width=\"%.0f\" height=\"%.0f\">\n", CW, CH);
	fprintf(out, "<g transform=\"translate(%.0f,%.0f)\">\n", ML, MT);
	double first, step;
	int n = ecp_html_ticks(0, ymax, 6, &first, &step);
	for (int i = 0; i < n; i++) {
		double y = ecp_html_map(&ys, first + i * step);
		fprintf(
		    out,
		    "<line class=\"grid\" x1=\"0\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text x=\"-6\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
		    pw, y, y, y + 4, first + i * step);
	}
	for (size_t i = 0; i < c->n_points; i++) {
		double x = ecp_html_map(&xs, c->points[i].processors);
		fprintf(
		    out,
		    "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%u%s</text>\n", x,
		    ph + 16, c->points[i].processors,
		    c->points[i].extrapolated ? "*" : "");
	}
	fprintf(out,
		"<line class=\"axis\" x1=\"0\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\"/>"
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">processors P</text>"
		"<text transform=\"rotate(-90)\" x=\"%.0f\" y=\"-40\" "
		"text-anchor=\"middle\">speedup T_1 / T_P</text>\n",
		pw, ph, ph, pw / 2, ph + 36, -ph / 2);
	fprintf(out, "<polyline class=\"lin\" points=\"0,%.1f %.1f,%.1f\"/>\n",
		ecp_html_map(&ys, 1), pw, ecp_html_map(&ys, xs.d1 < ymax ? xs.d1 : ymax));
	curve(out, c, &xs, &ys, false, "a");
	curve(out, c, &xs, &ys, true, "b");
	if (c->measured) {
		mark(out, &xs, &ys, c->cpus, c->actual, "big", "actual (measured)");
		mark(out, &xs, &ys, c->cpus, c->idle_specific, "square", "idle-specific");
		mark(out, &xs, &ys, c->cpus, c->inflation_specific, "small",
		     "inflation-specific");
	}
	fputs("</g>\n", out);
	legend_row(out, 0, "<line class=\"lin\" x1=\"0\" x2=\"22\"/>", "linear");
	legend_row(out, 1, "<line class=\"a\" x1=\"0\" x2=\"22\"/>", c->a_label);
	legend_row(out, 2, "<line class=\"b\" x1=\"0\" x2=\"22\"/>", c->b_label);
	if (c->measured) {
		legend_row(out, 3, "<circle cx=\"11\" r=\"6\"/>",
			   "actual, measured at N");
		legend_row(out, 4, "<rect x=\"6\" y=\"-4.5\" width=\"9\" height=\"9\"/>",
			   "idle-specific at N");
		legend_row(out, 5, "<circle cx=\"11\" r=\"4\"/>",
			   "inflation-specific at N");
	}
	fputs("</svg>\n", out);
}

/* One bar per function from 1.0: right and orange when it took longer. */
static void bars(FILE *out, const struct ecp_html_compare *c)
{
	double lo = 1.0, hi = 1.0;
	for (size_t i = 0; i < c->n_bars; i++) {
		const struct ecp_html_compare_bar *b = &c->bars[i];
		double r = b->before_ns > 0 ? b->after_ns / b->before_ns : NAN;
		if (isfinite(r))
			lo = r < lo ? r : lo, hi = r > hi ? r : hi;
	}
	struct ecp_html_scale xs = {lo < 1 ? lo : 1, hi > 1 ? hi : 1.01, 0, BAR_W};
	double h = 30 + BAR_H * (double)c->n_bars;
	fprintf(out, "<svg width=\"%.0f\" height=\"%.0f\">\n", BAR_LEFT + BAR_W + 150, h);
	double one = BAR_LEFT + ecp_html_map(&xs, 1.0);
	for (size_t i = 0; i < c->n_bars; i++) {
		const struct ecp_html_compare_bar *b = &c->bars[i];
		double r = b->before_ns > 0 ? b->after_ns / b->before_ns : NAN;
		double y = 8 + BAR_H * (double)i;
		char d[40];
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">",
			BAR_LEFT - 6, y + 12);
		ecp_html_name(out, b->name, 30);
		fputs("</text>", out);
		if (isfinite(r)) {
			double x = BAR_LEFT + ecp_html_map(&xs, r);
			fprintf(out,
				"<rect class=\"%s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
				"height=\"%.0f\"/>",
				r >= 1 ? "more" : "less", x < one ? x : one, y + 2,
				fabs(x - one), BAR_H - 5);
		}
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">", BAR_LEFT + BAR_W + 8,
			y + 12);
		if (isfinite(r))
			fprintf(out, "x%.3f ", r);
		ecp_format_ns(d, sizeof(d), fabs(b->after_ns - b->before_ns));
		fprintf(out, "%s%s</text>\n", b->after_ns >= b->before_ns ? "+" : "-", d);
	}
	fprintf(out,
		"<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"4\" y2=\"%.0f\"/>\n",
		one, one, h - 20);
	fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">1.0</text>\n",
		one, h - 6);
	fputs("</svg>\n", out);
}

int ecp_html_compare_write(FILE *out, const struct ecp_html_compare *c,
			   struct ecp_error *err)
{
	fprintf(out,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		"<title>ecp compare</title><style>%s</style></head><body>\n",
		style);
	fputs("<h1>ecp compare: ", out);
	ecp_html_text(out, c->title ? c->title : "");
	fputs("</h1>\n<p class=\"note\">BASE ", out);
	ecp_html_text(out, c->base);
	fputs(", OTHER ", out);
	ecp_html_text(out, c->other);
	fputs(".</p>\n<h2>Speedup against P</h2>\n", out);
	if (c->measured)
		fprintf(
		    out,
		    "<p class=\"note\">Factored speedups from the recordings at N = %u "
		    "(Acar, Chargueraud and Rainey; T_s = T_1, so maximal is N): the "
		    "gap from linear to idle-specific is idle, from idle-specific to "
		    "actual work inflation.  P marked * is beyond N: the inflation-aware "
		    "curve holds N's inflation there, an extrapolation.</p>\n",
		    c->cpus);
	speedup_chart(out, c);
	fputs("<h2>", out);
	ecp_html_text(out, c->bar_label);
	fputs("</h2>\n", out);
	bars(out, c);
	if (c->reading) {
		fputs("<p class=\"note\">", out);
		ecp_html_text(out, c->reading);
		fputs("</p>\n", out);
	}
	fputs("</body></html>\n", out);
	if (ferror(out))
		return ecp_error_set(err, ECP_ERR_IO, "cannot write the HTML page");
	return ECP_OK;
}
