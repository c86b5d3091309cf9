/* SPDX-License-Identifier: MIT */
/* Private helpers of the HTML report: escaping, axes, colours, and the
 * report-wide state shared by its section writers. */
#ifndef ECP_VIZ_HTML_UTIL_H
#define ECP_VIZ_HTML_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "viz/html-report.h"

/* Escapes text for HTML element content and quoted attribute values alike:
 * & < > " ' become entities, bytes that are not valid UTF-8 become U+FFFD,
 * control characters a space. */
void ecp_html_text(FILE *out, const char *s);

/* A name shortened to at most max_chars characters (viz/table.h rules),
 * then escaped; NULL prints "?". */
void ecp_html_name(FILE *out, const char *s, size_t max_chars);

/* "Nice" axis ticks covering [lo, hi] with about `target` ticks: the first
 * tick >= lo and the step (1, 2 or 5 times a power of ten).  Returns the
 * tick count. */
int ecp_html_ticks(double lo, double hi, int target, double *first, double *step);

/* Plot frame helpers: a linear map from data to pixels. */
struct ecp_html_scale {
	double d0, d1; /* data range */
	double p0, p1; /* pixel range */
};
double ecp_html_map(const struct ecp_html_scale *s, double v);

/* Report-wide state: which functions have a name and colour in the
 * document (at most ECP_HTML_MAX_NAMED_FUNCTIONS, in rank order). */
struct ecp_html_ctx {
	FILE *out;
	const struct ecp_html_report *r;
	uint32_t *local; /* function id -> rank, or ECP_HTML_NO_FUNCTION */
	uint32_t *named; /* rank -> function id */
	size_t named_count;
};

/* Gives the function a rank if it has none and there is room; returns its
 * rank or ECP_HTML_NO_FUNCTION. */
uint32_t ecp_html_rank(struct ecp_html_ctx *c, uint32_t function);
/* CSS colour of a rank (ECP_HTML_NO_FUNCTION: the "other" grey). */
void ecp_html_colour(uint32_t rank, char *buf, size_t len);
/* The function's name, or "?" if out of range. */
const char *ecp_html_fname(const struct ecp_html_ctx *c, uint32_t function);

/* Section writers (html-gantt.c, html-plots.c). */
struct ecp_html_gantt;
int ecp_html_gantt_plan(struct ecp_html_ctx *c, struct ecp_html_gantt **plan,
			struct ecp_error *err);
void ecp_html_gantt_write(struct ecp_html_ctx *c, struct ecp_html_gantt *plan);
void ecp_html_parallelism_write(struct ecp_html_ctx *c);
void ecp_html_gantt_destroy(struct ecp_html_gantt *plan);
void ecp_html_tet_plot_write(struct ecp_html_ctx *c);
void ecp_html_speedup_write(struct ecp_html_ctx *c);

/* Geometry shared by the Gantt and the parallelism profile (same time axis). */
#define ECP_HTML_LEFT   180.0 /* thread labels */
#define ECP_HTML_PLOT_W 1080.0
#define ECP_HTML_RIGHT  20.0

#endif
