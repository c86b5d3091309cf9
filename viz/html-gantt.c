/* SPDX-License-Identifier: MIT */
/* The Gantt chart and the parallelism profile of the HTML report, and the
 * summarising that keeps them bounded on long traces. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "viz/html-util.h"

struct ecp_html_gantt {
	size_t *order;     /* drawn segments sorted by (thread, start) */
	size_t *row_begin; /* rows + 1 offsets into order */
	size_t rows;       /* thread rows drawn */
	size_t hidden_threads, hidden_segments;
	int64_t t_end; /* right end of the time axis */
	double q;      /* merge threshold (ns) */
	size_t max_items;
	/* What the final pass produced. */
	size_t items, summary_bars, merged_segments, marks;
	bool marks_omitted;
	bool used[ECP_HTML_MARK_COUNT]; /* symbol kinds drawn, for the legend */
	double row_h;
};

/* One bar to draw: a segment, or a summary of several short ones. */
struct item {
	uint32_t thread;
	int64_t start, end, cpu;
	uint32_t function; /* of the longest member */
	int64_t longest;
	double weight; /* single: its weight; summary: CPU-weighted mean */
	double weighted_cpu;
	double max_abs_weight;
	size_t count;
	uint8_t start_mark, end_mark;
};

typedef void (*emit_fn)(struct ecp_html_ctx *c, struct ecp_html_gantt *g,
			const struct item *it);

static void item_from(struct item *it, const struct ecp_html_segment *s)
{
	*it = (struct item){
	    .thread = s->thread,
	    .start = s->start_ns,
	    .end = s->end_ns,
	    .cpu = s->cpu_ns,
	    .function = s->function,
	    .longest = s->end_ns - s->start_ns,
	    .weight = s->weight,
	    .weighted_cpu = s->weight * (double)s->cpu_ns,
	    .max_abs_weight = fabs(s->weight),
	    .count = 1,
	    .start_mark = s->start_mark,
	    .end_mark = s->end_mark,
	};
}

static void item_add(struct item *it, const struct ecp_html_segment *s)
{
	if (s->end_ns > it->end)
		it->end = s->end_ns;
	it->cpu += s->cpu_ns;
	if (s->end_ns - s->start_ns > it->longest) {
		it->longest = s->end_ns - s->start_ns;
		it->function = s->function;
	}
	it->weighted_cpu += s->weight * (double)s->cpu_ns;
	if (fabs(s->weight) > it->max_abs_weight)
		it->max_abs_weight = fabs(s->weight);
	it->count++;
	it->end_mark = s->end_mark;
}

static void flush(struct ecp_html_ctx *c, struct ecp_html_gantt *g, struct item *it,
		  emit_fn emit)
{
	if (it->count == 0)
		return;
	if (it->count > 1) {
		it->weight = it->cpu > 0 ? it->weighted_cpu / (double)it->cpu : 0;
		g->summary_bars++;
		g->merged_segments += it->count;
		/* Marks inside a summary are not drawn. */
		it->start_mark = it->end_mark = ECP_HTML_MARK_NONE;
	}
	g->items++;
	g->marks +=
	    (it->start_mark != ECP_HTML_MARK_NONE) + (it->end_mark != ECP_HTML_MARK_NONE);
	if (emit)
		emit(c, g, it);
	it->count = 0;
}

/* One pass over every drawn segment with threshold q: segments at least q
 * long are bars of their own; runs of shorter ones, separated by gaps
 * shorter than q, become one summary bar.  Each thread then has at most
 * about 2 * t_end / q bars, so doubling q bounds the total. */
