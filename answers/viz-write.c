/* SPDX-License-Identifier: MIT */
/* Writes ecp viz's answer (answers/viz.h) as viz/html-report.h draws it. */
#include "answers/viz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "answers/report.h"

/* The room for a consistency sentence (cli/consistency.c's, three
 * threads named in full). */
#define SENTENCE 1536

/* The report's warnings: the model's, then what the consistency check
 * found, in the sentences stderr shows (ecp_consistency_describe and
 * _describe_span into lines).  Fills *list; returns how many, or -1 when
 * out of memory. */
static ssize_t report_warnings(const struct ecp_viz_answer *ans, const char ***list,
			       char (*lines)[SENTENCE])
{
	const struct ecp_model *m = ans->model;
	const struct ecp_consistency *c = ans->consistency;
	*list = malloc((m->n_warnings + 2) * sizeof(**list));
	if (!*list)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < m->n_warnings; i++)
		(*list)[n++] = m->warnings[i];
	char what[SENTENCE];
	switch (c ? ecp_consistency_work_status(c) : ECP_CONSISTENCY_OK) {
	case ECP_CONSISTENCY_FATAL:
		snprintf(
		    lines[0], SENTENCE,
		    "the model does not hold the program's time (%s); answered anyway "
		    "as asked (--allow-inconsistent): do not trust the figures",
		    ecp_consistency_describe(c, what, sizeof(what)));
		(*list)[n++] = lines[0];
		break;
	case ECP_CONSISTENCY_WARNING:
		snprintf(lines[0], SENTENCE, "the answers may be off: %s",
			 ecp_consistency_describe(c, what, sizeof(what)));
		(*list)[n++] = lines[0];
		break;
	default:
		break;
	}
	if (c && c->span_over) {
		snprintf(lines[1], SENTENCE, "the answers may be off: %s",
			 ecp_consistency_describe_span(c, what, sizeof(what)));
		(*list)[n++] = lines[1];
	}
	return (ssize_t)n;
}

