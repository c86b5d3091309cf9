/* SPDX-License-Identifier: MIT */
/* The two processor-sweep plots of the HTML report: TET of the top
 * functions against P (the paper's plot) and the speedup plot with the
 * linear, work/span and factored-speedup curves. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "common/units.h"
#include "viz/html-util.h"

#define CW 640.0 /* chart size */
#define CH 380.0
#define ML 78.0 /* margins */
#define MR 16.0
#define MT 18.0
#define MB 48.0

void ecp_factored_speedup(double baseline_ns, double work_ns, double measured_ns,
			  uint32_t processors, double idle_ns,
			  struct ecp_factored_speedup *o)
{
	double p = processors;
	o->processors = processors;
	o->linear = p;
	o->maximal = work_ns > 0 ? p * baseline_ns / work_ns : NAN;
	o->actual = measured_ns > 0 ? baseline_ns / measured_ns : NAN;
	if (idle_ns >= 0) {
		o->idle_ns = idle_ns;
		o->inflation_ns = p * measured_ns - idle_ns - work_ns;
		o->idle_specific =
		    work_ns + idle_ns > 0 ? p * baseline_ns / (work_ns + idle_ns) : NAN;
		double d = p * measured_ns - idle_ns;
		o->inflation_specific = d > 0 ? p * baseline_ns / d : NAN;
	} else {
		o->idle_ns = o->inflation_ns = NAN;
		o->idle_specific = o->inflation_specific = NAN;
	}
}

static void frame_begin(FILE *out, const char *id)
{
	fprintf(out,
		"<svg id=\"%s\" class=\"chart\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f "
		"%.0f\">\n<g transform=\"translate(%.0f,%.0f)\">\n",
		id, CW, CH, CW, CH, ML, MT);
}

/* Axes, grid and labels.  Time values on y use human units. */
static void axes(FILE *out, const struct ecp_html_scale *xs,
		 const struct ecp_html_scale *ys, bool y_time, const char *xlabel,
		 const char *ylabel)
{
	double pw = CW - ML - MR, ph = CH - MT - MB;
	double first, step;
	int n = ecp_html_ticks(ys->d0, ys->d1, 6, &first, &step);
	char buf[32];
	for (int i = 0; i < n; i++) {
		double v = first + i * step;
		double y = ecp_html_map(ys, v);
		if (y_time)
			ecp_format_ns(buf, sizeof(buf), v);
		else
			snprintf(buf, sizeof(buf), "%g", v);
		fprintf(
		    out,
		    "<line class=\"grid\" x1=\"0\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text class=\"ytick\" x=\"-6\" y=\"%.1f\">%s</text>\n",
		    pw, y, y, y + 4, buf);
	}
	n = ecp_html_ticks(xs->d0, xs->d1, 8, &first, &step);
	if (step < 1)
		step = 1, first = ceil(xs->d0), n = (int)(xs->d1 - first) + 1;
	for (int i = 0; i < n; i++) {
		double v = first + i * step;
		double x = ecp_html_map(xs, v);
		fprintf(
		    out,
		    "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.0f\"/>"
		    "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\">%g</text>\n",
		    x, x, ph, x, ph + 16, v);
	}
	fprintf(out,
		"<rect class=\"frame\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\"/>\n"
		"<text class=\"axislabel\" x=\"%.0f\" y=\"%.0f\">%s</text>\n"
		"<text class=\"axislabel\" transform=\"translate(%.0f,%.0f) "
		"rotate(-90)\">%s</text>\n",
		pw, ph, pw / 2, ph + 38, xlabel, -ML + 16, ph / 2, ylabel);
}

static void polyline(FILE *out, const char *cls, const char *style, const double *x,
		     const double *y, size_t n)
{
	fprintf(out, "<polyline class=\"%s\"%s%s%s points=\"", cls,
		style ? " style=\"" : "", style ? style : "", style ? "\"" : "");
	for (size_t i = 0; i < n; i++)
		if (isfinite(y[i]))
			fprintf(out, "%s%.1f,%.1f", i ? " " : "", x[i], y[i]);
	fputs("\"/>\n", out);
}

