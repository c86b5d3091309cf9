/* SPDX-License-Identifier: MIT */
/* ecp export: the simulated run on P processors for other tools — Chrome
 * trace-event JSON (Perfetto), ECP-weighted folded stacks, segment CSV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/ask.h"
#include "viz/folded.h"
#include "viz/perfetto.h"
#include "viz/segments-csv.h"

enum export_format { EXPORT_NONE, EXPORT_PERFETTO, EXPORT_FOLDED, EXPORT_CSV };

struct export_options {
	struct ecp_cli_common common;
	unsigned processors;
	enum export_format format;
	const char *output;
};

static int parse_options(int argc, char **argv, struct export_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"output", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, 'f'},
	    {"allow-loss", no_argument, NULL, ECP_OPT_ALLOW_LOSS},
	    {"allow-inconsistent", no_argument, NULL, ECP_OPT_ALLOW_INCONSISTENT},
	    {"lock-order", required_argument, NULL, ECP_OPT_LOCK_ORDER},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	ecp_cli_common_init(&o->common);
	o->common.keep_calls = true;
	o->processors = ecp_cli_online_cpus();
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("export", argc, argv, "P:o:h", longopts)) != -1) {
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			if ((rc = ecp_cli_parse_processors("export", optarg,
							   &o->processors)))
				return rc;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "perfetto"))
				o->format = EXPORT_PERFETTO;
			else if (!strcmp(optarg, "folded"))
				o->format = EXPORT_FOLDED;
			else if (!strcmp(optarg, "csv"))
				o->format = EXPORT_CSV;
			else
				return ecp_cli_usage_error(
				    "export",
				    "--format takes perfetto, folded or csv, not '%s'",
				    optarg);
			break;
		default:
			if ((rc = ecp_cli_common_option("export", &o->common, opt, optarg,
							0)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("export", &o->common, argc, argv)))
		return rc;
	if (o->format == EXPORT_NONE)
		return ecp_cli_usage_error("export",
					   "choose --format perfetto, folded or csv");
	if (!o->output)
		return ecp_cli_usage_error(
		    "export", "say where to write: -o FILE ('-' for stdout)");
	return 0;
}

/* A slice per recorded call on the simulated timeline, or per segment for a
 * program recorded without function events. */
static int write_perfetto(FILE *out, const struct export_options *o,
			  const struct ecp_cli_session *s, const struct ecp_simrun *run,
			  struct ecp_error *err)
{
	const struct ecp_model *m = s->model;
	size_t n_slices = m->n_calls ? m->n_calls : m->n_segments;
	struct ecp_perfetto_slice *slices =
	    calloc(n_slices ? n_slices : 1, sizeof(*slices));
	struct ecp_perfetto_flow *flows =
	    calloc(s->dag.n_in ? s->dag.n_in : 1, sizeof(*flows));
	if (!slices || !flows) {
		free(slices);
		free(flows);
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	}
	if (m->n_calls) {
		for (uint64_t i = 0; i < m->n_calls; i++) {
			const struct ecp_call *c = &m->calls[i];
			struct ecp_perfetto_slice *sl = &slices[i];
			sl->thread = c->thread;
			sl->function = c->function;
			sl->depth = c->depth;
			sl->sampled = (c->flags & ECP_CALL_SAMPLED) != 0;
			sl->start_ns = llround(ecp_timeline_sim_time(
			    &run->timeline, c->thread, c->enter, false));
			sl->end_ns = llround(ecp_timeline_sim_time(
			    &run->timeline, c->thread, c->exit, true));
			if (sl->end_ns < sl->start_ns)
				sl->end_ns = sl->start_ns;
			double incl = (double)(c->exit - c->enter);
			double wt = ecp_timeline_weighted(&run->timeline, c->thread,
							  c->enter, c->exit);
			sl->weight = incl > 0 ? wt / incl : 0;
			sl->on_ecp = ecp_timeline_on_ecp(&run->timeline, c->thread,
							 c->enter, c->exit);
		}
	} else {
		for (uint32_t i = 0; i < m->n_segments; i++) {
			struct ecp_perfetto_slice *sl = &slices[i];
			sl->thread = m->segments[i].thread;
			sl->function = run->dominant[i];
			sl->start_ns = (int64_t)run->replay.seg_start[i];
			sl->end_ns = (int64_t)run->replay.seg_end[i];
			sl->weight = run->analysis.weights[i];
			sl->on_ecp = sl->weight != 0;
		}
	}
	static const char *const kinds[ECP_EDGE_KIND_COUNT] = {
	    [ECP_EDGE_CREATE] = "create", [ECP_EDGE_JOIN] = "join",
	    [ECP_EDGE_LOCK] = "lock",     [ECP_EDGE_COND] = "cond",
	    [ECP_EDGE_SEM] = "sem",       [ECP_EDGE_BARRIER] = "barrier",
	    [ECP_EDGE_ONCE] = "once",
	};
	size_t n_flows = 0;
	for (uint32_t to = 0; to < s->dag.n_segments; to++) {
		for (uint32_t k = s->dag.in_offset[to]; k < s->dag.in_offset[to + 1];
		     k++) {
			ecp_id from = s->dag.in_from[k];
			struct ecp_perfetto_flow *f = &flows[n_flows++];
			f->from_thread = s->dag.thread[from];
			f->from_ns = (int64_t)run->replay.seg_end[from];
			f->to_thread = s->dag.thread[to];
			f->to_ns = (int64_t)run->replay.seg_start[to];
			f->kind = s->dag.in_kind[k] < ECP_EDGE_KIND_COUNT
				      ? kinds[s->dag.in_kind[k]]
				      : NULL;
		}
	}
	char process[64];
	snprintf(process, sizeof(process), "ecp simulation, P=%u", o->processors);
	struct ecp_perfetto_input in = {
	    .trace_path = o->common.trace_dir,
	    .process_name = process,
	    .processors = o->processors,
	    .thread_count = m->n_threads,
	    .thread_names = (const char *const *)run->thread_names,
	    .function_count = m->n_functions,
	    .function_names = run->function_names,
	    .slice_count = n_slices,
	    .slices = slices,
	    .flow_count = n_flows,
	    .flows = flows,
	};
	int rc = ecp_perfetto_write(out, &in, err);
	free(slices);
	free(flows);
	return rc;
}

