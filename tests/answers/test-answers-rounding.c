/* SPDX-License-Identifier: MIT */
/* One rounding rule for every printed time (common/time-round.h): the rule
 * itself, and exact halves k + 1/2 -- which printf's %.0f sends to even,
 * truncation down, and llround up -- put into the answers that report,
 * scan and compare write, so that every writer and every format (JSON,
 * CSV, table) must print the same integer for the same quantity.  The
 * values are chosen so that a writer rounding by another rule prints
 * another number: 12.5 is 13 by the rule, 12 to even or truncated. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/compare.h"
#include "answers/report.h"
#include "answers/scan.h"
#include "answers/sweep.h"
#include "common/time-round.h"
#include "common/units.h"
#include "tests/support/gen-model.h"

/* Exact halves, and one a rounding error below a half (as the engine
 * carries an exact k + 1/2 in floating point): all round up. */
#define TET   12.5
#define TETID 14.5
#define WORK  16.5
#define SPAN  (18.5 - 1e-13)
#define IDLE  20.5

static void test_rule(void **state)
{
	(void)state;
	assert_true(ecp_round_ns(2.5L) == 3);
	assert_true(ecp_round_ns(3.5L) == 4);
	assert_true(ecp_round_ns(-2.5L) == -3); /* -x prints as -(x printed) */
	assert_true(ecp_round_ns(2.4999L) == 2);
	assert_true(ecp_round_ns(2.5L - 1e-13L) == 3); /* within the tie bound */
	assert_true(ecp_round_ns(0.0L) == 0);
	assert_true(ecp_round_ns(NAN) == 0);
	assert_true(ecp_round_ns(1e30L) == INT64_MAX);
	assert_true(ecp_round_ns(-1e30L) == INT64_MIN);
	assert_true(ecp_round_time_ns(-0.3L) == 0);
	assert_true(ecp_round_time_ns(1e12L + 0.5L) == 1000000000001ull);
	/* the tables' figure: the same integer, then the unit */
	char buf[32];
	assert_string_equal(ecp_format_ns(buf, sizeof(buf), 2.5), "3 ns");
	assert_string_equal(ecp_format_ns(buf, sizeof(buf), 0.5), "1 ns");
	assert_string_equal(ecp_format_ns(buf, sizeof(buf), -2.5), "-3 ns");
	assert_string_equal(ecp_format_ns(buf, sizeof(buf), 999.5), "1 us");
	assert_string_equal(ecp_format_ns(buf, sizeof(buf), 1500.0), "1.5 us");
}

/* What a writer wrote, as a string (freed by the caller). */
struct capture {
	char *text;
	size_t len;
	FILE *f;
};

