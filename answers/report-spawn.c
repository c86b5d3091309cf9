/* SPDX-License-Identifier: MIT */
/* ecp report --by spawnsite: work and span per task-creating call site
 * (Cilkprof's on-work profile, issue 37), as the model holds
 * them (simulator/model/model.h, struct ecp_spawn_site). */
#include <stdio.h>

#include "answers/report.h"
#include "viz/json.h"
#include "viz/table.h"

void ecp_spawn_site_name(char *buf, size_t n, const struct ecp_model *m,
			 const struct ecp_spawn_site *s)
{
	const struct ecp_function *f = &m->functions[s->function];
	if (f->addr && s->site >= f->addr && s->site - f->addr < 0x100000)
		snprintf(buf, n, "%s+0x%llx", f->name,
			 (unsigned long long)(s->site - f->addr));
	else
		snprintf(buf, n, "%s @0x%llx", f->name, (unsigned long long)s->site);
}

static double parallelism(const struct ecp_spawn_site *s)
{
	return s->span_ns ? (double)s->work_ns / (double)s->span_ns : 0.0;
}

static int write_json(FILE *out, const char *trace, const struct ecp_model *m,
		      struct ecp_error *err)
{
	struct ecp_json_writer w;
	char name[512];
	ecp_json_init(&w, out, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", trace);
	ecp_json_kv_string(&w, "program", m->info.program ? m->info.program : "");
	ecp_json_key(&w, "spawn_sites");
	ecp_json_begin_array(&w);
	for (uint32_t i = 0; i < m->n_spawn_sites; i++) {
		const struct ecp_spawn_site *s = &m->spawn_sites[i];
		ecp_spawn_site_name(name, sizeof(name), m, s);
		ecp_json_begin_object(&w);
		ecp_json_kv_string(&w, "name", name);
		ecp_json_kv_string(&w, "function", m->functions[s->function].name);
		ecp_json_kv_uint(&w, "site", s->site);
		ecp_json_kv_uint(&w, "tasks", s->tasks);
		ecp_json_kv_uint(&w, "work_ns", s->work_ns);
		ecp_json_kv_uint(&w, "span_ns", s->span_ns);
		ecp_json_kv_double(&w, "parallelism", parallelism(s));
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_json_end_object(&w);
	ecp_json_newline(&w);
	return ecp_json_finish(&w, err);
}

static int write_table(FILE *out, const char *trace, const struct ecp_model *m,
		       struct ecp_error *err)
{
	char name[512];
	fprintf(out, "trace %s: %s\n", trace,
		m->info.program && *m->info.program ? m->info.program
						    : "(unknown program)");
	if (!m->n_spawn_sites) {
		fprintf(out, "no OpenMP task was recorded: no spawn site\n");
		return 0;
	}
	struct ecp_table *t = ecp_table_create(5);
	if (!t)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	ecp_table_set_column(t, 0, "spawn site", ECP_TABLE_LEFT, ECP_TABLE_SHORTEN);
	ecp_table_set_column(t, 1, "tasks", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 2, "work", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 3, "span", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 4, "parallelism", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	for (uint32_t i = 0; i < m->n_spawn_sites; i++) {
		const struct ecp_spawn_site *s = &m->spawn_sites[i];
		ecp_spawn_site_name(name, sizeof(name), m, s);
		ecp_table_add_row(t);
		ecp_table_cell(t, 0, name);
		ecp_table_cell_uint(t, 1, s->tasks);
		ecp_table_cell_ns(t, 2, s->work_ns);
		ecp_table_cell_ns(t, 3, s->span_ns);
		ecp_table_cell_printf(t, 4, "%.2f", parallelism(s));
	}
	int rc = ecp_table_write(out, t, 0, err);
	ecp_table_destroy(t);
	if (rc < 0)
		return -1;
	fprintf(out,
		"\nwork: the tasks made at the site with all their descendants (a "
		"recursion through the site counted once); span: their longest chain "
		"on unlimited processors, summed over the site's outermost tasks; "
		"parallelism = work / span\n");
	return 0;
}

int ecp_report_spawn_write(FILE *out, enum ecp_format format, const char *trace,
			   const struct ecp_model *m, struct ecp_error *err)
{
	if (format == ECP_FORMAT_JSON)
		return write_json(out, trace, m, err) < 0 ? -1 : 0;
	if (format == ECP_FORMAT_CSV)
		return ecp_error_set(err, ECP_ERR,
				     "--by spawnsite writes a table or JSON, not CSV");
	return write_table(out, trace, m, err);
}
