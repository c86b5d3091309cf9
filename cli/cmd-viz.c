/* SPDX-License-Identifier: MIT */
/* ecp viz: one self-contained HTML report of the simulated run on P
 * processors and of the sweep over a range of processor counts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/ask.h"
#include "common/parse.h"
#include "viz/html-report.h"

#define MAX_MEASURED   256
#define PLOT_FUNCTIONS 6

struct viz_options {
	struct ecp_cli_common common;
	unsigned processors;
	unsigned *range;
	size_t n_range;
	const char *output;
	struct ecp_html_measured measured[MAX_MEASURED];
	size_t n_measured;
};

/* "2=1.25,4=0.70": measured wall seconds per processor count. */
static int parse_measured(const char *arg, struct viz_options *o)
{
	char *copy = strdup(arg), *save = NULL;
	if (!copy)
		return ecp_cli_fail("viz", "out of memory");
	int rc = 0;
	for (char *item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		uint64_t p;
		char *end = NULL;
		double sec = 0;
		if (eq) {
			*eq = '\0';
			errno = 0;
			sec = strtod(eq + 1, &end);
		}
		if (!eq || ecp_parse_u64(item, &p) < 0 || p < 1 ||
		    p > ECP_CLI_MAX_PROCESSORS || errno || end == eq + 1 || *end ||
		    !(sec > 0) || o->n_measured == MAX_MEASURED) {
			rc = ecp_cli_usage_error(
			    "viz",
			    "--measured takes P=SECONDS,... (e.g. 1=2.0,2=1.1), "
			    "not '%s'",
			    arg);
			break;
		}
		o->measured[o->n_measured].processors = (uint32_t)p;
		o->measured[o->n_measured].seconds = sec;
		o->n_measured++;
	}
	free(copy);
	return rc;
}

static int parse_options(int argc, char **argv, struct viz_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"output", required_argument, NULL, 'o'},
	    {"range", required_argument, NULL, 'r'},
	    {"measured", required_argument, NULL, 'm'},
	    {"allow-loss", no_argument, NULL, ECP_OPT_ALLOW_LOSS},
	    {"allow-inconsistent", no_argument, NULL, ECP_OPT_ALLOW_INCONSISTENT},
	    {"lock-order", required_argument, NULL, ECP_OPT_LOCK_ORDER},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	ecp_cli_common_init(&o->common);
	o->processors = ecp_cli_online_cpus();
	const char *range = "1-16";
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("viz", argc, argv, "P:o:h", longopts)) != -1) {
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			if ((rc =
				 ecp_cli_parse_processors("viz", optarg, &o->processors)))
				return rc;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'r':
			range = optarg;
			break;
		case 'm':
			if ((rc = parse_measured(optarg, o)))
				return rc;
			break;
		default:
			if ((rc = ecp_cli_common_option("viz", &o->common, opt, optarg,
							0)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("viz", &o->common, argc, argv)))
		return rc;
	if (!o->output)
		return ecp_cli_usage_error("viz",
					   "say where to write the report: -o FILE.html");
	struct ecp_error err = {0};
	if (ecp_parse_proc_list(range, ECP_CLI_MAX_PROCESSORS, &o->range, &o->n_range,
				&err) < 0)
		return ecp_cli_usage_error("viz", "--range: %s", err.msg);
	return 0;
}

static uint8_t start_mark(const struct ecp_model *m, ecp_id s)
{
	const struct ecp_segment *seg = &m->segments[s];
	const struct ecp_thread *th = &m->threads[seg->thread];
	for (uint32_t k = 0; k < seg->n_in; k++) {
		switch (m->edges[seg->first_in + k].kind) {
		case ECP_EDGE_JOIN:
			return ECP_HTML_MARK_JOIN;
		case ECP_EDGE_COND:
			return ECP_HTML_MARK_WAIT;
		case ECP_EDGE_SEM:
			return ECP_HTML_MARK_SEM_WAIT;
		case ECP_EDGE_BARRIER:
			return ECP_HTML_MARK_BARRIER;
		case ECP_EDGE_ONCE:
			return ECP_HTML_MARK_ONCE;
		default:
			break;
		}
	}
	if (seg->lock_acquire != ECP_NO_ID)
		return ECP_HTML_MARK_LOCK;
	if (seg->delay)
		return ECP_HTML_MARK_DELAY;
	if (s == th->first_segment && th->parent != ECP_NO_ID)
		return ECP_HTML_MARK_CREATE;
	return ECP_HTML_MARK_NONE;
}

