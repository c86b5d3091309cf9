/* SPDX-License-Identifier: MIT */
/* The HTML report from C: escaping of hostile names, the five sections, the
 * warnings box, the size bound on a million segments, the thread cap, the
 * factored speedups and input validation.  (tests/viz/html-chromium.sh renders it.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "viz/html-report.h"

/* Occurrences of needle.  Not a strstr loop: sanitizers' strstr measures the
 * whole haystack on every call, quadratic on a multi-megabyte report. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(hay), m = strlen(needle);
	for (size_t i = 0; i + m <= len; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, m) == 0)
			n++;
	return n;
}

static char *render(const struct ecp_html_report *r, int *rc, struct ecp_error *err,
		    size_t *len)
{
	/* Static: gcc's dangling-pointer analysis mistakes the stream's buffer
	 * for this function's local variable otherwise. */
	static char *data;
	static size_t n;
	FILE *f = open_memstream(&data, &n);
	*rc = ecp_html_report_write(f, r, err);
	fclose(f);
	if (len)
		*len = n;
	return data;
}

static const char *evil_functions[] = {
    "main",
    "</script><script>alert(1)</script>",
    "std::vector<int>::push_back",
    "x\" onmouseover=\"alert(2)",
};
static const char *evil_threads[] = {"main", "<img src=x onerror=alert(3)>"};

static void small_report(struct ecp_html_report *r, struct ecp_html_segment *seg,
			 struct ecp_html_function_row *rows, struct ecp_html_scan *scan)
{
	seg[0] =
	    (struct ecp_html_segment){0, 0, 0, 100, 100, 1.0, 0, ECP_HTML_MARK_CREATE};
	seg[1] =
	    (struct ecp_html_segment){1, 1, 100, 300, 200, 1.0, 0, ECP_HTML_MARK_EXIT};
	seg[2] =
	    (struct ecp_html_segment){0, 2, 100, 250, 150, 0.0, 0, ECP_HTML_MARK_JOIN};
	seg[3] =
	    (struct ecp_html_segment){0, 3, 300, 400, 100, 1.0, ECP_HTML_MARK_JOIN, 0};
	for (uint32_t f = 0; f < 4; f++)
		rows[f] = (struct ecp_html_function_row){f,  1, 100.0 * (4 - f), 100, 100,
							 50, 0};
	static const uint32_t procs[] = {1, 2};
	static const int64_t makespan[] = {550, 400};
	static const uint32_t top[] = {1, 3};
	static const double tet[] = {200, 100, 150, 160};
	static const struct ecp_html_crossover cross[] = {{2, 1, 3}};
	*scan = (struct ecp_html_scan){2, procs, makespan, 2, top, tet, 1, cross};
	*r = (struct ecp_html_report){
	    .title = "<title>x</title>",
	    .processors = 2,
	    .makespan_ns = 400,
	    .work_ns = 550,
	    .span_ns = 400,
	    .thread_count = 2,
	    .thread_names = evil_threads,
	    .function_count = 4,
	    .function_names = evil_functions,
	    .segment_count = 4,
	    .segments = seg,
	    .scan = scan,
	    .row_count = 4,
	    .rows = rows,
	};
}

/* small_report rendered, with n warnings. */
static char *render_small(const char *const *warnings, size_t n)
{
	struct ecp_html_report r;
	struct ecp_html_segment seg[4];
	struct ecp_html_function_row rows[4];
	struct ecp_html_scan scan;
	small_report(&r, seg, rows, &scan);
	r.warning_count = n;
	r.warnings = warnings;
	int rc;
	char *html = render(&r, &rc, NULL, NULL);
	assert_int_equal(rc, ECP_OK);
	return html;
}

