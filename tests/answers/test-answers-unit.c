/* SPDX-License-Identifier: MIT */
/* The answers layer (answers/) on random realistic models (gen-model: locks,
 * semaphores, conditions, barriers and sleeps, three functions): what scan,
 * report and whatif compute, checked against the engine asked directly, one
 * P at a time -- the sweep's batches, its crossovers and shown functions,
 * report's orders, whatif's baseline run -- the scan writer's CSV rows, and
 * the sweep that frees the segment records before its peak (scan's). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/report.h"
#include "answers/scan.h"
#include "answers/sweep.h"
#include "answers/whatif.h"
#include "tests/support/gen-model.h"
#include "tests/support/same-analysis.h"

#define MODELS 400
#define MAX_P  6

static unsigned g_models, g_points, g_crossovers, g_orders, g_runs, g_freed_results;

struct fixture {
	struct ecp_model *m;
	struct ecp_dag dag;
};

static void fixture_make(uint64_t seed, struct fixture *f)
{
	struct gen_model_opts o;
	gen_model_opts_default(&o);
	struct ecp_error err = {0};
	if (gen_model_create(seed, &o, &f->m, &err) < 0)
		fail_msg("seed %llu: %s", (unsigned long long)seed, err.msg);
	if (ecp_dag_build(f->m, NULL, ECP_LOCK_ORDER_ARRIVAL, &f->dag, &err) < 0)
		fail_msg("seed %llu: dag: %s", (unsigned long long)seed, err.msg);
}

static void fixture_free(struct fixture *f)
{
	ecp_dag_finish(&f->dag);
	gen_model_destroy(f->m);
}

/* The function with the largest positive TET in an analysis (its functions
 * sorted by TET, ties decided by the engine), or ECP_NO_ID. */
static ecp_id top_of(const struct ecp_analysis *a)
{
	return a->n_functions && a->functions[0].tet_ns > 0 ? a->functions[0].function
							    : ECP_NO_ID;
}

static void check_sweep(uint64_t seed, const struct fixture *f)
{
	unsigned P[MAX_P];
	for (unsigned i = 0; i < MAX_P; i++)
		P[i] = i + 1;
	struct ecp_answer_sweep sw;
	struct ecp_error err = {0};
	if (ecp_answer_sweep_run(f->m, &f->dag, NULL, P, MAX_P, 1, NULL, &sw, &err) < 0)
		fail_msg("seed %llu: sweep: %s", (unsigned long long)seed, err.msg);
	assert_int_equal(sw.n_points, MAX_P);
	ecp_id tops[MAX_P];
	size_t crossings = 0;
	for (unsigned i = 0; i < MAX_P; i++) {
		struct ecp_analysis a;
		if (ecp_analyze(f->m, &f->dag, P[i], NULL, &a, &err) < 0)
			fail_msg("seed %llu: analyse P=%u: %s", (unsigned long long)seed,
				 P[i], err.msg);
		const struct ecp_answer_sweep_point *p = &sw.points[i];
		assert_int_equal(p->processors, P[i]);
		assert_int_equal(p->analysis.makespan_ns, a.makespan_ns);
		/* every function's TET as the engine gives it for this P alone */
		for (size_t k = 0; k < a.n_functions; k++) {
			const struct ecp_function_result *x =
			    p->by_function[a.functions[k].function];
			assert_non_null(x);
			if (fabs(x->tet_ns - a.functions[k].tet_ns) >
			    1e-6 * (1 + fabs(x->tet_ns)))
				fail_msg("seed %llu P=%u: sweep TET %.3f, alone %.3f",
					 (unsigned long long)seed, P[i], x->tet_ns,
					 a.functions[k].tet_ns);
		}
		tops[i] = top_of(&a);
		const struct ecp_function_result *t = ecp_answer_sweep_top(p);
		assert_true(t ? t->function == tops[i] : tops[i] == ECP_NO_ID);
		if (i > 0 && tops[i] != ECP_NO_ID && tops[i - 1] != ECP_NO_ID &&
		    tops[i] != tops[i - 1]) {
			assert_true(crossings < sw.n_crossovers);
			assert_int_equal(sw.crossover_at[crossings], i);
			crossings++;
		}
		ecp_analysis_finish(&a);
		g_points++;
	}
	assert_int_equal(crossings, sw.n_crossovers);
	g_crossovers += (unsigned)crossings;
	/* shown: every P's top, by decreasing peak TET */
	for (unsigned i = 0; i < MAX_P; i++) {
		bool in = tops[i] == ECP_NO_ID;
		for (size_t k = 0; k < sw.n_shown && !in; k++)
			in = sw.shown[k] == tops[i];
		assert_true(in);
	}
	double last = INFINITY;
	for (size_t k = 0; k < sw.n_shown; k++) {
		double peak = 0;
		for (unsigned i = 0; i < MAX_P; i++) {
			const struct ecp_function_result *x =
			    sw.points[i].by_function[sw.shown[k]];
			if (x && x->tet_ns > peak)
				peak = x->tet_ns;
		}
		assert_true(peak <= last);
		last = peak;
	}
	/* the scan writer: a header and a row per (P, shown function) */
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	struct ecp_scan_answer ans = {.trace_dir = "t", .model = f->m, .sweep = &sw};
	assert_int_equal(ecp_scan_write(out, ECP_FORMAT_CSV, &ans, &err), 0);
	fclose(out);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	assert_int_equal(lines, 1 + sw.n_points * sw.n_shown);
	free(buf);
	ecp_answer_sweep_finish(&sw);
}