static void walk(struct ecp_html_ctx *c, struct ecp_html_gantt *g, double q, emit_fn emit)
{
	const struct ecp_html_segment *seg = c->r->segments;
	g->q = q;
	g->items = g->summary_bars = g->merged_segments = g->marks = 0;
	for (size_t row = 0; row < g->rows; row++) {
		struct item pending = {0};
		for (size_t k = g->row_begin[row]; k < g->row_begin[row + 1]; k++) {
			const struct ecp_html_segment *s = &seg[g->order[k]];
			if ((double)(s->end_ns - s->start_ns) >= q) {
				flush(c, g, &pending, emit);
				struct item single;
				item_from(&single, s);
				flush(c, g, &single, emit);
			} else if (pending.count > 0 &&
				   (double)(s->start_ns - pending.end) < q) {
				item_add(&pending, s);
			} else {
				flush(c, g, &pending, emit);
				item_from(&pending, s);
			}
		}
		flush(c, g, &pending, emit);
	}
}

static int by_thread_start(const void *a, const void *b, void *base)
{
	const struct ecp_html_segment *s = base;
	const struct ecp_html_segment *x = &s[*(const size_t *)a];
	const struct ecp_html_segment *y = &s[*(const size_t *)b];
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void note_function(struct ecp_html_ctx *c, struct ecp_html_gantt *g,
			  const struct item *it)
{
	(void)g;
	ecp_html_rank(c, it->function);
}

void ecp_html_gantt_destroy(struct ecp_html_gantt *g)
{
	if (!g)
		return;
	free(g->order);
	free(g->row_begin);
	free(g);
}

int ecp_html_gantt_plan(struct ecp_html_ctx *c, struct ecp_html_gantt **plan,
			struct ecp_error *err)
{
	const struct ecp_html_report *r = c->r;
	struct ecp_html_gantt *g = calloc(1, sizeof(*g));
	if (!g)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory planning the Gantt chart");
	g->rows = r->thread_count < ECP_HTML_MAX_THREAD_ROWS ? r->thread_count
							     : ECP_HTML_MAX_THREAD_ROWS;
	g->hidden_threads = r->thread_count - g->rows;
	g->max_items = r->max_segments ? r->max_segments : ECP_HTML_DEFAULT_MAX_SEGMENTS;
	g->order = malloc((r->segment_count ? r->segment_count : 1) * sizeof(*g->order));
	g->row_begin = calloc(g->rows + 2, sizeof(*g->row_begin));
	if (!g->order || !g->row_begin) {
		ecp_html_gantt_destroy(g);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory sorting %zu segments",
				     r->segment_count);
	}
	size_t n = 0;
	g->t_end = r->makespan_ns;
	for (size_t i = 0; i < r->segment_count; i++) {
		const struct ecp_html_segment *s = &r->segments[i];
		if (s->thread >= r->thread_count || s->end_ns < s->start_ns) {
			ecp_html_gantt_destroy(g);
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "Gantt segment #%zu: thread %u out of range or "
			    "end before start",
			    i, s->thread);
		}
		if (s->end_ns > g->t_end)
			g->t_end = s->end_ns;
		if (s->thread >= g->rows) {
			g->hidden_segments++;
			continue;
		}
		g->order[n++] = i;
		g->row_begin[s->thread + 1]++;
	}
	for (size_t t = 0; t < g->rows; t++)
		g->row_begin[t + 1] += g->row_begin[t];
	qsort_r(g->order, n, sizeof(*g->order), by_thread_start, (void *)r->segments);
	if (g->t_end <= 0)
		g->t_end = 1;

	/* Start at one pixel's worth of time and double until the bars fit. */
	double q = (double)g->t_end / ECP_HTML_PLOT_W;
	for (;;) {
		walk(c, g, q, NULL);
		if (g->items <= g->max_items || q > 4.0 * (double)g->t_end)
			break;
		q *= 2;
	}
	g->marks_omitted = g->marks > ECP_HTML_MAX_MARKS;
	/* Rank the drawn functions (after the table's, which come first). */
	walk(c, g, q, note_function);
	double h = 560.0 / (g->rows ? (double)g->rows : 1);
	g->row_h = h < 6 ? 6 : h > 24 ? 24 : h;
	*plan = g;
	return ECP_OK;
}