static void legend_item(FILE *out, const char *swatch_style, const char *label)
{
	/* The label in its own span: the legend item is a flex box, and
	 * <sub> elements would otherwise become separate, spaced items. */
	fprintf(
	    out,
	    "<span class=\"li\"><i class=\"sw\" style=\"%s\"></i><span>%s</span></span>",
	    swatch_style, label);
}

/* What the phases of the TET plot share: the sweep, how many of its top
 * functions are drawn, and the plot's scales. */
struct tet_plot {
	struct ecp_html_ctx *c;
	const struct ecp_html_scan *s;
	size_t nf; /* top functions drawn */
	double pw, ph;
	struct ecp_html_scale xs, ys;
};

/* The P axis spans the sweep, the TET axis its highest drawn value. */
static void tet_plot_scales(struct tet_plot *t)
{
	const struct ecp_html_scan *s = t->s;
	double pmin = s->processors[0], pmax = s->processors[s->count - 1];
	if (pmax <= pmin)
		pmin -= 1, pmax += 1;
	double ymax = 0;
	for (size_t i = 0; i < s->count; i++)
		for (size_t f = 0; f < t->nf; f++)
			if (s->tet_ns[i * s->top_count + f] > ymax)
				ymax = s->tet_ns[i * s->top_count + f];
	if (ymax <= 0)
		ymax = 1;
	t->pw = CW - ML - MR, t->ph = CH - MT - MB;
	t->xs = (struct ecp_html_scale){pmin, pmax, 0, t->pw};
	t->ys = (struct ecp_html_scale){0, ymax * 1.08, t->ph, 0};
}

/* One line per top function; px and py hold a point per sweep entry. */
static void tet_plot_curves(struct tet_plot *t, double *px, double *py)
{
	struct ecp_html_ctx *c = t->c;
	FILE *out = c->out;
	const struct ecp_html_scan *s = t->s;
	char colour[40];
	for (size_t f = 0; f < t->nf; f++) {
		uint32_t fid = s->top_functions[f];
		ecp_html_colour(ecp_html_rank(c, fid), colour, sizeof(colour));
		for (size_t i = 0; i < s->count; i++) {
			px[i] = ecp_html_map(&t->xs, s->processors[i]);
			py[i] = ecp_html_map(&t->ys, s->tet_ns[i * s->top_count + f]);
		}
		char style[64];
		snprintf(style, sizeof(style), "stroke:%s", colour);
		polyline(out, "curve", style, px, py, s->count);
		/* Points with hover text for sweeps of ordinary length; a very
		 * long sweep keeps its lines only, so the file stays bounded. */
		for (size_t i = 0; i < s->count && s->count <= ECP_HTML_MAX_SWEEP_POINTS;
		     i++) {
			char buf[32];
			fprintf(out,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\" "
				"style=\"fill:%s\"><title>",
				px[i], py[i], colour);
			ecp_html_name(out, ecp_html_fname(c, fid), 60);
			fprintf(out, " at P=%" PRIu32 ": TET %s</title></circle>\n",
				s->processors[i],
				ecp_format_ns(buf, sizeof(buf),
					      s->tet_ns[i * s->top_count + f]));
		}
	}
}

/* Crossover k: a dashed line at the P where the top function changes,
 * labelled at the top; labels stack so they do not overlap. */
