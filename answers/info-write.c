/* SPDX-License-Identifier: MIT */
/* Writes ecp info's answer (answers/info.h). */
#include "answers/info.h"

#include "answers/consistency-json.h"
#include "common/units.h"
#include "simulator/model/task-graph.h"
#include "viz/json.h"

/* The consistency line: the verdict with the gap, the figures compared. */
static void print_consistency(FILE *out, const struct ecp_consistency *c)
{
	char a[32], b[32], d[32];
	if (!c->checked) {
		fprintf(out,
			"consistency    unknown (no program CPU time in the trace)\n");
		return;
	}
	fprintf(out,
		"consistency    %s: work %.1f%% %s the program's CPU time %s less the "
		"recorder's %s",
		ecp_consistency_status_name(c->status),
		c->gap_pct < 0 ? -c->gap_pct : c->gap_pct,
		c->gap_ns < 0 ? "below" : "above",
		ecp_format_ns(a, sizeof(a), (double)c->program_cpu_ns),
		ecp_format_ns(b, sizeof(b), (double)c->overhead_ns));
	if (c->outside_threads)
		fprintf(out, ", %u thread%s outside the model (%s)", c->outside_threads,
			c->outside_threads == 1 ? "" : "s",
			ecp_format_ns(d, sizeof(d), (double)c->outside_cpu_ns));
	if (c->untracked_cpu_ns)
		fprintf(out, ", threads outside their first and last event (%s)",
			ecp_format_ns(d, sizeof(d), (double)c->untracked_cpu_ns));
	fprintf(out, "\n");
}

/* What became of a task-parallel program's OpenMP tasks: the line says
 * when the tie check was not made, which no warning would. */
static void write_tasks(FILE *out, const struct ecp_model_info *info)
{
	if (!info->tasks_dealt && !info->tasks_kept)
		return;
	fprintf(out, "tasks          %llu dealt again at replay, %llu kept as recorded",
		(unsigned long long)info->tasks_dealt,
		(unsigned long long)info->tasks_kept);
	if (!info->tasks_dealt)
		fprintf(out, " (see the warnings)\n");
	else if (info->tie_draws)
		fprintf(out, "; near-tie check: %u draws\n", info->tie_draws);
	else
		fprintf(out,
			"; near-tie check not made (the deal is longer than %u "
			"steps for %u draws)\n",
			ECP_TASK_JITTER_WORK / ECP_TASK_JITTER_MIN_DRAWS,
			ECP_TASK_JITTER_MIN_DRAWS);
}

static int print_table(FILE *out, const struct ecp_info_answer *ans)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_dag *dag = ans->dag;
	const struct ecp_info_function *top = ans->top;
	size_t n_top = ans->n_top;
	char a[32], b[32];
	double par = dag->span ? (double)dag->work / (double)dag->span : 0.0;
	fprintf(out, "trace          %s\n", m->info.trace_path);
	fprintf(out, "program        %s\n",
		m->info.program[0] ? m->info.program : "(unknown)");
	fprintf(out, "clock          %s\n", m->info.clock);
	if (m->info.recorded_cpus > 1)
		fprintf(out,
			"recorded on    %llu CPUs (its durations are what they cost "
			"running side by side; its wall time is a measured T_%llu)\n",
			(unsigned long long)m->info.recorded_cpus,
			(unsigned long long)m->info.recorded_cpus);
	if (m->info.samples || m->info.samples_lost) {
		char rate[96] = "";
		if (m->info.sample_hz)
			snprintf(rate, sizeof(rate), " at %llu a second",
				 (unsigned long long)m->info.sample_hz);
		fprintf(out, "samples        %llu%s (functions split by samples%s%s)\n",
			(unsigned long long)m->info.samples, rate,
			m->info.samples_lost ? "; some lost, see the warnings" : "",
			m->info.samples_throttled ? "; the kernel stopped the sampler, "
						    "see the warnings"
						  : "");
	}
	fprintf(out, "threads        %u\n", m->n_threads);
	fprintf(out, "events         %llu\n", (unsigned long long)m->info.events);
	fprintf(out, "discarded      %llu\n",
		(unsigned long long)m->info.discarded_events);
	if (m->info.switches_lost)
		fprintf(out, "switches lost  %llu\n",
			(unsigned long long)m->info.switches_lost);
	fprintf(out, "segments       %u (%u dependencies)\n", m->n_segments, m->n_edges);
	write_tasks(out, &m->info);
	fprintf(out, "work (T1)      %s\n",
		ecp_format_ns(a, sizeof(a), (double)dag->work));
	fprintf(out, "span (Tinf)    %s\n",
		ecp_format_ns(b, sizeof(b), (double)dag->span));
	fprintf(out, "parallelism    %.2f\n", par);
	if (dag->total_delay)
		fprintf(out, "delays         %s\n",
			ecp_format_ns(a, sizeof(a), (double)dag->total_delay));
	print_consistency(out, ans->consistency);
	if (!n_top)
		return 0;
	fprintf(out, "\ntop functions by work:\n");
	fprintf(out, "  %10s  %6s  %10s  %s\n", "work", "share", "calls", "function");
	for (size_t i = 0; i < n_top; i++) {
		double share =
		    dag->work ? 100.0 * (double)top[i].work_ns / (double)dag->work : 0;
		fprintf(out, "  %10s  %5.1f%%  %10llu  %s\n",
			ecp_format_ns(a, sizeof(a), (double)top[i].work_ns), share,
			(unsigned long long)top[i].calls,
			m->functions[top[i].function].name);
	}
	return 0;
}

static int print_json(FILE *out, const struct ecp_info_answer *ans, struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_dag *dag = ans->dag;
	const struct ecp_info_function *top = ans->top;
	size_t n_top = ans->n_top;
	struct ecp_json_writer w;
	ecp_json_init(&w, out, ECP_JSON_PRETTY);
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
	ecp_json_kv_uint(&w, "sample_hz", m->info.sample_hz);
	ecp_json_kv_uint(&w, "samples_throttled", m->info.samples_throttled);
	ecp_json_kv_uint(&w, "tasks_dealt", m->info.tasks_dealt);
	ecp_json_kv_uint(&w, "tasks_kept", m->info.tasks_kept);
	ecp_json_kv_uint(&w, "tie_check_draws", m->info.tie_draws);
	ecp_json_key(&w, "thread_list");
	ecp_json_begin_array(&w);
	for (uint32_t t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		uint64_t work = ecp_model_thread_work(m, t);
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
	ecp_answer_warnings_json(&w, m);
	ecp_answer_consistency_json(&w, ans->consistency);
	ecp_json_end_object(&w);
	return ecp_json_finish(&w, err);
}

int ecp_info_write(FILE *out, enum ecp_format format, const struct ecp_info_answer *ans,
		   struct ecp_error *err)
{
	if (format == ECP_FORMAT_JSON)
		return print_json(out, ans, err) < 0 ? -1 : 0;
	print_table(out, ans);
	if (fflush(out) != 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot write the output"), -1;
	return 0;
}