/* ---- writing ---------------------------------------------------------- */

static const struct {
	const char *name;
	const char *shape; /* path centred on 0,0 */
	const char *style;
} marks[ECP_HTML_MARK_COUNT] = {
    [ECP_HTML_MARK_CREATE] = {"thread create", "M-3,-4L4,0L-3,4Z", "fill:#222"},
    [ECP_HTML_MARK_EXIT] = {"thread exit", "M-1.5,-5h3v10h-3Z", "fill:#222"},
    [ECP_HTML_MARK_JOIN] = {"join returns", "M3,-4L-4,0L3,4Z", "fill:#555"},
    [ECP_HTML_MARK_LOCK] = {"lock acquired", "M-3,-3h6v6h-6Z", "fill:#b03a2e"},
    [ECP_HTML_MARK_UNLOCK] = {"unlock", "M-3,-3h6v6h-6Z",
			      "fill:#fff;stroke:#b03a2e;stroke-width:1.5"},
    [ECP_HTML_MARK_WAIT] = {"condition wait",
			    "M-3.5,0a3.5,3.5 0 1,0 7,0a3.5,3.5 0 1,0 -7,0",
			    "fill:#fff;stroke:#6c3483;stroke-width:1.5"},
    [ECP_HTML_MARK_SIGNAL] = {"condition signal",
			      "M-3.5,0a3.5,3.5 0 1,0 7,0a3.5,3.5 0 1,0 -7,0",
			      "fill:#6c3483"},
    [ECP_HTML_MARK_SEM_WAIT] = {"semaphore wait", "M0,-4.5L4.5,0L0,4.5L-4.5,0Z",
				"fill:#fff;stroke:#117a65;stroke-width:1.5"},
    [ECP_HTML_MARK_SEM_POST] = {"semaphore post", "M0,-4.5L4.5,0L0,4.5L-4.5,0Z",
				"fill:#117a65"},
    [ECP_HTML_MARK_BARRIER] = {"barrier", "M-3,-5h2v10h-2ZM1,-5h2v10h-2Z",
			       "fill:#1f3a5f"},
    [ECP_HTML_MARK_ONCE] = {"once", "M-4,0h8M0,-4v8", "stroke:#1f3a5f;stroke-width:2"},
    [ECP_HTML_MARK_DELAY] = {"sleep / blocking I/O", "M-4,-3h8l-8,6h8",
			     "fill:none;stroke:#555;stroke-width:1.5"},
};

static double xpos(const struct ecp_html_gantt *g, int64_t t)
{
	return (double)t / (double)g->t_end * ECP_HTML_PLOT_W;
}

static void time_ticks(FILE *out, double t_end, double y_top, double y_axis)
{
	double first, step;
	int n = ecp_html_ticks(0, t_end, 8, &first, &step);
	for (int i = 0; i < n; i++) {
		double t = first + i * step;
		double x = t / t_end * ECP_HTML_PLOT_W;
		char buf[32];
		fprintf(out,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			"y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			x, x, y_top, y_axis, x, y_axis + 14,
			ecp_format_ns(buf, sizeof(buf), t));
	}
}