static void test_names_are_escaped(void **state)
{
	(void)state;
	char *html = render_small(NULL, 0);
	/* One script element: ours. */
	assert_int_equal(count(html, "<script"), 1);
	assert_null(strstr(html, "alert(1)</script>"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "\" onmouseover"));
	assert_non_null(
	    strstr(html, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(html, "std::vector&lt;int&gt;::push_back"));
	assert_non_null(strstr(html, "x&quot; onmouseover=&quot;alert(2)"));
	assert_non_null(strstr(html, "<title>&lt;title&gt;x&lt;/title&gt;</title>"));
	/* The five parts and nothing fetched from elsewhere. */
	const char *ids[] = {"id=\"gantt\"", "id=\"parallelism\"", "id=\"tet-vs-p\"",
			     "id=\"speedup\"", "id=\"functions\""};
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(count(html, ids[i]), 1);
	/* (The script names the SVG namespace URI, which is not fetched.) */
	assert_null(strstr(html, " src=\""));
	assert_null(strstr(html, "href=\"http"));
	assert_null(strstr(html, "url(http"));
	assert_null(strstr(html, "@import"));
	assert_null(strstr(html, "https://"));
	/* ECP segments are the tall ones; marks are drawn. */
	assert_int_equal(count(html, "data-s="), 4);
	assert_int_equal(count(html, " e\" data-s="), 3);
	assert_int_equal(count(html, "<use href=\"#mk"), 4);
	assert_non_null(strstr(html, "P=2: "));
	free(html);
}

static void test_million_segments_stay_bounded(void **state)
{
	(void)state;
	const size_t n = 1000000, threads = 16;
	struct ecp_html_segment *seg = calloc(n, sizeof(*seg));
	struct ecp_html_step *steps = calloc(n, sizeof(*steps));
	assert_non_null(seg);
	assert_non_null(steps);
	const char *fn[64];
	char names[64][64];
	for (int i = 0; i < 64; i++) {
		snprintf(names[i], sizeof(names[i]), "ns::component%d::function_%d(int)",
			 i, i);
		fn[i] = names[i];
	}
	const char *tn[16];
	for (size_t t = 0; t < threads; t++)
		tn[t] = "worker";
	uint64_t x = 12345;
	int64_t clock[16] = {0};
	for (size_t i = 0; i < n; i++) {
		uint32_t t = (uint32_t)(i % threads);
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* Mostly tiny segments, now and then a long one. */
		int64_t len =
		    (x >> 33) % 100 == 0 ? 2000000 : 200 + (int64_t)((x >> 20) % 800);
		seg[i] = (struct ecp_html_segment){t,
						   (uint32_t)((x >> 40) % 64),
						   clock[t],
						   clock[t] + len,
						   len,
						   (x >> 50) % 3 ? 0 : 1,
						   ECP_HTML_MARK_LOCK,
						   ECP_HTML_MARK_UNLOCK};
		clock[t] += len + 50;
	}
	int64_t end = 0;
	for (size_t t = 0; t < threads; t++)
		end = clock[t] > end ? clock[t] : end;
	for (size_t i = 0; i < n; i++)
		steps[i] = (struct ecp_html_step){end / (int64_t)n * (int64_t)i,
						  (uint32_t)(i % 5), (uint32_t)(i % 9)};
	struct ecp_html_function_row rows[64];
	for (uint32_t f = 0; f < 64; f++)
		rows[f] = (struct ecp_html_function_row){f, 100, 1e6, 1e6, 1e6, 1e5, 0};
	struct ecp_html_report r = {
	    .processors = 4,
	    .makespan_ns = end,
	    .work_ns = end * 8,
	    .span_ns = end / 2,
	    .thread_count = threads,
	    .thread_names = tn,
	    .function_count = 64,
	    .function_names = fn,
	    .segment_count = n,
	    .segments = seg,
	    .step_count = n,
	    .steps = steps,
	    .row_count = 64,
	    .rows = rows,
	};
	int rc;
	size_t len;
	char *html = render(&r, &rc, NULL, &len);
	assert_int_equal(rc, ECP_OK);
	print_message("1M segments, 1M steps: %zu bytes, %zu bars\n", len,
		      count(html, "data-s="));
	assert_true(len < ECP_HTML_SIZE_BOUND);
	assert_true(count(html, "data-s=") <= ECP_HTML_DEFAULT_MAX_SEGMENTS);
	assert_true(count(html, "data-s=") > 100);
	assert_non_null(strstr(html, "hatched summary bars"));
	assert_non_null(strstr(html, "averaged over"));
	assert_non_null(strstr(html, "id=\"gantt-cap\""));

	/* A smaller cap is honoured too. */
	r.max_segments = 500;
	free(html);
	html = render(&r, &rc, NULL, &len);
	assert_int_equal(rc, ECP_OK);
	assert_true(count(html, "data-s=") <= 500);
	assert_non_null(strstr(html, "widened to fit the cap"));
	free(html);
	free(seg);
	free(steps);
}

/* Every cap reached at once, with names made of characters that all need an
 * entity and times near 10^13 ns: the documented worst case. */
static void test_adversarial_input_stays_bounded(void **state)
{
	(void)state;
	/* Per thread 75 groups over 10^13 ns: every 9th a long segment with two
	 * marks, the others three tiny segments that become a summary bar; 256
	 * threads drawn give 19,200 bars and 4,608 marks, just under the caps. */
	const size_t nf = 700, nt = 400, groups = 75, np = 300;
	const size_t ns = nt * groups * 3;
	char *longname = malloc(1001);
	assert_non_null(longname);
	memset(longname, '&', 1000);
	longname[1000] = '\0';
	const char **fn = calloc(nf, sizeof(*fn)), **tn = calloc(nt, sizeof(*tn));
	struct ecp_html_segment *seg = calloc(ns, sizeof(*seg));
	struct ecp_html_function_row *rows = calloc(nf, sizeof(*rows));
	uint32_t *procs = calloc(np, sizeof(*procs));
	int64_t *mk = calloc(np, sizeof(*mk));
	double *tet = calloc(np * 10, sizeof(*tet));
	struct ecp_html_crossover *cross = calloc(np, sizeof(*cross));
	assert_true(fn && tn && seg && rows && procs && mk && tet && cross);
	for (size_t f = 0; f < nf; f++) {
		fn[f] = longname;
		rows[f] = (struct ecp_html_function_row){(uint32_t)f, 1,    1e13, 1e13,
							 1e13,        1e12, 1e12};
	}
	for (size_t t = 0; t < nt; t++)
		tn[t] = longname;
	const int64_t span = 10000000000000ll, g = span / (int64_t)groups;
	size_t n = 0;
	for (size_t t = 0; t < nt; t++)
		for (size_t k = 0; k < groups; k++) {
			int64_t at = (int64_t)k * g + 1234567;
			uint32_t f = (uint32_t)((t + k) % nf);
			if (k % 9 == 0) {
				seg[n++] =
				    (struct ecp_html_segment){(uint32_t)t,
							      f,
							      at,
							      at + g / 2,
							      g / 2,
							      1.23456789,
							      ECP_HTML_MARK_DELAY,
							      ECP_HTML_MARK_BARRIER};
				continue;
			}
			for (int j = 0; j < 3; j++) {
				int64_t a = at + j * (g / 1000);
				seg[n++] =
				    (struct ecp_html_segment){(uint32_t)t,
							      f,
							      a,
							      a + g / 10000,
							      g / 10000,
							      -0.987654321,
							      ECP_HTML_MARK_DELAY,
							      ECP_HTML_MARK_BARRIER};
			}
		}
	const int64_t base = span;
	uint32_t top[10];
	for (uint32_t f = 0; f < 10; f++)
		top[f] = f;
	for (size_t p = 0; p < np; p++) {
		procs[p] = (uint32_t)p + 1;
		mk[p] = base * 2 / (int64_t)(p + 1);
		for (size_t f = 0; f < 10; f++)
			tet[p * 10 + f] = 1e12 * (double)((p + f) % 7);
		cross[p] = (struct ecp_html_crossover){
		    (uint32_t)p + 1, (uint32_t)(p % 10), (uint32_t)((p + 1) % 10)};
	}
	struct ecp_html_scan scan = {np, procs, mk, 10, top, tet, np, cross};
	struct ecp_html_measured measured[] = {{1, 1e4}, {8, 2e3}};
	struct ecp_html_report r = {
	    .title = longname,
	    .trace_path = longname,
	    .program = longname,
	    .processors = 8,
	    .makespan_ns = base * 2,
	    .work_ns = base * 8,
	    .span_ns = base,
	    .thread_count = nt,
	    .thread_names = tn,
	    .function_count = nf,
	    .function_names = fn,
	    .segment_count = ns,
	    .segments = seg,
	    .scan = &scan,
	    .measured_count = 2,
	    .measured = measured,
	    .row_count = nf,
	    .rows = rows,
	};
	int rc;
	size_t len;
	char *html = render(&r, &rc, NULL, &len);
	assert_int_equal(rc, ECP_OK);
	print_message("adversarial input: %zu bytes, %zu bars, %zu marks\n", len,
		      count(html, "data-s="), count(html, "<use href=\"#mk"));
	assert_true(len < ECP_HTML_SIZE_BOUND);
	assert_true(count(html, "data-s=") <= ECP_HTML_DEFAULT_MAX_SEGMENTS);
	assert_true(count(html, "data-s=") > ECP_HTML_DEFAULT_MAX_SEGMENTS * 9 / 10);
	assert_true(count(html, "<use href=\"#mk") <= ECP_HTML_MAX_MARKS);
	assert_true(count(html, "<use href=\"#mk") > ECP_HTML_MAX_MARKS * 9 / 10);
	free(html);
	free(longname);
	free(fn);
	free(tn);
	free(seg);
	free(rows);
	free(procs);
	free(mk);
	free(tet);
	free(cross);
}

static void test_thread_rows_are_capped(void **state)
{
	(void)state;
	const size_t threads = 1000;
	const char **tn = calloc(threads, sizeof(*tn));
	struct ecp_html_segment *seg = calloc(threads, sizeof(*seg));
	assert_non_null(tn);
	assert_non_null(seg);
	const char *fn[] = {"f"};
	for (size_t t = 0; t < threads; t++) {
		tn[t] = "t";
		seg[t] =
		    (struct ecp_html_segment){(uint32_t)t, 0, 0, 1000, 1000, 0, 0, 0};
	}
	struct ecp_html_report r = {
	    .processors = 8,
	    .makespan_ns = 1000,
	    .work_ns = 1000000,
	    .span_ns = 1000,
	    .thread_count = threads,
	    .thread_names = tn,
	    .function_count = 1,
	    .function_names = fn,
	    .segment_count = threads,
	    .segments = seg,
	};
	int rc;
	char *html = render(&r, &rc, NULL, NULL);
	assert_int_equal(rc, ECP_OK);
	assert_int_equal(count(html, "data-s="), ECP_HTML_MAX_THREAD_ROWS);
	assert_non_null(strstr(html, "Only the first 256 threads are drawn; 744 more"));
	free(html);
	free(tn);
	free(seg);
}

/* Nothing but P: no segments, profile, sweep, runs or table.  Every part is
 * still there and says what is missing. */
/* The warnings the command printed are shown under the summary, escaped;
 * no warning, no box. */
static void test_warnings_are_shown(void **state)
{
	(void)state;
	char *html = render_small(NULL, 0);
	assert_int_equal(count(html, "class=\"warnings\""), 0);
	free(html);
	const char *warnings[] = {"near tie in the OpenMP task deal: 1 < 2",
				  "<b>lost</b> events"};
	html = render_small(warnings, 2);
	assert_int_equal(count(html, "class=\"warnings\""), 1);
	assert_non_null(
	    strstr(html, "<li>near tie in the OpenMP task deal: 1 &lt; 2</li>"));
	assert_non_null(strstr(html, "<li>&lt;b&gt;lost&lt;/b&gt; events</li>"));
	free(html);
}

static void test_empty_report(void **state)
{
	(void)state;
	struct ecp_html_report r = {.processors = 4};
	int rc;
	char *html = render(&r, &rc, NULL, NULL);
	assert_int_equal(rc, ECP_OK);
	const char *ids[] = {"id=\"gantt\"", "id=\"parallelism\"", "id=\"tet-vs-p\"",
			     "id=\"speedup\"", "id=\"functions\""};
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(count(html, ids[i]), 1);
	assert_int_equal(count(html, "data-s="), 0);
	assert_non_null(strstr(html, "No processor sweep was given"));
	assert_non_null(strstr(html, "No parallelism profile was given"));
	assert_non_null(strstr(html, "No function data was given"));
	free(html);
}

static void test_profile_from_segments(void **state)
{
	(void)state;
	struct ecp_html_segment seg[] = {
	    {.thread = 1, .start_ns = 5, .end_ns = 15},
	    {.thread = 0, .start_ns = 0, .end_ns = 10},
	    {.thread = 2, .start_ns = 5, .end_ns = 5}, /* zero length: ignored */
	    {.thread = 0, .start_ns = 20, .end_ns = 30},
	    {.thread = 2, .start_ns = 22, .end_ns = 30},
	};
	struct ecp_html_step *st;
	size_t n;
	assert_int_equal(ecp_html_profile_from_segments(seg, 5, 1, &st, &n, NULL),
			 ECP_OK);
	const struct ecp_html_step want[] = {{0, 1, 1},  {5, 1, 2},  {10, 1, 1},
					     {15, 0, 0}, {20, 1, 1}, {22, 1, 2},
					     {30, 0, 0}};
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(st[i].time_ns, want[i].time_ns);
		assert_int_equal(st[i].running, want[i].running);
		assert_int_equal(st[i].runnable, want[i].runnable);
	}
	free(st);
	/* With P = 2 both run; a back-to-back segment causes no step. */
	seg[0].start_ns = 10;
	assert_int_equal(ecp_html_profile_from_segments(seg, 2, 2, &st, &n, NULL),
			 ECP_OK);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].runnable, 1);
	assert_int_equal(st[1].time_ns, 15); /* nothing at 10: one ends, one starts */
	assert_int_equal(st[1].runnable, 0);
	free(st);
	struct ecp_error err = {0};
	seg[0].end_ns = 1;
	assert_int_equal(ecp_html_profile_from_segments(seg, 2, 2, &st, &n, &err),
			 ECP_ERR_USAGE);
}

