/* SPDX-License-Identifier: MIT */
/* ecp info: summarise a recorded trace -- program, threads, events, losses,
 * clock source, work T1, span T_inf (the critical path on unlimited
 * processors, from the ASAP DAG), parallelism and the top functions by work
 * (exclusive CPU time, i.e. an ordinary profile). */
#include "cli/commands.h"
#include "answers/consistency-json.h"
#include "cli/consistency.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "simulator/model/dag.h"
#include "simulator/trace/trace.h"
#include "viz/json.h"

#define TOP_FUNCTIONS 10

enum info_format { INFO_TABLE, INFO_JSON };

struct info_options {
	const char *dir;
	enum info_format format;
	bool allow_loss;
	bool allow_inconsistent; /* answer though the check refuses */
};

struct fn_work {
	ecp_id function;
	uint64_t work_ns;
	uint64_t calls;
};

static int cmp_work(const void *a, const void *b)
{
	const struct fn_work *x = a, *y = b;
	if (x->work_ns != y->work_ns)
		return x->work_ns > y->work_ns ? -1 : 1;
	return (x->function > y->function) - (x->function < y->function);
}

static int parse(int argc, char **argv, struct info_options *o)
{
	o->dir = NULL;
	o->format = INFO_TABLE;
	o->allow_loss = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *fmt = NULL;
		if (!strcmp(a, "--format")) {
			if (++i >= argc)
				return ecp_cli_usage_error("info",
							   "--format needs a value");
			fmt = argv[i];
		} else if (!strncmp(a, "--format=", 9)) {
			fmt = a + 9;
		} else if (!strcmp(a, "--allow-loss")) {
			o->allow_loss = true;
		} else if (!strcmp(a, "--allow-inconsistent")) {
			o->allow_inconsistent = true;
			continue;
		} else if (a[0] == '-' && a[1]) {
			return ecp_cli_usage_error("info", "unknown option '%s'", a);
		} else if (o->dir) {
			return ecp_cli_usage_error("info",
						   "only one TRACE_DIR may be given");
		} else {
			o->dir = a;
			continue;
		}
		if (!strcmp(fmt, "table"))
			o->format = INFO_TABLE;
		else if (!strcmp(fmt, "json"))
			o->format = INFO_JSON;
		else
			return ecp_cli_usage_error(
			    "info", "unknown format '%s' (table or json)", fmt);
	}
	if (!o->dir)
		o->dir = "ecp.data";
	return ECP_EXIT_OK;
}

/* Work per function over the whole run (exclusive CPU time). */
static struct fn_work *function_work(const struct ecp_model *m, size_t *n)
{
	struct fn_work *w = calloc(m->n_functions ? m->n_functions : 1, sizeof(*w));
	if (!w)
		return NULL;
	for (uint32_t f = 0; f < m->n_functions; f++)
		w[f].function = f;
	for (uint64_t a = 0; a < m->n_activities; a++) {
		w[m->activities[a].function].work_ns += m->activities[a].self_ns;
		w[m->activities[a].function].calls += m->activities[a].calls;
	}
	/* calls folded by the recorder's filters are calls too (their time
	 * is in the caller's) */
	for (uint32_t f = 0; f < m->n_functions; f++)
		w[f].calls += m->functions[f].folded_calls;
	qsort(w, m->n_functions, sizeof(*w), cmp_work);
	size_t k = 0;
	while (k < m->n_functions && k < TOP_FUNCTIONS && w[k].work_ns)
		k++;
	*n = k;
	return w;
}

/* The consistency line: the verdict with the gap, the figures compared. */
static void print_consistency(const struct ecp_consistency *c)
{
	char a[32], b[32], d[32];
	if (!c->checked) {
		printf("consistency    unknown (no program CPU time in the trace)\n");
		return;
	}
	printf("consistency    %s: work %.1f%% %s the program's CPU time %s less the "
	       "recorder's %s",
	       ecp_consistency_status_name(c->status),
	       c->gap_pct < 0 ? -c->gap_pct : c->gap_pct,
	       c->gap_ns < 0 ? "below" : "above",
	       ecp_format_ns(a, sizeof(a), (double)c->program_cpu_ns),
	       ecp_format_ns(b, sizeof(b), (double)c->overhead_ns));
	if (c->outside_threads)
		printf(", %u thread%s outside the model (%s)", c->outside_threads,
		       c->outside_threads == 1 ? "" : "s",
		       ecp_format_ns(d, sizeof(d), (double)c->outside_cpu_ns));
	if (c->untracked_cpu_ns)
		printf(", threads outside their first and last event (%s)",
		       ecp_format_ns(d, sizeof(d), (double)c->untracked_cpu_ns));
	printf("\n");
}

