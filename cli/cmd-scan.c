/* SPDX-License-Identifier: MIT */
/* ecp scan: predicted T_P per P, the TET of the top functions per P, and the
 * crossovers — the processor counts at which the function that matters most
 * changes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/consistency.h"
#include "cli/session.h"
#include "cli/processor-sweep.h"
#include "common/parse.h"
#include "common/units.h"
#include "ecp/analysis.h"
#include "viz/csv.h"
#include "viz/json.h"
#include "viz/table.h"

struct scan_options {
	struct ecp_cli_common common;
	unsigned *processors;
	size_t n_processors;
	size_t top;
	enum ecp_sched_model sched;
	uint64_t *linux_makespan; /* with --sched linux: T_P of that model per P */
};

static int parse_options(int argc, char **argv, struct scan_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"top", required_argument, NULL, 't'},
	    {"sched", required_argument, NULL, ECP_OPT_SCHED},
	    ECP_CLI_COMMON_LONGOPTS,
	    {NULL, 0, NULL, 0},
	};
	ecp_cli_common_init(&o->common);
	o->top = 5;
	const char *list = "1-16";
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("scan", argc, argv, "P:h", longopts)) != -1) {
		uint64_t v;
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			list = optarg;
			break;
		case ECP_OPT_SCHED:
			if ((rc = ecp_cli_parse_sched("scan", optarg, &o->sched)))
				return rc;
			break;
		case 't':
			if (ecp_parse_u64(optarg, &v) < 0 || v < 1 || v > 1000)
				return ecp_cli_usage_error(
				    "scan",
				    "--top takes a count from 1 to 1000, not '%s'",
				    optarg);
			o->top = (size_t)v;
			break;
		default:
			if ((rc = ecp_cli_common_option("scan", &o->common, opt, optarg,
							ECP_FORMATS_ALL)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("scan", &o->common, argc, argv)))
		return rc;
	struct ecp_error err = {0};
	if (ecp_parse_proc_list(list, ECP_CLI_MAX_PROCESSORS, &o->processors,
				&o->n_processors, &err) < 0)
		return ecp_cli_usage_error("scan", "%s", err.msg);
	return 0;
}

static const char *fname(const struct ecp_model *m, ecp_id f)
{
	return m->functions[f].name;
}

static void write_json(const struct scan_options *o, const struct ecp_cli_session *s,
		       const struct ecp_cli_sweep *r)
{
	const struct ecp_model *m = s->model;
	struct ecp_json_writer w;
	ecp_json_init(&w, stdout, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", o->common.trace_dir);
	ecp_json_kv_string(&w, "program", m->info.program ? m->info.program : "");
	ecp_json_key(&w, "processors");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < r->n_points; i++)
		ecp_json_uint(&w, o->processors[i]);
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
	if (o->linux_makespan) {
		/* Labelled: the second scheduler model, beside the paper's. */
		ecp_json_key(&w, "makespan_linux_ns");
		ecp_json_begin_array(&w);
		for (size_t i = 0; i < r->n_points; i++)
			ecp_json_uint(&w, o->linux_makespan[i]);
		ecp_json_end_array(&w);
	}
	ecp_json_kv_uint(&w, "work_ns", s->dag.work);
	ecp_json_kv_uint(&w, "span_ns", s->dag.span);
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
					ecp_json_int(&w,
						     x ? llround(field == 1 ? x->tet_ns
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
		ecp_json_kv_uint(&w, "processors", o->processors[i]);
		ecp_json_kv_string(
		    &w, "before",
		    fname(m, ecp_cli_sweep_top(&r->points[i - 1])->function));
		ecp_json_kv_string(&w, "after",
				   fname(m, ecp_cli_sweep_top(&r->points[i])->function));
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_cli_consistency_json(&w, &s->consistency);
	ecp_json_end_object(&w);
	struct ecp_error err = {0};
	if (ecp_json_finish(&w, &err) < 0)
		fprintf(stderr, "ecp scan: %s\n", err.msg);
}

static void write_csv(const struct scan_options *o, const struct ecp_cli_session *s,
		      const struct ecp_cli_sweep *r)
{
	/* Long format: one row per (P, function), plus the per-P totals under
	 * the function name "" so a spreadsheet can pivot either way. */
	const struct ecp_model *m = s->model;
	struct ecp_csv_writer w;
	ecp_csv_init(&w, stdout);
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
			ecp_csv_uint(&w, o->processors[i]);
			ecp_csv_uint(&w, a->makespan_ns);
			ecp_csv_double(&w, a->speedup);
			ecp_csv_string(&w, fname(m, r->shown[k]));
			ecp_csv_uint(&w, x ? x->calls : 0);
			ecp_csv_int(&w, x ? llround(x->tet_ns) : 0);
			ecp_csv_int(&w, x ? llround(x->tetid_ns) : 0);
			ecp_csv_end_row(&w);
		}
	}
	struct ecp_error err = {0};
	if (ecp_csv_finish(&w, &err) < 0)
		fprintf(stderr, "ecp scan: %s\n", err.msg);
}