static void test_factored_speedups(void **state)
{
	(void)state;
	struct ecp_factored_speedup f;
	/* T_s = T_1 = 100, measured T_4 = 30, predicted I_4 = 20. */
	ecp_factored_speedup(100, 100, 30, 4, 20, &f);
	assert_true(f.linear == 4);
	assert_true(fabs(f.maximal - 4.0) < 1e-12);
	assert_true(fabs(f.idle_specific - 400.0 / 120.0) < 1e-12);
	assert_true(fabs(f.inflation_specific - 400.0 / 100.0) < 1e-12);
	assert_true(fabs(f.actual - 100.0 / 30.0) < 1e-12);
	assert_true(fabs(f.inflation_ns - 0.0) < 1e-12); /* 4*30 - 20 - 100 */
	/* A slower baseline and real inflation. */
	ecp_factored_speedup(80, 100, 40, 4, 20, &f);
	assert_true(fabs(f.maximal - 3.2) < 1e-12);
	assert_true(fabs(f.inflation_ns - 40.0) < 1e-12);
	assert_true(fabs(f.inflation_specific - 320.0 / 140.0) < 1e-12);
	/* The order the paper proves: actual <= both specific ones <= maximal. */
	assert_true(f.actual <= f.idle_specific && f.actual <= f.inflation_specific);
	assert_true(f.idle_specific <= f.maximal && f.inflation_specific <= f.maximal);
	/* Unknown idle time. */
	ecp_factored_speedup(100, 100, 30, 4, -1, &f);
	assert_true(isnan(f.idle_specific) && isnan(f.inflation_specific));
}

