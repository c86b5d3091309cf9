/* SPDX-License-Identifier: MIT */
/* ecp report: which functions matter on P processors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "answers/consistency-json.h"
#include "cli/consistency.h"
#include "cli/report-reading.h"
#include "cli/session.h"
#include "common/parse.h"
#include "common/units.h"
#include "ecp/analysis.h"
#include "simulator/trace/trace.h"
#include "viz/csv.h"
#include "viz/json.h"
#include "viz/table.h"

enum report_sort { SORT_TET, SORT_TETID, SORT_CALLS, SORT_WORK, SORT_SPAN, SORT_IDLE };

struct report_options {
	struct ecp_cli_common common;
	unsigned processors;
	bool processors_given;
	size_t top;
	bool top_given;
	enum report_sort sort;
};

static const char *const sort_names[] = {"tet", "tetid", "calls", "work", "span", "idle"};

static double sort_key(const struct ecp_function_result *f, enum report_sort sort)
{
	switch (sort) {
	case SORT_TETID:
		return f->tetid_ns;
	case SORT_CALLS:
		return (double)f->calls;
	case SORT_WORK:
		return f->work_ns;
	case SORT_SPAN:
		return f->span_ns;
	case SORT_IDLE:
		return f->idle_ns;
	case SORT_TET:
	default:
		return f->tet_ns;
	}
}

struct row_order {
	enum report_sort sort;
	const struct ecp_model *model;
};

static int compare_rows(const void *pa, const void *pb, void *ctx)
{
	const struct row_order *o = ctx;
	const struct ecp_function_result *a = pa, *b = pb;
	double ka = sort_key(a, o->sort), kb = sort_key(b, o->sort);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (a->tet_ns != b->tet_ns)
		return a->tet_ns > b->tet_ns ? -1 : 1;
	int c = strcmp(o->model->functions[a->function].name,
		       o->model->functions[b->function].name);
	if (c)
		return c;
	return (a->function > b->function) - (a->function < b->function);
}

static int parse_options(int argc, char **argv, struct report_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"top", required_argument, NULL, 't'},
	    {"sort", required_argument, NULL, 's'},
	    {"by", required_argument, NULL, 'b'},
	    {"functions-from", required_argument, NULL, 'F'},
	    {"own-code", no_argument, NULL, 'O'},
	    ECP_CLI_COMMON_LONGOPTS,
	    {NULL, 0, NULL, 0},
	};
	*o = (struct report_options){0}; /* processors_given, top_given */
	ecp_cli_common_init(&o->common);
	o->top = 20;
	o->sort = SORT_TET;
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("report", argc, argv, "P:h", longopts)) != -1) {
		uint64_t v;
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			if ((rc = ecp_cli_parse_processors("report", optarg,
							   &o->processors)))
				return rc;
			o->processors_given = true;
			break;
		case 't':
			if (ecp_parse_u64(optarg, &v) < 0 || v > 1000000)
				return ecp_cli_usage_error(
				    "report", "--top takes a row count, not '%s'",
				    optarg);
			o->top = (size_t)v;
			o->top_given = true;
			break;
		case 's': {
			bool found = false;
			for (unsigned i = 0;
			     i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
				if (!strcmp(optarg, sort_names[i])) {
					o->sort = (enum report_sort)i;
					found = true;
				}
			if (!found)
				return ecp_cli_usage_error(
				    "report",
				    "--sort takes tet, tetid, calls, work, span "
				    "or idle, not '%s'",
				    optarg);
			break;
		}
		case 'b':
			if (!strcmp(optarg, "function"))
				break;
			if (!strcmp(optarg, "callsite")) {
				o->common.by_callsite = true;
				break;
			}
			return ecp_cli_usage_error(
			    "report", "--by takes 'function' or 'callsite', not '%s'",
			    optarg);
		case 'O':
			o->common.own_code = true;
			break;
		case 'F':
			if (!strcmp(optarg, "instrument"))
				o->common.functions_from = ECP_FUNCTIONS_FROM_INSTRUMENT;
			else if (!strcmp(optarg, "samples"))
				o->common.functions_from = ECP_FUNCTIONS_FROM_SAMPLES;
			else if (!strcmp(optarg, "all"))
				o->common.functions_from = ECP_FUNCTIONS_FROM_ALL;
			else
				return ecp_cli_usage_error(
				    "report",
				    "--functions-from takes all, instrument or "
				    "samples, not '%s'",
				    optarg);
			break;
		default:
			if ((rc = ecp_cli_common_option("report", &o->common, opt, optarg,
							ECP_FORMATS_ALL)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("report", &o->common, argc, argv)))
		return rc;
	if (!o->processors_given)
		o->processors = ecp_cli_online_cpus();
	return 0;
}

static void write_json(const struct report_options *o, const struct ecp_model *m,
		       const struct ecp_analysis *a, size_t rows,
		       const struct ecp_consistency *cons)
{
	struct ecp_json_writer w;
	ecp_json_init(&w, stdout, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", o->common.trace_dir);
	ecp_json_kv_string(&w, "program", m->info.program ? m->info.program : "");
	ecp_json_kv_uint(&w, "processors", o->processors);
	ecp_json_kv_uint(&w, "makespan_ns", a->makespan_ns);
	ecp_json_kv_uint(&w, "work_ns", a->work_ns);
	ecp_json_kv_uint(&w, "span_ns", a->span_ns);
	ecp_json_kv_double(&w, "speedup", a->speedup);
	ecp_json_kv_double(&w, "parallelism",
			   a->span_ns ? (double)a->work_ns / (double)a->span_ns : 0.0);
	ecp_json_kv_uint(&w, "idle_ns", a->idle_ns);
	ecp_json_kv_bool(&w, "weights_exact", a->weights_exact);
	ecp_json_kv_uint(&w, "inexact_segments", a->inexact_segments);
	ecp_json_kv_string(&w, "lock_order",
			   o->common.lock_order == ECP_LOCK_ORDER_RECORDED ? "recorded"
									   : "arrival");
	ecp_json_kv_string(&w, "sort", sort_names[o->sort]);
	ecp_json_key(&w, "functions");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < rows; i++) {
		const struct ecp_function_result *f = &a->functions[i];
		ecp_json_begin_object(&w);
		ecp_json_kv_string(&w, "name", m->functions[f->function].name);
		ecp_json_kv_string(&w, "object", m->functions[f->function].object);
		ecp_json_kv_uint(&w, "calls", f->calls);
		if (f->inexact)
			ecp_json_kv_bool(&w, "weights_exact", false);
		ecp_json_kv_int(&w, "tet_ns", llround(f->tet_ns));
		ecp_json_kv_int(&w, "tetid_ns", llround(f->tetid_ns));
		ecp_json_kv_int(&w, "work_ns", llround(f->work_ns));
		ecp_json_kv_int(&w, "span_ns", llround(f->span_ns));
		ecp_json_kv_int(&w, "idle_ns", llround(f->idle_ns));
		ecp_json_kv_uint(&w, "folded_calls",
				 m->functions[f->function].folded_calls);
		if (m->info.samples) {
			uint64_t n = m->functions[f->function].samples;
			ecp_json_kv_uint(&w, "samples", n);
			/* 95% relative error of its sampled self time; 0: exact */
			ecp_json_kv_double(&w, "sample_error", ecp_cli_sample_error(n));
		}
		ecp_json_kv_double(&w, "share",
				   a->makespan_ns ? f->tet_ns / (double)a->makespan_ns
						  : 0.0);
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_answer_consistency_json(&w, cons);
	ecp_json_end_object(&w);
	struct ecp_error err = {0};
	if (ecp_json_finish(&w, &err) < 0)
		fprintf(stderr, "ecp report: %s\n", err.msg);
}

static void write_csv(const struct ecp_model *m, const struct ecp_analysis *a,
		      size_t rows)
{
	struct ecp_csv_writer w;
	ecp_csv_init(&w, stdout);
	const char *hdr[] = {"name",    "calls",   "tet_ns",  "tetid_ns", "share",
			     "work_ns", "span_ns", "idle_ns", "samples"};
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		ecp_csv_string(&w, hdr[i]);
	ecp_csv_end_row(&w);
	for (size_t i = 0; i < rows; i++) {
		const struct ecp_function_result *f = &a->functions[i];
		ecp_csv_string(&w, m->functions[f->function].name);
		ecp_csv_uint(&w, f->calls);
		ecp_csv_int(&w, llround(f->tet_ns));
		ecp_csv_int(&w, llround(f->tetid_ns));
		ecp_csv_double(&w,
			       a->makespan_ns ? f->tet_ns / (double)a->makespan_ns : 0.0);
		ecp_csv_int(&w, llround(f->work_ns));
		ecp_csv_int(&w, llround(f->span_ns));
		ecp_csv_int(&w, llround(f->idle_ns));
		ecp_csv_uint(&w, m->functions[f->function].samples);
		ecp_csv_end_row(&w);
	}
	struct ecp_error err = {0};
	if (ecp_csv_finish(&w, &err) < 0)
		fprintf(stderr, "ecp report: %s\n", err.msg);
}

static int write_table(const struct report_options *o, const struct ecp_cli_session *s,
		       const struct ecp_analysis *a, size_t rows)
{
	const struct ecp_model *m = s->model;
	char t1[32], tp[32], tinf[32], idle[32];
	ecp_format_ns(t1, sizeof(t1), (double)a->work_ns);
	ecp_format_ns(tp, sizeof(tp), (double)a->makespan_ns);
	ecp_format_ns(tinf, sizeof(tinf), (double)a->span_ns);
	ecp_format_ns(idle, sizeof(idle), (double)a->idle_ns);
	printf("trace %s: %s\n", o->common.trace_dir,
	       m->info.program && *m->info.program ? m->info.program
						   : "(unknown program)");
	printf("P = %u processors%s\n", o->processors,
	       o->processors_given ? "" : " (the online CPUs; choose with -P)");
	printf("T1 %s   T%u %s   Tinf %s   speedup %.2f   parallelism %.2f   idle %s\n\n",
	       t1, o->processors, tp, tinf, a->speedup,
	       a->span_ns ? (double)a->work_ns / (double)a->span_ns : 0.0, idle);

	bool sampled = m->info.samples != 0;
	struct ecp_table *t = ecp_table_create(sampled ? 9 : 8);
	if (!t)
		return ecp_cli_fail("report", "out of memory");
	ecp_table_set_column(t, 0, "function", ECP_TABLE_LEFT, ECP_TABLE_SHORTEN);
	ecp_table_set_column(t, 1, "calls", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 2, "TET", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 3, "TETID", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 4, "%T_P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 5, "work", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 6, "span", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 7, "idle", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	if (sampled)
		ecp_table_set_column(t, 8, "samples", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	for (size_t i = 0; i < rows; i++) {
		const struct ecp_function_result *f = &a->functions[i];
		ecp_table_add_row(t);
		uint64_t n = m->functions[f->function].samples;
		if (sampled && n && n < ECP_FEW_SAMPLES)
			ecp_table_cell_printf(t, 0, "%s ~",
					      m->functions[f->function].name);
		else
			ecp_table_cell(t, 0, m->functions[f->function].name);
		if (n && !f->calls)
			ecp_table_cell(t, 1, "-"); /* sampled only: calls unknown */
		else
			ecp_table_cell_uint(t, 1, f->calls);
		ecp_table_cell_ns(t, 2, f->tet_ns);
		ecp_table_cell_ns(t, 3, f->tetid_ns);
		ecp_table_cell_printf(
		    t, 4, "%.1f",
		    a->makespan_ns ? 100.0 * f->tet_ns / (double)a->makespan_ns : 0.0);
		ecp_table_cell_ns(t, 5, f->work_ns);
		ecp_table_cell_ns(t, 6, f->span_ns);
		ecp_table_cell_ns(t, 7, f->idle_ns);
		if (sampled && n)
			ecp_table_cell_printf(t, 8, "%llu ±%.0f%%", (unsigned long long)n,
					      100.0 * ecp_cli_sample_error(n));
		else if (sampled)
			ecp_table_cell(t, 8, "-");
	}
	struct ecp_error err = {0};
	int rc = ecp_table_write(stdout, t, 0, &err);
	ecp_table_destroy(t);
	if (rc < 0)
		return ecp_cli_fail("report", "%s", err.msg);
	if (rows < a->n_functions)
		printf("(%zu more functions; --top 0 shows all)\n",
		       a->n_functions - rows);
	ecp_cli_report_print_folded(stdout, m);
	printf("\n");
	ecp_cli_report_print_legend(stdout);
	if (sampled)
		ecp_cli_report_print_sample_legend(stdout, m);
	return ecp_cli_report_print_reading(stdout, "report", s, a, o->processors);
}

int cmd_report(int argc, char **argv)
{
	struct report_options o = {0};
	int rc = parse_options(argc, argv, &o);
	if (rc)
		return rc;
	struct ecp_cli_session s;
	o.common.max_processors = o.processors;
	if ((rc = ecp_cli_session_open("report", &o.common, &s)))
		return rc;
	struct ecp_analysis a;
	struct ecp_error err = {0};
	if (ecp_analyze(s.model, &s.dag, o.processors, &a, &err) < 0) {
		ecp_cli_session_close(&s);
		return ecp_cli_fail("report", "%s", err.msg);
	}
	if (!a.weights_exact)
		ecp_cli_warn_inexact("report", s.model, &a);
	struct row_order order = {o.sort, s.model};
	qsort_r(a.functions, a.n_functions, sizeof(a.functions[0]), compare_rows, &order);
	/* Tables default to 20 rows; JSON and CSV hold every function unless
	 * --top was given, so scripts see the whole profile. */
	size_t rows = a.n_functions;
	if ((o.common.format == ECP_FORMAT_TABLE || o.top_given) && o.top && o.top < rows)
		rows = o.top;
	rc = ECP_EXIT_OK;
	if (o.common.format == ECP_FORMAT_JSON)
		write_json(&o, s.model, &a, rows, &s.consistency);
	else if (o.common.format == ECP_FORMAT_CSV)
		write_csv(s.model, &a, rows);
	else
		rc = write_table(&o, &s, &a, rows);
	ecp_analysis_finish(&a);
	ecp_cli_session_close(&s);
	return rc;
}
