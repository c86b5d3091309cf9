/* SPDX-License-Identifier: MIT */
/* ecp export's folded stacks (answers/export.h). */
#include <stdlib.h>
#include <string.h>

#include "answers/export.h"
#include "viz/folded.h"

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

/* Folded stacks: every call's exclusive CPU pieces, weighted by the ECP
 * weights of the segments they fall in, under the thread's start routine.
 * Time outside any recorded call is charged to the start routine alone, as
 * in the model. */
int ecp_export_write_folded(FILE *out, const struct ecp_export_answer *ans,
			    struct ecp_export_notes *notes, struct ecp_error *err)
{
	const struct ecp_model *m = ans->model;
	const struct ecp_simrun *run = ans->run;
	const struct ecp_call **order =
	    calloc(m->n_calls ? m->n_calls : 1, sizeof(*order));
	/* One stack per call (its exclusive part) plus one per thread root. */
	size_t cap = (size_t)m->n_calls + m->n_threads;
	struct ecp_folded_stack *stacks = calloc(cap ? cap : 1, sizeof(*stacks));
	const char **frames =
	    calloc((cap ? cap : 1) * (ECP_FOLDED_MAX_DEPTH + 1), sizeof(char *));
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
		size_t open_stack[ECP_FOLDED_MAX_DEPTH];
		uint64_t open_exit[ECP_FOLDED_MAX_DEPTH];
		size_t depth = 0;
		size_t root_index = n++;
		stacks[root_index].frames =
		    &frames[root_index * (ECP_FOLDED_MAX_DEPTH + 1)];
		frames[root_index * (ECP_FOLDED_MAX_DEPTH + 1)] = root;
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
			if (depth >= ECP_FOLDED_MAX_DEPTH) {
				truncated++;
				stacks[parent].weighted_ns += incl;
				continue;
			}
			size_t idx = n++;
			const char **fr = &frames[idx * (ECP_FOLDED_MAX_DEPTH + 1)];
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
	if (rc == 0) {
		notes->negative_stacks = res.negative;
		notes->negative_ns = res.negative_ns;
	}
	notes->truncated_calls = truncated;
	free(order);
	free(stacks);
	free(frames);
	return rc < 0 ? -1 : 0;
}