static void emit_bar(struct ecp_html_ctx *c, struct ecp_html_gantt *g,
		     const struct item *it)
{
	FILE *out = c->out;
	uint32_t rank = c->local && it->function < c->r->function_count
			    ? c->local[it->function]
			    : ECP_HTML_NO_FUNCTION;
	bool ecp = it->max_abs_weight > 0;
	double y = it->thread * g->row_h;
	double h = ecp ? g->row_h * 0.8 : g->row_h * 0.4;
	double top = y + (g->row_h - h) / 2;
	double x = xpos(g, it->start), w = xpos(g, it->end) - x;
	if (w < 0.6)
		w = 0.6;
	char cls[24];
	if (rank == ECP_HTML_NO_FUNCTION)
		snprintf(cls, sizeof(cls), "cx");
	else
		snprintf(cls, sizeof(cls), "c%" PRIu32, rank);
	fprintf(
	    out,
	    "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" class=\"%s%s%s\" "
	    "data-s=\"%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
	    " %.4g %.4g %zu %" PRIu32 "\"/>\n",
	    x, top, w, h, cls, ecp ? " e" : "", it->count > 1 ? " m" : "",
	    rank == ECP_HTML_NO_FUNCTION ? (int64_t)-1 : (int64_t)rank, it->start,
	    it->end, it->cpu, it->weight, it->max_abs_weight, it->count, it->thread);
	/* Summary bars get a hatch on top, which ignores the pointer so the
	 * bar below still shows its tooltip. */
	if (it->count > 1)
		fprintf(out,
			"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			"class=\"h\"/>\n",
			x, top, w, h);
}

static void emit_marks(struct ecp_html_ctx *c, struct ecp_html_gantt *g,
		       const struct item *it)
{
	double y = it->thread * g->row_h + g->row_h / 2;
	uint8_t kinds[2] = {it->start_mark, it->end_mark};
	int64_t at[2] = {it->start, it->end};
	for (int i = 0; i < 2; i++) {
		if (kinds[i] == ECP_HTML_MARK_NONE || kinds[i] >= ECP_HTML_MARK_COUNT)
			continue;
		double x = xpos(g, at[i]);
		g->used[kinds[i]] = true;
		fprintf(c->out,
			"<use href=\"#mk%u\" x=\"%.2f\" y=\"%.1f\" "
			"data-x=\"%.2f\"><title>%s</title></use>\n",
			kinds[i], x, y, x, marks[kinds[i]].name);
	}
}

static void mark_legend(struct ecp_html_ctx *c, const bool *used)
{
	FILE *out = c->out;
	bool any = false;
	for (int k = 1; k < ECP_HTML_MARK_COUNT; k++)
		any = any || used[k];
	if (!any)
		return;
	fputs("<div class=\"legend\"><span class=\"lt\">Synchronization:</span>", out);
	for (int k = 1; k < ECP_HTML_MARK_COUNT; k++) {
		if (!used[k])
			continue;
		fprintf(out,
			"<span class=\"li\"><svg width=\"14\" height=\"14\" viewBox=\"-7 "
			"-7 14 14\">"
			"<path d=\"%s\" style=\"%s\"/></svg>%s</span>",
			marks[k].shape, marks[k].style, marks[k].name);
	}
	fputs("</div>\n", out);
}

static void function_legend(struct ecp_html_ctx *c)
{
	FILE *out = c->out;
	fputs("<div class=\"legend\"><span class=\"lt\">Functions:</span>", out);
	size_t shown = c->named_count < 12 ? c->named_count : 12;
	for (size_t k = 0; k < shown; k++) {
		fprintf(out, "<span class=\"li\"><i class=\"sw c%zu\"></i>", k);
		ecp_html_name(out, ecp_html_fname(c, c->named[k]), 40);
		fputs("</span>", out);
	}
	fputs(
	    "<span class=\"li\"><i class=\"sw cx\"></i>other functions</span>"
	    "<span class=\"li\"><i class=\"sw ecpkey\"></i>tall bar = on the ECP (weight "
	    "&ne; 0)</span><span class=\"li\"><i class=\"sw mkey\"></i>hatched = summary "
	    "of "
	    "short segments</span></div>\n",
	    out);
}