static void test_bad_input_is_a_usage_error(void **state)
{
	(void)state;
	struct ecp_html_report r;
	struct ecp_html_segment seg[4];
	struct ecp_html_function_row rows[4];
	struct ecp_html_scan scan;
	small_report(&r, seg, rows, &scan);
	struct ecp_error err = {0};
	int rc;
	rows[2].function = 99;
	free(render(&r, &rc, &err, NULL));
	assert_int_equal(rc, ECP_ERR_USAGE);
	assert_non_null(strstr(err.msg, "function 99"));
	rows[2].function = 2;
	seg[1].thread = 5;
	free(render(&r, &rc, &err, NULL));
	assert_int_equal(rc, ECP_ERR_USAGE);
	assert_non_null(strstr(err.msg, "segment #1"));
	seg[1].thread = 1;
	r.processors = 0;
	free(render(&r, &rc, &err, NULL));
	assert_int_equal(rc, ECP_ERR_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_are_escaped),
	    cmocka_unit_test(test_million_segments_stay_bounded),
	    cmocka_unit_test(test_adversarial_input_stays_bounded),
	    cmocka_unit_test(test_thread_rows_are_capped),
	    cmocka_unit_test(test_warnings_are_shown),
	    cmocka_unit_test(test_empty_report),
	    cmocka_unit_test(test_profile_from_segments),
	    cmocka_unit_test(test_factored_speedups),
	    cmocka_unit_test(test_bad_input_is_a_usage_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