static double key_of(const struct ecp_function_result *x, enum ecp_report_sort s)
{
	switch (s) {
	case ECP_REPORT_SORT_TETID:
		return x->tetid_ns;
	case ECP_REPORT_SORT_CALLS:
		return (double)x->calls;
	case ECP_REPORT_SORT_WORK:
		return x->work_ns;
	case ECP_REPORT_SORT_SPAN:
		return x->span_ns;
	case ECP_REPORT_SORT_IDLE:
		return x->idle_ns;
	default:
		return x->tet_ns;
	}
}

static void check_report(uint64_t seed, const struct fixture *f)
{
	unsigned p = 1 + (unsigned)(seed % 4);
	for (unsigned s = 0; s < ECP_REPORT_SORTS; s++) {
		struct ecp_report_run run;
		struct ecp_error err = {0};
		if (ecp_report_run_make(f->m, &f->dag, NULL, p, s, s == 0, NULL, &run,
					&err) < 0)
			fail_msg("seed %llu: report: %s", (unsigned long long)seed,
				 err.msg);
		const struct ecp_analysis *a = &run.analysis;
		for (size_t i = 1; i < a->n_functions; i++)
			assert_true(key_of(&a->functions[i - 1], s) >=
				    key_of(&a->functions[i], s));
		/* the reading's sweep: P = 1..16, made only when something has
		 * time on the ECP */
		if (s == 0)
			assert_int_equal(run.reading.n_points,
					 ecp_report_top(a) ? (p > 16 ? p : 16) : 0);
		const char *name = ecp_report_sort_name(s);
		enum ecp_report_sort back;
		assert_int_equal(ecp_report_sort_from_name(name, &back), 0);
		assert_int_equal(back, s);
		ecp_report_run_finish(&run);
		g_orders++;
	}
}

