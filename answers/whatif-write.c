/* SPDX-License-Identifier: MIT */
/* Writes ecp whatif's answer (answers/whatif.h). */
#include <string.h>

#include "answers/consistency-json.h"
#include "answers/whatif.h"
#include "viz/csv.h"
#include "viz/json.h"
#include "viz/table.h"

static int write_json(FILE *out, const struct ecp_whatif_answer *ans,
		      struct ecp_error *err)
{
	const struct ecp_replay *base = ans->runs->base, *what = ans->runs->what;
	struct ecp_json_writer w;
	ecp_json_init(&w, out, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", ans->trace_dir);
	ecp_json_kv_string(&w, "sched_model", ecp_sched_model_name(ans->sched));
	ecp_json_key(&w, "processors");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < ans->runs->n; i++)
		ecp_json_uint(&w, ans->processors[i]);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "baseline_ns");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < ans->runs->n; i++)
		ecp_json_uint(&w, base[i].makespan);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "whatif_ns");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < ans->runs->n; i++)
		ecp_json_uint(&w, what[i].makespan);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "gain_ns");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < ans->runs->n; i++)
		ecp_json_int(&w, (int64_t)base[i].makespan - (int64_t)what[i].makespan);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "changes");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < ans->n_asked; i++) {
		ecp_json_begin_object(&w);
		ecp_json_kv_string(&w, "name", ans->asked[i].name);
		ecp_json_kv_string(&w, "found", ans->asked[i].found);
		ecp_json_kv_double(&w, "faster_pct", ans->asked[i].faster_pct);
		ecp_json_kv_string(&w, "scope", ecp_whatif_scope_name(ans->scope));
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_answer_warnings_json(&w, ans->model);
	ecp_answer_consistency_json(&w, ans->consistency);
	ecp_json_end_object(&w);
	return ecp_json_finish(&w, err);
}

static int write_csv(FILE *out, const struct ecp_whatif_answer *ans,
		     struct ecp_error *err)
{
	const struct ecp_replay *base = ans->runs->base, *what = ans->runs->what;
	struct ecp_csv_writer w;
	ecp_csv_init(&w, out);
	ecp_csv_string(&w, "processors");
	ecp_csv_string(&w, "baseline_ns");
	ecp_csv_string(&w, "whatif_ns");
	ecp_csv_string(&w, "gain_ns");
	ecp_csv_end_row(&w);
	for (size_t i = 0; i < ans->runs->n; i++) {
		ecp_csv_uint(&w, ans->processors[i]);
		ecp_csv_uint(&w, base[i].makespan);
		ecp_csv_uint(&w, what[i].makespan);
		ecp_csv_int(&w, (int64_t)base[i].makespan - (int64_t)what[i].makespan);
		ecp_csv_end_row(&w);
	}
	return ecp_csv_finish(&w, err);
}

static int write_table(FILE *out, const struct ecp_whatif_answer *ans,
		       struct ecp_error *err)
{
	const struct ecp_replay *base = ans->runs->base, *what = ans->runs->what;
	fprintf(out, "trace %s: what if", ans->trace_dir);
	for (size_t i = 0; i < ans->n_asked; i++)
		fprintf(
		    out, "%s %s%s%s%s were %g%% faster", i ? "," : "", ans->asked[i].name,
		    strcmp(ans->asked[i].name, ans->asked[i].found) ? " (" : "",
		    strcmp(ans->asked[i].name, ans->asked[i].found) ? ans->asked[i].found
								    : "",
		    strcmp(ans->asked[i].name, ans->asked[i].found) ? ")" : "",
		    ans->asked[i].faster_pct);
	fprintf(out, "\n%s\n",
		ans->scope == ECP_WHATIF_EXCLUSIVE
		    ? "scope: exclusive (--self): only the time the functions execute "
		      "themselves is shortened, not their callees'"
		    : "scope: inclusive: the functions with their callees are shortened "
		      "(--self: their own time only)");
	if (ans->sched != ECP_SCHED_IDEAL)
		fprintf(out,
			"run times from the %s scheduler model, not the paper's ideal "
			"sharing\n",
			ecp_sched_model_name(ans->sched));
	fprintf(out, "\n");
	struct ecp_table *t = ecp_table_create(5);
	if (!t)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	ecp_table_set_column(t, 0, "P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 1, "baseline T_P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 2, "what-if T_P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 3, "gain", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 4, "gain %", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	for (size_t i = 0; i < ans->runs->n; i++) {
		double gain = (double)base[i].makespan - (double)what[i].makespan;
		ecp_table_add_row(t);
		ecp_table_cell_uint(t, 0, ans->processors[i]);
		ecp_table_cell_ns(t, 1, (double)base[i].makespan);
		ecp_table_cell_ns(t, 2, (double)what[i].makespan);
		ecp_table_cell_ns(t, 3, gain);
		ecp_table_cell_printf(
		    t, 4, "%.2f",
		    base[i].makespan ? 100.0 * gain / (double)base[i].makespan : 0.0);
	}
	int rc = ecp_table_write(out, t, 0, err);
	ecp_table_destroy(t);
	return rc < 0 ? -1 : 0;
}

int ecp_whatif_write(FILE *out, enum ecp_format format,
		     const struct ecp_whatif_answer *ans, struct ecp_error *err)
{
	if (format == ECP_FORMAT_JSON)
		return write_json(out, ans, err) < 0 ? -1 : 0;
	if (format == ECP_FORMAT_CSV)
		return write_csv(out, ans, err) < 0 ? -1 : 0;
	return write_table(out, ans, err);
}