/* The chart's heading, its note and the zoom controls. */
static void gantt_heading(FILE *out, const struct ecp_html_report *r)
{
	fprintf(out,
		"<section id=\"gantt\"><h2>1. Simulated execution on %" PRIu32
		" processor%s</h2>\n",
		r->processors, r->processors == 1 ? "" : "s");
	fputs("<p class=\"note\">Each row is a thread; bars are its segments on the "
	      "simulated "
	      "timeline, coloured by the function that used most of their CPU time. "
	      "Hover a bar "
	      "for its times and ECP weight. Zoom with the mouse wheel or the buttons, "
	      "drag to "
	      "pan.</p>\n",
	      out);
	fputs(
	    "<div class=\"controls\"><button type=\"button\" id=\"zin\">Zoom in</button>"
	    "<button type=\"button\" id=\"zout\">Zoom out</button>"
	    "<button type=\"button\" id=\"zreset\">Reset</button>"
	    "<span id=\"zinfo\"></span></div>\n",
	    out);
}

/* The svg element and its definitions: the bars' clip, the summary bars'
 * hatch and one shape per synchronization mark. */
static void gantt_svg_open(FILE *out, const struct ecp_html_gantt *g, double height,
			   double rows_h)
{
	fprintf(out,
		"<svg id=\"gantt-svg\" class=\"chart\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" data-tend=\"%" PRId64 "\" data-w=\"%.0f\">\n",
		ECP_HTML_LEFT + ECP_HTML_PLOT_W + ECP_HTML_RIGHT, height,
		ECP_HTML_LEFT + ECP_HTML_PLOT_W + ECP_HTML_RIGHT, height, g->t_end,
		ECP_HTML_PLOT_W);
	fprintf(out,
		"<defs><clipPath id=\"gclip\"><rect x=\"0\" y=\"-10\" width=\"%.0f\" "
		"height=\"%.0f\"/></clipPath>"
		"<pattern id=\"hatch\" width=\"4\" height=\"4\" "
		"patternUnits=\"userSpaceOnUse\" "
		"patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"4\" "
		"fill=\"rgba(255,255,255,0.55)\"/></pattern>",
		ECP_HTML_PLOT_W, rows_h + 20);
	for (int k = 1; k < ECP_HTML_MARK_COUNT; k++)
		fprintf(out, "<path id=\"mk%d\" d=\"%s\" style=\"%s\"/>", k,
			marks[k].shape, marks[k].style);
	fputs("</defs>\n", out);
}

/* Thread labels and row stripes. */
static void gantt_thread_rows(FILE *out, const struct ecp_html_report *r,
			      const struct ecp_html_gantt *g, double top)
{
	fprintf(out, "<g transform=\"translate(0,%.0f)\">\n", top);
	for (size_t t = 0; t < g->rows; t++) {
		const char *name = r->thread_names ? r->thread_names[t] : NULL;
		if (t % 2 == 0)
			fprintf(
			    out,
			    "<rect class=\"stripe\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" "
			    "height=\"%.1f\"/>",
			    ECP_HTML_LEFT, t * g->row_h, ECP_HTML_PLOT_W, g->row_h);
		if (g->row_h >= 9) {
			fprintf(out,
				"<text class=\"tlabel\" x=\"%.0f\" y=\"%.1f\" "
				"style=\"font-size:%.0fpx\"><title>",
				ECP_HTML_LEFT - 8, t * g->row_h + g->row_h / 2 + 4,
				g->row_h < 14 ? g->row_h - 1 : 12.0);
			if (name)
				ecp_html_name(out, name, 100);
			else
				fprintf(out, "thread %zu", t);
			fputs("</title>", out);
			if (name)
				ecp_html_name(out, name, 24);
			else
				fprintf(out, "thread %zu", t);
			fputs("</text>\n", out);
		}
	}
	fputs("</g>\n", out);
}