static uint8_t out_edge_mark(uint32_t kind)
{
	switch (kind) {
	case ECP_EDGE_CREATE:
		return ECP_HTML_MARK_CREATE;
	case ECP_EDGE_COND:
		return ECP_HTML_MARK_SIGNAL;
	case ECP_EDGE_SEM:
		return ECP_HTML_MARK_SEM_POST;
	case ECP_EDGE_BARRIER:
		return ECP_HTML_MARK_BARRIER;
	case ECP_EDGE_ONCE:
		return ECP_HTML_MARK_ONCE;
	case ECP_EDGE_JOIN:
		return ECP_HTML_MARK_EXIT;
	default:
		return ECP_HTML_MARK_NONE;
	}
}

static int build_and_write(FILE *out, const struct viz_options *o,
			   const struct ecp_cli_session *s, const struct ecp_simrun *run,
			   const struct ecp_answer_sweep *sw, struct ecp_error *err)
{
	const struct ecp_model *m = s->model;
	size_t nseg = m->n_segments;
	struct ecp_html_segment *segs = calloc(nseg ? nseg : 1, sizeof(*segs));
	struct ecp_html_step *steps =
	    calloc(run->replay.n_steps ? run->replay.n_steps : 1, sizeof(*steps));
	size_t nf = sw->n_shown < PLOT_FUNCTIONS ? sw->n_shown : PLOT_FUNCTIONS;
	/* Every P's top is in `shown`; plot the first ones and any top beyond. */
	uint32_t *plot = calloc(sw->n_shown ? sw->n_shown : 1, sizeof(*plot));
	uint32_t *procs = calloc(sw->n_points ? sw->n_points : 1, sizeof(*procs));
	int64_t *makespan = calloc(sw->n_points ? sw->n_points : 1, sizeof(*makespan));
	double *tet = NULL;
	struct ecp_html_crossover *cross =
	    calloc(sw->n_crossovers ? sw->n_crossovers : 1, sizeof(*cross));
	struct ecp_html_function_row *rows = calloc(
	    run->analysis.n_functions ? run->analysis.n_functions : 1, sizeof(*rows));
	int rc = ECP_OK;
	if (!segs || !steps || !plot || !procs || !makespan || !cross || !rows) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (ecp_id i = 0; i < nseg; i++) {
		segs[i].thread = m->segments[i].thread;
		segs[i].function = run->dominant[i] == ECP_NO_ID ? ECP_HTML_NO_FUNCTION
								 : run->dominant[i];
		segs[i].start_ns = (int64_t)run->replay.seg_start[i];
		segs[i].end_ns = (int64_t)run->replay.seg_end[i];
		segs[i].cpu_ns = (int64_t)m->segments[i].length;
		segs[i].weight = run->analysis.weights[i];
		segs[i].start_mark = start_mark(m, i);
		if (m->segments[i].lock_release != ECP_NO_ID)
			segs[i].end_mark = ECP_HTML_MARK_UNLOCK;
	}
	for (uint32_t e = 0; e < m->n_edges; e++) {
		uint8_t mark = out_edge_mark(m->edges[e].kind);
		if (mark != ECP_HTML_MARK_NONE)
			segs[m->edges[e].from].end_mark = mark;
	}
	for (size_t i = 0; i < run->replay.n_steps; i++) {
		uint32_t n = run->replay.steps[i].runnable;
		steps[i].time_ns = (int64_t)run->replay.steps[i].time;
		steps[i].runnable = n;
		steps[i].running = n < o->processors ? n : o->processors;
	}
	size_t np = 0;
	for (size_t k = 0; k < sw->n_shown; k++) {
		bool top_somewhere = false;
		for (size_t i = 0; i < sw->n_points; i++) {
			const struct ecp_function_result *t =
			    ecp_answer_sweep_top(&sw->points[i]);
			if (t && t->function == sw->shown[k])
				top_somewhere = true;
		}
		if (np < nf || top_somewhere)
			plot[np++] = sw->shown[k];
	}
	tet = calloc((sw->n_points ? sw->n_points : 1) * (np ? np : 1), sizeof(*tet));
	if (!tet) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < sw->n_points; i++) {
		procs[i] = sw->points[i].processors;
		makespan[i] = (int64_t)sw->points[i].analysis.makespan_ns;
		for (size_t k = 0; k < np; k++) {
			const struct ecp_function_result *x =
			    sw->points[i].by_function[plot[k]];
			tet[i * np + k] = x ? x->tet_ns : 0;
		}
	}
	for (size_t c = 0; c < sw->n_crossovers; c++) {
		size_t i = sw->crossover_at[c];
		cross[c].processors = sw->points[i].processors;
		cross[c].before = ecp_answer_sweep_top(&sw->points[i - 1])->function;
		cross[c].after = ecp_answer_sweep_top(&sw->points[i])->function;
	}
	for (size_t k = 0; k < run->analysis.n_functions; k++) {
		const struct ecp_function_result *f = &run->analysis.functions[k];
		rows[k] = (struct ecp_html_function_row){
		    .function = f->function,
		    .calls = f->calls,
		    .tet_ns = f->tet_ns,
		    .tetid_ns = f->tetid_ns,
		    .work_ns = f->work_ns,
		    .span_ns = f->span_ns,
		    .idle_ns = f->idle_ns,
		};
	}
	struct ecp_html_scan scan = {
	    .count = sw->n_points,
	    .processors = procs,
	    .makespan_ns = makespan,
	    .top_count = np,
	    .top_functions = plot,
	    .tet_ns = tet,
	    .crossover_count = sw->n_crossovers,
	    .crossovers = cross,
	};
	struct ecp_html_report r = {
	    .title = "ecp report",
	    .trace_path = o->common.trace_dir,
	    .program = m->info.program,
	    .processors = o->processors,
	    .makespan_ns = (int64_t)run->analysis.makespan_ns,
	    .work_ns = (int64_t)s->dag.work,
	    .span_ns = (int64_t)s->dag.span,
	    .thread_count = m->n_threads,
	    .thread_names = (const char *const *)run->thread_names,
	    .function_count = m->n_functions,
	    .function_names = run->function_names,
	    .segment_count = nseg,
	    .segments = segs,
	    .step_count = run->replay.n_steps,
	    .steps = steps,
	    .scan = &scan,
	    .measured_count = o->n_measured,
	    .measured = o->measured,
	    .row_count = run->analysis.n_functions,
	    .rows = rows,
	};
	rc = ecp_html_report_write(out, &r, err);