static void print_table(const struct ecp_model *m, const struct ecp_dag *dag,
			const struct fn_work *top, size_t n_top,
			const struct ecp_consistency *cons)
{
	char a[32], b[32];
	double par = dag->span ? (double)dag->work / (double)dag->span : 0.0;
	printf("trace          %s\n", m->info.trace_path);
	printf("program        %s\n", m->info.program[0] ? m->info.program : "(unknown)");
	printf("clock          %s\n", m->info.clock);
	if (m->info.recorded_cpus > 1)
		printf("recorded on    %llu CPUs (its durations are what they cost "
		       "running side by side; its wall time is a measured T_%llu)\n",
		       (unsigned long long)m->info.recorded_cpus,
		       (unsigned long long)m->info.recorded_cpus);
	if (m->info.samples || m->info.samples_lost)
		printf("samples        %llu (functions split by samples%s)\n",
		       (unsigned long long)m->info.samples,
		       m->info.samples_lost ? "; some lost, see the warnings" : "");
	printf("threads        %u\n", m->n_threads);
	printf("events         %llu\n", (unsigned long long)m->info.events);
	printf("discarded      %llu\n", (unsigned long long)m->info.discarded_events);
	if (m->info.switches_lost)
		printf("switches lost  %llu\n",
		       (unsigned long long)m->info.switches_lost);
	printf("segments       %u (%u dependencies)\n", m->n_segments, m->n_edges);
	printf("work (T1)      %s\n", ecp_format_ns(a, sizeof(a), (double)dag->work));
	printf("span (Tinf)    %s\n", ecp_format_ns(b, sizeof(b), (double)dag->span));
	printf("parallelism    %.2f\n", par);
	if (dag->total_delay)
		printf("delays         %s\n",
		       ecp_format_ns(a, sizeof(a), (double)dag->total_delay));
	print_consistency(cons);
	if (!n_top)
		return;
	printf("\ntop functions by work:\n");
	printf("  %10s  %6s  %10s  %s\n", "work", "share", "calls", "function");
	for (size_t i = 0; i < n_top; i++) {
		double share =
		    dag->work ? 100.0 * (double)top[i].work_ns / (double)dag->work : 0;
		printf("  %10s  %5.1f%%  %10llu  %s\n",
		       ecp_format_ns(a, sizeof(a), (double)top[i].work_ns), share,
		       (unsigned long long)top[i].calls,
		       m->functions[top[i].function].name);
	}
}