/* The caption: what the size cap merged or left out, and the makespan. */
static void gantt_caption(FILE *out, const struct ecp_html_report *r,
			  const struct ecp_html_gantt *g)
{
	char buf[32], buf2[32];
	size_t shown = r->segment_count - g->hidden_segments;
	fprintf(out,
		"<p class=\"note cap\" id=\"gantt-cap\">Size cap: at most %zu bars are "
		"drawn. "
		"%zu segment%s shown as %zu bar%s",
		g->max_items, shown, shown == 1 ? "" : "s", g->items,
		g->items == 1 ? "" : "s");
	if (g->summary_bars)
		fprintf(out,
			"; %zu segments shorter than %s (one pixel at full view%s) were "
			"merged "
			"into %zu hatched summary bars",
			g->merged_segments, ecp_format_ns(buf, sizeof(buf), g->q),
			g->q > (double)g->t_end / ECP_HTML_PLOT_W * 1.5
			    ? ", widened to fit the cap"
			    : "",
			g->summary_bars);
	fputs(".", out);
	if (g->hidden_threads)
		fprintf(
		    out,
		    " Only the first %zu threads are drawn; %zu more (%zu segments) are "
		    "not.",
		    g->rows, g->hidden_threads, g->hidden_segments);
	if (g->marks_omitted)
		fprintf(out,
			" Synchronization symbols are omitted: %zu exceed the cap of %d.",
			g->marks, ECP_HTML_MAX_MARKS);
	fprintf(out, " Makespan %s.</p>\n</section>\n",
		ecp_format_ns(buf2, sizeof(buf2), (double)r->makespan_ns));
}

void ecp_html_gantt_write(struct ecp_html_ctx *c, struct ecp_html_gantt *g)
{
	FILE *out = c->out;
	const struct ecp_html_report *r = c->r;
	double rows_h = g->rows * g->row_h;
	double top = 10, axis_y = top + rows_h + 6;
	double height = axis_y + 34;

	gantt_heading(out, r);
	gantt_svg_open(out, g, height, rows_h);
	gantt_thread_rows(out, r, g, top);
	fprintf(out, "<g transform=\"translate(%.0f,%.0f)\"><g id=\"gantt-axis\">\n",
		ECP_HTML_LEFT, top);
	time_ticks(out, (double)g->t_end, 0, rows_h + 6);
	fputs("</g>\n<g clip-path=\"url(#gclip)\"><g id=\"gantt-bars\">\n", out);
	walk(c, g, g->q, emit_bar);
	fputs("</g>\n<g id=\"gantt-marks\">\n", out);
	/* Marks belong to the bars drawn alone: the same pass again, with a
	 * marks emitter, keeps them above every bar. */
	if (!g->marks_omitted)
		walk(c, g, g->q, emit_marks);
	fprintf(out,
		"</g></g>\n<text class=\"axislabel\" x=\"%.0f\" y=\"%.0f\">simulated "
		"time</text>\n",
		ECP_HTML_PLOT_W / 2, rows_h + 40);
	fputs("</g>\n</svg>\n", out);
	function_legend(c);
	mark_legend(c, g->used);
	gantt_caption(out, r, g);
}

/* Time-averaged (running, runnable) per bucket when the steps are too many
 * to draw: the area under each curve, and so the mean parallelism, is kept. */
static void profile_buckets(const struct ecp_html_report *r, int64_t t_end, size_t nb,
			    double *run, double *rdy)
{
	double width = (double)t_end / (double)nb;
	for (size_t i = 0; i < r->step_count; i++) {
		double a = (double)r->steps[i].time_ns;
		double b = i + 1 < r->step_count ? (double)r->steps[i + 1].time_ns
						 : (double)t_end;
		if (b > (double)t_end)
			b = (double)t_end;
		while (a < b) {
			size_t k = (size_t)(a / width);
			if (k >= nb)
				break;
			double e = (double)(k + 1) * width;
			double piece = (b < e ? b : e) - a;
			run[k] += r->steps[i].running * piece / width;
			rdy[k] += r->steps[i].runnable * piece / width;
			a += piece;
			if (piece <= 0)
				break;
		}
	}
}

/* What the phases of the parallelism profile share: its time and thread
 * scales and, for a profile of too many steps, the averaged buckets. */