static void tet_plot_crossover(struct tet_plot *t, size_t k)
{
	struct ecp_html_ctx *c = t->c;
	FILE *out = c->out;
	const struct ecp_html_scan *s = t->s;
	const struct ecp_html_crossover *x = &s->crossovers[k];
	double cx = ecp_html_map(&t->xs, x->processors);
	fprintf(out,
		"<g class=\"crossover\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" "
		"y2=\"%.0f\"/>",
		cx, cx, t->ph);
	for (size_t f = 0; f < t->nf; f++) {
		if (s->top_functions[f] != x->after)
			continue;
		for (size_t i = 0; i < s->count; i++)
			if (s->processors[i] == x->processors)
				fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/>",
					cx,
					ecp_html_map(&t->ys,
						     s->tet_ns[i * s->top_count + f]));
	}
	if (k < 6) {
		bool right = cx < t->pw * 0.6;
		fprintf(out,
			"<text x=\"%.1f\" y=\"%.0f\" "
			"style=\"text-anchor:%s\">P=%" PRIu32 ": ",
			cx + (right ? 4 : -4), 12.0 + 13.0 * (double)k,
			right ? "start" : "end", x->processors);
		ecp_html_name(out, ecp_html_fname(c, x->before), 18);
		fputs(" &#8594; ", out);
		ecp_html_name(out, ecp_html_fname(c, x->after), 18);
		fputs("</text>", out);
	}
	fputs("<title>crossover at P=", out);
	fprintf(out, "%" PRIu32 ": top function changes from ", x->processors);
	ecp_html_name(out, ecp_html_fname(c, x->before), ECP_HTML_MAX_NAME_CHARS);
	fputs(" to ", out);
	ecp_html_name(out, ecp_html_fname(c, x->after), ECP_HTML_MAX_NAME_CHARS);
	fputs("</title></g>\n", out);
}

/* Closes the plot; the legend names each drawn function in its colour. */
static void tet_plot_legend(struct tet_plot *t)
{
	struct ecp_html_ctx *c = t->c;
	FILE *out = c->out;
	const struct ecp_html_scan *s = t->s;
	char colour[40];
	fputs("</g></svg>\n<div class=\"legend\">", out);
	for (size_t f = 0; f < t->nf; f++) {
		ecp_html_colour(ecp_html_rank(c, s->top_functions[f]), colour,
				sizeof(colour));
		fprintf(out,
			"<span class=\"li\"><i class=\"sw\" style=\"background:%s\"></i>",
			colour);
		ecp_html_name(out, ecp_html_fname(c, s->top_functions[f]), 36);
		fputs("</span>", out);
	}
	fprintf(out, "</div>\n<p class=\"note\">%zu crossover%s", s->crossover_count,
		s->crossover_count == 1 ? "" : "s");
	if (s->crossover_count > 6)
		fputs(" (the first 6 labelled)", out);
	fputs(".</p></section>\n", out);
}

void ecp_html_tet_plot_write(struct ecp_html_ctx *c)
{
	FILE *out = c->out;
	const struct ecp_html_scan *s = c->r->scan;
	fputs("<section id=\"tet-vs-p\" class=\"half\"><h2>3. Top functions against "
	      "P</h2>\n"
	      "<p class=\"note\">Total ECP time (TET) of the top functions for each "
	      "number of "
	      "processors: where the lines cross, the function to optimise first changes "
	      "(crossovers marked).</p>\n",
	      out);
	if (!s || s->count == 0 || s->top_count == 0) {
		fputs("<p class=\"note\">No processor sweep was given (run with --range "
		      "LIST).</p>"
		      "</section>\n",
		      out);
		return;
	}
	struct tet_plot t = {
	    .c = c,
	    .s = s,
	    .nf = s->top_count < ECP_HTML_MAX_PLOT_FUNCTIONS
		      ? s->top_count
		      : ECP_HTML_MAX_PLOT_FUNCTIONS,
	};
	tet_plot_scales(&t);
	frame_begin(out, "tet-svg");
	axes(out, &t.xs, &t.ys, true, "processors P", "TET");
	double *px = malloc(s->count * sizeof(*px)), *py = malloc(s->count * sizeof(*py));
	if (!px || !py) {
		free(px);
		free(py);
		fputs("</g></svg><p class=\"note\">Out of memory drawing the "
		      "plot.</p></section>\n",
		      out);
		return;
	}
	tet_plot_curves(&t, px, py);
	for (size_t k = 0; k < s->crossover_count; k++)
		tet_plot_crossover(&t, k);
	free(px);
	free(py);
	tet_plot_legend(&t);
}

/* Predicted idle time I_P = P*T_P - T_1 at a P of the sweep (or of the
 * report); -1 if not known. */