static int compare_calls(const void *pa, const void *pb)
{
	const struct ecp_call *a = *(const struct ecp_call *const *)pa;
	const struct ecp_call *b = *(const struct ecp_call *const *)pb;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->enter != b->enter)
		return a->enter < b->enter ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return (a->exit > b->exit) - (a->exit < b->exit);
}

#define MAX_FOLDED_DEPTH 256

/* Folded stacks: every call's exclusive CPU pieces, weighted by the ECP
 * weights of the segments they fall in, under the thread's start routine.
 * Time outside any recorded call is charged to the start routine alone, as
 * in the model. */
static int write_folded(FILE *out, const struct ecp_cli_session *s,
			const struct ecp_simrun *run, struct ecp_error *err)
{
	const struct ecp_model *m = s->model;
	const struct ecp_call **order =
	    calloc(m->n_calls ? m->n_calls : 1, sizeof(*order));
	/* One stack per call (its exclusive part) plus one per thread root. */
	size_t cap = (size_t)m->n_calls + m->n_threads;
	struct ecp_folded_stack *stacks = calloc(cap ? cap : 1, sizeof(*stacks));
	const char **frames =
	    calloc((cap ? cap : 1) * (MAX_FOLDED_DEPTH + 1), sizeof(char *));
	if (!order || !stacks || !frames) {
		free(order);
		free(stacks);
		free(frames);
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	}
	for (uint64_t i = 0; i < m->n_calls; i++)
		order[i] = &m->calls[i];
	qsort(order, m->n_calls, sizeof(*order), compare_calls);

	size_t n = 0, truncated = 0;
	uint64_t i = 0;
	for (uint32_t t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		const char *root = th->start_function != ECP_NO_ID
				       ? m->functions[th->start_function].name
				       : run->thread_names[t];
		uint64_t thread_cpu = 0;
		if (th->n_segments) {
			const struct ecp_segment *last =
			    &m->segments[th->first_segment + th->n_segments - 1];
			thread_cpu = last->cpu_start + last->length;
		}
		/* stack of open calls: index into `stacks` of each open frame */
		size_t open_stack[MAX_FOLDED_DEPTH];
		uint64_t open_exit[MAX_FOLDED_DEPTH];
		size_t depth = 0;
		size_t root_index = n++;
		stacks[root_index].frames = &frames[root_index * (MAX_FOLDED_DEPTH + 1)];
		frames[root_index * (MAX_FOLDED_DEPTH + 1)] = root;
		stacks[root_index].depth = 1;
		stacks[root_index].weighted_ns =
		    ecp_timeline_weighted(&run->timeline, t, 0, thread_cpu);
		for (; i < m->n_calls && order[i]->thread == t; i++) {
			const struct ecp_call *c = order[i];
			while (depth && open_exit[depth - 1] <= c->enter)
				depth--;
			double incl =
			    ecp_timeline_weighted(&run->timeline, t, c->enter, c->exit);
			/* The call's inclusive weight leaves its parent's exclusive part.
			 */
			size_t parent = depth ? open_stack[depth - 1] : root_index;
			stacks[parent].weighted_ns -= incl;
			if (depth >= MAX_FOLDED_DEPTH) {
				truncated++;
				stacks[parent].weighted_ns += incl;
				continue;
			}
			size_t idx = n++;
			const char **fr = &frames[idx * (MAX_FOLDED_DEPTH + 1)];
			const struct ecp_folded_stack *ps = &stacks[parent];
			memcpy(fr, ps->frames, ps->depth * sizeof(char *));
			fr[ps->depth] = m->functions[c->function].name;
			stacks[idx].frames = fr;
			stacks[idx].depth = ps->depth + 1;
			stacks[idx].weighted_ns = incl;
			open_stack[depth] = idx;
			open_exit[depth] = c->exit;
			depth++;
		}
	}
	struct ecp_folded_result res;
	int rc = ecp_folded_write(out, stacks, n, &res, err);
	if (rc == 0 && res.negative)
		fprintf(
		    stderr,
		    "ecp export: note: %zu stacks have a negative ECP weight in total "
		    "(%.0f ns; optimizing them would lengthen the run) and are left "
		    "out\n",
		    res.negative, res.negative_ns);
	if (truncated)
		fprintf(stderr,
			"ecp export: note: %zu calls deeper than %d frames were folded "
			"into their caller\n",
			truncated, MAX_FOLDED_DEPTH);
	free(order);
	free(stacks);
	free(frames);
	return rc;
}