static uint8_t start_mark(const struct ecp_model *m, ecp_id s)
{
	const struct ecp_segment *seg = &m->segments[s];
	const struct ecp_thread *th = &m->threads[seg->thread];
	for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s); k < n_in; k++) {
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
		case ECP_EDGE_LOCK_HELD:
			return ECP_HTML_MARK_LOCK;
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

/* The Gantt chart's bars: a segment each, marked by how it starts and
 * ends. */
static void fill_segments(const struct ecp_model *m, const struct ecp_simrun *run,
			  struct ecp_html_segment *segs)
{
	for (ecp_id i = 0; i < m->n_segments; i++) {
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
}

static void fill_steps(const struct ecp_simrun *run, struct ecp_html_step *steps)
{
	for (size_t i = 0; i < run->replay.n_steps; i++) {
		uint32_t n = run->replay.steps[i].runnable;
		steps[i].time_ns = (int64_t)run->replay.steps[i].time;
		steps[i].runnable = n;
		steps[i].running = n < run->processors ? n : run->processors;
	}
}

/* The functions the sweep's plot draws: the first shown ones and every
 * P's top (all of them are in `shown`).  Returns how many. */
static size_t choose_plotted(const struct ecp_answer_sweep *sw, uint32_t *plot)
{
	size_t nf =
	    sw->n_shown < ECP_VIZ_PLOT_FUNCTIONS ? sw->n_shown : ECP_VIZ_PLOT_FUNCTIONS;
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
	return np;
}

/* The sweep as the plots draw it: T_P and each plotted function's TET per
 * P, and the crossovers. */
struct scan_arrays {
	uint32_t *plot, *procs;
	int64_t *makespan;
	double *tet;
	struct ecp_html_crossover *cross;
};

static void scan_arrays_free(struct scan_arrays *a)
{
	free(a->plot);
	free(a->procs);
	free(a->makespan);
	free(a->tet);
	free(a->cross);
}

static int fill_scan(const struct ecp_answer_sweep *sw, struct scan_arrays *a,
		     struct ecp_html_scan *scan, struct ecp_error *err)
{
	size_t npoints = sw->n_points ? sw->n_points : 1;
	a->plot = calloc(sw->n_shown ? sw->n_shown : 1, sizeof(*a->plot));
	a->procs = calloc(npoints, sizeof(*a->procs));
	a->makespan = calloc(npoints, sizeof(*a->makespan));
	a->cross = calloc(sw->n_crossovers ? sw->n_crossovers : 1, sizeof(*a->cross));
	if (!a->plot || !a->procs || !a->makespan || !a->cross)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory"), -1;
	size_t np = choose_plotted(sw, a->plot);
	a->tet = calloc(npoints * (np ? np : 1), sizeof(*a->tet));
	if (!a->tet)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory"), -1;
	for (size_t i = 0; i < sw->n_points; i++) {
		a->procs[i] = sw->points[i].processors;
		a->makespan[i] = (int64_t)sw->points[i].analysis.makespan_ns;
		for (size_t k = 0; k < np; k++) {
			const struct ecp_function_result *x =
			    sw->points[i].by_function[a->plot[k]];
			a->tet[i * np + k] = x ? x->tet_ns : 0;
		}
	}
	for (size_t c = 0; c < sw->n_crossovers; c++) {
		size_t i = sw->crossover_at[c];
		a->cross[c].processors = sw->points[i].processors;
		a->cross[c].before = ecp_answer_sweep_top(&sw->points[i - 1])->function;
		a->cross[c].after = ecp_answer_sweep_top(&sw->points[i])->function;
	}
	*scan = (struct ecp_html_scan){
	    .count = sw->n_points,
	    .processors = a->procs,
	    .makespan_ns = a->makespan,
	    .top_count = np,
	    .top_functions = a->plot,
	    .tet_ns = a->tet,
	    .crossover_count = sw->n_crossovers,
	    .crossovers = a->cross,
	};
	return 0;
}

/* The spawn sites' rows and the names they point into (one block). */
static struct ecp_html_spawn_row *spawn_rows(const struct ecp_model *m)
{
	enum { NAME = 256 };
	size_t n = m->n_spawn_sites;
	struct ecp_html_spawn_row *rows = malloc((n ? n : 1) * (sizeof(*rows) + NAME));
	if (!rows)
		return NULL;
	char *names = (char *)(rows + n);
	for (size_t i = 0; i < n; i++) {
		const struct ecp_spawn_site *s = &m->spawn_sites[i];
		ecp_spawn_site_name(names + i * NAME, NAME, m, s);
		rows[i] = (struct ecp_html_spawn_row){.name = names + i * NAME,
						      .tasks = s->tasks,
						      .work_ns = (double)s->work_ns,
						      .span_ns = (double)s->span_ns};
	}
	return rows;
}

static void fill_rows(const struct ecp_analysis *a, struct ecp_html_function_row *rows)
{
	for (size_t k = 0; k < a->n_functions; k++) {
		const struct ecp_function_result *f = &a->functions[k];
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
}

int ecp_viz_write(FILE *out, const struct ecp_viz_answer *ans, struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_simrun *run = ans->run;
	size_t nseg = m->n_segments;
	struct ecp_html_segment *segs = calloc(nseg ? nseg : 1, sizeof(*segs));
	struct ecp_html_step *steps =
	    calloc(run->replay.n_steps ? run->replay.n_steps : 1, sizeof(*steps));
	struct ecp_html_function_row *rows = calloc(
	    run->analysis.n_functions ? run->analysis.n_functions : 1, sizeof(*rows));
	struct ecp_html_spawn_row *spawn = spawn_rows(m);
	struct scan_arrays arrays = {0};
	struct ecp_html_scan scan;
	const char **warnings = NULL;
	char lines[2][SENTENCE];
	ssize_t n_warnings = report_warnings(ans, &warnings, lines);
	int rc = -1;
	if (!segs || !steps || !rows || !spawn || n_warnings < 0) {
		ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (fill_scan(ans->sweep, &arrays, &scan, err) < 0)
		goto out;
	fill_segments(m, run, segs);
	fill_steps(run, steps);
	fill_rows(&run->analysis, rows);
	struct ecp_html_report r = {
	    .title = "ecp report",
	    .trace_path = ans->trace_dir,
	    .program = m->info.program,
	    .processors = run->processors,
	    .makespan_ns = (int64_t)run->analysis.makespan_ns,
	    .work_ns = (int64_t)ans->dag->work,
	    .span_ns = (int64_t)ans->dag->span,
	    .thread_count = m->n_threads,
	    .thread_names = (const char *const *)run->thread_names,
	    .function_count = m->n_functions,
	    .function_names = run->function_names,
	    .segment_count = nseg,
	    .segments = segs,
	    .step_count = run->replay.n_steps,
	    .steps = steps,
	    .scan = &scan,
	    .measured_count = ans->n_measured,
	    .measured = ans->measured,
	    .row_count = run->analysis.n_functions,
	    .rows = rows,
	    .spawn_count = m->n_spawn_sites,
	    .spawn_rows = spawn,
	    .warning_count = (size_t)n_warnings,
	    .warnings = warnings,
	};
	rc = ecp_html_report_write(out, &r, err) < 0 ? -1 : 0;
out:
	free(segs);
	free(steps);
	free(rows);
	free(spawn);
	free(warnings);
	scan_arrays_free(&arrays);
	return rc;
}
