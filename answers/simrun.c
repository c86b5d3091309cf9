/* SPDX-License-Identifier: MIT */
#include "answers/simrun.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fill_names(const struct ecp_model *m, struct ecp_simrun *run)
{
	run->function_names = calloc(m->n_functions ? m->n_functions : 1, sizeof(char *));
	run->thread_names = calloc(m->n_threads ? m->n_threads : 1, sizeof(char *));
	run->dominant = calloc(m->n_segments ? m->n_segments : 1, sizeof(ecp_id));
	if (!run->function_names || !run->thread_names || !run->dominant)
		return -1;
	for (uint32_t f = 0; f < m->n_functions; f++)
		run->function_names[f] = m->functions[f].name;
	for (uint32_t t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		char buf[64];
		if (th->name[0])
			snprintf(buf, sizeof(buf), "%.16s (%" PRIu64 ")", th->name,
				 th->tid);
		else
			snprintf(buf, sizeof(buf), "thread %" PRIu64, th->tid);
		if (!(run->thread_names[t] = strdup(buf)))
			return -1;
	}
	for (uint32_t s = 0; s < m->n_segments; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		ecp_id best = m->threads[seg->thread].start_function;
		uint64_t best_ns = 0;
		struct ecp_activity one;
		const struct ecp_activity *acts;
		uint32_t n = ecp_segment_activities(m, seg, &one, &acts);
		for (uint32_t k = 0; k < n; k++) {
			const struct ecp_activity *a = &acts[k];
			if (a->self_ns > best_ns) {
				best_ns = a->self_ns;
				best = a->function;
			}
		}
		run->dominant[s] = best;
	}
	return 0;
}

int ecp_answer_simrun_init(const struct ecp_model *m, const struct ecp_dag *dag,
			   const struct ecp_engine_options *opts, unsigned processors,
			   struct ecp_simrun *run, struct ecp_error *err)
{
	memset(run, 0, sizeof(*run));
	run->processors = processors;
	if (ecp_analyze(m, dag, processors, opts, &run->analysis, err) < 0)
		return ecp_error_prefix(err, "P=%u", processors), -1;
	run->analysed = true;
	if (ecp_replay_run(dag, processors, ECP_REPLAY_STEPS | ECP_REPLAY_TIMELINE,
			   &run->replay, err) < 0)
		return ecp_error_prefix(err, "simulating P=%u", processors), -1;
	if (fill_names(m, run) < 0 ||
	    ecp_timeline_init(&run->timeline, m, run->replay.seg_start,
			      run->replay.seg_end, run->analysis.weights) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory"), -1;
	return 0;
}

void ecp_answer_simrun_finish(struct ecp_simrun *run, const struct ecp_model *m)
{
	ecp_timeline_finish(&run->timeline);
	ecp_replay_finish(&run->replay);
	ecp_analysis_finish(&run->analysis);
	if (run->thread_names)
		for (uint32_t t = 0; t < m->n_threads; t++)
			free(run->thread_names[t]);
	free(run->thread_names);
	free(run->function_names);
	free(run->dominant);
	memset(run, 0, sizeof(*run));
}