static int write_segments(FILE *out, const struct ecp_cli_session *s,
			  const struct ecp_simrun *run, struct ecp_error *err)
{
	const struct ecp_model *m = s->model;
	struct ecp_segment_row *rows =
	    calloc(m->n_segments ? m->n_segments : 1, sizeof(*rows));
	if (!rows)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; i < m->n_segments; i++) {
		rows[i].thread = m->segments[i].thread;
		rows[i].segment = i;
		rows[i].start_ns = (int64_t)run->replay.seg_start[i];
		rows[i].end_ns = (int64_t)run->replay.seg_end[i];
		rows[i].length_ns = (int64_t)m->segments[i].length;
		rows[i].weight = run->analysis.weights[i];
		rows[i].top_function = run->dominant[i];
	}
	struct ecp_segments_csv in = {
	    .thread_count = m->n_threads,
	    .thread_names = (const char *const *)run->thread_names,
	    .function_count = m->n_functions,
	    .function_names = run->function_names,
	    .count = m->n_segments,
	    .rows = rows,
	};
	int rc = ecp_segments_csv_write(out, &in, err);
	free(rows);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct export_options o = {0};
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc)
		return rc;
	struct ecp_cli_session s;
	if ((rc = ecp_cli_session_open("export", &o.common, &s)))
		return rc;
	struct ecp_simrun run;
	if ((rc = ecp_cli_ask_simrun("export", &s, o.processors, &run))) {
		ecp_answer_simrun_finish(&run, s.model);
		ecp_cli_session_close(&s);
		return rc;
	}
	if (o.format == EXPORT_FOLDED && s.model->n_calls == 0 &&
	    s.model->info.functions_recorded)
		fprintf(
		    stderr,
		    "ecp export: note: the trace has no function calls; stacks are the "
		    "threads' start routines only\n");
	struct ecp_output out;
	struct ecp_error err = {0};
	if (ecp_cli_output_open("export", o.output, &out) < 0) {
		rc = ECP_EXIT_FAILED;
		goto done;
	}
	if (o.format == EXPORT_PERFETTO)
		rc = write_perfetto(out.file, &o, &s, &run, &err);
	else if (o.format == EXPORT_FOLDED)
		rc = write_folded(out.file, &s, &run, &err);
	else
		rc = write_segments(out.file, &s, &run, &err);
	if (rc < 0) {
		ecp_cli_output_abort(&out);
		rc = ecp_cli_fail("export", "%s", err.msg);
		goto done;
	}
	rc = ecp_cli_output_commit("export", &out) < 0 ? ECP_EXIT_FAILED : ECP_EXIT_OK;
done:
	ecp_answer_simrun_finish(&run, s.model);
	ecp_cli_session_close(&s);
	return rc;
}