static int write_table(const struct scan_options *o, const struct ecp_cli_session *s,
		       const struct ecp_cli_sweep *r)
{
	const struct ecp_model *m = s->model;
	char t1[32], tinf[32];
	printf("trace %s: %s\n", o->common.trace_dir,
	       m->info.program && *m->info.program ? m->info.program
						   : "(unknown program)");
	printf("T1 %s   Tinf %s   parallelism %.2f\n\n",
	       ecp_format_ns(t1, sizeof(t1), (double)s->dag.work),
	       ecp_format_ns(tinf, sizeof(tinf), (double)s->dag.span),
	       s->dag.span ? (double)s->dag.work / (double)s->dag.span : 0.0);

	/* At most 5 function columns fit 80 columns next to P, T_P, speedup;
	 * 4 with the Linux model's T_P beside. */
	size_t extra = o->linux_makespan ? 1 : 0;
	size_t max_cols = 5 - extra;
	size_t cols = r->n_shown < max_cols ? r->n_shown : max_cols;
	struct ecp_table *t = ecp_table_create(3 + extra + cols);
	if (!t)
		return ecp_cli_fail("scan", "out of memory");
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
		ecp_table_cell_uint(t, 0, o->processors[i]);
		ecp_table_cell_ns(t, 1, (double)a->makespan_ns);
		ecp_table_cell_printf(t, 2, "%.2f", a->speedup);
		if (extra)
			ecp_table_cell_ns(t, 3, (double)o->linux_makespan[i]);
		for (size_t k = 0; k < cols; k++) {
			const struct ecp_function_result *x =
			    r->points[i].by_function[r->shown[k]];
			const struct ecp_function_result *top =
			    ecp_cli_sweep_top(&r->points[i]);
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
	struct ecp_error err = {0};
	int rc = ecp_table_write(stdout, t, 0, &err);
	ecp_table_destroy(t);
	if (rc < 0)
		return ecp_cli_fail("scan", "%s", err.msg);
	printf("\n");
	for (size_t k = 0; k < cols; k++)
		printf("[%zu] %s\n", k + 1, fname(m, r->shown[k]));
	printf("* the function with the largest TET at that P\n");
	if (extra)
		printf(
		    "T_P linux: the Linux-like scheduler model (per-CPU queues, "
		    "wake-affine,\n"
		    "balancing); T_P and TET elsewhere use the paper's ideal sharing.\n");
	printf("\n");
	if (r->n_points && !ecp_cli_sweep_top(&r->points[0])) {
		printf("No function has time on the extended critical path.\n");
	} else if (r->n_crossovers == 0) {
		const struct ecp_function_result *top = ecp_cli_sweep_top(&r->points[0]);
		printf("No crossover: %s matters most at every P scanned.\n",
		       top ? fname(m, top->function) : "(none)");
	} else {
		printf("Crossovers:\n");
		for (size_t c = 0; c < r->n_crossovers; c++) {
			size_t i = r->crossover_at[c];
			printf("  from %u processors on, %s matters more than %s.\n",
			       o->processors[i],
			       fname(m, ecp_cli_sweep_top(&r->points[i])->function),
			       fname(m, ecp_cli_sweep_top(&r->points[i - 1])->function));
		}
	}
	return ECP_EXIT_OK;
}

int cmd_scan(int argc, char **argv)
{
	struct scan_options o = {0};
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc) {
		free(o.processors);
		return rc;
	}
	struct ecp_cli_session s;
	o.common.max_processors = ecp_cli_max_of(o.processors, o.n_processors);
	if ((rc = ecp_cli_session_open("scan", &o.common, &s))) {
		free(o.processors);
		return rc;
	}
	struct ecp_cli_sweep r;
	rc = ecp_cli_sweep_run("scan", &s, o.processors, o.n_processors, o.top, &r);
	if (!rc && o.sched == ECP_SCHED_LINUX) {
		o.linux_makespan = calloc(o.n_processors, sizeof(*o.linux_makespan));
		if (!o.linux_makespan)
			rc = ecp_cli_fail("scan", "out of memory");
		for (size_t i = 0; !rc && i < o.n_processors; i++) {
			struct ecp_replay rp = {0};
			struct ecp_error err = {0};
			if (ecp_replay_model_run(&s.dag, ECP_SCHED_LINUX, o.processors[i],
						 0, &rp, &err) < 0)
				rc = ecp_cli_fail("scan", "Linux model at P=%u: %s",
						  o.processors[i], err.msg);
			else
				o.linux_makespan[i] = rp.makespan;
			ecp_replay_finish(&rp);
		}
	}
	if (!rc) {
		if (o.common.format == ECP_FORMAT_JSON)
			write_json(&o, &s, &r);
		else if (o.common.format == ECP_FORMAT_CSV)
			write_csv(&o, &s, &r);
		else
			rc = write_table(&o, &s, &r);
	}
	ecp_cli_sweep_finish(&r);
	ecp_cli_session_close(&s);
	free(o.processors);
	free(o.linux_makespan);
	return rc;
}
