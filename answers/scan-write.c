/* SPDX-License-Identifier: MIT */
/* Writes ecp scan's answer (answers/scan.h). */
#include "answers/scan.h"

#include <math.h>

#include "answers/consistency-json.h"
#include "common/time-round.h"
#include "common/units.h"
#include "viz/csv.h"
#include "viz/json.h"
#include "viz/table.h"

static const char *fname(const struct ecp_model *m, ecp_id f)
{
	return m->functions[f].name;
}

static int write_json(FILE *out, const struct ecp_scan_answer *ans, struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_answer_sweep *r = ans->sweep;
	struct ecp_json_writer w;
	ecp_json_init(&w, out, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", ans->trace_dir);
	ecp_json_kv_string(&w, "program", m->info.program ? m->info.program : "");
	ecp_json_key(&w, "processors");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < r->n_points; i++)
		ecp_json_uint(&w, r->points[i].processors);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "makespan_ns");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < r->n_points; i++)
		ecp_json_uint(&w, r->points[i].analysis.makespan_ns);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "speedup");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < r->n_points; i++)
		ecp_json_double(&w, r->points[i].analysis.speedup);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "idle_ns");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < r->n_points; i++)
		ecp_json_uint(&w, r->points[i].analysis.idle_ns);
	ecp_json_end_array(&w);
	if (ans->linux_makespan) {
		/* Labelled: the second scheduler model, beside the paper's. */
		ecp_json_key(&w, "makespan_linux_ns");
		ecp_json_begin_array(&w);
		for (size_t i = 0; i < r->n_points; i++)
			ecp_json_uint(&w, ans->linux_makespan[i]);
		ecp_json_end_array(&w);
	}
	ecp_json_kv_uint(&w, "work_ns", ans->work_ns);
	ecp_json_kv_uint(&w, "span_ns", ans->span_ns);
	ecp_json_key(&w, "functions");
	ecp_json_begin_array(&w);
	for (size_t k = 0; k < r->n_shown; k++) {
		ecp_id f = r->shown[k];
		ecp_json_begin_object(&w);
		ecp_json_kv_string(&w, "name", fname(m, f));
		const char *keys[] = {"calls", "tet_ns", "tetid_ns"};
		for (int field = 0; field < 3; field++) {
			ecp_json_key(&w, keys[field]);
			ecp_json_begin_array(&w);
			for (size_t i = 0; i < r->n_points; i++) {
				const struct ecp_function_result *x =
				    r->points[i].by_function[f];
				if (field == 0)
					ecp_json_uint(&w, x ? x->calls : 0);
				else
					ecp_json_int(
					    &w, x ? ecp_round_ns(field == 1 ? x->tet_ns
									    : x->tetid_ns)
						  : 0);
			}
			ecp_json_end_array(&w);
		}
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_json_key(&w, "crossovers");
	ecp_json_begin_array(&w);
	for (size_t c = 0; c < r->n_crossovers; c++) {
		size_t i = r->crossover_at[c];
		ecp_json_begin_object(&w);
		ecp_json_kv_uint(&w, "processors", r->points[i].processors);
		ecp_json_kv_string(
		    &w, "before",
		    fname(m, ecp_answer_sweep_top(&r->points[i - 1])->function));
		ecp_json_kv_string(
		    &w, "after", fname(m, ecp_answer_sweep_top(&r->points[i])->function));
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_answer_warnings_json(&w, m);
	ecp_answer_consistency_json(&w, ans->consistency);
	ecp_json_end_object(&w);
	return ecp_json_finish(&w, err);
}

static int write_csv(FILE *out, const struct ecp_scan_answer *ans, struct ecp_error *err)
{
	/* Long format: one row per (P, function), plus the per-P totals under
	 * the function name "" so a spreadsheet can pivot either way. */
	const struct ecp_model *m = ans->model;
	const struct ecp_answer_sweep *r = ans->sweep;
	struct ecp_csv_writer w;
	ecp_csv_init(&w, out);
	const char *hdr[] = {"processors", "makespan_ns", "speedup", "name",
			     "calls",      "tet_ns",      "tetid_ns"};
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		ecp_csv_string(&w, hdr[i]);
	ecp_csv_end_row(&w);
	for (size_t i = 0; i < r->n_points; i++) {
		const struct ecp_analysis *a = &r->points[i].analysis;
		for (size_t k = 0; k < r->n_shown; k++) {
			const struct ecp_function_result *x =
			    r->points[i].by_function[r->shown[k]];
			ecp_csv_uint(&w, r->points[i].processors);
			ecp_csv_uint(&w, a->makespan_ns);
			ecp_csv_double(&w, a->speedup);
			ecp_csv_string(&w, fname(m, r->shown[k]));
			ecp_csv_uint(&w, x ? x->calls : 0);
			ecp_csv_int(&w, x ? ecp_round_ns(x->tet_ns) : 0);
			ecp_csv_int(&w, x ? ecp_round_ns(x->tetid_ns) : 0);
			ecp_csv_end_row(&w);
		}
	}
	return ecp_csv_finish(&w, err);
}

static int write_table(FILE *out, const struct ecp_scan_answer *ans,
		       struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_answer_sweep *r = ans->sweep;
	char t1[32], tinf[32];
	fprintf(out, "trace %s: %s\n", ans->trace_dir,
		m->info.program && *m->info.program ? m->info.program
						    : "(unknown program)");
	fprintf(out, "T1 %s   Tinf %s   parallelism %.2f\n\n",
		ecp_format_ns(t1, sizeof(t1), (double)ans->work_ns),
		ecp_format_ns(tinf, sizeof(tinf), (double)ans->span_ns),
		ans->span_ns ? (double)ans->work_ns / (double)ans->span_ns : 0.0);

	/* At most 5 function columns fit 80 columns next to P, T_P, speedup;
	 * 4 with the Linux model's T_P beside. */
	size_t extra = ans->linux_makespan ? 1 : 0;
	size_t max_cols = 5 - extra;
	size_t cols = r->n_shown < max_cols ? r->n_shown : max_cols;
	struct ecp_table *t = ecp_table_create(3 + extra + cols);
	if (!t)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	ecp_table_set_column(t, 0, "P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 1, "T_P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 2, "speedup", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	for (size_t k = 0; k < cols; k++) {
		char hdr[16];
		snprintf(hdr, sizeof(hdr), "TET [%zu]", k + 1);
		ecp_table_set_column(t, 3 + extra + k, hdr, ECP_TABLE_RIGHT,
				     ECP_TABLE_KEEP);
	}
	if (extra)
		ecp_table_set_column(t, 3, "T_P linux", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	for (size_t i = 0; i < r->n_points; i++) {
		const struct ecp_analysis *a = &r->points[i].analysis;
		ecp_table_add_row(t);
		ecp_table_cell_uint(t, 0, r->points[i].processors);
		ecp_table_cell_ns(t, 1, (double)a->makespan_ns);
		ecp_table_cell_printf(t, 2, "%.2f", a->speedup);
		if (extra)
			ecp_table_cell_ns(t, 3, (double)ans->linux_makespan[i]);
		for (size_t k = 0; k < cols; k++) {
			const struct ecp_function_result *x =
			    r->points[i].by_function[r->shown[k]];
			const struct ecp_function_result *top =
			    ecp_answer_sweep_top(&r->points[i]);
			if (x && top && top->function == x->function) {
				char buf[32];
				ecp_table_cell_printf(
				    t, 3 + extra + k, "*%s",
				    ecp_format_ns(buf, sizeof(buf), x->tet_ns));
			} else {
				ecp_table_cell_ns(t, 3 + extra + k, x ? x->tet_ns : 0.0);
			}
		}
	}
	int rc = ecp_table_write(out, t, 0, err);
	ecp_table_destroy(t);
	if (rc < 0)
		return -1;
	fprintf(out, "\n");
	for (size_t k = 0; k < cols; k++)
		fprintf(out, "[%zu] %s\n", k + 1, fname(m, r->shown[k]));
	fprintf(out, "* the function with the largest TET at that P\n");
	if (extra)
		printf(
		    "T_P linux: the Linux-like scheduler model (per-CPU queues, "
		    "wake-affine,\n"
		    "balancing); T_P and TET elsewhere use the paper's ideal sharing.\n");
	fprintf(out, "\n");
	if (r->n_points && !ecp_answer_sweep_top(&r->points[0])) {
		fprintf(out, "No function has time on the extended critical path.\n");
	} else if (r->n_crossovers == 0) {
		const struct ecp_function_result *top =
		    ecp_answer_sweep_top(&r->points[0]);
		fprintf(out, "No crossover: %s matters most at every P scanned.\n",
			top ? fname(m, top->function) : "(none)");
	} else {
		fprintf(out, "Crossovers:\n");
		for (size_t c = 0; c < r->n_crossovers; c++) {
			size_t i = r->crossover_at[c];
			fprintf(
			    out, "  from %u processors on, %s matters more than %s.\n",
			    r->points[i].processors,
			    fname(m, ecp_answer_sweep_top(&r->points[i])->function),
			    fname(m, ecp_answer_sweep_top(&r->points[i - 1])->function));
		}
	}
	return 0;
}

int ecp_scan_write(FILE *out, enum ecp_format format, const struct ecp_scan_answer *ans,
		   struct ecp_error *err)
{
	if (format == ECP_FORMAT_JSON)
		return write_json(out, ans, err) < 0 ? -1 : 0;
	if (format == ECP_FORMAT_CSV)
		return write_csv(out, ans, err) < 0 ? -1 : 0;
	return write_table(out, ans, err) < 0 ? -1 : 0;
}