out:
	free(segs);
	free(steps);
	free(plot);
	free(procs);
	free(makespan);
	free(tet);
	free(cross);
	free(rows);
	return rc;
}

int cmd_viz(int argc, char **argv)
{
	struct viz_options o = {0};
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc) {
		free(o.range);
		return rc;
	}
	struct ecp_cli_session s;
	o.common.max_processors = ecp_cli_max_of(o.range, o.n_range);
	if (o.processors > o.common.max_processors)
		o.common.max_processors = o.processors;
	if ((rc = ecp_cli_session_open("viz", &o.common, &s))) {
		free(o.range);
		return rc;
	}
	struct ecp_simrun run;
	struct ecp_answer_sweep sw;
	memset(&sw, 0, sizeof(sw));
	struct ecp_output out = {0};
	struct ecp_error err = {0};
	if ((rc = ecp_cli_ask_simrun("viz", &s, o.processors, &run)) ||
	    (rc = ecp_cli_ask_sweep("viz", &s, o.range, o.n_range, PLOT_FUNCTIONS, true,
				    &sw)))
		goto done;
	if (ecp_cli_output_open("viz", o.output, &out) < 0) {
		rc = ECP_EXIT_FAILED;
		goto done;
	}
	if (build_and_write(out.file, &o, &s, &run, &sw, &err) < 0) {
		ecp_cli_output_abort(&out);
		rc = ecp_cli_fail("viz", "%s", err.msg);
		goto done;
	}
	rc = ecp_cli_output_commit("viz", &out) < 0 ? ECP_EXIT_FAILED : ECP_EXIT_OK;
	if (rc == ECP_EXIT_OK && strcmp(o.output, "-"))
		fprintf(stderr,
			"ecp viz: wrote %s (P=%u, range of %zu processor counts)\n",
			o.output, o.processors, o.n_range);
done:
	ecp_answer_sweep_finish(&sw);
	ecp_answer_simrun_finish(&run, s.model);
	ecp_cli_session_close(&s);
	free(o.range);
	return rc;
}