static double predicted_idle(const struct ecp_html_report *r, uint32_t p)
{
	const struct ecp_html_scan *s = r->scan;
	if (s)
		for (size_t i = 0; i < s->count; i++)
			if (s->processors[i] == p)
				return fmax(0, (double)p * (double)s->makespan_ns[i] -
						   (double)r->work_ns);
	if (p == r->processors && r->makespan_ns > 0)
		return fmax(0, (double)p * (double)r->makespan_ns - (double)r->work_ns);
	return -1;
}

static int by_processors(const void *a, const void *b)
{
	const struct ecp_html_measured *x = a, *y = b;
	return x->processors < y->processors ? -1 : x->processors > y->processors;
}

static void fmt_speedup(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "<td>%.2f</td>", v);
	else
		fputs("<td>&ndash;</td>", out);
}

/* What the phases of the speedup plot share: the report, its measured runs
 * sorted by P, the baseline T_s and the plot's scales. */
struct speedup_plot {
	FILE *out;
	const struct ecp_html_report *r;
	const struct ecp_html_scan *s;
	double work, span;
	struct ecp_html_measured *m; /* sorted by P; NULL if none */
	size_t mc;
	double baseline; /* T_s: the measured P=1 run, or the recorded work */
	double pmin, pmax;
	struct ecp_html_scale xs, ys;
};

/* A sorted copy of the measured runs; none if there is no memory for it. */
static void speedup_sort_measured(struct speedup_plot *sp)
{
	const struct ecp_html_report *r = sp->r;
	sp->m = NULL;
	sp->mc = r->measured_count;
	if (sp->mc) {
		sp->m = malloc(sp->mc * sizeof(*sp->m));
		if (!sp->m)
			sp->mc = 0;
		else {
			for (size_t i = 0; i < sp->mc; i++)
				sp->m[i] = r->measured[i];
			qsort(sp->m, sp->mc, sizeof(*sp->m), by_processors);
		}
	}
	sp->baseline = sp->work;
	for (size_t i = 0; i < sp->mc; i++)
		if (sp->m[i].processors == 1 && sp->m[i].seconds > 0)
			sp->baseline = sp->m[i].seconds * 1e9;
}

/* The P range covers the sweep, the report's P and the measured runs. */
static void speedup_scales(struct speedup_plot *sp)
{
	const struct ecp_html_scan *s = sp->s;
	double pmin = sp->r->processors, pmax = sp->r->processors;
	if (s)
		for (size_t i = 0; i < s->count; i++) {
			pmin = fmin(pmin, s->processors[i]);
			pmax = fmax(pmax, s->processors[i]);
		}
	for (size_t i = 0; i < sp->mc; i++) {
		pmin = fmin(pmin, sp->m[i].processors);
		pmax = fmax(pmax, sp->m[i].processors);
	}
	pmin = fmin(pmin, 1);
	if (pmax <= pmin)
		pmax = pmin + 1;
	double pw = CW - ML - MR, ph = CH - MT - MB;
	sp->pmin = pmin, sp->pmax = pmax;
	sp->xs = (struct ecp_html_scale){pmin, pmax, 0, pw};
	sp->ys = (struct ecp_html_scale){0, pmax * 1.05, ph, 0};
}

/* The linear bound P and the work/span bound min(P, T_1/T_inf). */
static void speedup_bounds(const struct speedup_plot *sp)
{
	double pmin = sp->pmin, pmax = sp->pmax;
	double lx[3], ly[3];
	lx[0] = ecp_html_map(&sp->xs, pmin), ly[0] = ecp_html_map(&sp->ys, pmin);
	lx[1] = ecp_html_map(&sp->xs, pmax), ly[1] = ecp_html_map(&sp->ys, pmax);
	polyline(sp->out, "curve linear", NULL, lx, ly, 2);
	if (sp->work > 0 && sp->span > 0) {
		double par = sp->work / sp->span;
		double knee = fmin(fmax(par, pmin), pmax);
		double bx[3] = {pmin, knee, pmax};
		for (int i = 0; i < 3; i++) {
			lx[i] = ecp_html_map(&sp->xs, bx[i]);
			ly[i] = ecp_html_map(&sp->ys, fmin(bx[i], par));
		}
		polyline(sp->out, "curve bound", NULL, lx, ly, 3);
	}
}