struct profile_plot {
	FILE *out;
	const struct ecp_html_report *r;
	int64_t t_end;
	double ph, ymax;
	struct ecp_html_scale ys;
	size_t nb; /* buckets; 0: the exact steps are drawn */
	double *run, *rdy;
};

/* The time axis ends at the last segment's end, the thread axis above
 * both P and the most runnable threads. */
static void profile_scales(struct profile_plot *pp)
{
	const struct ecp_html_report *r = pp->r;
	pp->t_end = r->makespan_ns > 0 ? r->makespan_ns : 1;
	for (size_t i = 0; i < r->segment_count; i++)
		if (r->segments[i].end_ns > pp->t_end)
			pp->t_end = r->segments[i].end_ns;
	pp->ph = 200;
	double ymax = r->processors;
	for (size_t i = 0; i < r->step_count; i++)
		if (r->steps[i].runnable > ymax)
			ymax = r->steps[i].runnable;
	if (ymax < 1)
		ymax = 1;
	ymax *= 1.1;
	pp->ymax = ymax;
	pp->ys = (struct ecp_html_scale){0, ymax, pp->ph, 0};
}

/* Y axis: integer thread counts. */
static void profile_thread_axis(const struct profile_plot *pp)
{
	FILE *out = pp->out;
	double first, step;
	int n = ecp_html_ticks(0, pp->ymax, 5, &first, &step);
	if (step < 1)
		step = 1, n = (int)(pp->ymax) + 1;
	for (int i = 0; i < n; i++) {
		double v = first + i * step;
		if (v > pp->ymax)
			break;
		double y = ecp_html_map(&pp->ys, v);
		fprintf(
		    out,
		    "<line class=\"grid\" x1=\"0\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text class=\"ytick\" x=\"-6\" y=\"%.1f\">%.0f</text>\n",
		    ECP_HTML_PLOT_W, y, y, y + 4, v);
	}
	fprintf(out,
		"<text class=\"axislabel\" transform=\"translate(-40,%.0f) rotate(-90)\">"
		"threads</text>\n",
		pp->ph / 2);
}

/* Buckets for a profile of too many steps to draw exactly. */
static void profile_bucket_steps(struct profile_plot *pp)
{
	const struct ecp_html_report *r = pp->r;
	pp->nb =
	    r->step_count > ECP_HTML_MAX_PROFILE_STEPS ? 2 * (size_t)ECP_HTML_PLOT_W : 0;
	pp->run = pp->rdy = NULL;
	if (pp->nb) {
		pp->run = calloc(pp->nb, sizeof(*pp->run));
		pp->rdy = calloc(pp->nb, sizeof(*pp->rdy));
		if (!pp->run || !pp->rdy) {
			pp->nb =
			    0; /* fall back to the exact steps: larger, still correct */
			free(pp->run);
			free(pp->rdy);
			pp->run = pp->rdy = NULL;
		} else {
			profile_buckets(r, pp->t_end, pp->nb, pp->run, pp->rdy);
		}
	}
}

/* Two step areas, runnable behind running. */
static void profile_areas(const struct profile_plot *pp)
{
	FILE *out = pp->out;
	const struct ecp_html_report *r = pp->r;
	size_t nb = pp->nb;
	for (int pass = 0; pass < 2; pass++) {
		fprintf(out, "<path class=\"%s\" d=\"M0,%.1f",
			pass == 0 ? "runnable" : "running", pp->ph);
		size_t count = nb ? nb : r->step_count;
		for (size_t i = 0; i < count; i++) {
			double x0, x1, v;
			if (nb) {
				x0 = (double)i / nb * ECP_HTML_PLOT_W;
				x1 = (double)(i + 1) / nb * ECP_HTML_PLOT_W;
				v = pass == 0 ? pp->rdy[i] : pp->run[i];
			} else {
				x0 = (double)r->steps[i].time_ns / (double)pp->t_end *
				     ECP_HTML_PLOT_W;
				x1 = i + 1 < count
					 ? (double)r->steps[i + 1].time_ns /
					       (double)pp->t_end * ECP_HTML_PLOT_W
					 : ECP_HTML_PLOT_W;
				v = pass == 0 ? r->steps[i].runnable
					      : r->steps[i].running;
			}
			double y = ecp_html_map(&pp->ys, v);
			fprintf(out, "L%.2f,%.1fL%.2f,%.1f", x0, y, x1, y);
		}
		fprintf(out, "L%.0f,%.1fZ\"/>\n", nb || count ? ECP_HTML_PLOT_W : 0.0,
			pp->ph);
	}
}

