/* SPDX-License-Identifier: MIT */
/* Writes ecp export's answer (answers/export.h): Perfetto and segment CSV
 * here, the folded stacks in export-folded.c. */
#include "answers/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/time-round.h"
#include "viz/perfetto.h"
#include "viz/segments-csv.h"

/* A slice per recorded call on the simulated timeline, or per segment for a
 * program recorded without function events. */
static int write_perfetto(FILE *out, const struct ecp_export_answer *ans,
			  struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_dag *dag = ans->dag;
	const struct ecp_simrun *run = ans->run;
	size_t n_slices = m->n_calls ? m->n_calls : m->n_segments;
	struct ecp_perfetto_slice *slices =
	    calloc(n_slices ? n_slices : 1, sizeof(*slices));
	struct ecp_perfetto_flow *flows =
	    calloc(dag->n_in ? dag->n_in : 1, sizeof(*flows));
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
			sl->start_ns = ecp_round_ns(ecp_timeline_sim_time(
			    &run->timeline, c->thread, c->enter, false));
			sl->end_ns = ecp_round_ns(ecp_timeline_sim_time(
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
	    [ECP_EDGE_ONCE] = "once",     [ECP_EDGE_LOCK_HELD] = "lock-held",
	};
	size_t n_flows = 0;
	for (uint32_t to = 0; to < dag->n_segments; to++) {
		for (uint32_t k = dag->in_offset[to]; k < dag->in_offset[to + 1]; k++) {
			ecp_id from = dag->in_from[k];
			struct ecp_perfetto_flow *f = &flows[n_flows++];
			f->from_thread = dag->thread[from];
			f->from_ns = (int64_t)run->replay.seg_end[from];
			f->to_thread = dag->thread[to];
			f->to_ns = (int64_t)run->replay.seg_start[to];
			f->kind = dag->in_kind[k] < ECP_EDGE_KIND_COUNT
				      ? kinds[dag->in_kind[k]]
				      : NULL;
		}
	}
	char process[64];
	snprintf(process, sizeof(process), "ecp simulation, P=%u", run->processors);
	struct ecp_perfetto_input in = {
	    .trace_path = ans->trace_dir,
	    .process_name = process,
	    .processors = run->processors,
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

static int write_segments(FILE *out, const struct ecp_export_answer *ans,
			  struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_simrun *run = ans->run;
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

int ecp_export_write(FILE *out, enum ecp_export_format format,
		     const struct ecp_export_answer *ans, struct ecp_export_notes *notes,
		     struct ecp_error *err)
{
	memset(notes, 0, sizeof(*notes));
	if (format == ECP_EXPORT_PERFETTO)
		return write_perfetto(out, ans, err) < 0 ? -1 : 0;
	if (format == ECP_EXPORT_FOLDED)
		return ecp_export_write_folded(out, ans, notes, err);
	return write_segments(out, ans, err) < 0 ? -1 : 0;
}