static void check_whatif(uint64_t seed, const struct fixture *f)
{
	unsigned P[MAX_P];
	for (unsigned i = 0; i < MAX_P; i++)
		P[i] = i + 1;
	/* 0% faster changes nothing; the baseline is T_P as analysed */
	struct ecp_whatif_change c = {
	    .function = 0, .faster_pct = 0, .scope = ECP_WHATIF_INCLUSIVE};
	struct ecp_whatif_runs runs = {0};
	struct ecp_error err = {0};
	if (ecp_whatif_runs_make(f->m, &f->dag, &c, f->m->n_functions ? 1 : 0,
				 ECP_LOCK_ORDER_ARRIVAL, ECP_SCHED_IDEAL, P, MAX_P, NULL,
				 &runs, &err) < 0)
		fail_msg("seed %llu: whatif: %s", (unsigned long long)seed, err.msg);
	for (unsigned i = 0; i < MAX_P; i++) {
		struct ecp_analysis a;
		if (ecp_analyze(f->m, &f->dag, P[i], NULL, &a, &err) < 0)
			fail_msg("seed %llu: analyse: %s", (unsigned long long)seed,
				 err.msg);
		assert_int_equal(runs.base[i].makespan, a.makespan_ns);
		assert_int_equal(runs.what[i].makespan, runs.base[i].makespan);
		ecp_analysis_finish(&a);
		g_runs++;
	}
	ecp_whatif_runs_finish(&runs);
}

/* Freeing the segment records and the DAG's ASAP schedule before the
 * plan's build (what scan does) changes nothing a sweep says: every point
 * as the sweep that keeps them gives it, bit for bit, and they are gone.
 * Last: the model and the DAG lose them. */
static void check_sweep_freeing(uint64_t seed, struct fixture *f)
{
	unsigned P[MAX_P];
	for (unsigned i = 0; i < MAX_P; i++)
		P[i] = i + 1;
	struct ecp_answer_sweep kept, freed;
	struct ecp_error err = {0};
	if (ecp_answer_sweep_run(f->m, &f->dag, NULL, P, MAX_P, 1, NULL, &kept, &err) < 0)
		fail_msg("seed %llu: sweep: %s", (unsigned long long)seed, err.msg);
	if (ecp_answer_sweep_run_freeing(f->m, &f->dag, NULL, P, MAX_P, 1, NULL, &freed,
					 &err) < 0)
		fail_msg("seed %llu: freeing sweep: %s", (unsigned long long)seed,
			 err.msg);
	assert_null(f->m->segments);
	assert_null(f->m->edges);
	assert_null(f->dag.start);
	assert_null(f->dag.end);
	assert_int_equal(freed.n_points, kept.n_points);
	assert_int_equal(freed.n_crossovers, kept.n_crossovers);
	assert_int_equal(freed.n_shown, kept.n_shown);
	for (size_t k = 0; k < kept.n_shown; k++)
		assert_int_equal(freed.shown[k], kept.shown[k]);
	for (size_t i = 0; i < kept.n_points; i++) {
		assert_same_analysis(&freed.points[i].analysis, &kept.points[i].analysis);
		g_freed_results += (unsigned)kept.points[i].analysis.n_functions;
	}
	ecp_answer_sweep_finish(&kept);
	ecp_answer_sweep_finish(&freed);
}

static void test_answers(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= MODELS; seed++) {
		struct fixture f;
		fixture_make(seed, &f);
		check_sweep(seed, &f);
		check_report(seed, &f);
		check_whatif(seed, &f);
		check_sweep_freeing(seed, &f);
		fixture_free(&f);
		g_models++;
	}
	printf(
	    "answers: %u models, %u points (%u crossovers), %u orders, %u what-if runs, "
	    "%u function results of freeing sweeps\n",
	    g_models, g_points, g_crossovers, g_orders, g_runs, g_freed_results);
	assert_int_equal(g_models, MODELS);
	assert_int_equal(g_points, MODELS * MAX_P);
	assert_int_equal(g_orders, MODELS * ECP_REPORT_SORTS);
	assert_int_equal(g_runs, MODELS * MAX_P);
	/* the models must exercise the crossovers, or the check proves nothing */
	assert_true(g_crossovers > 0);
	assert_true(g_freed_results >= MODELS * MAX_P);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_answers)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