/* The line at P, the time axis's label, the legend and the cap's note. */
static void profile_close(const struct profile_plot *pp)
{
	FILE *out = pp->out;
	const struct ecp_html_report *r = pp->r;
	double py = ecp_html_map(&pp->ys, r->processors);
	fprintf(out,
		"<line class=\"pline\" x1=\"0\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		"<text class=\"plabel\" x=\"%.0f\" y=\"%.1f\">P = %" PRIu32 "</text>\n",
		ECP_HTML_PLOT_W, py, py, ECP_HTML_PLOT_W - 4, py - 4, r->processors);
	fprintf(out,
		"<text class=\"axislabel\" x=\"%.0f\" y=\"%.0f\">simulated time</text>\n",
		ECP_HTML_PLOT_W / 2, pp->ph + 36);
	fputs("</g></svg>\n<div class=\"legend\"><span class=\"li\"><i class=\"sw "
	      "running\"></i>"
	      "running</span><span class=\"li\"><i class=\"sw "
	      "runnable\"></i>runnable</span>"
	      "<span class=\"li\"><i class=\"sw pkey\"></i>P processors</span></div>\n",
	      out);
	if (pp->nb)
		fprintf(out,
			"<p class=\"note cap\">%zu steps, averaged over %zu time buckets "
			"(cap: %d steps drawn exactly).</p>\n",
			r->step_count, pp->nb, ECP_HTML_MAX_PROFILE_STEPS);
	else if (r->step_count == 0)
		fputs("<p class=\"note\">No parallelism profile was given.</p>\n", out);
	fputs("</section>\n", out);
}

void ecp_html_parallelism_write(struct ecp_html_ctx *c)
{
	FILE *out = c->out;
	struct profile_plot pp = {.out = out, .r = c->r};
	profile_scales(&pp);
	double ph = pp.ph, top = 10,
	       width = ECP_HTML_LEFT + ECP_HTML_PLOT_W + ECP_HTML_RIGHT;

	fputs("<section id=\"parallelism\"><h2>2. Parallelism over time</h2>\n"
	      "<p class=\"note\">Threads running and threads runnable (ready, the "
	      "running ones "
	      "included) against the number of processors P, on the Gantt chart's time "
	      "axis. "
	      "Runnable above P means threads wait for a processor; running below P "
	      "means idle "
	      "processors.</p>\n",
	      out);
	fprintf(out,
		"<svg id=\"prof-svg\" class=\"chart\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 "
		"%.0f %.0f\">\n<defs><clipPath id=\"pclip\"><rect x=\"0\" y=\"0\" "
		"width=\"%.0f\" "
		"height=\"%.0f\"/></clipPath></defs>\n<g "
		"transform=\"translate(%.0f,%.0f)\">\n",
		width, ph + top + 44, width, ph + top + 44, ECP_HTML_PLOT_W, ph,
		ECP_HTML_LEFT, top);
	profile_thread_axis(&pp);
	fprintf(out, "<g id=\"prof-axis\">\n");
	time_ticks(out, (double)pp.t_end, ph, ph);
	fputs("</g>\n<g clip-path=\"url(#pclip)\"><g id=\"prof-plot\">\n", out);
	profile_bucket_steps(&pp);
	profile_areas(&pp);
	free(pp.run);
	free(pp.rdy);
	fputs("</g></g>\n", out);
	profile_close(&pp);
}