static int print_json(const struct ecp_model *m, const struct ecp_dag *dag,
		      const struct fn_work *top, size_t n_top,
		      const struct ecp_consistency *cons, struct ecp_error *err)
{
	struct ecp_json_writer w;
	ecp_json_init(&w, stdout, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", m->info.trace_path);
	ecp_json_kv_string(&w, "program", m->info.program);
	ecp_json_kv_uint(&w, "threads", m->n_threads);
	ecp_json_kv_uint(&w, "events", m->info.events);
	ecp_json_kv_uint(&w, "discarded_events", m->info.discarded_events);
	ecp_json_kv_uint(&w, "switches_lost", m->info.switches_lost);
	ecp_json_kv_uint(&w, "as_cpus", m->info.as_cpus);
	ecp_json_kv_bool(&w, "cpu_count_read", m->info.cpu_count_read);
	ecp_json_kv_uint(&w, "recorded_cpus",
			 m->info.recorded_cpus ? m->info.recorded_cpus : 1);
	ecp_json_kv_uint(&w, "work_ns", dag->work);
	ecp_json_kv_uint(&w, "span_ns", dag->span);
	ecp_json_kv_double(&w, "parallelism",
			   dag->span ? (double)dag->work / (double)dag->span : 0.0);
	ecp_json_kv_string(&w, "clock", m->info.clock);
	ecp_json_kv_uint(&w, "segments", m->n_segments);
	ecp_json_kv_uint(&w, "dependencies", m->n_edges);
	ecp_json_kv_uint(&w, "delay_ns", dag->total_delay);
	ecp_json_kv_uint(&w, "event_cost_ns", m->info.event_cost_ns);
	ecp_json_kv_uint(&w, "recorded_wall_ns", m->info.recorded_wall_ns);
	ecp_json_kv_uint(&w, "samples", m->info.samples);
	ecp_json_kv_uint(&w, "samples_lost", m->info.samples_lost);
	ecp_json_key(&w, "thread_list");
	ecp_json_begin_array(&w);
	for (uint32_t t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		uint64_t work = 0;
		for (uint32_t s = 0; s < th->n_segments; s++)
			work += m->segments[th->first_segment + s].length;
		ecp_json_begin_object(&w);
		ecp_json_kv_uint(&w, "tid", th->tid);
		ecp_json_kv_string(&w, "name", th->name);
		ecp_json_kv_string(&w, "start_function",
				   th->start_function != ECP_NO_ID
				       ? m->functions[th->start_function].name
				       : "");
		ecp_json_kv_uint(&w, "segments", th->n_segments);
		ecp_json_kv_uint(&w, "work_ns", work);
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_json_key(&w, "top_functions");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < n_top; i++) {
		ecp_json_begin_object(&w);
		ecp_json_kv_string(&w, "name", m->functions[top[i].function].name);
		ecp_json_kv_uint(&w, "work_ns", top[i].work_ns);
		ecp_json_kv_uint(&w, "calls", top[i].calls);
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_json_key(&w, "warnings");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < m->n_warnings; i++)
		ecp_json_string(&w, m->warnings[i]);
	ecp_json_end_array(&w);
	ecp_answer_consistency_json(&w, cons);
	ecp_json_end_object(&w);
	return ecp_json_finish(&w, err);
}

int cmd_info(int argc, char **argv)
{
	struct info_options o = {0};
	int rc = parse(argc, argv, &o);
	if (rc != ECP_EXIT_OK)
		return rc;
	struct ecp_load_options lo = ECP_LOAD_OPTIONS_DEFAULT;
	lo.allow_loss = o.allow_loss;
	lo.progress = isatty(STDERR_FILENO);
	struct ecp_error err = {0};
	struct ecp_model *m = NULL;
	struct ecp_dag dag;
	memset(&dag, 0, sizeof(dag));
	struct fn_work *top = NULL;
	size_t n_top = 0;
	struct ecp_consistency cons = {0};
	if (ecp_trace_load(o.dir, &lo, &m, &err) < 0)
		return ecp_cli_fail("info", "%s", err.msg);
	for (size_t i = 0; i < m->n_warnings; i++)
		fprintf(stderr, "ecp info: warning: %s\n", m->warnings[i]);
	if ((rc = ecp_cli_consistency(
		 "info", o.dir, m, o.format == INFO_JSON,
		 o.allow_inconsistent ? ECP_CHECK_OVERRIDE : ECP_CHECK_REFUSE, &cons)))
		goto out;
	if (ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err) < 0) {
		rc = ecp_cli_fail("info", "trace=%s: %s", o.dir, err.msg);
		goto out;
	}
	top = function_work(m, &n_top);
	if (!top) {
		rc = ecp_cli_fail("info", "out of memory");
		goto out;
	}
	if (o.format == INFO_JSON) {
		if (print_json(m, &dag, top, n_top, &cons, &err) < 0) {
			rc = ecp_cli_fail("info", "%s", err.msg);
			goto out;
		}
	} else {
		print_table(m, &dag, top, n_top, &cons);
		if (fflush(stdout) != 0) {
			rc = ecp_cli_fail("info", "cannot write the output");
			goto out;
		}
	}
	rc = ECP_EXIT_OK;
out:
	ecp_consistency_free(&cons);
	free(top);
	ecp_dag_finish(&dag);
	ecp_model_destroy(m);
	return rc;
}
