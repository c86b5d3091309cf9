/* SPDX-License-Identifier: MIT */
/* Writes ecp report's answer (answers/report.h). */
#include <math.h>

#include "answers/consistency-json.h"
#include "answers/report-reading.h"
#include "answers/report.h"
#include "common/time-round.h"
#include "common/units.h"
#include "viz/csv.h"
#include "viz/json.h"
#include "viz/table.h"

static int write_json(FILE *out, const struct ecp_report_answer *ans,
		      struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_analysis *a = &ans->run->analysis;
	size_t rows = ans->rows;
	struct ecp_json_writer w;
	ecp_json_init(&w, out, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", ans->trace_dir);
	ecp_json_kv_string(&w, "program", m->info.program ? m->info.program : "");
	ecp_json_kv_uint(&w, "processors", ans->processors);
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
			   ans->lock_order == ECP_LOCK_ORDER_RECORDED ? "recorded"
								      : "arrival");
	ecp_json_kv_string(&w, "sort", ecp_report_sort_name(ans->sort));
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
		ecp_json_kv_int(&w, "tet_ns", ecp_round_ns(f->tet_ns));
		ecp_json_kv_int(&w, "tetid_ns", ecp_round_ns(f->tetid_ns));
		ecp_json_kv_int(&w, "work_ns", ecp_round_ns(f->work_ns));
		ecp_json_kv_int(&w, "span_ns", ecp_round_ns(f->span_ns));
		ecp_json_kv_int(&w, "idle_ns", ecp_round_ns(f->idle_ns));
		ecp_json_kv_uint(&w, "folded_calls",
				 m->functions[f->function].folded_calls);
		if (m->info.samples) {
			uint64_t n = m->functions[f->function].samples;
			ecp_json_kv_uint(&w, "samples", n);
			/* 95% relative error of its sampled self time; 0: exact */
			ecp_json_kv_double(&w, "sample_error",
					   ecp_report_sample_error(n));
		}
		ecp_json_kv_double(&w, "share",
				   a->makespan_ns ? f->tet_ns / (double)a->makespan_ns
						  : 0.0);
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_answer_warnings_json(&w, m);
	ecp_answer_consistency_json(&w, ans->consistency);
	ecp_json_end_object(&w);
	return ecp_json_finish(&w, err);
}

static int write_csv(FILE *out, const struct ecp_report_answer *ans,
		     struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_analysis *a = &ans->run->analysis;
	size_t rows = ans->rows;
	struct ecp_csv_writer w;
	ecp_csv_init(&w, out);
	const char *hdr[] = {"name",    "calls",   "tet_ns",  "tetid_ns", "share",
			     "work_ns", "span_ns", "idle_ns", "samples"};
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		ecp_csv_string(&w, hdr[i]);
	ecp_csv_end_row(&w);
	for (size_t i = 0; i < rows; i++) {
		const struct ecp_function_result *f = &a->functions[i];
		ecp_csv_string(&w, m->functions[f->function].name);
		ecp_csv_uint(&w, f->calls);
		ecp_csv_int(&w, ecp_round_ns(f->tet_ns));
		ecp_csv_int(&w, ecp_round_ns(f->tetid_ns));
		ecp_csv_double(&w,
			       a->makespan_ns ? f->tet_ns / (double)a->makespan_ns : 0.0);
		ecp_csv_int(&w, ecp_round_ns(f->work_ns));
		ecp_csv_int(&w, ecp_round_ns(f->span_ns));
		ecp_csv_int(&w, ecp_round_ns(f->idle_ns));
		ecp_csv_uint(&w, m->functions[f->function].samples);
		ecp_csv_end_row(&w);
	}
	return ecp_csv_finish(&w, err);
}

static int write_table(FILE *out, const struct ecp_report_answer *ans,
		       struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_analysis *a = &ans->run->analysis;
	size_t rows = ans->rows;
	char t1[32], tp[32], tinf[32], idle[32];
	ecp_format_ns(t1, sizeof(t1), (double)a->work_ns);
	ecp_format_ns(tp, sizeof(tp), (double)a->makespan_ns);
	ecp_format_ns(tinf, sizeof(tinf), (double)a->span_ns);
	ecp_format_ns(idle, sizeof(idle), (double)a->idle_ns);
	fprintf(out, "trace %s: %s\n", ans->trace_dir,
		m->info.program && *m->info.program ? m->info.program
						    : "(unknown program)");
	fprintf(out, "P = %u processors%s\n", ans->processors,
		ans->processors_given ? "" : " (the online CPUs; choose with -P)");
	fprintf(
	    out,
	    "T1 %s   T%u %s   Tinf %s   speedup %.2f   parallelism %.2f   idle %s\n\n",
	    t1, ans->processors, tp, tinf, a->speedup,
	    a->span_ns ? (double)a->work_ns / (double)a->span_ns : 0.0, idle);

	bool sampled = m->info.samples != 0;
	struct ecp_table *t = ecp_table_create(sampled ? 9 : 8);
	if (!t)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
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
					      100.0 * ecp_report_sample_error(n));
		else if (sampled)
			ecp_table_cell(t, 8, "-");
	}
	int rc = ecp_table_write(out, t, 0, err);
	ecp_table_destroy(t);
	if (rc < 0)
		return -1;
	if (rows < a->n_functions)
		fprintf(out, "(%zu more functions; --top 0 shows all)\n",
			a->n_functions - rows);
	ecp_report_print_folded(out, m);
	fprintf(out, "\n");
	ecp_report_print_legend(out);
	if (sampled)
		ecp_report_print_sample_legend(out, m);
	ecp_report_print_reading(out, m, a, ans->processors,
				 ans->run->reading.n_points ? &ans->run->reading : NULL);
	return 0;
}

int ecp_report_write(FILE *out, enum ecp_format format,
		     const struct ecp_report_answer *ans, struct ecp_error *err)
{
	if (format == ECP_FORMAT_JSON)
		return write_json(out, ans, err) < 0 ? -1 : 0;
	if (format == ECP_FORMAT_CSV)
		return write_csv(out, ans, err) < 0 ? -1 : 0;
	return write_table(out, ans, err);
}