/* Predicted points: the sweep's np, or the report's single P. */
static void speedup_predicted(const struct speedup_plot *sp, size_t np, double *px,
			      double *py)
{
	const struct ecp_html_report *r = sp->r;
	const struct ecp_html_scan *s = sp->s;
	double work = sp->work;
	for (size_t i = 0; i < np; i++) {
		double p = s && s->count ? s->processors[i] : r->processors;
		double t =
		    s && s->count ? (double)s->makespan_ns[i] : (double)r->makespan_ns;
		px[i] = ecp_html_map(&sp->xs, p);
		py[i] = t > 0 ? ecp_html_map(&sp->ys, work / t) : NAN;
	}
	polyline(sp->out, "curve predicted", NULL, px, py, np);
	for (size_t i = 0; i < np && np <= ECP_HTML_MAX_SWEEP_POINTS; i++) {
		double p = s && s->count ? s->processors[i] : r->processors;
		double t =
		    s && s->count ? (double)s->makespan_ns[i] : (double)r->makespan_ns;
		if (isfinite(py[i]))
			fprintf(sp->out,
				"<circle class=\"predicted\" cx=\"%.1f\" "
				"cy=\"%.1f\" r=\"3\">"
				"<title>P=%.0f: predicted speedup "
				"%.2f</title></circle>\n",
				px[i], py[i], p, work / t);
	}
}

/* Factored curves at the measured P, from fs (one per measured run). */
static void speedup_factored_curves(const struct speedup_plot *sp,
				    struct ecp_factored_speedup *fs, double *px,
				    double *py)
{
	const struct ecp_html_measured *m = sp->m;
	for (size_t i = 0; i < sp->mc; i++)
		ecp_factored_speedup(sp->baseline, sp->work, m[i].seconds * 1e9,
				     m[i].processors,
				     predicted_idle(sp->r, m[i].processors), &fs[i]);
	static const struct {
		const char *cls;
		size_t off;
	} curves[] = {
	    {"maximal", offsetof(struct ecp_factored_speedup, maximal)},
	    {"idle", offsetof(struct ecp_factored_speedup, idle_specific)},
	    {"inflation", offsetof(struct ecp_factored_speedup, inflation_specific)},
	    {"actual", offsetof(struct ecp_factored_speedup, actual)},
	};
	for (size_t k = 0; k < sizeof(curves) / sizeof(curves[0]); k++) {
		for (size_t i = 0; i < sp->mc; i++) {
			double v =
			    *(const double *)((const char *)&fs[i] + curves[k].off);
			px[i] = ecp_html_map(&sp->xs, m[i].processors);
			py[i] =
			    isfinite(v) ? ecp_html_map(&sp->ys, fmin(v, sp->ys.d1)) : NAN;
		}
		char cls[32];
		snprintf(cls, sizeof(cls), "curve %s", curves[k].cls);
		polyline(sp->out, cls, NULL, px, py, sp->mc);
		for (size_t i = 0; i < sp->mc; i++)
			if (isfinite(py[i]))
				fprintf(sp->out,
					"<circle class=\"%s\" cx=\"%.1f\" "
					"cy=\"%.1f\" r=\"2.5\"/>\n",
					curves[k].cls, px[i], py[i]);
	}
}

/* Closes the plot; the factored curves are named only when drawn. */
static void speedup_legend(FILE *out, bool factored)
{
	fputs("</g></svg>\n<div class=\"legend\">", out);
	legend_item(out, "border-top:2px dashed #999;height:0", "linear (P)");
	legend_item(out, "border-top:2px solid #222;height:0", "work/span bound");
	legend_item(out, "background:#2e6da4", "predicted T<sub>1</sub>/T<sub>P</sub>");
	if (factored) {
		legend_item(out, "border-top:2px dotted #222;height:0", "maximal");
		legend_item(out, "background:#59a14f", "idle-time-specific");
		legend_item(out, "background:#b07aa1", "inflation-specific");
		legend_item(out, "background:#d62728", "actual (measured)");
	}
	fputs("</div>\n", out);
}