static FILE *capture_open(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->text, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static char *capture_close(struct capture *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->text;
}

static void expect(const char *text, const char *what, const char *writer)
{
	if (!text)
		fail_msg("%s: nothing written", writer);
	else if (!strstr(text, what))
		fail_msg("%s: \"%s\" not written in:\n%s", writer, what, text);
}

struct fixture {
	struct ecp_model *m;
	struct ecp_dag dag;
	struct ecp_consistency consistency; /* unchecked: nothing to say */
};

static void fixture_make(struct fixture *f)
{
	struct gen_model_opts o;
	gen_model_opts_default(&o);
	struct ecp_error err = {0};
	memset(f, 0, sizeof(*f));
	/* the first seed whose model has a function with time on the ECP */
	for (uint64_t seed = 1; seed < 100; seed++) {
		if (gen_model_create(seed, &o, &f->m, &err) < 0)
			fail_msg("seed %llu: %s", (unsigned long long)seed, err.msg);
		if (ecp_dag_build(f->m, NULL, ECP_LOCK_ORDER_ARRIVAL, &f->dag, &err) < 0)
			fail_msg("seed %llu: dag: %s", (unsigned long long)seed, err.msg);
		if (f->m->n_functions)
			return;
		ecp_dag_finish(&f->dag);
		gen_model_destroy(f->m);
	}
	fail_msg("no model with functions");
}

static void fixture_free(struct fixture *f)
{
	ecp_dag_finish(&f->dag);
	gen_model_destroy(f->m);
}

static void set_halves(struct ecp_function_result *x)
{
	x->tet_ns = TET;
	x->tetid_ns = TETID;
	x->work_ns = WORK;
	x->span_ns = SPAN;
	x->idle_ns = IDLE;
}

static void check_report(struct fixture *f)
{
	struct ecp_report_run run;
	struct ecp_error err = {0};
	if (ecp_report_run_make(f->m, &f->dag, NULL, 2, ECP_REPORT_SORT_TET, false, NULL,
				&run, &err) < 0)
		fail_msg("report: %s", err.msg);
	assert_true(run.analysis.n_functions > 0);
	set_halves(&run.analysis.functions[0]);
	struct ecp_report_answer ans = {
	    .trace_dir = "t",
	    .model = f->m,
	    .processors = 2,
	    .processors_given = true,
	    .run = &run,
	    .rows = 1,
	    .consistency = &f->consistency,
	};
	struct capture c;
	assert_int_equal(ecp_report_write(capture_open(&c), ECP_FORMAT_JSON, &ans, &err),
			 0);
	char *json = capture_close(&c);
	expect(json, "\"tet_ns\": 13,", "report json");
	expect(json, "\"tetid_ns\": 15,", "report json");
	expect(json, "\"work_ns\": 17,", "report json");
	expect(json, "\"span_ns\": 19,", "report json");
	expect(json, "\"idle_ns\": 21,", "report json");
	free(json);
	assert_int_equal(ecp_report_write(capture_open(&c), ECP_FORMAT_CSV, &ans, &err),
			 0);
	char *csv = capture_close(&c);
	/* name,calls,tet_ns,tetid_ns,share,work_ns,span_ns,idle_ns,samples */
	char *row = strchr(csv, '\n');
	assert_non_null(row);
	long long v[8];
	char *p = strchr(row + 1, ',');
	assert_non_null(p);
	assert_int_equal(sscanf(p, ",%lld,%lld,%lld,%*[^,],%lld,%lld,%lld", &v[0], &v[1],
				&v[2], &v[3], &v[4], &v[5]),
			 6);
	assert_int_equal(v[1], 13);
	assert_int_equal(v[2], 15);
	assert_int_equal(v[3], 17);
	assert_int_equal(v[4], 19);
	assert_int_equal(v[5], 21);
	free(csv);
	assert_int_equal(ecp_report_write(capture_open(&c), ECP_FORMAT_TABLE, &ans, &err),
			 0);
	char *table = capture_close(&c);
	expect(table, " 13 ns", "report table");
	expect(table, " 15 ns", "report table");
	expect(table, " 17 ns", "report table");
	expect(table, " 19 ns", "report table");
	expect(table, " 21 ns", "report table");
	free(table);
	ecp_report_run_finish(&run);
}

static void check_scan(struct fixture *f)
{
	unsigned P[1] = {2};
	struct ecp_answer_sweep sw = {0};
	struct ecp_error err = {0};
	if (ecp_answer_sweep_run(f->m, &f->dag, NULL, P, 1, 1, NULL, &sw, &err) < 0)
		fail_msg("sweep: %s", err.msg);
	assert_true(sw.n_shown > 0);
	struct ecp_function_result *x = sw.points[0].by_function[sw.shown[0]];
	assert_non_null(x);
	set_halves(x);
	struct ecp_scan_answer ans = {
	    .trace_dir = "t",
	    .model = f->m,
	    .work_ns = f->dag.work,
	    .span_ns = f->dag.span,
	    .sweep = &sw,
	    .consistency = &f->consistency,
	};
	struct capture c;
	assert_int_equal(ecp_scan_write(capture_open(&c), ECP_FORMAT_JSON, &ans, &err),
			 0);
	char *json = capture_close(&c);
	/* the arrays of one P, pretty-printed over lines or not */
	char *tet = strstr(json, "\"tet_ns\"");
	char *tetid = strstr(json, "\"tetid_ns\"");
	assert_non_null(tet);
	assert_non_null(tetid);
	long long a = -1, b = -1;
	assert_int_equal(sscanf(tet, "\"tet_ns\": [ %lld", &a), 1);
	assert_int_equal(sscanf(tetid, "\"tetid_ns\": [ %lld", &b), 1);
	assert_int_equal(a, 13);
	assert_int_equal(b, 15);
	free(json);
	assert_int_equal(ecp_scan_write(capture_open(&c), ECP_FORMAT_CSV, &ans, &err), 0);
	char *csv = capture_close(&c);
	expect(csv, ",13,15\n", "scan csv"); /* tet_ns, tetid_ns end the row */
	free(csv);
	assert_int_equal(ecp_scan_write(capture_open(&c), ECP_FORMAT_TABLE, &ans, &err),
			 0);
	char *table = capture_close(&c);
	expect(table, "*13 ns", "scan table"); /* the top at that P */
	free(table);
	ecp_answer_sweep_finish(&sw);
}

static void check_compare(struct fixture *f)
{
	double tet_base[1] = {TET}, tet_other[1] = {TETID};
	struct ecp_compare_point point = {
	    .processors = 2,
	    .makespan_base_ns = 100,
	    .makespan_other_ns = 100,
	};
	struct ecp_compare_function fn = {
	    .name = f->m->functions[0].name,
	    .in_base = true,
	    .in_other = true,
	    .work_base_ns = 10,
	    .work_other_ns = 10,
	    .ratio = 1.0,
	    .tet_base_ns = tet_base,
	    .tet_other_ns = tet_other,
	};
	struct ecp_compare_result r = {
	    .mode = ECP_COMPARE_BEFORE_AFTER,
	    .same_program = true,
	    .base = f->m,
	    .other = f->m,
	    .points = &point,
	    .n_points = 1,
	    .functions = &fn,
	    .n_functions = 1,
	};
	struct ecp_compare_side side = {"t", f->m, f->dag.work, f->dag.span,
					&f->consistency};
	struct ecp_compare_view v = {.r = &r, .base = side, .other = side, .rows = 1};
	struct ecp_error err = {0};
	struct capture c;
	assert_int_equal(ecp_compare_write(capture_open(&c), ECP_FORMAT_JSON, &v, &err),
			 0);
	char *json = capture_close(&c);
	long long a = -1, b = -1, d = -1;
	assert_int_equal(
	    sscanf(strstr(json, "\"tet_base_ns\""), "\"tet_base_ns\": [ %lld", &a), 1);
	assert_int_equal(
	    sscanf(strstr(json, "\"tet_other_ns\""), "\"tet_other_ns\": [ %lld", &b), 1);
	assert_int_equal(
	    sscanf(strstr(json, "\"tet_diff_ns\""), "\"tet_diff_ns\": [ %lld", &d), 1);
	assert_int_equal(a, 13);
	assert_int_equal(b, 15);
	assert_int_equal(d, 2); /* the difference of the printed figures */
	free(json);
	assert_int_equal(ecp_compare_write(capture_open(&c), ECP_FORMAT_CSV, &v, &err),
			 0);
	char *csv = capture_close(&c);
	expect(csv, "tet_ns,", "compare csv");
	expect(csv, ",2,13,15,2,", "compare csv"); /* P, base, other, difference */
	free(csv);
	assert_int_equal(ecp_compare_write(capture_open(&c), ECP_FORMAT_TABLE, &v, &err),
			 0);
	char *table = capture_close(&c);
	expect(table, "13 ns", "compare table");
	expect(table, "15 ns", "compare table");
	free(table);
}

static void test_writers(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f);
	check_report(&f);
	check_scan(&f);
	check_compare(&f);
	fixture_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rule),
	    cmocka_unit_test(test_writers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