/* The factored speedups of each measured run as a table, and its baseline. */
static void speedup_factored_table(const struct speedup_plot *sp,
				   const struct ecp_factored_speedup *fs)
{
	FILE *out = sp->out;
	char b1[32], b2[32], b3[32];
	fprintf(out, "<table class=\"small\" "
		     "id=\"factored\"><thead><tr><th>P</th><th>measured "
		     "T<sub>P</sub></th><th>I<sub>P</sub></th><th>F<sub>P</sub></th>"
		     "<th>maximal</th><th>idle-sp.</th>"
		     "<th>inflation-sp.</th><th>actual</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < sp->mc; i++) {
		fprintf(out, "<tr><td>%" PRIu32 "</td><td>%s</td><td>%s</td><td>%s</td>",
			fs[i].processors,
			ecp_format_ns(b1, sizeof(b1), sp->m[i].seconds * 1e9),
			isfinite(fs[i].idle_ns)
			    ? ecp_format_ns(b2, sizeof(b2), fs[i].idle_ns)
			    : "&ndash;",
			isfinite(fs[i].inflation_ns)
			    ? ecp_format_ns(b3, sizeof(b3), fs[i].inflation_ns)
			    : "&ndash;");
		fmt_speedup(out, fs[i].maximal);
		fmt_speedup(out, fs[i].idle_specific);
		fmt_speedup(out, fs[i].inflation_specific);
		fmt_speedup(out, fs[i].actual);
		fputs("</tr>\n", out);
	}
	fprintf(out,
		"</tbody></table>\n<p class=\"note\">Speedups relative to the "
		"baseline "
		"T<sub>s</sub> = %s (%s); I<sub>P</sub> = predicted idle time "
		"P&middot;T<sub>P</sub>(simulated) &minus; T<sub>1</sub>; "
		"F<sub>P</sub> = work "
		"inflation P&middot;T<sub>P</sub> &minus; I<sub>P</sub> &minus; "
		"T<sub>1</sub> "
		"(measured T<sub>P</sub>); T<sub>1</sub> = recorded work.</p>\n",
		ecp_format_ns(b1, sizeof(b1), sp->baseline),
		sp->baseline != sp->work ? "the measured P=1 run"
					 : "the recorded work, no P=1 run given");
}

void ecp_html_speedup_write(struct ecp_html_ctx *c)
{
	FILE *out = c->out;
	const struct ecp_html_report *r = c->r;
	const struct ecp_html_scan *s = r->scan;
	fputs("<section id=\"speedup\" class=\"half\"><h2>4. Speedup against P</h2>\n"
	      "<p class=\"note\">Predicted speedup T<sub>1</sub>/T<sub>P</sub> with the "
	      "linear "
	      "bound P and the work/span bound min(P, T<sub>1</sub>/T<sub>&#8734;</sub>)",
	      out);
	fputs(r->measured_count
		  ? "; with measured runs, the factored speedup curves of Acar, "
		    "Chargu&eacute;raud and Rainey.</p>\n"
		  : ". Give measured runs (--measured P=SECONDS,...) to add the "
		    "factored speedup curves.</p>\n",
	      out);

	struct speedup_plot sp = {
	    .out = out,
	    .r = r,
	    .s = s,
	    .work = (double)r->work_ns,
	    .span = (double)r->span_ns,
	};
	speedup_sort_measured(&sp);
	speedup_scales(&sp);
	frame_begin(out, "speedup-svg");
	axes(out, &sp.xs, &sp.ys, false, "processors P", "speedup");
	speedup_bounds(&sp);
	size_t np = s && s->count ? s->count : 1;
	double *px = malloc((np + sp.mc) * sizeof(*px)),
	       *py = malloc((np + sp.mc) * sizeof(*py));
	if (px && py && sp.work > 0)
		speedup_predicted(&sp, np, px, py);
	struct ecp_factored_speedup *fs = sp.mc ? calloc(sp.mc, sizeof(*fs)) : NULL;
	if (fs && px && py)
		speedup_factored_curves(&sp, fs, px, py);
	speedup_legend(out, fs != NULL);
	if (fs)
		speedup_factored_table(&sp, fs);
	free(fs);
	free(px);
	free(py);
	free(sp.m);
	fputs("</section>\n", out);
}
